// AArch64 SVE exp / log / rsqrt of f32 lanes, evaluated in double like the
// x86 backend's (the same algorithms and constants, tile_geometry.h DConst): each
// half of the vector is widened to 64-bit lanes, computed in double, and
// rounded to f32 once, so results match the interpreter's double std::exp /
// std::log / 1/std::sqrt rounded to f32 except where the two doubles
// straddle an f32 rounding boundary (at most 1 ULP).
//
// The constants live in a block on the stack (math_begin/math_end), read
// with ld1rd from x8. Scratch: z16-z23, p1, p6.
#include "gen.h"

namespace ptoas::cg::sve::gen {

namespace {
constexpr int kBlockBytes = ((kDConstCount * 8) + 15) & ~15;
}

void Gen::math_begin() {
  add_imm(sp(), sp(), -kBlockBytes);
  I("ADDXri", {X(8), sp(), 0, 0});
  for (int i = 0; i < kDConstCount; ++i) {
    mov_imm(X(16), dconst_bits(i));
    I("STRXui", {X(16), X(8), i});
  }
  I("PTRUE_D", {P(6), 31});
}

void Gen::math_end() { add_imm(sp(), sp(), kBlockBytes); }

// z<c> = constant i in every 64-bit lane.
void Gen::dconst(R z, int i) { I("LD1RD_IMM", {z, P(6), X(8), i}); }

// exp: n = round(x / ln2), r = x - n ln2, e^r by its Taylor polynomial to
// degree 12, times 2^n built in the exponent field; x clamped to
// [-200, 200] first (e^+-200 is +Inf / +0 in f32 anyway).
void Gen::exp_pd(R x) {
  R n = Z(19), p = Z(20), c = Z(21);
  R pg = P(6);
  dconst(c, kDExpHi);
  I("FMIN_ZPmZ_D", {x, pg, x, c});
  dconst(c, kDExpLo);
  I("FMAX_ZPmZ_D", {x, pg, x, c});
  dconst(c, kDLog2e);
  I("FMUL_ZZZ_D", {n, x, c});
  I("FRINTN_ZPmZ_D", {n, n, pg, n});
  dconst(c, kDLn2Hi);
  I("FMLS_ZPmZZ_D", {x, pg, x, n, c});  // r = x - n ln2_hi
  dconst(c, kDLn2Lo);
  I("FMLS_ZPmZZ_D", {x, pg, x, n, c});  //     - n ln2_lo
  dconst(p, kDExpC);
  for (int i = 1; i < 13; ++i) {
    dconst(c, kDExpC + i);
    I("FMAD_ZPmZZ_D", {p, pg, p, x, c});  // p = p r + c
  }
  I("FCVTZS_ZPmZ_DtoD", {n, n, pg, n});
  dconst(c, kI64Bias);
  I("ADD_ZZZ_D", {n, n, c});
  I("LSL_ZZI_D", {n, n, 52});  // 2^n
  I("FMUL_ZZZ_D", {x, p, n});
}

// log: x = m 2^e with m in [sqrt(1/2), sqrt(2)); s = (m - 1) / (m + 1),
// log m = 2 s (1 + s^2/3 + .. + s^16/17); log x = e ln2 + log m. For
// positive finite doubles; the caller replaces the other lanes.
void Gen::log_pd(R x) {
  R e = Z(19), t = Z(20), u = Z(21), p = Z(22), c = Z(23);
  R pg = P(6);
  I("LSR_ZZI_D", {e, x, 52});  // biased exponent (x > 0)
  dconst(c, kDMagic);
  I("ORR_ZZZ", {e, e, c});
  dconst(c, kDMagicBias);
  I("FSUB_ZZZ_D", {e, e, c});  // e, exactly
  dconst(c, kDMantMask);
  I("AND_ZZZ", {x, x, c});
  dconst(c, kDExpOne);
  I("ORR_ZZZ", {x, x, c});  // m in [1, 2)
  dconst(c, kDSqrt2);
  I("FCMGT_PPzZZ_D", {P(1), pg, x, c});  // m > sqrt 2: halve m, e + 1
  I("FMUL_ZPmI_D", {x, P(1), x, 0});
  I("FADD_ZPmI_D", {e, P(1), e, 1});
  dconst(c, kDOne);
  I("FSUB_ZZZ_D", {t, x, c});  // f = m - 1 (exact)
  I("FADD_ZZZ_D", {u, x, c});  // m + 1
  I("FDIV_ZPmZ_D", {t, pg, t, u});  // s
  I("FMUL_ZZZ_D", {u, t, t});       // z = s^2
  dconst(p, kDLogC);
  for (int i = 1; i < 9; ++i) {
    dconst(c, kDLogC + i);
    I("FMAD_ZPmZZ_D", {p, pg, p, u, c});
  }
  I("FADD_ZZZ_D", {t, t, t});
  I("FMUL_ZZZ_D", {t, t, p});  // 2 s p
  dconst(c, kDLn2Lo);
  I("FMLA_ZPmZZ_D", {t, pg, t, e, c});  // + e ln2_lo
  dconst(c, kDLn2Hi);
  I("FMLA_ZPmZZ_D", {t, pg, t, e, c});  // + e ln2_hi (exact product)
  I("ORR_ZZZ", {x, t, t});
}

// z0 = exp / log / rsqrt (z0) over the f32 lanes in pg (math_begin first).
void Gen::math(Op o, R pg) {
  auto half = [&](R y) {
    if (o == Op::TExp) {
      exp_pd(y);
    } else if (o == Op::TLog) {
      log_pd(y);
    } else {  // 1 / sqrt(x) in double, exactly the interpreter's operations
      I("FSQRT_ZPmZ_D", {y, y, P(6), y});
      dconst(Z(21), kDOne);
      I("FDIVR_ZPmZ_D", {y, P(6), y, Z(21)});
    }
  };
  I("UUNPKLO_ZZ_D", {Z(16), Z(0)});
  I("FCVT_ZPmZ_StoD", {Z(16), Z(16), P(6), Z(16)});
  I("UUNPKHI_ZZ_D", {Z(17), Z(0)});
  I("FCVT_ZPmZ_StoD", {Z(17), Z(17), P(6), Z(17)});
  half(Z(16));
  half(Z(17));
  I("FCVT_ZPmZ_DtoS", {Z(16), Z(16), P(6), Z(16)});
  I("FCVT_ZPmZ_DtoS", {Z(17), Z(17), P(6), Z(17)});
  I("UZP1_ZZZ_S", {Z(18), Z(16), Z(17)});
  if (o == Op::TLog) {
    // +-0: -Inf; x < 0: the default NaN (what std::log gives); +Inf: +Inf.
    mov_imm(X(16), 0xff800000u);
    I("DUP_ZR_S", {Z(19), W(16)});
    I("FCMEQ_PPzZ0_S", {P(1), pg, Z(0)});
    I("SEL_ZPZZ_S", {Z(18), P(1), Z(19), Z(18)});
    I("DUP_ZI_S", {Z(20), 0, 0});
    I("FMUL_ZZZ_S", {Z(20), Z(19), Z(20)});  // -Inf * 0
    I("FCMLT_PPzZ0_S", {P(1), pg, Z(0)});
    I("SEL_ZPZZ_S", {Z(18), P(1), Z(20), Z(18)});
    mov_imm(X(16), 0x7f800000u);
    I("DUP_ZR_S", {Z(19), W(16)});
    I("FCMEQ_PPzZZ_S", {P(1), pg, Z(0), Z(19)});
    I("SEL_ZPZZ_S", {Z(18), P(1), Z(19), Z(18)});
  }
  // NaN in: the same NaN, quieted.
  I("FCMUO_PPzZZ_S", {P(1), pg, Z(0), Z(0)});
  I("FADD_ZZZ_S", {Z(19), Z(0), Z(0)});
  I("SEL_ZPZZ_S", {Z(0), P(1), Z(19), Z(18)});
}

}  // namespace ptoas::cg::sve::gen

