// x86-64 code generation: the plan of a pto.fuse region (encoders/fuse_plan.h,
// its registers in x86/fuse_regs.cpp) as x86/fuse.cpp lowers it. Internal
// to those two files.
#pragma once

#include <algorithm>
#include <map>

#include "fuse_plan.h"
#include "gen.h"

namespace ptoas::cg::x86::gen {

// Row pointers of the loop (one per stream of the plan).
inline const Reg64 kStream[] = {rbx, rcx, rdx, rsi, rdi, r10, r11, r12};
constexpr size_t kStreams = sizeof(kStream) / sizeof(kStream[0]);

// The shared plan (its register fields filled by fuse_stage_regs).
struct Gen::Fuse : FusePlan {};

}  // namespace ptoas::cg::x86::gen
