// Interpreter: broadcast / expand ops (docs/semantics.md §6).
//   TROWEXPAND          dst[r, c] = src[r, 0]
//   TCOLEXPAND          dst[r, c] = src[0, c]
//   TROWEXPAND<op>      dst[r, c] = op(src0[r, c % src0.vcol], src1[r, c % src1.vcol])
//                       (a 1-column operand broadcasts its value; a narrower
//                       row-major operand is tiled cyclically: PTO-ISA §4.7)
//   TCOLEXPAND<op>      dst[r, c] = op(src0[r', c], src1[r'', c]) with a
//                       1-row operand read at row 0
// Domain: the dst valid region. Operand order is preserved.
#include <cmath>

#include "ops_common.h"

namespace ptoas::rt {

using namespace ops;

namespace {

void rowexpand(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0);
  bool row = in.op == Op::TRowExpand;
  if (row) need_phys(ex, in, s, d.vrow, 1, "source");
  else need_phys(ex, in, s, 1, d.vcol, "source");
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c)
      move_elem(d.at(r, c), d.elem, row ? s.at(r, 0) : s.at(0, c), s.elem, false);
}

// The op of a TROWEXPAND*/TCOLEXPAND* variant; ExpDif is exp(a - b) with a - b
// rounded to the element type first.
enum class EOp : uint8_t { Add, Sub, Mul, Div, Max, Min, ExpDif };

EOp eop_of(Op op) {
  switch (op) {
    case Op::TRowExpandAdd: case Op::TColExpandAdd: return EOp::Add;
    case Op::TRowExpandSub: case Op::TColExpandSub: return EOp::Sub;
    case Op::TRowExpandMul: case Op::TColExpandMul: return EOp::Mul;
    case Op::TRowExpandDiv: case Op::TColExpandDiv: return EOp::Div;
    case Op::TRowExpandMax: case Op::TColExpandMax: return EOp::Max;
    case Op::TRowExpandMin: case Op::TColExpandMin: return EOp::Min;
    default: return EOp::ExpDif;
  }
}

Bin bin_of(EOp e) {
  switch (e) {
    case EOp::Add: return Bin::Add;
    case EOp::Sub: case EOp::ExpDif: return Bin::Sub;
    case EOp::Mul: return Bin::Mul;
    case EOp::Div: return Bin::Div;
    case EOp::Max: return Bin::Max;
    case EOp::Min: return Bin::Min;
  }
  return Bin::Add;
}

void expand_op(Exec& ex, const Inst& in) {
  bool row = in.op == Op::TRowExpandAdd || in.op == Op::TRowExpandSub ||
             in.op == Op::TRowExpandMul || in.op == Op::TRowExpandDiv ||
             in.op == Op::TRowExpandMax || in.op == Op::TRowExpandMin ||
             in.op == Op::TRowExpandExpDif;
  EOp e = eop_of(in.op);
  Bin b = bin_of(e);
  TileAcc d = ex.out_tile(in, 0), s0 = ex.in_tile(in, 0), s1 = ex.in_tile(in, 1);
  bool fl = is_float(d.elem);
  if (e == EOp::ExpDif) need_float(ex, in, d.elem);
  if (d.vrow == 0 || d.vcol == 0) return;
  // Column index into each source (row variants) / row index (col variants).
  auto check = [&](const TileAcc& s, const char* what) {
    if (row) {
      if (s.vcol <= 0)
        ex.fail(in, std::string(op_name(in.op)) + ": the " + what + " has no valid columns");
      need_phys(ex, in, s, d.vrow, std::min<int64_t>(s.vcol, d.vcol), what);
    } else {
      need_phys(ex, in, s, s.vrow == 1 ? 1 : d.vrow, d.vcol, what);
    }
  };
  check(s0, "first source");
  check(s1, "second source");
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c) {
      int64_t r0 = r, c0 = c, r1 = r, c1 = c;
      if (row) {
        c0 = c % s0.vcol;
        c1 = c % s1.vcol;
      } else {
        if (s0.vrow == 1) r0 = 0;
        if (s1.vrow == 1) r1 = 0;
      }
      if (fl) {
        double v = fbin(ex, in, b, num_f(s0, r0, c0), num_f(s1, r1, c1));
        if (e == EOp::ExpDif) v = std::exp(round_to(d.elem, v));
        d.setf(r, c, v);
      } else {
        d.seti(r, c, ibin(ex, in, b, d.elem, num_i(s0, r0, c0), num_i(s1, r1, c1)));
      }
    }
}

}  // namespace

void register_expand_ops(HandlerTable& t) {
  t[size_t(Op::TRowExpand)] = rowexpand;
  t[size_t(Op::TColExpand)] = rowexpand;
  for (Op op : {Op::TRowExpandAdd, Op::TRowExpandSub, Op::TRowExpandMul, Op::TRowExpandDiv,
                Op::TRowExpandMax, Op::TRowExpandMin, Op::TRowExpandExpDif, Op::TColExpandAdd,
                Op::TColExpandSub, Op::TColExpandMul, Op::TColExpandDiv, Op::TColExpandMax,
                Op::TColExpandMin, Op::TColExpandExpDif})
    t[size_t(op)] = expand_op;
}

}  // namespace ptoas::rt
