// AArch64 SVE exp / log / rsqrt of f32 lanes, evaluated in double like the
// x86 backend's (the same algorithms and constants, lower.h DConst): each
// half of the vector is widened to 64-bit lanes, computed in double, and
// rounded to f32 once, so results match the interpreter's double std::exp /
// std::log / 1/std::sqrt rounded to f32 except where the two doubles
// straddle an f32 rounding boundary (at most 1 ULP).
//
// The constants live in a block on the stack (math_begin/math_end), read
// with ld1rd from x8. Scratch: z16-z23, p1, p6.
#include "sve_gen.h"

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
