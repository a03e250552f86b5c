#include <cmath>

#include "kernels.h"

namespace BENCH_CXX_NS {

void layernorm(const float* x, const float* gamma, const float* beta, float* y, long m, long d,
               float eps) {
  for (long i = 0; i < m; ++i) {
    const float* xr = x + i * d;
    float* yr = y + i * d;
    float sum = 0.0f;
    for (long j = 0; j < d; ++j) sum += xr[j];
    float mu = sum / float(d);
    float var = 0.0f;
    for (long j = 0; j < d; ++j) var += (xr[j] - mu) * (xr[j] - mu);
    float r = 1.0f / std::sqrt(var / float(d) + eps);
    for (long j = 0; j < d; ++j) yr[j] = (xr[j] - mu) * r * gamma[j] + beta[j];
  }
}

}  // namespace BENCH_CXX_NS
