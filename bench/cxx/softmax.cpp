#include <cmath>

#include "kernels.h"

namespace BENCH_CXX_NS {

void softmax(const float* x, float* y, long m, long n) {
  for (long i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    float* yr = y + i * n;
    float mx = xr[0];
    for (long j = 1; j < n; ++j) mx = xr[j] > mx ? xr[j] : mx;
    float sum = 0.0f;
    for (long j = 0; j < n; ++j) {
      yr[j] = std::exp(xr[j] - mx);
      sum += yr[j];
    }
    for (long j = 0; j < n; ++j) yr[j] /= sum;
  }
}

}  // namespace BENCH_CXX_NS
