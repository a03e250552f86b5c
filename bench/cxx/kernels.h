// The bench's plain C++ kernels: the computation of each bench/kernels/*.pto
// written as a user would write it by hand (plain loops, libm, no
// intrinsics). Every kernels/*.cpp compiles on its own (`g++ -O2 -c`, which
// the compile-time figure times); the bench links them three times through
// cxx_o3.cpp (-O3 -march=native), cxx_fastmath.cpp (the same plus
// -ffast-math) and cxx_fastmath_avx2.cpp (that without AVX-512), each in
// its own namespace, BENCH_CXX_NS.
//
// No include guard on purpose: a translation unit may declare the kernels in
// several namespaces (bench_kernels.cpp does); the file holds declarations only.
#include <cstdint>

#ifndef BENCH_CXX_NS
#define BENCH_CXX_NS cxx_ref
#endif

namespace BENCH_CXX_NS {

// z[i] = x[i] + y[i]
void vadd(const float* x, const float* y, float* z, long n);
// y[i] = max(x[i] * a + b, 0) * c[i]
void fused_chain(const float* x, const float* c, float* y, float a, float b, long n);
// row softmax of an m x n row-major matrix
void softmax(const float* x, float* y, long m, long n);
// RMSNorm of an m x d bf16 matrix (bf16 as raw bits), f32 math, f32 gamma
void rmsnorm(const uint16_t* x, const float* gamma, uint16_t* y, long m, long d, float eps);
// LayerNorm of an m x d f32 matrix
void layernorm(const float* x, const float* gamma, const float* beta, float* y, long m, long d,
               float eps);
// c[m x n] = a[m x k] @ b[k x n], row-major, i-k-j loops
void gemm_f32(const float* a, const float* b, float* c, long m, long n, long k);
// the same with bf16 a and b (raw bits), f32 accumulation and c
void gemm_bf16(const uint16_t* a, const uint16_t* b, float* c, long m, long n, long k);
// causal attention: p = softmax(mask(q k^T * scale)) (s x s), o = p v (s x d)
void attention(const float* q, const float* k, const float* v, float* o, float* p, long s, long d,
               float scale);

}  // namespace BENCH_CXX_NS
