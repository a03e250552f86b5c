// The plain C++ kernels (bench/cxx/) built as one translation unit in
// namespace cxx_o3; bench/CMakeLists.txt gives this file its own flags.
#define BENCH_CXX_NS cxx_o3
#include "cxx/all_kernels.inc"
