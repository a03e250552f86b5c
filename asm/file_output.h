// Files the tools read and write (DESIGN §7), in one place so that every
// tool gets the same guarantees:
// * reads are bounded: at most limit + 1 bytes of any file (a regular file
//   over the limit is refused from its size, before reading), so /dev/zero,
//   an endless pipe or a huge file is an error, never an exhausted memory;
// * outputs go through a temporary file in the destination's directory,
//   renamed over the destination: a failed run leaves nothing half-written,
//   and a reader of the old file keeps seeing it whole.
// (Input lives here too, beside output, because runtime/npy.cpp needs both
// and may include asm/ only.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptoas {

// The input limit: 1 GiB, or $PTOAS_MAX_INPUT_BYTES (a byte count, with an
// optional K, M or G suffix: binary multiples), for every file any tool
// reads: .pto sources, objects, the sources ptodis shows, .npy arrays.
// (The front end refuses a source over 1 GiB whatever this says.)
inline constexpr uint64_t kDefaultMaxInputBytes = uint64_t(1) << 30;
inline constexpr const char* kMaxInputEnv = "PTOAS_MAX_INPUT_BYTES";
// The limit in force; false with `err` when the variable is not a byte count.
bool max_input_bytes(uint64_t& limit, std::string& err);

enum class ReadStatus {
  Ok,
  CannotOpen,  // missing, unreadable, a directory: the caller's usage error
  TooLarge,    // over the limit
  Failed,      // a read error, no memory, a bad $PTOAS_MAX_INPUT_BYTES
};

// A file opened for bounded reading. Every read counts against the limit;
// the first byte past it makes read() fail with TooLarge.
class BoundedInput {
 public:
  BoundedInput() = default;
  BoundedInput(const BoundedInput&) = delete;
  BoundedInput& operator=(const BoundedInput&) = delete;
  ~BoundedInput();

  // Opens `path` ("-": standard input) with the limit in force (or
  // `limit`). A regular file larger than the limit is TooLarge at once.
  // `err` is the reason alone ("No such file or directory"), without the
  // path. `regular_only`: anything but a regular file is CannotOpen, and a
  // pipe's open does not wait for a writer.
  ReadStatus open(const std::string& path, std::string& err);
  ReadStatus open(const std::string& path, uint64_t limit, std::string& err, bool regular_only = false);
  // Reads up to `n` bytes into `p`; `got` < n only at the end of the file.
  ReadStatus read(void* p, size_t n, size_t& got, std::string& err);
  // The size of a regular file (what fstat says), -1 for anything else.
  int64_t regular_size() const { return regular_size_; }
  uint64_t limit() const { return limit_; }
  uint64_t consumed() const { return consumed_; }

 private:
  int fd_ = -1;
  bool owns_ = false;  // false for standard input
  int64_t regular_size_ = -1;
  uint64_t limit_ = 0, consumed_ = 0;
};

// The whole of `path` ("-": standard input) into `out`, through BoundedInput.
ReadStatus read_file_bounded(const std::string& path, std::string& out, std::string& err);
ReadStatus read_file_bounded(const std::string& path, uint64_t limit, std::string& out, std::string& err,
                             bool regular_only = false);
// The message for TooLarge: "larger than the input limit of N bytes (...)".
std::string too_large_message(uint64_t limit);

// Writes `data` to `path` through a temporary file `.tmp-<tag>-...` in the
// same directory, renamed over `path` (atomic: the old file stays whole
// until the new one replaces it; a hard link to the old file keeps the old
// content). An existing file keeps its permission bits; a new one gets
// 0666 less the umask. A symbolic link is followed (its target is
// replaced). A path naming something other than a regular file (/dev/null,
// a pipe) is written directly: renaming over it would replace it; a
// directory is refused. false: `err` says why, naming the destination's
// problem (not the temporary file's), and no temporary file is left.
bool write_file_atomic(const std::string& path, std::string_view data, const char* tag, std::string& err);

// Several outputs that appear together or not at all (ptorun's --out and
// --inout arrays): add() writes each to its temporary file exactly as
// write_file_atomic does, and commit() renames them over their destinations
// only once every add() succeeded. Temporaries not committed are removed
// (the destructor). Outputs that are not regular files (/dev/null, a pipe)
// are kept in memory and written into at commit(), after the renames.
// Renames in one directory do not fail in practice; if one does, the
// outputs renamed before it stay.
class OutputBatch {
 public:
  OutputBatch() = default;
  OutputBatch(const OutputBatch&) = delete;
  OutputBatch& operator=(const OutputBatch&) = delete;
  ~OutputBatch();
  bool add(const std::string& path, std::string_view data, const char* tag, std::string& err);
  bool commit(std::string& err);

 private:
  struct Pending {
    std::string path, dest, tmp;
    bool in_place = false;  // not a regular file: written into at commit
    std::string data;       // in-place outputs only
  };
  std::vector<Pending> pending_;
};

// After a failed run (gcc's rule): removes `path` if it names a regular file,
// even one that existed before the run; anything else (/dev/null, a pipe, a
// directory, "-", "") is left alone.
void remove_failed_output(const std::string& path);

// True when `a` and `b` name the same existing file (device and inode).
bool same_file(const std::string& a, const std::string& b);

}  // namespace ptoas
