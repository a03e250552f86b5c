// The reference interpreter: executes verified IR on the host, one block at a
// time, scalar and obviously correct. It defines what every op means
// (docs/semantics.md); every backend is compared with it.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frontend.h"
#include "ir.h"

namespace ptoas::rt {

// A kernel argument: a GM buffer for !pto.ptr parameters, or a scalar.
struct Arg {
  enum class Kind : uint8_t { Ptr, Int, Float } kind = Kind::Int;
  uint8_t* data = nullptr;  // Ptr: the buffer
  size_t bytes = 0;         // Ptr: its size
  int64_t i = 0;            // Int (also i1, index)
  double f = 0;             // Float
};

// Per-block tile memory, in bytes, per tile location.
struct ArenaSizes {
  size_t bytes[8];  // indexed by Loc (vec mat left right acc bias scaling)
};
ArenaSizes arena_sizes(Arch arch);

// Tile memories the caller owns (the CCE CPU model keeps them across the
// one-op modules it runs): base[l] holds arena_sizes(arch).bytes[l] bytes.
struct TileArenas {
  uint8_t* base[8] = {};
};

// What a kernel's views cover of one pointer parameter (for sizing outputs
// and checking buffers before a run).
struct ViewExtent {
  bool seen = false;
  DType elem = DType::None;
  std::vector<int64_t> shape;  // the view with the largest extent
  int64_t max_elems = 0;       // elements from the pointer the views can reach
};

class Interpreter {
 public:
  explicit Interpreter(const Module& m);

  // The function to run: `name` if given, else the one with pto.entry, else
  // the only definition. Returns kNone and sets err when there is none.
  InstId find_function(std::string_view name, std::string& err) const;

  // Runs `fn` as block `block_idx` of `block_num`. Returns false with a
  // located message on a runtime error (out-of-bounds access, tile memory
  // overflow, unsupported op, ...).
  bool run_block(InstId fn, const std::vector<Arg>& args, int64_t block_idx, int64_t block_num,
                 std::string& err) const;
  // The same on the caller's tile memories instead of fresh zeroed ones.
  bool run_block(InstId fn, const std::vector<Arg>& args, int64_t block_idx, int64_t block_num,
                 const TileArenas& arenas, std::string& err) const;

  // Runs only the scalar part of `fn` (control flow, arith, views; tile ops
  // skipped) for every block and reports, per parameter, what the views
  // built on it reach. Pointer arguments may be null here. The blocks run
  // on `threads` threads (0: one per hardware thread); the result is a
  // serial probe's, whatever the number.
  bool probe_views(InstId fn, const std::vector<Arg>& args, int64_t block_num,
                   std::vector<ViewExtent>& out, std::string& err, unsigned threads = 0) const;

  const Module& module() const { return m_; }

  // A wall-clock limit for run_block and probe_views: past `deadline` the
  // run stops at the op it is on with a located runtime error ("the time
  // limit of `seconds` s was exceeded"). Checked every few hundred ops, so
  // a kernel that never terminates (in the probe too) ends.
  using Clock = std::chrono::steady_clock;
  void set_deadline(Clock::time_point deadline, double seconds) {
    deadline_ = deadline;
    limit_s_ = seconds;
    has_deadline_ = true;
  }

 private:
  const Module& m_;
  // By InstId: where an alloc_tile's tile lives when the module was
  // optimized (opt_level >= 1): the memory plan the CPU targets use
  // (opt::plan_tiles), so that a kernel whose tiles fit once dead ones
  // give up their memory runs here as it does there. Empty at -O0 and in
  // a module with calls (each function's plan starts at 0); then every
  // alloc_tile gets memory of its own.
  std::vector<uint32_t> planned_;
  Clock::time_point deadline_{};
  double limit_s_ = 0;
  bool has_deadline_ = false;
};

}  // namespace ptoas::rt
