// Interpreter: reductions. Row reductions write dst[r, 0] for r < src.vrow
// (dst ND R x k or DN R x 1), column reductions write dst[0, c] for
// c < src.vcol; both iterate the src valid region sequentially
// (docs/semantics.md §5).
#include <cmath>

#include "ops_common.h"

namespace ptoas::rt {

using namespace ops;

namespace {

enum class Red : uint8_t { Sum, Max, Min, Prod };

Red red_of(Op op) {
  switch (op) {
    case Op::TRowSum: case Op::TColSum: return Red::Sum;
    case Op::TRowMax: case Op::TColMax: return Red::Max;
    case Op::TRowMin: case Op::TColMin: return Red::Min;
    default: return Red::Prod;
  }
}

bool is_row(Op op) {
  return op == Op::TRowSum || op == Op::TRowMax || op == Op::TRowMin || op == Op::TRowProd ||
         op == Op::TRowArgMax || op == Op::TRowArgMin;
}

// Float accumulator type: TROWSUM accumulates f16/bf16 in f32; everything
// else accumulates in the dst type.
DType acc_type(Op op, DType dst) {
  if (op == Op::TRowSum && (dst == DType::F16 || dst == DType::BF16)) return DType::F32;
  return dst;
}

void reduce(Exec& ex, const Inst& in) {
  Red kind = red_of(in.op);
  bool row = is_row(in.op);
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0);
  int64_t R = s.vrow, C = s.vcol;
  if (R == 0 || C == 0) return;
  if (row) need_phys(ex, in, d, R, 1, "destination");
  else need_phys(ex, in, d, 1, C, "destination");
  bool fl = is_float(d.elem);
  DType at = acc_type(in.op, d.elem);
  int64_t outer = row ? R : C, inner = row ? C : R;
  for (int64_t o = 0; o < outer; ++o) {
    auto at_rc = [&](int64_t k, int64_t& r, int64_t& c) {
      r = row ? o : k;
      c = row ? k : o;
    };
    int64_t r, c;
    if (fl) {
      double acc;
      if (kind == Red::Sum || kind == Red::Prod) {
        acc = kind == Red::Sum ? 0.0 : 1.0;
        for (int64_t k = 0; k < inner; ++k) {
          at_rc(k, r, c);
          double x = num_f(s, r, c);
          // NaN propagation is pinned to the first NaN met (what x86's
          // `acc + x` returns), so the payload never depends on how the
          // compiler ordered the operands.
          if (std::isnan(acc)) break;
          if (std::isnan(x)) { acc = x; break; }
          acc = round_to(at, kind == Red::Sum ? acc + x : acc * x);
        }
      } else {
        // Start at element 0; a NaN anywhere makes the result NaN (the
        // first NaN met); otherwise the first extreme element wins.
        at_rc(0, r, c);
        acc = num_f(s, r, c);
        for (int64_t k = 1; k < inner && !std::isnan(acc); ++k) {
          at_rc(k, r, c);
          double x = num_f(s, r, c);
          if (std::isnan(x) || (kind == Red::Max ? x > acc : x < acc)) acc = x;
        }
      }
      if (row) d.setf(o, 0, acc);
      else d.setf(0, o, acc);
    } else {
      int64_t acc;
      DType dt = d.elem;
      if (kind == Red::Sum || kind == Red::Prod) {
        acc = kind == Red::Sum ? 0 : 1;
        for (int64_t k = 0; k < inner; ++k) {
          at_rc(k, r, c);
          int64_t x = num_i(s, r, c);
          acc = wrap_to(dt, kind == Red::Sum ? int64_t(uint64_t(acc) + uint64_t(x))
                                             : int64_t(uint64_t(acc) * uint64_t(x)));
        }
      } else {
        at_rc(0, r, c);
        acc = num_i(s, r, c);
        DType st = s.elem;
        for (int64_t k = 1; k < inner; ++k) {
          at_rc(k, r, c);
          int64_t x = num_i(s, r, c);
          if (kind == Red::Max ? ilt(st, acc, x) : ilt(st, x, acc)) acc = x;
        }
      }
      if (row) d.seti(o, 0, acc);
      else d.seti(0, o, acc);
    }
  }
}

// TROWARGMAX/MIN, TCOLARGMAX/MIN: outs (idx) or (value, idx). Strict
// comparison: the first extreme element wins; a NaN wins over numbers (the
// first NaN).
void argreduce(Exec& ex, const Inst& in) {
  bool row = is_row(in.op);
  bool is_max = in.op == Op::TRowArgMax || in.op == Op::TColArgMax;
  TileAcc s = ex.in_tile(in, 0);
  bool with_val = in.n_outs >= 2;
  TileAcc di = ex.out_tile(in, with_val ? 1 : 0);
  need_int(ex, in, di.elem);
  int64_t R = s.vrow, C = s.vcol;
  if (R == 0 || C == 0) return;
  if (row) need_phys(ex, in, di, R, 1, "index");
  else need_phys(ex, in, di, 1, C, "index");
  TileAcc dv = di;
  if (with_val) {
    dv = ex.out_tile(in, 0);
    if (row) need_phys(ex, in, dv, R, 1, "value");
    else need_phys(ex, in, dv, 1, C, "value");
  }
  bool fl = is_float(s.elem);
  int64_t outer = row ? R : C, inner = row ? C : R;
  for (int64_t o = 0; o < outer; ++o) {
    auto rr = [&](int64_t k) { return row ? o : k; };
    auto cc = [&](int64_t k) { return row ? k : o; };
    int64_t best = 0;
    if (fl) {
      double bv = num_f(s, rr(0), cc(0));
      for (int64_t k = 1; k < inner && !std::isnan(bv); ++k) {
        double x = num_f(s, rr(k), cc(k));
        if (std::isnan(x) || (is_max ? x > bv : x < bv)) { bv = x; best = k; }
      }
    } else {
      int64_t bv = num_i(s, rr(0), cc(0));
      for (int64_t k = 1; k < inner; ++k) {
        int64_t x = num_i(s, rr(k), cc(k));
        if (is_max ? ilt(s.elem, bv, x) : ilt(s.elem, x, bv)) { bv = x; best = k; }
      }
    }
    int64_t ir = row ? o : 0, ic = row ? 0 : o;
    di.seti(ir, ic, best);
    if (with_val) move_elem(dv.at(ir, ic), dv.elem, s.at(rr(best), cc(best)), s.elem, false);
  }
}

// dst[r, k] = src[r, 2k] + src[r, 2k+1] for k < ceil(vcol/2) (a lone last
// element is copied), the rest of dst's valid row is zero.
void pairreducesum(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0);
  need_float(ex, in, d.elem);
  int64_t half = (int64_t(s.vcol) + 1) / 2;
  int64_t wcols = std::max<int64_t>(half, d.vcol);
  need_phys(ex, in, d, s.vrow, wcols, "destination");
  for (int64_t r = 0; r < s.vrow; ++r)
    for (int64_t k = 0; k < wcols; ++k) {
      double v = 0;
      if (k < half) {
        v = num_f(s, r, 2 * k);
        if (2 * k + 1 < s.vcol) v += num_f(s, r, 2 * k + 1);
      }
      d.setf(r, k, v);
    }
}

}  // namespace

void register_reduce_ops(HandlerTable& t) {
  for (Op op : {Op::TRowSum, Op::TRowMax, Op::TRowMin, Op::TRowProd, Op::TColSum, Op::TColMax,
                Op::TColMin, Op::TColProd})
    t[size_t(op)] = reduce;
  for (Op op : {Op::TRowArgMax, Op::TRowArgMin, Op::TColArgMax, Op::TColArgMin})
    t[size_t(op)] = argreduce;
  t[size_t(Op::TPairReduceSum)] = pairreducesum;
}

}  // namespace ptoas::rt
