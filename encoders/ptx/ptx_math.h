// The constants of the PTX backend's exp and log (math.cpp), and host
// models of the same operation sequences, op for op (fmaf, IEEE f32 and
// f64 arithmetic: the GPU's fma.rn / mul.rn / add.rn / cvt.rni give the
// same bits). tests/ptx/ptx_math.cpp measures the models against the
// interpreter's definition; the bound it finds holds on every GPU.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace ptoas::cg::ptx {

inline constexpr uint32_t kExpLoBits = 0xc2d00000u;      // -104.0f
inline constexpr uint32_t kExpHiBits = 0x42b20000u;      // 89.0f
inline constexpr uint32_t kLog2eBits = 0x3fb8aa3bu;      // log2(e)
inline constexpr uint32_t kNegLn2HiBits = 0xbf317200u;   // -0.693145751953125 (n * it is exact)
inline constexpr uint32_t kNegLn2LoBits = 0xb5bfbe8eu;   // -(ln2 - 0.693145751953125)
// e^r ~ ((((((r/7! + 1/6!) r + 1/5!) r + 1/4!) r + 1/3!) r + 1/2!) r + 1) r + 1
inline constexpr unsigned kExpPolyTerms = 8;
inline constexpr uint32_t kExpPolyBits[kExpPolyTerms] = {
    0x39500d01u,  // 1/5040
    0x3ab60b61u,  // 1/720
    0x3c088889u,  // 1/120
    0x3d2aaaabu,  // 1/24
    0x3e2aaaabu,  // 1/6
    0x3f000000u,  // 1/2
    0x3f800000u,  // 1
    0x3f800000u,  // 1
};

inline constexpr uint64_t kSqrt2Bits = 0x3ff6a09e667f3bcdull;
inline constexpr uint64_t kLn2HiBits = 0x3fe62e42fee00000ull;  // 32 trailing zero bits
inline constexpr uint64_t kLn2LoBits = 0x3dea39ef35793c76ull;  // ln2 - ln2_hi
// 1/17, 1/15, .., 1/3, 1: log m = 2 s (1 + s^2/3 + .. + s^16/17)
inline constexpr unsigned kLogPolyTerms = 9;
inline constexpr uint64_t kLogPolyBits[kLogPolyTerms] = {
    0x3fae1e1e1e1e1e1eull, 0x3fb1111111111111ull, 0x3fb3b13b13b13b14ull, 0x3fb745d1745d1746ull,
    0x3fbc71c71c71c71cull, 0x3fc2492492492492ull, 0x3fc999999999999aull, 0x3fd5555555555555ull,
    0x3ff0000000000000ull};

inline float f32_of(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline double f64_of(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

// PTX max.f32 / min.f32: the non-NaN operand.
inline float ptx_max(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : (a > b ? a : b); }
inline float ptx_min(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : (a < b ? a : b); }

// Gen::fexp, op for op.
inline float ptx_exp_model(float x) {
  float xc = ptx_min(ptx_max(x, f32_of(kExpLoBits)), f32_of(kExpHiBits));
  float t = xc * f32_of(kLog2eBits);
  float n = std::nearbyint(t);
  float r = std::fma(n, f32_of(kNegLn2HiBits), xc);
  r = std::fma(n, f32_of(kNegLn2LoBits), r);
  float p = f32_of(kExpPolyBits[0]);
  for (unsigned i = 1; i < kExpPolyTerms; ++i) p = std::fma(p, r, f32_of(kExpPolyBits[i]));
  int32_t ni = int32_t(n), n1 = ni >> 1, n2 = ni - n1;
  float y = p * f32_of(uint32_t(n1 + 127) << 23);
  y = y * f32_of(uint32_t(n2 + 127) << 23);
  if (std::isnan(x)) return f32_of(bits_of(x) | 0x400000u);
  return y;
}

// Gen::flog, op for op (positive finite inputs; the specials as there).
inline float ptx_log_model(float x) {
  if (std::isnan(x)) return f32_of(bits_of(x) | 0x400000u);
  if (x == INFINITY) return x;
  if (x < 0) return f32_of(0xffc00000u);
  if (x == 0) return -INFINITY;
  double d = double(x);
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  int64_t e = int64_t((bits >> 52) & 0x7ff) - 1023;
  uint64_t mb = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
  double m;
  std::memcpy(&m, &mb, 8);
  if (m > f64_of(kSqrt2Bits)) m = m * 0.5, e += 1;
  double s = (m - 1.0) / (m + 1.0), z = s * s;
  double p = f64_of(kLogPolyBits[0]);
  for (unsigned i = 1; i < kLogPolyTerms; ++i) p = std::fma(p, z, f64_of(kLogPolyBits[i]));
  s = (s + s) * p;
  double ed = double(e);
  s = std::fma(ed, f64_of(kLn2LoBits), s);
  s = std::fma(ed, f64_of(kLn2HiBits), s);
  return float(s);
}

}  // namespace ptoas::cg::ptx
