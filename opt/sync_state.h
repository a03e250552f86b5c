// The happens-before abstract state of NPU sync and the walk over the
// structured IR that both the checker and the inserter run
// (docs/cce_backend.md §4).
//
// u[R][Q] is the set of R's access events whose latest instance is not yet
// known to be complete before pipe Q's next op (for R == Q: not separated by
// a pipe_barrier(R)). An event is a static instruction step; a new instance
// re-enters every set, and the earlier instances are covered whenever the
// latest is, since each pipe runs its ops in order. A pending flag
// (set_flag(P, Q, id) not yet waited) carries what its wait will make
// complete before Q: for each R, the events of R that were complete before
// P when the set issued (for R == P: all of P's).
//
// Joins take the union of the unordered sets (a hazard on any path is a
// hazard) and demand the same pending flags on every path. A loop's head
// state is iterated to a fixpoint over the entry and the back edge, so the
// exit state covers zero, one and any number of trips.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sync_model.h"

namespace ptoas::opt {

class Bits {
 public:
  explicit Bits(size_t n = 0) : w_((n + 63) / 64, 0) {}
  void set(uint32_t i) { w_[i >> 6] |= uint64_t(1) << (i & 63); }
  void reset(uint32_t i) { w_[i >> 6] &= ~(uint64_t(1) << (i & 63)); }
  bool test(uint32_t i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
  void clear() { std::fill(w_.begin(), w_.end(), 0); }
  void or_with(const Bits& o) { for (size_t i = 0; i < w_.size(); ++i) w_[i] |= o.w_[i]; }
  void and_with(const Bits& o) { for (size_t i = 0; i < w_.size(); ++i) w_[i] &= o.w_[i]; }
  void and_not(const Bits& o) { for (size_t i = 0; i < w_.size(); ++i) w_[i] &= ~o.w_[i]; }
  bool operator==(const Bits& o) const { return w_ == o.w_; }
  // this = (this | ~mine) & (other | ~theirs): covered, or not pending, on
  // both paths. Bits past n stay clear.
  void join_cover(const Bits& mine, const Bits& other, const Bits& theirs, size_t n) {
    for (size_t i = 0; i < w_.size(); ++i) w_[i] = (w_[i] | ~mine.w_[i]) & (other.w_[i] | ~theirs.w_[i]);
    if (n % 64 && !w_.empty()) w_.back() &= (uint64_t(1) << (n % 64)) - 1;
  }
  template <class F>
  void each(F&& f) const {
    for (size_t i = 0; i < w_.size(); ++i)
      for (uint64_t x = w_[i]; x; x &= x - 1) f(uint32_t(i * 64 + unsigned(__builtin_ctzll(x))));
  }

 private:
  std::vector<uint64_t> w_;
};

struct SyncToken {
  InstId set = kNone;
  std::array<Bits, kSyncPipes> rem;
  bool operator==(const SyncToken& o) const { return rem == o.rem; }
};

// Flag key: (src, dst, id); id 0xff stands for every dynamic id.
inline uint32_t sync_key(Pipe src, Pipe dst, int id) {
  return uint32_t(src) << 16 | uint32_t(dst) << 8 | uint32_t(id < 0 ? 0xff : id & 0xff);
}
std::string key_text(uint32_t key);

struct SyncState {
  std::array<std::array<Bits, kSyncPipes>, kSyncPipes> u;
  std::map<uint32_t, SyncToken> tok;
  bool operator==(const SyncState& o) const { return u == o.u && tok == o.tok; }
};

class SyncWalker {
 public:
  explicit SyncWalker(const SyncModel& sm);
  virtual ~SyncWalker() = default;
  // Walks the function body from an empty state. false when the analysis
  // gave up (a loop without a fixpoint, or the work bound).
  bool run();
  // Sync instructions to treat as absent (the inserter's redundancy trial).
  std::vector<uint8_t> skip;
  bool wide_ids = false;  // ids up to 254 (the inserter's trials, before the real colouring)
  uint64_t work_done() const { return work_; }

 protected:
  // Event c conflicts with the listed events (unordered before it).
  virtual void on_hazards(SyncState& s, uint32_t c, const std::vector<uint32_t>& producers) = 0;
  // A flag protocol error at instruction `at` (other: the related one).
  virtual void on_sync_error(InstId at, InstId other, const std::string& msg) = 0;
  virtual void on_warning(InstId, InstId, const std::string&) {}

  const SyncModel& sm_;
  uint64_t work_ = 0;
  bool gave_up_ = false;

 private:
  SyncState empty() const;
  void region(RegionId r, SyncState& s);
  void step(InstId id, SyncState& s);
  void access(uint32_t e, SyncState& s);
  void sync(InstId id, const SyncOp& op, SyncState& s);
  void join(InstId at, SyncState& a, const SyncState& b, const char* what);
  void loop(InstId id, SyncState& s);
};

}  // namespace ptoas::opt
