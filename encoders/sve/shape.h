// The sve descriptor without its backend (target.h, PluginShape): what
// ptoas lists, checks and optimizes for before it loads the backend from
// libptoas_llvm.so. No LLVM here: ptoas includes it (sve/shapes.cpp).
#pragma once
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "fuse_plan.h"
#include "target.h"

namespace ptoas::cg::sve {

inline bool cpu_runs() {
#if defined(__aarch64__)
  return (getauxval(AT_HWCAP) & (1ul << 22)) != 0;  // HWCAP_SVE
#else
  return false;
#endif
}

inline constexpr Target kShape{
    .name = "sve",
    .summary = "AArch64 with SVE, any vector length",
    .isa = Isa::AArch64,
    .output = OutputKind::ElfObject,
    .default_emit = "obj",
    .emits = "ir obj asm header",
    .extension = ".o",
    .opt = {.vector_bytes = 32, .vector_regs = 32, .fusable = fuse_op_ok},
    .cpu_can_run = cpu_runs,
    .cpu_needs = "AArch64 with SVE",
    .asm_comment = "//",
    .asm_preamble = "\t.arch\tarmv8.2-a+sve+fp16+bf16\n\t.text\n",
    .code_pad = 0,  // udf #0 words
};

inline constexpr unsigned kHooks = kHookCompile | kHookBuildOutput | kHookDecode | kHookPackedThunk;

}  // namespace ptoas::cg::sve
