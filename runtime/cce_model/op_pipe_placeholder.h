// PLACEHOLDER until asm/pipes.h (ptoas::op_pipe) is on this branch: the pipe
// of a tile op after ../shared/notes/SYNC_NOTES.md §1. Delete when merged.
#pragma once
#include "frontend.h"
#include "ir.h"

namespace ptoas::cce_model {
// ORDER: pipe_t (include/pto/model/sync.hpp)
enum class ModelPipe : uint8_t { S, V, M, MTE1, MTE2, MTE3, FIX, All };
ModelPipe placeholder_op_pipe(const Module& m, const Inst& in, Arch arch);
}  // namespace ptoas::cce_model
