// The cce target: the C++ that Ascend's bisheng compiler takes (the
// official ptoas's only output; spec/PTOAS_COMPAT.md §3,
// docs/cce_backend.md). Its evidence is the project's CPU model of the
// PTO-ISA calls (runtime/cce_model/) and the sync checker.
#include "cce.h"

namespace ptoas::cg {

namespace {

// The fuse pass forms no regions: every tile op is one library call.
constexpr Target kCce{
    .name = "cce",
    .summary = "Ascend NPU: CCE C++ for bisheng over PTO-ISA (--pto-arch=a3|a5)",
    .isa = Isa::AscendNpu,
    .output = OutputKind::Text,
    .default_emit = "cpp",
    .emits = "ir cpp",
    .extension = ".cpp",
    .opt = {.vector_bytes = 256, .vector_regs = 0, .fusable = never_fusable},
    .compile = cce::compile_function,
    .build_output = cce::build_output,
};

}  // namespace

std::vector<const Target*> cce_targets() { return {&kCce}; }

}  // namespace ptoas::cg
