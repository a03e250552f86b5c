// Sync insertion (sync.h insert_sync; docs/cce_backend.md §4).
//
// The happens-before walk of the checker finds each hazard at its consumer c
// (pipe Q) against a producer p (pipe P). The fix is placed in the deepest
// region G holding both, at the statements sp (holding p) and sc (holding c):
//   * P == Q: pipe_barrier(Q) right before c;
//   * sp before sc: set_flag(P, Q) right after sp, wait_flag right before sc,
//     both in G, so every path through G runs the pair once, in order;
//   * otherwise the hazard crosses the back edge of the innermost scf.for L
//     around both: in L's body, wait before the statement holding c and set
//     after the one holding p, plus a set before L and a wait after L (the
//     compensation, at L itself, so zero trips and the first trip balance).
// Nothing ever moves across a region boundary without its partner. Hazards
// through an scf.while's back edge get pipe_barrier(PIPE_ALL) before c.
//
// The walk's state is updated as if the pair were in place, but only by
// what the pair provably orders (the events of P outside the statements
// between the set and c), so it never misses a hazard. Ids come from
// colouring the pairs' live ranges per source pipe (no two live flags of
// one source pipe share an id: PTOAS #823); a pair left without an id
// becomes pipe_barrier(PIPE_ALL) before sc. Then each pair is dropped if
// the checker still proves the function without it (transitive orderings),
// and the checker proves the result.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "ir_edit.h"
#include "sync.h"
#include "sync_check.h"

namespace ptoas::opt {

namespace {

constexpr unsigned kWideIds = 254;  // ids a key can hold (0xff: dynamic)
constexpr uint64_t kTrialWork = uint64_t(1) << 26;  // redundancy trials per function

struct Pair {
  Pipe p, q;
  RegionId g;          // the region the set and wait go in
  uint32_t set_after;  // statement index in g
  uint32_t wait_before;
  InstId loop = kNone;  // loop-carried: the scf.for whose body g is
  bool operator<(const Pair& o) const {
    return std::tie(p, q, g, wait_before, loop, set_after) <
           std::tie(o.p, o.q, o.g, o.wait_before, o.loop, o.set_after);
  }
};

class Planner : public SyncWalker {
 public:
  explicit Planner(const SyncModel& sm) : SyncWalker(sm) {}
  std::set<Pair> pairs;
  std::set<std::pair<InstId, Pipe>> barriers;  // pipe_barrier(pipe) before inst
  std::set<InstId> all_before;                 // pipe_barrier(PIPE_ALL) before inst

 protected:
  void on_hazards(SyncState& s, uint32_t c, const std::vector<uint32_t>& producers) override;
  void on_sync_error(InstId, InstId, const std::string&) override {}

