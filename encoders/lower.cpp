// Target-neutral lowering facts (lower.h).
#include "lower.h"

#include <algorithm>

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

}  // namespace ptoas::cg
