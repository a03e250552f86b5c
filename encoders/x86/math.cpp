// x86-64 code generation: exp / log / rsqrt of f32 lanes, evaluated in
// double (x86/gen.h, docs/x86_backend.md).
#include "gen.h"

namespace ptoas::cg::x86::gen {

// ---- exp / log / rsqrt ---------------------------------------------------------------------
// Each half of V0 is widened to doubles (4 per ymm, 8 per zmm) and evaluated in double
// precision (relative error ~1e-16), then rounded to f32 once; the
// interpreter rounds the double std::exp / std::log / 1 / std::sqrt to f32
// the same way, so results differ only where the two double values straddle
// an f32 rounding boundary (at most 1 ULP; docs/x86_backend.md has the
// measured numbers). Special inputs are blended in afterwards.

// exp: n = round(x / ln2), r = x - n ln2 (|r| <= ln2 / 2), e^r by its
// Taylor polynomial to degree 12, times 2^n built in the exponent field.
// x is clamped to [-200, 200] first: e^200 rounds to +Inf and e^-200 to +0
// in f32, as the unclamped values do.
void Gen::exp_pd(const Xmm& x) {
  Xmm n = V(10), p = V(11);
  vminpd(x, x, dc(kDExpHi));
  vmaxpd(x, x, dc(kDExpLo));
  vmulpd(n, x, dc(kDLog2e));
  round_pd(n, n);                          // n, to nearest even, no exception
  vfnmadd231pd(x, n, dc(kDLn2Hi));         // r = x - n ln2_hi
  vfnmadd231pd(x, n, dc(kDLn2Lo));         //     - n ln2_lo
  vmovupd(p, dc(kDExpC));
  for (int i = 1; i < 13; ++i) vfmadd213pd(p, x, dc(kDExpC + i));  // p = p r + c
  vcvtpd2dq(H(10), n);
  vpmovsxdq(n, H(10));
  vpaddq(n, n, dc(kI64Bias));
  vpsllq(n, n, 52);                        // 2^n
  vmulpd(x, p, n);
}

// log: x = m 2^e with m in [sqrt(1/2), sqrt(2)); s = (m - 1) / (m + 1),
// log m = 2 atanh s = 2 s (1 + s^2/3 + .. + s^16/17) (|s| <= 0.172, the
// next term is below 1e-15 relative); log x = e ln2 + log m. Valid for
// positive finite normal doubles (every positive finite f32); zero,
// negative, Inf and NaN lanes are replaced by the caller.
void Gen::log_pd(const Xmm& x) {
  Xmm e = V(10), t = V(11), u = V(12), p = V(13);
  vpsrlq(e, x, 52);                        // biased exponent (x > 0)
  vlogic(Bin::Or, e, e, dc(kDMagic));
  vsubpd(e, e, dc(kDMagicBias));           // e, exactly
  vandpd(x, x, dc(kDMantMask));
  vorpd(x, x, dc(kDExpOne));               // m in [1, 2)
  cmp_pd(t, x, dc(kDSqrt2), 0x1E);         // m > sqrt 2 (GT_OQ)
  vmulpd(u, x, dc(kDHalf));
  blend_pd(x, x, u, t);
  vandpd(t, t, dc(kDOne));
  vaddpd(e, e, t);
  vsubpd(t, x, dc(kDOne));                 // f = m - 1 (exact)
  vaddpd(u, x, dc(kDOne));                 // m + 1
  vdivpd(t, t, u);                         // s
  vmulpd(u, t, t);                         // z = s^2
  vmovupd(p, dc(kDLogC));
  for (int i = 1; i < 9; ++i) vfmadd213pd(p, u, dc(kDLogC + i));
  vaddpd(t, t, t);
  vmulpd(t, t, p);                         // 2 s p
  vfmadd231pd(t, e, dc(kDLn2Lo));          // + e ln2_lo
  vfmadd231pd(t, e, dc(kDLn2Hi));          // + e ln2_hi (exact product)
  vmovapd(x, t);
}

// exp of f32 lanes V0 in f32 arithmetic, for modules optimized at -O2
// (DESIGN §6 allows exp 2 ULP; tests/x86/x86_ulp -O2 measures it).
//
// Common case, every lane with |x| <= 86: the result and 2^n are normal
// numbers, so no clamp is needed. k = 8 x log2e + 1.5 2^23 rounds n =
// round(8 x log2e) into k's low mantissa bits: k - 1.5 2^23 is n exactly.
// r = x - n ln2/8 in two exact-enough steps (Cody-Waite), |r| <= ln2/16.
// With n = 8m + j, 2^(n/8) = 2^(j/8) 2^m: vpermps indexes a table of the
// eight 2^(j/8) by k's low bits, and adding k << 20 (n << 20, the magic's
// bits shift out) to an entry stored less j << 20 adds m to its exponent
// field, exact for a normal result. e^r = 1 + r u(r), u of degree 2
// fitted at Chebyshev nodes (relative error 2^-25 with the coefficients
// in f32), and s e^r = s + (s r) u rounds once. 7 multiply-adds per vector
// (the general path has 18). The table's own rounding (2^-25) dominates
// the error: within 1 ULP of the interpreter's on every f32 input
// (x86_ulp -O2 --full), 1.2 % of them not bit-identical (19 % of the
// ctest sample, which dwells on the fast path's range).
//
// A vector with a lane outside (or NaN) takes the same path with the
// lanes below -104 (+0, as exp_ps_general gives them) masked to zero when
// every other lane is inside: a causal mask's -1e30 scores. Else, or with
// a NaN, it goes to exp_ps_general.
void Gen::exp_ps_fast() {
  // V10, V11 and V13 are left alone but by exp_ps_general: a fused loop
  // holds constants there (fuse_hold_consts).
  Xmm x = V(0), k = V(8), r = V(9), w = V(12);
  Label beyond, general, done;
  vandps(w, x, fk(kFAbsMask));
  if (z()) {
    vcmpps(k7, w, fk(kFExpFastMax), 0x16);  // NLE_UQ: beyond, or NaN
    kortestw(k7, k7);
  } else {
    vcmpps(w, w, fk(kFExpFastMax), 0x16);
    vptest(w, w);
  }
  jnz(beyond, T_NEAR);
  // tiny: zero the lanes below -104 (avx512: those k6 leaves out; avx2:
  // x >= -104 computed into w, free by then).
  auto fast = [&](bool tiny) {
    fk_load(k, kFExpMagic);
    vfmadd231ps(k, x, fk(kFExpLog2eN));
    vsubps(w, k, fk(kFExpMagic));  // n
    vmovaps(r, x);
    vfnmadd231ps(r, w, fk(kFLn2NHi));
    vfnmadd231ps(r, w, fk(kFLn2NLo));
    if (tiny && !z()) vcmpps(w, x, fc(kFExpMin), 0x15);  // NLT_UQ
    auto y = [](const Xmm& v) { return Ymm(v.getIdx(), v.getKind(), v.getBit()); };  // ymm or zmm
    vpermps(y(x), y(k), fk(kFExpTable));  // 2^(j/8) less j << 20
    vpslld(k, k, 20);
    vpaddd(x, x, k);  // s = 2^(n/8)
    Xmm u = k;
    fk_load(u, kFExpU + 1);
    vfmadd213ps(u, r, fk(kFExpU));
    vfmadd213ps(u, r, fk(kFExpC + 7));
    vmulps(r, r, x);
    vfmadd231ps(x, r, u);  // s + s r u
    if (tiny) z() ? vmovaps(x | k6 | T_z, x) : vandps(x, x, w);
    jmp(done, T_NEAR);
  };
  fast(false);
  L(beyond);
  // Beyond (the lanes k7 / w still holds), not below -104 (or NaN): the
  // general path.
  if (z()) {
    vcmpps(k6, x, fc(kFExpMin), 0x15);  // NLT_UQ: x >= -104, or NaN
    kandw(k7, k7, k6);
    kortestw(k7, k7);
  } else {
    vcmpps(r, x, fc(kFExpMin), 0x15);
    vandps(w, w, r);
    vptest(w, w);
  }
  jnz(general, T_NEAR);
  fast(true);
  L(general);
  exp_ps_general();
  reload_held_consts(8, 13);
  L(done);
}

// The whole range: x clamped to [-104, 89] (beyond, the result is +0 or
// +Inf anyway); n = round(x log2e); r = x - n ln2 (Cody-Waite); e^r by the
// same Taylor series in Horner's order; times 2^n as 2^(n>>1) *
// 2^(n - (n>>1)), both normal, so subnormal results are rounded once. A
// NaN gives itself quieted, as the interpreter's double exp does.
void Gen::exp_ps_general() {
  Xmm x = V(0), n = V(8), t = V(9), p = V(10), s = V(11), m = V(12);
  vminps(t, x, fc(kFExpMax));
  vmaxps(t, t, fc(kFExpMin));
  vmulps(n, t, fc(kFLog2e));
  if (z()) vrndscaleps(n, n, 8);
  else vroundps(n, n, 8);
  vfnmadd231ps(t, n, fc(kFLn2Hi));
  vfnmadd231ps(t, n, fc(kFLn2Lo));
  vmovups(p, fc(kFExpC));
  for (int k = 1; k < 8; ++k) vfmadd213ps(p, t, fc(kFExpC + k));
  vcvtps2dq(n, n);
  vpsrad(s, n, 1);
  vpsubd(n, n, s);
  vpaddd(s, s, fc(kI32Bias));
  vpslld(s, s, 23);
  vpaddd(n, n, fc(kI32Bias));
  vpslld(n, n, 23);
  vmulps(p, p, s);
  vmulps(p, p, n);
  cmp_ps(m, x, x, 3);  // UNORD_Q
  vaddps(s, x, x);
  blend_ps(x, p, s, m);
}

void Gen::math(Op o) {
  if (o == Op::TExp && m_.opt_level >= 2) return exp_ps_fast();
  auto half = [&](const Xmm& y) {
    if (o == Op::TExp) {
      exp_pd(y);
    } else if (o == Op::TLog) {
      log_pd(y);
    } else {  // 1 / sqrt(x) in double, exactly the interpreter's operations
      vsqrtpd(y, y);
      vmovupd(V(10), dc(kDOne));
      vdivpd(y, V(10), y);
    }
  };
  Xmm x0 = V(0), x6 = V(6), x8 = V(8), x10 = V(10), x11 = V(11), x12 = V(12);
  vcvtps2pd(x8, H(0));
  half(x8);
  vcvtpd2ps(H(8), x8);
  extract_hi(H(9), x0);
  vcvtps2pd(V(9), H(9));
  half(V(9));
  vcvtpd2ps(H(9), V(9));
  insert_hi(x8, H(9));
  if (o == Op::TRsqrt) {
    vmovaps(x0, x8);
    return;
  }
  if (o == Op::TLog) {
    // x == +-0: -Inf; x < 0: the default NaN (what std::log gives); +Inf:
    // +Inf.
    cmp_ps(x10, x0, x6, 0);                // EQ_OQ
    vbroadcastss(x11, dword[r14 + kNegInfF32]);
    blend_ps(x8, x8, x11, x10);
    cmp_ps(x10, x0, x6, 1);                // LT_OS
    vbroadcastss(x12, dword[r14 + kNegInfF32]);
    vmulps(x12, x12, x6);                  // -Inf * 0 = the default NaN
    blend_ps(x8, x8, x12, x10);
    vbroadcastss(x11, dword[r14 + kPosInfF32]);
    cmp_ps(x10, x0, x11, 0);
    blend_ps(x8, x8, x11, x10);
  }
  // NaN in: the same NaN, quieted.
  cmp_ps(x10, x0, x0, 3);                  // UNORD_Q
  vaddps(x11, x0, x0);
  blend_ps(x0, x8, x11, x10);
}

// pow(x, y) of f32 lanes V0 = x, V1 = y into V0, as std::pow of the two
// values in double rounded to f32: |x|^y = exp(y log|x|) in double (the
// error of y log|x| is below 2^-52 |y log|x||, so the f32 result is within
// 1 ULP; exact powers like 2^10 come out exact), then the sign and the
// special cases of C's pow, in this order: x < 0 with an odd integer y
// negates; x < 0 with a finite non-integer y is the default NaN; x = +-0
// or +-Inf gives +-0 or +-Inf by the sign of y (the sign of x kept for an
// odd integer y); |x| = 1 with y = +-Inf gives 1; a NaN operand gives that
// NaN quieted (x's first); y = +-0 or x = 1 gives 1. Scratch: V7-V14
// (V3-V6 keep the loop constants: -0, abs mask, 1, 0).
void Gen::pow_ps() {
  Xmm x = V(0), y = V(1), r = V(7), a = V(8), b = V(9), m = V(14), t = V(10), u = V(11);
  auto bimm = [&](const Xmm& v, uint32_t imm) {
    mov(ecx, imm);
    vmovd(Xmm(v.getIdx()), ecx);
    vpbroadcastd(v, Xmm(v.getIdx()));
  };
  // |x|^y, half by half.
  vandps(r, x, V(4));                          // |x| (f32)
  for (int half = 0; half < 2; ++half) {
    if (half == 0) {
      vcvtps2pd(a, H(r.getIdx()));
      vcvtps2pd(b, H(y.getIdx()));
    } else {
      extract_hi(H(a.getIdx()), r);
      vcvtps2pd(a, H(a.getIdx()));
      extract_hi(H(b.getIdx()), y);
      vcvtps2pd(b, H(b.getIdx()));
    }
    log_pd(a);
    vmulpd(a, a, b);
    exp_pd(a);
    if (half == 0) {
      vcvtpd2ps(H(m.getIdx()), a);             // the low half, kept in m
    } else {
      vcvtpd2ps(H(a.getIdx()), a);
      vmovaps(r, m);
      insert_hi(r, H(a.getIdx()));
    }
  }
  // Masks: yint (y integral, Inf included), yodd, xneg.
  z() ? vrndscaleps(t, y, 11) : vroundps(t, y, 11);
  cmp_ps(a, t, y, 0);                          // yint
  vcvttps2dq(u, y);
  vpslld(u, u, 31);                            // the low bit, as the sign bit
  vandps(b, y, V(4));
  bimm(m, 0x4b800000u);                        // 2^24: above it every integer is even
  cmp_ps(b, b, m, 1);                          // |y| < 2^24 (false for NaN)
  vandps(b, b, a);
  vandps(b, b, u);                             // yodd: the sign bit set
  vpsrad(b, b, 31);                            // ... as a whole-lane mask
  cmp_ps(m, x, V(6), 1);                       // xneg: x < 0
  // x < 0 and y odd: negate.
  vandps(t, m, b);
  vandps(t, t, V(3));
  vxorps(r, r, t);
  // x < 0, y finite and not integral: the default NaN.
  vandps(t, y, V(4));
  bimm(u, 0x7f800000u);
  cmp_ps(t, t, u, 1);                          // |y| < Inf (false for NaN)
  vandnps(u, a, t);                            // finite, not integral
  vandps(u, u, m);
  bimm(t, 0xffc00000u);
  blend_ps(r, r, t, u);
  // x = +-0 or +-Inf: Inf when (x == 0) != (y > 0), else 0; x's sign for
  // an odd y.
  vandps(t, x, V(4));
  cmp_ps(u, t, V(6), 0);                       // x == 0
  cmp_ps(m, y, V(6), 0x1E);                    // y > 0
  vxorps(u, u, m);                             // Inf wanted
  bimm(m, 0x7f800000u);
  vandps(u, u, m);                             // +Inf or +0
  vandps(m, x, V(3));
  vandps(m, m, b);
  vorps(u, u, m);                              // x's sign for an odd y
  vandps(t, x, V(4));
  cmp_ps(m, t, V(6), 0);
  bimm(a, 0x7f800000u);
  cmp_ps(t, t, a, 0);
  vorps(m, m, t);                              // x is +-0 or +-Inf
  blend_ps(r, r, u, m);
  // |x| = 1 and y = +-Inf: 1.
  vandps(t, x, V(4));
  cmp_ps(m, t, V(5), 0);
  vandps(t, y, V(4));
  cmp_ps(u, t, a, 0);
  vandps(m, m, u);
  blend_ps(r, r, V(5), m);
  // NaN operands: x's NaN quieted, else y's.
  cmp_ps(m, x, x, 3);
  vaddps(t, x, x);
  cmp_ps(u, y, y, 3);
  vaddps(a, y, y);
  blend_ps(r, r, a, u);
  blend_ps(r, r, t, m);
  // y = +-0 or x = 1: 1, whatever the other operand.
  cmp_ps(m, y, V(6), 0);
  cmp_ps(u, x, V(5), 0);
  vorps(m, m, u);
  blend_ps(x, r, V(5), m);
}

}  // namespace ptoas::cg::x86::gen
