// The x86-64 targets: avx2 (AVX2 + FMA + F16C + BMI2, ymm, vmaskmov tails)
// and avx512 (adds AVX-512 F/BW/DQ/VL: zmm, opmask tails). One lowering
// serves both (docs/x86_backend.md); `variant` tells them apart.
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "codegen.h"
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

constexpr std::string_view kPreamble = "\t.intel_syntax noprefix\n\t.text\n";

constexpr Target kAvx2{
    .name = "avx2",
    .aliases = "x86-64-v3",
    .summary = "x86-64 with AVX2, FMA, F16C and BMI2",
    .isa = Isa::X86_64,
    .output = OutputKind::ElfObject,
    .default_emit = "obj",
    .emits = "ir obj asm header",
    .extension = ".o",
    .variant = 0,
    .opt = {.vector_bytes = 32, .vector_regs = 16, .fusable = x86::fusable_op},
    .cpu_can_run = [] { return cpu_runs(false); },
    .cpu_needs = "AVX2, FMA, F16C and BMI2",
    .compile = x86::compile_function,
    .rodata = x86::rodata,
    .write_output = x86::write_elf,
    .decode = x86::decode,
    .asm_comment = "#",
    .asm_preamble = kPreamble,
    .packed_thunk = x86::packed_thunk,
    .code_pad = 0xCC,
};

constexpr Target kAvx512{
    .name = "avx512",
    .aliases = "x86-64-v4",
    .summary = "x86-64 with AVX-512 F/BW/DQ/VL (zmm, opmask tails)",
    .isa = Isa::X86_64,
    .output = OutputKind::ElfObject,
    .default_emit = "obj",
    .emits = "ir obj asm header",
    .extension = ".o",
    .variant = 1,
    .opt = {.vector_bytes = 64, .vector_regs = 32, .fusable = x86::fusable_op},
    .cpu_can_run = [] { return cpu_runs(true); },
    .cpu_needs = "AVX-512 F/BW/DQ/VL enabled by the OS",
    .compile = x86::compile_function,
    .rodata = x86::rodata,
    .write_output = x86::write_elf,
    .decode = x86::decode,
    .asm_comment = "#",
    .asm_preamble = kPreamble,
    .packed_thunk = x86::packed_thunk,
    .code_pad = 0xCC,
};

}  // namespace

// avx2 before avx512: host_target takes the last one this CPU runs.
std::vector<const Target*> x86_targets() { return {&kAvx2, &kAvx512}; }

}  // namespace ptoas::cg
