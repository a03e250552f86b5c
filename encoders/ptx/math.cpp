// exp, log and rsqrt of f32 lanes on PTX (docs/ptx_backend.md, "Numerics").
//
// Everything here is IEEE arithmetic (fma.rn, mul.rn, add.rn, cvt.rni,
// integer ops): no .approx instruction, so the results are the same bits
// on every GPU, in the project's PTX interpreter, and in the host model of
// tests/ptx/ptx_math.cpp, which measures the bound against the
// interpreter's definition (the C library's double function rounded to
// f32) over every f32 input:
// * exp: f32 range reduction and a degree-7 polynomial (ptx_exp_model);
// * log: evaluated in f64 (the CPU targets' method), rounded once;
// * rsqrt: 1 / sqrt(x) in f64, exactly the interpreter's operations.
#include "gen.h"
#include "ptx_math.h"

namespace ptoas::cg::ptx {

// exp(x) = 2^n e^r: n = rint(x log2e), r = x - n ln2 (Cody-Waite, two fmas,
// exact first step), e^r by Taylor to r^7 in Horner form with fma; 2^n
// applied as two normal factors 2^(n>>1) 2^(n - (n>>1)), so a subnormal
// result is rounded once. x is clamped to [-104, 89] first (where the
// result is already 0 or +Inf); NaN in gives the same NaN, quieted.
Reg Gen::fexp(Reg x) {
  Reg xc = reg(RC::F), t = reg(RC::F), n = reg(RC::F), r = reg(RC::F), p = reg(RC::F);
  I("max.f32", xc, x, f32imm(kExpLoBits));
  I("min.f32", xc, xc, f32imm(kExpHiBits));
  I("mul.rn.f32", t, xc, f32imm(kLog2eBits));
  I("cvt.rni.f32.f32", n, t);
  I("fma.rn.f32", r, n, f32imm(kNegLn2HiBits), xc);
  I("fma.rn.f32", r, n, f32imm(kNegLn2LoBits), r);
  I("mov.f32", p, f32imm(kExpPolyBits[0]));
  for (unsigned i = 1; i < kExpPolyTerms; ++i) I("fma.rn.f32", p, p, r, f32imm(kExpPolyBits[i]));
  Reg ni = reg(RC::R), n1 = reg(RC::R), n2 = reg(RC::R), s1 = reg(RC::R), s2 = reg(RC::R);
  I("cvt.rni.s32.f32", ni, n);
  I("shr.s32", n1, ni, 1);
  I("sub.s32", n2, ni, n1);
  I("add.s32", s1, n1, 127);
  I("shl.b32", s1, s1, 23);
  I("add.s32", s2, n2, 127);
  I("shl.b32", s2, s2, 23);
  Reg f1 = reg(RC::F), f2 = reg(RC::F), y = reg(RC::F);
  I("mov.b32", f1, s1);
  I("mov.b32", f2, s2);
  I("mul.rn.f32", y, p, f1);
  I("mul.rn.f32", y, y, f2);
  return nan_quieted(x, y);
}

// y, or x quieted where x is a NaN (the interpreter's math keeps a NaN
// operand's payload).
Reg Gen::nan_quieted(Reg x, Reg y) {
  Reg nan = reg(RC::P), q = reg(RC::R), yb = reg(RC::R);
  I("setp.nan.f32", nan, x, x);
  I("mov.b32", q, x);
  I("or.b32", q, q, 0x400000);
  I("mov.b32", yb, y);
  I("selp.b32", yb, q, yb, nan);
  Reg out = reg(RC::F);
  I("mov.b32", out, yb);
  return out;
}

// log(x) in f64: x = m 2^e with m in [sqrt(1/2), sqrt(2)), s = (m-1)/(m+1),
// log m = 2 s (1 + s^2/3 + .. + s^16/17), log x = e ln2 + log m; rounded
// to f32 once. +-0: -Inf; x < 0: the default NaN of the interpreter's
// machine (0xffc00000); +Inf: +Inf; NaN: the same NaN, quieted.
Reg Gen::flog(Reg x) {
  Reg d = reg(RC::FD), bits = reg(RC::RD), e = reg(RC::RD), mb = reg(RC::RD), m = reg(RC::FD);
  I("cvt.f64.f32", d, x);  // f32 subnormals are normal doubles
  I("mov.b64", bits, d);
  I("shr.u64", e, bits, 52);
  I("and.b64", e, e, 0x7ff);
  I("sub.s64", e, e, 1023);
  I("and.b64", mb, bits, (unsigned long long)0x000fffffffffffffull);
  I("or.b64", mb, mb, (unsigned long long)0x3ff0000000000000ull);
  I("mov.b64", m, mb);
  Reg big = reg(RC::P), mh = reg(RC::FD), e1 = reg(RC::RD);
  I("setp.gt.f64", big, m, f64imm(kSqrt2Bits));
  I("mul.rn.f64", mh, m, f64imm(0x3fe0000000000000ull));
  I("selp.f64", m, mh, m, big);
  I("add.s64", e1, e, 1);
  I("selp.b64", e, e1, e, big);
  Reg f = reg(RC::FD), u = reg(RC::FD), s = reg(RC::FD), z = reg(RC::FD), p = reg(RC::FD), ed = reg(RC::FD);
  I("sub.rn.f64", f, m, f64imm(0x3ff0000000000000ull));
  I("add.rn.f64", u, m, f64imm(0x3ff0000000000000ull));
  I("div.rn.f64", s, f, u);
  I("mul.rn.f64", z, s, s);
  I("mov.f64", p, f64imm(kLogPolyBits[0]));
  for (unsigned i = 1; i < kLogPolyTerms; ++i) I("fma.rn.f64", p, p, z, f64imm(kLogPolyBits[i]));
  I("add.rn.f64", s, s, s);
  I("mul.rn.f64", s, s, p);
  I("cvt.rn.f64.s64", ed, e);
  I("fma.rn.f64", s, ed, f64imm(kLn2LoBits), s);
  I("fma.rn.f64", s, ed, f64imm(kLn2HiBits), s);
  Reg y = reg(RC::F);
  I("cvt.rn.f32.f64", y, s);
  // Special inputs, in the order that leaves the right one last.
  Reg pz = reg(RC::P), pn = reg(RC::P), pi = reg(RC::P);
  I("setp.eq.f32", pz, x, fimm(0.0f));
  I("selp.f32", y, f32imm(0xff800000u), y, pz);
  I("setp.lt.f32", pn, x, fimm(0.0f));
  I("selp.f32", y, f32imm(0xffc00000u), y, pn);
  I("setp.eq.f32", pi, x, f32imm(0x7f800000u));
  I("selp.f32", y, f32imm(0x7f800000u), y, pi);
  return nan_quieted(x, y);
}

// 1 / sqrt(double(x)) rounded to f32: the interpreter's operations.
Reg Gen::frsqrt(Reg x) {
  Reg d = reg(RC::FD), y = reg(RC::F);
  I("cvt.f64.f32", d, x);
  I("sqrt.rn.f64", d, d);
  I("rcp.rn.f64", d, d);
  I("cvt.rn.f32.f64", y, d);
  return nan_fix(y, x, Reg{});
}

}  // namespace ptoas::cg::ptx
