// ptoas's link_code_object (code_object.h): opens libptoas_lld.so on the
// first code object and calls it. The plugin is looked for in lib/ptoas/
// beside the program's directory (build/lib/ptoas in the build tree, where
// the program is build/ptoas) or above it (P/lib/ptoas of an install, the
// program in P/bin): no path of the build machine is compiled in.
#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "code_object.h"
#include "lld_plugin.h"
#include "program_dir.h"

namespace ptoas::cg::amdgpu {

namespace {

constexpr const char* kPlugin = "libptoas_lld.so";

PtoasLldLink load(std::string& err) {
  static std::once_flag once;
  static PtoasLldLink fn = nullptr;
  static std::string why;
  std::call_once(once, [] {
    std::string dir = ptoas::program_dir(), tried;
    for (const std::string& cand : {dir + "/lib/ptoas/" + kPlugin, dir + "/../lib/ptoas/" + kPlugin}) {
      struct stat st;
      if (::stat(cand.c_str(), &st) != 0) {
        tried += (tried.empty() ? "" : ", ") + cand;
        continue;
      }
      void* h = ::dlopen(cand.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        why = std::string("amdgpu: cannot load the linker plugin: ") + ::dlerror();
        return;
      }
      fn = reinterpret_cast<PtoasLldLink>(::dlsym(h, "ptoas_lld_link"));
      if (!fn) why = "amdgpu: " + cand + " has no ptoas_lld_link";
      return;
    }
    why = std::string("amdgpu: the linker plugin ") + kPlugin + " is not installed (looked for " + tried + ")";
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
