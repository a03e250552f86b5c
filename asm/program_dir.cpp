// The running program's directory (program_dir.h).
#include "program_dir.h"

#include <unistd.h>

namespace ptoas {

std::string program_dir() {
  std::string buf(4096, '\0');
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return "";
  buf.resize(size_t(n));
  size_t slash = buf.rfind('/');
  return slash == std::string::npos ? "" : buf.substr(0, slash);
}

}  // namespace ptoas
