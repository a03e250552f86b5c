// 64-bit words in the byte images the runners hand to an emulated machine
// (qemu's payload, the Bochs guest's header) and read back from it: host
// order, which is the guest's (little-endian on both sides).
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

namespace ptoas::rt {

inline void append64(std::vector<uint8_t>& b, uint64_t v) {
  size_t at = b.size();
  b.resize(at + 8);
  std::memcpy(&b[at], &v, 8);
}

// The caller sized `b` to hold the word.
inline void put64(std::vector<uint8_t>& b, uint64_t off, uint64_t v) { std::memcpy(&b[off], &v, 8); }

// 0 for a word past the end: a short reply reads as a wrong magic number.
inline uint64_t get64(const std::vector<uint8_t>& b, uint64_t off) {
  uint64_t v = 0;
  if (off <= b.size() && b.size() - off >= 8) std::memcpy(&v, &b[off], 8);
  return v;
}

}  // namespace ptoas::rt
