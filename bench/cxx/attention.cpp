#include <cmath>

#include "kernels.h"

namespace BENCH_CXX_NS {

void attention(const float* q, const float* k, const float* v, float* o, float* p, long s, long d,
               float scale) {
  for (long i = 0; i < s; ++i) {
    float* pr = p + i * s;
    // causal: query i sees keys 0..i
    float mx = -3.0e38f;
    for (long j = 0; j <= i; ++j) {
      float dot = 0.0f;
      for (long t = 0; t < d; ++t) dot += q[i * d + t] * k[j * d + t];
      pr[j] = dot * scale;
      mx = pr[j] > mx ? pr[j] : mx;
    }
    float sum = 0.0f;
    for (long j = 0; j <= i; ++j) {
      pr[j] = std::exp(pr[j] - mx);
      sum += pr[j];
    }
    for (long j = 0; j <= i; ++j) pr[j] /= sum;
    for (long j = i + 1; j < s; ++j) pr[j] = 0.0f;
    float* orow = o + i * d;
    for (long t = 0; t < d; ++t) orow[t] = 0.0f;
    for (long j = 0; j <= i; ++j)
      for (long t = 0; t < d; ++t) orow[t] += pr[j] * v[j * d + t];
  }
}

}  // namespace BENCH_CXX_NS
