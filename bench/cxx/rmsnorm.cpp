#include <cmath>

#include "bf16.h"
#include "kernels.h"

namespace BENCH_CXX_NS {

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
