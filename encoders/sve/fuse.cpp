// AArch64 SVE: pto.fuse regions (opt/fuse.cpp) lowered as one loop nest
// per row with the shared plan (encoders/fuse_plan.h, the one x86 uses).
// A region this file does not take is lowered op by op, which is always
// correct: the body's meaning is sequential.
//
// Rows outer; each row runs the stages of the body in order, each stage one
// predicated pass over the row's columns (whilelo, as the op-by-op loops).
// Within a chunk every op's result is left in z0 for the op after it and
// stored to its tile's row unless nothing reads it from memory (a private
// tile overwritten later in the stage, or read only by the next op). Every
// op rounds exactly as its op-by-op lowering (the same lane helpers:
// unary_lanes, math, round_lane, bin for max / min), so results are the
// interpreter's bit for bit; add / sub / mul / div take the interpreter's
// NaN by quieting their right operand first (arith), where it may be a
// signalling NaN. Row reductions keep the interpreter's order:
//   * trowsum: `fadda`, the strictly ordered sum, of the chunk's elements
//     quieted first (x + -0, unless computed in the region, so quiet):
//     with both operands quiet AArch64 returns the accumulator's NaN, so
//     the first NaN met wins as in the interpreter;
//   * trowmax / trowmin: per lane the first strictly greater (smaller)
//     element or first NaN of its columns and the column it came from;
//     at the end of the row the lanes holding a NaN, else the extreme
//     value (compared equal: -0 and +0 alike), and of those the one of
//     the lowest column: the interpreter's first extreme element.
// Not skewed (the x86 plan's skew hides division latency; here it would
// only cost registers).
//
// Registers: one row pointer (x0-x7, x12-x15, x20-x27) per tile and view
// (SVE's loads take no displacement, so each tile of a stream gets its own
// pointer at its offset); x9 rows left, x10 the valid columns, x11 the
// column; z0 / z1 operands, z2 / z3 scratch; the reductions' registers
// from z28, z31, z29-z30 (no narrow types in the stage) and z4-z7,
// z16-z23 (no exp / log / rsqrt in the stage: sve/math.cpp uses them).
#include <algorithm>

#include "fuse_plan.h"
#include "sve.h"
#include "gen.h"

namespace ptoas::cg::sve {

namespace gen {

namespace {
const int kPtr[] = {0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 24, 25, 26, 27};
constexpr size_t kPtrs = sizeof(kPtr) / sizeof(kPtr[0]);
}  // namespace

struct Gen::Fuse {
  Fuse(Gen& gen, FusePlan& plan) : g(gen), f(plan) {}
  Gen& g;
  FusePlan& f;
  std::map<ValueId, int> ptr;  // tile or view -> x register of its row
  std::vector<ValueId> views;  // tload sources and tstore destinations, once each
  bool math = false;
  ValueId in_v0 = kNone;       // the tile whose chunk z0 holds
  // Per stage: the one-column tiles and scalars its column loop reads,
  // broadcast into a register once per row where one is free; `quieted`:
  // that register holds no signalling NaN (a scalar, or a one-column tile
  // no plain expand of the stage copies).
  struct Inv {
    int reg;
    bool quieted;
  };
  std::vector<std::map<ValueId, Inv>> inv;
  size_t cur = 0;  // the stage being emitted

  R px(ValueId t) const { return g.X(ptr.at(t)); }
  DType el(ValueId v) const { return g.ty(v).elem; }
  bool stored(ValueId v) const { return std::find(f.sviews.begin(), f.sviews.end(), v) != f.sviews.end(); }

