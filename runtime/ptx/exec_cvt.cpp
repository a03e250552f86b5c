// cvt: every integer and float type to every other, with the rounding
// modifiers (.rn .rz .rm .rp .rna; .rni .rzi .rmi .rpi), .sat, .satfinite,
// .relu and .ftz. Float-to-integer conversions saturate to the
// destination's range and turn NaN into 0, as the ISA says.
#include <cmath>

#include "exec.h"

namespace ptoas::ptx {

namespace {

double round_integral(double x, Rnd r) {
  switch (r) {
    case Rnd::RZI: return std::trunc(x);
    case Rnd::RMI: return std::floor(x);
    case Rnd::RPI: return std::ceil(x);
    default: return std::nearbyint(x);  // ties to even (the host is in round-to-nearest)
  }
}

// The value x (a float) as integer type t, rounded by r, saturated.
uint64_t to_int(double x, Rnd r, Ty t) {
  unsigned bytes = ty_bytes(t);
  if (std::isnan(x)) return 0;
  double v = round_integral(x, r);
  if (ty_signed(t)) {
    double lo = -std::ldexp(1.0, int(bytes * 8 - 1)), hi = std::ldexp(1.0, int(bytes * 8 - 1));
    int64_t q = v <= lo ? int64_t(lo) : v >= hi ? (bytes == 8 ? INT64_MAX : int64_t(hi) - 1) : int64_t(v);
    return uint64_t(q) & width_mask(bytes);
  }
  double hi = std::ldexp(1.0, int(bytes * 8));
  if (v <= 0) return 0;
  if (v >= hi) return width_mask(bytes);
  return uint64_t(v);
}

// Float (bits of format f) to float format d with the instruction's modifiers.
uint64_t to_float(const Inst& in, double x, fp::Fmt d) {
  uint64_t r;
  bool d64 = d.mant == 52;
  if (std::isnan(x)) {
    r = fp::canonical_nan(d);
  } else if (in.rnd >= Rnd::RNI) {
    r = d64 ? fp::bits(round_integral(x, in.rnd)) : fp::round(round_integral(x, in.rnd), 0, fp::Mode::RN, d);
  } else {
    r = d64 ? fp::bits(x) : fp::round(x, 0, mode_of(in.rnd), d);
  }
  uint64_t sb = fp::sign_bit(d);
  uint64_t inf = ((uint64_t(1) << d.exp) - 1) << d.mant;
  if ((in.flags & F_SATFINITE) && (r & ~sb) == inf) r = (r & sb) | (inf - 1);
  if ((in.flags & F_RELU) && !fp::is_nan(r, d) && (r & sb)) r = 0;
  if (in.flags & F_FTZ) r = fp::flush(r, d);
  if (in.flags & F_SAT) {
    double v = fp::value(r, d);
    if (fp::is_nan(r, d) || v <= 0) r = 0;
    else if (v > 1) r = fp::round(1.0, 0, fp::Mode::RN, d);
  }
  return r;
}

}  // namespace

void BlockRun::exec_cvt(Warp& w, const Inst& in, uint32_t m) {
  const Opnd* o = ops(in);
  const Ty d = in.type, a = in.type2;
  const unsigned ab = ty_bytes(a), db = ty_bytes(d);
  const bool dflt = ty_float(d), aflt = ty_float(a);
  const fp::Fmt af = fmt_of(a), df = fmt_of(d);
  auto src_value = [&](uint64_t bits) {  // a float source as an exact double
    bits &= width_mask(ab);
    if ((in.flags & F_FTZ) && a == Ty::F32) bits = fp::flush(bits, af);
    return fp::value(bits, af);
  };
  for_lanes(m, [&](int l) {
    uint64_t v = get(w, o[1], l);
    uint64_t r = 0;
    if (d == Ty::F16x2 || d == Ty::BF16x2) {
      uint64_t hi = to_float(in, src_value(v), df), lo = to_float(in, src_value(get(w, o[2], l)), df);
      r = (hi << 16) | lo;
    } else if (d == Ty::TF32) {
      r = to_float(in, src_value(v), fp::kTF32) << 13;  // the tf32 value in an f32 layout
    } else if (dflt && aflt) {
      r = to_float(in, src_value(v), df);
    } else if (dflt) {
      // Integer to float: exact rounding of the 64-bit value.
      bool neg = ty_signed(a) && sext(v, ab) < 0;
      uint64_t mag = neg ? uint64_t(0) - uint64_t(sext(v, ab)) : v & width_mask(ab);
      Inst rn = in;
      rn.rnd = Rnd::None;  // the rounding happened here
      if (df.mant == 52) {
        uint64_t b = fp::round_int(neg, mag, mode_of(in.rnd), fp::kF64);
        r = to_float(rn, fp::f64(b), df);
      } else {
        r = fp::round_int(neg, mag, mode_of(in.rnd), df);
        uint64_t sb = fp::sign_bit(df);
        if (in.flags & F_SAT) r = to_float(rn, fp::value(r, df), df);
        if ((in.flags & F_RELU) && (r & sb)) r = 0;
        if ((in.flags & F_SATFINITE) && (r & ~sb) == ((((uint64_t(1) << df.exp) - 1)) << df.mant))
          r = (r & sb) | ((((uint64_t(1) << df.exp) - 1) << df.mant) - 1);
      }
    } else if (aflt) {
      r = to_int(src_value(v), in.rnd, d);
    } else {
      // Integer to integer: extend by the source's signedness, then wrap
      // or (.sat) clamp to the destination.
      int64_t s = ty_signed(a) ? sext(v, ab) : int64_t(v & width_mask(ab));
      bool src_unsigned_big = !ty_signed(a) && ab == 8 && (v >> 63);
      if (in.flags & F_SAT) {
        if (ty_signed(d)) {
          int64_t hi = db == 8 ? INT64_MAX : (int64_t(1) << (db * 8 - 1)) - 1, lo = db == 8 ? INT64_MIN : -hi - 1;
          r = uint64_t(src_unsigned_big ? hi : s > hi ? hi : s < lo ? lo : s) & width_mask(db);
        } else {
          uint64_t hi = width_mask(db);
          if (src_unsigned_big) r = hi;
          else r = s < 0 ? 0 : uint64_t(s) > hi ? hi : uint64_t(s);
        }
      } else {
        r = uint64_t(s) & width_mask(db);
      }
    }
    // An integer result narrower than its register (.s8 into a .b16/.b32)
    // is extended to the register by the destination type's signedness.
    if (!dflt && o[0].kind == Opnd::Reg) {
      unsigned rb = e.reg_bits[o[0].reg] / 8;
      if (rb > db && ty_signed(d)) r = uint64_t(sext(r, db)) & width_mask(rb);
    }
    put(w, o[0], l, r);
  });
}

}  // namespace ptoas::ptx
