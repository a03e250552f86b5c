// TEMPORARY: the signatures of asm/pipes.h (the lead's, in progress on
// main), so the sync passes build before it lands. Deleted at the merge.
#pragma once
#include <cstdint>
#include <string_view>

#include "frontend.h"
#include "ir.h"

namespace ptoas {

enum class Pipe : uint8_t { S, V, M, MTE1, MTE2, MTE3, FIX, All };
std::string_view pipe_name(Pipe p);
Pipe op_pipe(const Module& m, const Inst& in, Arch arch);

struct SyncOp {
  enum class Kind : uint8_t { SetFlag, WaitFlag, Barrier, Other } kind = Kind::Other;
  Pipe src = Pipe::All, dst = Pipe::All;
  int id = 0;             // -1: dynamic, then `value` holds it
  ValueId value = kNone;
};
bool decode_sync(const Module& m, const Inst& in, SyncOp& out);

}  // namespace ptoas
