// Bounded reads and atomic writes (asm/file_output.h): the limit counts
// every byte, a regular file over it is refused from its size, a pipe is
// cut at limit + 1; outputs replace atomically and keep the mode; a failed
// run's output goes.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "file_output.h"

using namespace ptoas;

namespace {

std::string tmp_dir() {
  std::string t = std::string("/tmp/ptoas_test_file_io_") + std::to_string(::getpid());
  ::mkdir(t.c_str(), 0755);
  return t;
}

std::string slurp(const std::string& p) {
  std::string s, err;
  REQUIRE(read_file_bounded(p, uint64_t(1) << 20, s, err) == ReadStatus::Ok);
  return s;
}

}  // namespace

TEST_CASE("file_io: the input limit and its variable", "[file_io]") {
  uint64_t limit;
  std::string err;
  ::unsetenv(kMaxInputEnv);
  REQUIRE(max_input_bytes(limit, err));
  CHECK(limit == kDefaultMaxInputBytes);
  ::setenv(kMaxInputEnv, "4K", 1);
  REQUIRE(max_input_bytes(limit, err));
  CHECK(limit == 4096);
  ::setenv(kMaxInputEnv, "2G", 1);
  REQUIRE(max_input_bytes(limit, err));
  CHECK(limit == (uint64_t(2) << 30));
  ::setenv(kMaxInputEnv, "12", 1);
  REQUIRE(max_input_bytes(limit, err));
  CHECK(limit == 12);
  for (const char* bad : {"x", "1T", "-5", "1 K", "K", "99999999999999999999", "17179869184G"}) {
    ::setenv(kMaxInputEnv, bad, 1);
    CHECK_FALSE(max_input_bytes(limit, err));
    CHECK(err.find("expected a byte count") != std::string::npos);
  }
  ::unsetenv(kMaxInputEnv);
}

TEST_CASE("file_io: bounded reads", "[file_io]") {
  std::string dir = tmp_dir(), s, err;
  std::string p = dir + "/ten";
  {
    FILE* f = std::fopen(p.c_str(), "wb");
    REQUIRE(f);
    std::fputs("0123456789", f);
    std::fclose(f);
  }
  CHECK(read_file_bounded(p, 10, s, err) == ReadStatus::Ok);
  CHECK(s == "0123456789");
  CHECK(read_file_bounded(p, 9, s, err) == ReadStatus::TooLarge);
  CHECK(s.empty());
  CHECK(err.find("larger than the input limit of 9 bytes") != std::string::npos);
  // /dev/zero and /proc files (size 0 in stat) are read up to limit + 1.
  CHECK(read_file_bounded("/dev/zero", 100000, s, err) == ReadStatus::TooLarge);
  CHECK(read_file_bounded("/proc/self/status", 1 << 20, s, err) == ReadStatus::Ok);
  CHECK(s.find("Pid:") != std::string::npos);
  // A sparse file far over the limit (8 GiB) costs nothing: its size decides.
  std::string sparse = dir + "/sparse";
  int fd = ::open(sparse.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, off_t(1) << 33) == 0);
  ::close(fd);
  CHECK(read_file_bounded(sparse, kDefaultMaxInputBytes, s, err) == ReadStatus::TooLarge);
  ::unlink(sparse.c_str());
  // Missing files and directories cannot be opened; regular_only refuses
  // devices.
  CHECK(read_file_bounded(dir + "/missing", 10, s, err) == ReadStatus::CannotOpen);
  CHECK(read_file_bounded(dir, 10, s, err) == ReadStatus::CannotOpen);
  CHECK(err == "Is a directory");
  CHECK(read_file_bounded("/dev/zero", 10, s, err, true) == ReadStatus::CannotOpen);
  // A pipe with no writer: regular_only does not wait for one.
  std::string fifo = dir + "/fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  CHECK(read_file_bounded(fifo, 10, s, err, true) == ReadStatus::CannotOpen);
  ::unlink(fifo.c_str());
  // BoundedInput counts across reads.
  BoundedInput in;
  CHECK(in.open(p, 6, err) == ReadStatus::TooLarge);  // from its size, before a read
  REQUIRE(in.open(p, 20, err) == ReadStatus::Ok);
  CHECK(in.regular_size() == 10);
  char buf[8];
  size_t got;
  REQUIRE(in.read(buf, 4, got, err) == ReadStatus::Ok);
  CHECK(got == 4);
  REQUIRE(in.read(buf, 8, got, err) == ReadStatus::Ok);
  CHECK(got == 6);
  CHECK(in.consumed() == 10);
  // The largest limit there is still reads (limit + 1 must not wrap to 0).
  CHECK(read_file_bounded(p, UINT64_MAX, s, err) == ReadStatus::Ok);
  CHECK(s == "0123456789");
  CHECK(read_file_bounded("/proc/self/status", UINT64_MAX, s, err) == ReadStatus::Ok);
  CHECK(s.find("Pid:") != std::string::npos);
  ::unlink(p.c_str());
  ::rmdir(dir.c_str());
}

