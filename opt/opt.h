// libptoas_opt: the optimizer (DESIGN §2). Passes rewrite IR into IR; the
// pass list in pipeline.cpp is the one place that says which run at which
// level and in what order. opt/ depends on asm/ only: what a pass needs to
// know about the target comes in through TargetDesc, which each encoder's
// driver fills.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "diag.h"
#include "ir.h"

namespace ptoas::opt {

enum class Level : uint8_t { O0, O1, O2 };

// What the passes may assume about the machine that will run the code.
struct TargetDesc {
  unsigned vector_bytes = 32;  // 32 avx2, 64 avx512
  unsigned vector_regs = 16;
  // The encoder's test for one op of a fused region: could its one-loop
  // lowering take it (element types, operand kinds)? An op it refuses
  // would send the whole region to the op-by-op code, so `fuse` ends the
  // run there instead. nullptr: every row-wise op may join.
  bool (*fusable)(const Module& m, const Inst& in) = nullptr;
};

struct Options {
  Level level = Level::O2;
  std::string dump_after;    // a pass name, or "all": print the IR after it
  bool time_passes = false;  // a table of the time each pass took
  bool stats = false;        // per-function counts and peak tile memory
};

// Runs the pass list of o.level on every function of m. Dumps, timings and
// statistics are appended to `report` (ptoas prints it on stderr). Returns
// false with diagnostics only when a pass finds the input wrong, which a
// verified module never is.
bool optimize(Module& m, const Options& o, const TargetDesc& t, Diag& diag,
              std::string* report = nullptr);

// The names --dump-after accepts, in pipeline order.
std::vector<std::string_view> pass_names();

}  // namespace ptoas::opt
