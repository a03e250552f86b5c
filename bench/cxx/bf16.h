// bf16 <-> f32 by bit manipulation, for the bench's C++ kernels and its
// data set-up (static: each translation unit keeps its own copy, whatever
// flags it is built with).
#ifndef BENCH_CXX_BF16_H
#define BENCH_CXX_BF16_H
#include <cstdint>
#include <cstring>

static inline float bf16_to_f32(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Round to nearest even; a NaN stays a (quiet) NaN.
static inline uint16_t f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}

#endif
