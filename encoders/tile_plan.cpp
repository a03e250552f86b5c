// Target-neutral tile-op analysis (tile_plan.h): the checks both CPU
// backends make before they select instructions.
#include "tile_plan.h"

#include "cpu_frame.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ptoas::cg {

namespace {

std::string opn(const Inst& in) { return std::string(op_name(in.op)); }

bool mixed(const Inst& in, Refusal& why) {
  why = {RefusalCode::Type, "op " + opn(in) + " with mixed element types"};
  return false;
}

bool generic(Refusal& why) {
  why = Refusal{};
  return false;
}

}  // namespace

bool lane_tile(const Module& m, const Inst& in, ValueId v, Refusal& why) {
  const Type& t = m.type_of(v);
  if (t.kind != TypeKind::TileBuf) return generic(why);
  if (t.slayout != SLayout::NoneBox) {
    why = {RefusalCode::Layout, "op " + opn(in) + " on a boxed (fractal) tile"};
    return false;
  }
  if (t.rows <= 0 || t.cols <= 0) {
    why = {RefusalCode::Shape, "a tile of dynamic shape"};
    return false;
  }
  if (!lane_type(t.elem)) return generic(why);
  return true;
}

bool flag_attr(const Module& m, const Inst& in, std::string_view name) {
  const Attr* a = m.find_attr(in, name);
  if (!a) return false;
  if (a->kind == AttrKind::Unit) return true;
  return (a->kind == AttrKind::Bool || a->kind == AttrKind::Int) && a->ival != 0;
}

bool plan_ttri(const Module& m, const Inst& in, ValueId& dst, bool& upper) {
  if (in.n_outs != 1 || in.n_ins > 1) return false;
  dst = m.operand(in, in.n_ins);
  const Type& dt = m.type_of(dst);
  if (dt.kind != TypeKind::TileBuf || (dt.elem != DType::F32 && dt.elem != DType::I32)) return false;
  const Attr* a = m.find_attr(in, "upperOrLower");
  upper = a && a->ival != 0;
  return true;
}

bool plan_tci(const Module& m, const Inst& in, unsigned& es, bool& desc) {
  // A second input is PTOAS 0.60's scratch tile (the A2/A3 vector path's);
  // the result does not depend on it.
  if (in.n_outs != 1 || in.n_ins < 1 || in.n_ins > 2) return false;
  const Type& t = m.type_of(m.operand(in, in.n_ins));
  if (t.kind != TypeKind::TileBuf || dtype_is_float(t.elem)) return false;
  es = dtype_bytes(t.elem);
  desc = flag_attr(m, in, "descending");
  return es == 2 || es == 4;
}

bool plan_scalar_mem(const Module& m, const Inst& in, ScalarMemPlan& p, Refusal& why) {
  // load_scalar %p[%i] / store_scalar %v, %p[%i]; tgetval ins(%t, %i) ->
  // %v / tsetval ins(%i, %v) outs(%t): the tile's slot 0 is its address.
  const bool tile = in.op == Op::TGetVal || in.op == Op::TSetVal;
  p.store = in.op == Op::StoreScalar || in.op == Op::TSetVal;
  const unsigned n = unsigned(in.n_ins) + in.n_outs;
  if (n != (p.store ? 3u : 2u) || in.n_res != (p.store ? 0 : 1)) {
    why = {RefusalCode::Operands, "this form of " + std::string(op_name(in.op))};
    return false;
  }
  if (in.op == Op::TSetVal) {
    p.idx = m.operand(in, 0);
    p.val = m.operand(in, 1);
    p.ptr = m.operand(in, 2);
  } else {
    const unsigned k = in.op == Op::StoreScalar ? 1 : 0;
    p.ptr = m.operand(in, k);
    p.idx = m.operand(in, k + 1);
    p.val = p.store ? m.operand(in, 0) : in.res;
  }
  const Type& pt = m.type_of(p.ptr);
  p.elem = pt.elem;
  p.bytes = dtype_bytes(p.elem);
  const Type& it = m.type_of(p.idx);
  const Type& vt = m.type_of(p.val);
  const bool holder = tile ? pt.kind == TypeKind::TileBuf : pt.kind == TypeKind::Ptr;
  if (!holder || it.kind != TypeKind::Scalar || !is_int_like(it.elem) || vt.kind != TypeKind::Scalar ||
      vt.elem != p.elem) {
    why = {RefusalCode::Operands, std::string(op_name(in.op)) + " without a " + (tile ? "tile" : "pointer") +
                                      ", an integer index and a value of its element type"};
    return false;
  }
  if (tile) {
    // Storage order is element order only without boxes; an index out of
    // the tile is clamped into it (the interpreter reports it).
    if (pt.slayout != SLayout::NoneBox || pt.rows <= 0 || pt.cols <= 0) {
      why = {RefusalCode::Shape, std::string(op_name(in.op)) + " on a boxed tile"};
      return false;
    }
    p.limit = int64_t(pt.rows) * pt.cols;
    p.tile = true;
  }
  // The storage formats (f8, f4, hif8) have no CPU scalar form.
  bool fl = p.elem == DType::F32 || p.elem == DType::F64 || p.elem == DType::F16 || p.elem == DType::BF16;
  if (!fl && !is_int_like(p.elem)) {
    why = {RefusalCode::Type, std::string(op_name(in.op)) + " of " + std::string(dtype_name(p.elem))};
    return false;
  }
  p.bit = p.elem == DType::I1;
  p.sign = !fl && !p.bit && !dtype_is_unsigned(p.elem) && p.bytes < 8;
  return true;
}

