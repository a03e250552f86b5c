// Opening ptoas's plugins (plugin_loader.h).
#include "plugin_loader.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <mutex>

#include "program_dir.h"

namespace ptoas::cg {

void* plugin_symbol(const char* file, const char* symbol, std::string& err) {
  // dlopen keeps one handle per file; the lock keeps dlerror's message
  // with the call that made it.
  static std::mutex lock;
  std::lock_guard<std::mutex> hold(lock);
  std::string dir = program_dir(), tried;
  for (const std::string& cand : {dir + "/lib/ptoas/" + file, dir + "/../lib/ptoas/" + file}) {
    struct stat st;
    if (::stat(cand.c_str(), &st) != 0) {
      tried += (tried.empty() ? "" : ", ") + cand;
      continue;
    }
    void* h = ::dlopen(cand.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = ::dlerror();
      err = "cannot load " + cand + ": " + (e ? e : "unknown error");
      return nullptr;
    }
    void* fn = ::dlsym(h, symbol);
    if (!fn) err = cand + " has no " + symbol;
    return fn;
  }
  err = std::string(file) + " is not installed (looked for " + tried + ")";
  return nullptr;
}

}  // namespace ptoas::cg
