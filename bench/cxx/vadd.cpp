#include "kernels.h"

namespace BENCH_CXX_NS {

void vadd(const float* x, const float* y, float* z, long n) {
  for (long i = 0; i < n; ++i) z[i] = x[i] + y[i];
}

}  // namespace BENCH_CXX_NS
