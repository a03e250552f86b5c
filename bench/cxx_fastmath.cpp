// The plain C++ kernels (bench/cxx/) built as one translation unit in
// namespace cxx_fast; bench/CMakeLists.txt gives this file its own flags.
#define BENCH_CXX_NS cxx_fast
#include "cxx/vadd.cpp"
#include "cxx/fused_chain.cpp"
#include "cxx/softmax.cpp"
#include "cxx/rmsnorm.cpp"
#include "cxx/layernorm.cpp"
#include "cxx/gemm_f32.cpp"
#include "cxx/gemm_bf16.cpp"
#include "cxx/attention.cpp"
