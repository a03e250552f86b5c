// x86-64 code generation: the plan of a pto.fuse region (which ops and
// tiles x86_fuse.cpp takes, the stages, registers and dead stores) and
// fusable_op, the per-op answer the fuse pass asks for.
#include <algorithm>

#include "tile_layout.h"
#include "x86_fuse.h"

namespace ptoas::cg::x86::gen {

namespace {

bool narrow_float(DType d) { return d == DType::F16 || d == DType::BF16; }

// A tcvt the loop computes: between f32, f16 and bf16 (the interpreter
// rounds float -> float to nearest even whatever the rmode: docs/semantics.md
// §9), without sat_mode, with an rmode the op-by-op tcvt takes (it is the
// region's fallback).
bool fused_cvt(const Module& m, const Inst& in) {
  auto fl = [&](ValueId v) {
    const Type& t = m.type_of(v);
    return t.kind == TypeKind::TileBuf && (t.elem == DType::F32 || narrow_float(t.elem));
  };
  if (in.n_outs != 1 || in.n_ins < 1 || !fl(m.operand(in, 0)) || !fl(m.operand(in, in.n_ins))) return false;
  std::string_view sat = m.attr_word(in, "sat_mode");
  if (sat.empty()) sat = m.attr_word(in, "satMode");
  if (!sat.empty() && sat != "OFF" && sat != "off") return false;
  std::string_view rm = m.attr_word(in, "rmode");
  for (std::string_view w : {"", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "NONE"})
    if (rm == w || (!w.empty() && rm.substr(0, 5) == "CAST_" && rm.substr(5) == w)) return true;
  return false;
}

}  // namespace

// ---- the plan ------------------------------------------------------------------------

bool Gen::fuse_plan(const Inst& fin, Fuse& f) {
  using Cls = Fuse::Cls;
  const Region& body = m_.region(fin, 0);
  bool ok = true;
  // The allocation each tile of the body names (the same at every op: a
  // body holds no treshape); kNone where it is not known statically.
  std::map<ValueId, InstId> bound;
  for (unsigned i = 0; i < body.inst_count; ++i) {
    const Inst& in = m_.inst(m_.region_inst(body, i));
    for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k) {
      auto [it, fresh] = bound.emplace(op(in, k), binds_.at(m_, in, k));
      if (!fresh && it->second != binds_.at(m_, in, k)) it->second = kNone;
    }
  }
  // f16 / bf16 tiles only where `narrow` (tload, tstore, tcvt).
  auto tile = [&](ValueId v, bool narrow = false) {
    const ptoas::Type& t = ty(v);
    if (t.kind != TypeKind::TileBuf || (t.elem != DType::F32 && !(narrow && narrow_float(t.elem))) || t.slayout != SLayout::NoneBox || t.rows <= 0 ||
        t.cols <= 0 || p_.slots[v].count != 3)
      return ok = false;
    InstId at = bound.count(v) ? bound[v] : kNone;
    if (at == kNone || p_.alloc_offset[at] == kNone) return ok = false;
    f.off[v] = int32_t(p_.alloc_offset[at]);
    return true;
  };
  auto view = [&](ValueId v, ValueId tl) {  // tl: the tile it is copied from or to (same element type)
    const ptoas::Type& t = ty(v);
    if (t.kind == TypeKind::Ptr || t.kind == TypeKind::TileBuf || t.elem != ty(tl).elem || p_.slots[v].count != 5)
      ok = false;
  };
  auto set = [&](ValueId v, Cls c) {
    auto [it, fresh] = f.cls.emplace(v, c);
    if (!fresh && it->second != c) ok = false;
  };
  for (unsigned i = 0; i < body.inst_count && ok; ++i) {
    const Inst& in = m_.inst(m_.region_inst(body, i));
    if ((in.op == Op::Yield && in.n_ins == 0 && i + 1 == body.inst_count)) break;
    if (in.n_regions || in.n_res || in.n_outs != 1 || in.n_ins < 1) return false;
    Fuse::FOp o{FK::Elt, &in, in.op};
    ValueId out = op(in, in.n_ins);
    switch (in.op) {
      case Op::TLoad:
        if (in.n_ins != 1) return false;
        o.k = FK::Load, o.view = op(in, 0), o.dst = out;
        tile(o.dst, true), view(o.view, o.dst), set(o.dst, Cls::Elem);
        break;
      case Op::TStore: {
        std::string_view atomic = m_.attr_word(in, "atomicType");
        std::string_view relu = m_.attr_word(in, "reluPreMode");
        if (in.n_ins != 1 || (!atomic.empty() && atomic != "atomic_none") || (!relu.empty() && relu != "no_relu"))
          return false;
        o.k = FK::Store, o.a = op(in, 0), o.view = out;
        tile(o.a, true), view(o.view, o.a), set(o.a, Cls::Elem);
        break;
      }
      case Op::TCvt:
        if (!fused_cvt(m_, in)) return false;
        o.k = FK::Cvt, o.a = op(in, 0), o.dst = out;
        tile(o.a, true), tile(o.dst, true), set(o.a, Cls::Elem), set(o.dst, Cls::Elem);
        break;
      case Op::TRowSum: case Op::TRowMax: case Op::TRowMin:
        o.k = FK::Red, o.a = op(in, 0), o.dst = out;
        tile(o.a), tile(o.dst), set(o.a, Cls::Elem), set(o.dst, Cls::Col);
        if (ok && geo(o.dst).rs != 4) return false;
        break;
      case Op::TRowExpand: case Op::TRowExpandAdd: case Op::TRowExpandSub: case Op::TRowExpandMul:
      case Op::TRowExpandDiv: case Op::TRowExpandMax: case Op::TRowExpandMin:
      case Op::TColExpand: case Op::TColExpandAdd: case Op::TColExpandSub: case Op::TColExpandMul:
      case Op::TColExpandDiv: case Op::TColExpandMax: case Op::TColExpandMin: {
        bool plain = in.op == Op::TRowExpand || in.op == Op::TColExpand;
        bool row = op_name(in.op).substr(0, 8) == "pto.trow";
        o.k = row ? FK::RowExp : FK::ColExp, o.a = op(in, 0), o.dst = out;
        if (!plain) {
          if (in.n_ins < 2) return false;
          o.b = op(in, 1);
        }
        tile(o.dst), set(o.dst, Cls::Elem);
        if (!row) {  // col_expand's rule: a one-row operand is read at row 0
          for (ValueId s : {o.a, o.b})
            if (s != kNone && tile(s)) set(s, plain || ty(s).rows == 1 ? Cls::Row : Cls::Elem);
          break;
        }
        if (!tile(o.a) || (!plain && !tile(o.b))) return false;
        // row_expand's rule: the second operand is the column when it can be.
        int colk = plain ? 0 : ty(o.b).cols == 1 || ty(o.b).vcol == 1 ? 1 : ty(o.a).cols == 1 || ty(o.a).vcol == 1 ? 0 : -1;
        if (colk < 0) return false;
        set(colk ? o.b : o.a, Cls::Col);
        if (!plain) set(colk ? o.a : o.b, Cls::Elem);
        break;
      }
      default: {  // elementwise, tile-scalar, unary (elementwise()'s operand rules)
        const OpInfo& info = op_info(in.op);
        if (!fused_elt_op(in.op)) return false;
        size_t want = info.sem == Sem::EltBin ? 2 : 1, got = 0;
        o.dst = out;
        tile(o.dst);
        for (unsigned k = 0; k < in.n_ins; ++k) {
          ValueId v = op(in, k);
          if (ty(v).kind == TypeKind::TileBuf) {
            if (got == want) continue;  // a trailing tmp tile is not read
            tile(v);
            (got++ ? o.b : o.a) = v;
          } else {
            if (o.scal != kNone || ty(v).kind != TypeKind::Scalar || ty(v).elem != DType::F32) return false;
            o.scal = v;
            o.scalar_first = k == 0;
          }
        }
        if (got != want || (info.sem == Sem::EltScalar) != (o.scal != kNone)) return false;
        break;
      }
    }
    if (!ok) return false;
    f.ops.push_back(o);
  }
  if (!ok || f.ops.empty()) return false;
  // Elementwise ops touching a one-column tile are one-column ops; the
  // rest work on element tiles.
  for (bool changed = true; changed;) {
    changed = false;
    for (Fuse::FOp& o : f.ops) {
      if (o.k != FK::Elt) continue;
      bool col = false;
      for (ValueId t : {o.dst, o.a, o.b})
        if (t != kNone && f.cls.count(t) && f.cls[t] == Cls::Col) col = true;
      if (!col) continue;
      o.k = FK::ColOp;
      changed = true;
      for (ValueId t : {o.dst, o.a, o.b})
        if (t != kNone) set(t, Cls::Col);
    }
  }
  for (Fuse::FOp& o : f.ops)
    if (o.k == FK::Elt)
      for (ValueId t : {o.dst, o.a, o.b})
        if (t != kNone) set(t, Cls::Elem);
  if (!ok) return false;
  // Layouts, disjoint storage, a first element tile.
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (auto [t, c] : f.cls) {
    if (c != Cls::Col && geo(t).dn) return false;
    if (c == Cls::Elem && f.e0 == kNone) f.e0 = t;
    spans.push_back({f.off[t], f.off[t] + int64_t(tile_storage_bytes(ty(t)))});
  }
  if (f.e0 == kNone) return false;
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second) return false;
  // A tload's tile: its first access is that tload (its pad fill moves to
  // the start of the region).
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Fuse::FOp& o = f.ops[i];
    if (o.k == FK::Load) {
      if (std::find(f.lviews.begin(), f.lviews.end(), o.view) == f.lviews.end()) f.lviews.push_back(o.view);
      if (std::find(f.pads.begin(), f.pads.end(), o.dst) != f.pads.end()) continue;
      for (size_t j = 0; j < i; ++j)
        if (f.touches(f.ops[j], o.dst)) return false;
      f.pads.push_back(o.dst);
    } else if (o.k == FK::Store) {
      if (std::find(f.sviews.begin(), f.sviews.end(), o.view) == f.sviews.end()) f.sviews.push_back(o.view);
    }
  }
  // Streams.
  for (auto [t, c] : f.cls) {
    if (c == Cls::Row) continue;
    int64_t rs = geo(t).rs;
    auto it = std::find(f.sstride.begin(), f.sstride.end(), rs);
    size_t s = size_t(it - f.sstride.begin());
    if (it == f.sstride.end()) {
      f.sstride.push_back(rs);
      f.sview.push_back(kNone);
    }
    f.stream[t] = s;
  }
  for (const std::vector<ValueId>* vs : {&f.lviews, &f.sviews})
    for (ValueId v : *vs) {
      if (f.stream.count(v)) continue;
      f.stream[v] = f.sstride.size();
      f.sstride.push_back(0);
      f.sview.push_back(v);
    }
  if (f.sstride.size() > kStreams) return false;
  fuse_private(fin, f);
  // f16 lanes come from vcvtph2ps, which quiets a signalling NaN, while
  // tload and tstore copy bits: an f16 tile a tload writes must be private
  // (then only tcvts, which quiet anyway, see it), and a stored f16 tile
  // must have been written last by a tcvt of the region (quiet lanes).
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Fuse::FOp& o = f.ops[i];
    if (o.k == FK::Load && ty(o.dst).elem == DType::F16 && !f.is_priv(o.dst)) return false;
    if (o.k == FK::Store && ty(o.a).elem == DType::F16) {
      size_t j = i;
      while (j > 0 && !f.writes(f.ops[j - 1], o.a)) --j;
      if (j == 0 || f.ops[j - 1].k != FK::Cvt) return false;
    }
  }
  // Stages.
  f.stages.emplace_back();
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Fuse::FOp& o = f.ops[i];
    if (o.k == FK::ColOp) {
      if (!f.stages.back().elt.empty()) f.stages.emplace_back();
      f.stages.back().col.push_back(i);
      continue;
    }
    f.stages.back().elt.push_back(i);
    if (o.k != FK::Red) continue;
    bool cut = false;
    for (size_t j = i + 1; j < f.ops.size(); ++j)
      cut |= f.touches(f.ops[j], o.dst) || f.writes(f.ops[j], o.a);
    if (cut && i + 1 < f.ops.size()) f.stages.emplace_back();
  }
  fuse_skew(f);
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
  f.skew = false;
  f.lag.assign(f.sstride.size(), false);
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

