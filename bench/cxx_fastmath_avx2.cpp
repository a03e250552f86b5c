// The plain C++ kernels (bench/cxx/) built as one translation unit in
// namespace cxx_fast_avx2: fast-math without AVX-512 (bench/CMakeLists.txt),
// the like-for-like baseline of -target=avx2 on a CPU that has AVX-512.
#define BENCH_CXX_NS cxx_fast_avx2
#include "cxx/all_kernels.inc"
