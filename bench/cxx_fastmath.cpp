// The plain C++ kernels (bench/cxx/) built as one translation unit in
// namespace cxx_fast; bench/CMakeLists.txt gives this file its own flags.
#define BENCH_CXX_NS cxx_fast
#include "cxx/all_kernels.inc"