bool plan_store_combine(const Module& m, const Inst& in, StoreCombinePlan& p, Refusal& why) {
  const Type& tt = m.type_of(p.tile);
  const Type& vt = m.type_of(p.view);
  p.rank = vt.rank;
  std::string what = p.atomic ? "pto.tstore with atomic add" : "pto.tstore with relu";
  if (tt.kind != TypeKind::TileBuf || (vt.kind != TypeKind::PartitionView && vt.kind != TypeKind::TensorView)) {
    why = {RefusalCode::Operands, what + " of anything but a tile to a view"};
    return false;
  }
  if (tt.elem != vt.elem || (tt.elem != DType::F32 && tt.elem != DType::I32 && tt.elem != DType::U32)) {
    why = {RefusalCode::Type, what + " from " + std::string(dtype_name(tt.elem)) + " to " +
                                  std::string(dtype_name(vt.elem)) + " (f32, i32, ui32 to the same type are)"};
    return false;
  }
  if (p.rank < 1 || p.rank > 2 || tt.rows <= 0 || tt.cols <= 0) {
    why = {RefusalCode::Shape, what + " to a view of rank " + std::to_string(p.rank)};
    return false;
  }
  (void)in;
  return true;
}

bool plain_tstore(const Module& m, const Inst& in) {
  std::string_view a = m.attr_word(in, "atomicType"), r = m.attr_word(in, "reluPreMode");
  return in.op == Op::TStore && (a.empty() || a == "atomic_none") && (r.empty() || r == "no_relu");
}

bool plan_tgather(const Module& m, const Inst& in, GatherPlan& p, Refusal& why) {
  p = GatherPlan{};
  if (in.n_outs != 1 || in.n_res || in.n_ins < 2 || in.n_ins > 3 ||
      m.type_of(m.operand(in, 1)).kind != TypeKind::TileBuf) {
    why = {RefusalCode::Operands, "pto.tgather other than its index form (ins(src, indices[, tmp]) outs(dst))"};
    return false;
  }
  p.src = m.operand(in, 0);
  p.idx = m.operand(in, 1);
  p.dst = m.operand(in, in.n_ins);
  const Type& s = m.type_of(p.src);
  const Type& i = m.type_of(p.idx);
  const Type& d = m.type_of(p.dst);
  if (s.kind != TypeKind::TileBuf || d.kind != TypeKind::TileBuf) return generic(why);
  if (s.elem != d.elem || dtype_bytes(s.elem) != 4 || (i.elem != DType::I32 && i.elem != DType::U32)) {
    why = {RefusalCode::Type, "pto.tgather of " + std::string(dtype_name(s.elem)) + " into " +
                                  std::string(dtype_name(d.elem)) + " with " + std::string(dtype_name(i.elem)) +
                                  " indices (4-byte elements of one type, i32 or ui32 indices are lowered)"};
    return false;
  }
  if (s.slayout != SLayout::NoneBox || s.blayout != BLayout::RowMajor) {
    why = {RefusalCode::Layout, "pto.tgather from a tile that is not row-major and unboxed"};
    return false;
  }
  if (s.rows <= 0 || s.cols <= 0 || i.rows <= 0 || i.cols <= 0 || d.rows <= 0 || d.cols <= 0) {
    why = {RefusalCode::Shape, "a tile of dynamic shape"};
    return false;
  }
  p.idx_signed = i.elem == DType::I32;
  p.n = int64_t(s.rows) * s.cols;
  p.cap_r = std::min(d.rows, i.rows);
  p.cap_c = std::min(d.cols, i.cols);
  return true;
}

