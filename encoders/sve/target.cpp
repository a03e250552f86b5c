// The sve target: AArch64 with SVE, vector-length agnostic
// (docs/sve_backend.md).
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "codegen.h"
#include "sve.h"

namespace ptoas::cg {

namespace {

bool cpu_runs() {
#if defined(__aarch64__)
  return (getauxval(AT_HWCAP) & (1ul << 22)) != 0;  // HWCAP_SVE
#else
  return false;
#endif
}

constexpr Target kSve{
    .name = "sve",
    .summary = "AArch64 with SVE, any vector length",
    .isa = Isa::AArch64,
    .output = OutputKind::ElfObject,
    .default_emit = "obj",
    .emits = "ir obj asm header",
    .extension = ".o",
    .opt = {.vector_bytes = 32, .vector_regs = 32, .fusable = sve::fusable_op},
    .cpu_can_run = cpu_runs,
    .cpu_needs = "AArch64 with SVE",
    .compile = sve::compile_function,
    .build_output = sve::build_output,
    .decode = sve::decode,
    .asm_comment = "//",
    .asm_preamble = "\t.arch\tarmv8.2-a+sve+fp16+bf16\n\t.text\n",
    .packed_thunk = sve::packed_thunk,
    .code_pad = 0,  // udf #0 words
};

}  // namespace

const Target& sve::target() { return kSve; }

std::vector<const Target*> sve_targets() { return {&kSve}; }

}  // namespace ptoas::cg