namespace ptoas::cg::sve::gen {

// pow(x, y) of f32 lanes z0 = x, z1 = y into z0, as the interpreter's
// std::pow in double rounded to f32 (the x86 backend's method, pow_ps):
// |x|^y = exp(y log|x|) in double, then the sign and C's special cases, in
// this order: x < 0 with an odd integer y negates; x < 0 with a finite
// non-integer y is x86's default NaN (what the interpreter gives there);
// x = +-0 or +-Inf gives +-0 or +-Inf by the sign of y (x's sign for an
// odd integer y); |x| = 1 with y = +-Inf gives 1; a NaN operand gives that
// NaN quieted (x's first); y = +-0 or x = 1 gives 1. math_begin first.
// Scratch: z2-z7, z16-z23, p1-p5.
void Gen::pow_lanes(R pg) {
  R x = Z(0), y = Z(1), r = Z(2), a = Z(16), b = Z(17), lo = Z(18);
  auto splat = [&](R z, uint32_t v) {
    mov_imm(X(16), v);
    I("DUP_ZR_S", {z, W(16)});
  };
  I("FABS_ZPmZ_S", {r, r, P(7), x});
  for (int half = 0; half < 2; ++half) {
    I(half ? "UUNPKHI_ZZ_D" : "UUNPKLO_ZZ_D", {a, r});
    I("FCVT_ZPmZ_StoD", {a, a, P(6), a});
    I(half ? "UUNPKHI_ZZ_D" : "UUNPKLO_ZZ_D", {b, y});
    I("FCVT_ZPmZ_StoD", {b, b, P(6), b});
    log_pd(a);
    I("FMUL_ZZZ_D", {a, a, b});
    exp_pd(a);
    I("FCVT_ZPmZ_DtoS", {a, a, P(6), a});
    if (!half) I("ORR_ZZZ", {lo, a, a});
  }
  I("UZP1_ZZZ_S", {r, lo, a});
  R t = Z(3), u = Z(4), w = Z(5);
  R yint = P(1), yodd = P(2), xneg = P(3), m = P(4), n = P(5);
  I("FRINTZ_ZPmZ_S", {t, t, pg, y});
  I("FCMEQ_PPzZZ_S", {yint, pg, t, y});
  I("FCVTZS_ZPmZ_StoS", {u, u, pg, y});
  I("DUP_ZI_S", {w, 1, 0});
  I("AND_ZZZ", {u, u, w});
  I("CMPNE_PPzZI_S", {yodd, yint, u, 0});
  I("FABS_ZPmZ_S", {t, t, pg, y});
  splat(w, 0x4b800000u);  // 2^24: above it every integer is even
  I("FCMGT_PPzZZ_S", {m, pg, w, t});
  I("AND_PPzPP", {yodd, pg, yodd, m});
  I("FCMLT_PPzZ0_S", {xneg, pg, x});
  // x < 0 and y odd: negate.
  I("AND_PPzPP", {m, pg, xneg, yodd});
  I("FNEG_ZPmZ_S", {r, r, m, r});
  // x < 0, y finite and not integral: the default NaN.
  splat(w, 0x7f800000u);
  I("FCMGT_PPzZZ_S", {m, pg, w, t});        // |y| < Inf (false for NaN)
  I("BIC_PPzPP", {m, pg, m, yint});
  I("AND_PPzPP", {m, pg, m, xneg});
  splat(u, 0xffc00000u);
  I("SEL_ZPZZ_S", {r, m, u, r});
  // x = +-0 or +-Inf: Inf when (x == 0) != (y > 0), else 0; x's sign for
  // an odd y.
  I("FABS_ZPmZ_S", {t, t, pg, x});
  I("FCMEQ_PPzZ0_S", {m, pg, t});
  I("FCMGT_PPzZ0_S", {n, pg, y});
  I("EOR_PPzPP", {n, pg, m, n});            // Inf wanted
  I("DUP_ZI_S", {u, 0, 0});
  I("SEL_ZPZZ_S", {u, n, w, u});            // +Inf or +0
  splat(Z(6), 0x80000000u);
  I("AND_ZZZ", {Z(6), Z(6), x});
  I("DUP_ZI_S", {Z(7), 0, 0});
  I("SEL_ZPZZ_S", {Z(6), yodd, Z(6), Z(7)});
  I("ORR_ZZZ", {u, u, Z(6)});               // x's sign for an odd y
  I("FCMEQ_PPzZZ_S", {n, pg, t, w});
  I("ORR_PPzPP", {m, pg, m, n});            // x is +-0 or +-Inf
  I("SEL_ZPZZ_S", {r, m, u, r});
  // |x| = 1 and y = +-Inf: 1.
  I("FDUP_ZI_S", {u, 112});
  I("FCMEQ_PPzZZ_S", {m, pg, t, u});
  I("FABS_ZPmZ_S", {t, t, pg, y});
  I("FCMEQ_PPzZZ_S", {n, pg, t, w});
  I("AND_PPzPP", {m, pg, m, n});
  I("SEL_ZPZZ_S", {r, m, u, r});
  // NaN operands: x's NaN quieted, else y's.
  I("FCMUO_PPzZZ_S", {m, pg, y, y});
  I("FADD_ZZZ_S", {t, y, y});
  I("SEL_ZPZZ_S", {r, m, t, r});
  I("FCMUO_PPzZZ_S", {m, pg, x, x});
  I("FADD_ZZZ_S", {t, x, x});
  I("SEL_ZPZZ_S", {r, m, t, r});
  // y = +-0 or x = 1: 1, whatever the other operand.
  I("FCMEQ_PPzZ0_S", {m, pg, y});
  I("FCMEQ_PPzZZ_S", {n, pg, x, u});
  I("ORR_PPzPP", {m, pg, m, n});
  I("SEL_ZPZZ_S", {x, m, u, r});
}

}  // namespace ptoas::cg::sve::gen
