// The amdgpu descriptor without its backend (target.h, PluginShape): what
// ptoas lists, checks and optimizes for before it loads the backend from
// libptoas_llvm.so. No LLVM here: ptoas includes it (amdgpu/shapes.cpp).
#pragma once
#include "target.h"

namespace ptoas::cg::amdgpu {

// The fuse pass forms the ptx target's regions: the PTX is this target's input.
inline bool fusable(const Module& m, const Inst& in) { return target("ptx").opt.fusable(m, in); }

inline constexpr Target kShape{
    .name = "amdgpu",
    .summary = "AMD GPUs: linked code objects (.hsaco; --gpu-arch=gfx942|gfx90a|gfx1100); ptorun runs them on "
               "the project's AMDGPU interpreter",
    .isa = Isa::Amdgcn,
    .output = OutputKind::GpuObject,
    .default_emit = "obj",
    .emits = "obj asm ir",
    .extension = ".hsaco",
    .gpu_archs = "gfx942 gfx90a gfx1100",
    .opt = {.vector_bytes = 128, .vector_regs = 0, .fusable = fusable},
};

inline constexpr unsigned kHooks = kHookCompile | kHookBuildOutput | kHookListing | kHookCodeStats;

}  // namespace ptoas::cg::amdgpu
