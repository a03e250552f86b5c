// The x86-64 targets: avx2 (AVX2 + FMA + F16C + BMI2, ymm, vmaskmov tails)
// and avx512 (adds AVX-512 F/BW/DQ/VL: zmm, opmask tails). One lowering
// serves both (docs/x86_backend.md); `variant` tells them apart.
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "codegen.h"
#include "fuse_plan.h"
#include "x86.h"

namespace ptoas::cg {

namespace {

// avx2: AVX2, FMA, F16C and BMI2 (the encoder uses all four) with the OS
// saving YMM state (XCR0 bits 1, 2); avx512: also AVX-512 F, DQ, BW, VL and
// the opmask / ZMM state (XCR0 bits 5, 6, 7).
bool cpu_runs(bool avx512) {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const unsigned need1 = (1u << 12) | (1u << 27) | (1u << 28) | (1u << 29);  // FMA OSXSAVE AVX F16C
  if ((c & need1) != need1 || __get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid_count(7, 0, a, b, c, d);
  if (!(b & (1u << 5)) || !(b & (1u << 8))) return false;  // AVX2, BMI2
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 0x6u) != 0x6u) return false;
  if (!avx512) return true;
  const unsigned need7 = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);  // F DQ BW VL
  return (b & need7) == need7 && (lo & 0xe6u) == 0xe6u;
#else
  (void)avx512;
  return false;
#endif
}

// The two differ in their names, vector width and register count; the
// lowering asks `variant` (x86/gen.h z()).
constexpr Target x86_target(std::string_view name, std::string_view alias, std::string_view summary,
                            unsigned variant, bool (*runs)(), std::string_view needs) {
  return Target{
      .name = name,
      .aliases = alias,
      .summary = summary,
      .isa = Isa::X86_64,
      .output = OutputKind::ElfObject,
      .default_emit = "obj",
      .emits = "ir obj asm header",
      .extension = ".o",
      .variant = variant,
      .opt = {.vector_bytes = variant ? 64u : 32u, .vector_regs = variant ? 32u : 16u, .fusable = fuse_op_ok},
      .cpu_can_run = runs,
      .cpu_needs = needs,
      .compile = x86::compile_function,
      .rodata = x86::rodata,
      .build_output = x86::build_output,
      .decode = x86::decode,
      .asm_comment = "#",
      .asm_preamble = "\t.intel_syntax noprefix\n\t.text\n",
      .packed_thunk = x86::packed_thunk,
      .code_pad = 0xCC,
  };
}

constexpr Target kAvx2 = x86_target("avx2", "x86-64-v3", "x86-64 with AVX2, FMA, F16C and BMI2", 0,
                                    [] { return cpu_runs(false); }, "AVX2, FMA, F16C and BMI2");
constexpr Target kAvx512 = x86_target("avx512", "x86-64-v4", "x86-64 with AVX-512 F/BW/DQ/VL (zmm, opmask tails)", 1,
                                      [] { return cpu_runs(true); }, "AVX-512 F/BW/DQ/VL enabled by the OS");

}  // namespace

// avx2 before avx512: host_target takes the last one this CPU runs.
std::vector<const Target*> x86_targets() { return {&kAvx2, &kAvx512}; }

}  // namespace ptoas::cg
