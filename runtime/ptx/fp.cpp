// Exact rounding to narrow formats (fp.h).
#include "fp.h"

#include <cmath>

namespace ptoas::ptx::fp {

namespace {

int clz64(uint64_t v) { return __builtin_clzll(v); }

// Rounds |v| = M * 2^(E-63) (M's bit 63 set), nudged by a tiny amount of
// sign e_rel (relative to the magnitude), to format f.
uint64_t round_core(bool neg, int E, uint64_t M, int e_rel, Mode mode, Fmt f) {
  const int p = f.mant + 1;
  const int bias = (1 << (f.exp - 1)) - 1;
  const int emin = 1 - bias, emax = bias;
  const uint64_t inf_enc = ((uint64_t(1) << f.exp) - 1) << f.mant;
  const uint64_t max_enc = inf_enc - 1;
  const uint64_t sign = neg ? sign_bit(f) : 0;
  auto overflow = [&]() {
    bool to_inf = mode == Mode::RN || mode == Mode::RNA || (mode == Mode::RP && !neg) || (mode == Mode::RM && neg);
    return sign | (to_inf ? inf_enc : max_enc);
  };
  if (E > emax) return overflow();
  int shift = E >= emin ? 64 - p : 64 - p + (emin - E);
  enum { Exact, Below, Tie, Above } cls;
  uint64_t K = 0;
  bool pred = false;  // the value lies just below K: truncation is K's predecessor
  auto classify = [&](uint64_t R, uint64_t H) {
    if (R > H) {
      cls = Above;
    } else if (R < H) {
      if (R != 0) cls = Below;
      else if (e_rel > 0) cls = Below;
      else if (e_rel < 0) {
        pred = true;
        cls = Above;
      } else {
        cls = Exact;
      }
    } else {
      cls = e_rel > 0 ? Above : e_rel < 0 ? Below : Tie;
    }
  };
  if (shift >= 65) {
    cls = Below;  // M < 2^64 <= half an ulp
  } else if (shift == 64) {
    classify(M, uint64_t(1) << 63);
  } else {
    K = M >> shift;
    classify(M & ((uint64_t(1) << shift) - 1), uint64_t(1) << (shift - 1));
  }
  uint64_t enc = E >= emin ? (uint64_t(E - emin) << f.mant) + K : K;
  if (pred) enc -= 1;
  bool up = false;
  switch (mode) {
    case Mode::RN: up = cls == Above || (cls == Tie && (enc & 1)); break;
    case Mode::RNA: up = cls == Above || cls == Tie; break;
    case Mode::RZ: up = false; break;
    case Mode::RP: up = cls != Exact && !neg; break;
    case Mode::RM: up = cls != Exact && neg; break;
  }
  if (up) ++enc;
  if (enc >= inf_enc) return overflow();
  return sign | enc;
}

}  // namespace

uint64_t overflow(bool neg, Mode m, Fmt f) { return round_core(neg, 1 << 20, uint64_t(1) << 63, 0, m, f); }

uint64_t canonical_nan(Fmt f) { return (uint64_t(1) << (f.mant + f.exp)) - 1; }

uint64_t round(double s, int e_sign, Mode m, Fmt f, int scale) {
  uint64_t b = bits(s);
  bool neg = b >> 63;
  uint64_t ex = (b >> 52) & 0x7ff, fr = b & ((uint64_t(1) << 52) - 1);
  const uint64_t inf_enc = ((uint64_t(1) << f.exp) - 1) << f.mant;
  if (ex == 0x7ff) return fr ? canonical_nan(f) : (neg ? sign_bit(f) : 0) | inf_enc;
  if (ex == 0 && fr == 0) {
    if (e_sign == 0) return neg ? sign_bit(f) : 0;
    // A nonzero value too small for a double: far below any format's
    // smallest subnormal.
    return round_core(e_sign < 0, -100000, uint64_t(1) << 63, 0, m, f);
  }
  int E;
  uint64_t M;
  if (ex == 0) {
    int lz = clz64(fr);
    E = (63 - lz) - 1074;
    M = fr << lz;
  } else {
    E = int(ex) - 1023;
    M = (fr | (uint64_t(1) << 52)) << 11;
  }
  int e_rel = neg ? -e_sign : e_sign;
  return round_core(neg, E + scale, M, e_rel, m, f);
}

uint64_t round_int(bool neg, uint64_t mag, Mode m, Fmt f) {
  if (mag == 0) return 0;
  int lz = clz64(mag);
  return round_core(neg, 63 - lz, mag << lz, 0, m, f);
}

double value(uint64_t b, Fmt f) {
  if (f.mant == 52 && f.exp == 11) return f64(b);
  bool neg = (b >> (f.mant + f.exp)) & 1;
  uint64_t e = (b >> f.mant) & ((uint64_t(1) << f.exp) - 1);
  uint64_t fr = b & ((uint64_t(1) << f.mant) - 1);
  int bias = (1 << (f.exp - 1)) - 1;
  double v;
  if (e == (uint64_t(1) << f.exp) - 1) v = fr ? std::nan("") : INFINITY;
  else if (e == 0) v = std::ldexp(double(fr), 1 - bias - f.mant);
  else v = std::ldexp(double(fr | (uint64_t(1) << f.mant)), int(e) - bias - f.mant);
  return neg ? -v : v;
}

}  // namespace ptoas::ptx::fp