// Rows are independent: every op of the region reads and writes its own row
// of each element and one-column tile and view (one-row tiles and scalars
// are only read), and fuse_guard lets a stored view overlap another only
// on the same rows. So the last stage of row r - 1 may run inside the
// column loop of the stage before it on row r. Taken when that last stage
// has no row reduction (its registers must not live across its chunks)
// and no view that an earlier stage uses too (a view's row stride is known
// only at run time, so it cannot be reached one row back; a view of the
// last stage alone lags a row instead).
void Gen::fuse_skew(Fuse& f) {
  f.skew = false;
  f.lag.assign(f.sstride.size(), false);
  if (f.stages.size() < 2) return;
  const Fuse::Stage& last = f.stages.back();
  if (last.elt.empty() || f.stages[f.stages.size() - 2].elt.empty()) return;
  std::vector<bool> in_last(f.ops.size(), false);
  for (size_t i : last.col) in_last[i] = true;
  for (size_t i : last.elt) {
    const Fuse::FOp& o = f.ops[i];
    if (o.k == FK::Red) return;
    in_last[i] = true;
  }
  std::vector<uint8_t> use(f.sstride.size(), 0);  // 1: the last stage, 2: an earlier one
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Fuse::FOp& o = f.ops[i];
    for (ValueId t : {o.dst, o.a, o.b, o.view}) {
      auto s = t == kNone ? f.stream.end() : f.stream.find(t);
      if (s != f.stream.end()) use[s->second] |= in_last[i] ? 1 : 2;
    }
  }
  for (size_t s = 0; s < use.size(); ++s) {
    if (use[s] == 3 && f.sview[s] != kNone) return;
    f.lag[s] = use[s] == 1;
  }
  f.skew = true;
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

