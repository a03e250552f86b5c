// The ptx target: NVIDIA PTX text for ptxas (notes/GPU_NOTES.md).
// Declared, with no backend yet: ptoas answers --emit=ir for it.
#include "codegen.h"

namespace ptoas::cg {

namespace {

// The fuse pass forms no regions: there is no fused-region lowering here.
constexpr Target kPtx{
    .name = "ptx",
    .summary = "NVIDIA GPUs: PTX text (not implemented yet: --emit=ir)",
    .isa = Isa::Nvptx,
    .output = OutputKind::Text,
    .default_emit = "ptx",
    .emits = "ir",
    .extension = ".ptx",
    .opt = {.vector_bytes = 128, .vector_regs = 0, .fusable = never_fusable},
};

}  // namespace

std::vector<const Target*> ptx_targets() { return {&kPtx}; }

}  // namespace ptoas::cg
