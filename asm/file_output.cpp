// Bounded reads and atomic writes (file_output.h).
#include "file_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace ptoas {

// ---- input ---------------------------------------------------------------------

bool max_input_bytes(uint64_t& limit, std::string& err) {
  limit = kDefaultMaxInputBytes;
  const char* e = std::getenv(kMaxInputEnv);
  if (!e || !*e) return true;
  uint64_t v = 0;
  const char* p = e;
  for (; *p >= '0' && *p <= '9'; ++p) {
    if (v > (UINT64_MAX - 9) / 10) break;
    v = v * 10 + uint64_t(*p - '0');
  }
  unsigned shift = 0;
  if (p != e && (*p == 'K' || *p == 'k')) shift = 10, ++p;
  else if (p != e && (*p == 'M' || *p == 'm')) shift = 20, ++p;
  else if (p != e && (*p == 'G' || *p == 'g')) shift = 30, ++p;
  if (p == e || *p || (shift && v > (UINT64_MAX >> shift))) {
    err = std::string(kMaxInputEnv) + "='" + e + "': expected a byte count (digits, optionally K, M or G)";
    return false;
  }
  limit = v << shift;
  return true;
}

std::string too_large_message(uint64_t limit) {
  return "larger than the input limit of " + std::to_string(limit) + " bytes (" + kMaxInputEnv +
         " sets it)";
}

BoundedInput::~BoundedInput() {
  if (owns_ && fd_ >= 0) ::close(fd_);
}

ReadStatus BoundedInput::open(const std::string& path, std::string& err) {
  uint64_t limit;
  if (!max_input_bytes(limit, err)) return ReadStatus::Failed;
  return open(path, limit, err);
}

ReadStatus BoundedInput::open(const std::string& path, uint64_t limit, std::string& err, bool regular_only) {
  limit_ = limit;
  consumed_ = 0;
  if (path == "-") {
    fd_ = STDIN_FILENO;
    owns_ = false;
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | (regular_only ? O_NONBLOCK : 0));
    owns_ = true;
    if (fd_ < 0) {
      err = std::strerror(errno);
      return ReadStatus::CannotOpen;
    }
  }
  struct stat st;
  if (::fstat(fd_, &st) != 0) {
    err = std::strerror(errno);
    return ReadStatus::Failed;
  }
  // A directory opens, and reads as an error or as nothing (which would
  // look like an empty kernel).
  if (S_ISDIR(st.st_mode)) {
    err = std::strerror(EISDIR);
    return ReadStatus::CannotOpen;
  }
  if (regular_only && !S_ISREG(st.st_mode)) {
    err = "not a regular file";
    return ReadStatus::CannotOpen;
  }
  if (regular_only) ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  regular_size_ = S_ISREG(st.st_mode) ? int64_t(st.st_size) : -1;
  // A regular file's size decides at once (a sparse file of a terabyte
  // costs nothing); /proc files say 0 and are read like pipes.
  if (regular_size_ > 0 && uint64_t(regular_size_) > limit_) {
    err = too_large_message(limit_);
    return ReadStatus::TooLarge;
  }
  return ReadStatus::Ok;
}

ReadStatus BoundedInput::read(void* p, size_t n, size_t& got, std::string& err) {
  got = 0;
  if (consumed_ > limit_) {
    err = too_large_message(limit_);
    return ReadStatus::TooLarge;
  }
  // One byte past the limit is enough to know (no limit: UINT64_MAX).
  uint64_t room = limit_ - consumed_ == UINT64_MAX ? UINT64_MAX : limit_ - consumed_ + 1;
  size_t want = n < room ? n : size_t(room);
  char* dst = static_cast<char*>(p);
  while (got < want) {
    ssize_t r = ::read(fd_, dst + got, want - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      err = std::strerror(errno);
      return ReadStatus::Failed;
    }
    if (r == 0) break;
    got += size_t(r);
  }
  consumed_ += got;
  if (consumed_ > limit_) {
    err = too_large_message(limit_);
    return ReadStatus::TooLarge;
  }
  return ReadStatus::Ok;
}

ReadStatus read_file_bounded(const std::string& path, std::string& out, std::string& err) {
  uint64_t limit;
  if (!max_input_bytes(limit, err)) return ReadStatus::Failed;
  return read_file_bounded(path, limit, out, err);
}

ReadStatus read_file_bounded(const std::string& path, uint64_t limit, std::string& out, std::string& err,
                             bool regular_only) {
  out.clear();
  BoundedInput in;
  ReadStatus st = in.open(path, limit, err, regular_only);
  if (st != ReadStatus::Ok) return st;
  try {
    // A regular file is read into one buffer of its size (+1 to see it
    // end); anything else in chunks, joined at the end, so that the peak
    // is about the input's size, not twice it as a doubling buffer's.
    if (in.regular_size() > 0) {
      out.resize(size_t(in.regular_size()) + 1);
      size_t got;
      if ((st = in.read(out.data(), out.size(), got, err)) != ReadStatus::Ok) {
        out.clear();
        return st;
      }
      out.resize(got);
      if (got < size_t(in.regular_size()) + 1) return ReadStatus::Ok;
      // It grew while we read: go on in chunks.
    }
    std::vector<std::string> parts;
    size_t total = out.size(), chunk = 64 * 1024;
    for (;;) {
      std::string part(chunk, '\0');
      size_t got;
      if ((st = in.read(part.data(), part.size(), got, err)) != ReadStatus::Ok) {
        out.clear();
        return st;
      }
      if (got == 0) break;
      part.resize(got);
      total += got;
      parts.push_back(std::move(part));
      if (chunk < (size_t(16) << 20)) chunk *= 2;
    }
    out.reserve(total);
    for (std::string& part : parts) {
      out += part;
      std::string().swap(part);
    }
  } catch (const std::bad_alloc&) {
    out.clear();
    err = "out of memory";
    return ReadStatus::Failed;
  }
  return ReadStatus::Ok;
}