void Gen::fuse_private(const Inst& fin, Fuse& f) {
  InstId fid = InstId(&fin - m_.insts.data());
  const Region& fbody = m_.region(fin, 0);
  const Region& top = m_.region(m_.inst(fn_), 0);
  // The block holding the fuse op, and every instruction outside the body.
  const Region* home = nullptr;
  std::vector<InstId> inside;
  walk_region(m_, fbody, [&](InstId id, const Inst&) { inside.push_back(id); });
  std::sort(inside.begin(), inside.end());
  bool addr = false;
  std::vector<uint32_t> used;  // alias classes of the tiles used outside the body
  auto scan = [&](const Region& r, auto&& self) -> void {
    for (unsigned i = 0; i < r.inst_count; ++i) {
      InstId id = m_.region_inst(r, i);
      const Inst& in = m_.inst(id);
      if (id == fid) home = &r;
      if (in.op == Op::AllocTile && (in.flags & kInstHasAddr)) addr = true;
      if (std::binary_search(inside.begin(), inside.end(), id)) continue;
      for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k) used.push_back(alias_.cls(op(in, k)));
      for (unsigned k = 0; k < in.n_regions; ++k) self(m_.region(in, k), self);
    }
  };
  scan(top, scan);
  if (addr || !home) return;
  for (auto [t, c] : f.cls) {
    if (c != Fuse::Elem || alias_.cls(t) == kNone || std::find(used.begin(), used.end(), alias_.cls(t)) != used.end())
      continue;
    InstId def = m_.values[t].def;
    bool here = false;
    for (unsigned i = 0; i < home->inst_count; ++i) here |= m_.region_inst(*home, i) == def;
    if (!here) continue;
    for (const Fuse::FOp& o : f.ops) {
      if (!f.touches(o, t)) continue;
      if (f.writes(o, t) && !f.reads(o, t)) f.priv.push_back(t);
      break;
    }
  }
}

}  // namespace ptoas::cg::x86::gen

