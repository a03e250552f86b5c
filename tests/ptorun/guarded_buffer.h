// Kernel buffers that catch stray accesses: each lives in its own mapping
// between two PROT_NONE pages, flush against one of them (an access one
// element past the end, or one before the start, faults at once), and the
// rest of its pages hold a canary pattern that check() verifies after the
// run. For the bounds property test and fuzz_launch: native code is not
// instrumented by ASan, but it cannot step over a guard page unnoticed.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ptoas::test {

class GuardedBuffer {
 public:
  static constexpr uint8_t kCanary = 0xC5;

  // `bytes` bytes; `at_end`: the buffer ends at the upper guard page (its
  // start 64-byte aligned below it, as the launcher's arrays are aligned,
  // so up to 63 canary bytes sit between its end and the page), else it
  // starts right after the lower guard page.
  GuardedBuffer(size_t bytes, bool at_end) : bytes_(bytes) {
    size_t page = size_t(::sysconf(_SC_PAGESIZE));
    size_t body = (bytes + 64 + page - 1) / page * page;
    map_bytes_ = body + 2 * page;
    void* m = ::mmap(nullptr, map_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return;
    map_ = static_cast<uint8_t*>(m);
    body_ = map_ + page;
    body_bytes_ = body;
    if (::mprotect(body_, body, PROT_READ | PROT_WRITE) != 0) return;
    std::memset(body_, kCanary, body);
    data_ = at_end ? body_ + ((body - bytes) & ~size_t(63)) : body_;
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer() {
    if (map_) ::munmap(map_, map_bytes_);
  }

  bool ok() const { return data_ != nullptr; }
  uint8_t* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  // The canary around the buffer is intact (nothing wrote outside it).
  bool check() const {
    for (const uint8_t* p = body_; p < body_ + body_bytes_; ++p)
      if ((p < data_ || p >= data_ + bytes_) && *p != kCanary) return false;
    return true;
  }

 private:
  uint8_t* map_ = nullptr;
  size_t map_bytes_ = 0;
  uint8_t* body_ = nullptr;
  size_t body_bytes_ = 0;
  uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace ptoas::test
