// The AArch64 MC spec (sve/a64_mc.h). Naming LLVM's initializers here links the
// AArch64 MC libraries into whatever uses the spec, and nothing else.
#include "a64_mc.h"

extern "C" {
void LLVMInitializeAArch64TargetInfo();
void LLVMInitializeAArch64TargetMC();
void LLVMInitializeAArch64Disassembler();
}

namespace ptoas::cg::sve {

namespace {
constexpr mc::RegAlias kAliases[] = {{"X29", "FP"}, {"X30", "LR"}};
}  // namespace

constinit const mc::McSpec kA64Spec = {
    .name = "AArch64",
    .triple = "aarch64-unknown-linux-gnu",
    .cpu = "generic",
    .features = "+sve,+fullfp16,+bf16",
    .init_target_info = LLVMInitializeAArch64TargetInfo,
    .init_target_mc = LLVMInitializeAArch64TargetMC,
    .init_disassembler = LLVMInitializeAArch64Disassembler,
    .reg_aliases = kAliases,
};

}  // namespace ptoas::cg::sve
