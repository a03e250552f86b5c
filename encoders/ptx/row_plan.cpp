// The analysis of a row program (row.h): which ops it takes, the role of
// each tile (element, one-column, one-row), the tiles private to a fused
// region, and the mapping of rows and columns to warps and lanes.
#include <algorithm>

#include "cpu_frame.h"
#include "ops.h"
#include "row.h"
#include "tile_geometry.h"

namespace ptoas::cg::ptx {

bool RPlan::is_priv(ValueId t) const { return std::find(priv.begin(), priv.end(), t) != priv.end(); }

namespace {

unsigned pow2floor(unsigned x) {
  unsigned p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

bool is_fused_op(Op o) {
  switch (o) {
    case Op::TAddC: case Op::TSubC: case Op::TAddSC: case Op::TSubSC: case Op::TMulAddDst:
    case Op::TFusedMulAdd: case Op::TFusedMulAddRelu: case Op::TSubRelu: case Op::TLRelu:
    case Op::TPrelu: case Op::TAxpy:
      return true;
    default:
      return false;
  }
}

// The first use of each tile in a region's body writes it without reading
// it, no instruction outside the body names a tile that may share its
// storage, and its allocation is in the block that holds the region: then
// nothing outside sees the tile, and it lives in registers only.
void find_private(const Gen& g, const opt::TileAliases& alias, const Inst& region, RPlan& p) {
  const Module& m = g.m_;
  const Inst& f = m.inst(g.fn_);
  InstId rid = InstId(&region - m.insts.data());
  std::vector<InstId> inside;
  walk_region(m, m.region(region, 0), [&](InstId id, const Inst&) { inside.push_back(id); });
  std::sort(inside.begin(), inside.end());
  const Region* home = nullptr;
  bool addr = false;
  std::vector<uint32_t> used;  // alias classes named outside the body
  walk_region(m, m.region(f, 0), [&](InstId id, const Inst& in) {
    if (in.op == Op::AllocTile && (in.flags & kInstHasAddr)) addr = true;
    if (std::binary_search(inside.begin(), inside.end(), id) || in.op == Op::AllocTile) return;
    for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k) used.push_back(alias.cls(m.operand(in, k)));
    for (unsigned k = 0; k < in.n_regions; ++k) {
      const Region& r = m.region(in, k);
      for (unsigned i = 0; i < r.inst_count; ++i)
        if (m.region_inst(r, i) == rid) home = &r;
    }
  });
  if (!home) {
    const Region& top = m.region(f, 0);
    for (unsigned i = 0; i < top.inst_count; ++i)
      if (m.region_inst(top, i) == rid) home = &top;
  }
  if (addr || !home) return;
  for (ValueId t : p.ignored) {  // never touched: no storage either, if nothing outside names it
    uint32_t c = alias.cls(t);
    InstId def = m.values[t].def;
    if (c == kNone || !alias.single(c) || std::find(used.begin(), used.end(), c) != used.end() || def == kNone) continue;
    for (unsigned i = 0; i < home->inst_count; ++i)
      if (m.region_inst(*home, i) == def) p.priv.push_back(t);
  }
  for (ValueId t : p.tiles) {
    uint32_t c = alias.cls(t);
    if (c == kNone || !alias.single(c) || std::find(used.begin(), used.end(), c) != used.end()) continue;
    InstId def = m.values[t].def;
    bool here = false;
    for (unsigned i = 0; i < home->inst_count; ++i) here |= m.region_inst(*home, i) == def;
    if (!here) continue;
    for (const RStep& s : p.steps) {
      bool rd = std::find(s.reads.begin(), s.reads.end(), t) != s.reads.end();
      if (s.dst != t && !rd) continue;
      if (s.dst == t && !rd) p.priv.push_back(t);
      break;
    }
  }
}

}  // namespace

bool plan_rows(const Gen& g, const opt::TileAliases& alias, const std::vector<const Inst*>& ops, const Inst* region,
               RPlan& p, Refusal& why) {
  const Module& m = g.m_;
  p = RPlan{};
  auto op = [&](const Inst& in, unsigned k) { return m.operand(in, k); };
  auto refuse = [&](RefusalCode c, std::string w) {
    why = {c, std::move(w)};
    return false;
  };
  std::string opname;
  bool conflict = false;
  auto set = [&](ValueId v, Cls c) {
    auto [it, fresh] = p.cls.emplace(v, c);
    if (!fresh && it->second != c) conflict = true;
    if (fresh) p.tiles.push_back(v);
  };
  auto tile_ok = [&](const Inst& in, ValueId v) {
    Refusal w;
    if (!lane_tile(m, in, v, w)) {
      why = w;
      return false;
    }
    return true;
  };
  for (const Inst* ip : ops) {
    const Inst& in = *ip;
    RStep s;
    s.in = ip;
    opname = std::string(op_name(in.op));
    Refusal w;
    switch (in.op) {
      case Op::TLoad: case Op::TStore: {
        bool load = in.op == Op::TLoad;
        if (in.n_ins != 1 || in.n_outs != 1) return refuse(RefusalCode::Operands, "this operand form of " + opname);
        if (!load) {
          std::string_view atomic = m.attr_word(in, "atomicType"), relu = m.attr_word(in, "reluPreMode");
          if ((!atomic.empty() && atomic != "atomic_none") || (!relu.empty() && relu != "no_relu"))
            return refuse(RefusalCode::Attribute, "pto.tstore with atomic add or relu");
        }
        ValueId t = load ? op(in, 1) : op(in, 0), v = load ? op(in, 0) : op(in, 1);
        if (!tile_ok(in, t)) return false;
        const Type& vt = m.type_of(v);
        const Type& tt = m.type_of(t);
        if (vt.kind != TypeKind::TensorView && vt.kind != TypeKind::PartitionView)
          return refuse(RefusalCode::Operands, opname + " with a " + std::string(m.types.text(m.values[v].type)) + " operand");
        if (vt.rank < 1 || vt.rank > kMaxViewRank)
          return refuse(RefusalCode::Shape, opname + " with a view of rank " + std::to_string(vt.rank));
        if (dtype_bytes(vt.elem) != dtype_bytes(tt.elem)) {
          bool conv = !load && ((Gen::float_lane(vt.elem) && Gen::float_lane(tt.elem)) ||
                                (Gen::int_lane(vt.elem) && Gen::int_lane(tt.elem)));
          if (!conv) return refuse(RefusalCode::Type, opname + " between " + std::string(dtype_name(tt.elem)) + " and " + std::string(dtype_name(vt.elem)) + " memory");
        } else if (!load && vt.elem != tt.elem && Gen::float_lane(vt.elem) != Gen::float_lane(tt.elem)) {
          // same size, other class: the bits (as the interpreter)
        }
        s.k = load ? RK::Load : RK::Store;
        s.view = v;
        if (load) s.dst = t;
        else s.src = t, s.reads.push_back(t);
        s.dom = t;
        set(t, Cls::Elem);
        if (std::find(p.views.begin(), p.views.end(), v) == p.views.end()) p.views.push_back(v);
        break;
      }
      case Op::TCvt:
        if (!plan_tcvt(m, in, s.cvt, w)) return why = w, false;
        s.k = RK::Cvt, s.src = s.cvt.src, s.dst = s.cvt.dst, s.dom = s.src;
        s.reads.push_back(s.src);
        set(s.src, Cls::Elem), set(s.dst, Cls::Elem);
        break;
      case Op::TRowSum: case Op::TRowMax: case Op::TRowMin: case Op::TRowProd: {
        if (!plan_reduce(m, in, true, s.src, s.dst, w)) return why = w, false;
        s.k = RK::Red, s.dom = s.src;
        s.red = in.op == Op::TRowSum ? Bin::Add : in.op == Op::TRowMax ? Bin::Max : in.op == Op::TRowMin ? Bin::Min : Bin::Mul;
        s.reads.push_back(s.src);
        set(s.src, Cls::Elem), set(s.dst, Cls::Col);
        break;
      }
      case Op::TRowExpand: case Op::TRowExpandAdd: case Op::TRowExpandSub: case Op::TRowExpandMul:
      case Op::TRowExpandDiv: case Op::TRowExpandMax: case Op::TRowExpandMin: case Op::TRowExpandExpDif:
        if (!plan_row_expand(m, in, s.exp, w)) return why = w, false;
        s.k = RK::RowExp, s.dst = s.exp.dst, s.dom = s.dst;
        for (unsigned i = 0; i < s.exp.nsrc; ++i) {
          s.reads.push_back(s.exp.s[i]);
          set(s.exp.s[i], int(i) == s.exp.colk ? Cls::Col : Cls::Elem);
        }
        set(s.dst, Cls::Elem);
        break;
      case Op::TColExpand: case Op::TColExpandAdd: case Op::TColExpandSub: case Op::TColExpandMul:
      case Op::TColExpandDiv: case Op::TColExpandMax: case Op::TColExpandMin: case Op::TColExpandExpDif:
        if (!plan_col_expand(m, in, s.exp, w)) return why = w, false;
        s.k = RK::ColExp, s.dst = s.exp.dst, s.dom = s.dst;
        for (unsigned i = 0; i < s.exp.nsrc; ++i) {
          s.reads.push_back(s.exp.s[i]);
          set(s.exp.s[i], s.exp.plain || m.type_of(s.exp.s[i]).rows == 1 ? Cls::Row : Cls::Elem);
        }
        set(s.dst, Cls::Elem);
        break;
      case Op::TSel: case Op::TSelS:
        if (!plan_tsel(m, in, s.sel, w)) return why = w, false;
        if (dtype_bytes(m.type_of(s.sel.mask).elem) > 4)
          return refuse(RefusalCode::Type, "op " + opname + " with a mask of 8-byte elements");
        s.k = RK::Sel, s.dst = s.sel.dst, s.dom = s.dst;
        s.reads.push_back(s.sel.a);
        set(s.sel.a, Cls::Elem);
        if (!s.sel.scalar) s.reads.push_back(s.sel.b), set(s.sel.b, Cls::Elem);
        set(s.dst, Cls::Elem);
        if (std::find(p.masks.begin(), p.masks.end(), s.sel.mask) == p.masks.end()) p.masks.push_back(s.sel.mask);
        break;
      default:
        if (is_fused_op(in.op)) {
          if (!plan_fused(m, in, s.fus, w)) return why = w, false;
          s.k = RK::Fused, s.dst = s.fus.dst, s.dom = s.dst;
          for (ValueId t : s.fus.tiles) s.reads.push_back(t), set(t, Cls::Elem);
          if (s.fus.reads_dst) s.reads.push_back(s.dst);
          set(s.dst, Cls::Elem);
          break;
        }
        if (!plan_elementwise(m, in, s.elt, w)) return why = w, false;
        if (in.op == Op::TPow || in.op == Op::TPowS)
          return refuse(RefusalCode::Type, "op " + opname + " with dtype " + std::string(dtype_name(s.elt.d)));
        s.k = RK::Elt, s.dst = s.elt.dst, s.dom = s.dst;
        for (ValueId t : s.elt.tiles) s.reads.push_back(t);
        break;
    }
    p.steps.push_back(std::move(s));
  }
  // Elementwise ops touching a one-column tile are one-column ops.
  for (bool changed = true; changed;) {
    changed = false;
    for (RStep& s : p.steps) {
      if (s.k != RK::Elt || s.col) continue;
      bool col = false;
      for (ValueId t : s.reads) col |= p.cls.count(t) && p.cls[t] == Cls::Col;
      col |= p.cls.count(s.dst) && p.cls[s.dst] == Cls::Col;
      if (!col) continue;
      s.col = changed = true;
      for (ValueId t : s.reads) set(t, Cls::Col);
      set(s.dst, Cls::Col);
    }
  }
  for (RStep& s : p.steps)
    if (s.k == RK::Elt && !s.col) {
      for (ValueId t : s.reads) set(t, Cls::Elem);
      set(s.dst, Cls::Elem);
    }
  for (const RStep& s : p.steps)
    for (unsigned k = 0; k < unsigned(s.in->n_ins + s.in->n_outs); ++k) {
      ValueId v = m.operand(*s.in, k);
      if (m.type_of(v).kind != TypeKind::TileBuf || p.cls.count(v) || v == s.dst) continue;
      if (std::find(p.masks.begin(), p.masks.end(), v) != p.masks.end()) continue;
      if (std::find(p.ignored.begin(), p.ignored.end(), v) == p.ignored.end()) p.ignored.push_back(v);
    }
  if (conflict) return refuse(RefusalCode::Operands, "a tile used both as an element tile and as a one-row or one-column operand");
  for (const RStep& s : p.steps) {
    if (s.dst != kNone && p.cls[s.dst] == Cls::Row)
      return refuse(RefusalCode::Operands, "a one-row operand written in the same region");
    if (s.dst != kNone && std::find(p.masks.begin(), p.masks.end(), s.dst) != p.masks.end())
      return refuse(RefusalCode::Operands, "a select mask written in the same region");
  }
  if (ops.size() > 1)
    for (size_t i = 0; i < p.tiles.size(); ++i)
      for (size_t j = i + 1; j < p.tiles.size(); ++j)
        if (alias.may_alias(p.tiles[i], p.tiles[j]))
          return refuse(RefusalCode::Operands, "a region whose tiles may share storage");
  // The mapping.
  unsigned max_es = 1;
  int32_t cmax = 1, rmax = 1;
  for (ValueId t : p.tiles) {
    const Type& tt = m.type_of(t);
    max_es = std::max(max_es, dtype_bytes(tt.elem));
    rmax = std::max(rmax, tt.rows);
    if (p.cls[t] != Cls::Col) cmax = std::max(cmax, tt.cols);
  }
  for (ValueId v : p.views) max_es = std::max(max_es, dtype_bytes(m.type_of(v).elem));
  p.max_rows = rmax;
  p.V = std::max(1u, std::min(16u / max_es, pow2floor(std::max<unsigned>(1, unsigned(cmax) / 32))));
  p.G = std::min(kWarps, pow2floor(std::max<unsigned>(1, kWarps / unsigned(rmax))));
  auto chunks = [&] { return (unsigned(cmax) + p.V * 32 * p.G - 1) / (p.V * 32 * p.G); };
  // At most 8 values of a tile per thread where more warps can share a row:
  // ptxas for sm_80 keeps a 256-thread block within 64 registers.
  while (chunks() * p.V > 8 && p.G < kWarps) p.G *= 2;
  p.K = chunks();
  if (p.K * p.V > 32)
    return refuse(RefusalCode::Limit, "op " + opname + " on rows of " + std::to_string(cmax) + " elements (at most " +
                                          std::to_string(32 * 32 * kWarps) + " per row on " + std::string(g.t_.name) + ")");
  if (region) find_private(g, alias, *region, p);
  // A one-column tile written back to memory after the group's threads
  // read it needs a barrier in the loop: then all groups run it alike.
  for (const RStep& s : p.steps)
    p.cross |= p.G > 1 && (s.k == RK::Red || (s.dst != kNone && p.cls[s.dst] == Cls::Col && !p.is_priv(s.dst)));
  unsigned held = 0;
  for (ValueId t : p.tiles) held += p.cls[t] == Cls::Col ? 1 : p.K * p.V;
  if (held > 160)
    return refuse(RefusalCode::Limit, "a region holding " + std::to_string(held) + " values per thread (at most 160 on " + std::string(g.t_.name) + ")");
  return true;
}

}  // namespace ptoas::cg::ptx