bool plan_elementwise(const Module& m, const Inst& in, EltPlan& p, Refusal& why) {
  const OpInfo& info = op_info(in.op);
  if (in.n_outs != 1) return generic(why);
  p = EltPlan{};
  p.dst = m.operand(in, in.n_ins);
  if (m.type_of(p.dst).kind != TypeKind::TileBuf) return generic(why);
  DType d = p.d = m.type_of(p.dst).elem;
  // f32 lanes (f32, f16, bf16) or i32 lanes.
  bool f32 = dtype_is_float(d), lanes_ok = lane_type(d), ints = lanes_ok && !f32;
  Op o = in.op;
  bool have = false;
  switch (o) {
    case Op::TAdd: case Op::TSub: case Op::TMul: case Op::TMax: case Op::TMin:
    case Op::TAddS: case Op::TSubS: case Op::TMulS: case Op::TMaxS: case Op::TMinS:
    case Op::TExpandS: case Op::TNeg: case Op::TRelu: case Op::TAbs:
      have = lanes_ok;
      break;
    case Op::TDiv: case Op::TDivS:
      // Integers: truncating, in the signed 32-bit lanes (u32 has none).
      have = lanes_ok && d != DType::U32;
      break;
    case Op::TSqrt: case Op::TRecip: case Op::TPow: case Op::TPowS:
    case Op::TExp: case Op::TLog: case Op::TRsqrt:
      have = lanes_ok && f32;
      break;
    case Op::TAnd: case Op::TOr: case Op::TXor: case Op::TShl: case Op::TShr: case Op::TNot:
    case Op::TAndS: case Op::TOrS: case Op::TXorS: case Op::TShlS: case Op::TShrS:
      have = ints;
      break;
    default: break;
  }
  if (!have) return generic(why);
  if (!lane_tile(m, in, p.dst, why)) return false;
  size_t want = info.sem == Sem::EltBin ? 2 : info.sem == Sem::EltUnary ? 1 : o == Op::TExpandS ? 0 : 1;
  for (unsigned i = 0; i < in.n_ins; ++i) {
    ValueId v = m.operand(in, i);
    const Type& t = m.type_of(v);
    if (t.kind == TypeKind::TileBuf) {
      if (p.tiles.size() == want) continue;
      if (!lane_tile(m, in, v, why)) return false;
      if (t.elem != d) return mixed(in, why);
      p.tiles.push_back(v);
    } else {
      if (p.scal != kNone || t.kind != TypeKind::Scalar) return generic(why);
      if (t.elem != d) {
        why = {RefusalCode::Type, "op " + std::string(info.name) + " with a " + std::string(dtype_name(t.elem)) + " scalar on a " +
              std::string(dtype_name(d)) + " tile"};
        return false;
      }
      p.scal = v;
      p.scalar_first = i == 0;
    }
  }
  if (p.tiles.size() != want || (info.sem == Sem::EltScalar && p.scal == kNone)) {
    why = {RefusalCode::Operands, "this operand form of " + std::string(info.name)};
    return false;
  }
  return true;
}

bool plan_fused(const Module& m, const Inst& in, FusedPlan& p, Refusal& why) {
  if (in.n_outs != 1) return generic(why);
  Op o = in.op;
  p = FusedPlan{};
  p.dst = m.operand(in, in.n_ins);
  if (!lane_tile(m, in, p.dst, why)) return false;
  DType d = p.d = m.type_of(p.dst).elem;
  bool int_ok = o == Op::TAddC || o == Op::TSubC || o == Op::TAddSC || o == Op::TSubSC;
  if (!dtype_is_float(d) && !int_ok) return generic(why);
  unsigned n_used = o == Op::TPrelu ? 2 : in.n_ins;
  unsigned want = int_ok ? 3 : 2;
  if (n_used < want) {
    why = {RefusalCode::Operands, "this operand form of " + opn(in)};
    return false;
  }
  p.n_used = want;
  p.reads_dst = o == Op::TMulAddDst || o == Op::TFusedMulAdd || o == Op::TFusedMulAddRelu || o == Op::TAxpy;
  p.tile_of.assign(want, -1);
  for (unsigned i = 0; i < want; ++i) {
    ValueId v = m.operand(in, i);
    const Type& t = m.type_of(v);
    if (t.kind == TypeKind::TileBuf) {
      if (!lane_tile(m, in, v, why)) return false;
      if (t.elem != d) return mixed(in, why);
      p.tile_of[i] = int(p.tiles.size());
      p.tiles.push_back(v);
    } else if (t.kind != TypeKind::Scalar || t.elem != d) {
      return generic(why);
    }
  }
  return true;
}

