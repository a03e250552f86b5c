#include "scheduler.h"

#include <cstdlib>

#include <algorithm>

namespace ptoas::cce_model {

namespace {

const char* kPipeNames[] = {"PIPE_S",    "PIPE_V",    "PIPE_M",   "PIPE_MTE1",
                            "PIPE_MTE2", "PIPE_MTE3", "PIPE_FIX", "PIPE_ALL"};
const char* kSpaceNames[] = {"UB", "L1", "L0A", "L0B", "L0C", "BIAS", "FB", "GM"};

std::string flag_text(const char* fn, int src, int dst, int id) {
  return std::string(fn) + "(" + kPipeNames[src] + ", " + kPipeNames[dst] + ", EVENT_ID" +
         std::to_string(id) + ")";
}

std::string range_text(const Access& a) {
  if (a.space == kGm) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "GM [%#llx, %#llx)", (unsigned long long)a.lo,
                  (unsigned long long)a.hi);
    return buf;
  }
  return std::string(kSpaceNames[a.space]) + " [" + std::to_string(a.lo) + ", " +
         std::to_string(a.hi) + ")";
}

Item make_item(Item::Kind k, uint32_t seq, int pipe, std::string cxx) {
  Item it;
  it.kind = k;
  it.seq = seq;
  it.pipe = pipe;
  it.cxx = std::move(cxx);
  return it;
}

}  // namespace

Block::Block(Arch arch, bool in_order, int64_t idx, int64_t num, std::vector<Report>& reports)
    : arch_(arch), in_order_(in_order), idx_(idx), num_(num), reports_(reports) {
  last_gate_.fill(-1);
  last_sync_.fill(-1);
  rt::ArenaSizes sz = rt::arena_sizes(arch);
  for (int l = 0; l < 7; ++l) {
    mem_[l].assign(std::max<size_t>(sz.bytes[l], 1), 0);
    arenas_.base[l] = mem_[l].data();
  }
}

void* Block::tile_elem(int loc, uint64_t offset, int64_t k, int esize, int64_t count) {
  drain();
  if (loc < 0 || loc >= 7 || esize <= 0 || esize > 8 || k < 0 || k >= count ||
      offset > mem_[loc].size() || uint64_t(k + 1) * uint64_t(esize) > mem_[loc].size() - offset) {
    report(Report::Kind::OpError, "Tile::GetValue/SetValue: element " + std::to_string(k) + " of a " +
                                      std::to_string(count) + "-element tile at offset " + std::to_string(offset) +
                                      " is outside it or its memory");
    scratch_ = 0;
    return &scratch_;
  }
  return mem_[loc].data() + offset + uint64_t(k) * uint64_t(esize);
}

void Block::report(Report::Kind k, std::string text) {
  if (num_ > 1) text += " (block " + std::to_string(idx_) + ")";
  reports_.push_back({k, std::move(text)});
}

std::string Block::desc(const Item& it) const {
  std::string s;
  switch (it.kind) {
    case Item::Kind::Op: s = it.cxx; break;
    case Item::Kind::Set: s = flag_text("set_flag", it.src, it.dst, it.id); break;
    case Item::Kind::Wait: s = flag_text("wait_flag", it.src, it.dst, it.id); break;
    case Item::Kind::Barrier: s = std::string("pipe_barrier(") + kPipeNames[it.pipe] + ")"; break;
  }
  return s + " (call #" + std::to_string(it.seq) + ")";
}

void Block::push(Item it) {
  int p = it.pipe;
  auto& q = q_[p];
  int i = int(q.size());
  bool in_order_v = arch_ == Arch::A5 && p == 1;
  it.prev_sync = last_sync_[p];
  it.gate = in_order_v ? (i ? i - 1 : -1) : last_gate_[p];
  if (it.kind != Item::Kind::Op || in_order_v) {
    if (it.kind != Item::Kind::Wait) {
      it.fence = true;
      it.fence_idx = ++fences_[p];
    }
    last_sync_[p] = i;
  }
  if (it.kind == Item::Kind::Op) it.complete_by = in_order_v ? it.fence_idx : fences_[p] + 1;
  if (it.kind == Item::Kind::Wait || it.kind == Item::Kind::Barrier) last_gate_[p] = i;
  q.push_back(std::move(it));
}

void Block::op(const char* ir_name, const char* cxx, const PtoModelArg* a, int n) {
  uint32_t seq = ++seq_;
  auto prep = std::make_unique<PreparedOp>();
  std::string err;
  std::string name = std::string(cxx) + " (call #" + std::to_string(seq) + ")";
  if (!prepare_op(ir_name, a, n, arch_, *prep, err)) {
    report(Report::Kind::OpError, name + ": " + err);
    return;
  }
  Item it = make_item(Item::Kind::Op, seq, prep->pipe, cxx);
  it.op = std::move(prep);
  push(std::move(it));
}

