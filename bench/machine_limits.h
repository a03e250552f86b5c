// The machine's own limits, measured in the same run as the kernels
// (machine_limits.cpp is compiled with -mavx2 -mfma; call only when
// limits_cpu_ok()).
#pragma once
#include <cstddef>
#include <cstdint>

namespace bench {

// True when this CPU has AVX2 and FMA.
bool limits_cpu_ok();

// c[i] = a[i] + b[i] for n floats (n a multiple of 32, pointers 32-byte
// aligned), with ordinary stores / with non-temporal stores.
void stream_add(const float* a, const float* b, float* c, size_t n);
void stream_add_nt(const float* a, const float* b, float* c, size_t n);

// Runs `iters` iterations of 10 independent ymm FMA chains (160 flops an
// iteration) and returns a value that depends on all of them.
float fma_chains(uint64_t iters);

}  // namespace bench
