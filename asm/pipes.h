// NPU pipes (../shared/notes/SYNC_NOTES.md §1, docs/cce_backend.md §4): the
// pipe each op runs on, from the op table's `pipe` column resolved for the
// overload at hand, and the decoding of the sync ops' operands. The CCE
// emitter, the sync pass, its checker and the CPU model all ask here.
#pragma once
#include <cstdint>
#include <string_view>

#include "ir.h"

namespace ptoas {

// ORDER PIPE: kPipeNames in pipes.cpp. `None`: the op has no pipe (no tile
// or GM effect: structure, scalars, views).
enum class Pipe : uint8_t { S, V, M, MTE1, MTE2, MTE3, FIX, All, None };
inline constexpr unsigned kPipeCount = 7;  // S .. FIX: the pipes that run ops
inline constexpr unsigned kEventIds = 8;   // EVENT_ID0 .. 7 per (src, dst) pair

std::string_view pipe_name(Pipe p);           // "PIPE_V"
Pipe pipe_from_name(std::string_view word);   // "PIPE_V" or "V"; Pipe::None if unknown

// The pipe `in` runs on for `arch`: Pipe::None for ops without one and for
// the sync ops; Comm ops (tput/tget) answer the pipe of their last access
// (the sync pass models their hidden pipes itself).
Pipe op_pipe(const Module& m, const Inst& in, Arch arch);

// A sync op's operands. Kinds: set_flag / wait_flag (and their _dyn and
// record_event / wait_event spellings), pipe_barrier (pto.barrier).
struct SyncOp {
  enum class Kind : uint8_t { Set, Wait, Barrier } kind = Kind::Barrier;
  Pipe src = Pipe::None, dst = Pipe::None;  // Barrier: src is the pipe
  int id = 0;                  // EVENT_IDk; -1: dynamic, in `dyn`
  ValueId dyn = kNone;
};

// Decodes a sync op; false when `in` is not one or its operands are not
// understood (the caller reports it at in.loc).
bool decode_sync(const Module& m, const Inst& in, SyncOp& out);

}  // namespace ptoas
