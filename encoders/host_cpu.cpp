// What this CPU can run (codegen.h: cpu_can_run, host_target). One copy for
// ptoas -target=host and the JIT's checks.
#include "codegen.h"

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#endif

namespace ptoas::cg {

// avx2: AVX2, FMA, F16C and BMI2 (the encoder uses all four) with the OS
// saving YMM state (XCR0 bits 1, 2); avx512: also AVX-512 F, DQ, BW, VL and
// the opmask / ZMM state (XCR0 bits 5, 6, 7).
bool cpu_can_run(Target t) {
#if defined(__aarch64__)
  return t == Target::Sve && (getauxval(AT_HWCAP) & (1ul << 22)) != 0;  // HWCAP_SVE
#elif defined(__x86_64__)
  if (t == Target::Sve) return false;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const unsigned need1 = (1u << 12) | (1u << 27) | (1u << 28) | (1u << 29);  // FMA OSXSAVE AVX F16C
  if ((c & need1) != need1 || __get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid_count(7, 0, a, b, c, d);
  if (!(b & (1u << 5)) || !(b & (1u << 8))) return false;  // AVX2, BMI2
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 0x6u) != 0x6u) return false;
  if (t == Target::Avx2) return true;
  const unsigned need7 = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);  // F DQ BW VL
  return (b & need7) == need7 && (lo & 0xe6u) == 0xe6u;
#else
  (void)t;
  return false;
#endif
}

bool host_target(Target& out) {
  for (Target t : {Target::Avx512, Target::Avx2, Target::Sve})
    if (cpu_can_run(t)) {
      out = t;
      return true;
    }
  return false;
}

}  // namespace ptoas::cg