  bool assign();
  void guard(int slow);
  void rows();
  void col_op(size_t i);
  void chunk(size_t si);
  void finish(size_t si);
  R get(ValueId t, int w);
  R scalar(ValueId s, int w);
  void to_z0(R r) {
    if (r.id != g.Z(0).id) g.I("ORR_ZZZ", {g.Z(0), r, r});
  }
  bool quiet(ValueId t, size_t at) const;
  bool quiet_b(const FusePlan::FOp& o, size_t at) const;
  void arith(Bin bk, bool b_quiet, R pg, R b);
  void put(const FusePlan::FOp& o);
  void ld(DType d, R z, R base) { g.ld_e(d, z, g.P(0), base, g.X(11)); }
  void st(DType d, R z, R base);
};

// Pointers, the reductions' registers and the dead stores; false: too few.
bool Gen::Fuse::assign() {
  for (ValueId v : f.lviews) views.push_back(v);
  for (ValueId v : f.sviews)
    if (std::find(views.begin(), views.end(), v) == views.end()) views.push_back(v);
  if (f.cls.size() + views.size() > kPtrs) return false;
  size_t k = 0;
  for (auto [t, c] : f.cls) ptr[t] = kPtr[k++];
  for (ValueId v : views) ptr[v] = kPtr[k++];
  for (const FusePlan::FOp& o : f.ops) math |= is_math(o.op);
  // How often op q fetches t, and whether its first fetch finds t in z0.
  auto fetches = [&](const FusePlan::FOp& q, ValueId t) {
    if (q.k == FK::Load || q.k == FK::ColOp) return 0;
    if (q.a == t && q.b == t) return 1;  // the second operand is the first's register
    return int(q.a == t) + int(q.b == t);
  };
  auto first_in_z0 = [&](const FusePlan::FOp& q, ValueId t) {
    return q.k != FK::Load && q.k != FK::ColOp && q.a == t && !(q.scal != kNone && q.scalar_first);
  };
  for (FusePlan::Stage& st : f.stages) {
    bool narrow = false, stage_math = false;
    for (size_t i : st.elt) {
      const FusePlan::FOp& o = f.ops[i];
      stage_math |= is_math(o.op);
      for (ValueId t : {o.dst, o.a, o.view})
        narrow |= t != kNone && narrow_float(el(t));
    }
    std::vector<int> pool{28, 31};
    if (!narrow) pool.insert(pool.end(), {29, 30});
    if (!stage_math) pool.insert(pool.end(), {4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23});
    size_t next = 0;
    for (size_t n = 0; n < st.elt.size(); ++n) {
      FusePlan::FOp& o = f.ops[st.elt[n]];
      if (o.k == FK::Red) {
        if (next + (o.op == Op::TRowSum ? 1 : 2) > pool.size()) return false;
        o.acc = pool[next++];
        if (o.op != Op::TRowSum) o.flag = pool[next++];
        continue;
      }
      if (o.k == FK::Store) continue;
      int reads = 0;
      bool rewritten = false;
      for (size_t m = n + 1; m < st.elt.size() && !rewritten; ++m) {
        const FusePlan::FOp& q = f.ops[st.elt[m]];
        reads += fetches(q, o.dst);
        rewritten = f.writes(q, o.dst);
      }
      bool in_z0_only = reads == 0 || (reads == 1 && first_in_z0(f.ops[st.elt[n + 1]], o.dst));
      if (!in_z0_only) o.store = true;
      else if (rewritten) o.store = false;
      else o.store = !f.is_priv(o.dst) || f.read_after(st.elt.back(), o.dst);
    }
    // Loop invariants into the registers the reductions left.
    std::map<ValueId, Inv>& iv = inv.emplace_back();
    for (size_t i : st.elt) {
      const FusePlan::FOp& o = f.ops[i];
      for (ValueId t : {o.a, o.b, o.scal}) {
        bool col = t != kNone && f.cls.count(t) && f.cls.at(t) == FusePlan::Col;
        if ((col || (t != kNone && t == o.scal)) && !iv.count(t) && next < pool.size())
          iv[t] = {pool[next++], true};
      }
    }
    for (size_t i : st.elt) {  // a plain expand copies its column's bits
      const FusePlan::FOp& o = f.ops[i];
      if ((o.k == FK::RowExp || o.k == FK::ColExp) && o.b == kNone && iv.count(o.a)) iv[o.a].quieted = false;
    }
  }
  return true;
}

// x9 x x10 = R x C, the valid region of every element tile; one-column
// tiles R x 1; views R x C with unit column stride; one-row tiles at least
// C wide; a stored view's rows at least C apart, and overlapping no other
// view unless it is the same rows (same base and row stride): the x86
// guard's conditions (x86/fuse.cpp). Else: slow.
void Gen::Fuse::guard(int slow) {
  auto cmp = [&](R a, R b) { g.I("SUBSXrs", {g.xzr(), a, b, 0}); };
  auto cmpi = [&](R a, int v) { g.I("SUBSXri", {g.xzr(), a, v, 0}); };
  g.ldx(g.X(9), f.e0, 1);
  g.ldx(g.X(10), f.e0, 2);
  cmpi(g.X(9), 0);
  g.bcc(LE, slow);
  cmpi(g.X(10), 0);
  g.bcc(LE, slow);
  for (auto [t, c] : f.cls) {
    if (c == FusePlan::Row) {
      g.mov_imm(g.X(0), uint64_t(g.ty(t).cols));
      cmp(g.X(10), g.X(0));
      g.bcc(GT, slow);
      continue;
    }
    g.ldx(g.X(0), t, 1);
    cmp(g.X(0), g.X(9));
    g.bcc(NE, slow);
    g.ldx(g.X(0), t, 2);
    if (c == FusePlan::Col) cmpi(g.X(0), 1);
    else cmp(g.X(0), g.X(10));
    g.bcc(NE, slow);
  }
  for (ValueId v : views) {
    g.ldx(g.X(0), v, 1);
    cmp(g.X(0), g.X(9));
    g.bcc(NE, slow);
    g.ldx(g.X(0), v, 2);
    cmp(g.X(0), g.X(10));
    g.bcc(NE, slow);
    g.ldx(g.X(0), v, 4);
    cmpi(g.X(0), 1);
    g.bcc(NE, slow);
    g.ldx(g.X(0), v, 3);
    if (stored(v)) {
      cmp(g.X(10), g.X(0));
      g.bcc(GT, slow);
    } else {
      cmpi(g.X(0), 0);
      g.bcc(LT, slow);
    }
  }
  // x2 = one past the last byte of view v's R x C elements.
  auto end_of = [&](ValueId v) {
    int sh = dtype_bytes(el(v)) == 4 ? 2 : 1;
    g.I("SUBXri", {g.X(2), g.X(9), 1, 0});
    g.ldx(g.X(3), v, 3);
    g.I("MADDXrrr", {g.X(2), g.X(2), g.X(3), g.X(10)});
    g.ldx(g.X(3), v, 0);
    g.I("ADDXrs", {g.X(2), g.X(3), g.X(2), sh});
  };
  for (size_t i = 0; i < views.size(); ++i)
    for (size_t j = i + 1; j < views.size(); ++j) {
      ValueId a = views[i], b = views[j];
      if (!stored(a) && !stored(b)) continue;
      int ok = g.new_label(), apart = g.new_label();
      g.ldx(g.X(0), a, 0);
      g.ldx(g.X(1), b, 0);
      cmp(g.X(0), g.X(1));
      g.bcc(NE, apart);
      g.ldx(g.X(0), a, 3);
      g.ldx(g.X(1), b, 3);
      cmp(g.X(0), g.X(1));
      g.bcc(EQ, ok);
      g.bind(apart);
      end_of(a);
      g.ldx(g.X(1), b, 0);
      cmp(g.X(2), g.X(1));
      g.bcc(LE, ok);
      end_of(b);
      g.ldx(g.X(1), a, 0);
      cmp(g.X(2), g.X(1));
      g.bcc(GT, slow);
      g.bind(ok);
    }
}

// Stores lanes z as d at base + x11 elements. Narrow lanes hold values of
// their type exactly (loaded, or rounded by round_lane): f16 goes through
// an exact fcvt, bf16 is its top half (a signalling NaN keeps its bits, as
// tload / tstore copy them). z29 scratch.
void Gen::Fuse::st(DType d, R z, R base) {
  if (d == DType::BF16) {
    g.I("LSR_ZZI_S", {g.Z(29), z, 16});
    g.st_e(DType::U16, g.Z(29), g.P(0), base, g.X(11));
    return;
  }
  g.st_e(d, z, g.P(0), base, g.X(11));
}

// z<w> = tile t's chunk (z0 when the op before left it there: the first
// fetch of an op only). One-column tiles are broadcast.
R Gen::Fuse::get(ValueId t, int w) {
  ValueId held = in_v0;
  in_v0 = kNone;
  R z = g.Z(w);
  auto c = f.cls.at(t);
  if (c == FusePlan::Col) {
    auto h = inv[cur].find(t);
    if (h != inv[cur].end()) return g.Z(h->second.reg);
    g.bcast_e(DType::F32, z, px(t));
  } else if (!(w == 0 && t == held)) {
    ld(el(t), z, px(t));
  }
  return z;
}

// Scalar s in every lane: its register, or z<w> loaded now.
R Gen::Fuse::scalar(ValueId s, int w) {
  auto h = inv[cur].find(s);
  if (h != inv[cur].end()) return g.Z(h->second.reg);
  g.bcast_slot(DType::F32, g.Z(w), s);
  return g.Z(w);
}

void Gen::Fuse::put(const FusePlan::FOp& o) {
  if (o.store) st(el(o.dst), g.Z(0), px(o.dst));
  in_v0 = o.dst;
}

// Whether tile t holds no signalling NaN where op `at` reads it: its last
// writer before `at` in the region (on this row) computed it (every
// arithmetic result, conversion and reduction of the region is quiet),
// rather than copying bits (tload, plain expands) or leaving it to code
// outside the region.
bool Gen::Fuse::quiet(ValueId t, size_t at) const {
  for (size_t m = at; m-- > 0;) {
    const FusePlan::FOp& q = f.ops[m];
    if (!f.writes(q, t)) continue;
    return q.k != FK::Load && !((q.k == FK::RowExp || q.k == FK::ColExp) && q.b == kNone);
  }
  return false;
}

// Whether the right operand of o (at ops[at]) holds no signalling NaN.
bool Gen::Fuse::quiet_b(const FusePlan::FOp& o, size_t at) const {
  ValueId b = o.scal != kNone ? (o.scalar_first ? o.a : o.scal) : o.b;
  if (b == kNone) return false;
  if (cur < inv.size()) {
    auto h = inv[cur].find(b);
    if (h != inv[cur].end() && h->second.quieted) return true;
  }
  return b != o.scal && quiet(b, at);
}

// z0 = z0 op b in f32 lanes as bin() computes it. Add / sub / mul / div
// with b quieted first (x + -0, where it may be a signalling NaN): then
// AArch64's NaN rule (a signalling operand first, else the first quiet
// one) gives the interpreter's (z0's NaN, quieted, else z1's) with one
// instruction instead of bin()'s select of the left NaN.
void Gen::Fuse::arith(Bin bk, bool b_quiet, R pg, R b) {
  const char* name = bk == Bin::Add ? "FADD_ZZZ_S" : bk == Bin::Sub ? "FSUB_ZZZ_S"
                     : bk == Bin::Mul ? "FMUL_ZZZ_S" : bk == Bin::Div ? "FDIV_ZPmZ_S" : nullptr;
  if (!name) return g.bin(bk, DType::F32, pg, g.Z(0), b);
  if (!b_quiet) {
    g.I("FADD_ZZZ_S", {g.Z(1), b, g.Z(kNegZero)});
    b = g.Z(1);
  }
  if (bk == Bin::Div) g.I(name, {g.Z(0), pg, g.Z(0), b});
  else g.I(name, {g.Z(0), g.Z(0), b});
}

// An op on one-column tiles, once per row: the lanes all hold the row's
// element, s0 is stored.
void Gen::Fuse::col_op(size_t i) {
  const FusePlan::FOp& o = f.ops[i];
  g.mark(*o.in);
  if (o.scal != kNone) {
    int t = o.scalar_first ? 1 : 0;
    g.bcast_e(DType::F32, g.Z(t), px(o.a));
    g.bcast_slot(DType::F32, g.Z(1 - t), o.scal);
  } else {
    g.bcast_e(DType::F32, g.Z(0), px(o.a));
    if (o.b != kNone) g.bcast_e(DType::F32, g.Z(1), px(o.b));
  }
  Bin bk = Bin::Add;
  ValueId b = o.scal != kNone ? (o.scalar_first ? o.a : kNone) : o.b;
  if (bin_of(o.op, bk)) arith(bk, b != kNone && quiet(b, i), g.P(7), g.Z(1));
  else g.unary_lanes(o.op, DType::F32, g.P(7));
  g.I("STRSui", {g.S(0), px(o.dst), 0});
}

void Gen::Fuse::chunk(size_t si) {
  const FusePlan::Stage& stage = f.stages[si];
  R pg = g.P(0);
  in_v0 = kNone;
  for (size_t n = 0; n < stage.elt.size(); ++n) {
    const FusePlan::FOp& o = f.ops[stage.elt[n]];
    g.mark(*o.in);
    Bin bk = Bin::Add;
    switch (o.k) {
      case FK::Load:
        in_v0 = kNone;
        ld(el(o.view), g.Z(0), px(o.view));
        put(o);
        break;
      case FK::Store:
        st(el(o.view), get(o.a, 0), px(o.view));
        break;
      case FK::Cvt:
        // As tcvt: through double the interpreter quiets a signalling NaN;
        // so do fcvt (f16 lanes) and rounding; an f32 or bf16 source into
        // f32 gets + -0.0, which changes nothing else.
        to_z0(get(o.a, 0));
        if (el(o.dst) == DType::F32 && el(o.a) != DType::F16) g.I("FADD_ZZZ_S", {g.Z(0), g.Z(0), g.Z(kNegZero)});
        g.round_lane(el(o.dst), g.Z(0), pg);
        put(o);
        break;
      case FK::Elt: {
        R b = g.Z(1);
        if (o.scal != kNone && o.scalar_first) {
          b = get(o.a, 1);
          to_z0(scalar(o.scal, 0));
        } else {
          to_z0(get(o.a, 0));
          if (o.scal != kNone) b = scalar(o.scal, 1);
          else if (o.b != kNone) b = o.b == o.a ? g.Z(0) : get(o.b, 1);
        }
        if (bin_of(o.op, bk)) arith(bk, quiet_b(o, stage.elt[n]), pg, b);
        else g.unary_lanes(o.op, DType::F32, pg);
        put(o);
        break;
      }
      case FK::RowExp: case FK::ColExp:
        to_z0(get(o.a, 0));
        if (o.b != kNone) {
          R b = o.b == o.a ? g.Z(0) : get(o.b, 1);
          bin_of(o.op, bk);
          arith(bk, quiet_b(o, stage.elt[n]), pg, b);
        }
        put(o);
        break;
      case FK::Red: {
        R x = get(o.a, 0);
        if (o.op == Op::TRowSum) {
          if (!quiet(o.a, stage.elt[n])) {
            g.I("FADD_ZZZ_S", {g.Z(3), x, g.Z(kNegZero)});
            x = g.Z(3);
          }
          g.I("FADDA_VPZ_S", {g.Z(o.acc), pg, g.Z(o.acc), x});
          break;
        }
        // take x where (acc is not NaN) and (x is NaN or x beyond acc)
        R acc = g.Z(o.acc), col = g.Z(o.flag);
        g.I("FCMUO_PPzZZ_S", {g.P(1), pg, acc, acc});
        g.I("FCMUO_PPzZZ_S", {g.P(2), pg, x, x});
        if (o.op == Op::TRowMax) g.I("FCMGT_PPzZZ_S", {g.P(3), pg, x, acc});
        else g.I("FCMGT_PPzZZ_S", {g.P(3), pg, acc, x});
        g.I("ORR_PPzPP", {g.P(2), pg, g.P(2), g.P(3)});
        g.I("BIC_PPzPP", {g.P(2), pg, g.P(2), g.P(1)});
        g.I("SEL_ZPZZ_S", {acc, g.P(2), x, acc});
        g.I("INDEX_RI_S", {g.Z(2), g.W(11), 1});
        g.I("SEL_ZPZZ_S", {col, g.P(2), g.Z(2), col});
        break;
      }
      case FK::ColOp: break;
    }
  }
}

// Stage si's row reductions into their one-column tiles.
void Gen::Fuse::finish(size_t si) {
  for (size_t i : f.stages[si].elt) {
    const FusePlan::FOp& o = f.ops[i];
    if (o.k != FK::Red) continue;
    g.mark(*o.in);
    if (o.op == Op::TRowSum) {
      g.I("STRSui", {g.S(o.acc), px(o.dst), 0});
      continue;
    }
    R acc = g.Z(o.acc), col = g.Z(o.flag), p7 = g.P(7);
    // p1 = the NaN lanes, or (none) the lanes equal to the extreme value
    // (fmaxv / fminv give a NaN where there is one: then no lane is equal).
    g.I("FCMUO_PPzZZ_S", {g.P(1), p7, acc, acc});
    g.I(o.op == Op::TRowMax ? "FMAXV_VPZ_S" : "FMINV_VPZ_S", {g.Z(2), p7, acc});
    g.I("DUP_ZZI_S", {g.Z(2), g.Z(2), 0});
    g.I("FCMEQ_PPzZZ_S", {g.P(2), p7, acc, g.Z(2)});
    g.I("ORR_PPzPP", {g.P(1), p7, g.P(1), g.P(2)});
    // Of those, the lane of the lowest column.
    g.I("DUP_ZI_S", {g.Z(3), -1, 0});
    g.I("SEL_ZPZZ_S", {g.Z(3), g.P(1), col, g.Z(3)});
    g.I("UMINV_VPZ_S", {g.Z(2), p7, g.Z(3)});
    g.I("DUP_ZZI_S", {g.Z(2), g.Z(2), 0});
    g.I("CMPEQ_PPzZZ_S", {g.P(2), g.P(1), col, g.Z(2)});
    g.I("LASTB_VPZ_S", {g.S(0), g.P(2), acc});
    g.I("FADD_ZZZ_S", {g.Z(0), g.Z(0), g.Z(kNegZero)});  // quiet a signalling NaN
    g.I("STRSui", {g.S(0), px(o.dst), 0});
  }
}

void Gen::Fuse::rows() {
  for (auto [t, c] : f.cls) g.add_imm(px(t), g.X(19), f.off.at(t));
  for (ValueId v : views) g.ldx(px(v), v, 0);
  int row = g.new_label();
  g.bind(row);
  for (size_t si = 0; si < f.stages.size(); ++si) {
    const FusePlan::Stage& st = f.stages[si];
    cur = inv.size();  // col_op: no invariants
    for (size_t i : st.col) col_op(i);
    if (st.elt.empty()) continue;
    cur = si;
    for (auto [v, h] : inv[si]) {
      if (f.cls.count(v)) g.bcast_e(DType::F32, g.Z(h.reg), px(v));
      else g.bcast_slot(DType::F32, g.Z(h.reg), v);
      if (h.quieted) g.I("FADD_ZZZ_S", {g.Z(h.reg), g.Z(h.reg), g.Z(kNegZero)});
    }
    for (size_t i : st.elt) {
      const FusePlan::FOp& o = f.ops[i];
      if (o.k != FK::Red) continue;
      if (o.op == Op::TRowSum) {
        g.I("DUP_ZI_S", {g.Z(o.acc), 0, 0});
        continue;
      }
      g.mov_imm(g.X(16), o.op == Op::TRowMax ? 0xff800000u : 0x7f800000u);  // -Inf / +Inf
      g.I("DUP_ZR_S", {g.Z(o.acc), g.W(16)});
      g.I("DUP_ZI_S", {g.Z(o.flag), -1, 0});
    }
    int col = g.new_label();
    g.mov(g.X(11), g.xzr());
    g.I("WHILELO_PXX_S", {g.P(0), g.X(11), g.X(10)});
    g.bind(col);
    chunk(si);
    g.I("INCW_XPiI", {g.X(11), g.X(11), 31, 1});
    g.I("WHILELO_PXX_S", {g.P(0), g.X(11), g.X(10)});
    g.bcc(MI, col);  // b.first: lanes left
    finish(si);
  }
  // To the next row (one-row tiles stay at row 0).
  for (auto [t, c] : f.cls)
    if (c != FusePlan::Row) g.add_imm(px(t), px(t), tile_geo(g.ty(t)).rs);
  for (ValueId v : views) {
    g.ldx(g.X(16), v, 3);
    g.I("ADDXrs", {px(v), px(v), g.X(16), dtype_bytes(el(v)) == 4 ? 2 : 1});
  }
  g.I("SUBSXri", {g.X(9), g.X(9), 1, 0});
  g.bcc(NE, row);
}

bool Gen::fused_region(const Inst& in) {
  if (!alias_) {
    alias_ = std::make_unique<opt::TileAliases>(m_, fn_);
    binds_ = std::make_unique<opt::TileBindings>(m_, fn_);
  }
  FusePlan f;
  if (!plan_fuse({m_, fn_, p_, *alias_, *binds_}, in, kPtrs, f)) return false;
  f.unskew();
  Fuse fu(*this, f);
  if (!fu.assign()) return false;
  mark(in);
  int slow = new_label(), done = new_label();
  fu.guard(slow);
  loop_constants();
  bool padded = false;
  for (ValueId t : f.pads) {  // tload fills the tile with its pad value first
    if (f.is_priv(t)) continue;  // never read outside R x C
    pad_fill(t);
    padded = true;
  }
  if (padded) {  // pad_fill used x10
    ldx(X(9), f.e0, 1);
    ldx(X(10), f.e0, 2);
  }
  if (fu.math) math_begin();
  fu.rows();
  if (fu.math) math_end();
  b(done);
  bind(slow);
  lower_region(m_.region(in, 0));
  bind(done);
  return true;
}

}  // namespace gen

}  // namespace ptoas::cg::sve
