// The target-neutral plan of a pto.fuse region (fuse_plan.h): which ops
// and tiles a fused loop nest takes, their classes, the stages, private
// tiles, streams and the skew decision.
#include "fuse_plan.h"

#include <algorithm>

#include "tile_geometry.h"
#include "tile_layout.h"

namespace ptoas::cg {

namespace {

void fuse_private(const FuseCtx& cx, const Inst& fin, FusePlan& f);

}  // namespace

bool fused_elt_op(Op o) {
  switch (o) {
    case Op::TAdd: case Op::TSub: case Op::TMul: case Op::TDiv: case Op::TMax: case Op::TMin:
    case Op::TAddS: case Op::TSubS: case Op::TMulS: case Op::TDivS: case Op::TMaxS: case Op::TMinS:
    case Op::TNeg: case Op::TAbs: case Op::TRelu: case Op::TSqrt: case Op::TRecip: case Op::TExp:
    case Op::TLog: case Op::TRsqrt:
      return true;
    default:
      return false;
  }
}

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

bool fuse_op_ok(const Module& m, const Inst& in) {
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
      if (!fused_cvt(m, in)) return false;
      narrow = true;
      break;
    case Op::TRowSum: case Op::TRowMax: case Op::TRowMin:
    case Op::TRowExpand: case Op::TRowExpandAdd: case Op::TRowExpandSub: case Op::TRowExpandMul:
    case Op::TRowExpandDiv: case Op::TRowExpandMax: case Op::TRowExpandMin:
    case Op::TColExpand: case Op::TColExpandAdd: case Op::TColExpandSub: case Op::TColExpandMul:
    case Op::TColExpandDiv: case Op::TColExpandMax: case Op::TColExpandMin:
      break;
    default:
      if (!fused_elt_op(in.op)) return false;
  }
  for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) {
    const Type& t = m.type_of(m.operand(in, i));
    if (t.elem != DType::F32 && !(narrow && narrow_float(t.elem))) return false;
    if (t.kind == TypeKind::TileBuf && t.slayout != SLayout::NoneBox) return false;
  }
  return true;
}

// ---- the plan ------------------------------------------------------------------------

