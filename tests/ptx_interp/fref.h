// Independent float references for the tests: the host's IEEE operations
// under fesetround, and rounding to f16/bf16 by searching the sorted table
// of every value of the format (no bit tricks shared with runtime/ptx/fp.cpp).
#pragma once
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace ptxt {

enum RMode { RN, RZ, RM, RP };
inline int fe_of(RMode m) { return m == RN ? FE_TONEAREST : m == RZ ? FE_TOWARDZERO : m == RM ? FE_DOWNWARD : FE_UPWARD; }

inline uint32_t fbits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline float bfloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline uint64_t dbits(double f) {
  uint64_t b;
  std::memcpy(&b, &f, 8);
  return b;
}
inline double bdouble(uint64_t b) {
  double f;
  std::memcpy(&f, &b, 8);
  return f;
}

// f32 results of the host under rounding mode m ('+', '-', '*', '/', 'f'ma, 's'qrt).
inline float host_f32(char op, float a, float b, float c, RMode m) {
  std::fesetround(fe_of(m));
  volatile float x = a, y = b, z = c;
  volatile float r;
  switch (op) {
    case '+': r = x + y; break;
    case '-': r = x - y; break;
    case '*': r = x * y; break;
    case '/': r = x / y; break;
    case 'f': r = std::fma(float(x), float(y), float(z)); break;
    default: r = std::sqrt(float(x)); break;
  }
  std::fesetround(FE_TONEAREST);
  return r;
}
inline double host_f64(char op, double a, double b, double c, RMode m) {
  std::fesetround(fe_of(m));
  volatile double x = a, y = b, z = c;
  volatile double r;
  switch (op) {
    case '+': r = x + y; break;
    case '-': r = x - y; break;
    case '*': r = x * y; break;
    case '/': r = x / y; break;
    case 'f': r = std::fma(double(x), double(y), double(z)); break;
    default: r = std::sqrt(double(x)); break;
  }
  std::fesetround(FE_TONEAREST);
  return r;
}

// A narrow format described by its field widths, decoded by formula.
struct Narrow {
  int mant, exp;
  double value(uint32_t b) const {
    int bias = (1 << (exp - 1)) - 1;
    uint32_t e = (b >> mant) & ((1u << exp) - 1), f = b & ((1u << mant) - 1);
    if (e == (1u << exp) - 1) return f ? NAN : ((b >> (mant + exp)) & 1) ? -INFINITY : INFINITY;
    double v = e == 0 ? std::ldexp(double(f), 1 - bias - mant) : std::ldexp(double(f + (1u << mant)), int(e) - bias - mant);
    return ((b >> (mant + exp)) & 1) ? -v : v;
  }
  uint32_t inf() const { return ((1u << exp) - 1) << mant; }
  uint32_t sign() const { return 1u << (mant + exp); }
  // x rounded to the format by searching the table of positive values.
  uint32_t round(double x, RMode m) const {
    if (std::isnan(x)) return sign() - 1;
    bool neg = std::signbit(x);
    double ax = std::fabs(x);
    uint32_t lo = 0, hi = inf() - 1;  // largest finite
    double top = std::ldexp(1.0, (1 << (exp - 1)));  // the value an unbounded exponent would give inf()
    auto val = [&](uint32_t k) { return k == inf() ? top : value(k); };
    uint32_t k;
    if (std::isinf(ax)) return (neg ? sign() : 0) | inf();
    if (ax >= value(hi)) {
      k = hi;
    } else {
      while (lo < hi) {  // largest k with value(k) <= ax
        uint32_t mid = (lo + hi + 1) / 2;
        if (value(mid) <= ax) lo = mid;
        else hi = mid - 1;
      }
      k = lo;
    }
    uint32_t r;
    if (val(k) == ax) {
      r = k;
    } else {
      uint32_t up = k + 1;
      double dl = ax - val(k), du = val(up) - ax;
      bool toward_up;
      switch (m) {
        case RN: toward_up = du < dl || (du == dl && (k & 1)); break;
        case RZ: toward_up = false; break;
        case RM: toward_up = neg; break;
        default: toward_up = !neg; break;
      }
      r = toward_up ? up : k;
    }
    return (neg ? sign() : 0) | r;
  }
};
inline constexpr Narrow kHalf{10, 5}, kBf16{7, 8}, kSingle{23, 8};

// Float test inputs: specials, subnormals, values near ties, random bits.
inline std::vector<uint32_t> f32_inputs(size_t n, uint32_t seed) {
  std::vector<uint32_t> v = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
                             0x7fa00001, 0xffc00000, 0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x7f7fffff,
                             0xff7fffff, 0x3f000000, 0x40490fdb, 0x4b800001, 0x33800000, 0x3f800001, 0x00400000};
  std::mt19937 g(seed);
  while (v.size() < n) {
    uint32_t x = g();
    switch (g() % 6) {
      case 0: x = fbits(float(int(g() % 2001) - 1000) / 8.0f); break;     // exact small values
      case 1: x = (x & 0x807fffff) | ((100u + g() % 56) << 23); break;    // moderate exponents
      case 2: x &= 0x807fffff; break;                                       // subnormals
      default: break;
    }
    v.push_back(x);
  }
  v.resize(n);
  return v;
}

}  // namespace ptxt