// A set or wait of (src, dst, id) as a queue item; false (reported) when
// a pipe or the id is out of range.
bool Block::flag_item(Item::Kind kind, int src, int dst, int id, uint32_t seq, Item& it) {
  const char* what = kind == Item::Kind::Set ? "set_flag" : "wait_flag";
  if (src < 0 || src >= kPipes || dst < 0 || dst >= kPipes || id < 0 || id > 7) {
    report(Report::Kind::Flag, std::string(what) + " (call #" + std::to_string(seq) +
                                   "): pipe or event id out of range (src " + std::to_string(src) + ", dst " +
                                   std::to_string(dst) + ", id " + std::to_string(id) +
                                   "; ids are 0..7, PIPE_ALL is no flag pipe)");
    return false;
  }
  it = make_item(kind, seq, kind == Item::Kind::Set ? src : dst, "");
  it.src = src;
  it.dst = dst;
  it.id = id;
  return true;
}

void Block::set_flag(int src, int dst, int id) {
  uint32_t seq = ++seq_;
  Item it;
  if (!flag_item(Item::Kind::Set, src, dst, id, seq, it)) return;
  Flag& f = flags_[{src, dst, id}];
  it.nth = f.sets_issued++;
  f.snapshots.emplace_back();
  f.set_seq.push_back(seq);
  push(std::move(it));
}

void Block::wait_flag(int src, int dst, int id) {
  uint32_t seq = ++seq_;
  Item it;
  if (!flag_item(Item::Kind::Wait, src, dst, id, seq, it)) return;
  Flag& f = flags_[{src, dst, id}];
  it.nth = f.waits_issued++;
  f.waits.push_back({dst, fences_[dst] + 1, seq});
  push(std::move(it));
  // A wait on PIPE_S holds the kernel's own C++ too: the scalar code after
  // it (a GM element read or written in place) must see what the producer
  // pipe wrote before its set, so the wait completes before returning.
  if (dst == 0 && !run_until(0, q_[0].size() - 1)) drain();
}

// The next item to run: the earliest runnable one in program order, or
// (adversarial) the latest; false when none can run.
bool Block::pick(int& best_p, size_t& best_i) {
  best_p = -1;
  best_i = 0;
  uint32_t best_seq = 0;
  for (int p = 0; p < kPipes; ++p) {
    auto& q = q_[p];
    while (first_undone_[p] < q.size() && q[first_undone_[p]].done) ++first_undone_[p];
    bool in_order_v = arch_ == Arch::A5 && p == 1;
    for (size_t i = first_undone_[p]; i < q.size(); ++i) {
      const Item& it = q[i];
      if (it.done) continue;
      if (runnable(p, i) && (best_p < 0 || (in_order_ ? it.seq < best_seq : it.seq > best_seq))) {
        best_p = p;
        best_i = i;
        best_seq = it.seq;
      }
      // Nothing after an undone wait or barrier can run before it.
      if (in_order_v || it.kind == Item::Kind::Wait || it.kind == Item::Kind::Barrier) break;
    }
  }
  return best_p >= 0;
}

bool Block::run_until(int stop_p, size_t stop_i) {
  while (!q_[stop_p][stop_i].done) {
    int best_p;
    size_t best_i;
    if (!pick(best_p, best_i)) return false;
    execute(best_p, best_i);
  }
  return true;
}

void Block::barrier(int pipe) {
  uint32_t seq = ++seq_;
  if (pipe == 7) {
    drain(true);
    return;
  }
  if (pipe < 0 || pipe > 7) {
    report(Report::Kind::Flag, "pipe_barrier (call #" + std::to_string(seq) + "): pipe out of range");
    return;
  }
  Item it = make_item(Item::Kind::Barrier, seq, pipe, "");
  push(std::move(it));
}

bool Block::runnable(int p, size_t i) const {
  const auto& q = q_[p];
  const Item& it = q[i];
  if (it.done) return false;
  auto all_before_done = [&] {
    for (size_t j = first_undone_[p]; j < i; ++j)
      if (!q[j].done) return false;
    return true;
  };
  switch (it.kind) {
    case Item::Kind::Op:
      return it.gate < 0 || q[it.gate].done;
    case Item::Kind::Set:
    case Item::Kind::Barrier:
      return all_before_done();
    case Item::Kind::Wait: {
      if (it.gate >= 0 && !q[it.gate].done) return false;
      auto f = flags_.find({it.src, it.dst, it.id});
      return f != flags_.end() && f->second.sets_done > it.nth;
    }
  }
  return false;
}

