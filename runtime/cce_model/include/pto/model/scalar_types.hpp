// The model's 2-byte float types (docs/cce_backend.md §1.1): storage of the
// IEEE half / bfloat16 bits, converted from and to float with round to
// nearest even, so that the C++ arithmetic the emitter writes on them runs
// in float as bisheng's does.
#pragma once
#include <cstdint>
#include <cstring>

namespace pto::model {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint16_t float_to_half_bits(float f) {
  uint32_t x = float_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return uint16_t(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
  if (absx >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to infinity
  if (absx < 0x38800000u) {                                  // subnormal or zero half
    // value = absx as float; half subnormal unit is 2^-24.
    float a = bits_float(absx);
    float scaled = a * 16777216.0f;  // exact: a power-of-two scale
    // round to nearest even integer
    uint32_t i = uint32_t(scaled);
    float frac = scaled - float(i);
    if (frac > 0.5f || (frac == 0.5f && (i & 1u))) ++i;
    return uint16_t(sign | i);
  }
  uint32_t mant = absx & 0x7fffffu;
  uint32_t exp = (absx >> 23) - 127 + 15;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return uint16_t(sign | h);
}

inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    float v = float(mant) / 16777216.0f;
    return sign ? -v : v;
  }
  if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));
  return bits_float(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

inline uint16_t float_to_bf16_bits(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // quiet NaN
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return uint16_t(x >> 16);
}

inline float bf16_bits_to_float(uint16_t b) { return bits_float(uint32_t(b) << 16); }

}  // namespace pto::model

struct half {
  uint16_t bits = 0;
  half() = default;
  half(float f) : bits(pto::model::float_to_half_bits(f)) {}
  half(double d) : half(float(d)) {}
  half(int i) : half(float(i)) {}
  operator float() const { return pto::model::half_bits_to_float(bits); }
};

struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  bfloat16_t(float f) : bits(pto::model::float_to_bf16_bits(f)) {}
  bfloat16_t(double d) : bfloat16_t(float(d)) {}
  bfloat16_t(int i) : bfloat16_t(float(i)) {}
  operator float() const { return pto::model::bf16_bits_to_float(bits); }
};
