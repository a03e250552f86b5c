// Vector ALU, integer and lane instructions. Results are written for the
// EXEC lanes only; lane masks (carry out, compares) get 0 for the others.
#include <bit>

#include "exec.h"

namespace ptoas::amdgpu_emu {

namespace {

bool fcmp(Cmp c, double a, double b) {
  bool un = a != a || b != b;
  switch (c) {
    case Cmp::Eq: return !un && a == b;
    case Cmp::Lt: return !un && a < b;
    case Cmp::Le: return !un && a <= b;
    case Cmp::Gt: return !un && a > b;
    case Cmp::Ge: return !un && a >= b;
    case Cmp::Lg: return !un && a != b;
    case Cmp::O: return !un;
    case Cmp::U: return un;
    case Cmp::Neq: return !(!un && a == b);
    case Cmp::Nlg: return !(!un && a != b);
    case Cmp::Nlt: return !(!un && a < b);
    case Cmp::Nle: return !(!un && a <= b);
    case Cmp::Ngt: return !(!un && a > b);
    case Cmp::Nge: return !(!un && a >= b);
    case Cmp::Ne: return false;
  }
  return false;
}

template <class T>
bool icmp(Cmp c, T a, T b) {
  switch (c) {
    case Cmp::Eq: return a == b;
    case Cmp::Ne: return a != b;
    case Cmp::Lt: return a < b;
    case Cmp::Le: return a <= b;
    case Cmp::Gt: return a > b;
    case Cmp::Ge: return a >= b;
    default: return false;
  }
}

float as_f32(uint32_t b) { return std::bit_cast<float>(b); }
double as_f64(uint64_t b) { return std::bit_cast<double>(b); }

// v_cmp_class_f32 / _f64: the class bit of a value (ISA order: sNaN, qNaN,
// -inf, -normal, -denormal, -0, +0, +denormal, +normal, +inf) for an IEEE
// format of EXP exponent bits and MANT significand bits.
template <unsigned EXP, unsigned MANT>
unsigned class_bit(uint64_t b) {
  uint64_t e = (b >> MANT) & ((uint64_t(1) << EXP) - 1), m = b & ((uint64_t(1) << MANT) - 1);
  bool neg = (b >> (EXP + MANT)) & 1;
  if (e == (uint64_t(1) << EXP) - 1) {
    if (m) return (m >> (MANT - 1)) ? 1 : 0;
    return neg ? 2 : 9;
  }
  if (e == 0) {
    if (!m) return neg ? 5 : 6;
    return neg ? 4 : 7;
  }
  return neg ? 3 : 8;
}

}  // namespace

bool exec_valu_int(Exec& x, Wave& w, const Inst& in) {
  const Opnd* o = in.ops;
  const uint64_t exec = x.exec_mask(w);
  auto lanes = [&](auto&& f) { x.for_exec_lanes(w, f); };
  auto a32 = [&](unsigned i, unsigned l) { return x.src32(w, o[i], l); };
  auto put = [&](unsigned l, uint32_t v) { x.vr(w, o[0].reg, l) = v; };
  auto put64 = [&](unsigned l, uint64_t v) {
    x.vr(w, o[0].reg, l) = uint32_t(v);
    x.vr(w, o[0].reg + 1, l) = uint32_t(v >> 32);
  };
  // Binary and unary ops whose result is a function of the 32-bit sources.
  auto map2 = [&](auto&& f) { lanes([&](unsigned l) { put(l, f(a32(1, l), a32(2, l))); }); };
  auto map1 = [&](auto&& f) { lanes([&](unsigned l) { put(l, f(a32(1, l))); }); };

  switch (in.op) {
    case Op::VMovB32: map1([](uint32_t a) { return a; }); break;
    case Op::VMovDpp: {
      // Every lane reads the source as it was before the move.
      const unsigned W = x.W;
      std::vector<uint32_t> src(W);
      for (unsigned l = 0; l < W; ++l) src[l] = x.vr(w, o[1].reg, l);
      const Dpp& d = in.dpp;
      lanes([&](unsigned l) {
        unsigned row = l / 16, i = l % 16;
        if (!(d.row_mask >> (row % 4) & 1) || !(d.bank_mask >> (i / 4) & 1)) return;
        int from = -1;
        switch (d.kind) {
          case Dpp::QuadPerm: from = int((l & ~3u) | ((d.arg >> (2 * (l & 3))) & 3)); break;
          case Dpp::RowShl: from = i + d.arg < 16 ? int(l + d.arg) : -1; break;
          case Dpp::RowShr: from = i >= d.arg ? int(l - d.arg) : -1; break;
          case Dpp::RowXmask: from = int((l & ~15u) | (i ^ d.arg)); break;
        }
        if (from >= 0 && (exec >> from & 1)) put(l, src[unsigned(from)]);
        else if (d.bound_ctrl) put(l, 0);
      });
      break;
    }
    case Op::VAddU32: map2([](uint32_t a, uint32_t b) { return a + b; }); break;
    case Op::VSubU32: map2([](uint32_t a, uint32_t b) { return a - b; }); break;
    case Op::VAddCoU32: case Op::VSubCoU32: case Op::VAddcCoU32: case Op::VSubbCoU32: {
      bool sub = in.op == Op::VSubCoU32 || in.op == Op::VSubbCoU32;
      bool cin = in.op == Op::VAddcCoU32 || in.op == Op::VSubbCoU32;
      uint64_t carry_in = cin ? x.mask(w, o[4]) : 0, carry_out = 0;
      lanes([&](unsigned l) {
        uint64_t a = x.src32(w, o[2], l), b = x.src32(w, o[3], l), c = carry_in >> l & 1;
        uint64_t r = sub ? a - b - c : a + b + c;
        put(l, uint32_t(r));
        if (sub ? (b + c > a) : (r >> 32)) carry_out |= 1ull << l;
      });
      x.set_mask(w, o[1], carry_out);
      break;
    }
    case Op::VMulLoU32: map2([](uint32_t a, uint32_t b) { return a * b; }); break;
    case Op::VMulHiU32: map2([](uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }); break;
    case Op::VMulHiI32:
      map2([](uint32_t a, uint32_t b) { return uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32); });
      break;
    case Op::VMadU64U32: case Op::VMadI64I32: {
      bool sgn = in.op == Op::VMadI64I32;
      uint64_t carry = 0;
      lanes([&](unsigned l) {
        uint32_t a = x.src32(w, o[2], l), b = x.src32(w, o[3], l);
        uint64_t c = x.src64(w, o[4], l, false);
        if (sgn) {
          __int128 r = __int128(int64_t(int32_t(a)) * int32_t(b)) + int64_t(c);
          put64(l, uint64_t(r));
          if (r != __int128(int64_t(r))) carry |= 1ull << l;
        } else {
          unsigned __int128 r = (unsigned __int128)(uint64_t(a) * b) + c;
          put64(l, uint64_t(r));
          if (r >> 64) carry |= 1ull << l;
        }
      });
      x.set_mask(w, o[1], carry);
      break;
    }
    case Op::VAndB32: map2([](uint32_t a, uint32_t b) { return a & b; }); break;
    case Op::VOrB32: map2([](uint32_t a, uint32_t b) { return a | b; }); break;
    case Op::VXorB32: map2([](uint32_t a, uint32_t b) { return a ^ b; }); break;
    case Op::VNotB32: map1([](uint32_t a) { return ~a; }); break;
    // The *rev shifts take the shift count first.
    case Op::VLshlrevB32: map2([](uint32_t s, uint32_t v) { return v << (s & 31); }); break;
    case Op::VLshrrevB32: map2([](uint32_t s, uint32_t v) { return v >> (s & 31); }); break;
    case Op::VAshrrevI32: map2([](uint32_t s, uint32_t v) { return uint32_t(int32_t(v) >> (s & 31)); }); break;
    case Op::VLshlrevB64: case Op::VLshrrevB64: case Op::VAshrrevI64:
      lanes([&](unsigned l) {
        unsigned s = a32(1, l) & 63;
        uint64_t v = x.src64(w, o[2], l, false);
        put64(l, in.op == Op::VLshlrevB64   ? v << s
                 : in.op == Op::VLshrrevB64 ? v >> s
                                            : uint64_t(int64_t(v) >> s));
      });
      break;
    case Op::VBfeU32: case Op::VBfeI32:
      lanes([&](unsigned l) {
        uint32_t v = a32(1, l), off = a32(2, l) & 31, width = a32(3, l) & 31;
        if (width == 0) return put(l, 0);
        uint32_t f = uint32_t((uint64_t(v) >> off) & ((1ull << width) - 1));
        if (in.op == Op::VBfeI32 && (f >> (width - 1) & 1)) f |= ~uint32_t((1ull << width) - 1);
        put(l, f);
      });
      break;
    case Op::VBfiB32:
      lanes([&](unsigned l) {
        uint32_t m = a32(1, l);
        put(l, (m & a32(2, l)) | (~m & a32(3, l)));
      });
      break;
    case Op::VMinI32: map2([](uint32_t a, uint32_t b) { return int32_t(a) < int32_t(b) ? a : b; }); break;
    case Op::VMinU32: map2([](uint32_t a, uint32_t b) { return a < b ? a : b; }); break;
    case Op::VMaxI32: map2([](uint32_t a, uint32_t b) { return int32_t(a) > int32_t(b) ? a : b; }); break;
    case Op::VMaxU32: map2([](uint32_t a, uint32_t b) { return a > b ? a : b; }); break;
    case Op::VCndmaskB32: {
      uint64_t m = x.mask(w, o[3]);
      lanes([&](unsigned l) { put(l, (m >> l & 1) ? a32(2, l) : a32(1, l)); });
      break;
    }
    case Op::VBcntU32B32: map2([](uint32_t a, uint32_t b) { return uint32_t(std::popcount(a)) + b; }); break;
    case Op::VFfbhU32: map1([](uint32_t a) { return a ? uint32_t(std::countl_zero(a)) : 0xffffffffu; }); break;
    case Op::VBfrevB32:
      map1([](uint32_t a) {
        uint32_t r = 0;
        for (int i = 0; i < 32; ++i) r |= (a >> i & 1) << (31 - i);
        return r;
      });
      break;
    case Op::VCmp: case Op::VCmpClassF32: case Op::VCmpClassF64: {
      uint64_t r = 0;
      lanes([&](unsigned l) {
        bool t = false;
        if (in.op == Op::VCmpClassF32) {
          t = a32(2, l) >> class_bit<8, 23>(a32(1, l)) & 1;
        } else if (in.op == Op::VCmpClassF64) {
          t = a32(2, l) >> class_bit<11, 52>(x.src64(w, o[1], l, true)) & 1;
        } else {
          switch (in.ty) {
            case CmpTy::I32: t = icmp(in.cmp, int32_t(a32(1, l)), int32_t(a32(2, l))); break;
            case CmpTy::U32: t = icmp(in.cmp, a32(1, l), a32(2, l)); break;
            case CmpTy::I64:
              t = icmp(in.cmp, int64_t(x.src64(w, o[1], l, false)), int64_t(x.src64(w, o[2], l, false)));
              break;
            case CmpTy::U64: t = icmp(in.cmp, x.src64(w, o[1], l, false), x.src64(w, o[2], l, false)); break;
            case CmpTy::F32: t = fcmp(in.cmp, as_f32(a32(1, l)), as_f32(a32(2, l))); break;
            case CmpTy::F64: t = fcmp(in.cmp, as_f64(x.src64(w, o[1], l, true)), as_f64(x.src64(w, o[2], l, true))); break;
          }
        }
        if (t) r |= 1ull << l;
      });
      x.set_mask(w, o[0], r);
      break;
    }
    case Op::VReadfirstlaneB32: {
      unsigned l = exec ? unsigned(std::countr_zero(exec)) : 0;
      x.set_s(w, o[0], a32(1, l));
      break;
    }
    case Op::VMbcntLo: case Op::VMbcntHi:
      lanes([&](unsigned l) {
        uint32_t m = a32(1, l);
        unsigned below = 0;
        if (in.op == Op::VMbcntLo)
          below = l >= 32 ? 32 : l;
        else
          below = l >= 32 ? l - 32 : 0;
        uint32_t part = below >= 32 ? m : (m & ((1u << below) - 1));
        put(l, uint32_t(std::popcount(part)) + a32(2, l));
      });
      break;
    default: return x.fault(w, -1, "internal error: not an integer VALU instruction");
  }
  return true;
}

}  // namespace ptoas::amdgpu_emu
