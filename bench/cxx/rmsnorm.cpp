#include <cmath>
#include <cstring>

#include "kernels.h"

namespace BENCH_CXX_NS {

static inline float bf16_to_f32(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

static inline uint16_t f32_to_bf16(float f) {  // round to nearest even
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}

void rmsnorm(const uint16_t* x, const float* gamma, uint16_t* y, long m, long d, float eps) {
  for (long i = 0; i < m; ++i) {
    const uint16_t* xr = x + i * d;
    float ss = 0.0f;
    for (long j = 0; j < d; ++j) {
      float v = bf16_to_f32(xr[j]);
      ss += v * v;
    }
    float r = 1.0f / std::sqrt(ss / float(d) + eps);
    for (long j = 0; j < d; ++j) y[i * d + j] = f32_to_bf16(bf16_to_f32(xr[j]) * r * gamma[j]);
  }
}

}  // namespace BENCH_CXX_NS