namespace {
// The checks both expansions start with.
bool expand_head(const Module& m, const Inst& in, ExpandPlan& p, Refusal& why) {
  p = ExpandPlan{};
  p.plain = in.op == Op::TRowExpand || in.op == Op::TColExpand;
  p.nsrc = p.plain ? 1 : 2;
  if (in.n_outs != 1 || in.n_ins < p.nsrc) return generic(why);
  p.dst = m.operand(in, in.n_ins);
  if (!lane_tile(m, in, p.dst, why)) return false;
  DType d = m.type_of(p.dst).elem;
  if (!p.plain) bin_of(in.op, p.bk);
  if (!dtype_is_float(d) && (p.bk == Bin::Div || p.bk == Bin::ExpDif)) return generic(why);
  if (!tile_geo(m.type_of(p.dst)).rowvec) {
    why = {RefusalCode::Layout, "op " + opn(in) + " into a column-major tile"};
    return false;
  }
  for (unsigned i = 0; i < p.nsrc; ++i) {
    p.s[i] = m.operand(in, i);
    if (!lane_tile(m, in, p.s[i], why)) return false;
    if (m.type_of(p.s[i]).elem != d) return mixed(in, why);
  }
  p.cap_r = m.type_of(p.dst).rows;
  p.cap_c = m.type_of(p.dst).cols;
  return true;
}
}  // namespace

bool plan_row_expand(const Module& m, const Inst& in, ExpandPlan& p, Refusal& why) {
  if (!expand_head(m, in, p, why)) return false;
  auto one_col = [&](ValueId v) { return m.type_of(v).cols == 1 || m.type_of(v).vcol == 1; };
  if (p.plain) p.colk = 0;
  else if (one_col(p.s[1])) p.colk = 1;
  else if (one_col(p.s[0])) p.colk = 0;
  if (p.colk < 0) {
    why = {RefusalCode::Operands, "op " + opn(in) + " without a one-column operand"};
    return false;
  }
  for (unsigned i = 0; i < p.nsrc; ++i) {
    const Type& t = m.type_of(p.s[i]);
    p.cap_r = std::min(p.cap_r, t.rows);
    if (int(i) != p.colk) {
      if (!tile_geo(t).rowvec) {
        why = {RefusalCode::Layout, "op " + opn(in) + " on tiles of mixed layouts"};
        return false;
      }
      p.cap_c = std::min(p.cap_c, t.cols);
    }
  }
  return true;
}

bool plan_col_expand(const Module& m, const Inst& in, ExpandPlan& p, Refusal& why) {
  if (!expand_head(m, in, p, why)) return false;
  for (unsigned i = 0; i < p.nsrc; ++i) {
    const Type& t = m.type_of(p.s[i]);
    if (!tile_geo(t).rowvec) {
      why = {RefusalCode::Layout, "op " + opn(in) + " on tiles of mixed layouts"};
      return false;
    }
    if (t.rows > 1 && !p.plain) p.cap_r = std::min(p.cap_r, t.rows);
    p.cap_c = std::min(p.cap_c, t.cols);
  }
  return true;
}

bool plan_reduce(const Module& m, const Inst& in, bool rows, ValueId& src, ValueId& dst, Refusal& why) {
  if (in.n_outs != 1 || in.n_ins < 1) return generic(why);
  src = m.operand(in, 0);
  dst = m.operand(in, in.n_ins);
  if (!lane_tile(m, in, src, why) || !lane_tile(m, in, dst, why)) return false;
  DType d = m.type_of(dst).elem;
  if (m.type_of(src).elem != d) return mixed(in, why);
  TileGeo gs = tile_geo(m.type_of(src)), gd = tile_geo(m.type_of(dst));
  if (rows && gd.rs != int64_t(dtype_bytes(d))) {
    why = {RefusalCode::Layout, "op " + opn(in) + " into a tile whose column is not contiguous"};
    return false;
  }
  if (!rows && (!gs.rowvec || !gd.rowvec)) {
    why = {RefusalCode::Layout, "op " + opn(in) + " on a column-major tile"};
    return false;
  }
  if (gs.rs > (1 << 24) || gs.cs > (1 << 24)) return generic(why);
  return true;
}

