// Scratch (tmp) tile contracts of PTOAS 0.60's tile-op verifiers (its
// level-3 rule that a scratch tile must be written out is a code generation
// rule: verify_implicit_tmp.cpp).
//   tpow/tpows   precisionType per arch; integer forms take no tmp; tmp of
//                dst's element type, row-major, dst's valid shape, and on
//                A2/A3 at least dst's bytes
//   trem/trems   A2/A3 tmp of dst's element type, >= 2 / >= 1 valid rows,
//                covering dst's valid columns
//   tsel         A2/A3 tmp of 4-byte elements, >= 16 (16-bit data) or 8
//                (32-bit data) bytes
//   txor/txors   A2/A3 tmp of the data's element type, row-major
//   tprelu       A2/A3 tmp of u8 masks: dst rows + 1 physical rows, at least
//                ceil(dst valid cols / 8) valid columns
//   trsqrt, trowexpanddiv   high_precision needs a tmp
//   tcolsum      isBinary: tmp at least src's valid columns wide
#include "verify_tile_util.h"

namespace ptoas::verify_detail {
namespace {

// The tmp tile: the `index`-th ins operand when present and a tile.
const Type* tmp_at(const Ctx& c, const Inst& in, unsigned index) {
  return in.n_ins > index ? tile_of(c, c.operand(in, index)) : nullptr;
}

uint64_t capacity_bytes(const Type* t) {
  return uint64_t(std::max(0, t->rows)) * uint64_t(std::max(0, t->cols)) * elem_bytes(t->elem);
}

bool need_capacity(Ctx& c, const Inst& in, const Type* tmp, uint64_t need) {
  uint64_t have = capacity_bytes(tmp);
  if (have >= need) return true;
  c.error(in.loc, op_err(in) + "expects tmp capacity to be at least " + std::to_string(need) +
                      " bytes, but got " + std::to_string(have) + " bytes");
  return false;
}

bool is_int_8_16_32(DType d) { return is_int_width(d, 8) || is_int_width(d, 16) || is_int_width(d, 32); }

// ---- tpow / tpows: ins(base, exp | scalar[, tmp]) --------------------------------
void tpow(Ctx& c, const Inst& in) {
  const std::string p = op_err(in);
  const char* name = in.op == Op::TPow ? "tpow" : "tpows";
  const Type* d = tile_of(c, out0(c, in));
  if (!d) return;
  DType e = d->elem;
  bool is_int = is_int_8_16_32(e);
  bool hp = c.kv(in, "precisionType") == "high_precision";
  if (c.arch != Arch::A5) {
    if (hp) return c.error(in.loc, p + "A2/A3 does not support precisionType=high_precision");
    if (!(is_int || e == DType::F32))
      return c.error(in.loc, p + "expects A2/A3 " + name + " element type to be i8/i16/i32 or f32");
  } else if (hp) {
    if (!(e == DType::F16 || e == DType::F32 || e == DType::BF16))
      return c.error(in.loc, p + "expects A5 " + name + " element type to be f16/f32/bf16 when "
                                 "precisionType=high_precision");
  } else if (!(is_int || e == DType::F16 || e == DType::F32)) {
    return c.error(in.loc, p + "expects A5 " + name + " element type to be i8/i16/i32/f16/f32 when "
                               "precisionType=default");
  }
  const Type* tmp = tmp_at(c, in, 2);
  if (!tmp) return;
  if (is_int)
    return c.error(in.loc, p + "does not accept tmp when element type is integer (the integer " +
                               (in.op == Op::TPow ? "pow" : "pows") + " lowering uses the 3-operand form)");
  if (tmp->elem != e) return c.error(in.loc, p + "expects tmp and dst to have the same element type");
  if (!is_row_major(tmp)) return c.error(in.loc, p + "expects tmp to use row-major layout");
  if (!compatible(tmp->vrow, d->vrow) || !compatible(tmp->vcol, d->vcol))
    return c.error(in.loc, p + "expects tmp and dst to have the same valid_shape");
  if (c.arch != Arch::A5) need_capacity(c, in, tmp, capacity_bytes(d));
}

// ---- trem / trems: ins(src0, src1 | scalar[, tmp]) -------------------------------
void trem(Ctx& c, const Inst& in) {
  if (c.arch == Arch::A5) return;
  const Type* tmp = tmp_at(c, in, 2);
  const Type* d = tile_of(c, out0(c, in));
  if (!tmp || !d) return;
  const std::string p = op_err(in);
  // trem's A2/A3 scratch holds two rows of dst; a single-row dst is served
  // by one (0.27's test/basic/trem_emitc.pto, a 1x16 tmp for a 1x16 dst).
  int32_t rows = in.op == Op::TRem && !(is_static(d->vrow) && d->vrow == 1) ? 2 : 1;
  if (tmp->elem != d->elem) return c.error(in.loc, p + "expects tmp and dst to have the same element type");
  if (is_static(tmp->vrow) && tmp->vrow < rows)
    return c.error(in.loc, p + "expects A2/A3 tmp valid_shape[0] to be at least " + std::to_string(rows));
  if (is_static(d->vcol) && is_static(tmp->vcol) && tmp->vcol < d->vcol)
    return c.error(in.loc, p + "expects A2/A3 tmp valid columns to cover dst valid columns");
  need_capacity(c, in, tmp, uint64_t(rows) * uint64_t(std::max(0, d->cols)) * elem_bytes(d->elem));
}

// ---- tsel: ins(mask, src0, src1[, tmp]) ------------------------------------------
void tsel(Ctx& c, const Inst& in) {
  if (c.arch == Arch::A5) return;
  const Type* tmp = tmp_at(c, in, 3);
  const Type* d = tile_of(c, out0(c, in));
  if (!tmp || !d) return;
  const std::string p = op_err(in);
  if (elem_bytes(tmp->elem) != 4)
    return c.error(in.loc, p + "expects A2/A3 tsel tmp element type to be 4 bytes wide");
  unsigned bits = elem_bytes(d->elem) * 8;
  if (bits != 16 && bits != 32)
    return c.error(in.loc, p + "expects A2/A3 tsel data element type to be 16 or 32 bits");
  need_capacity(c, in, tmp, bits == 16 ? 16 : 8);
}

// ---- txor / txors: ins(src0, src1 | scalar[, tmp]) -------------------------------
void txor(Ctx& c, const Inst& in) {
  if (c.arch == Arch::A5) return;
  const Type* tmp = tmp_at(c, in, 2);
  const Type* d = tile_of(c, out0(c, in));
  if (!tmp || !d) return;
  const std::string p = op_err(in);
  if (tmp->elem != d->elem)
    return c.error(in.loc, p + (in.op == Op::TXorS
                                    ? "expects tmp to have the same element type as src and dst"
                                    : "expects tmp to have the same element type as src0, src1, and dst"));
  if (!is_row_major(tmp)) return c.error(in.loc, p + "expects tmp to use row-major layout");
  if (in.op == Op::TXor && (!compatible(tmp->vrow, d->vrow) || !compatible(tmp->vcol, d->vcol)))
    return c.error(in.loc, p + "expects tmp and dst to have the same valid_shape");
  need_capacity(c, in, tmp, capacity_bytes(d));
}

// ---- tprelu: ins(src0, src1[, tmp]) ----------------------------------------------
void tprelu(Ctx& c, const Inst& in) {
  if (c.arch == Arch::A5) return;
  const Type* tmp = tmp_at(c, in, 2);
  const Type* d = tile_of(c, out0(c, in));
  if (!tmp || !d) return;
  const std::string p = op_err(in);
  if (!is_int_width(tmp->elem, 8)) return c.error(in.loc, p + "expects A2/A3 tmp element type to be u8");
  if (is_static(d->vrow) && tmp->rows < d->vrow + 1)
    return c.error(in.loc, p + "expects A2/A3 tmp shape[0] to be at least dst valid_shape[0] + 1 (" +
                               std::to_string(d->vrow + 1) + ")");
  if (is_static(d->vcol) && is_static(tmp->vcol)) {
    int32_t packed = (d->vcol + 7) / 8;
    if (tmp->vcol < packed)
      return c.error(in.loc, p + "expects A2/A3 tmp valid_shape[1] to be at least ceil(dst "
                                 "valid_shape[1] / 8) (" + std::to_string(packed) + ")");
  }
}

// ---- precision types that need a tmp -----------------------------------------------
void high_precision_tmp(Ctx& c, const Inst& in, unsigned tmp_index) {
  if (c.kv(in, "precisionType") == "high_precision" && in.n_ins <= tmp_index)
    c.error(in.loc, op_err(in) + "expects tmp when precisionType is high_precision");
}

// ---- tcolsum: ins(src[, tmp]) {isBinary} ---------------------------------------------
void tcolsum(Ctx& c, const Inst& in) {
  int64_t binary = 0;
  const Type* s = in.n_ins ? tile_of(c, c.operand(in, 0)) : nullptr;
  const Type* tmp = tmp_at(c, in, 1);
  if (!s || !tmp || !attr_int(c, in, "isBinary", binary) || !binary) return;
  if (is_static(s->vcol) && tmp->cols < s->vcol)
    c.error(in.loc, op_err(in) + "expects tmp shape[1] to be at least src valid_shape[1] when isBinary "
                                 "is true; got " + std::to_string(tmp->cols) + " vs " +
                                 std::to_string(s->vcol));
}

}  // namespace

void verify_tile_tmp_inst(Ctx& c, const Inst& in) {
  switch (in.op) {
    case Op::TPow: case Op::TPowS: return tpow(c, in);
    case Op::TRem: case Op::TRemS: return trem(c, in);
    case Op::TSel: return tsel(c, in);
    case Op::TXor: case Op::TXorS: return txor(c, in);
    case Op::TPrelu: return tprelu(c, in);
    case Op::TRsqrt: return high_precision_tmp(c, in, 1);
    case Op::TRowExpandDiv: return high_precision_tmp(c, in, 2);
    case Op::TColSum: return tcolsum(c, in);
    default: return;
  }
}

}  // namespace ptoas::verify_detail
