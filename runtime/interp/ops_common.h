// Helpers shared by the op-family files (ops_*.cpp): numeric element access
// across dtype classes, bounds checks, the scalar arithmetic every family
// reuses (binary ops with PTO-ISA semantics) and element conversion (TCVT,
// TMOV). docs/semantics.md describes what they compute.
#pragma once
#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>

#include "exec.h"

namespace ptoas::rt::ops {

inline std::string dn(DType d) { return std::string(dtype_name(d)); }

// ---- numeric access whatever the element class --------------------------------

// An element as a double (integers converted exactly up to 2^53; u64 as
// unsigned).
inline double num_f(const TileAcc& t, int64_t r, int64_t c) {
  if (is_float(t.elem)) return t.getf(r, c);
  int64_t v = t.geti(r, c);
  return t.elem == DType::U64 ? double(uint64_t(v)) : double(v);
}

// An element as an integer (floats truncated toward zero, saturated, NaN 0).
inline int64_t num_i(const TileAcc& t, int64_t r, int64_t c) {
  if (!is_float(t.elem)) return t.geti(r, c);
  double v = std::trunc(t.getf(r, c));
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return INT64_MAX;
  if (v <= -9.2233720368547758e18) return INT64_MIN;
  return int64_t(v);
}

// ---- checks -----------------------------------------------------------------------

// Fails unless the tile physically holds rows x cols (so that every (r, c)
// with r < rows, c < cols addresses its own storage).
inline void need_phys(Exec& ex, const Inst& in, const TileAcc& t, int64_t rows, int64_t cols,
                      const char* what) {
  if (rows > t.t->rows || cols > t.t->cols)
    ex.fail(in, std::string(op_name(in.op)) + ": the " + what + " tile (" +
                    std::to_string(t.t->rows) + "x" + std::to_string(t.t->cols) +
                    ") is smaller than the " + std::to_string(rows) + "x" +
                    std::to_string(cols) + " region the op touches");
}

inline void need_float(Exec& ex, const Inst& in, DType d) {
  if (!is_float(d))
    ex.fail(in, std::string(op_name(in.op)) + " needs a floating-point element type, got " + dn(d));
}

inline void need_int(Exec& ex, const Inst& in, DType d) {
  if (is_float(d))
    ex.fail(in, std::string(op_name(in.op)) + " needs an integer element type, got " + dn(d));
}

// Every byte of t's storage zeroed; for a subview window only the
// elements of the window (its parent's others are not its to touch).
inline void zero_storage(const TileAcc& t) {
  if (!t.window()) {
    std::memset(t.base, 0, tile_storage_bytes(*t.t));
    return;
  }
  for (int64_t r = 0; r < t.t->rows; ++r)
    for (int64_t c = 0; c < t.t->cols; ++c) std::memset(t.at(r, c), 0, t.esize);
}

inline bool is_tile(const Exec& ex, ValueId v) { return ex.m.type_of(v).kind == TypeKind::TileBuf; }

// ---- binary arithmetic ---------------------------------------------------------------

enum class Bin : uint8_t {
  Add, Sub, Mul, Div, Max, Min, Rem, Fmod, Pow, And, Or, Xor, Shl, Shr
};

// std::max / std::min: (a < b) ? b : a and (b < a) ? b : a. With a NaN
// either way the first operand is returned.
inline double fmax_std(double a, double b) { return (a < b) ? b : a; }
inline double fmin_std(double a, double b) { return (b < a) ? b : a; }

inline bool ilt(DType d, int64_t a, int64_t b) {
  return d == DType::U64 ? uint64_t(a) < uint64_t(b) : a < b;
}

// a op b for float element types, exact in double; the caller rounds once to
// the element type (store_f). Bitwise ops and shifts are refused.
// IEEE a op b whose NaN result is pinned to a's NaN when a is one, else
// b's (what x86's `addps a, b` gives). A C++ `a + b` of two NaNs leaves the
// choice to the compiler's operand order, which differs between -O2 and -O3.
// The NaN operand is quieted: a scalar loaded by pto.load_scalar may carry
// a signalling NaN's bits (elem.h load_f_bits).
inline double nan_first(double a, double b, double r) {
  return std::isnan(a) ? quiet_nan(a) : std::isnan(b) ? quiet_nan(b) : r;
}

inline double fbin(Exec& ex, const Inst& in, Bin op, double a, double b) {
  switch (op) {
    case Bin::Add: return nan_first(a, b, a + b);
    case Bin::Sub: return nan_first(a, b, a - b);
    case Bin::Mul: return nan_first(a, b, a * b);
    case Bin::Div: return nan_first(a, b, a / b);
    case Bin::Max: return fmax_std(a, b);
    case Bin::Min: return fmin_std(a, b);
    case Bin::Fmod: return std::fmod(a, b);
    case Bin::Rem: {
      double r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
    case Bin::Pow:
      // C's special cases, with NaN results pinned to the NaN operand (x's
      // first) rather than to the libm (glibc clears the sign of a NaN x
      // when y is +-1).
      if (b == 0 || a == 1) return 1;
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
      return std::pow(a, b);
    default:
      ex.fail(in, std::string(op_name(in.op)) + " needs an integer element type");
  }
}

// Integer power with wrap-around; negative exponents truncate 1/base^|e|
// toward zero (0 for |base| > 1); 0 to a negative power is an error.
inline int64_t ipow(Exec& ex, const Inst& in, int64_t base, int64_t e, bool is_unsigned) {
  if (e < 0 && !is_unsigned) {
    if (base == 0) ex.fail(in, std::string(op_name(in.op)) + ": 0 raised to a negative power");
    if (base == 1) return 1;
    if (base == -1) return (e & 1) ? -1 : 1;
    return 0;
  }
  uint64_t r = 1, b = uint64_t(base), k = uint64_t(e);
  while (k) {
    if (k & 1) r *= b;
    b *= b;
    k >>= 1;
  }
  return int64_t(r);
}

// a op b for integer element type d (operands as load_i returns them); the
// caller wraps to the width (store_i). Division or remainder by zero and
// out-of-range shift counts are runtime errors.
inline int64_t ibin(Exec& ex, const Inst& in, Bin op, DType d, int64_t a, int64_t b) {
  bool u = dtype_is_unsigned(d);
  unsigned bits = dtype_bytes(d) * 8;
  auto zero_check = [&] {
    if (b == 0) ex.fail(in, std::string(op_name(in.op)) + ": integer division by zero");
  };
  switch (op) {
    case Bin::Add: return int64_t(uint64_t(a) + uint64_t(b));
    case Bin::Sub: return int64_t(uint64_t(a) - uint64_t(b));
    case Bin::Mul: return int64_t(uint64_t(a) * uint64_t(b));
    case Bin::Div:
      zero_check();
      if (u) return int64_t(uint64_t(a) / uint64_t(b));
      if (a == INT64_MIN && b == -1) return INT64_MIN;  // wraps
      return a / b;
    case Bin::Fmod:
      zero_check();
      if (u) return int64_t(uint64_t(a) % uint64_t(b));
      if (b == -1) return 0;
      return a % b;
    case Bin::Rem: {
      zero_check();
      if (u) return int64_t(uint64_t(a) % uint64_t(b));
      if (b == -1) return 0;
      int64_t r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
    case Bin::Max: return ilt(d, a, b) ? b : a;
    case Bin::Min: return ilt(d, b, a) ? b : a;
    case Bin::Pow: return ipow(ex, in, a, b, u);
    case Bin::And: return a & b;
    case Bin::Or: return a | b;
    case Bin::Xor: return a ^ b;
    case Bin::Shl:
    case Bin::Shr: {
      bool bad = u ? (d == DType::U64 ? uint64_t(b) >= bits : (b < 0 || b >= int64_t(bits)))
                   : (b < 0 || b >= int64_t(bits));
      if (bad)
        ex.fail(in, std::string(op_name(in.op)) + ": shift amount " +
                        (d == DType::U64 ? std::to_string(uint64_t(b)) : std::to_string(b)) +
                        " is out of range for " + dn(d) + " (0.." + std::to_string(bits - 1) + ")");
      if (op == Bin::Shl) return int64_t(uint64_t(a) << b);
      if (u) return int64_t(uint64_t(a) >> b);  // zero-extended by load_i (u64: raw bits)
      return a >> b;                            // arithmetic
    }
  }
  return 0;
}

// ---- conversion ------------------------------------------------------------------------

enum class RMode : uint8_t { None, Rint, Round, Floor, Ceil, Trunc, Odd };

inline double round_int(double v, RMode m) {
  switch (m) {
    case RMode::Rint: return std::nearbyint(v);
    case RMode::Round: return std::round(v);
    case RMode::Floor: return std::floor(v);
    case RMode::Ceil: return std::ceil(v);
    case RMode::Odd: {
      if (!std::isfinite(v)) return v;
      double f = std::floor(v), d = v - f;
      if (d > 0.5) return f + 1;
      if (d < 0.5) return f;
      return std::fmod(f, 2.0) != 0 ? f : f + 1;  // tie: the odd neighbour
    }
    case RMode::None:
    case RMode::Trunc: return std::trunc(v);
  }
  return v;
}

// Largest finite value of a float type.
inline double float_max(DType d) {
  switch (d) {
    case DType::F16: return 65504.0;
    case DType::BF16: return 3.3895313892515355e38;
    case DType::F32: return FLT_MAX;
    default: return DBL_MAX;
  }
}

inline __int128 int_min(DType d) {
  unsigned bits = dtype_bytes(d) * 8;
  if (dtype_is_unsigned(d)) return 0;
  return -(__int128(1) << (bits - 1));
}
inline __int128 int_max(DType d) {
  unsigned bits = dtype_bytes(d) * 8;
  if (dtype_is_unsigned(d)) return (__int128(1) << bits) - 1;
  return (__int128(1) << (bits - 1)) - 1;
}

// Converts one element (src of type st) to type dt at dst. Float -> int
// rounds with `m`; float -> float is RNE; int -> float is one correctly
// rounded conversion; sat clamps to the destination range (NaN -> 0 for
// integer destinations). Without sat, out-of-range float -> int keeps the
// low bits of the rounded value (saturated to 64 bits first; NaN -> 0) and
// int -> int wraps.
inline void convert_elem(uint8_t* dst, DType dt, const uint8_t* src, DType st, RMode m, bool sat) {
  bool sf = is_float(st), df = is_float(dt);
  if (sf) {
    double v = load_f(src, st);
    if (df) {
      if (sat && !std::isnan(v)) v = std::min(std::max(v, -float_max(dt)), float_max(dt));
      store_f(dst, dt, v);
      return;
    }
    if (std::isnan(v)) { store_i(dst, dt, 0); return; }
    v = round_int(v, m);
    if (sat) {
      double lo = double(int_min(dt)), hi = double(int_max(dt));
      if (v <= lo) { store_i(dst, dt, int64_t(int_min(dt))); return; }
      if (v >= hi) { store_i(dst, dt, int64_t(uint64_t(int_max(dt)))); return; }
      if (v < 0) store_i(dst, dt, int64_t(v));
      else store_i(dst, dt, int64_t(uint64_t(v)));
      return;
    }
    if (v >= 18446744073709551616.0) { store_i(dst, dt, -1); return; }  // low bits of 2^64-1
    if (v >= 9223372036854775808.0) { store_i(dst, dt, int64_t(uint64_t(v))); return; }
    if (v < -9223372036854775808.0) { store_i(dst, dt, INT64_MIN); return; }
    store_i(dst, dt, int64_t(v));
    return;
  }
  __int128 iv = st == DType::U64 ? __int128(uint64_t(load_i(src, st))) : __int128(load_i(src, st));
  if (df) {
    long double lv = (long double)iv;  // exact for 64-bit integers
    if (dt == DType::F32) {
      float f = float(lv);  // one correct rounding
      if (sat && std::isinf(f)) f = std::signbit(f) ? -FLT_MAX : FLT_MAX;
      store_f(dst, dt, double(f));
      return;
    }
    double v = double(lv);
    if (sat) v = std::min(std::max(v, -float_max(dt)), float_max(dt));
    store_f(dst, dt, v);
    return;
  }
  if (sat) {
    if (iv < int_min(dt)) iv = int_min(dt);
    if (iv > int_max(dt)) iv = int_max(dt);
  }
  store_i(dst, dt, int64_t(uint64_t(iv)));
}

// Element conversion used by data movement (TMOV, TEXTRACT, TINSERT, TCONCAT
// ...): raw copy for equal types, otherwise a numeric conversion (float ->
// int truncates and saturates), then the optional relu (v > 0 ? v : 0).
inline void move_elem(uint8_t* dst, DType dt, const uint8_t* src, DType st, bool relu) {
  if (dt == st && !relu) { copy_elem(dst, src, dt); return; }
  if (relu) {
    uint8_t tmp[8] = {};
    if (is_float(st)) {
      double v = load_f(src, st);
      v = v > 0 ? v : 0;
      store_f(tmp, st, v);
    } else {
      int64_t v = load_i(src, st);
      bool pos = st == DType::U64 ? true : v > 0;
      store_i(tmp, st, pos ? v : 0);
    }
    convert_elem(dst, dt, tmp, st, RMode::Trunc, !is_float(dt) && is_float(st));
    return;
  }
  convert_elem(dst, dt, src, st, RMode::Trunc, !is_float(dt) && is_float(st));
}

}  // namespace ptoas::rt::ops