bool plan_tcmp(const Module& m, const Inst& in, CmpPlan& p, Refusal& why) {
  if (in.n_outs != 1 || in.n_ins < 2) return generic(why);
  p = CmpPlan{};
  p.a = m.operand(in, 0);
  p.rhs = m.operand(in, 1);
  p.mask = m.operand(in, in.n_ins);
  if (!lane_tile(m, in, p.a, why) || !lane_tile(m, in, p.mask, why)) return false;
  const Type &at = m.type_of(p.a), &mt = m.type_of(p.mask), &rt = m.type_of(p.rhs);
  if (dtype_is_float(mt.elem)) return generic(why);
  p.rhs_tile = rt.kind == TypeKind::TileBuf;
  if (p.rhs_tile && (!lane_tile(m, in, p.rhs, why) || rt.elem != at.elem)) return mixed(in, why);
  if (!p.rhs_tile && (rt.kind != TypeKind::Scalar || rt.elem != at.elem)) return generic(why);
  if (tile_geo(at).dn || tile_geo(mt).dn || (p.rhs_tile && tile_geo(rt).dn)) {
    why = {RefusalCode::Layout, "op " + opn(in) + " on a column-major tile"};
    return false;
  }
  std::string_view w = m.attr_word(in, "cmpMode");
  if (w.empty() || w == "eq" || w == "EQ") p.mode = 0;
  else if (w == "ne" || w == "NE") p.mode = 1;
  else if (w == "lt" || w == "LT") p.mode = 2;
  else if (w == "le" || w == "LE") p.mode = 3;
  else if (w == "gt" || w == "GT") p.mode = 4;
  else if (w == "ge" || w == "GE") p.mode = 5;
  else {
    why = {RefusalCode::Attribute, "op " + opn(in) + " with cmpMode " + std::string(w)};
    return false;
  }
  p.mask_bits = 8 * dtype_bytes(mt.elem);
  p.cap_r = std::min(at.rows, mt.rows);
  if (p.rhs_tile) p.cap_r = std::min(p.cap_r, rt.rows);
  p.cap_c = p.rhs_tile ? std::min(at.cols, rt.cols) : at.cols;
  return true;
}

bool plan_tsel(const Module& m, const Inst& in, SelPlan& p, Refusal& why) {
  if (in.n_outs != 1 || in.n_ins < 3) return generic(why);
  p = SelPlan{};
  p.scalar = in.op == Op::TSelS;
  p.mask = m.operand(in, 0);
  p.a = m.operand(in, 1);
  p.dst = m.operand(in, in.n_ins);
  p.b = p.scalar ? m.operand(in, in.n_ins - 1) : m.operand(in, 2);
  if (!lane_tile(m, in, p.dst, why) || !lane_tile(m, in, p.a, why) || !lane_tile(m, in, p.mask, why)) return false;
  DType dd = m.type_of(p.dst).elem;
  unsigned es = dtype_bytes(dd);
  if (es == 1 || dtype_is_float(m.type_of(p.mask).elem)) return generic(why);
  if (m.type_of(p.a).elem != dd) return mixed(in, why);
  if (p.scalar) {
    if (m.type_of(p.b).kind != TypeKind::Scalar || m.type_of(p.b).elem != dd) return generic(why);
  } else if (!lane_tile(m, in, p.b, why) || m.type_of(p.b).elem != dd) {
    return mixed(in, why);
  }
  for (ValueId v : {p.dst, p.a, p.mask, p.scalar ? kNone : p.b})
    if (v != kNone && tile_geo(m.type_of(v)).dn) {
      why = {RefusalCode::Layout, "op " + opn(in) + " on a column-major tile"};
      return false;
    }
  p.bits = es == 2 ? DType::U16 : DType::U32;
  return true;
}

