// GM <-> tile transfers: PTOAS 0.60's tload/tstore rules on the tile side.
//   tload   src and dst elements of one size; A2/A3: no low-precision types;
//           A5: a vec dst in ND, DN or NZ layout. (0.60's A2/A3 rule that
//           the dst is in vec or mat is not enforced: its Movfp sample loads
//           the fixpipe's scaling tiles directly.)
//   tstore  the src valid element count matches the static view (an empty
//           valid region stores nothing and is exempt, issue 708); A5: src in
//           vec or acc; vec: same element size; acc: i32/f32 source, the
//           preQuantScalar form narrowing to i8/f16/bf16/f32/hif8/f8E4M3;
//           the quant and relu forms need an acc source.
// Operands: tload ins(view) outs(tile); tstore ins(tile[, preQuantScalar])
// outs(view) (the fp form is pto.tstore_fp).
#include "verify_tile_util.h"

namespace ptoas::verify_detail {
namespace {

// Static element count of a partition view / memref; -1 when not static.
int64_t view_count(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  if (!t || (t->kind != TypeKind::PartitionView && t->kind != TypeKind::Memref) || t->rank == 0 ||
      t->dims == kNone)
    return -1;
  TypeId id = c.vtype_id(v);
  int64_t n = 1;
  for (unsigned i = 0; i < t->rank; ++i) {
    int64_t d = c.m.types.dim(id, i);
    if (d <= 0 || n > (int64_t(1) << 40) / d) return -1;
    n *= d;
  }
  return n;
}

bool a3_transfer_elem(DType d) {
  return is_int_width(d, 8) || is_int_width(d, 16) || is_int_width(d, 32) || is_int_width(d, 64) ||
         d == DType::F16 || d == DType::BF16 || d == DType::F32;
}

void tload(Ctx& c, const Inst& in) {
  if (in.n_ins < 1 || in.n_outs < 1) return;
  const Type* dst = tile_of(c, c.operand(in, in.n_ins));
  DType se = elem_of_any(c, c.operand(in, 0));
  if (!dst || se == DType::None) return;
  const std::string p = q(in.op) + " op ";
  unsigned sb = elem_bytes(se), db = elem_bytes(dst->elem);
  if (c.arch != Arch::A5) {
    if (is_low_precision(se) || is_low_precision(dst->elem))
      return c.error(in.loc, p + "expects A2/A3 tload low-precision element types to be unsupported");
    if (!a3_transfer_elem(dst->elem))
      return c.error(in.loc, p + "expects A2/A3 tload dst element type to be i8/i16/i32/i64/u64/f16/bf16/f32");
    if (sb != db) c.error(in.loc, p + "expects src and dst element types to have the same bitwidth");
    return;
  }
  if (sb != db) return c.error(in.loc, p + "expects src and dst element types to have the same element size");
  if (dst->loc == Loc::Vec && !is_nd(dst) && !is_dn(dst) && !is_nz(dst))
    c.error(in.loc, p + "expects A5 tload vec dst layout to be ND, DN, or NZ");
}

bool a5_acc_prequant_dst(DType s, DType d) {
  if (is_int_width(s, 32)) return is_int_width(d, 8) || d == DType::F16 || d == DType::BF16;
  if (s != DType::F32) return false;
  return is_int_width(d, 8) || d == DType::F16 || d == DType::BF16 || d == DType::F32 ||
         d == DType::HiF8 || d == DType::F8E4M3 || d == DType::F8E4M3FN;
}

void tstore(Ctx& c, const Inst& in) {
  if (in.n_ins < 1 || in.n_outs < 1) return;
  ValueId view = c.operand(in, in.n_ins);
  const Type* src = tile_of(c, c.operand(in, 0));
  const Type* vt = c.vtype(view);
  if (!src || !vt || vt->kind == TypeKind::TensorView) return;
  const std::string p = q(in.op) + " op ";
  bool fp = in.op == Op::TStoreFp;
  bool prequant = !fp && in.n_ins > 1;
  // An empty valid region (a 0 extent) has no static count to compare.
  if (!fp && is_static(src->vrow) && is_static(src->vcol) && src->vrow > 0 && src->vcol > 0) {
    int64_t nv = view_count(c, view), nt = int64_t(src->vrow) * src->vcol;
    if (nv >= 0 && nv != nt)
      return c.error(in.loc, p + "expects dst static element count (" + std::to_string(nv) +
                                 ") to match src valid element count (" + std::to_string(nt) + ")");
  }
  if (c.arch != Arch::A5) return;
  if (src->loc != Loc::Vec && src->loc != Loc::Acc)
    return c.error(in.loc, p + "expects A5 tstore src to use loc=vec or loc=acc");
  if ((fp || prequant) && src->loc != Loc::Acc)
    return c.error(in.loc, p + "expects fp/preQuantScalar form to use loc=acc src");
  std::string relu = c.kv(in, "reluPreMode");
  if (!relu.empty() && relu != "no_relu" && src->loc != Loc::Acc)
    return c.error(in.loc, p + "expects reluPreMode form to use loc=acc src");
  DType se = src->elem, de = vt->elem;
  if (src->loc == Loc::Vec) {
    if (elem_bytes(se) != elem_bytes(de))
      c.error(in.loc, p + "expects A5 vec tstore src and dst element types to have the same bitwidth");
    return;
  }
  if (!(is_int_width(se, 32) || se == DType::F32))
    return c.error(in.loc, p + "expects A5 acc tstore src element type to be i32 or f32");
  if (prequant && !a5_acc_prequant_dst(se, de))
    c.error(in.loc, p + "expects A5 acc preQuantScalar tstore dst type to be "
                        "i8/ui8/f16/bf16/f32/hif8/f8E4M3");
  else if (!prequant && !fp &&
           !(is_int_width(de, 32) || de == DType::F32 || de == DType::F16 || de == DType::BF16))
    c.error(in.loc, p + "expects A5 acc tstore dst element type to be i32/f32/f16/bf16");
}

}  // namespace

void verify_tile_mem_inst(Ctx& c, const Inst& in) {
  switch (in.op) {
    case Op::TLoad: return tload(c, in);
    case Op::TStore: case Op::TStoreFp: return tstore(c, in);
    default: return;
  }
}

}  // namespace ptoas::verify_detail
