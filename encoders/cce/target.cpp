// The cce target: the C++ that Ascend's bisheng compiler takes (the
// official ptoas's only output; spec/PTOAS_COMPAT.md §3). Declared, with
// no backend yet: ptoas answers --emit=ir for it and says so otherwise.
#include "codegen.h"

namespace ptoas::cg {

namespace {

// The fuse pass forms no regions: there is no fused-region lowering here.
constexpr Target kCce{
    .name = "cce",
    .summary = "Ascend NPU: CCE C++ for bisheng (not implemented yet: --emit=ir)",
    .isa = Isa::AscendNpu,
    .output = OutputKind::Text,
    .default_emit = "cpp",
    .emits = "ir",
    .extension = ".cpp",
    .opt = {.vector_bytes = 256, .vector_regs = 0, .fusable = never_fusable},
};

}  // namespace

std::vector<const Target*> cce_targets() { return {&kCce}; }

}  // namespace ptoas::cg
