// The amdgpu target: AMDGPU code objects (notes/GPU_NOTES.md). Declared,
// with no backend yet: ptoas answers --emit=ir for it.
#include "codegen.h"

namespace ptoas::cg {

namespace {

// The fuse pass forms no regions: there is no fused-region lowering here.
constexpr Target kAmdgpu{
    .name = "amdgpu",
    .summary = "AMD GPUs: code objects (not implemented yet: --emit=ir)",
    .isa = Isa::Amdgcn,
    .output = OutputKind::GpuObject,
    .default_emit = "obj",
    .emits = "ir",
    .extension = ".hsaco",
    .opt = {.vector_bytes = 256, .vector_regs = 0, .fusable = never_fusable},
};

}  // namespace

std::vector<const Target*> amdgpu_targets() { return {&kAmdgpu}; }

}  // namespace ptoas::cg
