// Element lanes on PTX (gen.h): memory <-> lanes for every element type,
// rounding of results to the element type, and the element ops with the
// interpreter's numerics (docs/semantics.md, DESIGN §6):
// * f32 / f16 / bf16 compute in f32 lanes; a single IEEE op (add.rn,
//   sub.rn, mul.rn, div.rn, sqrt.rn: no .ftz, no contraction) rounded to
//   the element type once is the correctly rounded result, bit-exact with
//   the interpreter; a NaN operand gives the left operand's NaN, quieted
//   (the interpreter's rule; the GPU's own NaN is canonical);
// * integer tiles up to 32 bits compute in .b32 lanes holding the
//   canonical value (sign- or zero-extended), wrapped after each op;
// * exp, log, rsqrt: math.cpp.
#include <cstring>

#include "gen.h"
#include "tile_geometry.h"

namespace ptoas::cg::ptx {

bool Gen::int_lane(DType d) {
  switch (d) {
    case DType::I8: case DType::U8: case DType::I16: case DType::U16: case DType::I32: case DType::U32:
      return true;
    default:
      return false;
  }
}

namespace {
const char* ld_type(DType d) {
  switch (d) {
    case DType::I8: return "s8";
    case DType::U8: return "u8";
    case DType::I16: return "s16";
    case DType::U16: return "u16";
    case DType::F16: case DType::BF16: return "b16";
    case DType::F32: return "f32";
    default: return "b32";
  }
}
}  // namespace

// One element: `@p ld` into a lane that holds `init` where p is false.
Reg Gen::ld_lane(DType d, const std::string& space, const std::string& addr, Reg pred, bool neg, Reg init) {
  unsigned es = dtype_bytes(d);
  if (es == 2 && float_lane(d)) {
    Reg h = reg(RC::H);
    if (init) I("mov.b16", h, bits_from_lane(d, init));
    if (pred) IP(pred, neg, "ld." + space + ".b16", h, addr);
    else I("ld." + space + ".b16", h, addr);
    return lane_from_bits(d, h);
  }
  Reg x = reg(lane_rc(d));
  if (init) I(d == DType::F32 ? "mov.f32" : "mov.b32", x, init);
  std::string o = "ld." + space + "." + ld_type(d);
  if (pred) IP(pred, neg, o, x, addr);
  else I(o, x, addr);
  return x;
}

void Gen::st_lane(DType d, const std::string& space, const std::string& addr, Reg v, Reg pred, bool neg) {
  unsigned es = dtype_bytes(d);
  Reg b = d == DType::F32 ? v : bits_from_lane(d, v);
  std::string o = "st." + space + "." + (d == DType::F32 ? "f32" : es == 1 ? "u8" : es == 2 ? "b16" : "b32");
  if (pred) IP(pred, neg, o, addr, b);
  else I(o, addr, b);
}

Reg Gen::lane_from_bits(DType d, Reg b) {
  Reg x = reg(lane_rc(d));
  switch (d) {
    case DType::F32: I("mov.b32", x, b); break;
    case DType::F16: {  // a NaN keeps its payload (the interpreter's f16_bits_to_f32)
      Reg w = reg(RC::R), n = reg(RC::R), p = reg(RC::P), y = reg(RC::F);
      I("cvt.f32.f16", y, b);
      I("cvt.u32.u16", w, b);
      I("and.b32", n, w, 0x7fff);
      I("setp.gt.u32", p, n, 0x7c00);
      I("and.b32", n, w, 0x3ff);
      I("shl.b32", n, n, 13);
      I("and.b32", w, w, 0x8000);
      I("shl.b32", w, w, 16);
      I("or.b32", n, n, w);
      I("or.b32", n, n, 0x7f800000u);
      Reg yb = reg(RC::R);
      I("mov.b32", yb, y);
      I("selp.b32", yb, n, yb, p);
      I("mov.b32", x, yb);
      break;
    }
    case DType::BF16: {
      Reg r = reg(RC::R);
      I("cvt.u32.u16", r, b);
      I("shl.b32", r, r, 16);
      I("mov.b32", x, r);
      break;
    }
    case DType::I8: I("bfe.s32", x, b, 0, 8); break;
    case DType::U8: I("and.b32", x, b, 255); break;
    case DType::I16: I("cvt.s32.s16", x, b); break;
    case DType::U16: I("cvt.u32.u16", x, b); break;
    default: I("mov.b32", x, b); break;
  }
  return x;
}

Reg Gen::bits_from_lane(DType d, Reg v) {
  switch (d) {
    case DType::F32: {
      Reg r = reg(RC::R);
      I("mov.b32", r, v);
      return r;
    }
    case DType::F16:
      return f16_bits(v);
    case DType::BF16: {  // the top half (lanes of bf16 hold bf16 values exactly)
      Reg r = reg(RC::R), h = reg(RC::H);
      I("mov.b32", r, v);
      I("shr.u32", r, r, 16);
      I("cvt.u16.u32", h, r);
      return h;
    }
    case DType::I16: case DType::U16: {
      Reg h = reg(RC::H);
      I("cvt.u16.u32", h, v);
      return h;
    }
    default:
      return v;
  }
}

// A 64-bit integer clamped to the range of the (at most 4-byte) integer d:
// tcvt's saturation.
void Gen::clamp_s64(Reg w, DType d) {
  int64_t lo = 0, hi = UINT32_MAX;
  switch (d) {
    case DType::I8: lo = -128, hi = 127; break;
    case DType::U8: hi = 255; break;
    case DType::I16: lo = -32768, hi = 32767; break;
    case DType::U16: hi = 65535; break;
    case DType::I32: lo = INT32_MIN, hi = INT32_MAX; break;
    default: break;
  }
  I("max.s64", w, w, (long long)lo);
  I("min.s64", w, w, (long long)hi);
}

// f32 -> f16 bits, to nearest even; a NaN keeps the top of its payload,
// quieted (the interpreter's f32_to_f16_bits; cvt.rn would give 0x7fff).
Reg Gen::f16_bits(Reg v) {
  Reg h = reg(RC::H), b = reg(RC::R), n = reg(RC::R), s = reg(RC::R), hn = reg(RC::H), p = reg(RC::P);
  I("cvt.rn.f16.f32", h, v);
  I("mov.b32", b, v);
  I("shr.u32", n, b, 13);
  I("and.b32", n, n, 0x3ff);
  I("or.b32", n, n, 0x7e00);
  I("shr.u32", s, b, 16);
  I("and.b32", s, s, 0x8000);
  I("or.b32", n, n, s);
  I("cvt.u16.u32", hn, n);
  I("setp.nan.f32", p, v, v);
  I("selp.b16", h, hn, h, p);
  return h;
}

// An f32 result rounded to nearest even in d (its exact value as f32);
// bf16 rounds on the bits, a NaN keeping its top bits, quieted (the
// interpreter's f32_to_bf16_bits). Integers wrap to d.
Reg Gen::round_lane(DType d, Reg v) {
  switch (d) {
    case DType::F16:
      return lane_from_bits(DType::F16, f16_bits(v));
    case DType::BF16: {
      Reg b = reg(RC::R), t = reg(RC::R), q = reg(RC::R), x = reg(RC::F);
      Reg nan = reg(RC::P);
      I("mov.b32", b, v);
      I("bfe.u32", t, b, 16, 1);
      I("add.u32", t, t, 0x7fff);
      I("add.u32", t, b, t);
      I("setp.nan.f32", nan, v, v);
      I("or.b32", q, b, 0x400000);
      I("selp.b32", t, q, t, nan);
      I("and.b32", t, t, 0xffff0000u);
      I("mov.b32", x, t);
      return x;
    }
    case DType::I8: case DType::I16: {
      Reg x = reg(RC::R);
      I("bfe.s32", x, v, 0, d == DType::I8 ? 8 : 16);
      return x;
    }
    case DType::U8: case DType::U16: {
      Reg x = reg(RC::R);
      I("and.b32", x, v, d == DType::U8 ? 0xff : 0xffff);
      return x;
    }
    default:
      return v;
  }
}

Reg Gen::pad_lane(ValueId tile) {
  const Type& t = ty(tile);
  uint32_t bits = pad_bits(t);
  if (float_lane(t.elem)) {
    if (t.elem == DType::F16) {  // pad_bits gives the f16 bits: widen here
      uint32_t e = (bits >> 10) & 0x1f, m = bits & 0x3ff, s = (bits >> 15) << 31;
      uint32_t f = e == 0x1f ? (s | 0x7f800000u | (m << 13)) : e == 0 ? s : (s | ((e - 15 + 127) << 23) | (m << 13));
      return immf(f);
    }
    if (t.elem == DType::BF16) return immf(bits << 16);
    return immf(bits);
  }
  Reg x = reg(RC::R);
  int64_t v = int64_t(bits);
  if (t.elem == DType::I8) v = int8_t(bits);
  else if (t.elem == DType::I16) v = int16_t(bits);
  else if (t.elem == DType::I32) v = int32_t(bits);
  I("mov.b32", x, (long long)v);
  return x;
}

Reg Gen::scalar_lane(ValueId s, DType d) {
  Reg r = sreg(s);
  if (float_lane(d)) {
    if (r.c == RC::F) return r;
    Reg x = reg(RC::F);
    I("cvt.rn.f32.f64", x, r);
    return x;
  }
  Reg x = as_u32(r);
  return round_lane(d, x);
}

// ---- element ops ------------------------------------------------------------------

namespace {
bool is_signed_lane(DType d) { return d == DType::I8 || d == DType::I16 || d == DType::I32; }
}  // namespace

// Selections and sign operations pass a signalling NaN through as it is;
// the interpreter computes on doubles, whose conversion quiets it. f16 and
// bf16 lanes are quieted when they are narrowed again (f16_bits,
// round_lane), so only f32 needs it here.
Reg Gen::quiet_f32(DType d, Reg x) { return d == DType::F32 ? nan_quieted(x, x) : x; }

Reg Gen::bin(Bin k, DType d, Reg a, Reg b) {
  if (float_lane(d)) {
    Reg x = reg(RC::F);
    switch (k) {
      case Bin::Add: case Bin::Sub: case Bin::Mul: case Bin::Div: {
        const char* n = k == Bin::Add ? "add.rn.f32" : k == Bin::Sub ? "sub.rn.f32" : k == Bin::Mul ? "mul.rn.f32" : "div.rn.f32";
        I(n, x, a, b);
        return nan_fix(x, a, b);
      }
      case Bin::Max: case Bin::Min: {  // std::max (a < b ? b : a), std::min (b < a ? b : a)
        Reg p = reg(RC::P);
        if (k == Bin::Max) I("setp.lt.f32", p, a, b);
        else I("setp.lt.f32", p, b, a);
        I("selp.f32", x, b, a, p);
        return quiet_f32(d, x);
      }
      case Bin::ExpDif:
        return fexp(round_lane(d, bin(Bin::Sub, d, a, b)));
      default:
        return Reg{};
    }
  }
  bool s = is_signed_lane(d);
  Reg x = reg(RC::R);
  switch (k) {
    case Bin::Add: I("add.s32", x, a, b); break;
    case Bin::Sub: I("sub.s32", x, a, b); break;
    case Bin::Mul: I("mul.lo.s32", x, a, b); break;
    case Bin::Max: case Bin::Min: {
      Reg p = reg(RC::P);
      if (k == Bin::Max) I(s ? "setp.lt.s32" : "setp.lt.u32", p, a, b);
      else I(s ? "setp.lt.s32" : "setp.lt.u32", p, b, a);
      I("selp.b32", x, b, a, p);
      return x;
    }
    case Bin::Div: {  // truncating; x / 0 gives 0 (an error in the interpreter), MIN / -1 wraps
      Reg z = reg(RC::P), m1 = reg(RC::P), safe = reg(RC::R), ng = reg(RC::R);
      I("setp.eq.s32", z, b, 0);
      I("setp.eq.s32", m1, b, -1);
      I("selp.b32", safe, 1, b, z);
      I(s ? "div.s32" : "div.u32", x, a, safe);
      if (s) {
        I("neg.s32", ng, a);
        I("selp.b32", x, ng, x, m1);
      }
      I("selp.b32", x, 0, x, z);
      break;
    }
    case Bin::And: I("and.b32", x, a, b); break;
    case Bin::Or: I("or.b32", x, a, b); break;
    case Bin::Xor: I("xor.b32", x, a, b); break;
    case Bin::Shl: case Bin::Shr: {  // counts outside 0 .. width-1 give 0 (an error in the interpreter)
      unsigned w = dtype_bytes(d) * 8;
      Reg out = reg(RC::P);
      I("setp.ge.u32", out, b, w);
      if (k == Bin::Shl) I("shl.b32", x, a, b);
      else I(s ? "shr.s32" : "shr.u32", x, a, b);
      I("selp.b32", x, 0, x, out);
      break;
    }
    default:
      return Reg{};
  }
  return round_lane(d, x);
}

Reg Gen::unary(Op o, DType d, Reg a) {
  if (float_lane(d)) {
    Reg x = reg(RC::F), r = reg(RC::R);
    switch (o) {
      case Op::TNeg:
        I("mov.b32", r, a);
        I("xor.b32", r, r, 0x80000000u);
        I("mov.b32", x, r);
        return quiet_f32(d, x);
      case Op::TAbs:
        I("mov.b32", r, a);
        I("and.b32", r, r, 0x7fffffffu);
        I("mov.b32", x, r);
        return quiet_f32(d, x);
      case Op::TRelu: {  // x < 0 ? 0 : x (NaN and -0 stay)
        Reg p = reg(RC::P);
        I("setp.lt.f32", p, a, fimm(0.0f));
        I("selp.f32", x, fimm(0.0f), a, p);
        return quiet_f32(d, x);
      }
      case Op::TSqrt:
        return fsqrt(a);
      case Op::TRecip:
        return bin(Bin::Div, d, immf(0x3f800000u), a);
      case Op::TExp:
        return fexp(a);
      case Op::TLog:
        return flog(a);
      case Op::TRsqrt:
        return frsqrt(a);
      default:
        return Reg{};
    }
  }
  bool s = is_signed_lane(d);
  Reg x = reg(RC::R);
  switch (o) {
    case Op::TNeg: I("neg.s32", x, a); break;
    case Op::TAbs:
      if (s) I("abs.s32", x, a);
      else I("mov.b32", x, a);
      break;
    case Op::TRelu:
      if (s) I("max.s32", x, a, 0);
      else I("mov.b32", x, a);
      break;
    case Op::TNot: I("not.b32", x, a); break;
    default: return Reg{};
  }
  return round_lane(d, x);
}

// sqrt.rn; a NaN keeps its payload, quieted.
Reg Gen::fsqrt(Reg a) {
  Reg x = reg(RC::F);
  I("sqrt.rn.f32", x, a);
  return nan_fix(x, a, Reg{});
}

// A NaN result as the interpreter has it on its x86 host: the left NaN
// operand quieted, else the right one, else (a NaN the op created: 0 * Inf,
// Inf - Inf, sqrt(-1)) x86's default NaN 0xffc00000; the GPU's own NaN is
// 0x7fffffff.
Reg Gen::nan_fix(Reg x, Reg a, Reg b) {
  // The usual result is x: one test, and the fix out of line (cold code at
  // the end of the entry), so the common path costs a setp and a branch.
  Reg px = reg(RC::P), out = reg(RC::F);
  I("mov.f32", out, x);
  I("setp.nan.f32", px, x, x);
  std::string fix = new_label(), back = new_label();
  std::string* keep = out_;
  if (o_.portable_simt) {
    bra_if(px, true, back);
  } else {
    bra_if(px, false, fix);
    bind(back);
    out_ = &cold_;
    bind(fix);
    if (last_line_) emit(".loc 1 " + std::to_string(last_line_) + " " + std::to_string(last_col_));
  }
  Reg v = reg(RC::R), q = reg(RC::R);
  I("mov.b32", v, 0xffc00000u);
  for (Reg s : {b, a}) {
    if (!s) continue;
    Reg ps = reg(RC::P);
    I("setp.nan.f32", ps, s, s);
    I("mov.b32", q, s);
    I("or.b32", q, q, 0x400000);
    I("selp.b32", v, q, v, ps);
  }
  I("mov.b32", out, v);
  if (o_.portable_simt) {
    bind(back);
    return out;
  }
  I("bra", back);
  out_ = keep;
  return out;
}

// ---- tcvt ---------------------------------------------------------------------------

// One element of tcvt (docs/semantics.md §10) from lane type p.sd to p.dd.
Reg Gen::cvt_lane(const CvtPlan& p, Reg x) {
  bool sf = float_lane(p.sd), df = float_lane(p.dd);
  if (sf && df) {
    Reg v = x;
    if (p.sat && p.dd != DType::F32) {  // finite overflow and +-Inf to +-max finite
      float mx = p.dd == DType::F16 ? 65504.0f : 3.38953139e38f;
      Reg c = reg(RC::F);
      I("min.f32", c, v, fimm(mx));
      I("max.f32", c, c, fimm(-mx));
      Reg nan = reg(RC::P);
      I("setp.nan.f32", nan, v, v);
      I("selp.f32", c, v, c, nan);
      v = c;
    }
    if (p.dd == DType::F32) {  // the interpreter's conversion through double quiets a NaN
      Reg q = reg(RC::R), n = reg(RC::P), y = reg(RC::F);
      I("mov.b32", q, v);
      I("setp.nan.f32", n, v, v);
      Reg qq = reg(RC::R);
      I("or.b32", qq, q, 0x400000);
      I("selp.b32", q, qq, q, n);
      I("mov.b32", y, q);
      return y;
    }
    return round_lane(p.dd, v);
  }
  if (sf && !df) {
    // Round with rmode; NaN -> 0; sat clamps to the type, else the low bits.
    Reg r = reg(RC::F);
    switch (p.rmode) {
      case Rounding::NearestEven: I("cvt.rni.f32.f32", r, x); break;
      case Rounding::Floor: I("cvt.rmi.f32.f32", r, x); break;
      case Rounding::Ceil: I("cvt.rpi.f32.f32", r, x); break;
      case Rounding::Trunc: I("cvt.rzi.f32.f32", r, x); break;
      case Rounding::AwayFromZero: {  // t = trunc(x); |x - t| >= 0.5: t + sign(x)
        Reg t = reg(RC::F), f = reg(RC::F), p5 = reg(RC::P), sg = reg(RC::F), t1 = reg(RC::F);
        I("cvt.rzi.f32.f32", t, x);
        I("sub.rn.f32", f, x, t);
        I("abs.f32", f, f);
        I("setp.ge.f32", p5, f, fimm(0.5f));
        I("mov.f32", sg, fimm(1.0f));
        I("copysign.f32", sg, x, sg);
        I("add.rn.f32", t1, t, sg);
        I("selp.f32", r, t1, t, p5);
        break;
      }
    }
    // Saturated to 64 bits as the interpreter does: signed below 2^63,
    // unsigned from there (2^63 .. 2^64 keep their bits; NaN -> 0).
    Reg w = reg(RC::RD);
    I("cvt.rzi.s64.f32", w, r);
    if (!p.sat) {
      Reg wu = reg(RC::RD);
      Reg big = reg(RC::P);
      I("cvt.rzi.u64.f32", wu, r);
      I("setp.ge.f32", big, r, fimm(9223372036854775808.0f));
      I("selp.b64", w, wu, w, big);
    }
    Reg v = reg(RC::R);
    if (p.sat) {
      clamp_s64(w, p.dd);
    }
    I("cvt.u32.u64", v, w);
    return round_lane(p.dd, v);
  }
  if (!sf && df) {  // one correctly rounded conversion
    Reg f = reg(RC::F);
    bool s = is_signed_lane(p.sd);
    I(s ? "cvt.rn.f32.s32" : "cvt.rn.f32.u32", f, x);
    if (p.dd == DType::F32) return f;
    // To f16 (bf16 from 4-byte integers is refused by plan_tcvt): the value
    // of a 1- or 2-byte integer is exact in f32, so one rounding.
    return round_lane(p.dd, f);
  }
  // integer -> integer: wrap, or clamp with sat.
  Reg v = x;
  if (p.sat) {
    bool s = is_signed_lane(p.sd);
    Reg w = reg(RC::RD);
    I(s ? "cvt.s64.s32" : "cvt.u64.u32", w, x);
    clamp_s64(w, p.dd);
    v = reg(RC::R);
    I("cvt.u32.u64", v, w);
  }
  return round_lane(p.dd, v);
}

}  // namespace ptoas::cg::ptx
