// x86-64 code generation: the registers and dead stores of a pto.fuse
// region's plan (the plan itself is target-neutral: encoders/fuse_plan.*;
// its per-op answer, fuse_op_ok, is the descriptor's opt.fusable).
#include <algorithm>

#include "fuse.h"

namespace ptoas::cg::x86::gen {

// ---- the plan ------------------------------------------------------------------------

bool Gen::fuse_plan(const Inst& fin, Fuse& f) {
  if (!plan_fuse({m_, fn_, p_, alias_, binds_}, fin, kStreams, f)) return false;
  auto regs = [&] {
    for (size_t s = 0; s < f.stages.size(); ++s)
      if (!fuse_stage_regs(f, s)) return false;
    return true;
  };
  // A max / min's sequential recomputation needs four scratch registers.
  auto scratch_ok = [&] {
    for (size_t s = 0; s < f.stages.size(); ++s)
      for (size_t n = 0; n < f.stages[s].elt.size(); ++n) {
        const Fuse::FOp& o = f.ops[f.stages[s].elt[n]];
        if (o.k == FK::Red && o.op != Op::TRowSum && fuse_seq_scratch(f, s, n).size() < 4) return false;
      }
    return true;
  };
  // Where the merged stages' registers do not fit (their reductions'
  // accumulators next to the math helpers' scratch), no recomputed
  // chunks, then a shallower skew.
  for (size_t k = f.skew;; --k) {
    for (bool remat : {true, false}) {
      if (!f.set_skew(k)) break;
      if (remat && !fuse_remat(f)) continue;
      if (regs() && scratch_ok()) return true;
    }
    if (k == 0) return false;
  }
}

// Private tiles a later stage reads back (a norm's x, loaded or converted
// in the first stage, scaled in the last) are recomputed there from the
// view instead, where every stage reading one back can (FusePlan::
// remat_chain, each with a stream of its views at its lag): the loop then
// stores only its outputs, and the norms' loops are bound by their
// stores (docs/x86_backend.md). A row reduction whose source is private
// and so recomputable writes the source's row back (FOp::mat) only for
// its NaN recomputation. False: nothing to recompute.
bool Gen::fuse_remat(Fuse& f) {
  bool any = false;
  std::vector<size_t> chain;
  auto streams = [&](const std::vector<size_t>& ch, size_t s) {
    for (size_t i : ch)
      if (f.ops[i].k == FK::Load && !f.add_view_stream(f.ops[i].view, f.stage_lag(s))) return false;
    return true;
  };
  for (size_t s = 0; s < f.stages.size(); ++s)
    for (size_t i : f.stages[s].elt) {
      Fuse::FOp& o = f.ops[i];
      if (o.k == FK::Red && f.is_priv(o.a) && f.remat_chain(o.a, f.stages[s].elt.back() + 1, chain) &&
          streams(chain, s)) {
        o.mat = chain;
        any = true;
      }
    }
  for (ValueId t : f.priv) {
    std::vector<std::pair<size_t, std::vector<size_t>>> reads;  // per stage reading t back: its chain
    bool ok = true;
    for (size_t s = 1; s < f.stages.size() && ok; ++s) {
      const std::vector<size_t>& elt = f.stages[s].elt;
      auto first = std::find_if(elt.begin(), elt.end(), [&](size_t i) { return f.touches(f.ops[i], t); });
      if (first == elt.end() || !f.reads(f.ops[*first], t)) continue;
      ok = f.remat_chain(t, *first, chain) && streams(chain, s);
      reads.push_back({s, chain});
    }
    if (!ok || reads.empty()) continue;
    for (auto& [s, ch] : reads) f.stages[s].remat.push_back({t, ch});
    any = true;
  }
  return any;
}

// Registers free for the sequential recomputation of the row reduction at
// st.elt[n] of stage si (fuse_finish): its own accumulators and flag and
// those of the reductions finished before it are free by then, V1 too;
// the later reductions' (of this stage, and of the merged stages after
// it, finished after the shared loop in stage order) are not.
std::vector<int> Gen::fuse_seq_scratch(const Fuse& f, size_t si, size_t n) {
  std::vector<int> busy;
  const size_t last = si >= f.lead() ? f.stages.size() - 1 : si;
  for (size_t s = si; s <= last; ++s) {
    const Fuse::Stage& st = f.stages[s];
    for (size_t m = s == si ? n + 1 : 0; m < st.elt.size(); ++m) {
      const Fuse::FOp& o = f.ops[st.elt[m]];
      if (o.k == FK::Red) busy.insert(busy.end(), {o.acc, o.flag, o.acc2});
    }
  }
  std::vector<int> scratch;
  for (int r : {7, 8, 9, 10, 11, 12, 13, 14, 2, 1})
    if (std::find(busy.begin(), busy.end(), r) == busy.end()) scratch.push_back(r);
  return scratch;
}

// Registers of stage s: each row reduction's accumulator (and NaN flag),
// then each written tile's chunk while any are left. The math helpers
// (exp / log / rsqrt) use V8-V13, f16 / bf16 loads, stores and roundings
// V12-V14, the ops V0, V1 and the loop constants V3-V6; avx2 keeps the
// tail mask in V15.
bool Gen::fuse_stage_regs(Fuse& f, size_t si) {
  Fuse::Stage& st = f.stages[si];
  // Skewed, the stages from the lead on share one column loop: a tile's
  // chunk lives within one stage's chunk, but the reductions' registers
  // and the one-column operands held for the whole row live from chunk to
  // chunk, so they are assigned for all those stages at once (with the
  // lead), clear of every helper any of them clobbers, and no stage's
  // tiles take them.
  const size_t n_st = f.stages.size();
  const bool merged = f.skew && si >= f.lead();
  const size_t lo = merged ? f.lead() : si, hi = merged ? n_st - 1 : si;
  bool math = false, narrow = false;
  auto narrow_op = [&](const Fuse::FOp& o) {
    for (ValueId t : {o.dst, o.a, o.view})
      narrow |= t != kNone && o.k != FK::Red && narrow_float(ty(t).elem);
  };
  for (size_t s = lo; s <= hi; ++s) {
    for (size_t i : f.stages[s].elt) {
      const Fuse::FOp& o = f.ops[i];
      math |= is_math(o.op);
      narrow_op(o);
      for (size_t j : o.mat) narrow_op(f.ops[j]);
    }
    for (const Fuse::Stage::Remat& r : f.stages[s].remat)
      for (size_t j : r.chain) narrow_op(f.ops[j]);
  }
  std::vector<int> pool;
  for (int r = z() ? 31 : 14; r >= 2; --r) {
    if (r >= 3 && r <= 6) continue;
    if (math && r >= 8 && r <= 13) continue;
    if (narrow && r >= 12 && r <= 14) continue;
    if (r == 15) continue;
    pool.push_back(r);
  }
  auto take = [&](int& r) {
    if (pool.empty()) return false;
    r = pool.back();
    pool.pop_back();
    return true;
  };
  auto is_col = [&](ValueId t) {
    auto c = t == kNone ? f.cls.end() : f.cls.find(t);
    return c != f.cls.end() && c->second == Fuse::Col;
  };
  if (si == lo) {
    std::vector<size_t> reds;
    for (size_t s = lo; s <= hi; ++s) f.stages[s].reg.clear();  // from scratch (the plan may be made again)
    for (size_t s = lo; s <= hi; ++s)
      for (size_t i : f.stages[s].elt) {
        f.ops[i].acc = f.ops[i].acc2 = f.ops[i].flag = -1, f.ops[i].store = true;
        if (f.ops[i].k == FK::Red) reds.push_back(i);
      }
    for (size_t i : reds) {
      Fuse::FOp& o = f.ops[i];
      if (!take(o.acc) || (o.op != Op::TRowSum && !take(o.flag))) return false;
    }
    std::vector<int> before = pool;
    bool unroll = true;
    for (size_t i : reds) unroll &= take(f.ops[i].acc2);
    if (!unroll) {
      pool = before;
      for (size_t i : reds) f.ops[i].acc2 = -1;
    }
    for (size_t s = lo; s <= hi; ++s) f.stages[s].unroll = unroll;
    // A one-column operand (a row's mean, 1/sqrt, max or sum) broadcast
    // once per row rather than once per vector, while two registers are
    // left for the tiles' chunks.
    // The one-column tiles a recomputed chunk reads count too.
    for (size_t s = lo; s <= hi; ++s) {
      std::vector<size_t> reading = f.stages[s].elt;
      for (const Fuse::Stage::Remat& rm : f.stages[s].remat) reading.insert(reading.end(), rm.chain.begin(), rm.chain.end());
      for (size_t i : reading)
        for (ValueId t : {f.ops[i].a, f.ops[i].b}) {
          int r;
          if (f.ops[i].k != FK::Red && is_col(t) && !f.stages[s].reg.count(t) && pool.size() > 2 && take(r))
            f.stages[s].reg[t] = r;
        }
    }
  }
  for (size_t s = lo; s <= hi; ++s) {
    for (size_t i : f.stages[s].elt)
      for (int r : {f.ops[i].acc, f.ops[i].acc2, f.ops[i].flag})
        pool.erase(std::remove(pool.begin(), pool.end(), r), pool.end());
    for (auto [t, r] : f.stages[s].reg)
      if (is_col(t)) pool.erase(std::remove(pool.begin(), pool.end(), r), pool.end());
  }
  // A recomputed chunk is held in its register from the chunk's start,
  // but for one that the stage's first op alone reads, as its first
  // operand (fuse_chunk's first fetch into V0): that one is computed last
  // and left in V0.
  bool v0_free = true;
  for (Fuse::Stage::Remat& rm : st.remat) {
    const Fuse::FOp& first = f.ops[st.elt[0]];
    bool once = first.k != FK::Load && first.k != FK::ColOp && first.a == rm.t && first.b != rm.t &&
                !(first.scal != kNone && first.scalar_first);
    for (size_t m = 1; m < st.elt.size() && once && !f.writes(first, rm.t); ++m) {
      once = !f.reads(f.ops[st.elt[m]], rm.t);
      if (f.writes(f.ops[st.elt[m]], rm.t)) break;
    }
    rm.in_v0 = once && v0_free;
    v0_free &= !rm.in_v0;
    int r = -1;
    if (rm.in_v0 || st.reg.count(rm.t)) continue;
    if (!take(r)) return false;
    st.reg[rm.t] = r;
  }
  // A row sum of a square x * x (a norm's) needs its source in memory only
  // for the sequential recomputation of a NaN sum (fuse_finish), which can
  // square x's row instead where x's row in memory is what was squared: x
  // written before the square and not after it in the stage. x is then
  // stored and the source is not: one store fewer per vector (LayerNorm
  // about 20 % faster, docs/x86_backend.md).
  std::vector<ValueId> squared;  // the x of such sums: their chunks must reach memory
  for (size_t n = 0; n < st.elt.size(); ++n) {
    Fuse::FOp& red = f.ops[st.elt[n]];
    if (red.k != FK::Red) continue;
    red.square = kNone;
    if (red.op != Op::TRowSum || !red.mat.empty()) continue;
    size_t writers = 0, at = 0;
    for (size_t m = 0; m < st.elt.size(); ++m)
      if (f.writes(f.ops[st.elt[m]], red.a)) ++writers, at = m;
    if (writers != 1 || at > n) continue;
    const Fuse::FOp& sq = f.ops[st.elt[at]];
    ValueId x = sq.a;
    if (sq.k != FK::Elt || sq.op != Op::TMul || sq.b != x || sq.scal != kNone || x == red.a) continue;
    auto c = f.cls.find(x);
    if (c == f.cls.end() || c->second != Fuse::Elem) continue;
    bool rewritten = false;
    for (size_t m = at + 1; m < st.elt.size(); ++m) rewritten |= f.writes(f.ops[st.elt[m]], x);
    if (rewritten) continue;
    red.square = x;
    squared.push_back(x);
  }
  // Whether the stage of op m recomputes t's chunk.
  auto recomputed = [&](size_t m, ValueId t) {
    for (const Fuse::Stage& later : f.stages)
      if (std::find(later.elt.begin(), later.elt.end(), m) != later.elt.end())
        for (const Fuse::Stage::Remat& rm : later.remat)
          if (rm.t == t) return true;
    return false;
  };
  // Whether the one read of op n's result before it is written again (or
  // the stage ends) is op n + 1's first fetch, which finds it in V0
  // (fused_chunk's in_v0): then a result the stage overwrites, or that
  // nothing after the stage reads, need not be stored even without a
  // register of its own. avx2's softmax, whose tiles get none, stored
  // x - max only for exp to overwrite it, and the quotient only for its
  // tstore, which takes it from V0: 3 stores a vector instead of 5, 1-3 %
  // faster in cache.
  auto next_in_v0_only = [&](size_t n) {
    ValueId t = f.ops[st.elt[n]].dst;
    if (n + 1 >= st.elt.size()) return false;
    const Fuse::FOp& q = f.ops[st.elt[n + 1]];
    bool kind = q.k == FK::Elt || q.k == FK::RowExp || q.k == FK::ColExp || q.k == FK::Store;
    if (!kind || q.a != t || q.b == t || (q.scal != kNone && q.scalar_first)) return false;
    if (f.writes(q, t)) return true;
    for (size_t m = n + 2; m < st.elt.size(); ++m) {
      const Fuse::FOp& x = f.ops[st.elt[m]];
      if (f.reads(x, t)) return false;
      if (f.writes(x, t)) return true;
    }
    return true;
  };
  for (size_t n = 0; n < st.elt.size(); ++n) {
    Fuse::FOp& o = f.ops[st.elt[n]];
    if (o.k == FK::Store || o.k == FK::Red) continue;
    int r;
    if (!st.reg.count(o.dst) && take(r)) st.reg[o.dst] = r;
    bool later = false;
    for (size_t m = n + 1; m < st.elt.size(); ++m) later |= f.writes(f.ops[st.elt[m]], o.dst);
    // A private tile's chunk is needed in memory by a row reduction of
    // this stage (its sequential recomputation), or by a later stage whose
    // first access to the tile reads it (stages run in program order, each
    // on the same row).
    bool needed = !f.is_priv(o.dst) || std::find(squared.begin(), squared.end(), o.dst) != squared.end();
    for (size_t m = 0; m < st.elt.size(); ++m) {
      const Fuse::FOp& q = f.ops[st.elt[m]];
      needed |= q.k == FK::Red && q.a == o.dst && q.square == kNone && q.mat.empty();
    }
    for (size_t m = st.elt.back() + 1; m < f.ops.size(); ++m) {
      if (!f.touches(f.ops[m], o.dst)) continue;
      needed |= f.reads(f.ops[m], o.dst) && !recomputed(m, o.dst);
      break;
    }
    o.store = !((later || !needed) && (st.reg.count(o.dst) || next_in_v0_only(n)));
  }
  return true;
}

// Whether some tile or view of the region's ops has an element type pred
// holds for.
bool Gen::fuse_has_elem(const Fuse& f, bool (*pred)(DType)) const {
  for (const Fuse::FOp& o : f.ops)
    for (ValueId t : {o.dst, o.a, o.b, o.view})
      if (t != kNone && pred(ty(t).elem)) return true;
  return false;
}

// The f32-table constants the loop's helpers read for every vector
// (exp's fast path 9 loads, the bf16 rounding 2) are read from registers
// instead: exp's abs mask and 1.0 from the loop constants V4 and V5
// (LOOP_CONSTANTS, which no plan takes); on avx512 the rest from the zmm
// registers the plan leaves free (above V15: V0-V15 are the ops',
// helpers' and loop constants'), exp's first. Zen 4 loads one zmm a
// cycle, and the softmax loop read 18 a vector. On avx2, three of exp's
// in V10, V11 and V13: the plan leaves V8-V13 to the math helpers, and
// exp's fast path leaves those three alone; so only where exp is the
// loop's one math helper, nothing is f16 / bf16 (whose loads and stores
// use V12-V14) and no stage without exp planned them. Its general path
// and a reduction's sequential recomputation (fuse_finish) load them
// again (reload_held_consts). The
// loop reads two ymm a cycle, and the avx2 softmax loop read 14 a vector:
// 0.047 -> 0.043 ms for 1024 rows in cache. fused_region clears them after
// the loops (the region's slow path is plain code).
void Gen::fuse_hold_consts(const Fuse& f) {
  fconst_reg_ = filled_fconst_regs();
  bool exp = false, other_math = false;
  const bool bf16 = fuse_has_elem(f, [](DType d) { return d == DType::BF16; }), narrow = fuse_has_elem(f, narrow_float);
  std::vector<int> busy;
  for (const Fuse::FOp& o : f.ops) {
    exp |= o.op == Op::TExp && m_.opt_level >= 2;
    other_math |= is_math(o.op) && !(o.op == Op::TExp && m_.opt_level >= 2);
    busy.insert(busy.end(), {o.acc, o.acc2, o.flag});
  }
  for (const Fuse::Stage& st : f.stages)
    for (auto [t, r] : st.reg) busy.push_back(r);
  if (exp) {
    fconst_reg_[kFAbsMask] = 4;   // 0x7fffffff
    fconst_reg_[kFExpC + 7] = 5;  // 1 / 0!
  }
  auto is_busy = [&](int r) { return std::find(busy.begin(), busy.end(), r) != busy.end(); };
  if (!z()) {
    if (!exp || other_math || narrow) return;
    const int held[] = {kFExpMagic, kFExpLog2eN, kFExpU + 1};
    size_t next = 0;
    for (int r : {11, 10, 13})
      if (!is_busy(r)) {  // a stage without exp may plan it
        fconst_reg_[size_t(held[next])] = int8_t(r);
        vmovups(V(r), fc(held[next++]));
      }
    return;
  }
  std::vector<int> wanted;
  if (exp) {
    wanted = {kFExpMagic, kFExpLog2eN, kFLn2NHi, kFLn2NLo, kFExpTable, kFExpU, kFExpU + 1, kFExpFastMax};
  }
  if (bf16) wanted.insert(wanted.end(), {kFBf16Bias, kFBf16Quiet, kFHigh16});
  size_t next = 0;
  for (int r = 31; r >= 16 && next < wanted.size(); --r) {
    if (is_busy(r)) continue;
    fconst_reg_[size_t(wanted[next])] = int8_t(r);
    vmovups(Zmm(r), fc(wanted[next++]));
  }
}

}  // namespace ptoas::cg::x86::gen
