// Instruction selection: integer, predicate and conversion instructions.
// Integers up to 32 bits live in one VGPR (16- and 8-bit ones
// zero-extended), 64-bit ones in a pair; PTX's defined results (shifts
// past the width, clz of 0, division rounding toward zero) are kept.
#include "isel.h"

namespace ptoas::cg::amdgpu {

using ptx::Op;
using ptx::Opnd;
using ptx::Ty;

namespace {

bool is_signed(Ty t) { return ptx::ty_signed(t); }
unsigned bits_of(Ty t) { return ptx::ty_bytes(t) * 8; }

}  // namespace

// n / d and n % d (u32): the reciprocal estimate and two corrections
// (exact for every n and d != 0; d == 0 gives all ones, as PTX leaves it).
void Isel::udivrem32(uint32_t n, uint32_t d, uint32_t q, uint32_t r) {
  uint32_t f = v32(), z = v32(), nd = v32(), t = v32(), m = mask();
  I("v_cvt_f32_u32", {D(f), U(d)});
  I("v_rcp_iflag_f32", {D(f), U(f)});
  I("v_mul_f32", {D(f), T("0x4f7ffffe"), U(f)});
  I("v_cvt_u32_f32", {D(z), U(f)});
  I("v_sub_u32", {D(nd), T("0"), U(d)});
  I("v_mul_lo_u32", {D(t), U(nd), U(z)});
  I("v_mul_hi_u32", {D(t), U(z), U(t)});
  I("v_add_u32", {D(z), U(z), U(t)});
  I("v_mul_hi_u32", {D(q), U(n), U(z)});
  I("v_mul_lo_u32", {D(t), U(q), U(d)});
  I("v_sub_u32", {D(r), U(n), U(t)});
  for (int k = 0; k < 2; ++k) {
    uint32_t q1 = v32(), r1 = v32();
    I("v_cmp_ge_u32_e64", {D(m), U(r), U(d)});
    I("v_add_u32", {D(q1), T("1"), U(q)});
    I("v_sub_u32", {D(r1), U(r), U(d)});
    I("v_cndmask_b32_e64", {DU(q), U(q), U(q1), U(m)});
    I("v_cndmask_b32_e64", {DU(r), U(r), U(r1), U(m)});
  }
}

// n / d and n % d (u64): restoring division, one quotient bit a step, in
// a loop (64 steps) that is uniform across the wave. d == 0: all ones.
void Isel::udivrem64(uint32_t n, uint32_t d, uint32_t q, uint32_t r) {
  uint32_t i = vnew(RegFile::S, 1), t = v64(), m = mask(), bit = v32();
  I("v_mov_b32", {D(q, 0), U(n, 0)});
  I("v_mov_b32", {D(q, 1), U(n, 1)});
  I("v_mov_b32", {D(r, 0), T("0")});
  I("v_mov_b32", {D(r, 1), T("0")});
  I("s_mov_b32", {D(i), T("64")});
  int32_t top = nlabels_++;
  MInst l;
  l.kind = MInst::Label;
  l.label = top;
  f_.code.push_back(l);
  // r:q <<= 1 (the top bit of q enters r), then subtract d where r >= d.
  I("v_lshrrev_b32", {D(bit), T("31"), U(q, 1)});
  I("v_lshlrev_b64", {DU(r), T("1"), U(r)});
  I("v_or_b32", {DU(r, 0), U(r, 0), U(bit)});
  I("v_lshlrev_b64", {DU(q), T("1"), U(q)});
  I("v_cmp_ge_u64_e64", {D(m), U(r), U(d)});
  sub64(t, r, d);
  I("v_cndmask_b32_e64", {DU(r, 0), U(r, 0), U(t, 0), U(m)});
  I("v_cndmask_b32_e64", {DU(r, 1), U(r, 1), U(t, 1), U(m)});
  I("v_cndmask_b32_e64", {D(bit), T("0"), T("1"), U(m)});
  I("v_or_b32", {DU(q, 0), U(q, 0), U(bit)});
  I("s_sub_u32", {DU(i), U(i), T("1")});
  I("s_cmp_lg_u32", {U(i), T("0")});
  I("s_cbranch_scc1", {});
  f_.code.back().label = top;
}

void Isel::add64(uint32_t d, uint32_t a, uint32_t b) {
  I("v_add_co_u32", {D(d, 0), T(vcc()), U(a, 0), U(b, 0)});
  I("v_addc_co_u32", {D(d, 1), T(vcc()), U(a, 1), U(b, 1), T(vcc())});
}

void Isel::sub64(uint32_t d, uint32_t a, uint32_t b) {
  I("v_sub_co_u32", {D(d, 0), T(vcc()), U(a, 0), U(b, 0)});
  I("v_subb_co_u32", {D(d, 1), T(vcc()), U(a, 1), U(b, 1), T(vcc())});
}

void Isel::neg64(uint32_t d, uint32_t a) {
  uint32_t z = v64();
  I("v_mov_b32", {D(z, 0), T("0")});
  I("v_mov_b32", {D(z, 1), T("0")});
  sub64(d, z, a);
}

// The low 64 bits of a * b.
void Isel::mul64(uint32_t d, uint32_t a, uint32_t b) {
  uint32_t p = v64(), x = v32(), y = v32();
  I("v_mad_u64_u32", {D(p), T(vcc()), U(a, 0), U(b, 0), T("0")});
  I("v_mul_lo_u32", {D(x), U(a, 0), U(b, 1)});
  I("v_mul_lo_u32", {D(y), U(a, 1), U(b, 0)});
  I("v_add_u32", {D(x), U(x), U(y)});
  I("v_mov_b32", {D(d, 0), U(p, 0)});
  I("v_add_u32", {D(d, 1), U(p, 1), U(x)});
}

bool Isel::int_op(const ptx::Inst& in) {
  Ty t = in.type;
  if (t == Ty::Pred) {
    uint32_t d = pred(opnd(in, 0).reg);
    auto p = [&](unsigned k) -> MOp {
      const Opnd& o = opnd(in, k);
      if (o.kind == Opnd::Imm) return T(o.imm ? "-1" : "0");
      return U(pred(o.reg));
    };
    switch (in.op) {
      case Op::And: I(mask_op("s_and"), {D(d), p(1), p(2)}); return true;
      case Op::Or: I(mask_op("s_or"), {D(d), p(1), p(2)}); return true;
      case Op::Xor: I(mask_op("s_xor"), {D(d), p(1), p(2)}); return true;
      case Op::Not: I(mask_op("s_not"), {D(d), p(1)}); return true;
      default: return false;
    }
  }
  unsigned w = bits_of(t);
  bool sg = is_signed(t);
  const Opnd& o0 = opnd(in, 0);
  if (in.op == Op::Mul && (in.flags & ptx::F_WIDE)) {
    uint32_t d = dst(o0);
    if (w != 32) return false;
    I(sg ? "v_mad_i64_i32" : "v_mad_u64_u32", {D(d), T(vcc()), src32(opnd(in, 1)), src32(opnd(in, 2)), T("0")});
    return true;
  }
  if (in.op == Op::Mad && (in.flags & ptx::F_WIDE)) {
    uint32_t d = dst(o0), c = src64(opnd(in, 3));
    if (w != 32) return false;
    I(sg ? "v_mad_i64_i32" : "v_mad_u64_u32", {D(d), T(vcc()), src32(opnd(in, 1)), src32(opnd(in, 2)), U(c)});
    return true;
  }
  uint32_t d = dst(o0);
  auto a = [&]() { return src32(opnd(in, 1)); };
  auto b = [&]() { return src32(opnd(in, 2)); };
  // 8- and 16-bit results stay zero-extended.
  auto narrow = [&]() {
    if (w < 32) I("v_and_b32", {D(d), T(w == 16 ? "0xffff" : "0xff"), U(d)});
  };
  switch (in.op) {
    case Op::Add: I("v_add_u32", {D(d), a(), b()}); narrow(); return true;
    case Op::Sub: I("v_sub_u32", {D(d), a(), b()}); narrow(); return true;
    case Op::Mul:
      if (in.flags & ptx::F_HI) {
        if (w != 32) return false;
        I(sg ? "v_mul_hi_i32" : "v_mul_hi_u32", {D(d), a(), b()});
      } else {
        I("v_mul_lo_u32", {D(d), a(), b()});
        narrow();
      }
      return true;
    case Op::Mad: {
      if (in.flags & ptx::F_HI) return false;
      uint32_t x = v32();
      I("v_mul_lo_u32", {D(x), a(), b()});
      I("v_add_u32", {D(d), U(x), src32(opnd(in, 3))});
      narrow();
      return true;
    }
    case Op::Min: case Op::Max: {
      if (w != 32) return false;
      std::string op = std::string(in.op == Op::Min ? "v_min_" : "v_max_") + (sg ? "i32" : "u32");
      I(op, {D(d), a(), b()});
      return true;
    }
    case Op::And: I("v_and_b32", {D(d), a(), b()}); return true;
    case Op::Or: I("v_or_b32", {D(d), a(), b()}); return true;
    case Op::Xor: I("v_xor_b32", {D(d), a(), b()}); return true;
    case Op::Not: I("v_not_b32", {D(d), a()}); narrow(); return true;
    case Op::Neg: I("v_sub_u32", {D(d), T("0"), a()}); narrow(); return true;
    case Op::Abs: {
      if (w != 32) return false;
      uint32_t x = src32v(opnd(in, 1)), n = v32();
      I("v_sub_u32", {D(n), T("0"), U(x)});
      I("v_max_i32", {D(d), U(x), U(n)});
      return true;
    }
    case Op::Cnot: {
      uint32_t m = mask();
      I("v_cmp_eq_u32_e64", {D(m), T("0"), a()});
      I("v_cndmask_b32_e64", {D(d), T("0"), T("1"), U(m)});
      return true;
    }
    case Op::Shl: case Op::Shr: {
      if (w != 32) return false;
      const Opnd& c = opnd(in, 2);
      bool arith = in.op == Op::Shr && sg;
      const char* op = in.op == Op::Shl ? "v_lshlrev_b32" : arith ? "v_ashrrev_i32" : "v_lshrrev_b32";
      if (c.kind == Opnd::Imm) {
        uint64_t n = uint64_t(c.imm) & 0xffffffffu;
        if (n >= 32 && !arith) I("v_mov_b32", {D(d), T("0")});
        else I(op, {D(d), T(std::to_string(std::min<uint64_t>(n, 31))), a()});
        return true;
      }
      // A count past 31 gives 0, or the sign for an arithmetic shift.
      uint32_t n = src32v(c), m = mask(), x = v32();
      I("v_cmp_lt_u32_e64", {D(m), T("31"), U(n)});
      if (arith) {
        uint32_t n2 = v32();
        I("v_min_u32", {D(n2), T("31"), U(n)});
        I(op, {D(d), U(n2), a()});
        return true;
      }
      I(op, {D(x), U(n), a()});
      I("v_cndmask_b32_e64", {D(d), U(x), T("0"), U(m)});
      return true;
    }
    case Op::Div: case Op::Rem: {
      if (w != 32) return false;
      uint32_t q = v32(), r = v32();
      if (!sg) {
        udivrem32(src32v(opnd(in, 1)), src32v(opnd(in, 2)), q, r);
        I("v_mov_b32", {D(d), U(in.op == Op::Div ? q : r)});
        return true;
      }
      // |n| / |d| with the signs fixed: toward zero, the remainder takes n's sign.
      uint32_t n = src32v(opnd(in, 1)), dv = src32v(opnd(in, 2));
      uint32_t an = v32(), ad = v32(), tn = v32(), td = v32(), sgn = v32(), t = v32();
      I("v_sub_u32", {D(tn), T("0"), U(n)});
      I("v_max_i32", {D(an), U(n), U(tn)});
      I("v_sub_u32", {D(td), T("0"), U(dv)});
      I("v_max_i32", {D(ad), U(dv), U(td)});
      udivrem32(an, ad, q, r);
      if (in.op == Op::Div) {
        I("v_xor_b32", {D(sgn), U(n), U(dv)});
        I("v_ashrrev_i32", {D(sgn), T("31"), U(sgn)});
        I("v_xor_b32", {D(t), U(q), U(sgn)});
        I("v_sub_u32", {D(d), U(t), U(sgn)});
      } else {
        I("v_ashrrev_i32", {D(sgn), T("31"), U(n)});
        I("v_xor_b32", {D(t), U(r), U(sgn)});
        I("v_sub_u32", {D(d), U(t), U(sgn)});
      }
      return true;
    }
    case Op::Bfe: {
      const Opnd& p = opnd(in, 2);
      const Opnd& l = opnd(in, 3);
      if (w != 32 || p.kind != Opnd::Imm || l.kind != Opnd::Imm) return false;
      int64_t pos = p.imm & 0xff, len = l.imm & 0xff;
      if (len == 0) {
        I("v_mov_b32", {D(d), T("0")});
        return true;
      }
      if (pos + len > 32) return false;
      I(sg ? "v_bfe_i32" : "v_bfe_u32", {D(d), a(), T(std::to_string(pos)), T(std::to_string(len))});
      return true;
    }
    case Op::Bfi: {
      const Opnd& p = opnd(in, 3);
      const Opnd& l = opnd(in, 4);
      if (w != 32 || p.kind != Opnd::Imm || l.kind != Opnd::Imm) return false;
      int64_t pos = p.imm & 0xff, len = l.imm & 0xff;
      if (len == 0 || pos >= 32) {
        I("v_mov_b32", {D(d), b()});
        return true;
      }
      uint64_t m = (len >= 32 ? 0xffffffffull : ((1ull << len) - 1)) << pos;
      uint32_t x = v32();
      I("v_lshlrev_b32", {D(x), T(std::to_string(pos)), a()});
      I("v_bfi_b32", {D(d), U(const32(uint32_t(m))), U(x), b()});
      return true;
    }
    case Op::Popc: I("v_bcnt_u32_b32", {D(d), a(), T("0")}); return true;
    case Op::Clz: {
      uint32_t x = v32();
      I("v_ffbh_u32", {D(x), a()});
      I("v_min_u32", {D(d), T("32"), U(x)});
      return true;
    }
    case Op::Brev: I("v_bfrev_b32", {D(d), a()}); return true;
    default: return false;
  }
}

bool Isel::int64_op(const ptx::Inst& in) {
  bool sg = is_signed(in.type);
  uint32_t d = dst(opnd(in, 0));
  auto a = [&]() { return src64(opnd(in, 1)); };
  auto b = [&]() { return src64(opnd(in, 2)); };
  switch (in.op) {
    case Op::Add: add64(d, a(), b()); return true;
    case Op::Sub: sub64(d, a(), b()); return true;
    case Op::Neg: neg64(d, a()); return true;
    case Op::Mul:
      if (in.flags & ptx::F_HI) return false;
      mul64(d, a(), b());
      return true;
    case Op::Mad: {
      if (in.flags & ptx::F_HI) return false;
      uint32_t x = v64();
      mul64(x, a(), b());
      add64(d, x, src64(opnd(in, 3)));
      return true;
    }
    case Op::And: case Op::Or: case Op::Xor: {
      const char* op = in.op == Op::And ? "v_and_b32" : in.op == Op::Or ? "v_or_b32" : "v_xor_b32";
      uint32_t x = a(), y = b();
      I(op, {D(d, 0), U(x, 0), U(y, 0)});
      I(op, {D(d, 1), U(x, 1), U(y, 1)});
      return true;
    }
    case Op::Not: {
      uint32_t x = a();
      I("v_not_b32", {D(d, 0), U(x, 0)});
      I("v_not_b32", {D(d, 1), U(x, 1)});
      return true;
    }
    case Op::Min: case Op::Max: case Op::Abs: {
      uint32_t x = a(), y = 0, m = mask();
      if (in.op == Op::Abs) {
        y = v64();
        neg64(y, x);
        I("v_cmp_lt_i64_e64", {D(m), U(x), U(y)});  // x < -x: take -x
      } else {
        y = b();
        std::string c = std::string(in.op == Op::Min ? "v_cmp_lt_" : "v_cmp_gt_") + (sg ? "i64_e64" : "u64_e64");
        I(c, {D(m), U(y), U(x)});  // y wins where it is below (above) x
      }
      I("v_cndmask_b32_e64", {D(d, 0), U(x, 0), U(y, 0), U(m)});
      I("v_cndmask_b32_e64", {D(d, 1), U(x, 1), U(y, 1), U(m)});
      return true;
    }
    case Op::Shl: case Op::Shr: {
      const Opnd& c = opnd(in, 2);
      bool arith = in.op == Op::Shr && sg;
      const char* op = in.op == Op::Shl ? "v_lshlrev_b64" : arith ? "v_ashrrev_i64" : "v_lshrrev_b64";
      if (c.kind != Opnd::Imm) {
        uint32_t n = src32v(c), m = mask(), x = v64(), n2 = v32();
        I("v_min_u32", {D(n2), T("63"), U(n)});
        I(op, {D(x), U(n2), U(a())});
        I("v_cmp_lt_u32_e64", {D(m), T("63"), U(n)});
        if (arith) {
          I("v_mov_b32", {D(d, 0), U(x, 0)});
          I("v_mov_b32", {D(d, 1), U(x, 1)});
        } else {
          I("v_cndmask_b32_e64", {D(d, 0), U(x, 0), T("0"), U(m)});
          I("v_cndmask_b32_e64", {D(d, 1), U(x, 1), T("0"), U(m)});
        }
        return true;
      }
      uint64_t n = uint64_t(c.imm) & 0xffffffffu;
      if (n >= 64 && !arith) {
        I("v_mov_b32", {D(d, 0), T("0")});
        I("v_mov_b32", {D(d, 1), T("0")});
        return true;
      }
      I(op, {D(d), T(std::to_string(std::min<uint64_t>(n, 63))), U(a())});
      return true;
    }
    case Op::Div: case Op::Rem: {
      uint32_t q = v64(), r = v64();
      if (!sg) {
        udivrem64(a(), b(), q, r);
      } else {
        // Magnitudes, then the signs: toward zero, the remainder takes n's sign.
        uint32_t n = a(), dv = b(), an = v64(), ad = v64(), t = v64(), m = mask();
        neg64(t, n);
        I("v_cmp_gt_i64_e64", {D(m), T("0"), U(n)});
        I("v_cndmask_b32_e64", {D(an, 0), U(n, 0), U(t, 0), U(m)});
        I("v_cndmask_b32_e64", {D(an, 1), U(n, 1), U(t, 1), U(m)});
        uint32_t t2 = v64(), m2 = mask();
        neg64(t2, dv);
        I("v_cmp_gt_i64_e64", {D(m2), T("0"), U(dv)});
        I("v_cndmask_b32_e64", {D(ad, 0), U(dv, 0), U(t2, 0), U(m2)});
        I("v_cndmask_b32_e64", {D(ad, 1), U(dv, 1), U(t2, 1), U(m2)});
        uint32_t uq = v64(), ur = v64();
        udivrem64(an, ad, uq, ur);
        uint32_t nq = v64(), nr = v64(), mq = mask();
        neg64(nq, uq);
        neg64(nr, ur);
        I(mask_op("s_xor"), {D(mq), U(m), U(m2)});
        I("v_cndmask_b32_e64", {D(q, 0), U(uq, 0), U(nq, 0), U(mq)});
        I("v_cndmask_b32_e64", {D(q, 1), U(uq, 1), U(nq, 1), U(mq)});
        I("v_cndmask_b32_e64", {D(r, 0), U(ur, 0), U(nr, 0), U(m)});
        I("v_cndmask_b32_e64", {D(r, 1), U(ur, 1), U(nr, 1), U(m)});
      }
      uint32_t s = in.op == Op::Div ? q : r;
      I("v_mov_b32", {D(d, 0), U(s, 0)});
      I("v_mov_b32", {D(d, 1), U(s, 1)});
      return true;
    }
    case Op::Bfe: {
      const Opnd& p = opnd(in, 2);
      const Opnd& l = opnd(in, 3);
      if (p.kind != Opnd::Imm || l.kind != Opnd::Imm) return false;
      int64_t pos = p.imm & 0xff, len = l.imm & 0xff;
      if (len == 0) {
        I("v_mov_b32", {D(d, 0), T("0")});
        I("v_mov_b32", {D(d, 1), T("0")});
        return true;
      }
      if (pos + len > 64) return false;
      // Up to the field's top bit, then back down (with the sign for .s64).
      uint32_t x = v64();
      I("v_lshlrev_b64", {D(x), T(std::to_string(64 - pos - len)), U(a())});
      I(sg ? "v_ashrrev_i64" : "v_lshrrev_b64", {D(d), T(std::to_string(64 - len)), U(x)});
      return true;
    }
    default: return false;
  }
}

// A compare's mask (the lanes where `a cmp b` holds).
uint32_t Isel::cmp_mask(std::string_view cmp, const char* ty, MOp a, MOp b) {
  uint32_t m = mask();
  I("v_cmp_" + std::string(cmp) + "_" + ty + "_e64", {D(m), a, b});
  return m;
}

bool Isel::setp(const ptx::Inst& in) {
  if (in.guard >= 0) return false;
  using ptx::Cmp;
  Ty t = in.type;
  bool fl = ptx::ty_float(t);
  if (fl && t != Ty::F32 && t != Ty::F64) return false;
  unsigned w = bits_of(t);
  bool sg = is_signed(t);
  static constexpr const char* kInt[] = {"eq", "ne", "lt", "le", "gt", "ge", "lt", "le", "gt", "ge"};
  static constexpr const char* kFloat[] = {"eq", "lg", "lt", "le", "gt", "ge", "", "", "", "",
                                           "nlg", "neq", "nge", "ngt", "nle", "nlt", "o", "u"};
  unsigned c = unsigned(in.cmp);
  const char* name = nullptr;
  std::string ty;
  if (fl) {
    name = kFloat[c];
    ty = t == Ty::F32 ? "f32" : "f64";
  } else {
    if (c > unsigned(Cmp::HS)) return false;
    name = kInt[c];
    bool uns = !sg || (in.cmp >= Cmp::LO && in.cmp <= Cmp::HS);
    if (in.cmp == Cmp::EQ || in.cmp == Cmp::NE) uns = true;
    ty = std::string(uns ? "u" : "i") + (w == 64 ? "64" : "32");
  }
  if (!*name) return false;
  MOp a, b;
  if (w == 64) {
    a = U(src64(opnd(in, 2)));
    b = U(src64(opnd(in, 3)));
  } else if (w < 32 && sg) {
    // Narrow signed values are held zero-extended: extend their signs.
    uint32_t x = v32(), y = v32();
    I("v_bfe_i32", {D(x), src32(opnd(in, 2)), T("0"), T(std::to_string(w))});
    I("v_bfe_i32", {D(y), src32(opnd(in, 3)), T("0"), T(std::to_string(w))});
    a = U(x), b = U(y);
  } else {
    a = src32(opnd(in, 2), fl);
    b = src32(opnd(in, 3), fl);
  }
  uint32_t m = cmp_mask(name, ty.c_str(), a, b);
  const Opnd& p = opnd(in, 0);
  const Opnd& q = opnd(in, 1);
  auto combine = [&](uint32_t x) -> uint32_t {
    if (in.boolop == ptx::BoolOp::None) return x;
    const Opnd& co = opnd(in, 4);
    MOp cm = co.kind == Opnd::Imm ? T(co.imm ? "-1" : "0") : U(pred(co.reg));
    if (co.kind == Opnd::Pred && co.neg) {
      uint32_t n = mask();
      I(mask_op("s_not"), {D(n), cm});
      cm = U(n);
    }
    const char* op = in.boolop == ptx::BoolOp::And ? "s_and" : in.boolop == ptx::BoolOp::Or ? "s_or" : "s_xor";
    uint32_t r = mask();
    I(mask_op(op), {D(r), U(x), cm});
    return r;
  };
  auto write = [&](const Opnd& o, uint32_t v) {
    if (o.kind != Opnd::Pred) return;
    uint32_t pr = pred(o.reg);
    if (pred_defs_[o.reg] <= 1) {
      I(mask_op("s_mov"), {D(pr), U(v)});
      return;
    }
    // Written more than once: lanes not running this keep their value.
    uint32_t x = mask(), y = mask();
    I(mask_op("s_and"), {D(x), U(v), T(exec())});
    I(mask_op("s_andn2"), {D(y), U(pr), T(exec())});
    I(mask_op("s_or"), {DU(pr), U(x), U(y)});
  };
  write(p, combine(m));
  if (q.kind == Opnd::Pred) {
    uint32_t n = mask();
    I(mask_op("s_not"), {D(n), U(m)});
    write(q, combine(n));
  }
  return true;
}

bool Isel::selp(const ptx::Inst& in) {
  if (in.guard >= 0) return false;
  const Opnd& c = opnd(in, 3);
  MOp m = c.kind == Opnd::Imm ? T(c.imm ? "-1" : "0") : U(pred(c.reg));
  uint32_t d = dst(opnd(in, 0));
  bool fl = in.type == Ty::F32;
  if (ptx::ty_bytes(in.type) == 8) {
    uint32_t a = src64(opnd(in, 1)), b = src64(opnd(in, 2));
    I("v_cndmask_b32_e64", {D(d, 0), U(b, 0), U(a, 0), m});
    I("v_cndmask_b32_e64", {D(d, 1), U(b, 1), U(a, 1), m});
    return true;
  }
  I("v_cndmask_b32_e64", {D(d), src32(opnd(in, 2), fl), src32(opnd(in, 1), fl), m});
  return true;
}

bool Isel::mov(const ptx::Inst& in) {
  const Opnd& o0 = opnd(in, 0);
  const Opnd& o1 = opnd(in, 1);
  if (in.type == Ty::Pred) {
    uint32_t d = pred(o0.reg);
    if (o1.kind == Opnd::Imm) I(mask_op("s_mov"), {D(d), T(o1.imm ? "-1" : "0")});
    else I(mask_op("s_mov"), {D(d), U(pred(o1.reg))});
    return true;
  }
  if (in.mode == 1 || in.mode == 2) {
    // Unpack (1: {a, b} = x) or pack (2: x = {a, b}) of 2 or 4 parts.
    unsigned n = in.vec, bytes = ptx::ty_bytes(in.type), part = bytes / n * 8;
    const Opnd& whole = in.mode == 1 ? o1 : o0;
    const Opnd& v = in.mode == 1 ? o0 : o1;
    if (part == 32) {
      if (in.mode == 1) {
        uint32_t s = src64(whole);
        for (unsigned k = 0; k < 2; ++k) {
          const Opnd& e = e_.ops[v.reg + k];
          if (e.kind == Opnd::Reg) I("v_mov_b32", {D(dst(e)), U(s, uint8_t(k))});
        }
      } else {
        uint32_t d = dst(whole);
        for (unsigned k = 0; k < 2; ++k) I("v_mov_b32", {D(d, uint8_t(k)), src32(e_.ops[v.reg + k])});
      }
      return true;
    }
    if (part != 16 || bytes != 4) return false;
    if (in.mode == 1) {
      MOp s = src32(whole);
      const Opnd& lo = e_.ops[v.reg];
      const Opnd& hi = e_.ops[v.reg + 1];
      if (lo.kind == Opnd::Reg) I("v_and_b32", {D(dst(lo)), T("0xffff"), s});
      if (hi.kind == Opnd::Reg) I("v_lshrrev_b32", {D(dst(hi)), T("16"), s});
    } else {
      uint32_t d = dst(whole), h = v32(), l = v32();
      I("v_lshlrev_b32", {D(h), T("16"), src32(e_.ops[v.reg + 1])});
      I("v_and_b32", {D(l), T("0xffff"), src32(e_.ops[v.reg])});
      I("v_or_b32", {D(d), U(l), U(h)});
    }
    return true;
  }
  uint32_t d = dst(o0);
  if (ptx::ty_bytes(in.type) == 8) {
    uint32_t s = src64(o1);
    I("v_mov_b32", {D(d, 0), U(s, 0)});
    I("v_mov_b32", {D(d, 1), U(s, 1)});
    return true;
  }
  if (o1.kind == Opnd::Imm) {
    I("v_mov_b32", {D(d), T(int_text(uint32_t(o1.imm)))});
    return true;
  }
  if (o1.kind == Opnd::Special) return special(o1, d);
  I("v_mov_b32", {D(d), src32(o1)});
  return true;
}

bool Isel::cvt(const ptx::Inst& in) {
  using ptx::Rnd;
  Ty dt = in.type, st = in.type2;
  uint32_t d = dst(opnd(in, 0));
  const Opnd& s = opnd(in, 1);
  bool dint = ptx::ty_int(dt), sint = ptx::ty_int(st);
  if (in.flags & (ptx::F_SAT | ptx::F_FTZ | ptx::F_RELU | ptx::F_SATFINITE)) return false;
  if (dint && sint) {
    unsigned dw = bits_of(dt), sw = bits_of(st);
    // The source as a 32-bit value extended from its width.
    uint32_t x = v32();
    if (sw == 64) I("v_mov_b32", {D(x), U(src64(s), 0)});
    else if (sw < 32 && is_signed(st)) I("v_bfe_i32", {D(x), src32(s), T("0"), T(std::to_string(sw))});
    else if (sw < 32) I("v_and_b32", {D(x), T(sw == 16 ? "0xffff" : "0xff"), src32(s)});
    else I("v_mov_b32", {D(x), src32(s)});
    if (dw == 64) {
      if (sw == 64) {
        uint32_t y = src64(s);
        I("v_mov_b32", {D(d, 0), U(y, 0)});
        I("v_mov_b32", {D(d, 1), U(y, 1)});
      } else {
        I("v_mov_b32", {D(d, 0), U(x)});
        if (is_signed(st)) I("v_ashrrev_i32", {D(d, 1), T("31"), U(x)});
        else I("v_mov_b32", {D(d, 1), T("0")});
      }
    } else if (dw < 32) {
      I("v_and_b32", {D(d), T(dw == 16 ? "0xffff" : "0xff"), U(x)});
    } else {
      I("v_mov_b32", {D(d), U(x)});
    }
    return true;
  }
  if (dt == Ty::F32 && sint) {
    if (bits_of(st) > 32 || (in.rnd != Rnd::RN && in.rnd != Rnd::None)) return false;
    I(is_signed(st) ? "v_cvt_f32_i32" : "v_cvt_f32_u32", {D(d), src32(s)});
    return true;
  }
  if (dint && st == Ty::F32 && bits_of(dt) == 64) return cvt_f32_to_64(in, d);
  if (dint && st == Ty::F32) {
    if (bits_of(dt) != 32) return false;
    uint32_t x = src32v(s), r = x;
    const char* round = in.rnd == Rnd::RNI ? "v_rndne_f32" : in.rnd == Rnd::RMI ? "v_floor_f32"
                        : in.rnd == Rnd::RPI ? "v_ceil_f32" : in.rnd == Rnd::RZI ? nullptr : "";
    if (round && !*round) return false;
    if (round) {
      r = v32();
      I(round, {D(r), U(x)});
    }
    I(is_signed(dt) ? "v_cvt_i32_f32" : "v_cvt_u32_f32", {D(d), U(r)});
    return true;
  }
  if (dt == Ty::F32 && st == Ty::F32) {
    const char* round = in.rnd == Rnd::RNI ? "v_rndne_f32" : in.rnd == Rnd::RMI ? "v_floor_f32"
                        : in.rnd == Rnd::RPI ? "v_ceil_f32" : in.rnd == Rnd::RZI ? "v_trunc_f32" : "v_mov_b32";
    I(round, {D(d), src32(s)});
    return true;
  }
  if (dt == Ty::F16 && st == Ty::F32) {
    if (in.rnd != Rnd::RN) return false;
    uint32_t x = v32();
    I("v_cvt_f16_f32", {D(x), src32(s)});
    I("v_and_b32", {D(d), T("0xffff"), U(x)});  // gfx11 keeps the high half
    return true;
  }
  if (dt == Ty::F32 && st == Ty::F16) {
    I("v_cvt_f32_f16", {D(d), src32(s)});
    return true;
  }
  if (dt == Ty::F64 && sint) {
    // hi * 2^32 + lo: both exact in f64, one rounding in the fma.
    unsigned sw = bits_of(st);
    if (sw <= 32) {
      I(is_signed(st) ? "v_cvt_f64_i32" : "v_cvt_f64_u32", {D(d), src32(s)});
      return true;
    }
    uint32_t x = src64(s), hi = v64(), lo = v64(), k = v64();
    I(is_signed(st) ? "v_cvt_f64_i32" : "v_cvt_f64_u32", {D(hi), U(x, 1)});
    I("v_cvt_f64_u32", {D(lo), U(x, 0)});
    I("v_mov_b32", {D(k, 0), T("0")});
    I("v_mov_b32", {D(k, 1), T("0x41f00000")});  // 2^32
    I("v_fma_f64", {D(d), U(hi), U(k), U(lo)});
    return true;
  }
  if (dt == Ty::F64 && st == Ty::F32) {
    I("v_cvt_f64_f32", {D(d), src32(s)});
    return true;
  }
  if (dt == Ty::F32 && st == Ty::F64) {
    if (in.rnd != Rnd::RN) return false;
    I("v_cvt_f32_f64", {D(d), U(src64(s))});
    return true;
  }
  return false;
}

// f32 -> s64 / u64 (rounded as .rzi/.rni/.rmi/.rpi say): PTX's saturating
// conversion (NaN: 0). Below 2^31 in magnitude the 32-bit conversion; above,
// the integer is the significand shifted by the exponent (exact: such an
// f32 is a whole number).
bool Isel::cvt_f32_to_64(const ptx::Inst& in, uint32_t d) {
  using ptx::Rnd;
  bool sg = is_signed(in.type);
  const char* round = in.rnd == Rnd::RNI ? "v_rndne_f32" : in.rnd == Rnd::RMI ? "v_floor_f32"
                      : in.rnd == Rnd::RPI ? "v_ceil_f32" : in.rnd == Rnd::RZI ? "v_trunc_f32" : nullptr;
  if (!round) return false;
  uint32_t t = v32();
  I(round, {D(t), src32(opnd(in, 1), true)});
  // The small case.
  uint32_t lo = v32(), small = v64();
  I(sg ? "v_cvt_i32_f32" : "v_cvt_u32_f32", {D(lo), U(t)});
  I("v_mov_b32", {D(small, 0), U(lo)});
  if (sg) I("v_ashrrev_i32", {D(small, 1), T("31"), U(lo)});
  else I("v_mov_b32", {D(small, 1), T("0")});
  // The large case: significand << (exponent - 150), negated for a sign.
  uint32_t e = v32(), mant = v64(), big = v64(), nbig = v64();
  I("v_bfe_u32", {D(e), U(t), T("23"), T("8")});
  I("v_sub_u32", {D(e), U(e), U(const32(150))});
  I("v_and_b32", {D(mant, 0), U(const32(0x7fffff)), U(t)});
  I("v_or_b32", {D(mant, 0), U(const32(0x800000)), U(mant, 0)});
  I("v_mov_b32", {D(mant, 1), T("0")});
  I("v_lshlrev_b64", {D(big), U(e), U(mant)});
  neg64(nbig, big);
  uint32_t neg = mask(), large = mask(), over = mask(), nan = mask(), r = v64();
  I("v_cmp_gt_f32_e64", {D(neg), T("0"), U(t)});
  I("v_cmp_le_f32_e64", {D(large), U(const32(sg ? 0x4f000000 : 0x4f800000)), U(t, 0xff, 2)});
  if (!sg) {  // negative values saturate to 0, as the small case does
    uint32_t z = mask();
    I(mask_op("s_andn2"), {D(z), U(large), U(neg)});
    large = z;
  }
  I("v_cndmask_b32_e64", {D(r, 0), U(big, 0), U(nbig, 0), U(neg)});
  I("v_cndmask_b32_e64", {D(r, 1), U(big, 1), U(nbig, 1), U(neg)});
  I("v_cndmask_b32_e64", {DU(r, 0), U(small, 0), U(r, 0), U(large)});
  I("v_cndmask_b32_e64", {DU(r, 1), U(small, 1), U(r, 1), U(large)});
  // Past the range: the extreme of the sign; NaN: 0.
  I("v_cmp_le_f32_e64", {D(over), U(const32(sg ? 0x5f000000 : 0x5f800000)), U(t, 0xff, 2)});
  uint32_t hi_sat = v32(), lo_sat = v32();
  if (sg) {
    I("v_cndmask_b32_e64", {D(lo_sat), T("-1"), T("0"), U(neg)});
    I("v_cndmask_b32_e64", {D(hi_sat), U(const32(0x7fffffff)), U(const32(0x80000000)), U(neg)});
  } else {
    I("v_cndmask_b32_e64", {D(lo_sat), T("-1"), T("0"), U(neg)});
    I("v_cndmask_b32_e64", {D(hi_sat), T("-1"), T("0"), U(neg)});
  }
  I("v_cndmask_b32_e64", {DU(r, 0), U(r, 0), U(lo_sat), U(over)});
  I("v_cndmask_b32_e64", {DU(r, 1), U(r, 1), U(hi_sat), U(over)});
  I("v_cmp_u_f32_e64", {D(nan), U(t), U(t)});
  I("v_cndmask_b32_e64", {D(d, 0), U(r, 0), T("0"), U(nan)});
  I("v_cndmask_b32_e64", {D(d, 1), U(r, 1), T("0"), U(nan)});
  return true;
}

}  // namespace ptoas::cg::amdgpu
