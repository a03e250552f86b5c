// Tile geometry and lane types (tile_geometry.h).
#include "tile_geometry.h"

#include <algorithm>
#include <cstring>

#include "tile_layout.h"

namespace ptoas::cg {

bool lane_type(DType d) {
  switch (d) {
    case DType::F32: case DType::F16: case DType::BF16: case DType::I32: case DType::U32:
    case DType::I16: case DType::U16: case DType::I8: case DType::U8:
      return true;
    default:
      return false;
  }
}

TileGeo tile_geo(const Type& t) {
  int64_t es = std::max(1u, dtype_bytes(t.elem));
  bool dn = t.blayout == BLayout::ColMajor;
  TileGeo g;
  g.dn = dn;
  g.rs = dn ? es : int64_t(t.cols) * es;
  g.cs = dn ? int64_t(t.rows) * es : es;
  g.rowvec = !dn || t.cols == 1;
  g.colvec = dn || t.rows == 1;
  return g;
}

bool bin_of(Op o, Bin& k) {
  using B = Bin;
  switch (o) {
    case Op::TAdd: case Op::TAddS: case Op::TRowExpandAdd: case Op::TColExpandAdd: k = B::Add; return true;
    case Op::TSub: case Op::TSubS: case Op::TRowExpandSub: case Op::TColExpandSub: k = B::Sub; return true;
    case Op::TMul: case Op::TMulS: case Op::TRowExpandMul: case Op::TColExpandMul: k = B::Mul; return true;
    case Op::TDiv: case Op::TDivS: case Op::TRowExpandDiv: case Op::TColExpandDiv: k = B::Div; return true;
    case Op::TMax: case Op::TMaxS: case Op::TRowExpandMax: case Op::TColExpandMax: k = B::Max; return true;
    case Op::TMin: case Op::TMinS: case Op::TRowExpandMin: case Op::TColExpandMin: k = B::Min; return true;
    case Op::TRowExpandExpDif: case Op::TColExpandExpDif: k = B::ExpDif; return true;
    case Op::TPow: case Op::TPowS: k = B::Pow; return true;
    case Op::TAnd: case Op::TAndS: k = B::And; return true;
    case Op::TOr: case Op::TOrS: k = B::Or; return true;
    case Op::TXor: case Op::TXorS: k = B::Xor; return true;
    case Op::TShl: case Op::TShlS: k = B::Shl; return true;
    case Op::TShr: case Op::TShrS: k = B::Shr; return true;
    default: return false;
  }
}

uint32_t pad_bits(const Type& tt) {
  unsigned es = dtype_bytes(tt.elem);
  uint32_t pad = 0;
  bool fl = dtype_is_float(tt.elem);
  bool uns = dtype_is_unsigned(tt.elem);
  if (es == 4) {
    if (tt.pad == 2) pad = fl ? 0x7f800000u : uns ? 0xffffffffu : 0x7fffffffu;
    if (tt.pad == 3) pad = fl ? 0xff800000u : uns ? 0u : 0x80000000u;
  } else if (es == 2) {
    uint32_t inf = tt.elem == DType::F16 ? 0x7c00u : 0x7f80u;
    if (tt.pad == 2) pad = fl ? inf : uns ? 0xffffu : 0x7fffu;
    if (tt.pad == 3) pad = fl ? inf | 0x8000u : uns ? 0u : 0x8000u;
  } else {
    if (tt.pad == 2) pad = uns ? 0xffu : 0x7fu;
    if (tt.pad == 3) pad = uns ? 0u : 0x80u;
  }
  return pad;
}

bool loop_order(const Module& m, ValueId dst, const ValueId* srcs, unsigned n, bool& cols_outer,
                int32_t& cap_r, int32_t& cap_c) {
  TileGeo g = tile_geo(m.type_of(dst));
  bool all_row = g.rowvec, all_col = g.colvec, any_dn = g.dn;
  cap_r = m.type_of(dst).rows;
  cap_c = m.type_of(dst).cols;
  for (unsigned i = 0; i < n; ++i) {
    const Type& t = m.type_of(srcs[i]);
    TileGeo s = tile_geo(t);
    all_row &= s.rowvec;
    all_col &= s.colvec;
    any_dn |= s.dn;
    cap_r = std::min(cap_r, t.rows);
    cap_c = std::min(cap_c, t.cols);
  }
  cols_outer = all_col && (any_dn || !all_row);
  return cols_outer || all_row;
}

bool axis_map(const Type& t, bool rows, AxisMap& out) {
  int64_t es = std::max(1u, dtype_bytes(t.elem));
  auto log2_exact = [](int64_t v) {
    if (v <= 0 || (v & (v - 1))) return -1;
    int l = 0;
    while ((int64_t(1) << l) < v) ++l;
    return l;
  };
  out = AxisMap{};
  out.les = log2_exact(es);
  if (t.rows <= 0 || t.cols <= 0 || out.les < 0) return false;
  if (t.slayout == SLayout::NoneBox) {
    bool rm = t.blayout == BLayout::RowMajor;
    out.unit = rows ? (rm ? t.cols : 1) : (rm ? 1 : t.rows);
    return true;
  }
  int64_t ir, ic;
  tile_inner_box(t, ir, ic);
  int lir = log2_exact(ir), lic = log2_exact(ic);
  if (lir < 0 || lic < 0) return false;
  int64_t nbr = (t.rows + ir - 1) / ir, nbc = (t.cols + ic - 1) / ic;
  bool col_boxes = t.blayout == BLayout::ColMajor;
  bool col_inner = t.slayout == SLayout::ColMajor;
  if (rows) {
    out.shift = lir;
    out.mask = ir - 1;
    out.box = (col_boxes ? 1 : nbc) * ir * ic;
    out.unit = col_inner ? 1 : ic;
  } else {
    out.shift = lic;
    out.mask = ic - 1;
    out.box = (col_boxes ? nbr : 1) * ir * ic;
    out.unit = col_inner ? ir : 1;
  }
  return true;
}

uint64_t dconst_bits(int i) {
  auto d = [](double v) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  };
  if (i >= kDExpC && i < kDExpC + 13) {  // 1/12! .. 1/0! (factorials are exact doubles)
    double f = 1;
    for (int k = 2; k <= 12 - (i - kDExpC); ++k) f *= k;
    return d(1.0 / f);
  }
  if (i >= kDLogC && i < kDLogC + 9) return d(1.0 / double(17 - 2 * (i - kDLogC)));  // 1/17 .. 1/1
  switch (i) {
    case kDOne: return d(1.0);
    case kDExpHi: return d(200.0);
    case kDExpLo: return d(-200.0);
    case kDLog2e: return d(1.4426950408889634);
    case kDLn2Hi: return 0x3fe62e42fee00000ull;  // fdlibm ln2_hi (32 trailing zero bits)
    case kDLn2Lo: return 0x3dea39ef35793c76ull;  // ln2 - ln2_hi
    case kI64Bias: return 1023;
    case kDMantMask: return 0x000fffffffffffffull;
    case kDExpOne: return 0x3ff0000000000000ull;
    case kDMagic: return 0x4330000000000000ull;
    case kDMagicBias: return d(4503599627370496.0 + 1023.0);
    case kDSqrt2: return d(1.4142135623730951);
    case kDHalf: return d(0.5);
    default: return 0;
  }
}

}  // namespace ptoas::cg
