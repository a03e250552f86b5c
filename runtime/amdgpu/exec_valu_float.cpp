// Vector ALU, float: IEEE single and double with round to nearest even and
// denormals kept (the kernels set denorm mode 3), computed with the host's
// IEEE operations (this file is built with -ffp-contract=off). The
// transcendental ops (exp, log, rcp, rsq, sqrt) are computed in a wider
// type and rounded once, so they are within the hardware's 1 ULP bound;
// docs/amdgpu_interpreter.md lists the choices where the hardware differs
// from IEEE.
#include <bit>
#include <cfenv>
#include <cmath>
#include <limits>

#include "exec.h"

namespace ptoas::amdgpu_emu {

namespace {

float f32(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
double f64(uint64_t b) { return std::bit_cast<double>(b); }
uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }

bool is_snan(uint32_t b) { return (b & 0x7f800000) == 0x7f800000 && (b & 0x7fffff) && !(b & 0x400000); }
bool is_nan(uint32_t b) { return (b & 0x7fffffff) > 0x7f800000; }
bool is_denorm(uint32_t b) { return (b & 0x7f800000) == 0 && (b & 0x7fffff); }

// IEEE mode v_min_f32/v_max_f32 (IEEE 754-2008 minNum/maxNum): a signaling
// NaN gives that NaN quieted, a quiet NaN gives the other operand, and -0
// orders below +0.
uint32_t minmax(uint32_t a, uint32_t b, bool is_max) {
  if (is_snan(a)) return a | 0x400000;
  if (is_snan(b)) return b | 0x400000;
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  float x = f32(a), y = f32(b);
  if (x == y) {  // equal values, or +0 and -0
    bool a_neg = a >> 31, b_neg = b >> 31;
    if (a_neg == b_neg) return a;
    return (is_max ? !a_neg : a_neg) ? a : b;
  }
  return (is_max ? x > y : x < y) ? a : b;
}

// f32 -> f16 bits, round to nearest even, denormals kept, overflow to inf.
uint16_t to_f16(uint32_t b) {
  uint32_t sign = (b >> 16) & 0x8000;
  uint32_t e = (b >> 23) & 0xff, m = b & 0x7fffff;
  if (e == 0xff) return uint16_t(sign | 0x7c00 | (m ? 0x200 | (m >> 13) : 0));
  int exp = int(e) - 127 + 15;
  if (exp >= 31) return uint16_t(sign | 0x7c00);
  uint32_t mant = m | (e ? 0x800000 : 0);  // 24 bits with the hidden one
  int shift = 13;                           // f32 mantissa 23 bits -> f16 10 bits
  if (exp <= 0) {                           // f16 denormal (or zero)
    shift += 1 - exp;
    exp = 0;
    if (e == 0) return uint16_t(sign);      // an f32 denormal is far below the f16 range
  }
  if (shift > 31) return uint16_t(sign);
  uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  // q holds the hidden bit for normals; adding the exponent field lets a
  // carry out of the mantissa move into the exponent (and on to inf).
  uint32_t r = exp == 0 ? q : (uint32_t(exp) << 10) + (q - 0x400);
  return uint16_t(sign | r);
}


uint32_t cvt_u32(float f) {
  if (f != f || f <= 0) return 0;
  if (f >= 4294967296.0f) return 0xffffffffu;
  return uint32_t(f);
}

uint32_t cvt_i32(float f) {
  if (f != f) return 0;
  if (f >= 2147483648.0f) return 0x7fffffff;
  if (f <= -2147483648.0f) return 0x80000000u;
  return uint32_t(int32_t(f));
}

// Rounds a wide result to f32 once.
uint32_t round_f32(long double v) { return bits(float(v)); }

}  // namespace

uint32_t from_f16(uint16_t h) {  // exec.h
  uint32_t sign = uint32_t(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0x1f) return sign | 0x7f800000 | (m << 13);
  if (e == 0) {
    if (!m) return sign;
    float f = std::ldexp(float(m), -24);  // exact
    return sign | std::bit_cast<uint32_t>(f);
  }
  return sign | ((e - 15 + 127) << 23) | (m << 13);
}

bool exec_valu_float(Exec& x, Wave& w, const Inst& in) {
  const Opnd* o = in.ops;
  auto lanes = [&](auto&& f) { x.for_exec_lanes(w, f); };
  auto a = [&](unsigned i, unsigned l) { return f32(x.src32(w, o[i], l)); };
  auto ab = [&](unsigned i, unsigned l) { return x.src32(w, o[i], l); };
  auto d = [&](unsigned i, unsigned l) { return f64(x.src64(w, o[i], l, true)); };
  auto put = [&](unsigned l, uint32_t v) { x.vr(w, o[0].reg, l) = v; };
  auto putf = [&](unsigned l, float v) { put(l, bits(v)); };
  auto putd = [&](unsigned l, double v) {
    uint64_t b = bits(v);
    x.vr(w, o[0].reg, l) = uint32_t(b);
    x.vr(w, o[0].reg + 1, l) = uint32_t(b >> 32);
  };

  switch (in.op) {
    case Op::VAddF32: lanes([&](unsigned l) { putf(l, a(1, l) + a(2, l)); }); break;
    case Op::VSubF32: lanes([&](unsigned l) { putf(l, a(1, l) - a(2, l)); }); break;
    case Op::VMulF32: lanes([&](unsigned l) { putf(l, a(1, l) * a(2, l)); }); break;
    case Op::VFmaF32: lanes([&](unsigned l) { putf(l, std::fma(a(1, l), a(2, l), a(3, l))); }); break;
    case Op::VMinF32: lanes([&](unsigned l) { put(l, minmax(ab(1, l), ab(2, l), false)); }); break;
    case Op::VMaxF32: lanes([&](unsigned l) { put(l, minmax(ab(1, l), ab(2, l), true)); }); break;
    case Op::VRcpF32: case Op::VRcpIflagF32:
      lanes([&](unsigned l) { put(l, round_f32(1.0L / (long double)a(1, l))); });
      break;
    case Op::VSqrtF32: lanes([&](unsigned l) { putf(l, std::sqrt(a(1, l))); }); break;
    case Op::VRsqF32: lanes([&](unsigned l) { put(l, round_f32(1.0L / std::sqrt((long double)a(1, l)))); }); break;
    case Op::VExpF32:
      // 2^x; a denormal result is flushed to +0 (the hardware's behaviour
      // the backend scales around).
      lanes([&](unsigned l) {
        uint32_t r = round_f32(std::exp2((long double)a(1, l)));
        put(l, is_denorm(r) ? 0 : r);
      });
      break;
    case Op::VLogF32:
      // log2 x; a denormal input counts as zero (-inf), as on the hardware.
      lanes([&](unsigned l) {
        uint32_t v = ab(1, l);
        if (is_denorm(v)) v &= 0x80000000u;
        float f = f32(v);
        put(l, f == 0 ? 0xff800000u : round_f32(std::log2((long double)f)));
      });
      break;
    case Op::VLdexpF32:
      lanes([&](unsigned l) {
        int32_t e = int32_t(ab(2, l));
        e = e > 1000 ? 1000 : e < -1000 ? -1000 : e;  // beyond these every f32 saturates anyway
        putf(l, std::ldexp(a(1, l), e));
      });
      break;
    case Op::VRndneF32: lanes([&](unsigned l) { putf(l, std::nearbyint(a(1, l))); }); break;
    case Op::VTruncF32: lanes([&](unsigned l) { putf(l, std::trunc(a(1, l))); }); break;
    case Op::VFloorF32: lanes([&](unsigned l) { putf(l, std::floor(a(1, l))); }); break;
    case Op::VCeilF32: lanes([&](unsigned l) { putf(l, std::ceil(a(1, l))); }); break;
    case Op::VCvtF32U32: lanes([&](unsigned l) { putf(l, float(ab(1, l))); }); break;
    case Op::VCvtF32I32: lanes([&](unsigned l) { putf(l, float(int32_t(ab(1, l)))); }); break;
    case Op::VCvtU32F32: lanes([&](unsigned l) { put(l, cvt_u32(a(1, l))); }); break;
    case Op::VCvtI32F32: lanes([&](unsigned l) { put(l, cvt_i32(a(1, l))); }); break;
    // The 16-bit result goes to bits 15:0; bits 31:16 are written as zero.
    case Op::VCvtF16F32: lanes([&](unsigned l) { put(l, to_f16(ab(1, l))); }); break;
    case Op::VCvtF32F16: lanes([&](unsigned l) { put(l, from_f16(x.src16(w, o[1], l))); }); break;
    case Op::VCvtF64F32: lanes([&](unsigned l) { putd(l, double(a(1, l))); }); break;
    case Op::VCvtF32F64: lanes([&](unsigned l) { putf(l, float(d(1, l))); }); break;
    case Op::VCvtF64I32: lanes([&](unsigned l) { putd(l, double(int32_t(ab(1, l)))); }); break;
    case Op::VCvtF64U32: lanes([&](unsigned l) { putd(l, double(ab(1, l))); }); break;
    case Op::VAddF64: lanes([&](unsigned l) { putd(l, d(1, l) + d(2, l)); }); break;
    case Op::VMulF64: lanes([&](unsigned l) { putd(l, d(1, l) * d(2, l)); }); break;
    case Op::VFmaF64: lanes([&](unsigned l) { putd(l, std::fma(d(1, l), d(2, l), d(3, l))); }); break;
    case Op::VRcpF64: lanes([&](unsigned l) { putd(l, double(1.0L / (long double)d(1, l))); }); break;
    case Op::VRsqF64: lanes([&](unsigned l) { putd(l, double(1.0L / std::sqrt((long double)d(1, l)))); }); break;
    case Op::VSqrtF64: lanes([&](unsigned l) { putd(l, std::sqrt(d(1, l))); }); break;
    default: return x.fault(w, -1, "internal error: not a float VALU instruction");
  }
  return true;
}

}  // namespace ptoas::amdgpu_emu
