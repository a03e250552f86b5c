// Machine limits with AVX2 intrinsics: streaming add (normal and
// non-temporal stores) and the f32 FMA peak.
#include "machine_limits.h"

#include <immintrin.h>

namespace bench {

bool limits_cpu_ok() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

namespace {

// One pass of c = a + b, 32 floats a step; NT: non-temporal stores.
template <bool NT>
void add_pass(const float* a, const float* b, float* c, size_t n) {
  for (size_t i = 0; i < n; i += 32)
    for (size_t j = i; j < i + 32; j += 8) {
      __m256 s = _mm256_add_ps(_mm256_load_ps(a + j), _mm256_load_ps(b + j));
      if constexpr (NT)
        _mm256_stream_ps(c + j, s);
      else
        _mm256_store_ps(c + j, s);
    }
  if constexpr (NT) _mm_sfence();
}

}  // namespace

void stream_add(const float* a, const float* b, float* c, size_t n) { add_pass<false>(a, b, c, n); }

void stream_add_nt(const float* a, const float* b, float* c, size_t n) { add_pass<true>(a, b, c, n); }

float fma_chains(uint64_t iters) {
  // x = x * m + a stays finite and normal for any count: it converges to
  // a / (1 - m).
  const __m256 m = _mm256_set1_ps(0.999999f);
  const __m256 a = _mm256_set1_ps(1.0e-6f);
  __m256 x0 = _mm256_set1_ps(0.1f), x1 = _mm256_set1_ps(0.2f), x2 = _mm256_set1_ps(0.3f);
  __m256 x3 = _mm256_set1_ps(0.4f), x4 = _mm256_set1_ps(0.5f), x5 = _mm256_set1_ps(0.6f);
  __m256 x6 = _mm256_set1_ps(0.7f), x7 = _mm256_set1_ps(0.8f), x8 = _mm256_set1_ps(0.9f);
  __m256 x9 = _mm256_set1_ps(1.0f);
  for (uint64_t i = 0; i < iters; ++i) {
    x0 = _mm256_fmadd_ps(x0, m, a);
    x1 = _mm256_fmadd_ps(x1, m, a);
    x2 = _mm256_fmadd_ps(x2, m, a);
    x3 = _mm256_fmadd_ps(x3, m, a);
    x4 = _mm256_fmadd_ps(x4, m, a);
    x5 = _mm256_fmadd_ps(x5, m, a);
    x6 = _mm256_fmadd_ps(x6, m, a);
    x7 = _mm256_fmadd_ps(x7, m, a);
    x8 = _mm256_fmadd_ps(x8, m, a);
    x9 = _mm256_fmadd_ps(x9, m, a);
  }
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(x0, x1), _mm256_add_ps(x2, x3)),
                           _mm256_add_ps(_mm256_add_ps(x4, x5), _mm256_add_ps(x6, x7)));
  s = _mm256_add_ps(s, _mm256_add_ps(x8, x9));
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}

}  // namespace bench
