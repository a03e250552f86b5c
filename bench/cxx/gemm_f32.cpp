#include "kernels.h"

namespace BENCH_CXX_NS {

void gemm_f32(const float* a, const float* b, float* c, long m, long n, long k) {
  for (long i = 0; i < m; ++i) {
    float* cr = c + i * n;
    for (long j = 0; j < n; ++j) cr[j] = 0.0f;
    for (long p = 0; p < k; ++p) {
      float av = a[i * k + p];
      const float* br = b + p * n;
      for (long j = 0; j < n; ++j) cr[j] += av * br[j];
    }
  }
}

}  // namespace BENCH_CXX_NS