 private:
  void keep_only(Bits& b, const std::vector<std::pair<uint32_t, uint32_t>>& keep) const;
};

void Planner::keep_only(Bits& b, const std::vector<std::pair<uint32_t, uint32_t>>& keep) const {
  std::vector<uint32_t> drop;
  b.each([&](uint32_t e) {
    uint32_t at = sm_.pre[sm_.events[e].inst];
    for (auto [lo, hi] : keep)
      if (at >= lo && at <= hi) return;
    drop.push_back(e);
  });
  for (uint32_t e : drop) b.reset(e);
}

void Planner::on_hazards(SyncState& s, uint32_t c, const std::vector<uint32_t>& producers) {
  const Module& m = sm_.m;
  InstId ci = sm_.events[c].inst;
  Pipe q = sm_.events[c].pipe;
  for (uint32_t pe : producers) {
    Pipe p = sm_.events[pe].pipe;
    if (p == q) {
      barriers.insert({ci, q});
      s.u[unsigned(q)][unsigned(q)].clear();
      continue;
    }
    if (!s.u[unsigned(p)][unsigned(q)].test(pe)) continue;  // ordered by a pair of this round
    // The regions above p, each with the index of p's ancestor there.
    std::map<RegionId, uint32_t> up;
    for (InstId x = sm_.events[pe].inst;;) {
      RegionId r = sm_.home[x];
      up[r] = sm_.index[x];
      x = sm_.owner[r];
      if (x == sm_.fn || x == kNone) break;
    }
    RegionId g = kNone;
    uint32_t sp = 0, sc = 0;
    for (InstId x = ci;;) {
      RegionId r = sm_.home[x];
      auto it = up.find(r);
      if (it != up.end()) {
        g = r, sp = it->second, sc = sm_.index[x];
        break;
      }
      x = sm_.owner[r];
      if (x == sm_.fn || x == kNone) break;
    }
    std::vector<std::pair<uint32_t, uint32_t>> keep;
    auto stmt = [&](RegionId r, uint32_t i) { return m.region_inst(m.regions[r], i); };
    if (g != kNone && sp < sc) {
      pairs.insert(Pair{p, q, g, sp, sc});
      keep.push_back({sm_.end[stmt(g, sp)] + 1, sm_.end[stmt(g, sc)]});
    } else if (g != kNone && sp == sc && m.inst(stmt(g, sp)).op != Op::If) {
      // p and c in two regions of one statement that run in one pass
      // (scf.while's before and after): no place for a pair around both.
      all_before.insert(ci);
      for (auto& row : s.u)
        for (Bits& b : row) b.clear();
      continue;
    } else {
      // Up to the innermost loop around both.
      InstId loop = kNone;
      while (g != kNone) {
        InstId o = sm_.owner[g];
        if (o == sm_.fn || o == kNone || o == InstId(-1)) break;
        if (m.inst(o).op == Op::For) {
          loop = o;
          break;
        }
        if (m.inst(o).op == Op::While) break;
        sp = sc = sm_.index[o];
        g = sm_.home[o];
      }
      if (loop == kNone) {
        all_before.insert(ci);
        for (auto& row : s.u)
          for (Bits& b : row) b.clear();
        continue;
      }
      pairs.insert(Pair{p, q, g, sp, sc, loop});
      const Region& body = m.regions[g];
      keep.push_back({sm_.pre[stmt(g, sc)], sm_.end[stmt(g, sc)]});
      keep.push_back({sm_.end[stmt(g, sp)] + 1, sm_.end[stmt(g, body.inst_count - 1)]});
    }
    if (getenv("PTOAS_SYNC_DEBUG") && m.src)
      fprintf(stderr, "plan: line %u <- %u loop=%d\n", m.src->line_col(m.inst(ci).loc).line,
              m.src->line_col(m.inst(sm_.events[pe].inst).loc).line, int(keep.size() == 2));
    Bits& u = s.u[unsigned(p)][unsigned(q)];
    keep_only(u, keep);
    u.reset(pe);
  }
}

// ---- materialising -----------------------------------------------------------------

struct Gap {
  std::vector<InstId> sets, waits, barriers;
};

class Builder {
 public:
  Builder(Module& m) : m_(m) {}
  InstId make(Op op, const std::string& body, uint32_t loc) {
    Attr a;
    a.kind = AttrKind::Other;
    a.text = a.word = m_.strings.intern(body);
    AttrId av = m_.intern_attr(a);
    Inst in{};
    in.op = op;
    in.opnd = uint32_t(m_.operands.size());
    in.res = uint32_t(m_.values.size());
    in.attrs = uint32_t(m_.attrs.size());
    in.n_attrs = 1;
    in.region = uint32_t(m_.regions.size());
    in.loc = loc;
    in.form = Form::Dps;
    m_.attrs.push_back(NamedAttr{m_.strings.intern("__body"), av});
    m_.insts.push_back(in);
    return InstId(m_.insts.size() - 1);
  }
  static std::string flag_body(Pipe p, Pipe q, int id) {
    return "[<" + std::string(pipe_name(p)) + ">, <" + std::string(pipe_name(q)) + ">, <EVENT_ID" +
           std::to_string(id) + ">]";
  }
  InstId flag(bool set, Pipe p, Pipe q, int id, uint32_t loc) {
    return make(set ? Op::SetFlag : Op::WaitFlag, flag_body(p, q, id), loc);
  }
  // Rewrites instruction x's body (a new attribute record; the old one is
  // garbage).
  void set_body(InstId x, Op op, const std::string& body) {
    Attr a;
    a.kind = AttrKind::Other;
    a.text = a.word = m_.strings.intern(body);
    AttrId av = m_.intern_attr(a);
    m_.insts[x].op = op;
    m_.insts[x].attrs = uint32_t(m_.attrs.size());
    m_.insts[x].n_attrs = 1;
    m_.attrs.push_back(NamedAttr{m_.strings.intern("__body"), av});
  }
  void retarget(InstId x, Pipe p, Pipe q, int id) { set_body(x, m_.insts[x].op, flag_body(p, q, id)); }
  void make_barrier_all(InstId x) {
    set_body(x, Op::Barrier, "<PIPE_ALL>");
    pipe_of[x] = Pipe::All;
  }
  InstId barrier(Pipe p, uint32_t loc) {
    InstId id = make(Op::Barrier, "<" + std::string(pipe_name(p)) + ">", loc);
    pipe_of[id] = p;
    return id;
  }
  std::map<InstId, Pipe> pipe_of;

