// The toy target (toy_lower.cpp): one line of text per instruction. Not
// listed in --help; `ptoas -target=toy` prints it (its --emit=asm).
#include "codegen.h"

namespace ptoas::cg {

namespace toy {
bool compile_function(const Module& m, InstId fn, const Target& t, const CodegenOptions& o, FuncCode& out,
                      Diag& diag);
}

namespace {

constexpr Target kToy{
    .name = "toy",
    .summary = "a test target: each instruction as a line of text",
    .output = OutputKind::Text,
    .default_emit = "asm",
    .emits = "ir asm",
    .extension = ".txt",
    .listed = false,
    .opt = {.vector_bytes = 32, .vector_regs = 16, .fusable = never_fusable},
    .compile = toy::compile_function,
};

}  // namespace

std::vector<const Target*> toy_targets() { return {&kToy}; }

}  // namespace ptoas::cg