const Clock& Block::post_clock(int p, size_t j) {
  Item& it = q_[p][j];
  if (it.has_post) return it.post;
  // A wait's clock exists once it ran; every path here reaches only waits
  // that did (they gate what follows them).
  Clock k = pre_clock(p, j);
  // A set orders nothing after it on its own pipe; a barrier (and an op of
  // an in-order pipe) orders everything after it after everything before.
  if (it.fence && it.kind != Item::Kind::Set) k[p] = std::max(k[p], it.fence_idx);
  it.post = k;
  it.has_post = true;
  return it.post;
}

const Clock& Block::pre_clock(int p, size_t i) {
  int j = q_[p][i].prev_sync;
  return j < 0 ? base_[p] : post_clock(p, size_t(j));
}

void Block::check_races(const Item& it, const Clock& k) {
  for (const Access& a : it.op->accesses) {
    if (a.lo >= a.hi) continue;
    for (const AccessRec& r : history_) {
      if (r.acc.space != a.space || r.seq == it.seq || !(a.write || r.acc.write)) continue;
      if (r.acc.hi <= a.lo || a.hi <= r.acc.lo) continue;
      if (k[r.pipe] >= r.complete_by) continue;  // ordered
      if (!race_pairs_.emplace(std::make_pair(r.seq, it.seq), true).second) continue;
      if (++races_ > 20) {
        if (races_ == 21) report(Report::Kind::Race, "more races left unreported");
        continue;
      }
      // The hazard in program order: `first` was issued before `second`
      // (the scheduler may have run them the other way round).
      bool it_first = it.seq < r.seq;
      bool first_w = it_first ? a.write : r.acc.write, second_w = it_first ? r.acc.write : a.write;
      const char* what = first_w && second_w ? "WAW" : first_w ? "RAW" : "WAR";
      std::string it_name = it.cxx + " (call #" + std::to_string(it.seq) + ", " + kPipeNames[it.pipe] + ")";
      std::string r_name = r.cxx + " (call #" + std::to_string(r.seq) + ", " + kPipeNames[r.pipe] + ")";
      const std::string& later = it_first ? r_name : it_name;
      const std::string& earlier = it_first ? it_name : r_name;
      Access both{a.space, a.write, std::max(a.lo, r.acc.lo), std::min(a.hi, r.acc.hi)};
      report(Report::Kind::Race, std::string(what) + " on " + range_text(both) + ": " + later +
                                     (second_w ? " writes" : " reads") + " what " + earlier +
                                     (first_w ? " writes" : " reads") +
                                     ", and no flag or barrier orders the two");
    }
  }
}

void Block::prune_history() {
  // The least clock any item still to run on each pipe can have: the
  // pre-clock of its first undone item (clocks only grow along a pipe), or
  // the clock after its last sync item when it has nothing queued.
  std::array<Clock, kPipes> low;
  for (int q = 0; q < kPipes; ++q) {
    size_t i = first_undone_[q];
    if (i < q_[q].size()) low[q] = pre_clock(q, i);
    else low[q] = last_sync_[q] >= 0 ? post_clock(q, size_t(last_sync_[q])) : base_[q];
  }
  auto covered = [&](const AccessRec& r) {
    for (int q = 0; q < kPipes; ++q)
      if (low[q][r.pipe] < r.complete_by) return false;
    return true;
  };
  history_.erase(std::remove_if(history_.begin(), history_.end(), covered), history_.end());
  prune_at_ = std::max<size_t>(1024, history_.size() * 2);
}

// A flag counts its sets (SYNC_NOTES §1: the k-th wait of a key is
// released by the k-th set), so a set that overtakes the previous set's
// wait on another pipe is not an error by default; the official tool's
// loop compensation (a set before a loop, the wait after it, inside an
// outer loop) relies on it. PTOAS_CCE_STRICT_FLAGS=1 reports it, for
// hardware that keeps one pending set per flag. A second set on a path
// before its wait is the checker's (--verify-sync) error either way.
bool strict_flags() {
  const char* e = std::getenv("PTOAS_CCE_STRICT_FLAGS");
  return e && *e && std::string(e) != "0";
}

