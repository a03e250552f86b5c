// The happens-before walk of NPU sync (sync_state.h).
#include "sync_state.h"

#include <cstdio>
#include <cstdlib>

namespace ptoas::opt {

namespace {

constexpr unsigned kMaxLoopRounds = 24;
constexpr uint64_t kWorkBound = uint64_t(2) << 30;  // hazard tests per function

}  // namespace

std::string key_text(uint32_t key) {
  unsigned id = key & 0xff;
  std::string s = std::string(pipe_name(Pipe((key >> 16) & 0xff))) + ", " +
                  std::string(pipe_name(Pipe((key >> 8) & 0xff))) + ", ";
  return s + (id == 0xff ? std::string("dynamic id") : "EVENT_ID" + std::to_string(id));
}

SyncWalker::SyncWalker(const SyncModel& sm) : sm_(sm) {}

SyncState SyncWalker::empty() const {
  SyncState s;
  for (auto& row : s.u)
    for (Bits& b : row) b = Bits(sm_.events.size());
  return s;
}

bool SyncWalker::run() {
  const Inst& f = sm_.m.inst(sm_.fn);
  if (!f.n_regions) return true;
  SyncState s = empty();
  region(f.region, s);
  return !gave_up_;
}

void SyncWalker::region(RegionId r, SyncState& s) {
  const Region& reg = sm_.m.regions[r];
  for (unsigned i = 0; i < reg.inst_count && !gave_up_; ++i) step(sm_.m.region_inst(reg, i), s);
}

void SyncWalker::access(uint32_t e, SyncState& s) {
  const SyncEvent& ev = sm_.events[e];
  unsigned q = unsigned(ev.pipe);
  std::vector<uint32_t> hz;
  for (unsigned r = 0; r < kSyncPipes; ++r) {
    if (r == q && !sm_.needs_barrier(ev.pipe)) continue;
    if (r == unsigned(Pipe::S) && q == unsigned(Pipe::S)) continue;
    s.u[r][q].each([&](uint32_t p) {
      ++work_;
      if (sm_.conflict(p, e)) hz.push_back(p);  // p == e: the same op in an earlier trip
    });
  }
  if (work_ > kWorkBound) gave_up_ = true;
  if (!hz.empty()) on_hazards(s, e, hz);
  for (unsigned x = 0; x < kSyncPipes; ++x) s.u[q][x].set(e);
  for (auto& [k, t] : s.tok) t.rem[q].reset(e);
}

void SyncWalker::sync(InstId id, const SyncOp& op, SyncState& s) {
  unsigned p = unsigned(op.src), q = unsigned(op.dst);
  if (op.kind == SyncOp::Kind::Barrier) {
    if (op.src == Pipe::All) {
      for (auto& row : s.u)
        for (Bits& b : row) b.clear();
    } else if (p < kSyncPipes) {
      s.u[p][p].clear();
    }
    return;
  }
  if (p >= kSyncPipes || q >= kSyncPipes) {
    on_sync_error(id, kNone, "a flag between " + std::string(pipe_name(op.src)) + " and " +
                                 std::string(pipe_name(op.dst)) + " names no single pipe");
    return;
  }
  if (op.id > 7 && !(wide_ids && op.id < 0xff)) {
    on_sync_error(id, kNone, "event id " + std::to_string(op.id) + " is out of range (EVENT_ID0..EVENT_ID7)");
    return;
  }
  uint32_t key = sync_key(op.src, op.dst, op.id);
  if (op.kind == SyncOp::Kind::Set) {
    auto it = s.tok.find(key);
    if (it != s.tok.end()) {
      on_sync_error(id, it->second.set,
                    "set_flag(" + key_text(key) + ") while the flag is already set and not waited for");
      return;
    }
    for (const auto& [k, t] : s.tok)
      if ((k >> 16) == (key >> 16) && (k & 0xff) == (key & 0xff) && k != key)
        on_warning(id, t.set, "two live flags from " + std::string(pipe_name(op.src)) + " share event id " +
                                  std::to_string(op.id) + " (" + key_text(k) + " is still pending)");
    SyncToken t;
    t.set = id;
    for (unsigned r = 0; r < kSyncPipes; ++r) {
      t.rem[r] = s.u[r][q];
      if (r != p) {
        Bits notp = s.u[r][p];
        t.rem[r].and_not(notp);
      }
    }
    s.tok.emplace(key, std::move(t));
    return;
  }
  auto it = s.tok.find(key);
  if (it == s.tok.end()) {
    on_sync_error(id, kNone, "wait_flag(" + key_text(key) + ") has no set_flag before it on this path (deadlock)");
    return;
  }
  for (unsigned r = 0; r < kSyncPipes; ++r) s.u[r][q].and_not(it->second.rem[r]);
  s.tok.erase(it);
}

void SyncWalker::join(InstId at, SyncState& a, const SyncState& b, const char* what) {
  // A flag's wait orders an event when, on each path, the event is covered
  // by the set or is not pending before the flag's destination at all.
  for (auto it = a.tok.begin(); it != a.tok.end();) {
    auto jt = b.tok.find(it->first);
    if (jt == b.tok.end()) {
      on_sync_error(at, it->second.set,
                    "flag (" + key_text(it->first) + ") is pending on one path " + what + " and not on another");
      it = a.tok.erase(it);
      continue;
    }
    unsigned q = (it->first >> 8) & 0xff;
    for (unsigned r = 0; r < kSyncPipes; ++r)
      it->second.rem[r].join_cover(a.u[r][q], jt->second.rem[r], b.u[r][q], sm_.events.size());
    ++it;
  }
  for (const auto& [k, t] : b.tok)
    if (!a.tok.count(k))
      on_sync_error(at, t.set, "flag (" + key_text(k) + ") is pending on one path " + what + " and not on another");
  for (unsigned r = 0; r < kSyncPipes; ++r)
    for (unsigned q = 0; q < kSyncPipes; ++q) a.u[r][q].or_with(b.u[r][q]);
}

// Loops: the head state is the join of the entry and every back edge,
// iterated until it no longer changes; the exit is the head (zero or more
// trips of a for; for a while, the before region runs once more).
void SyncWalker::loop(InstId id, SyncState& s) {
  const Inst& in = sm_.m.inst(id);
  bool is_while = in.op == Op::While;
  SyncState head = s;
  for (unsigned round = 0;; ++round) {
    SyncState body = head;
    region(in.region, body);
    if (is_while && in.n_regions > 1) region(in.region + 1, body);
    if (gave_up_) return;
    // Accumulate (head = head ∪ back edge, head_0 = entry): the walk's
    // transfer is not monotone where the inserter credits a pair, and an
    // accumulated head cannot cycle.
    SyncState next = head;
    join(id, next, body, "around the loop");
    if (next == head || round + 1 >= kMaxLoopRounds) {
      if (!(next == head)) {
        gave_up_ = true;
        if (getenv("PTOAS_SYNC_DEBUG")) {
          size_t du = 0, dt = next.tok.size() != head.tok.size();
          for (unsigned r = 0; r < kSyncPipes; ++r)
            for (unsigned q = 0; q < kSyncPipes; ++q) du += !(next.u[r][q] == head.u[r][q]);
          for (auto& [k, t] : next.tok) dt += !head.tok.count(k) || !(head.tok.at(k) == t);
          fprintf(stderr, "sync: loop at %u: no fixpoint (%zu sets differ, %zu flags)\n", in.loc, du, dt);
        }
      }
      head = std::move(next);
      break;
    }
    head = std::move(next);
  }
  if (is_while) region(in.region, head);
  s = std::move(head);
}

void SyncWalker::step(InstId id, SyncState& s) {
  const Inst& in = sm_.m.inst(id);
  if (id < skip.size() && skip[id]) return;
  switch (in.op) {
    case Op::If: {
      SyncState other = s;
      region(in.region, s);
      if (in.n_regions > 1 && (in.flags & kInstElse)) region(in.region + 1, other);
      join(id, s, other, "through the scf.if");
      return;
    }
    case Op::For:
    case Op::While:
      loop(id, s);
      return;
    case Op::Return:
      for (const auto& [k, t] : s.tok)
        on_sync_error(id, t.set, "flag (" + key_text(k) + ") is still pending at the return");
      return;
    default:
      break;
  }
  const OpInfo& info = op_info(in.op);
  if (info.sem == Sem::Sync) {
    SyncOp op;
    if (decode_sync(sm_.m, in, op)) {
      if (sm_.arch == Arch::A5 && op.kind == SyncOp::Kind::Barrier && op.src == Pipe::V)
        on_sync_error(id, kNone, "pipe_barrier(PIPE_V) is not available on A5 (the vector pipe orders itself)");
      if (sm_.arch == Arch::A5 && op.kind != SyncOp::Kind::Barrier &&
          (op.src == Pipe::FIX || op.src == Pipe::MTE1 || op.dst == Pipe::FIX || op.dst == Pipe::MTE1))
        on_sync_error(id, kNone, "A5 toolchains reject set_flag/wait_flag on PIPE_FIX and PIPE_MTE1");
      sync(id, op, s);
    }
    return;
  }
  if (in.op == Op::TPut || in.op == Op::TGet) {
    // Their hidden MTE2->MTE3 handshake uses EVENT_ID0 and EVENT_ID1.
    for (int k = 0; k < 2; ++k) {
      auto it = s.tok.find(sync_key(Pipe::MTE2, Pipe::MTE3, k));
      if (it != s.tok.end())
        on_sync_error(id, it->second.set, std::string(op_name(in.op)) + " uses (" +
                                              key_text(it->first) + ") internally while it is pending");
    }
  }
  // A multi-step library op orders its own steps.
  for (uint32_t k = 0; k < sm_.ev_count[id]; ++k) {
    uint32_t e = sm_.ev_begin[id] + k;
    if (k) s.u[unsigned(sm_.events[e - 1].pipe)][unsigned(sm_.events[e].pipe)].reset(e - 1);
    access(e, s);
  }
  for (unsigned k = 0; k < in.n_regions; ++k)
    if (in.op != Op::Func) region(in.region + k, s);
}

}  // namespace ptoas::opt