bool plan_tcvt(const Module& m, const Inst& in, CvtPlan& p, Refusal& why) {
  if (in.n_outs != 1 || in.n_ins < 1) return generic(why);
  p = CvtPlan{};
  p.src = m.operand(in, 0);
  p.dst = m.operand(in, in.n_ins);
  if (!lane_tile(m, in, p.src, why) || !lane_tile(m, in, p.dst, why)) return false;
  DType sd = p.sd = m.type_of(p.src).elem, dd = p.dd = m.type_of(p.dst).elem;
  auto refuse = [&](const std::string& r) {
    why = {RefusalCode::Type, "pto.tcvt from " + std::string(dtype_name(sd)) + " to " + std::string(dtype_name(dd)) + r};
    return false;
  };
  std::string_view sat_w = m.attr_word(in, "sat_mode");
  if (sat_w.empty()) sat_w = m.attr_word(in, "satMode");
  p.sat = !sat_w.empty() && sat_w != "OFF" && sat_w != "off";
  std::string_view rm = m.attr_word(in, "rmode");
  if (rm.empty() || rm == "RINT" || rm == "CAST_RINT") p.rmode = Rounding::NearestEven;
  else if (rm == "FLOOR" || rm == "CAST_FLOOR") p.rmode = Rounding::Floor;
  else if (rm == "CEIL" || rm == "CAST_CEIL") p.rmode = Rounding::Ceil;
  else if (rm == "TRUNC" || rm == "CAST_TRUNC" || rm == "NONE" || rm == "CAST_NONE") p.rmode = Rounding::Trunc;
  else if (rm == "ROUND" || rm == "CAST_ROUND") p.rmode = Rounding::AwayFromZero;
  else return refuse(" with rmode " + std::string(rm));
  bool sf = dtype_is_float(sd), df = dtype_is_float(dd);
  if (p.sat && !(sf && !df && dtype_bytes(dd) < 4) && !(sf && dd == DType::I32)) return refuse(" with sat_mode on");
  if (!sf && dd == DType::BF16 && dtype_bytes(sd) == 4) return refuse(" (i32 / u32 -> bf16 would round twice)");
  return true;
}

void sat_bounds_f32(DType dd, uint32_t& lo_bits, uint32_t& hi_bits) {
  int64_t lo = dd == DType::I8 ? -128 : dd == DType::I16 ? -32768 : dd == DType::I32 ? -2147483648LL : 0;
  int64_t hi = dd == DType::I8 ? 127 : dd == DType::U8 ? 255 : dd == DType::I16 ? 32767 : 65535;
  float flo = float(lo), fhi = float(hi);
  std::memcpy(&lo_bits, &flo, 4);
  std::memcpy(&hi_bits, &fhi, 4);
}

bool plan_matmul(const Module& m, const Inst& in, MatmulPlan& p, Refusal& why) {
  bool acc_in = in.op == Op::TMatmulAcc, bias = in.op == Op::TMatmulBias;
  unsigned ia = acc_in ? 1 : 0;
  if (in.n_outs != 1 || in.n_ins != (acc_in || bias ? 3u : 2u)) return generic(why);
  p = MatmulPlan{};
  p.a = m.operand(in, ia);
  p.b = m.operand(in, ia + 1);
  p.c = m.operand(in, in.n_ins);
  p.cin = acc_in ? m.operand(in, 0) : kNone;
  p.bias = bias ? m.operand(in, 2) : kNone;
  for (ValueId v : {p.a, p.b, p.c, p.cin, p.bias})
    if (v != kNone && m.type_of(v).kind != TypeKind::TileBuf) return generic(why);
  DType ae = p.ae = m.type_of(p.a).elem, ce = m.type_of(p.c).elem;
  bool f32 = ce == DType::F32 && (ae == DType::F32 || ae == DType::BF16 || ae == DType::F16) &&
             m.type_of(p.b).elem == ae;
  p.i32 = ce == DType::I32 && ae == DType::I8 && m.type_of(p.b).elem == ae;
  if (!f32 && !p.i32) {
    why = {RefusalCode::Type, "pto.tmatmul with these element types"};
    return false;
  }
  if ((acc_in && m.type_of(p.cin).elem != ce) || (bias && m.type_of(p.bias).elem != ce)) return generic(why);
  if (p.c == p.a || p.c == p.b) {
    why = {RefusalCode::Operands, "pto.tmatmul whose result is one of its operands"};
    return false;
  }
  const Type &at = m.type_of(p.a), &bt = m.type_of(p.b), &ct = m.type_of(p.c);
  p.cap_m = std::min(at.rows, ct.rows);
  p.cap_k = std::min(at.cols, bt.rows);
  p.cap_n = std::min(bt.cols, ct.cols);
  if (acc_in) {
    p.cap_m = std::min(p.cap_m, m.type_of(p.cin).rows);
    p.cap_n = std::min(p.cap_n, m.type_of(p.cin).cols);
  }
  if (bias) p.cap_n = std::min(p.cap_n, m.type_of(p.bias).cols);
  return true;
}

