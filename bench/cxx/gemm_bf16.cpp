#include <cstring>

#include "kernels.h"

namespace BENCH_CXX_NS {

static inline float widen(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void gemm_bf16(const uint16_t* a, const uint16_t* b, float* c, long m, long n, long k) {
  for (long i = 0; i < m; ++i) {
    float* cr = c + i * n;
    for (long j = 0; j < n; ++j) cr[j] = 0.0f;
    for (long p = 0; p < k; ++p) {
      float av = widen(a[i * k + p]);
      const uint16_t* br = b + p * n;
      for (long j = 0; j < n; ++j) cr[j] += av * widen(br[j]);
    }
  }
}

}  // namespace BENCH_CXX_NS
