// Per-op rules of PTOAS 0.60's tile-op verifiers for the data-movement,
// conversion, quantization and reduction-shape ops:
//   tinsert (loc pairs, layouts, element types, quantization forms, modes),
//   tfillpad (no 'mode'; homogeneous mat form; element size; dst pad),
//   tcvt (logical extents with packed fp4, A5 low-precision pairs),
//   thistogram (A5 only; byte / legacy isMSB), tquant (INT8 forms and A2/A3
//   fp/offset/tmp), tquant.mx (group width), taddrelu (A2/A3 only),
//   tmrgsort format2 tmp, tcolargmax/min and trowexpand valid shapes
//   (issue 708: 0x0 is the empty-replay marker, one-sided zeros are not).
// Messages keep the official words (`'pto.x' op expects ...`).
#include "verify_tile_util.h"

namespace ptoas::verify_detail {
namespace {

bool is_i8(DType d) { return is_int_width(d, 8); }

// ---- tinsert ------------------------------------------------------------------

// Quantizing pairs through fp / preQuantScalar.
bool a5_prequant_pair(DType s, DType d) {
  if (s == DType::F32)
    return is_i8(d) || d == DType::F8E4M3 || d == DType::F8E4M3FN || d == DType::F8E5M2 ||
           d == DType::HiF8 || d == DType::F16 || d == DType::BF16 || d == DType::F32;
  if (is_int_width(s, 32)) return is_i8(d) || d == DType::F16 || d == DType::BF16;
  return false;
}
bool a3_prequant_pair(DType s, DType d) {
  if (s == DType::F32) return is_i8(d);
  if (is_int_width(s, 32)) return is_i8(d) || d == DType::F16 || is_int_width(d, 16);
  return false;
}
// A5 vec-source tinsert data (0.60 added the packed fp4 pairs).
bool a5_vec_elem(DType d) {
  return d == DType::F8E4M3 || d == DType::F8E4M3FN || d == DType::F8E5M2 || d == DType::HiF8 ||
         is_fp4(d) || d == DType::F16 || d == DType::BF16 || d == DType::F32 || is_i8(d) ||
         is_int_width(d, 32);
}

void tinsert(Ctx& c, const Inst& in) {
  const std::string p = op_err(in);
  bool fp = in.op == Op::TInsertFp;
  if (in.n_ins < 1 || in.n_outs < 1) return;
  const Type* s = tile_of(c, c.operand(in, 0));
  const Type* d = tile_of(c, out0(c, in));
  if (!s || !d) return;
  bool a5 = c.arch == Arch::A5;
  // The scalar after (src, row, col) is preQuantScalar.
  bool prequant = !fp && in.n_ins > 3;
  std::string relu = c.kv(in, "reluPreMode");
  bool relu_on = !relu.empty() && relu != "no_relu";
  bool acc = s->loc == Loc::Acc;
  if (fp) {
    if (!acc) return c.error(in.loc, p + "fp is only valid with src loc=acc");
    const Type* f = tile_of(c, c.operand(in, 1));
    if (f && f->loc != Loc::Scaling) return c.error(in.loc, p + "expects fp to be loc=scaling");
  }
  if (prequant && !acc) return c.error(in.loc, p + "preQuantScalar is only valid with src loc=acc");
  if (relu_on && !acc) return c.error(in.loc, p + "reluPreMode is only valid with src loc=acc");
  bool acc_to_vec_mode = has_attr(c, in, "accToVecMode");
  bool insert_mode = has_attr(c, in, "tinsertMode");
  if (acc_to_vec_mode) {
    if (!a5) return c.error(in.loc, p + "accToVecMode is only supported on A5");
    if (!acc || d->loc != Loc::Vec)
      return c.error(in.loc, p + "accToVecMode is only valid with src=acc, dst=vec");
  }
  if (insert_mode) {
    if (!a5) return c.error(in.loc, p + "tinsertMode is only supported on A5");
    if (s->loc != Loc::Vec || d->loc != Loc::Mat)
      return c.error(in.loc, p + "tinsertMode (SPLIT2/SPLIT4) is only valid with src=vec, dst=mat");
    if (!is_nz(s))
      return c.error(in.loc, p + "tinsertMode (SPLIT2/SPLIT4) requires src NZ layout "
                                 "(blayout=col_major, slayout=row_major)");
  }
  bool quant = fp || prequant;
  DType se = s->elem, de = d->elem;
  if (!a5) {
    if (s->loc == Loc::Vec && d->loc == Loc::Vec) {
      if (prequant || relu_on)
        return c.error(in.loc, p + "expects vec->vec tinsert to use the base form without "
                                   "preQuantScalar or reluPreMode");
      if (se != de || !(is_i8(se) || se == DType::F16 || se == DType::BF16 || se == DType::F32))
        c.error(in.loc, p + "expects A2/A3 vec->vec tinsert src/dst to have same supported dtype "
                            "(i8/f16/bf16/f32)");
      return;
    }
    if (!acc || d->loc != Loc::Mat)
      return c.error(in.loc, p + "expects A2/A3 tinsert to use acc->mat or vec->vec");
    if (!is_nz(s))
      return c.error(in.loc, p + "expects A2/A3 tinsert src to use blayout=col_major and slayout=row_major");
    if (!is_nz(d))
      return c.error(in.loc, p + "expects A2/A3 tinsert dst to use blayout=col_major and slayout=row_major");
    if (d->fractal != 512) return c.error(in.loc, p + "expects A2/A3 tinsert dst fractal size to be 512");
    if (quant ? !a3_prequant_pair(se, de)
              : !(se == DType::F32 && (de == DType::F16 || de == DType::BF16)))
      c.error(in.loc, p + (quant ? "expects A2/A3 acc fp/preQuantScalar tinsert element types to be "
                                   "(src=f32,dst=i8) or (src=i32,dst=i8/f16/i16)"
                                 : "expects A2/A3 tinsert element types to be src=f32, dst=f16/bf16, "
                                   "got src=" + dname(se) + ", dst=" + dname(de)));
    return;
  }
  if (acc && (d->loc == Loc::Mat || d->loc == Loc::Vec)) {
    if (!is_nz(s))
      return c.error(in.loc, p + "expects A5 acc->mat tinsert src to use blayout=col_major and slayout=row_major");
    if (d->loc == Loc::Mat && !is_nz(d))
      return c.error(in.loc, p + "expects A5 acc->mat tinsert dst to use blayout=col_major and slayout=row_major");
    if (d->loc == Loc::Vec && !is_nd(d) && !is_nz(d))
      return c.error(in.loc, p + "expects A5 acc->vec tinsert dst to use ND(row_major/none_box) or "
                                 "NZ(col_major/row_major) layout");
    bool ok = quant ? a5_prequant_pair(se, de)
                    : (se == DType::F32 && (de == DType::F16 || de == DType::BF16 || de == DType::F32)) ||
                          (is_int_width(se, 32) && is_int_width(de, 32));
    if (!ok)
      c.error(in.loc, p + "expects A5 acc-source tinsert element types to be (src=f32,dst=f16/bf16/f32) "
                          "or (src=i32,dst=i32)" +
                          (quant ? "; with fp/scalar: (src=f32,dst=i8/fp8/f16/bf16/f32) or "
                                   "(src=i32,dst=i8/f16/bf16)"
                                 : ""));
    return;
  }
  if (s->loc == Loc::Vec && (d->loc == Loc::Mat || d->loc == Loc::Vec)) {
    const char* kind = d->loc == Loc::Mat ? "vec->mat" : "vec->vec";
    if (prequant || relu_on)
      return c.error(in.loc, p + "expects " + kind + " tinsert to use the base form without "
                                 "preQuantScalar or reluPreMode");
    if (d->loc == Loc::Mat) {
      if (!is_nz(d))
        return c.error(in.loc, p + "expects A5 vec->mat tinsert dst to use blayout=col_major and slayout=row_major");
      if (!is_nd(s) && !is_nz(s))
        return c.error(in.loc, p + "expects A5 vec->mat tinsert src to use ND(row_major/none_box) or "
                                   "NZ(col_major/row_major) layout");
    } else if (!((is_nd(s) && is_nd(d)) || (is_nz(s) && is_nz(d)))) {
      return c.error(in.loc, p + "expects A5 vec->vec tinsert src/dst layouts to match: both "
                                 "ND(row_major/none_box) or both NZ(col_major/row_major)");
    }
    if (se != de || !a5_vec_elem(se))
      c.error(in.loc, p + "expects A5 " + kind + " tinsert src/dst to have same supported dtype "
                          "(fp8/f16/bf16/f32/i8/i32)");
    return;
  }
  c.error(in.loc, p + "expects A5 tinsert to use a supported src/dst loc pair: acc->mat, acc->vec, "
                      "vec->mat, or vec->vec (got " + lname(s->loc) + "->" + lname(d->loc) + ")");
}

// ---- tfillpad -------------------------------------------------------------------

void tfillpad(Ctx& c, const Inst& in) {
  const std::string p = op_err(in);
  if (in.op == Op::TFillPad && has_attr(c, in, "mode"))
    return c.error(in.loc, p + "does not accept 'mode'; PTOAS infers TFILLPAD lowering from physical "
                               "shape and planned addresses");
  if (in.n_ins < 1 || in.n_outs < 1) return;
  const Type* s = tile_of(c, c.operand(in, 0));
  const Type* d = tile_of(c, out0(c, in));
  if (!s || !d) return;
  unsigned sb = elem_bytes(s->elem), db = elem_bytes(d->elem);
  if (sb && db && sb != db) return c.error(in.loc, p + "expects sizeof(src element) == sizeof(dst element)");
  if (sb != 1 && sb != 2 && sb != 4) return c.error(in.loc, p + "expects element size to be 1, 2, or 4 bytes");
  if (in.op == Op::TFillPad && s->loc == Loc::Mat && d->loc == Loc::Mat &&
      c.vtype_id(c.operand(in, 0)) != c.vtype_id(out0(c, in))) {
    auto ext = [](int32_t v) { return v == kDyn ? std::string("?") : std::to_string(v); };
    std::vector<std::string> fields;
    if (s->vrow != d->vrow) fields.push_back("v_row (" + ext(s->vrow) + " vs " + ext(d->vrow) + ")");
    if (s->vcol != d->vcol) fields.push_back("v_col (" + ext(s->vcol) + " vs " + ext(d->vcol) + ")");
    if (s->pad != d->pad)
      fields.push_back("pad (" + std::to_string(s->pad) + " vs " + std::to_string(d->pad) + ")");
    // The official message has no op prefix; the note says why.
    std::string m = "expects src/dst tile types to be lowerable to TFILLPAD for loc=mat";
    for (size_t i = 0; i < fields.size(); ++i) m += (i ? ", " : "; mismatching fields: ") + fields[i];
    c.error(in.loc, m);
    c.diag.note(in.loc, 0, "heterogeneous TFILLPAD overload is only available for loc=vec");
    return;
  }
  if (d->pad == 0) c.error(in.loc, "expects dst PadVal != Null for " + std::string(op_name(in.op)).substr(4));
}

// ---- tcvt -------------------------------------------------------------------------

// A tile's logical extent: a packed fp4 pair holds two values per column.
void logical_extent(const Type* t, bool valid, int64_t& r, int64_t& col) {
  r = valid ? t->vrow : t->rows;
  col = valid ? t->vcol : t->cols;
  if (col != kDyn && is_fp4(t->elem)) col *= 2;
}

bool a5_low_precision_cvt(DType s, DType d) {
  auto f8 = [](DType x) {
    return x == DType::F8E4M3 || x == DType::F8E4M3FN || x == DType::F8E5M2;
  };
  if (s == DType::F32) return f8(d) || d == DType::HiF8;
  if (s == DType::F16) return d == DType::HiF8;
  if (s == DType::BF16) return is_fp4(d);
  if (is_fp4(s)) return d == DType::BF16;
  if (f8(s) || s == DType::HiF8) return d == DType::F32;
  return false;
}

void tcvt(Ctx& c, const Inst& in) {
  const std::string p = op_err(in);
  if (in.n_ins < 1 || in.n_outs < 1) return;
  const Type* s = tile_of(c, c.operand(in, 0));
  const Type* d = tile_of(c, out0(c, in));
  if (!s || !d) return;
  for (bool valid : {false, true}) {
    int64_t sr, sc, dr, dc;
    logical_extent(s, valid, sr, sc);
    logical_extent(d, valid, dr, dc);
    if ((sr != kDyn && dr != kDyn && sr != dr) || (sc != kDyn && dc != kDyn && sc != dc))
      return c.error(in.loc, p + (valid ? "expects src and dst to have the same valid_shape"
                                        : "expects src and dst to have compatible shapes"));
  }
  bool low = is_low_precision(s->elem) || is_low_precision(d->elem);
  if (c.arch != Arch::A5 && low)
    c.error(in.loc, p + "expects A2/A3 tcvt low-precision element types to be unsupported");
  else if (c.arch == Arch::A5 && low && !a5_low_precision_cvt(s->elem, d->elem))
    c.error(in.loc, p + "expects A5 tcvt low-precision type pairs to match PTO-ISA support");
}

// ---- thistogram, tquant, tquant.mx ----------------------------------------------

void thistogram(Ctx& c, const Inst& in) {
  const std::string p = op_err(in);
  int64_t byte = 1, msb = 0;
  bool has_byte = attr_int(c, in, "byte", byte);
  if (attr_int(c, in, "isMSB", msb)) {
    if (has_byte && byte != (msb ? 1 : 0))
      return c.error(in.loc, p + "does not allow conflicting 'byte' and legacy 'isMSB' attributes");
    byte = msb ? 1 : 0;
  }
  if (byte < 0 || byte > 3) return c.error(in.loc, p + "expects byte to be in range [0, 3]");
  if (c.arch != Arch::A5) return c.error(in.loc, p + "thistogram is only supported on A5");
  const Type* s = in.n_ins ? tile_of(c, c.operand(in, 0)) : nullptr;
  if (s && s->elem == DType::U16 && byte > 1)
    c.error(in.loc, p + "expects byte to be 0 or 1 when src element type is ui16");
}

// tquant: ins(src, fp[, offset]) outs(dst[, tmp]) {quant_type}.
void tquant(Ctx& c, const Inst& in) {
  const std::string p = op_err(in);
  std::string qt = c.kv(in, "quant_type");
  bool asym = qt == "INT8_ASYM", sym = qt == "INT8_SYM";
  if (!asym && !sym) return;
  if (in.n_ins < 2) return c.error(in.loc, p + qt + " quantization requires an fp operand");
  if (sym && in.n_ins > 2) return c.error(in.loc, p + "INT8_SYM quantization must not have an offset operand");
  if (asym && in.n_ins < 3) return c.error(in.loc, p + "INT8_ASYM quantization requires an offset operand");
  const Type* src = tile_of(c, c.operand(in, 0));
  const Type* fp = tile_of(c, c.operand(in, 1));
  const Type* off = in.n_ins > 2 ? tile_of(c, c.operand(in, 2)) : nullptr;
  const Type* dst = tile_of(c, out0(c, in));
  const Type* tmp = in.n_outs > 1 ? tile_of(c, c.operand(in, in.n_ins + 1)) : nullptr;
  if (!src || !fp || !dst) return;
  if (!is_i8(dst->elem))
    return c.error(in.loc, p + "expects dst element type i8/ui8 for " + qt + " quantization");
  if (!compatible(src->vrow, dst->vrow) || !compatible(src->vcol, dst->vcol))
    return c.error(in.loc, p + "expects src and dst to have the same valid_shape");
  if (src->elem != DType::F32) return c.error(in.loc, p + "expects src to have element type f32");
  if (off && off->elem != DType::F32) return c.error(in.loc, p + "expects offset to have element type f32");
  if (tmp && tmp->elem != DType::F32) return c.error(in.loc, p + "expects tmp to have element type f32");
  // 0.27's tquant scales element by element (fp, offset: row-major tiles of
  // src's shape, test/basic/tquant_e2e.pto); 0.60's A2/A3 form takes one
  // scale per row (a non-row-major column). The A2/A3 rules below are the
  // per-row form's, so a row-major fp keeps the 0.27 meaning.
  if (c.arch == Arch::A5 || is_row_major(fp)) return;
  if (!is_row_major(src) || !is_row_major(dst))
    return c.error(in.loc, p + "expects A2/A3 src and dst to use row-major layout");
  if (tmp) {
    if (!is_row_major(tmp)) return c.error(in.loc, p + "expects A2/A3 tmp to use row-major layout");
    if (tmp->rows != src->rows || tmp->cols != src->cols)
      return c.error(in.loc, p + "expects A2/A3 tmp to have the same shape as src");
    if (!compatible(src->vrow, tmp->vrow) || !compatible(src->vcol, tmp->vcol))
      return c.error(in.loc, p + "expects src and tmp to have the same valid_shape");
  }
  for (auto [t, name] : {std::pair<const Type*, const char*>{fp, "fp"}, {off, "offset"}}) {
    if (!t) continue;
    std::string pn = p + "expects A2/A3 " + name;
    if (is_row_major(t)) return c.error(in.loc, pn + " to use non-row-major layout");
    if (!compatible(t->vrow, dst->vrow))
      return c.error(in.loc, pn + " valid_shape[0] to equal dst valid_shape[0]");
    if (is_static(t->vcol) && t->vcol != 1) return c.error(in.loc, pn + " valid_shape[1] to be 1");
  }
}

// tquant.mx: ins(src) outs(dst, exp, max, scaling[, exp_zz]) {quant_type, grpAxis}.
void tquant_mx(Ctx& c, const Inst& in) {
  if (in.n_ins < 1) return;
  const Type* s = tile_of(c, c.operand(in, 0));
  if (!s) return;
  bool axis0 = c.kv(in, "grpAxis") == "axis0";
  int32_t v = axis0 ? s->vrow : s->vcol;
  if (is_static(v) && v % 32 != 0)
    c.error(in.loc, op_err(in) + "expects src valid_shape[" + (axis0 ? "0" : "1") +
                        "] to be a multiple of 32 when grpAxis is " + (axis0 ? "axis0" : "axis1"));
}

// ---- single-arch ops and sort -------------------------------------------------------

void taddrelu(Ctx& c, const Inst& in) {
  if (c.arch == Arch::A5) return c.error(in.loc, op_err(in) + "taddrelu is only supported on A2/A3 targets");
  const Type* d = tile_of(c, out0(c, in));
  if (d && !(is_int_width(d->elem, 16) || d->elem == DType::F16 || d->elem == DType::F32))
    c.error(in.loc, op_err(in) + "expects element type to be i16/f16/f32");
}

// tmrgsort format2: ins(srcs..., tmp) outs(dst, excuted: vector<4xi16>).
void tmrgsort(Ctx& c, const Inst& in) {
  if (in.n_outs != 2 || in.n_ins < 3) return;
  const Type* tmp = tile_of(c, c.operand(in, in.n_ins - 1));
  const Type* dst = tile_of(c, out0(c, in));
  if (!tmp || !dst) return;
  const std::string p = op_err(in);
  if (tmp->elem != dst->elem) return c.error(in.loc, p + "format2 expects dst/tmp element types to match");
  if (dst->rows != 1 || tmp->rows != 1) return c.error(in.loc, p + "format2 expects dst/tmp rows == 1");
  if (tmp->cols < dst->cols) c.error(in.loc, p + "format2 expects tmp.cols >= dst.cols");
}

// ---- zero-valid rules of the reductions and expansions (issue 708) -------------------

void tcolarg(Ctx& c, const Inst& in) {
  if (in.n_ins < 1 || in.n_outs < 1) return;
  const std::string p = op_err(in);
  const Type* s = tile_of(c, c.operand(in, 0));
  const Type* d = tile_of(c, out0(c, in));
  if (!s || !d) return;
  if (is_static(d->vrow) && d->vrow != 1) return c.error(in.loc, p + "expects dst valid_shape[0] to be 1");
  if (is_static(s->vrow) && s->vrow == 0) return c.error(in.loc, p + "expects src valid_shape[0] to be non-zero");
  if (is_static(s->vcol) && s->vcol == 0) return c.error(in.loc, p + "expects src valid_shape[1] to be non-zero");
  if (!compatible(s->vcol, d->vcol))
    return c.error(in.loc, p + "expects src and dst to have the same valid_shape[1]");
  unsigned b = elem_bytes(s->elem);
  if (b != 1 && b != 2 && b != 4) {
    bool with_tmp = in.n_ins > 1 && c.arch != Arch::A5;
    return c.error(in.loc, p + (with_tmp ? "expects src/tmp element type to be 1, 2, or 4 bytes wide"
                                         : "expects src element type to be 1, 2, or 4 bytes wide"));
  }
  if (!is_int_width(d->elem, 32)) c.error(in.loc, p + "expects dst element type to be i32 or ui32");
}

void trowexpand(Ctx& c, const Inst& in) {
  if (in.n_ins < 1 || in.n_outs < 1) return;
  const Type* s = tile_of(c, c.operand(in, 0));
  const Type* d = tile_of(c, out0(c, in));
  if (!s || !d || (d->vrow == 0 && d->vcol == 0)) return;  // the empty-replay marker
  const std::string p = op_err(in) + "expects ";
  if (!compatible(s->vrow, d->vrow)) return c.error(in.loc, p + "src and dst to have the same valid_shape[0]");
  for (auto [t, name] : {std::pair<const Type*, const char*>{s, "src"}, {d, "dst"}}) {
    if (t->vrow == 0) return c.error(in.loc, p + name + " valid_shape[0] to be non-zero");
    if (t->vcol == 0) return c.error(in.loc, p + name + " valid_shape[1] to be non-zero");
  }
}

}  // namespace

void verify_tile_ops_inst(Ctx& c, const Inst& in) {
  switch (in.op) {
    case Op::TInsert: case Op::TInsertFp: return tinsert(c, in);
    case Op::TFillPad: case Op::TFillPadInplace: case Op::TFillPadExpand: return tfillpad(c, in);
    case Op::TCvt: return tcvt(c, in);
    case Op::THistogram: return thistogram(c, in);
    case Op::TQuant: return tquant(c, in);
    case Op::TQuantMx: return tquant_mx(c, in);
    case Op::TAddRelu: return taddrelu(c, in);
    case Op::TMrgSort: return tmrgsort(c, in);
    case Op::TColArgMax: case Op::TColArgMin: return tcolarg(c, in);
    case Op::TRowExpand: return trowexpand(c, in);
    default: return;
  }
}

}  // namespace ptoas::verify_detail