bool boxed_copy_ok(const Module& m, ValueId t, ValueId v, unsigned rank, bool load, Refusal& why) {
  const Type& tt = m.type_of(t);
  const Type& vt = m.type_of(v);
  unsigned es = dtype_bytes(tt.elem);
  if (vt.kind == TypeKind::Ptr || rank < 1 || rank > kMaxViewRank || dtype_bytes(vt.elem) != es ||
      vt.elem != tt.elem || (es != 1 && es != 2 && es != 4) || tt.rows <= 0 || tt.cols <= 0) {
    why = {RefusalCode::Layout, std::string(load ? "pto.tload into" : "pto.tstore from") + " a boxed tile with this view or element type"};
    return false;
  }
  if (load && tt.pad != 0 && tt.pad != 1) {
    why = {RefusalCode::Attribute, "pto.tload into a boxed tile with a pad value"};
    return false;
  }
  return true;
}

bool view_copy_ok(const Module& m, ValueId t, ValueId v, unsigned rank, bool load, Refusal& why) {
  const Type& tt = m.type_of(t);
  const Type& vt = m.type_of(v);
  if (vt.kind == TypeKind::Ptr || rank < 1 || rank > kMaxViewRank) {
    why = {RefusalCode::Shape, std::string(load ? "pto.tload from" : "pto.tstore to") + " a view of rank " + std::to_string(rank)};
    return false;
  }
  if (dtype_bytes(vt.elem) != dtype_bytes(tt.elem)) return generic(why);
  if (!load && vt.elem != tt.elem) {
    why = {RefusalCode::Type, "pto.tstore that converts " + std::string(dtype_name(tt.elem)) + " to " + std::string(dtype_name(vt.elem))};
    return false;
  }
  return true;
}

bool plan_tmov(const Module& m, const Inst& in, ValueId& src, ValueId& dst, bool& skip, Refusal& why) {
  if (in.n_ins != 1 || in.n_outs != 1) {
    why = {RefusalCode::Attribute, "pto.tmov with a quantization operand"};
    return false;
  }
  if (m.attr_word(in, "reluPreMode") == "normal_relu" || m.find_attr(in, "relu")) {
    why = {RefusalCode::Attribute, "pto.tmov with relu"};
    return false;
  }
  src = m.operand(in, 0);
  dst = m.operand(in, 1);
  const Type &st = m.type_of(src), &dt = m.type_of(dst);
  if (st.kind != TypeKind::TileBuf || dt.kind != TypeKind::TileBuf) return generic(why);
  if (st.elem != dt.elem) {
    why = {RefusalCode::Type, "pto.tmov that converts " + std::string(dtype_name(st.elem)) + " to " + std::string(dtype_name(dt.elem))};
    return false;
  }
  unsigned es = dtype_bytes(dt.elem);
  if (es != 1 && es != 2 && es != 4) return generic(why);
  skip = src == dst;
  return true;
}

// The tiles of a window copy (p.src, p.dst set): what twindow's lowerings
// take.
static bool window_tiles_ok(const Module& m, const Inst& in, WindowPlan& p, Refusal& why) {
  const Type &st = m.type_of(p.src), &dt = m.type_of(p.dst);
  if (st.kind != TypeKind::TileBuf || dt.kind != TypeKind::TileBuf) return generic(why);
  p.boxed = st.slayout != SLayout::NoneBox || dt.slayout != SLayout::NoneBox;
  if (!p.boxed && (!lane_tile(m, in, p.src, why) || !lane_tile(m, in, p.dst, why))) return false;
  if (st.elem != dt.elem) {
    why = {RefusalCode::Type, "op " + opn(in) + " that converts"};
    if (p.boxed) why.what += " " + std::string(dtype_name(st.elem)) + " to " + std::string(dtype_name(dt.elem));
    return false;
  }
  if (!p.boxed) return true;
  if (st.rows <= 0 || st.cols <= 0 || dt.rows <= 0 || dt.cols <= 0) {
    why = {RefusalCode::Shape, "a tile of dynamic shape"};
    return false;
  }
  unsigned es = dtype_bytes(dt.elem);
  if (es != 1 && es != 2 && es != 4) {
    why = {RefusalCode::Type, "op " + opn(in) + " on a boxed tile of " + std::string(dtype_name(dt.elem))};
    return false;
  }
  // The copy is not staged as the interpreter's is: src and dst must not
  // be one tile.
  if (p.src == p.dst) {
    why = {RefusalCode::Operands, "op " + opn(in) + " on a boxed tile in place"};
    return false;
  }
  return true;
}