bool plan_fuse(const FuseCtx& cx, const Inst& fin, size_t max_streams, FusePlan& f) {
  using Cls = FusePlan::Cls;
  const Module& m = cx.m;
  auto ty = [&](ValueId v) -> const Type& { return m.type_of(v); };
  auto op = [&](const Inst& in, unsigned k) { return m.operand(in, k); };
  auto geo = [&](ValueId v) { return tile_geo(m.type_of(v)); };
  const Region& body = m.region(fin, 0);
  bool ok = true;
  // The allocation each tile of the body names (the same at every op: a
  // body holds no treshape); kNone where it is not known statically.
  std::map<ValueId, InstId> bound;
  for (unsigned i = 0; i < body.inst_count; ++i) {
    const Inst& in = m.inst(m.region_inst(body, i));
    for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k) {
      auto [it, fresh] = bound.emplace(op(in, k), cx.binds.at(m, in, k));
      if (!fresh && it->second != cx.binds.at(m, in, k)) it->second = kNone;
    }
  }
  // f16 / bf16 tiles only where `narrow` (tload, tstore, tcvt).
  auto tile = [&](ValueId v, bool narrow = false) {
    const Type& t = ty(v);
    if (t.kind != TypeKind::TileBuf || (t.elem != DType::F32 && !(narrow && narrow_float(t.elem))) || t.slayout != SLayout::NoneBox || t.rows <= 0 ||
        t.cols <= 0 || cx.p.slots[v].count != 3)
      return ok = false;
    InstId at = bound.count(v) ? bound[v] : kNone;
    if (at == kNone || cx.p.alloc_offset[at] == kNone) return ok = false;
    f.off[v] = int32_t(cx.p.alloc_offset[at]);
    return true;
  };
  auto view = [&](ValueId v, ValueId tl) {  // tl: the tile it is copied from or to (same element type)
    const Type& t = ty(v);
    if (t.kind == TypeKind::Ptr || t.kind == TypeKind::TileBuf || t.elem != ty(tl).elem || cx.p.slots[v].count != 5)
      ok = false;
  };
  auto set = [&](ValueId v, Cls c) {
    auto [it, fresh] = f.cls.emplace(v, c);
    if (!fresh && it->second != c) ok = false;
  };
  for (unsigned i = 0; i < body.inst_count && ok; ++i) {
    const Inst& in = m.inst(m.region_inst(body, i));
    if ((in.op == Op::Yield && in.n_ins == 0 && i + 1 == body.inst_count)) break;
    if (in.n_regions || in.n_res || in.n_outs != 1 || in.n_ins < 1) return false;
    FusePlan::FOp o{FK::Elt, &in, in.op};
    ValueId out = op(in, in.n_ins);
    switch (in.op) {
      case Op::TLoad:
        if (in.n_ins != 1) return false;
        o.k = FK::Load, o.view = op(in, 0), o.dst = out;
        tile(o.dst, true), view(o.view, o.dst), set(o.dst, Cls::Elem);
        break;
      case Op::TStore: {
        std::string_view atomic = m.attr_word(in, "atomicType");
        std::string_view relu = m.attr_word(in, "reluPreMode");
        if (in.n_ins != 1 || (!atomic.empty() && atomic != "atomic_none") || (!relu.empty() && relu != "no_relu"))
          return false;
        o.k = FK::Store, o.a = op(in, 0), o.view = out;
        tile(o.a, true), view(o.view, o.a), set(o.a, Cls::Elem);
        break;
      }
      case Op::TCvt:
        if (!fused_cvt(m, in)) return false;
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
    for (FusePlan::FOp& o : f.ops) {
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
  for (FusePlan::FOp& o : f.ops)
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
    const FusePlan::FOp& o = f.ops[i];
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
  if (f.sstride.size() > max_streams) return false;
  f.base_streams = f.sstride.size();
  f.max_streams = max_streams;
  fuse_private(cx, fin, f);
  // f16 lanes come from vcvtph2ps, which quiets a signalling NaN, while
  // tload and tstore copy bits: an f16 tile a tload writes must be private
  // (then only tcvts, which quiet anyway, see it), and a stored f16 tile
  // must have been written last by a tcvt of the region (quiet lanes).
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const FusePlan::FOp& o = f.ops[i];
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
    const FusePlan::FOp& o = f.ops[i];
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
  f.unskew();
  for (size_t k = f.stages.size() - 1; k > 0 && !f.set_skew(k); --k) {
  }
  return true;
}

// Rows are independent: every op of the region reads and writes its own row
// of each element and one-column tile and view (one-row tiles and scalars
// are only read), and fuse_guard lets a stored view overlap another only
// on the same rows. So stage s of row r - stage_lag(s) may run inside the
// column loop of the lead stage on row r (its one-column ops two rows
// later than the stage before it finished that row, its column work a row
// later still): what it reads of its row, the stages before it wrote in earlier
// iterations. Taken when each of those stages has column ops. A view's
// row stride is known only at run time, so a lagging stage cannot reach
// its row from another stage's pointer: a view gets a stream per lag its
// stages run at (the stages up to the lead run at lag 0), within the
// target's registers.
bool FusePlan::set_skew(size_t k) {
  unskew();
  if (k == 0) return true;
  if (k + 1 > stages.size()) return false;
  const size_t first = stages.size() - 1 - k;
  std::vector<int> of(ops.size(), -1);  // the stage of each op
  for (size_t s = 0; s < stages.size(); ++s) {
    if (s >= first && stages[s].elt.empty()) return false;
    for (size_t i : stages[s].col) of[i] = int(s);
    for (size_t i : stages[s].elt) of[i] = int(s);
  }
  skew = k;
  // Per view stream: the lags of the stages using it, in op order.
  std::vector<std::vector<int>> lags(sstride.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const FOp& o = ops[i];
    for (ValueId t : {o.dst, o.a, o.b, o.view}) {
      auto st = t == kNone ? stream.end() : stream.find(t);
      if (st == stream.end() || sview[st->second] == kNone) continue;
      std::vector<int>& l = lags[st->second];
      int at = stage_lag(size_t(std::max(of[i], int(first))));
      if (std::find(l.begin(), l.end(), at) == l.end()) l.push_back(at);
    }
  }
  for (size_t s = 0; s < lags.size(); ++s) {
    if (lags[s].empty()) continue;
    lag[s] = lags[s][0];
    for (size_t j = 1; j < lags[s].size(); ++j)
      if (!add_view_stream(sview[s], lags[s][j])) {
        unskew();
        return false;
      }
  }
  return true;
}

bool FusePlan::add_view_stream(ValueId v, int at_lag) {
  if (lag[view_stream(v, at_lag)] == at_lag) return true;
  if (sstride.size() >= max_streams) return false;
  sstride.push_back(0);
  sview.push_back(v);
  lag.push_back(at_lag);
  return true;
}

bool FusePlan::remat_chain(ValueId t, size_t at, std::vector<size_t>& chain) const {
  chain.clear();
  at = std::min(at, ops.size());
  ValueId cur = t;
  for (size_t pos = at;;) {
    while (pos > 0 && !writes(ops[pos - 1], cur)) --pos;
    if (pos == 0 || chain.size() == 4) return false;
    const size_t w = --pos;
    const FOp& o = ops[w];
    switch (o.k) {
      case FK::Load: case FK::Cvt: break;
      case FK::Elt: case FK::RowExp: case FK::ColExp: {
        Bin bk = Bin::Add;
        bool plain = o.op == Op::TRowExpand || o.op == Op::TColExpand;
        bool cheap = o.op == Op::TNeg || o.op == Op::TAbs || o.op == Op::TRelu ||
                     (bin_of(o.op, bk) && (bk == Bin::Add || bk == Bin::Sub || bk == Bin::Mul || bk == Bin::Max ||
                                           bk == Bin::Min));
        if (!plain && !cheap) return false;
        break;
      }
      default: return false;
    }
    chain.push_back(w);
    // What the op reads besides the element tile before it in the chain is
    // read again at `at`: unchanged in between.
    if (o.k == FK::Load) {
      for (size_t m = w + 1; m < at; ++m)
        if (ops[m].k == FK::Store) return false;
      break;
    }
    ValueId next = kNone;
    for (ValueId u : {o.a, o.b}) {
      if (u == kNone || u == next) continue;
      if (cls.at(u) == Elem) {
        if (next != kNone) return false;
        next = u;
        continue;
      }
      for (size_t m = w + 1; m < at; ++m)
        if (writes(ops[m], u)) return false;
    }
    if (next == kNone) break;
    cur = next;
  }
  std::reverse(chain.begin(), chain.end());
  return true;
}

namespace {

void fuse_private(const FuseCtx& cx, const Inst& fin, FusePlan& f) {
  const Module& m = cx.m;
  InstId fid = InstId(&fin - m.insts.data());
  const Region& fbody = m.region(fin, 0);
  const Region& top = m.region(m.inst(cx.fn), 0);
  // The block holding the fuse op, and every instruction outside the body.
  const Region* home = nullptr;
  std::vector<InstId> inside;
  walk_region(m, fbody, [&](InstId id, const Inst&) { inside.push_back(id); });
  std::sort(inside.begin(), inside.end());
  bool addr = false;
  std::vector<uint32_t> used;  // alias classes of the tiles used outside the body
  auto scan = [&](const Region& r, auto&& self) -> void {
    for (unsigned i = 0; i < r.inst_count; ++i) {
      InstId id = m.region_inst(r, i);
      const Inst& in = m.inst(id);
      if (id == fid) home = &r;
      if (in.op == Op::AllocTile && (in.flags & kInstHasAddr)) addr = true;
      if (std::binary_search(inside.begin(), inside.end(), id)) continue;
      for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k) used.push_back(cx.alias.cls(m.operand(in, k)));
      for (unsigned k = 0; k < in.n_regions; ++k) self(m.region(in, k), self);
    }
  };
  scan(top, scan);
  if (addr || !home) return;
  for (auto [t, c] : f.cls) {
    if (c != FusePlan::Elem || cx.alias.cls(t) == kNone || std::find(used.begin(), used.end(), cx.alias.cls(t)) != used.end())
      continue;
    InstId def = m.values[t].def;
    bool here = false;
    for (unsigned i = 0; i < home->inst_count; ++i) here |= m.region_inst(*home, i) == def;
    if (!here) continue;
    for (const FusePlan::FOp& o : f.ops) {
      if (!f.touches(o, t)) continue;
      if (f.writes(o, t) && !f.reads(o, t)) f.priv.push_back(t);
      break;
    }
  }
}

}  // namespace

}  // namespace ptoas::cg
