// The AMD GPUs the amdgpu target compiles for (--gpu-arch), one row each,
// read by the code generator, the code-object writer, the interpreter and
// ptodis: the wave size, the register file, where the kernel's inputs
// arrive, and the LLVM MC spec (triple, CPU, features) that encodes and
// decodes the chip's instructions. notes/GPU_NOTES.md (AMDGPU §1, §2, §5)
// has the facts behind each field.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "mc/mc.h"

namespace ptoas::cg::amdgpu {

struct Chip {
  std::string_view name;  // "gfx90a", "gfx942", "gfx1100"
  unsigned wave;          // lanes per wave: 64 (CDNA) or 32 (RDNA3)
  unsigned gen;           // the ISA generation: 9 (gfx90a, gfx942) or 11 (gfx1100)
  bool gfx940;            // the gfx940 family: architected flat scratch, its own hazard rules
  // User SGPRs the kernel descriptor declares (.amdhsa_user_sgpr_count):
  // the kernarg pointer in s[0:1], then padding where the hardware needs
  // it (gfx11 wave32 initialises at least 16 SGPRs). The workgroup id x
  // arrives in the SGPR right after them.
  unsigned user_sgprs;
  unsigned max_vgprs;     // architectural VGPRs one wave may use
  unsigned max_sgprs;     // SGPRs one wave may address (s0 .. s[max-1]), vcc apart
  uint32_t lds_bytes;     // LDS one workgroup may allocate
  const mc::McSpec* mc;   // amdgcn-amd-amdhsa, this CPU, its wave-size features
  unsigned wgid_sgpr() const { return user_sgprs; }
};

const Chip* find_chip(std::string_view name);
const Chip& default_chip();  // gfx942 (MI300X)
std::string chip_names();    // "gfx90a, gfx942, gfx1100"

// The MC instance of a chip (created on first use); nullptr when LLVM lacks
// the AMDGPU target or the CPU (`err` says why).
const mc::Mc* chip_mc(const Chip& c, std::string* err = nullptr);

}  // namespace ptoas::cg::amdgpu
