#include <vector>

#include "bf16.h"
#include "kernels.h"

namespace BENCH_CXX_NS {

// Widens both inputs to f32 once, then the f32 GEMM (accumulating in f32).
void gemm_bf16(const uint16_t* a, const uint16_t* b, float* c, long m, long n, long k) {
  std::vector<float> af(size_t(m * k)), bf(size_t(k * n));
  for (long i = 0; i < m * k; ++i) af[size_t(i)] = bf16_to_f32(a[i]);
  for (long i = 0; i < k * n; ++i) bf[size_t(i)] = bf16_to_f32(b[i]);
  gemm_f32(af.data(), bf.data(), c, m, n, k);
}

}  // namespace BENCH_CXX_NS
