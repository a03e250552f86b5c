// The pipes as queues and the adversarial scheduler (docs/cce_backend.md §5):
// every op and sync call of a block is queued on its pipe and run only when
// the C++ needs it (pipe_barrier(PIPE_ALL), the end of the block); among
// the queue items the rules let run, the one issued latest goes first.
// Happens-before is tracked with vector clocks for the race detector.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "micro.h"
#include "model_api.h"

namespace ptoas::cce_model {

inline constexpr int kPipes = 7;                 // PIPE_S .. PIPE_FIX
using Clock = std::array<uint32_t, kPipes>;      // per pipe: the last fence known

struct Item {
  enum class Kind : uint8_t { Op, Set, Wait, Barrier } kind = Kind::Op;
  uint32_t seq = 0;      // call number in the block (1-based), the program order
  int pipe = 0;
  std::string cxx;       // the C++ call, for reports
  std::unique_ptr<PreparedOp> op;
  int src = 0, dst = 0, id = 0;
  uint32_t nth = 0;      // Set/Wait: the n-th of its key
  bool fence = false;    // its completion orders its pipe's earlier items
  uint32_t fence_idx = 0;
  uint32_t complete_by = 0;  // Op: the first fence of its pipe issued after it
  int gate = -1;         // index of the item on the pipe that must be done first
  int prev_sync = -1;    // index of the clock-changing item before it on the pipe
  bool done = false;
  bool has_post = false;
  Clock post{};
};

struct AccessRec {
  Access acc;
  int pipe = 0;
  uint32_t complete_by;
  uint32_t seq;
  std::string cxx;
};

class Block {
 public:
  Block(Arch arch, bool in_order, int64_t idx, int64_t num, std::vector<Report>& reports);
  void op(const char* ir_name, const char* cxx, const PtoModelArg* a, int n);
  void set_flag(int src, int dst, int id);
  void wait_flag(int src, int dst, int id);
  void barrier(int pipe);
  // Runs every queued item the flags let run. `all`: pipe_barrier(PIPE_ALL),
  // after which everything earlier is ordered before everything later.
  void drain(bool all = false);
  // Element k (esize bytes) of the tile of `count` elements at `offset` of
  // memory `loc`, for Tile::GetValue / SetValue, after draining every pipe
  // (the scalar access is ordered after all that was issued before it;
  // the sync around it is not checked). Out of range: an op error and a
  // scratch element.
  void* tile_elem(int loc, uint64_t offset, int64_t k, int esize, int64_t count);
  // Runs queued items until item `i` of pipe `p` is done (false: it cannot
  // run; drain() then reports the deadlock).
  bool run_until(int p, size_t i);
  bool pick(int& p, size_t& i);
  void finish();  // drain, then the flags left pending
  int64_t idx() const { return idx_; }
  int64_t num() const { return num_; }
  uint64_t ops_run() const { return ops_run_; }

 private:
  bool flag_item(Item::Kind kind, int src, int dst, int id, uint32_t seq, Item& it);
  using Key = std::tuple<int, int, int>;
  struct Flag {
    uint32_t sets_issued = 0, waits_issued = 0, sets_done = 0, waits_done = 0;
    std::vector<Clock> snapshots;  // by set number
    std::vector<uint32_t> set_seq; // by set number
    struct WaitAt {
      int pipe;
      uint32_t complete_by;  // the first fence of its pipe after it
      uint32_t seq;
    };
    std::vector<WaitAt> waits;     // by wait number
  };
  void push(Item it);
  bool runnable(int p, size_t i) const;
  void execute(int p, size_t i);
  const Clock& pre_clock(int p, size_t i);
  const Clock& post_clock(int p, size_t i);
  void check_races(const Item& it, const Clock& k);
  // Drops the accesses every pipe is already ordered after (no later op can
  // race with them), so that a long loop is not quadratic.
  void prune_history();
  size_t prune_at_ = 1024;
  void report(Report::Kind k, std::string text);
  std::string desc(const Item& it) const;

  Arch arch_;
  bool in_order_;  // Schedule::InOrder: the earliest runnable item first
  int64_t idx_, num_;
  std::vector<Report>& reports_;
  uint32_t seq_ = 0;
  std::array<std::vector<Item>, kPipes> q_;
  std::array<uint32_t, kPipes> fences_{};
  std::array<int, kPipes> last_gate_, last_sync_;
  std::array<size_t, kPipes> first_undone_{};
  std::array<Clock, kPipes> base_{};  // a pipe's clock before its first queued item
  std::map<Key, Flag> flags_;
  std::vector<AccessRec> history_;
  bool deadlocked_ = false;
  std::vector<uint8_t> mem_[7];
  uint64_t scratch_ = 0;
  rt::TileArenas arenas_;
  uint64_t ops_run_ = 0;
  size_t races_ = 0;
  std::map<std::pair<uint32_t, uint32_t>, bool> race_pairs_;
};

}  // namespace ptoas::cce_model
