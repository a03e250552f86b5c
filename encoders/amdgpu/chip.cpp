// The chip table (chip.h). Naming LLVM's AMDGPU initializers here links the
// AMDGPU MC libraries into whatever uses a chip, and nothing else.
#include "chip.h"

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUDisassembler();
}

namespace ptoas::cg::amdgpu {

namespace {

#define PTOAS_AMDGPU_SPEC(CPU, FEATS)                                                                \
  mc::McSpec {                                                                                       \
    .name = "AMDGPU", .triple = "amdgcn-amd-amdhsa", .cpu = CPU, .features = FEATS,                  \
    .init_target_info = LLVMInitializeAMDGPUTargetInfo, .init_target_mc = LLVMInitializeAMDGPUTargetMC, \
    .init_disassembler = LLVMInitializeAMDGPUDisassembler,                                           \
  }

// gfx1100 runs wave32 here: naming only +wavefrontsize64 would leave both
// sizes set (GPU_NOTES AMDGPU §1), so the wave size is always explicit.
constinit const mc::McSpec kSpecs[] = {
    PTOAS_AMDGPU_SPEC("gfx90a", "+wavefrontsize64"),
    PTOAS_AMDGPU_SPEC("gfx942", "+wavefrontsize64"),
    PTOAS_AMDGPU_SPEC("gfx1100", "+wavefrontsize32"),
};
#undef PTOAS_AMDGPU_SPEC

// gfx9 allocates SGPRs up to s101 (vcc apart; xnack and flat scratch take
// the rest of the 112); gfx11 gives every wave 106. LDS: 64 KiB per
// workgroup on all three.
constexpr Chip kChips[] = {
    {"gfx942", 64, 9, true, 2, 256, 100, 64 * 1024, &kSpecs[1]},
    {"gfx90a", 64, 9, false, 2, 256, 100, 64 * 1024, &kSpecs[0]},
    {"gfx1100", 32, 11, false, 15, 256, 104, 64 * 1024, &kSpecs[2]},
};

}  // namespace

const Chip* find_chip(std::string_view name) {
  for (const Chip& c : kChips)
    if (c.name == name) return &c;
  return nullptr;
}

const Chip& default_chip() { return kChips[0]; }

std::string chip_names() {
  std::string s;
  for (const Chip& c : kChips) s += (s.empty() ? "" : ", ") + std::string(c.name);
  return s;
}

const mc::Mc* chip_mc(const Chip& c, std::string* err) { return mc::Mc::get(*c.mc, err); }

}  // namespace ptoas::cg::amdgpu
