// libptoas_lld.so: the code-object link (code_object_link.cpp, lld with
// every LLVM target it drags in) as a plugin that ptoas opens only when it
// writes a code object (lld_loader.cpp). Linked into ptoas itself, lld's
// LLVM cost every process, whatever its target, about 700 static
// initialisers and their page faults (docs/bench.md, "Where a ptoas process
// spends its time"). The interface is C: bytes in, bytes out, so no C++
// object crosses between the program's copy of the C++ runtime and LLVM and
// the plugin's.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "code_object.h"
#include "lld_plugin.h"

extern "C" __attribute__((visibility("default"))) int ptoas_lld_link(const uint8_t* obj, size_t size, uint8_t** out,
                                                                      size_t* out_size, char** err) {
  *out = nullptr;
  *out_size = 0;
  *err = nullptr;
  std::string e;
  try {
    std::vector<uint8_t> in(obj, obj + size), hsaco;
    if (ptoas::cg::amdgpu::link_code_object(in, hsaco, e)) {
      *out = static_cast<uint8_t*>(std::malloc(hsaco.size() ? hsaco.size() : 1));
      if (*out) {
        std::memcpy(*out, hsaco.data(), hsaco.size());
        *out_size = hsaco.size();
        return 0;
      }
      e = "amdgpu: out of memory for the linked code object";
    }
  } catch (const std::exception& x) {
    e = std::string("amdgpu: the linker failed: ") + x.what();
  }
  *err = strdup(e.c_str());
  return 1;
}
