// The MX matmul forms (tmatmul.mx, tgemv.mx and their .acc/.bias variants)
// on A5, and the valid-shape rules of tgemv, after PTOAS 0.60's verifiers:
//   lhs/rhs element types an fp8/fp8 (e4m3fn, e5m2) or fp4/fp4 pair, f32
//   result; static shapes lhs[M,K], rhs[K,N], dst[M,N]; a_scale
//   [M, ceil(K/32)] and b_scale [ceil(K/32), N] in loc=scaling.
//   tgemv: lhs and dst have one valid row; K and N agree.
// Operands: tmatmul.mx ins(lhs, a_scale, rhs, b_scale) outs(dst); .acc puts
// the accumulator first, .bias the bias last.
#include "verify_tile_util.h"

namespace ptoas::verify_detail {
namespace {

bool mx_fp8(DType d) { return d == DType::F8E4M3FN || d == DType::F8E5M2; }

bool is_mx(Op op) {
  return op == Op::TMatmulMx || op == Op::TMatmulMxAcc || op == Op::TMatmulMxBias ||
         op == Op::TGemvMx || op == Op::TGemvMxAcc || op == Op::TGemvMxBias;
}
bool is_gemv(Op op) {
  return op == Op::TGemv || op == Op::TGemvAcc || op == Op::TGemvBias || op == Op::TGemvMx ||
         op == Op::TGemvMxAcc || op == Op::TGemvMxBias;
}

bool fits(int64_t have, int64_t want) { return have == kDyn || want == kDyn || have == want; }

void mx(Ctx& c, const Inst& in, bool gemv) {
  if (c.arch != Arch::A5) return;  // the mx forms are A5 instructions
  unsigned base = (in.op == Op::TMatmulMxAcc || in.op == Op::TGemvMxAcc) ? 1 : 0;
  if (in.n_ins < base + 4 || in.n_outs < 1) return;
  const Type* lhs = tile_of(c, c.operand(in, base));
  const Type* as = tile_of(c, c.operand(in, base + 1));
  const Type* rhs = tile_of(c, c.operand(in, base + 2));
  const Type* bs = tile_of(c, c.operand(in, base + 3));
  const Type* dst = tile_of(c, c.operand(in, in.n_ins));
  if (!lhs || !as || !rhs || !bs || !dst) return;
  const std::string p = q(in.op) + " op ";
  // 0.60's MX form scales blocks of 32 along K with an a_scale tile in the
  // block-scale layout (row_major boxes, fractal 32). 0.27's mx files scale
  // element by element with tiles of the operands' shape in other layouts
  // (test/basic/tmatmul_mx_emitc.pto, tgemv_mx_emitc.pto, also with the
  // f8E4M3 inputs 0.60 refuses); those keep their meaning, so the 0.60
  // type and scale rules apply to the block-scale form only.
  bool block_scale = as->blayout == BLayout::RowMajor && as->slayout == SLayout::RowMajor &&
                     as->fractal == 32;
  bool fp4 = is_fp4(lhs->elem) && is_fp4(rhs->elem);
  auto fp8 = [&](DType d) {
    return block_scale ? mx_fp8(d)
                       : d == DType::F8E4M3 || d == DType::F8E4M3FN || d == DType::F8E5M2;
  };
  if (!fp4 && !(fp8(lhs->elem) && fp8(rhs->elem)))
    return c.error(in.loc, p + "expects A5 mx lhs/rhs element types to be a supported fp8/fp8 or "
                               "fp4/fp4 pair");
  if (dst->elem != DType::F32)
    return c.error(in.loc, p + "expects A5 mx result dst to use f32 element type");
  // The logical shapes are the valid ones where static (a 1x512 lhs with 128
  // valid columns multiplies a 128-row rhs); packed fp4 halves the stored
  // K, so those pairs are compared no further.
  auto ext = [](int32_t valid, int32_t phys) -> int64_t { return valid == kDyn ? phys : valid; };
  int64_t m = ext(lhs->vrow, lhs->rows), k = ext(lhs->vcol, lhs->cols);
  int64_t rk = ext(rhs->vrow, rhs->rows), n = ext(rhs->vcol, rhs->cols);
  int64_t dm = ext(dst->vrow, dst->rows), dn = ext(dst->vcol, dst->cols);
  if (fp4) return;
  if (m != dm || n != dn || k != rk)
    return c.error(in.loc, p + "expects static matmul tile shapes lhs[M,K], rhs[K,N], and dst[M,N]");
  if (!block_scale) return;
  int64_t ks = (k + 31) / 32;
  const char* dims = gemv ? "shape/valid_shape" : "shape";
  if (!fits(ext(as->vrow, as->rows), m) || !fits(ext(as->vcol, as->cols), ks))
    return c.error(in.loc, p + "expects a_scale " + dims + " to be [M, ceil(K/32)]");
  if (!fits(ext(bs->vrow, bs->rows), ks) || !fits(ext(bs->vcol, bs->cols), n))
    return c.error(in.loc, p + "expects b_scale " + dims + " to be [ceil(K/32), N]");
  for (auto [t, name] : {std::pair<const Type*, const char*>{as, "a_scale"}, {bs, "b_scale"}})
    if (t->loc != Loc::Scaling)
      return c.error(in.loc, p + "expects " + name + " to be in the scaling address space");
}

// tgemv's valid shapes (the non-mx forms; the mx ones share them).
void gemv_valid(Ctx& c, const Inst& in) {
  bool acc = in.op == Op::TGemvAcc || in.op == Op::TGemvMxAcc;
  bool mxf = is_mx(in.op);
  unsigned base = acc ? 1 : 0;
  unsigned rhs_i = base + (mxf ? 2 : 1);
  if (in.n_ins <= rhs_i || in.n_outs < 1) return;
  const Type* lhs = tile_of(c, c.operand(in, base));
  const Type* rhs = tile_of(c, c.operand(in, rhs_i));
  const Type* dst = tile_of(c, c.operand(in, in.n_ins));
  if (!lhs || !rhs || !dst) return;
  const std::string p = q(in.op) + " op expects ";
  if (is_static(lhs->vrow) && lhs->vrow != 1)
    return c.error(in.loc, p + "lhs valid_shape[0] to be 1 for tgemv");
  if (is_static(dst->vrow) && dst->vrow != 1)
    return c.error(in.loc, p + "dst valid_shape[0] to be 1 for tgemv");
  if (!compatible(lhs->vcol, rhs->vrow))
    return c.error(in.loc, p + "lhs valid_shape[1] to equal rhs valid_shape[0], but got " +
                               std::to_string(lhs->vcol) + " vs " + std::to_string(rhs->vrow));
  if (!compatible(rhs->vcol, dst->vcol))
    c.error(in.loc, p + "rhs valid_shape[1] to equal dst valid_shape[1], but got " +
                        std::to_string(rhs->vcol) + " vs " + std::to_string(dst->vcol));
}

}  // namespace

void verify_tile_matmul_inst(Ctx& c, const Inst& in) {
  int before = c.diag.error_count();
  if (is_mx(in.op)) mx(c, in, is_gemv(in.op));
  if (is_gemv(in.op) && c.diag.error_count() == before) gemv_valid(c, in);
}

}  // namespace ptoas::verify_detail
