// Gather and scatter: tgather (mask-pattern, index and compare forms),
// tscatter (index and mask-pattern forms), mgather and mscatter (coalesce
// modes; mgather's GM -> L1 form). The rules and their words follow PTOAS
// 0.60's TGatherOp/TScatterOp/MGatherOp/MScatterOp verifiers.
//
// Operands as bound (asm/binder_dps.cpp):
//   tgather  mask     ins(src) outs(dst) {maskPattern, axis}
//            index    ins(src, indices[, tmp]) outs(dst)
//            compare  ins(src, kValue[, tmp]) outs(dst, cdst) {cmpMode}
//   tscatter index    ins(src, indexes) outs(dst)
//            mask     ins(src) outs(dst) {maskPattern, axis}
//   mgather  ins(mem, idx[, scratch]) outs(dst) {coalesce, gatherOob}
//   mscatter ins(src, idx) outs(mem) {coalesce, scatterAtomicOp, ...}
#include "verify_tile_util.h"

namespace ptoas::verify_detail {
namespace {

// How many source elements one destination element stands for under a mask
// pattern (PTO-ISA's TGATHER/TSCATTER mask forms).
unsigned mask_times(std::string_view p) {
  if (p == "P1111") return 1;
  if (p == "P0101" || p == "P1010") return 2;
  return 4;
}

bool is_f8_like(DType d) {
  return d == DType::F8E4M3 || d == DType::F8E4M3FN || d == DType::F8E5M2 || d == DType::HiF8;
}

// A2/A3 gather data: i16/i32/f16/f32 (any signedness).
bool gather_elem_a3(DType d) {
  return d == DType::F16 || d == DType::F32 || is_int_width(d, 16) || is_int_width(d, 32);
}
// A5 mask-pattern gather data: the A2/A3 set, bf16, 8-bit ints and floats.
bool gather_elem_a5(DType d) {
  return gather_elem_a3(d) || d == DType::BF16 || is_int_width(d, 8) || is_f8_like(d);
}
// A5 index-form gather data: 8-bit floats, f16, f32, 8/16/32-bit ints.
bool gather_elem_a5_index(DType d) {
  return is_f8_like(d) || d == DType::F16 || d == DType::F32 || is_int_width(d, 8) ||
         is_int_width(d, 16) || is_int_width(d, 32);
}

// The valid-shape rules of both mask forms. `gather`: the source is the
// wide side (src = dst * times); scatter widens the destination.
bool check_mask_shapes(Ctx& c, const Inst& in, const Type* s, const Type* d, bool gather) {
  std::string axis = c.kv(in, "axis");
  if (axis.empty()) {
    c.error(in.loc, q(in.op) + " op expects mask-pattern " + (gather ? "tgather" : "tscatter") +
                        " to provide axis attribute");
    return false;
  }
  int64_t t = mask_times(c.kv(in, "maskPattern"));
  // wide = narrow * times along the axis; the other extent is equal.
  const Type* wide = gather ? s : d;
  const Type* narrow = gather ? d : s;
  const char* wide_name = gather ? "src" : "dst";
  const char* narrow_name = gather ? "dst" : "src";
  std::string p = q(in.op) + " op expects ";
  if (axis == "row") {
    if (is_static(s->vrow) && is_static(d->vrow) && s->vrow != d->vrow) {
      c.error(in.loc, p + "dst valid rows to equal src valid rows for row direction");
      return false;
    }
    if (is_static(wide->vcol) && is_static(narrow->vcol) && wide->vcol != narrow->vcol * t) {
      c.error(in.loc, p + wide_name + " valid cols to equal " + narrow_name +
                          " valid cols times the mask expansion factor for row direction");
      return false;
    }
  } else if (axis == "col") {
    if (is_static(s->vcol) && is_static(d->vcol) && s->vcol != d->vcol) {
      c.error(in.loc, p + "dst valid cols to equal src valid cols for col direction");
      return false;
    }
    if (is_static(wide->vrow) && is_static(narrow->vrow) && wide->vrow != narrow->vrow * t) {
      c.error(in.loc, p + wide_name + " valid rows to equal " + narrow_name +
                          " valid rows times the mask expansion factor for col direction");
      return false;
    }
  } else {
    c.error(in.loc, q(in.op) + " op Invalid axis value, expected \"row\" or \"col\"");
    return false;
  }
  return true;
}

void tgather_mask(Ctx& c, const Inst& in) {
  const std::string p = q(in.op) + " op ";
  const Type* s = tile_of(c, c.operand(in, 0));
  const Type* d = tile_of(c, c.operand(in, in.n_ins));
  if (!s || !d) return;
  if (!is_row_major(s) || !is_row_major(d))
    return c.error(in.loc, p + "expects src and dst to use row-major layout");
  if (s->loc != Loc::Vec || d->loc != Loc::Vec)
    return c.error(in.loc, p + "expects src and dst to be in the vec address space");
  unsigned sb = elem_bytes(s->elem), db = elem_bytes(d->elem);
  if (sb && db && sb != db) return c.error(in.loc, p + "expects src and dst element sizes to match");
  if (is_static(d->vcol) && d->vcol != d->cols)
    return c.error(in.loc, p + "expects dst valid_shape[1] to equal dst cols");
  // Without an axis this is 0.27's mask form (src and dst of one shape);
  // 0.60 added the axis and the expansion factor.
  if (has_attr(c, in, "axis") && !check_mask_shapes(c, in, s, d, true)) return;
  if (c.arch != Arch::A5) {
    if (sb != 2 && sb != 4)
      c.error(in.loc, p + "expects A2/A3 mask-pattern gather element size to be 2 or 4 bytes");
  } else if (sb != 1 && sb != 2 && sb != 4) {
    c.error(in.loc, p + "expects A5 mask-pattern gather element size to be 1, 2, or 4 bytes");
  } else if (!gather_elem_a5(s->elem) || !gather_elem_a5(d->elem)) {
    c.error(in.loc, p + "expects A5 mask-pattern gather src/dst element type to be "
                        "i8/i16/i32/f16/bf16/f32/fp8-like");
  }
}

void tgather_index(Ctx& c, const Inst& in) {
  const std::string p = q(in.op) + " op ";
  bool a5 = c.arch == Arch::A5;
  ValueId tmpv = in.n_ins > 2 ? c.operand(in, 2) : kNone;
  if (in.n_ins < 2)
    return c.error(in.loc, p + (a5 ? "index-form tgather expects indices"
                                   : "index-form tgather expects both indices and tmp"));
  if (!a5 && tmpv == kNone) return c.error(in.loc, p + "index-form tgather expects both indices and tmp");
  const Type* s = tile_of(c, c.operand(in, 0));
  const Type* ix = tile_of(c, c.operand(in, 1));
  const Type* d = tile_of(c, c.operand(in, in.n_ins));
  const Type* tmp = tmpv == kNone ? nullptr : tile_of(c, tmpv);
  if (!s || !ix || !d) return;
  if (s->elem != d->elem) return c.error(in.loc, p + "expects src and dst to have the same element type");
  if (a5 ? !gather_elem_a5_index(s->elem) : !gather_elem_a3(s->elem))
    return c.error(in.loc, p + (a5 ? "expects A5 gather src/dst element type to be i8/i16/i32/f16/f32"
                                   : "expects gather src/dst element type to be i16/i32/f16/f32"));
  if (!dtype_is_int(ix->elem)) return c.error(in.loc, p + "indices element type must be integer");
  if (!(is_int_width(ix->elem, 32) || (a5 && is_int_width(ix->elem, 16))))
    return c.error(in.loc, p + "expects indices element type to be i32" + (a5 ? " or i16" : ""));
  if (is_static(d->vcol) && d->vcol != d->cols)
    return c.error(in.loc, p + "expects dst valid_shape[1] to equal dst cols");
  if (is_static(ix->vcol) && ix->vcol != ix->cols)
    return c.error(in.loc, p + "expects indices valid_shape[1] to equal indices cols");
  if (a5 || !tmp) return;
  if (!compatible(d->vrow, ix->vrow) || !compatible(d->vcol, ix->vcol))
    return c.error(in.loc, p + "expects dst and indices to have the same valid_shape");
  if (!is_row_major(d) || !is_row_major(ix) || !is_row_major(tmp))
    return c.error(in.loc, p + "expects A2/A3 index-form dst, indices, and tmp to use row-major layout");
  if (tmp->elem != ix->elem)
    return c.error(in.loc, p + "expects tmp and indices to have the same element type");
  if (!compatible(ix->vrow, tmp->vrow) || !compatible(ix->vcol, tmp->vcol))
    c.error(in.loc, p + "expects indices and tmp to have the same valid_shape");
}

void tgather_compare(Ctx& c, const Inst& in) {
  const std::string p = q(in.op) + " op ";
  if (in.n_outs != 2 || in.n_ins != 3)
    return c.error(in.loc, p + "compare-form tgather expects dst, cdst, kValue, and tmp");
  const Type* s = tile_of(c, c.operand(in, 0));
  const Type* k = c.vtype(c.operand(in, 1));
  const Type* d = tile_of(c, c.operand(in, 3));
  const Type* cd = tile_of(c, c.operand(in, 4));
  if (!s || !k || !d || !cd) return;
  if (!is_int_width(d->elem, 32)) return c.error(in.loc, p + "expects dst element type to be i32");
  if (cd->elem != d->elem) return c.error(in.loc, p + "expects cdst to have the same element type as dst");
  if (k->kind == TypeKind::Scalar && k->elem != s->elem)
    return c.error(in.loc, p + "expects kValue to have the same type as src element type");
  std::string mode = c.kv(in, "cmpMode");
  bool eq = mode.empty() || mode == "eq" || mode == "EQ";
  if (!eq && mode != "gt" && mode != "GT")
    return c.error(in.loc, p + "expects compare-form tgather cmpMode to be eq or gt");
  DType e = s->elem;
  if (c.arch == Arch::A5) {
    if (!(e == DType::F16 || e == DType::F32 || is_int_width(e, 16) || is_int_width(e, 32)))
      c.error(in.loc, p + "expects A5 compare-form tgather src element type to be i16/i32/f16/f32");
  } else if (!(e == DType::F16 || e == DType::F32 || (is_int_width(e, 32) && eq))) {
    c.error(in.loc, p + "expects A2/A3 compare-form tgather src element type to be f16/f32, or "
                        "i32 when cmpMode=eq");
  }
}

void tgather(Ctx& c, const Inst& in) {
  if (in.n_ins < 1 || in.n_outs < 1) return;
  if (has_attr(c, in, "maskPattern")) {
    if (in.n_ins != 1 || in.n_outs != 1)
      return c.error(in.loc, q(in.op) + " op mask-pattern tgather only allows src and dst operands");
    return tgather_mask(c, in);
  }
  if (has_attr(c, in, "axis"))
    return c.error(in.loc, q(in.op) + " op axis attribute must not be provided without maskPattern");
  const Type* second = in.n_ins > 1 ? c.vtype(c.operand(in, 1)) : nullptr;
  if (in.n_outs > 1 || (second && second->kind == TypeKind::Scalar)) return tgather_compare(c, in);
  tgather_index(c, in);
}

void tscatter(Ctx& c, const Inst& in) {
  const std::string p = q(in.op) + " op ";
  bool indexes = in.n_ins > 1, mask = has_attr(c, in, "maskPattern");
  if (indexes == mask)
    return c.error(in.loc, p + "expects exactly one of indexes operand or maskPattern attribute");
  if (indexes) {
    if (has_attr(c, in, "axis"))
      c.error(in.loc, p + "axis attribute must not be provided with indexes operand");
    return;
  }
  const Type* s = tile_of(c, c.operand(in, 0));
  const Type* d = in.n_outs ? tile_of(c, c.operand(in, in.n_ins)) : nullptr;
  if (!s || !d) return;
  if (s->loc != Loc::Vec || d->loc != Loc::Vec)
    return c.error(in.loc, p + "expects src and dst to be in the vec address space");
  if (s->elem != d->elem) return c.error(in.loc, p + "expects src and dst to have the same element type");
  DType e = s->elem;
  if (!(e == DType::F16 || e == DType::F32 || e == DType::BF16 || is_int_width(e, 8) ||
        is_int_width(e, 16) || is_int_width(e, 32)))
    return c.error(in.loc, p + "expects src/dst element type to be i8/i16/i32/f16/bf16/f32");
  if (!check_mask_shapes(c, in, s, d, false)) return;
  if (!is_row_major(s) || !is_row_major(d))
    c.error(in.loc, p + "expects mask-pattern tscatter to use row_major blayout");
}

// mgather/mscatter idx against the data tile under a coalesce mode.
void check_coalesce_shape(Ctx& c, const Inst& in, const Type* data, const Type* idx,
                          const std::string& mode, const char* data_name) {
  auto unit = [](int32_t v) { return v == kDyn || v == 0 || v == 1; };
  bool row_major = idx->blayout == BLayout::RowMajor;
  bool row_1xr = row_major && unit(idx->vrow) && compatible(idx->vcol, data->vrow);
  bool row_rx1 = !row_major && compatible(idx->vrow, data->vrow) && unit(idx->vcol);
  bool elem = compatible(idx->vrow, data->vrow) && compatible(idx->vcol, data->vcol);
  std::string p = q(in.op) + " op expects ";
  std::string dn(data_name);
  if (mode == "row" && !(row_1xr || row_rx1))
    c.error(in.loc, p + "row-coalesce idx valid_shape to be [0|1, " + dn + ".valid_row] or [" + dn +
                        ".valid_row, 0|1]");
  else if (mode == "elem" && !elem)
    c.error(in.loc, p + "elem-coalesce idx valid_shape to match " + dn + " valid_shape");
}

void mgather(Ctx& c, const Inst& in) {
  const std::string p = q(in.op) + " op ";
  if (in.n_ins < 2 || in.n_outs < 1) return;
  std::string mode = c.kv(in, "coalesce");
  const Type* d = tile_of(c, c.operand(in, in.n_ins));
  const Type* idx_t = c.vtype(c.operand(in, 1));
  if (d && d->loc == Loc::Mat) {
    // GM -> L1: an NZ destination filled from a GM index table.
    if (!is_nz(d))
      return c.error(in.loc, p + "expects GM->L1 mgather dst (loc=mat) to use blayout=col_major and "
                                 "slayout=row_major (NZ)");
    if (d->fractal != 512) return c.error(in.loc, p + "expects GM->L1 mgather dst fractal size to be 512");
    if (idx_t && idx_t->kind == TypeKind::TileBuf)
      return c.error(in.loc, p + "expects GM->L1 mgather idx to be a GM tensor partition_tensor_view, "
                                 "not a tile_buf");
    if (idx_t && idx_t->kind != TypeKind::PartitionView)
      return c.error(in.loc, p + "expects GM->L1 mgather idx to be a partition_tensor_view");
    if (idx_t && !is_int_width(idx_t->elem, 32))
      return c.error(in.loc, p + "expects GM->L1 mgather idx element type to be i32");
    if (mode.empty())
      return c.error(in.loc, p + "expects GM->L1 mgather to specify an explicit coalesce attribute "
                                 "(row or elem)");
    bool scratch = in.n_ins > 2;
    if (mode == "elem" && !scratch)
      return c.error(in.loc, p + "expects GM->L1 mgather with coalesce=elem to provide a GM scratch operand");
    if (mode == "row" && scratch)
      return c.error(in.loc, p + "expects GM->L1 mgather with coalesce=row to omit the scratch operand");
    if (scratch) {
      const Type* sc = c.vtype(c.operand(in, 2));
      if (sc && sc->kind != TypeKind::PartitionView)
        return c.error(in.loc, p + "expects GM->L1 mgather scratch to be a partition_tensor_view");
      if (sc && sc->elem != d->elem)
        return c.error(in.loc, p + "expects GM->L1 mgather scratch element type to match dst element type");
    }
    return;
  }
  // GM -> UB.
  if (in.n_ins > 2) return c.error(in.loc, p + "expects scratch operand only on GM->L1 (loc=mat) mgather");
  if (!idx_t || idx_t->kind != TypeKind::TileBuf)
    return c.error(in.loc, q(in.op) + " ins operand #1 must be a tile (tile_buf or local memref) "
                                      "unless dst is in loc=mat, got " + c.type_text(c.operand(in, 1)));
  if (mode.empty()) return c.error(in.loc, p + "requires attribute 'coalesce'");
  if (d) check_coalesce_shape(c, in, d, idx_t, mode, "dst");
}

void mscatter(Ctx& c, const Inst& in) {
  if (in.n_ins < 2) return;
  std::string mode = c.kv(in, "coalesce");
  if (mode.empty()) {
    if (has_attr(c, in, "scatterAtomicOp") || has_attr(c, in, "scatterOob") ||
        has_attr(c, in, "scatterConflict"))
      c.error(in.loc, q(in.op) + " op expects coalesce when scatterAtomicOp/scatterOob/scatterConflict "
                                 "is specified");
    return;
  }
  const Type* s = tile_of(c, c.operand(in, 0));
  const Type* idx = tile_of(c, c.operand(in, 1));
  if (s && idx) check_coalesce_shape(c, in, s, idx, mode, "src");
}

}  // namespace

void verify_tile_gather_inst(Ctx& c, const Inst& in) {
  switch (in.op) {
    case Op::TGather: return tgather(c, in);
    case Op::TScatter: return tscatter(c, in);
    case Op::MGather: return mgather(c, in);
    case Op::MScatter: return mscatter(c, in);
    default: return;
  }
}

}  // namespace ptoas::verify_detail
