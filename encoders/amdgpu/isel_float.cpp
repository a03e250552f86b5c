// Instruction selection: f32 and f64 arithmetic. DESIGN §6 asks for IEEE
// add/sub/mul/div/sqrt: GCN has no correctly rounded f32 divide or square
// root instruction, so those are computed in f64 to within 2^-51 and
// rounded once to f32. That is exact: a quotient or square root of f32
// values is never closer than 2^-49 (relative) to a rounding boundary of
// f32, so the one rounding lands where the exact value's would
// (docs/amdgpu_backend.md, "Numerics"). exp2 and log2 scale their
// arguments around the hardware's denormal handling as LLVM does.
#include "isel.h"

namespace ptoas::cg::amdgpu {

using ptx::Op;
using ptx::Opnd;
using ptx::Ty;

namespace {

constexpr uint32_t kClassFiniteNonzero = 0x198;  // -normal, -denormal, +denormal, +normal
constexpr uint32_t kClassPositive = 0x180;        // +denormal, +normal

}  // namespace

// 1 / b in f64: v_rcp_f64 and two Newton steps (within an ulp).
uint32_t Isel::newton_rcp64(uint32_t b) {
  uint32_t r = v64(), e = v64();
  I("v_rcp_f64", {D(r), U(b)});
  for (int k = 0; k < 2; ++k) {
    I("v_fma_f64", {D(e), U(b, 0xff, 1), U(r), T("1.0")});
    I("v_fma_f64", {DU(r), U(r), U(e), U(r)});
  }
  return r;
}

// sqrt(x) in f64: Goldschmidt from v_rsq_f64 (two steps), then
// `corrections` fma residual steps.
uint32_t Isel::goldschmidt_sqrt64(uint32_t x, int corrections) {
  uint32_t y = v64(), g = v64(), h = v64(), e = v64();
  I("v_rsq_f64", {D(y), U(x)});
  I("v_mul_f64", {D(g), U(x), U(y)});
  I("v_mul_f64", {D(h), T("0.5"), U(y)});
  for (int k = 0; k < 2; ++k) {
    I("v_fma_f64", {D(e), U(g, 0xff, 1), U(h), T("0.5")});
    I("v_fma_f64", {DU(g), U(g), U(e), U(g)});
    I("v_fma_f64", {DU(h), U(h), U(e), U(h)});
  }
  for (int k = 0; k < corrections; ++k) {
    I("v_fma_f64", {D(e), U(g, 0xff, 1), U(g), U(x)});
    I("v_fma_f64", {DU(g), U(e), U(h), U(g)});
  }
  return g;
}

// a / b, correctly rounded (b zero, infinite or NaN: a * (1/b), exact there).
uint32_t Isel::fdiv32(uint32_t a, uint32_t b) {
  uint32_t ad = v64(), bd = v64(), q = v64(), qf = v32();
  I("v_cvt_f64_f32", {D(ad), U(a)});
  I("v_cvt_f64_f32", {D(bd), U(b)});
  uint32_t r = newton_rcp64(bd);
  I("v_mul_f64", {D(q), U(ad), U(r)});
  I("v_cvt_f32_f64", {D(qf), U(q)});
  uint32_t rc = v32(), sp = v32(), m = mask(), d = v32();
  I("v_rcp_f32", {D(rc), U(b)});
  I("v_mul_f32", {D(sp), U(a), U(rc)});
  I("v_cmp_class_f32_e64", {D(m), U(b), U(const32(kClassFiniteNonzero))});
  I("v_cndmask_b32_e64", {D(d), U(sp), U(qf), U(m)});
  return d;
}

// sqrt(a), correctly rounded (a not positive and finite: the hardware's
// v_sqrt_f32, exact for zeros, +inf, negatives and NaN).
uint32_t Isel::fsqrt32(uint32_t a) {
  uint32_t x = v64(), gf = v32();
  I("v_cvt_f64_f32", {D(x), U(a)});
  uint32_t g = goldschmidt_sqrt64(x, 1);
  I("v_cvt_f32_f64", {D(gf), U(g)});
  uint32_t hw = v32(), m = mask(), d = v32();
  I("v_sqrt_f32", {D(hw), U(a)});
  I("v_cmp_class_f32_e64", {D(m), U(a), U(const32(kClassPositive))});
  I("v_cndmask_b32_e64", {D(d), U(hw), U(gf), U(m)});
  return d;
}

bool Isel::float_op(const ptx::Inst& in) {
  if (in.type != Ty::F32) return false;
  if (in.flags & (ptx::F_FTZ | ptx::F_SAT | ptx::F_NAN | ptx::F_XORSIGN | ptx::F_RELU)) return false;
  uint32_t d = dst(opnd(in, 0));
  auto a = [&]() { return src32(opnd(in, 1), true); };
  auto b = [&]() { return src32(opnd(in, 2), true); };
  bool approx = in.flags & ptx::F_APPROX;
  switch (in.op) {
    case Op::Add: I("v_add_f32", {D(d), a(), b()}); return true;
    case Op::Sub: I("v_sub_f32", {D(d), a(), b()}); return true;
    case Op::Mul: I("v_mul_f32", {D(d), a(), b()}); return true;
    case Op::Fma: case Op::Mad: I("v_fma_f32", {D(d), a(), b(), src32(opnd(in, 3), true)}); return true;
    case Op::Min: I("v_min_f32", {D(d), a(), b()}); return true;
    case Op::Max: I("v_max_f32", {D(d), a(), b()}); return true;
    case Op::Abs: I("v_and_b32", {D(d), T("0x7fffffff"), src32(opnd(in, 1))}); return true;
    case Op::Neg: I("v_xor_b32", {D(d), T("0x80000000"), src32(opnd(in, 1))}); return true;
    case Op::Div: {
      uint32_t q = fdiv32(src32v(opnd(in, 1)), src32v(opnd(in, 2)));
      I("v_mov_b32", {D(d), U(q)});
      return true;
    }
    case Op::Rcp: {
      if (approx) {
        I("v_rcp_f32", {D(d), a()});
        return true;
      }
      uint32_t q = fdiv32(const32(0x3f800000), src32v(opnd(in, 1)));
      I("v_mov_b32", {D(d), U(q)});
      return true;
    }
    case Op::Sqrt: {
      if (approx) {
        I("v_sqrt_f32", {D(d), a()});
        return true;
      }
      uint32_t r = fsqrt32(src32v(opnd(in, 1)));
      I("v_mov_b32", {D(d), U(r)});
      return true;
    }
    case Op::Rsqrt: I("v_rsq_f32", {D(d), a()}); return true;
    case Op::Copysign:  // d = b with a's sign
      I("v_bfi_b32", {D(d), U(const32(0x7fffffff)), src32(opnd(in, 2)), src32(opnd(in, 1))});
      return true;
    case Op::Ex2: {
      // Below -126 the result is subnormal: 2^(x+64) * 2^-64.
      uint32_t x = src32v(opnd(in, 1)), m = mask(), t = v32(), s = v32(), e = v32(), k = v32();
      I("v_cmp_gt_f32_e64", {D(m), U(const32(0xc2fc0000)), U(x)});
      I("v_add_f32", {D(t), U(const32(0x42800000)), U(x)});
      I("v_cndmask_b32_e64", {D(s), U(x), U(t), U(m)});
      I("v_exp_f32", {D(e), U(s)});
      I("v_mul_f32", {D(k), U(const32(0x1f800000)), U(e)});
      I("v_cndmask_b32_e64", {D(d), U(e), U(k), U(m)});
      return true;
    }
    case Op::Lg2: {
      // A subnormal argument: log2(x * 2^32) - 32.
      uint32_t x = src32v(opnd(in, 1)), m = mask(), t = v32(), s = v32(), l = v32(), k = v32();
      I("v_cmp_gt_f32_e64", {D(m), U(const32(0x00800000)), U(x)});
      I("v_mul_f32", {D(t), U(const32(0x4f800000)), U(x)});
      I("v_cndmask_b32_e64", {D(s), U(x), U(t), U(m)});
      I("v_log_f32", {D(l), U(s)});
      I("v_sub_f32", {D(k), U(l), U(const32(0x42000000))});
      I("v_cndmask_b32_e64", {D(d), U(l), U(k), U(m)});
      return true;
    }
    default: return false;
  }
}

bool Isel::f64_op(const ptx::Inst& in) {
  if (in.flags & (ptx::F_FTZ | ptx::F_SAT | ptx::F_NAN)) return false;
  uint32_t d = dst(opnd(in, 0));
  auto a = [&]() { return U(src64(opnd(in, 1))); };
  auto b = [&]() { return U(src64(opnd(in, 2))); };
  switch (in.op) {
    case Op::Add: I("v_add_f64", {D(d), a(), b()}); return true;
    case Op::Sub: {
      uint32_t y = src64(opnd(in, 2));
      I("v_add_f64", {D(d), a(), U(y, 0xff, 1)});
      return true;
    }
    case Op::Mul: I("v_mul_f64", {D(d), a(), b()}); return true;
    case Op::Fma: case Op::Mad: I("v_fma_f64", {D(d), a(), b(), U(src64(opnd(in, 3)))}); return true;
    case Op::Neg: case Op::Abs: {
      uint32_t x = src64(opnd(in, 1));
      I("v_mov_b32", {D(d, 0), U(x, 0)});
      if (in.op == Op::Neg) I("v_xor_b32", {D(d, 1), T("0x80000000"), U(x, 1)});
      else I("v_and_b32", {D(d, 1), T("0x7fffffff"), U(x, 1)});
      return true;
    }
    case Op::Sqrt: {
      if (in.flags & ptx::F_APPROX) return false;
      uint32_t r = fsqrt64(src64(opnd(in, 1)));
      I("v_mov_b32", {D(d, 0), U(r, 0)});
      I("v_mov_b32", {D(d, 1), U(r, 1)});
      return true;
    }
    case Op::Rcp: case Op::Div: {
      if (in.flags & ptx::F_APPROX) return false;
      uint32_t num = 0;
      if (in.op == Op::Div) num = src64(opnd(in, 1));
      uint32_t r = frcp64(src64(opnd(in, in.op == Op::Div ? 2 : 1)), num);
      I("v_mov_b32", {D(d, 0), U(r, 0)});
      I("v_mov_b32", {D(d, 1), U(r, 1)});
      return true;
    }
    default: return false;
  }
}

// 1 / b (num == 0) or num / b in f64: Newton from v_rcp_f64, then one
// fma correction (Markstein), which rounds correctly when the estimate is
// within an ulp (b zero, infinite, NaN or subnormal: the hardware's
// v_rcp_f64, exact there; the quotient: num times that).
uint32_t Isel::frcp64(uint32_t b, uint32_t num) {
  uint32_t r = newton_rcp64(b), e = v64();
  uint32_t res = r;
  if (num) {
    uint32_t q = v64();
    I("v_mul_f64", {D(q), U(num), U(r)});
    I("v_fma_f64", {D(e), U(b, 0xff, 1), U(q), U(num)});
    I("v_fma_f64", {DU(q), U(e), U(r), U(q)});
    res = q;
  }
  uint32_t raw = v64(), m = mask(), out = v64();
  I("v_rcp_f64", {D(raw), U(b)});
  if (num) I("v_mul_f64", {DU(raw), U(num), U(raw)});
  I("v_cmp_class_f64_e64", {D(m), U(b), U(const32(0x108))});  // -normal, +normal
  I("v_cndmask_b32_e64", {D(out, 0), U(raw, 0), U(res, 0), U(m)});
  I("v_cndmask_b32_e64", {D(out, 1), U(raw, 1), U(res, 1), U(m)});
  return out;
}

// sqrt(x) in f64: Goldschmidt from v_rsq_f64, then two fma corrections
// (correctly rounded for normal x); x not positive normal: v_sqrt_f64
// (zeros, +inf, negatives and NaN are exact there).
uint32_t Isel::fsqrt64(uint32_t x) {
  uint32_t g = goldschmidt_sqrt64(x, 2);
  uint32_t raw = v64(), m = mask(), out = v64();
  I("v_sqrt_f64", {D(raw), U(x)});
  I("v_cmp_class_f64_e64", {D(m), U(x), U(const32(0x100))});  // +normal
  I("v_cndmask_b32_e64", {D(out, 0), U(raw, 0), U(g, 0), U(m)});
  I("v_cndmask_b32_e64", {D(out, 1), U(raw, 1), U(g, 1), U(m)});
  return out;
}

}  // namespace ptoas::cg::amdgpu
