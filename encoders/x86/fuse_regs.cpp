// x86-64 code generation: the registers and dead stores of a pto.fuse
// region's plan (the plan itself is target-neutral: encoders/fuse_plan.*)
// and fusable_op, the per-op answer the fuse pass asks for.
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
  if (regs()) return scratch_ok();
  if (!f.skew) return false;
  // The merged stages' registers did not fit (the last stage's math
  // scratch left the other's reductions too few): not skewed, then.
  f.unskew();
  return regs() && scratch_ok();
}

// Registers free for the sequential recomputation of the row reduction at
// st.elt[n] of stage si (fuse_finish): its own accumulators and flag and
// those of the reductions finished before it are free by then, V1 too;
// the later reductions' are not.
std::vector<int> Gen::fuse_seq_scratch(const Fuse& f, size_t si, size_t n) {
  const Fuse::Stage& st = f.stages[si];
  std::vector<int> busy;
  for (size_t m = n + 1; m < st.elt.size(); ++m) {
    const Fuse::FOp& o = f.ops[st.elt[m]];
    if (o.k == FK::Red) busy.insert(busy.end(), {o.acc, o.flag, o.acc2});
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
  // From scratch (the plan may be made again unskewed).
  st.reg.clear();
  for (size_t i : st.elt) f.ops[i].acc = f.ops[i].acc2 = f.ops[i].flag = -1, f.ops[i].store = true;
  // Skewed, the last two stages share one column loop: the one before the
  // last keeps clear of the registers the last one's helpers clobber, and
  // the last one of the other's accumulators and flags (the only registers
  // live from chunk to chunk).
  const size_t n_st = f.stages.size();
  const bool merged = f.skew && si + 2 >= n_st;
  bool math = false, narrow = false;
  for (size_t s = merged ? n_st - 2 : si; s <= (merged ? n_st - 1 : si); ++s)
    for (size_t i : f.stages[s].elt) {
      const Fuse::FOp& o = f.ops[i];
      math |= is_math(o.op);
      for (ValueId t : {o.dst, o.a, o.view})
        narrow |= t != kNone && o.k != FK::Red && narrow_float(ty(t).elem);
    }
  std::vector<int> busy;
  if (merged && si + 1 == n_st)
    for (size_t i : f.stages[n_st - 2].elt)
      for (int r : {f.ops[i].acc, f.ops[i].acc2, f.ops[i].flag})
        if (r >= 0) busy.push_back(r);
  std::vector<int> pool;
  for (int r = z() ? 31 : 14; r >= 2; --r) {
    if (r >= 3 && r <= 6) continue;
    if (math && r >= 8 && r <= 13) continue;
    if (narrow && r >= 12 && r <= 14) continue;
    if (r == 15) continue;
    if (std::find(busy.begin(), busy.end(), r) != busy.end()) continue;
    pool.push_back(r);
  }
  auto take = [&](int& r) {
    if (pool.empty()) return false;
    r = pool.back();
    pool.pop_back();
    return true;
  };
  for (size_t i : st.elt) {
    Fuse::FOp& o = f.ops[i];
    if (o.k != FK::Red) continue;
    if (!take(o.acc) || (o.op != Op::TRowSum && !take(o.flag))) return false;
  }
  std::vector<int> before = pool;
  st.unroll = true;
  for (size_t i : st.elt)
    if (f.ops[i].k == FK::Red) st.unroll &= take(f.ops[i].acc2);
  if (!st.unroll) {
    pool = before;
    for (size_t i : st.elt) f.ops[i].acc2 = -1;
  }
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
    bool needed = !f.is_priv(o.dst);
    for (size_t m = 0; m < st.elt.size(); ++m)
      needed |= f.ops[st.elt[m]].k == FK::Red && f.ops[st.elt[m]].a == o.dst;
    for (size_t m = st.elt.back() + 1; m < f.ops.size(); ++m) {
      if (!f.touches(f.ops[m], o.dst)) continue;
      needed |= f.reads(f.ops[m], o.dst);
      break;
    }
    o.store = !((later || !needed) && st.reg.count(o.dst));
  }
  return true;
}

}  // namespace ptoas::cg::x86::gen

namespace ptoas::cg::x86 {

// Per op, what fuse_plan requires of it (fuse_plan.h).
bool fusable_op(const Module& m, const Inst& in) { return fuse_op_ok(m, in); }

}  // namespace ptoas::cg::x86
