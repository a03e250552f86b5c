// link_code_object (code_object.h) where the program does not link lld
// (ptoas's libptoas_llvm.so): opens libptoas_lld.so (plugin_loader.h) on
// the first code object and calls it.
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "code_object.h"
#include "lld_plugin.h"
#include "plugin_loader.h"

namespace ptoas::cg::amdgpu {

namespace {

PtoasLldLink load(std::string& err) {
  static std::once_flag once;
  static PtoasLldLink fn = nullptr;
  static std::string why;
  std::call_once(once, [] {
    fn = reinterpret_cast<PtoasLldLink>(plugin_symbol("libptoas_lld.so", "ptoas_lld_link", why));
    if (!fn) why = "amdgpu: the linker plugin: " + why;
  });
  if (!fn) err = why;
  return fn;
}

}  // namespace

bool link_code_object(const std::vector<uint8_t>& obj, std::vector<uint8_t>& hsaco, std::string& err) {
  hsaco.clear();
  PtoasLldLink fn = load(err);
  if (!fn) return false;
  uint8_t* out = nullptr;
  size_t size = 0;
  char* e = nullptr;
  int rc = fn(obj.data(), obj.size(), &out, &size, &e);
  if (rc == 0) hsaco.assign(out, out + size);
  else err = e ? e : "amdgpu: the linker plugin failed";
  std::free(out);
  std::free(e);
  return rc == 0;
}

}  // namespace ptoas::cg::amdgpu
