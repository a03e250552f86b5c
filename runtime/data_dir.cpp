// The data directory lookup (data_dir.h).
#include "data_dir.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <sys/stat.h>

#include "program_dir.h"

namespace ptoas::rt {

namespace {

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

// The directory of the object this code is linked into: the program, or
// libptort.so when an embedder (Python) loaded it from lib/ of an install.
std::string library_dir() {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(&library_dir), &info) || !info.dli_fname || info.dli_fname[0] != '/')
    return "";
  std::string p = info.dli_fname;
  size_t slash = p.rfind('/');
  return p.substr(0, slash);
}

std::string search_up(std::string dir, std::string_view rel) {
  for (int up = 0; up < 5 && !dir.empty(); ++up) {
    std::string p = dir + "/share/ptoas/" + std::string(rel);
    if (exists(p)) return p;
    size_t slash = dir.rfind('/');
    if (slash == std::string::npos) break;
    dir.resize(slash);
  }
  return "";
}

}  // namespace

std::string data_path(std::string_view rel, std::string* where) {
  if (const char* e = std::getenv("PTOAS_DATA_DIR"); e && *e) {
    std::string p = std::string(e) + "/" + std::string(rel);
    if (where) *where = "$PTOAS_DATA_DIR (" + std::string(e) + ")";
    return exists(p) ? p : "";
  }
  // The directory of the object holding this code and up to four above it
  // (lib/ of an install for libptort.so; for a program, bin/ of an install,
  // build/ or build/tests/<suite>/ of the build tree), then the same from
  // the program's (an embedder's program may have its own share/ptoas).
  std::string lib = library_dir(), dir = program_dir();
  if (lib.empty()) lib = dir;
  if (where)
    *where = "share/ptoas/ above " + (lib.empty() ? std::string("the program") : lib) +
             (dir.empty() || lib == dir ? "" : " or " + dir);
  if (std::string p = search_up(lib, rel); !p.empty()) return p;
  if (dir != lib)
    if (std::string p = search_up(dir, rel); !p.empty()) return p;
  return "";
}

}  // namespace ptoas::rt