bool plan_twindow(const Module& m, const Inst& in, WindowPlan& p, Refusal& why) {
  // PTOAS 0.60's quantizing tinsert (acc -> mat with a preQuantScalar).
  if (in.n_ins > 3) {
    why = Refusal(RefusalCode::Operands, "pto.tinsert with a preQuantScalar operand");
    return false;
  }
  if (in.n_outs != 1 || in.n_ins < 3) return generic(why);
  p = WindowPlan{};
  p.ext = in.op == Op::TExtract;
  p.src = m.operand(in, 0);
  p.row = m.operand(in, 1);
  p.col = m.operand(in, 2);
  p.dst = m.operand(in, in.n_ins);
  p.win = p.ext ? p.src : p.dst;
  p.region = p.ext ? p.dst : p.src;
  std::string_view relu = m.attr_word(in, "reluPreMode");
  if ((!relu.empty() && relu != "no_relu") || m.find_attr(in, "relu")) {
    why = {RefusalCode::Attribute, "op " + opn(in) + " with relu"};
    return false;
  }
  return window_tiles_ok(m, in, p, why);
}

bool subview_window(const Module& m, const Inst& in, WindowPlan& p) {
  bool valid_ops;
  Refusal why;
  return in.op == Op::Subview && !plan_row_subset(m, in, valid_ops, why) && plan_subview_window(m, in, p, why);
}

bool plan_subview_window(const Module& m, const Inst& in, WindowPlan& p, Refusal& why) {
  p = WindowPlan{};
  if (in.op != Op::Subview || (in.n_ins != 3 && in.n_ins != 5) || in.n_res != 1) {
    why = {RefusalCode::Operands, "this form of pto.subview"};
    return false;
  }
  p.ext = true;
  p.src = p.win = m.operand(in, 0);
  p.dst = p.region = in.res;
  p.row = m.operand(in, 1);
  p.col = m.operand(in, 2);
  const Type &st = m.type_of(p.src), &rt = m.type_of(p.dst);
  if (st.kind == TypeKind::TileBuf && rt.kind == TypeKind::TileBuf && st.loc != rt.loc) {
    why = {RefusalCode::Operands, "pto.subview into another memory"};
    return false;
  }
  if (!window_tiles_ok(m, in, p, why)) return false;
  if (rt.rows <= 0 || rt.cols <= 0) {
    why = {RefusalCode::Shape, "a tile of dynamic shape"};
    return false;
  }
  return true;
}

void code_limit_error(const Module& m, InstId fn, const Inst& at, Diag& diag, const Target& t, size_t limit) {
  diag.error(at.loc, 0, "the code of @" + std::string(m.attr_word(m.inst(fn), "sym_name")) +
                            " passes the limit of " + std::to_string(limit) + " bytes per function on " +
                            std::string(t.name) + " here; split it into smaller functions [" + std::string(refusal_code_name(RefusalCode::Limit)) + "]");
}

int cmpi_predicate(std::string_view p) {
  static const char* const names[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
  for (int i = 0; i < 10; ++i)
    if (p == names[i]) return i;
  return -1;
}

std::vector<ValueId> operand_list(const Module& m, const Inst& in, unsigned from, unsigned n) {
  std::vector<ValueId> v;
  for (unsigned i = 0; i < n; ++i) v.push_back(m.operand(in, from + i));
  return v;
}

std::vector<ValueId> result_list(const Inst& in) {
  std::vector<ValueId> v;
  for (unsigned i = 0; i < in.n_res; ++i) v.push_back(in.res + i);
  return v;
}

std::vector<ValueId> region_args(const Module& m, const Region& r, unsigned from) {
  std::vector<ValueId> v;
  for (unsigned i = from; i < r.arg_count; ++i) v.push_back(m.region_arg(r, i));
  return v;
}

bool plan_row_subset(const Module& m, const Inst& in, bool& valid_ops, Refusal& why) {
  const bool sub = in.op == Op::Subview;
  const char* what = sub ? "pto.subview" : "pto.subset";
  if (in.n_ins < 3 || in.n_res != 1 || (sub && in.n_ins != 3 && in.n_ins != 5)) {
    why = {RefusalCode::Operands, std::string("this form of ") + what};
    return false;
  }
  const Type& st = m.type_of(m.operand(in, 0));
  const Type& rt = m.type_of(in.res);
  auto plain = [](const Type& t) { return t.slayout == SLayout::NoneBox && t.blayout == BLayout::RowMajor; };
  if (!plain(st) || !plain(rt) || rt.cols != st.cols || rt.elem != st.elem) {
    why = {RefusalCode::Shape, std::string(what) + " that does not keep whole rows of a row-major tile"};
    return false;
  }
  valid_ops = sub && in.n_ins == 5;
  return true;
}

}  // namespace ptoas::cg
