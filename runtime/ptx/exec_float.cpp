// Floating-point instructions: f32/f64 and the f16/bf16 scalar and packed
// forms, with the PTX rounding modifiers, .ftz, .sat and the PTX NaN rules.
//
// IEEE operations are exact: the result is computed as a double plus the
// sign of its remainder and rounded once to the format (fp.h). An f32 NaN
// result is the canonical 0x7fffffff (the ISA leaves single-precision NaN
// payloads unspecified; current GPUs produce this one), f16/bf16 0x7fff;
// f64 keeps the host's payload propagation (the ISA: f64 supports payloads).
// The .approx functions return the correctly rounded value of the exact
// function (docs/ptx_interpreter.md): the hardware may differ from it
// within the ISA's documented bound.
#include <cfenv>
#include <cmath>

#include "exec.h"

namespace ptoas::ptx {

namespace {

bool is_pair(Ty t) { return t == Ty::F16x2 || t == Ty::BF16x2; }
bool is_f64(fp::Fmt f) { return f.mant == 52; }


int sgn(double v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }

// f64 fma under a directed mode: the host's fma in that mode (the one
// place the interpreter uses the host rounding state; volatile keeps the
// compiler from moving the operation across the mode change).
double fma_directed(double a, double b, double c, fp::Mode m) {
  int old = std::fegetround();
  std::fesetround(m == fp::Mode::RZ ? FE_TOWARDZERO : m == fp::Mode::RM ? FE_DOWNWARD : FE_UPWARD);
  volatile double va = a, vb = b, vc = c;
  volatile double r = std::fma(va, vb, vc);
  std::fesetround(old);
  return r;
}

uint64_t saturate(uint64_t r, fp::Fmt f) {
  if (fp::is_nan(r, f)) return 0;
  double v = fp::value(r, f);
  if (v < 0 || (v == 0 && (r & fp::sign_bit(f)))) return 0;
  if (v > 1) return fp::round(1.0, 0, fp::Mode::RN, f);
  return r;
}

// One element of an IEEE operation (add sub mul fma div sqrt rcp) in
// format f, with the instruction's modifiers.
uint64_t ieee(Op op, const Inst& in, fp::Fmt f, uint64_t a, uint64_t b, uint64_t c) {
  bool ftz = in.flags & F_FTZ;
  if (ftz) {
    a = fp::flush(a, f);
    b = fp::flush(b, f);
    c = fp::flush(c, f);
  }
  double x = fp::value(a, f), y = fp::value(b, f), z = fp::value(c, f);
  fp::Mode md = mode_of(in.rnd);
  double s = 0;
  int es = 0, scale = 0;
  bool f64 = is_f64(f);
  switch (op) {
    case Op::Add: s = x + y; es = fp::two_sum_sign(x, y, s); break;
    case Op::Sub: s = x - y; es = fp::two_sum_sign(x, -y, s); break;
    case Op::Mul:
      s = x * y;
      if (f64 && std::isfinite(s) && x != 0 && y != 0) {
        // The fma remainder is exact only away from the subnormals:
        // multiply the normalised significands, then scale the result.
        int kx = std::ilogb(x), ky = std::ilogb(y);
        double xs = std::scalbn(x, -kx), ys = std::scalbn(y, -ky);
        s = xs * ys;
        scale = kx + ky;
        es = sgn(std::fma(xs, ys, -s));
      }
      break;
    case Op::Fma:
      if (f64) {
        s = md == fp::Mode::RN ? std::fma(x, y, z) : fma_directed(x, y, z, md);
        md = fp::Mode::RN;
      } else {
        double p = x * y;  // exact: at most 48 significant bits
        s = p + z;
        es = fp::two_sum_sign(p, z, s);
      }
      break;
    case Op::Div: case Op::Rcp: {
      if (op == Op::Rcp) {
        y = x;
        x = 1.0;
      }
      s = x / y;
      if (f64 && std::isfinite(s) && x != 0 && std::isfinite(y)) {
        int kx = std::ilogb(x), ky = std::ilogb(y);
        x = std::scalbn(x, -kx);
        y = std::scalbn(y, -ky);
        s = x / y;
        scale = kx - ky;
      }
      if (std::isfinite(s) && s != 0 && std::isfinite(y) && y != 0) es = sgn(std::fma(-s, y, x)) * sgn(y);
      break;
    }
    case Op::Sqrt:
      if (f64 && x > 0 && std::isfinite(x)) {
        int k = std::ilogb(x) & ~1;
        x = std::scalbn(x, -k);
        scale = k / 2;
      }
      s = std::sqrt(x);
      if (std::isfinite(s) && s > 0) es = sgn(std::fma(-s, s, x));
      break;
    default: break;
  }
  uint64_t r;
  bool sum = op == Op::Add || op == Op::Sub || op == Op::Fma;
  if (f64 && std::isnan(s)) {
    r = fp::bits(s);
  } else if (f64 && std::isinf(s) && std::isfinite(x) && std::isfinite(y) && std::isfinite(z) && op != Op::Fma &&
             !((op == Op::Div || op == Op::Rcp) && y == 0)) {
    r = fp::overflow(s < 0, md, f);  // a finite result beyond the double range
  } else if (s == 0 && es == 0 && sum && md == fp::Mode::RM) {
    // An exact zero sum is -0 when rounding down, unless both addends are +0.
    double u = op == Op::Fma ? x * y : x, v = op == Op::Sub ? -y : op == Op::Fma ? z : y;
    bool plus = u == 0 && v == 0 && !std::signbit(u) && !std::signbit(v);
    r = plus ? 0 : fp::sign_bit(f);
  } else {
    r = fp::round(s, es, md, f, scale);
  }
  if (ftz) r = fp::flush(r, f);
  if (in.flags & F_SAT) r = saturate(r, f);
  if ((in.flags & F_RELU) && !fp::is_nan(r, f) && (r & fp::sign_bit(f))) r = 0;
  return r;
}

// min / max with the PTX NaN rules (a NaN operand yields the other one
// unless .NaN; -0 < +0), .abs, .xorsign and .relu.
uint64_t minmax(bool is_max, const Inst& in, fp::Fmt f, uint64_t a, uint64_t b) {
  if (in.flags & F_FTZ) {
    a = fp::flush(a, f);
    b = fp::flush(b, f);
  }
  uint64_t sb = fp::sign_bit(f);
  uint64_t xs = (a ^ b) & sb;
  if (in.flags & F_ABS) {
    a &= ~sb;
    b &= ~sb;
  }
  bool na = fp::is_nan(a, f), nb = fp::is_nan(b, f);
  uint64_t r;
  if (na || nb) {
    if ((in.flags & F_NAN) || (na && nb)) return fp::canonical_nan(f);
    r = na ? b : a;
  } else {
    double x = fp::value(a, f), y = fp::value(b, f);
    if (x == y) {  // equal, or +0 and -0: -0 is the smaller
      bool an = a & sb;
      r = is_max ? (an ? b : a) : (an ? a : b);
    } else {
      r = (is_max ? x > y : x < y) ? a : b;
    }
  }
  if (in.flags & F_XORSIGN) r = (r & ~sb) | xs;
  if ((in.flags & F_RELU) && (r & sb)) r = 0;
  return r;
}

uint64_t approx(Op op, const Inst& in, fp::Fmt f, uint64_t a) {
  bool ftz = in.flags & F_FTZ;
  if (ftz) a = fp::flush(a, f);
  double x = fp::value(a, f);
  double s;
  switch (op) {
    case Op::Ex2: s = std::exp2(x); break;
    case Op::Lg2: s = (x == 0) ? -INFINITY : std::log2(x); break;
    case Op::Rsqrt: s = (x == 0) ? std::copysign(INFINITY, x) : 1.0 / std::sqrt(x); break;
    case Op::Sin: s = std::sin(x); break;
    case Op::Cos: s = std::cos(x); break;
    case Op::Tanh: s = std::tanh(x); break;
    case Op::Rcp: s = 1.0 / x; break;
    case Op::Sqrt: s = std::sqrt(x); break;
    default: s = x; break;
  }
  uint64_t r;
  if (is_f64(f)) r = std::isnan(s) ? fp::canonical_nan(f) : fp::bits(s);
  else r = fp::round(s, 0, fp::Mode::RN, f);
  if (ftz) r = fp::flush(r, f);
  return r;
}

bool fcmp(Cmp c, double x, double y) {
  bool un = std::isnan(x) || std::isnan(y);
  switch (c) {
    case Cmp::EQ: return !un && x == y;
    case Cmp::NE: return !un && x != y;
    case Cmp::LT: return !un && x < y;
    case Cmp::LE: return !un && x <= y;
    case Cmp::GT: return !un && x > y;
    case Cmp::GE: return !un && x >= y;
    case Cmp::EQU: return un || x == y;
    case Cmp::NEU: return un || x != y;
    case Cmp::LTU: return un || x < y;
    case Cmp::LEU: return un || x <= y;
    case Cmp::GTU: return un || x > y;
    case Cmp::GEU: return un || x >= y;
    case Cmp::NUM: return !un;
    case Cmp::NAN_: return un;
    default: return false;
  }
}

bool testp(TestpMode m, fp::Fmt f, uint64_t a) {
  double x = fp::value(a, f);
  switch (m) {
    case TestpMode::Finite: return std::isfinite(x);
    case TestpMode::Infinite: return std::isinf(x);
    case TestpMode::Number: return !std::isnan(x);
    case TestpMode::NotANumber: return std::isnan(x);
    case TestpMode::Normal: return std::isfinite(x) && x != 0 && !fp::is_subnormal(a, f);
    case TestpMode::Subnormal: return fp::is_subnormal(a, f);
  }
  return false;
}

inline uint32_t canon32(float r) { return r != r ? 0x7fffffffu : fp::bits(r); }

}  // namespace

void BlockRun::exec_float(Warp& w, const Inst& in, uint32_t m) {
  const Opnd* o = ops(in);
  const Ty t = in.type;
  const fp::Fmt f = fmt_of(t);
  const bool pair = is_pair(t);
  const bool plain = (in.rnd == Rnd::None || in.rnd == Rnd::RN) && !(in.flags & (F_FTZ | F_SAT | F_RELU));
  // Applies `fn` to each element (one, or both halves of a packed pair).
  auto each = [&](uint64_t a, uint64_t b, uint64_t c, auto&& fn) -> uint64_t {
    if (!pair) return fn(a, b, c);
    uint64_t lo = fn(a & 0xffff, b & 0xffff, c & 0xffff);
    uint64_t hi = fn((a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff);
    return (hi << 16) | lo;
  };
  switch (in.op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Fma:
      if (t == Ty::F32 && plain) {
        for_lanes(m, [&](int l) {
          float a = fp::f32(uint32_t(get(w, o[1], l))), b = fp::f32(uint32_t(get(w, o[2], l)));
          float r;
          if (in.op == Op::Add) r = a + b;
          else if (in.op == Op::Sub) r = a - b;
          else if (in.op == Op::Mul) r = a * b;
          else r = std::fma(a, b, fp::f32(uint32_t(get(w, o[3], l))));
          put(w, o[0], l, canon32(r));
        });
        return;
      }
      for_lanes(m, [&](int l) {
        uint64_t c = in.op == Op::Fma ? get(w, o[3], l) : 0;
        put(w, o[0], l, each(get(w, o[1], l), get(w, o[2], l), c, [&](uint64_t a, uint64_t b, uint64_t cc) {
              return ieee(in.op, in, f, a, b, cc);
            }));
      });
      return;
    case Op::Div:
      for_lanes(m, [&](int l) {
        uint64_t a = get(w, o[1], l), b = get(w, o[2], l);
        uint64_t r;
        if ((in.flags & F_APPROX) && t == Ty::F32) {
          // a * (1/b): for 2^126 < |b| < 2^128 the hardware's reciprocal
          // is 0 (ISA); elsewhere the correctly rounded quotient.
          if (in.flags & F_FTZ) {
            a = fp::flush(a, f);
            b = fp::flush(b, f);
          }
          double x = fp::value(a, f), y = fp::value(b, f);
          if (std::isfinite(y) && std::fabs(y) > 0x1p126) r = fp::round(x * 0.0 * std::copysign(1.0, y), 0, fp::Mode::RN, f);
          else r = fp::round(x / y, 0, fp::Mode::RN, f);
          if (in.flags & F_FTZ) r = fp::flush(r, f);
        } else {
          Inst rn = in;  // .full: correctly rounded (within the ISA's 2 ulp)
          if (rn.rnd == Rnd::None) rn.rnd = Rnd::RN;
          r = ieee(Op::Div, rn, f, a, b, 0);
        }
        put(w, o[0], l, r);
      });
      return;
    case Op::Min: case Op::Max:
      for_lanes(m, [&](int l) {
        auto mm = [&](uint64_t a, uint64_t b, uint64_t) { return minmax(in.op == Op::Max, in, f, a, b); };
        uint64_t r = each(get(w, o[1], l), get(w, o[2], l), 0, mm);
        if (in.nops > 3) r = each(r, get(w, o[3], l), 0, mm);
        put(w, o[0], l, r);
      });
      return;
    case Op::Abs: case Op::Neg:
      for_lanes(m, [&](int l) {
        put(w, o[0], l, each(get(w, o[1], l), 0, 0, [&](uint64_t a, uint64_t, uint64_t) {
              if (in.flags & F_FTZ) a = fp::flush(a, f);
              return in.op == Op::Abs ? a & ~fp::sign_bit(f) : a ^ fp::sign_bit(f);
            }));
      });
      return;
    case Op::Setp:
      for_lanes(m, [&](int l) {
        uint64_t a = get(w, o[2], l), b = get(w, o[3], l);
        if (in.flags & F_FTZ) {
          a = fp::flush(a, f);
          b = fp::flush(b, f);
        }
        bool r = fcmp(in.cmp, fp::value(a, f), fp::value(b, f));
        bool c = in.boolop != BoolOp::None ? get(w, o[4], l) & 1 : false;
        auto comb = [&](bool v) {
          switch (in.boolop) {
            case BoolOp::And: return v && c;
            case BoolOp::Or: return v || c;
            case BoolOp::Xor: return v != c;
            default: return v;
          }
        };
        put_pred(w, o[0], l, comb(r));
        put_pred(w, o[1], l, comb(!r));
      });
      return;
    case Op::Slct:
      for_lanes(m, [&](int l) {
        uint64_t c = get(w, o[3], l);
        if (in.flags & F_FTZ) c = fp::flush(c, fp::kF32);
        bool ge = fp::f32(uint32_t(c)) >= 0.0f;
        put(w, o[0], l, (ge ? get(w, o[1], l) : get(w, o[2], l)) & width_mask(ty_bytes(t)));
      });
      return;
    case Op::Rcp: case Op::Sqrt:
      for_lanes(m, [&](int l) {
        uint64_t a = get(w, o[1], l);
        put(w, o[0], l, (in.flags & F_APPROX) ? approx(in.op, in, f, a) : ieee(in.op, in, f, a, 0, 0));
      });
      return;
    case Op::Rsqrt: case Op::Ex2: case Op::Lg2: case Op::Sin: case Op::Cos: case Op::Tanh:
      for_lanes(m, [&](int l) {
        put(w, o[0], l, each(get(w, o[1], l), 0, 0, [&](uint64_t a, uint64_t, uint64_t) { return approx(in.op, in, f, a); }));
      });
      return;
    case Op::Testp:
      for_lanes(m, [&](int l) { put_pred(w, o[0], l, testp(TestpMode(in.mode), f, get(w, o[1], l))); });
      return;
    case Op::Copysign:
      for_lanes(m, [&](int l) {
        uint64_t sb = fp::sign_bit(f);
        put(w, o[0], l, (get(w, o[2], l) & ~sb) | (get(w, o[1], l) & sb));
      });
      return;
    default:
      fault(FaultKind::Unsupported, w, __builtin_ctz(m), in, "no floating-point form of this instruction");
  }
}

}  // namespace ptoas::ptx
