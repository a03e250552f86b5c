// The data directory lookup (data_dir.h).
#include "data_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <sys/stat.h>

namespace ptoas::rt {

namespace {

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

std::string program_dir() {
  std::string buf(4096, '\0');
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return "";
  buf.resize(size_t(n));
  size_t slash = buf.rfind('/');
  return slash == std::string::npos ? "" : buf.substr(0, slash);
}

}  // namespace

std::string data_path(std::string_view rel, std::string* where) {
  if (const char* e = std::getenv("PTOAS_DATA_DIR"); e && *e) {
    std::string p = std::string(e) + "/" + std::string(rel);
    if (where) *where = "$PTOAS_DATA_DIR (" + std::string(e) + ")";
    return exists(p) ? p : "";
  }
  // The program's directory and up to four above it: bin/ of an install,
  // build/ or build/tests/<suite>/ of the build tree.
  std::string dir = program_dir();
  if (where) *where = "share/ptoas/ above " + (dir.empty() ? std::string("the program") : dir);
  for (int up = 0; up < 5 && !dir.empty(); ++up) {
    std::string p = dir + "/share/ptoas/" + std::string(rel);
    if (exists(p)) return p;
    size_t slash = dir.rfind('/');
    if (slash == std::string::npos) break;
    dir.resize(slash);
  }
  return "";
}

}  // namespace ptoas::rt
