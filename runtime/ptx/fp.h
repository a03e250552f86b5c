// Floating-point formats by bit manipulation: exact rounding of a value to
// f16, bf16, tf32, f32 or f64 under each PTX rounding mode, without
// _Float16 or the host's rounding-mode state (DESIGN §8).
//
// The executor computes an IEEE operation's exact result as a double `s`
// plus the sign of a tiny remainder `e` (|e| < half an ulp of s): TwoSum
// gives it for add, the exact product for mul, fma's remainder for div
// and sqrt. Rounding (s, sign(e)) to a format of at most 24 significant
// bits is then exact in every mode (a double has room for two roundings'
// worth of guard bits, and the remainder's sign settles ties and the
// direction of directed modes).
#pragma once
#include <cstdint>
#include <cstring>

namespace ptoas::ptx::fp {

struct Fmt {
  int mant;  // stored fraction bits
  int exp;   // exponent bits
};
inline constexpr Fmt kF16{10, 5}, kBF16{7, 8}, kTF32{10, 8}, kF32{23, 8}, kF64{52, 11};

enum class Mode : uint8_t { RN, RZ, RM, RP, RNA };

// The quiet NaN the hardware produces for a format: all exponent and
// fraction bits set (f32 0x7fffffff, f16/bf16 0x7fff).
uint64_t canonical_nan(Fmt f);

// The value (s + e) * 2^scale (e: a tiny remainder of sign e_sign,
// possibly 0) rounded to format f: its bit pattern. NaN gives
// canonical_nan(f). The scale lets f64 results below the double range's
// normal numbers be computed exactly at a larger exponent.
uint64_t round(double s, int e_sign, Mode m, Fmt f, int scale = 0);
// A (sign, magnitude) integer rounded to format f.
uint64_t round_int(bool neg, uint64_t mag, Mode m, Fmt f);
// The result of a finite value too large for format f, by rounding mode:
// infinity, or the largest finite value of the sign.
uint64_t overflow(bool neg, Mode m, Fmt f);
// The exact value of a bit pattern of format f (f64 included).
double value(uint64_t bits, Fmt f);

inline float f32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline double f64(uint64_t b) {
  double f;
  std::memcpy(&f, &b, 8);
  return f;
}
inline uint64_t bits(double f) {
  uint64_t b;
  std::memcpy(&b, &f, 8);
  return b;
}

inline bool is_nan(uint64_t b, Fmt f) {
  uint64_t e = (b >> f.mant) & ((uint64_t(1) << f.exp) - 1);
  return e == (uint64_t(1) << f.exp) - 1 && (b & ((uint64_t(1) << f.mant) - 1)) != 0;
}
inline bool is_subnormal(uint64_t b, Fmt f) {
  uint64_t e = (b >> f.mant) & ((uint64_t(1) << f.exp) - 1);
  return e == 0 && (b & ((uint64_t(1) << f.mant) - 1)) != 0;
}
inline uint64_t sign_bit(Fmt f) { return uint64_t(1) << (f.mant + f.exp); }
// .ftz: a subnormal becomes a zero of the same sign.
inline uint64_t flush(uint64_t b, Fmt f) { return is_subnormal(b, f) ? b & sign_bit(f) : b; }

// The remainder signs of the IEEE operations on doubles whose exact
// result the caller rounds: a + b = s + e exactly (TwoSum).
inline int two_sum_sign(double a, double b, double s) {
  double bb = s - a;
  double e = (a - (s - bb)) + (b - bb);
  return e > 0 ? 1 : e < 0 ? -1 : 0;
}

}  // namespace ptoas::ptx::fp