TEST_CASE("file_io: atomic replacement, modes, failures", "[file_io]") {
  std::string dir = tmp_dir(), err;
  std::string p = dir + "/out";
  REQUIRE(write_file_atomic(p, "first", "test", err));
  CHECK(slurp(p) == "first");
  struct stat a, b;
  REQUIRE(::chmod(p.c_str(), 0600) == 0);
  REQUIRE(::stat(p.c_str(), &a) == 0);
  std::string link = dir + "/hard";
  REQUIRE(::link(p.c_str(), link.c_str()) == 0);
  REQUIRE(write_file_atomic(p, "second", "test", err));
  REQUIRE(::stat(p.c_str(), &b) == 0);
  CHECK(a.st_ino != b.st_ino);  // a new file renamed over the old
  CHECK((b.st_mode & 0777) == 0600);
  CHECK(slurp(p) == "second");
  CHECK(slurp(link) == "first");
  // Errors name the destination's problem.
  CHECK_FALSE(write_file_atomic(dir, "x", "test", err));
  CHECK(err == "cannot write '" + dir + "': Is a directory");
  CHECK_FALSE(write_file_atomic(dir + "/no/such", "x", "test", err));
  CHECK(err.find("No such file or directory") != std::string::npos);
  CHECK_FALSE(write_file_atomic(p + "/below", "x", "test", err));  // a file as a directory
  CHECK(err.find("Not a directory") != std::string::npos);
  // Not a regular file: written in place, never replaced or removed.
  REQUIRE(write_file_atomic("/dev/null", "x", "test", err));
  remove_failed_output("/dev/null");
  CHECK(::access("/dev/null", F_OK) == 0);
  remove_failed_output(dir);
  CHECK(::access(dir.c_str(), F_OK) == 0);
  // A failed run's output goes.
  remove_failed_output(p);
  CHECK(::access(p.c_str(), F_OK) != 0);
  CHECK(same_file(link, link));
  CHECK_FALSE(same_file(link, dir));
  ::unlink(link.c_str());
  CHECK(::rmdir(dir.c_str()) == 0);  // no temporary file was left
}

TEST_CASE("file_io: an output batch appears whole or not at all", "[file_io]") {
  std::string dir = tmp_dir() + "_batch", err;
  ::mkdir(dir.c_str(), 0755);
  std::string a = dir + "/a", b = dir + "/b";
  REQUIRE(write_file_atomic(a, "old a", "test", err));
  {
    // The second output cannot be written: nothing is renamed, the
    // temporary file of the first goes with the batch.
    OutputBatch batch;
    REQUIRE(batch.add(a, "new a", "test", err));
    CHECK_FALSE(batch.add(dir + "/no/such", "x", "test", err));
    CHECK(err.find("No such file or directory") != std::string::npos);
  }
  CHECK(slurp(a) == "old a");
  {
    OutputBatch batch;
    REQUIRE(batch.add(a, "new a", "test", err));
    REQUIRE(batch.add(b, "new b", "test", err));
    REQUIRE(batch.add("/dev/null", "x", "test", err));
    CHECK(slurp(a) == "old a");  // nothing before commit
    CHECK(::access(b.c_str(), F_OK) != 0);
    REQUIRE(batch.commit(err));
  }
  CHECK(slurp(a) == "new a");
  CHECK(slurp(b) == "new b");
  ::unlink(a.c_str());
  ::unlink(b.c_str());
  CHECK(::rmdir(dir.c_str()) == 0);  // no temporary file was left
}
