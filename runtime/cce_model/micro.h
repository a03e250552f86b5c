// One tile-op call as a one-op .pto module (docs/cce_backend.md §5): the
// call's tiles become level-3 alloc_tiles at their assigned offsets, its GM
// tensors views over pointer parameters, its scalars parameters, its
// attribute enums IR attributes. The module is parsed by the project's own
// front end (cached by its text) and run by the reference interpreter, so
// the meaning of every op is the interpreter's.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "interp.h"
#include "pto/model/abi.h"

namespace ptoas::cce_model {

// A memory range an op touches: a tile memory (space = ptoas::Loc) or GM
// (space kGm, lo/hi addresses).
inline constexpr uint8_t kGm = 7;
struct Access {
  uint8_t space;
  bool write;
  uint64_t lo, hi;
};

struct MicroModule;  // the parsed module, its interpreter and entry

struct PreparedOp {
  std::shared_ptr<const MicroModule> mod;
  std::vector<rt::Arg> args;  // GM pointers and scalar values
  int pipe = 1;               // pipe_t numbering
  std::vector<Access> accesses;
};

// Builds (or finds) the module for a call and the arguments to run it with.
// False with `err` when the call does not describe an op the front end
// accepts (the message quotes the module's diagnostic).
bool prepare_op(const char* ir_name, const PtoModelArg* a, int n, Arch arch, PreparedOp& out,
                std::string& err);
// Runs it as block `bi` of `bn` on the block's tile memories.
bool run_op(const PreparedOp& op, const rt::TileArenas& arenas, int64_t bi, int64_t bn,
            std::string& err);
// One-op modules parsed so far (the cache misses).
uint64_t modules_built();
void clear_module_cache();

}  // namespace ptoas::cce_model
