// f16 / bf16 conversions and rounding helpers.
#include "elem.h"

#include <algorithm>
#include <cmath>

#include "int_eval.h"

namespace ptoas::rt {

uint16_t f32_to_f16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t man = x & 0x7fffffu;
  if (exp == 0xff) return uint16_t(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
  int e = int(exp) - 127 + 15;
  if (e >= 0x1f) return uint16_t(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return uint16_t(sign);
    man |= 0x800000u;
    unsigned shift = unsigned(14 - e);
    uint32_t half = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t h = (uint32_t(e) << 10) | (man >> 13);
  uint32_t rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;  // may carry into the exponent: fine
  return uint16_t(sign | h);
}

float f16_bits_to_f32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (man == 0) {
      x = sign;
    } else {
      int e = -1;
      do { ++e; man <<= 1; } while (!(man & 0x400u));
      x = sign | (uint32_t(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    x = sign | 0x7f800000u | (man << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t f32_to_bf16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // quiet NaN
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return uint16_t(x >> 16);
}

float bf16_bits_to_f32(uint16_t b) {
  uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

double round_to(DType d, double v) {
  switch (d) {
    case DType::F32: return double(float(v));
    case DType::F16: {
      // Round the double straight to f16 (not via f32, which would double-round).
      if (std::isnan(v) || std::isinf(v) || v == 0) return double(f16_bits_to_f32(f32_to_f16_bits(float(v))));
      double a = std::fabs(v);
      int e;
      std::frexp(a, &e);                 // a = m * 2^e, m in [0.5, 1)
      int q = std::max(e - 11, -24);     // quantum exponent: 11 significant bits, subnormals 2^-24
      double scaled = std::ldexp(a, -q);
      double r = std::nearbyint(scaled);  // default rounding mode: ties to even
      double res = std::ldexp(r, q);
      if (res > 65504.0) res = INFINITY;
      return std::copysign(res, v);
    }
    case DType::BF16: {
      if (std::isnan(v) || std::isinf(v) || v == 0) return double(bf16_bits_to_f32(f32_to_bf16_bits(float(v))));
      double a = std::fabs(v);
      int e;
      std::frexp(a, &e);
      int q = std::max(e - 8, -133);     // 8 significant bits; bf16 subnormals 2^-133
      double r = std::nearbyint(std::ldexp(a, -q));
      double res = std::ldexp(r, q);
      if (res > 3.3895313892515355e38) res = INFINITY;  // past the largest finite bf16
      return std::copysign(res, v);
    }
    default: return v;
  }
}

int64_t wrap_to(DType d, int64_t v) { return wrap_int(d, v); }

namespace {

// The narrow float formats' field widths: bytes, mantissa bits; 0 for
// formats load_f_bits leaves to load_f (f64 is a plain copy already).
unsigned mantissa_bits(DType d) {
  return d == DType::F32 ? 23 : d == DType::F16 ? 10 : d == DType::BF16 ? 7 : 0;
}

}  // namespace

double load_f_bits(const uint8_t* p, DType d) {
  unsigned mb = mantissa_bits(d);
  if (!mb) return load_f(p, d);
  unsigned es = dtype_bytes(d);
  uint64_t x = 0;
  std::memcpy(&x, p, es);  // little-endian
  unsigned eb = es * 8 - 1 - mb;
  uint64_t man = x & ((uint64_t(1) << mb) - 1);
  if (((x >> mb) & ((1u << eb) - 1)) != (1u << eb) - 1 || !man) return load_f(p, d);
  uint64_t sign = (x >> (es * 8 - 1)) & 1;
  uint64_t b = (sign << 63) | (uint64_t(0x7ff) << 52) | (man << (52 - mb));
  double v;
  std::memcpy(&v, &b, 8);
  return v;
}

void store_f_bits(uint8_t* p, DType d, double v) {
  unsigned mb = mantissa_bits(d);
  if (!mb || !std::isnan(v)) return store_f(p, d, v);
  uint64_t b;
  std::memcpy(&b, &v, 8);
  unsigned es = dtype_bytes(d);
  uint64_t man = (b & ((uint64_t(1) << 52) - 1)) >> (52 - mb);
  if (!man) man = uint64_t(1) << (mb - 1);  // a payload below the format's: the quiet NaN
  uint64_t x = ((b >> 63) << (es * 8 - 1)) | (((uint64_t(1) << (es * 8 - 1 - mb)) - 1) << mb) | man;
  std::memcpy(p, &x, es);
}

}  // namespace ptoas::rt