 private:
  Module& m_;
};

bool insert_function(Module& m, InstId fn, SyncStats& st, Diag& diag, bool& manual) {
  std::set<Pair> pairs;
  std::set<std::pair<InstId, Pipe>> barriers;
  std::set<InstId> all_before;
  Arch arch = m.arch;
  {
    SyncModel sm(m, fn);
    manual = sm.has_manual_sync;
    if (manual) {
      ++st.manual;
      return true;
    }
    Planner pl(sm);
    if (!pl.run()) {
      diag.error(m.inst(fn).loc, 0, "sync insertion gave up on this function (too large or no loop fixpoint)");
      return false;
    }
    // One pair per (pipes, region, wait, loop): the latest set covers the rest.
    std::map<std::tuple<Pipe, Pipe, RegionId, uint32_t, InstId>, Pair> merged;
    for (const Pair& p : pl.pairs) {
      auto key = std::make_tuple(p.p, p.q, p.g, p.wait_before, p.loop);
      auto it = merged.find(key);
      if (it == merged.end() || it->second.set_after < p.set_after) merged[key] = p;
    }
    for (auto& [k, p] : merged) pairs.insert(p);
    barriers = pl.barriers;
    all_before = pl.all_before;
  }
  ++st.functions;

  // Positions: each gap is (pre-order index of what follows) * 2, a wait at
  // a gap sits after its sets (+1). A pair is live from its first set to
  // its last wait.
  SyncModel sm(m, fn);  // structure only
  auto stmt = [&](RegionId r, uint32_t i) { return m.region_inst(m.regions[r], i); };
  struct Live {
    Pair pair;
    uint64_t lo, hi;
    int id = -1;
    bool dropped = false;
    std::vector<InstId> insts;  // s1, w1[, s0, w2]
  };
  std::vector<Live> live;
  for (const Pair& p : pairs) {
    Live l{p, 0, 0, -1, false, {}};
    if (p.loop == kNone) {
      l.lo = 2 * uint64_t(sm.end[stmt(p.g, p.set_after)] + 1);
      l.hi = 2 * uint64_t(sm.pre[stmt(p.g, p.wait_before)]) + 1;
    } else {
      l.lo = 2 * uint64_t(sm.pre[p.loop]);
      l.hi = 2 * uint64_t(sm.end[p.loop] + 1) + 1;
    }
    live.push_back(l);
  }
  std::stable_sort(live.begin(), live.end(), [](const Live& a, const Live& b) { return a.lo < b.lo; });
  // Interval colouring per source pipe, in order of start: ids 0..max-1,
  // -1 when none is free. First with as many ids as the key holds, so the
  // redundancy trials see every pair; then again with the 8 real ones.
  auto colour = [&](unsigned max, bool real) {
    for (size_t i = 0; i < live.size(); ++i) {
      Live& l = live[i];
      l.id = -1;
      if (l.dropped) continue;
      if (real && arch == Arch::A5 &&
          (l.pair.p == Pipe::FIX || l.pair.p == Pipe::MTE1 || l.pair.q == Pipe::FIX || l.pair.q == Pipe::MTE1))
        continue;
      std::vector<uint8_t> used(max, 0);
      for (size_t j = 0; j < i; ++j)
        if (live[j].id >= 0 && live[j].pair.p == l.pair.p && live[j].hi >= l.lo) used[unsigned(live[j].id)] = 1;
      for (unsigned k = 0; k < max; ++k)
        if (!used[k]) {
          l.id = int(k);
          break;
        }
    }
  };
  colour(kWideIds, false);

  // The gaps of each region that get sync.
  std::map<RegionId, std::map<uint32_t, Gap>> gaps;
  Builder b(m);
  auto loc_at = [&](RegionId r, uint32_t i) { return m.inst(stmt(r, std::min(i, m.regions[r].inst_count - 1))).loc; };
  for (Live& l : live) {
    const Pair& p = l.pair;
    if (l.id < 0) {
      gaps[p.g][p.wait_before].barriers.push_back(b.barrier(Pipe::All, loc_at(p.g, p.wait_before)));
      continue;
    }
    InstId s1 = b.flag(true, p.p, p.q, l.id, loc_at(p.g, p.set_after));
    InstId w1 = b.flag(false, p.p, p.q, l.id, loc_at(p.g, p.wait_before));
    gaps[p.g][p.set_after + 1].sets.push_back(s1);
    gaps[p.g][p.wait_before].waits.push_back(w1);
    l.insts = {s1, w1};
    if (p.loop != kNone) {
      RegionId h = sm.home[p.loop];
      InstId s0 = b.flag(true, p.p, p.q, l.id, m.inst(p.loop).loc);
      InstId w2 = b.flag(false, p.p, p.q, l.id, m.inst(p.loop).loc);
      gaps[h][sm.index[p.loop]].sets.push_back(s0);
      gaps[h][sm.index[p.loop] + 1].waits.push_back(w2);
      l.insts.push_back(s0);
      l.insts.push_back(w2);
    }
  }
  std::vector<InstId> lone;  // barriers a trial may drop
  for (auto [at, pipe] : barriers) {
    if (all_before.count(at)) continue;
    InstId bi = b.barrier(pipe, m.inst(at).loc);
    gaps[sm.home[at]][sm.index[at]].barriers.push_back(bi);
    lone.push_back(bi);
  }
  for (InstId at : all_before) {
    gaps[sm.home[at]][sm.index[at]].barriers.push_back(b.barrier(Pipe::All, m.inst(at).loc));
  }
  const Region& body = m.regions[m.inst(fn).region];
  for (unsigned i = 0; i < body.inst_count; ++i) {
    InstId r = m.region_inst(body, i);
    if (m.inst(r).op != Op::Return) continue;
    // A PIPE_ALL barrier already before the return (the IR printed by an
    // earlier insertion): one tail is enough, and inserting stays idempotent.
    SyncOp prev;
    if (i > 0 && decode_sync(m, m.inst(m.region_inst(body, i - 1)), prev) &&
        prev.kind == SyncOp::Kind::Barrier && prev.src == Pipe::All)
      continue;
    gaps[m.inst(fn).region][i].barriers.push_back(b.barrier(Pipe::All, m.inst(r).loc));
  }
  std::map<InstId, Pipe>& barrier_pipe = b.pipe_of;
  for (auto& [r, byg] : gaps) {
    std::vector<InstId> old = region_list(m, r), out;
    for (uint32_t i = 0; i <= old.size(); ++i) {
      auto it = byg.find(i);
      if (it != byg.end()) {
        for (InstId x : it->second.sets) out.push_back(x);
        for (InstId x : it->second.waits) out.push_back(x);
        // One barrier per pipe, none under a PIPE_ALL.
        bool all = false;
        std::set<Pipe> seen;
        for (InstId x : it->second.barriers) all = all || barrier_pipe[x] == Pipe::All;
        for (InstId x : it->second.barriers) {
          Pipe bp = barrier_pipe[x];
          if ((all && bp != Pipe::All) || !seen.insert(bp).second) continue;
          out.push_back(x);
        }
      }
      if (i < old.size()) out.push_back(old[i]);
    }
    set_region_list(m, r, out);
  }

  // Drop what the checker proves redundant, last first.
  std::vector<uint8_t> drop(m.insts.size(), 0);
  {
    SyncModel full(m, fn);
    uint64_t work = 0;
    auto clean_without = [&](const std::vector<InstId>& ids) {
      SyncChecker ck(full);
      ck.quiet = true;
      ck.wide_ids = true;
      ck.skip = drop;
      for (InstId x : ids) ck.skip[x] = 1;
      bool ok = ck.run() && ck.errors == 0;
      work += ck.work_done();
      if (getenv("PTOAS_SYNC_DEBUG")) fprintf(stderr, "sync trial: %s, %llu tests\n", ok ? "clean" : "needed", (unsigned long long)ck.work_done());
      return ok;
    };
    if (getenv("PTOAS_SYNC_NOTRIAL")) work = kTrialWork;
    if (getenv("PTOAS_SYNC_DEBUG")) {
      SyncChecker ck(full);
      ck.wide_ids = true;
      ck.run();
      for (auto& f : ck.found)
        fprintf(stderr, "baseline: line %u <- %u: %s\n", m.src ? m.src->line_col(f.at).line : 0,
                m.src && f.other != kNone ? m.src->line_col(f.other).line : 0, f.msg.c_str());
    }
    for (size_t i = live.size(); i-- > 0 && work < kTrialWork;) {
      if (live[i].insts.empty() || !clean_without(live[i].insts)) continue;
      for (InstId x : live[i].insts) drop[x] = 1;
      live[i].dropped = true;
      ++st.dropped;
    }
    for (size_t i = lone.size(); i-- > 0 && work < kTrialWork;) {
      if (!clean_without({lone[i]})) continue;
      drop[lone[i]] = 1;
    }
  }
  // The real ids; a pair left without one becomes pipe_barrier(PIPE_ALL)
  // where its wait was (which orders at least what the pair did).
  if (getenv("PTOAS_SYNC_WIDE")) {
    for (Live& l : live)
      for (InstId x : l.insts) b.retarget(x, l.pair.p, l.pair.q, l.id);
    drop_listed(m, function_regions(m, fn), drop);
    return true;
  }
  colour(8, true);
  std::set<std::pair<RegionId, uint32_t>> all_at;
  for (Live& l : live) {
    if (l.dropped || l.insts.empty()) continue;
    if (l.id >= 0) {
      for (InstId x : l.insts) b.retarget(x, l.pair.p, l.pair.q, l.id);
      continue;
    }
    for (InstId x : l.insts) drop[x] = 1;
    if (all_at.insert({l.pair.g, l.pair.wait_before}).second) {
      b.make_barrier_all(l.insts[1]);
      drop[l.insts[1]] = 0;
    }
  }
  drop_listed(m, function_regions(m, fn), drop);
  for (RegionId r : function_regions(m, fn)) {
    std::vector<InstId> ids = region_list(m, r);
    for (size_t i = 0; i < ids.size(); ++i) {
      SyncOp op;
      if (op_info(m.inst(ids[i]).op).sem != Sem::Sync || !decode_sync(m, m.inst(ids[i]), op)) continue;
      if (op.kind == SyncOp::Kind::Set) ++st.sets;
      else if (op.kind == SyncOp::Kind::Wait) ++st.waits;
      else if (op.kind == SyncOp::Kind::Barrier && op.src != Pipe::All) ++st.barriers;
      else if (i + 1 < ids.size() && m.inst(ids[i + 1]).op == Op::Return) ++st.tails;
      else ++st.pipe_all;
    }
  }
  return true;
}

}  // namespace

bool insert_sync(Module& m, Diag& diag, SyncStats* stats) {
  SyncStats local;
  SyncStats& st = stats ? *stats : local;
  bool ok = true;
  std::vector<InstId> fns = function_defs(m);
  std::vector<char> manual(fns.size(), 0);
  for (size_t i = 0; i < fns.size(); ++i) {
    bool own = false;
    ok = insert_function(m, fns[i], st, diag, own) && ok;
    manual[i] = own;
  }
  if (!ok) return false;
  Diag check(m.src);
  for (size_t i = 0; i < fns.size(); ++i)
    ok = verify_function_sync(m, fns[i], manual[i] ? diag : check) && ok;
  if (check.error_count()) {
    diag.error_global("internal error: the inserted sync does not pass the sync checker:\n" + check.text());
    return false;
  }
  return ok;
}

std::string sync_stats_line(const SyncStats& s) {
  return "ptoas: sync: " + std::to_string(s.functions) + " functions synced, " + std::to_string(s.manual) +
         " with hand-written flags left alone; inserted " + std::to_string(s.sets) + " set_flag, " +
         std::to_string(s.waits) + " wait_flag, " + std::to_string(s.barriers) + " pipe_barrier, " +
         std::to_string(s.pipe_all) + " PIPE_ALL fallbacks, " + std::to_string(s.tails) +
         " tail barriers; " + std::to_string(s.dropped) + " pairs proved redundant\n";
}

}  // namespace ptoas::opt