namespace ptoas::cg::x86 {

// Per op, what fuse_plan requires of it; the region-wide conditions (one
// valid region, tile classes, disjoint storage) are checked there only.
bool fusable_op(const Module& m, const Inst& in) {
  if (in.n_regions || in.n_res || in.n_outs != 1 || in.n_ins < 1) return false;
  // f16 / bf16 operands: tload / tstore (view and tile of one type) and tcvt.
  bool narrow = false;
  switch (in.op) {
    case Op::TLoad: case Op::TStore:
      if (in.n_ins != 1 || in.n_attrs || m.type_of(m.operand(in, 0)).elem != m.type_of(m.operand(in, 1)).elem)
        return false;
      narrow = true;
      break;
    case Op::TCvt:
      if (!gen::fused_cvt(m, in)) return false;
      narrow = true;
      break;
    case Op::TRowSum: case Op::TRowMax: case Op::TRowMin:
    case Op::TRowExpand: case Op::TRowExpandAdd: case Op::TRowExpandSub: case Op::TRowExpandMul:
    case Op::TRowExpandDiv: case Op::TRowExpandMax: case Op::TRowExpandMin:
    case Op::TColExpand: case Op::TColExpandAdd: case Op::TColExpandSub: case Op::TColExpandMul:
    case Op::TColExpandDiv: case Op::TColExpandMax: case Op::TColExpandMin:
      break;
    default:
      if (!gen::fused_elt_op(in.op)) return false;
  }
  for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) {
    const Type& t = m.type_of(m.operand(in, i));
    if (t.elem != DType::F32 && !(narrow && gen::narrow_float(t.elem))) return false;
    if (t.kind == TypeKind::TileBuf && t.slayout != SLayout::NoneBox) return false;
  }
  return true;
}

}  // namespace ptoas::cg::x86