// ---- output --------------------------------------------------------------------

namespace {

bool write_fd(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t w = ::write(fd, data.data() + done, data.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += size_t(w);
  }
  return true;
}

// Writes into an existing non-regular file (a pipe, /dev/null, a terminal).
bool write_in_place(const std::string& path, std::string_view data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  bool ok = write_fd(fd, data);
  int e = errno;
  if (::close(fd) != 0 && ok) return false;
  errno = e;
  return ok;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

namespace {

// write_file_atomic up to the rename: `tmp` is the temporary file written
// (renamed over `dest` by the caller), or "" for a destination that is not
// a regular file (`in_place`: write into it).
bool stage_output(const std::string& path, std::string_view data, const char* tag, std::string& dest,
                  std::string& tmp, bool& in_place, std::string& err) {
  in_place = false;
  tmp.clear();
  auto fail = [&](int e, const std::string& detail = "") {
    err = "cannot write '" + path + "': " + detail + std::strerror(e);
    return false;
  };
  struct stat st;
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) return fail(errno);  // ENOTDIR, ELOOP, EACCES, ...
  if (exists && S_ISDIR(st.st_mode)) return fail(EISDIR);
  if (exists && !S_ISREG(st.st_mode)) {
    in_place = true;
    dest = path;
    return true;
  }
  // Through a symbolic link: replace what it points to, keep the link.
  dest = path;
  struct stat lst;
  if (exists && ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      dest = real;
      std::free(real);
    }
  }
  // The destination's own problem first (a read-only file, EROFS, ETXTBSY),
  // as writing it in place would report; opening it changes nothing.
  if (exists) {
    int probe = ::open(dest.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (probe < 0) return fail(errno);
    ::close(probe);
  }
  // The temporary file: O_EXCL under a fresh name (the kernel applies the
  // umask to 0666, as for any new file).
  std::string dir = dir_of(dest);
  int fd = -1;
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = dir + "/.tmp-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    int e = errno;
    // A missing or unwritable directory is the destination's problem; an
    // existing file we may write whose directory takes no new file (/proc,
    // /sys) is said as such.
    if (!exists) return fail(e);
    return fail(e, "cannot create a temporary file in '" + dir + "': ");
  }
  auto drop_tmp = [&](int e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return fail(e);
  };
  if (exists && ::fchmod(fd, st.st_mode & 0777) != 0) return drop_tmp(errno);
  if (!write_fd(fd, data)) return drop_tmp(errno);
  if (::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    tmp.clear();
    return fail(e);
  }
  return true;
}

bool rename_output(const std::string& path, const std::string& tmp, const std::string& dest, std::string& err) {
  if (std::rename(tmp.c_str(), dest.c_str()) == 0) return true;
  int e = errno;
  ::unlink(tmp.c_str());
  err = "cannot write '" + path + "': " + std::strerror(e);
  return false;
}

bool write_in_place_or_say(const std::string& path, std::string_view data, std::string& err) {
  if (write_in_place(path, data)) return true;
  err = "cannot write '" + path + "': " + std::strerror(errno);
  return false;
}

}  // namespace

bool write_file_atomic(const std::string& path, std::string_view data, const char* tag, std::string& err) {
  std::string dest, tmp;
  bool in_place;
  if (!stage_output(path, data, tag, dest, tmp, in_place, err)) return false;
  if (in_place) return write_in_place_or_say(path, data, err);
  return rename_output(path, tmp, dest, err);
}

OutputBatch::~OutputBatch() {
  for (const Pending& p : pending_)
    if (!p.tmp.empty()) ::unlink(p.tmp.c_str());
}

bool OutputBatch::add(const std::string& path, std::string_view data, const char* tag, std::string& err) {
  Pending p;
  if (!stage_output(path, data, tag, p.dest, p.tmp, p.in_place, err)) return false;
  p.path = path;
  if (p.in_place) p.data.assign(data);
  pending_.push_back(std::move(p));
  return true;
}

bool OutputBatch::commit(std::string& err) {
  bool ok = true;
  auto note = [&](const std::string& e) {
    if (ok) err = e;
    ok = false;
  };
  for (Pending& p : pending_) {
    if (p.in_place) continue;
    std::string e;
    if (!rename_output(p.path, p.tmp, p.dest, e)) note(e);
    p.tmp.clear();
  }
  for (const Pending& p : pending_) {
    std::string e;
    if (p.in_place && !write_in_place_or_say(p.path, p.data, e)) note(e);
  }
  pending_.clear();
  return ok;
}

void remove_failed_output(const std::string& path) {
  if (path.empty() || path == "-") return;
  struct stat st;
  // The name goes (a symbolic link, not its target), as gcc does.
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(path.c_str());
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace ptoas