void Block::execute(int p, size_t i) {
  Item& it = q_[p][i];
  switch (it.kind) {
    case Item::Kind::Op: {
      Clock k = pre_clock(p, i);
      check_races(it, k);
      for (const Access& a : it.op->accesses)
        history_.push_back({a, p, it.complete_by, it.seq, it.cxx});
      if (history_.size() > prune_at_) prune_history();
      std::string err;
      if (!run_op(*it.op, arenas_, idx_, num_, err))
        report(Report::Kind::OpError, it.cxx + " (call #" + std::to_string(it.seq) + "): " + err);
      ++ops_run_;
      break;
    }
    case Item::Kind::Set: {
      Flag& f = flags_[{it.src, it.dst, it.id}];
      Clock snap = pre_clock(p, i);
      snap[p] = std::max(snap[p], it.fence_idx);
      f.snapshots[it.nth] = snap;
      ++f.sets_done;
      if (strict_flags() && it.nth > 0 && f.waits_done >= it.nth) {
        // The previous set's wait ran first here; it must also be ordered
        // before this set, or on the hardware this set may come first.
        const Flag::WaitAt& w = f.waits[it.nth - 1];
        if (snap[w.pipe] < w.complete_by)
          report(Report::Kind::Flag,
                 flag_text("set_flag", it.src, it.dst, it.id) + " (call #" + std::to_string(it.seq) +
                     ") may set the flag again before wait_flag (call #" + std::to_string(w.seq) +
                     ") consumes the set of call #" + std::to_string(f.set_seq[it.nth - 1]) +
                     ": nothing orders the two");
      }
      if (strict_flags() && f.sets_done - f.waits_done > 1)
        report(Report::Kind::Flag, flag_text("set_flag", it.src, it.dst, it.id) + " (call #" +
                                       std::to_string(it.seq) +
                                       ") sets a flag that is already set: the set_flag of call #" +
                                       std::to_string(f.set_seq[f.waits_done]) +
                                       " has not been waited yet");
      break;
    }
    case Item::Kind::Wait: {
      Flag& f = flags_[{it.src, it.dst, it.id}];
      Clock k = pre_clock(p, i);
      const Clock& s = f.snapshots[it.nth];
      for (int x = 0; x < kPipes; ++x) k[x] = std::max(k[x], s[x]);
      it.post = k;
      it.has_post = true;
      ++f.waits_done;
      break;
    }
    case Item::Kind::Barrier:
      break;
  }
  it.done = true;
}

void Block::drain(bool all) {
  while (true) {
    int best_p;
    size_t best_i;
    if (!pick(best_p, best_i)) break;
    execute(best_p, best_i);
  }
  // What is left cannot run: no set releases the waits it hangs on.
  bool stuck = false;
  for (int p = 0; p < kPipes; ++p)
    for (size_t i = first_undone_[p]; i < q_[p].size(); ++i)
      if (!q_[p][i].done) {
        stuck = true;
        const Item& it = q_[p][i];
        std::string why;
        if (it.kind == Item::Kind::Wait) {
          auto& f = flags_[{it.src, it.dst, it.id}];
          why = f.sets_issued > it.nth ? "its set_flag (call #" + std::to_string(f.set_seq[it.nth]) +
                                             ") never runs"
                                       : "no set_flag releases it (" + std::to_string(f.sets_issued) +
                                             " set(s) for " + std::to_string(it.nth + 1) + " wait(s))";
        } else {
          why = "it waits for the items before it on its pipe";
        }
        report(Report::Kind::Deadlock, std::string(kPipeNames[p]) + " is stuck at " +
                                           desc(it) + ": " + why);
        break;
      }
  if (stuck) deadlocked_ = true;
  for (int p = 0; p < kPipes; ++p) {
    if (!stuck && last_sync_[p] >= 0) base_[p] = post_clock(p, size_t(last_sync_[p]));
    q_[p].clear();
    first_undone_[p] = 0;
    last_gate_[p] = last_sync_[p] = -1;
  }
  if (all || stuck) {
    history_.clear();
    // Everything so far is ordered before what follows.
    Clock everything{};
    for (int p = 0; p < kPipes; ++p) everything[p] = fences_[p];
    base_.fill(everything);
    if (stuck)
      for (auto& [key, f] : flags_) {
        f.sets_issued = f.sets_done;
        f.waits_issued = f.waits_done;
        f.snapshots.resize(f.sets_done);
        f.set_seq.resize(f.sets_done);
        f.waits.resize(f.waits_done);
      }
  }
}

void Block::finish() {
  drain(true);
  if (deadlocked_) return;
  for (auto& [key, f] : flags_)
    if (f.sets_done > f.waits_done)
      report(Report::Kind::Flag,
             flag_text("set_flag", std::get<0>(key), std::get<1>(key), std::get<2>(key)) + " (call #" +
                 std::to_string(f.set_seq[f.waits_done]) +
                 ") is still pending at the end of the kernel: no wait_flag consumes it");
}

}  // namespace ptoas::cce_model
