// Interpreter: matrix multiply (docs/semantics.md §7).
//   TMATMUL       ins(a, b)        C = A.B          m = A.vrow, k = A.vcol, n = B.vcol
//   TMATMUL_ACC   ins(cin, a, b)   C = Cin + A.B    (the k-sum first, added once)
//   TMATMUL_BIAS  ins(a, b, bias)  C = A.B + bias[0, j]
//   TGEMV*        the same with m = 1, k = B.vrow, n = B.vcol
// f32 accumulation: acc = fma(float(a), float(b), acc) in float, k ascending;
// i8 x i8 -> i32: int32 wrap-around.
#include <cmath>
#include <vector>

#include "ops_common.h"

namespace ptoas::rt {

using namespace ops;

namespace {

// A (m x k) by rows and B (k x n) by columns, each read once through its
// layout into a dense array.
template <class T, class Get>
void dense_operands(const TileAcc& a, const TileAcc& b, int64_t m, int64_t k, int64_t n, std::vector<T>& ad,
                    std::vector<T>& bd, Get get) {
  ad.resize(size_t(m * k));
  bd.resize(size_t(n * k));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) ad[size_t(i * k + p)] = get(a, i, p);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) bd[size_t(j * k + p)] = get(b, p, j);
}

void matmul(Exec& ex, const Inst& in) {
  Op op = in.op;
  bool acc_in = op == Op::TMatmulAcc || op == Op::TGemvAcc;
  bool bias = op == Op::TMatmulBias || op == Op::TGemvBias;
  bool gemv = op == Op::TGemv || op == Op::TGemvAcc || op == Op::TGemvBias;
  unsigned ia = acc_in ? 1 : 0;
  TileAcc a = ex.in_tile(in, ia), b = ex.in_tile(in, ia + 1), c = ex.out_tile(in, 0);
  int64_t m = gemv ? 1 : a.vrow;
  int64_t k = gemv ? b.vrow : a.vcol;
  int64_t n = b.vcol;
  bool f32 = c.elem == DType::F32 &&
             (a.elem == DType::F32 || a.elem == DType::F16 || a.elem == DType::BF16) &&
             b.elem == a.elem;
  bool i32 = c.elem == DType::I32 && a.elem == DType::I8 && b.elem == DType::I8;
  if (!f32 && !i32)
    ex.fail(in, std::string(op_name(op)) + ": (dst, lhs, rhs) element types (" + dn(c.elem) +
                    ", " + dn(a.elem) + ", " + dn(b.elem) +
                    ") are not supported by the interpreter; expected (i32, i8, i8), "
                    "(f32, f16, f16), (f32, bf16, bf16) or (f32, f32, f32)");
  if (m < 1 || k < 1 || n < 1 || m > 4095 || k > 4095 || n > 4095)
    ex.fail(in, std::string(op_name(op)) + ": m, k, n must be in [1, 4095], got " +
                    std::to_string(m) + ", " + std::to_string(k) + ", " + std::to_string(n));
  need_phys(ex, in, a, m, k, "lhs");
  need_phys(ex, in, b, k, n, "rhs");
  need_phys(ex, in, c, m, n, "dst");
  TileAcc cin = c, bt = c;
  if (acc_in) {
    cin = ex.in_tile(in, 0);
    need_phys(ex, in, cin, m, n, "accumulator input");
    if (cin.elem != c.elem)
      ex.fail(in, std::string(op_name(op)) + ": the accumulator input must have dst's element type");
  }
  if (bias) {
    bt = ex.in_tile(in, 2);
    need_phys(ex, in, bt, 1, n, "bias");
    if (bt.elem != c.elem)
      ex.fail(in, std::string(op_name(op)) + ": the bias must have dst's element type");
  }
  // Compute the whole result first: C may alias an input (TMATMUL_ACC in place).
  // The operands are read once each into dense arrays (A by rows, B by
  // columns), not once per multiply through their (boxed) layouts.
  std::vector<double> fout;
  std::vector<int64_t> iout;
  if (f32) fout.resize(size_t(m * n));
  else iout.resize(size_t(m * n));
  if (f32) {
    std::vector<float> ad, bd;
    dense_operands(a, b, m, k, n, ad, bd, [](const TileAcc& t, int64_t r, int64_t c) { return float(t.getf(r, c)); });
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const float *ar = &ad[size_t(i * k)], *bc = &bd[size_t(j * k)];
        float acc = 0.0f;
        for (int64_t p = 0; p < k; ++p) acc = std::fma(ar[p], bc[p], acc);
        if (acc_in) {
          double c0 = cin.getf(i, j);
          acc = float(nan_first(c0, acc, c0 + double(acc)));
        }
        if (bias) {
          double b0 = bt.getf(0, j);
          acc = float(nan_first(acc, b0, double(acc) + b0));
        }
        fout[size_t(i * n + j)] = acc;
      }
  } else {
    std::vector<int32_t> ad, bd;
    dense_operands(a, b, m, k, n, ad, bd, [](const TileAcc& t, int64_t r, int64_t c) { return int32_t(t.geti(r, c)); });
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        uint32_t acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += uint32_t(ad[size_t(i * k + p)] * bd[size_t(j * k + p)]);
        if (acc_in) acc += uint32_t(cin.geti(i, j));
        if (bias) acc += uint32_t(bt.geti(0, j));
        iout[size_t(i * n + j)] = int32_t(acc);
      }
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      if (f32) c.setf(i, j, fout[size_t(i * n + j)]);
      else c.seti(i, j, iout[size_t(i * n + j)]);
    }
}

}  // namespace

void register_matmul_ops(HandlerTable& t) {
  for (Op op : {Op::TMatmul, Op::TMatmulAcc, Op::TMatmulBias, Op::TGemv, Op::TGemvAcc,
                Op::TGemvBias})
    t[size_t(op)] = matmul;
}

}  // namespace ptoas::rt
