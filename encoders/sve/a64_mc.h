// The AArch64 target of the MC layer (mc/mc.h): its spec, and the one
// instance the SVE encoder, its object writer, the listing and ptodis share.
#pragma once
#include <string>

#include "mc/mc.h"

namespace ptoas::cg::sve {

using Mc = mc::Mc;

// aarch64-unknown-linux-gnu, the generic CPU, +sve,+fullfp16,+bf16; x29 and
// x30 are also reachable as "X29" and "X30" (LLVM calls them FP and LR).
extern const mc::McSpec kA64Spec;

// The shared instance; nullptr when LLVM lacks the AArch64 target (`err`
// says why).
inline const Mc* a64_mc(std::string* err = nullptr) { return Mc::get(kA64Spec, err); }

}  // namespace ptoas::cg::sve
