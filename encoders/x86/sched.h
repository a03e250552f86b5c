// x86-64 list scheduler over finished machine code (docs/x86_backend.md,
// "Scheduling").
//
// Xbyak writes bytes as each instruction is emitted, so there is no
// instruction list to schedule while generating. Instead the generator
// marks the byte ranges of its hot straight-line code (vector loop bodies,
// fused chunks, GEMM k steps); once the function is finished those ranges
// are decoded with Zydis and cut into spans (a branch, a RIP-relative
// operand, a rep prefix or a push / pop stays where it is and ends a span;
// so does every label position), and each span's instructions are
// reordered by their critical path over a per-mnemonic latency table, with
// dependencies from Zydis's operand lists (explicit and hidden registers,
// flags, memory). Branch displacements and label positions are unchanged
// because branches and labels never move.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "codegen.h"

namespace ptoas::cg::x86 {

struct ZydisLib;

// Schedules the instructions of `code` inside `ranges` (byte ranges the
// generator marked as hot straight-line code: vector loop bodies, fused
// chunks, GEMM k steps; they may overlap), in place. `cuts`: offsets where
// a span must end (label positions), any order. `lines` (sorted by offset)
// is rewritten to follow the instructions. Code that does not decode is
// left as it is. `z`: Zydis (x86/zydis_lib.h).
void schedule_x86(const ZydisLib& z, std::vector<uint8_t>& code, std::vector<uint32_t> cuts,
                        std::vector<std::pair<uint32_t, uint32_t>> ranges, std::vector<LineEntry>& lines);

}  // namespace ptoas::cg::x86
