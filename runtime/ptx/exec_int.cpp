// Integer, bitwise, predicate, move and select instructions. Values are
// computed in 64 bits and wrap to the instruction type's width; signed
// types read their operands sign-extended from that width.
#include "exec.h"

namespace ptoas::ptx {

namespace {

bool int_cmp(Cmp c, bool sgn, int64_t as, int64_t bs, uint64_t au, uint64_t bu) {
  switch (c) {
    case Cmp::EQ: return au == bu;
    case Cmp::NE: return au != bu;
    case Cmp::LT: return sgn ? as < bs : au < bu;
    case Cmp::LE: return sgn ? as <= bs : au <= bu;
    case Cmp::GT: return sgn ? as > bs : au > bu;
    case Cmp::GE: return sgn ? as >= bs : au >= bu;
    case Cmp::LO: return au < bu;
    case Cmp::LS: return au <= bu;
    case Cmp::HI: return au > bu;
    case Cmp::HS: return au >= bu;
    default: return false;  // unordered float compares never reach integer types
  }
}

bool bool_op(BoolOp op, bool t, bool c) {
  switch (op) {
    case BoolOp::None: return t;
    case BoolOp::And: return t && c;
    case BoolOp::Or: return t || c;
    case BoolOp::Xor: return t != c;
  }
  return t;
}

uint64_t brev(uint64_t v, unsigned bits) {
  uint64_t r = 0;
  for (unsigned i = 0; i < bits; ++i) r |= ((v >> i) & 1) << (bits - 1 - i);
  return r;
}

// mul.hi: the high half of the full product.
uint64_t mul_hi(bool sgn, unsigned bytes, int64_t as, int64_t bs, uint64_t au, uint64_t bu) {
  unsigned bits = bytes * 8;
  if (bytes == 8) {
    if (sgn) return uint64_t((__int128(as) * __int128(bs)) >> 64);
    return uint64_t((static_cast<unsigned __int128>(au) * bu) >> 64);
  }
  if (sgn) return uint64_t((as * bs) >> bits) & width_mask(bytes);
  return ((au * bu) >> bits) & width_mask(bytes);
}

}  // namespace

void BlockRun::exec_int(Warp& w, const Inst& in, uint32_t m) {
  const Opnd* o = ops(in);
  const Ty t = in.type;
  const unsigned bytes = ty_bytes(t);
  const uint64_t mask = width_mask(bytes);
  const bool sgn = ty_signed(t);
  const unsigned bits = bytes * 8;
  switch (in.op) {
    case Op::Mov:
      if (in.mode == 1) {  // unpack
        unsigned pb = bits / in.vec;
        for_lanes(m, [&](int l) {
          uint64_t v = get(w, o[1], l);
          for (int i = 0; i < in.vec; ++i) put(w, vec_el(o[0], i), l, (v >> (pb * i)) & width_mask(pb / 8));
        });
      } else if (in.mode == 2) {  // pack
        unsigned pb = bits / in.vec;
        for_lanes(m, [&](int l) {
          uint64_t v = 0;
          for (int i = 0; i < in.vec; ++i) v |= (get(w, vec_el(o[1], i), l) & width_mask(pb / 8)) << (pb * i);
          put(w, o[0], l, v);
        });
      } else if (t == Ty::Pred) {
        for_lanes(m, [&](int l) { put_pred(w, o[0], l, get(w, o[1], l) & 1); });
      } else {
        for_lanes(m, [&](int l) { put(w, o[0], l, get(w, o[1], l) & mask); });
      }
      return;
    case Op::And: case Op::Or: case Op::Xor:
      for_lanes(m, [&](int l) {
        uint64_t a = get(w, o[1], l), b = get(w, o[2], l);
        uint64_t r = in.op == Op::And ? a & b : in.op == Op::Or ? a | b : a ^ b;
        if (t == Ty::Pred) put_pred(w, o[0], l, r & 1);
        else put(w, o[0], l, r & mask);
      });
      return;
    case Op::Not:
      for_lanes(m, [&](int l) {
        uint64_t a = get(w, o[1], l);
        if (t == Ty::Pred) put_pred(w, o[0], l, !(a & 1));
        else put(w, o[0], l, ~a & mask);
      });
      return;
    case Op::Cnot:
      for_lanes(m, [&](int l) { put(w, o[0], l, (get(w, o[1], l) & mask) == 0 ? 1 : 0); });
      return;
    case Op::Setp:
      for_lanes(m, [&](int l) {
        uint64_t a = get(w, o[2], l), b = get(w, o[3], l);
        bool r = int_cmp(in.cmp, sgn, sext(a, bytes), sext(b, bytes), a & mask, b & mask);
        bool c = in.boolop != BoolOp::None ? get(w, o[4], l) & 1 : false;
        put_pred(w, o[0], l, bool_op(in.boolop, r, c));
        put_pred(w, o[1], l, bool_op(in.boolop, !r, c));
      });
      return;
    case Op::Selp:
      for_lanes(m, [&](int l) { put(w, o[0], l, (get(w, o[3], l) & 1 ? get(w, o[1], l) : get(w, o[2], l)) & mask); });
      return;
    case Op::Slct:  // selector .s32 (the .f32 form is in exec_float.cpp)
      for_lanes(m, [&](int l) {
        bool ge = sext(get(w, o[3], l), 4) >= 0;
        put(w, o[0], l, (ge ? get(w, o[1], l) : get(w, o[2], l)) & mask);
      });
      return;
    default: break;
  }
  for_lanes(m, [&](int l) {
    uint64_t a = get(w, o[1], l);
    uint64_t au = a & mask;
    int64_t as = sext(a, bytes);
    uint64_t b = in.nops > 2 ? get(w, o[2], l) : 0;
    uint64_t bu = b & mask;
    if (in.op == Op::Shl || in.op == Op::Shr) bu = b & 0xffffffffu;  // the shift amount is a .u32
    int64_t bs = sext(b, bytes);
    uint64_t r = 0;
    switch (in.op) {
      case Op::Add: case Op::Sub:
        if ((in.flags & F_SAT) && t == Ty::S32) {
          int64_t v = in.op == Op::Add ? as + bs : as - bs;
          v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
          r = uint64_t(v) & mask;
        } else {
          r = (in.op == Op::Add ? au + bu : au - bu) & mask;
        }
        break;
      case Op::Mul: case Op::Mad: {
        uint64_t p;
        unsigned rbytes = bytes;
        if (in.flags & F_HI) {
          p = mul_hi(sgn, bytes, as, bs, au, bu);
        } else if (in.flags & F_WIDE) {
          rbytes = bytes * 2;
          p = sgn ? uint64_t(as * bs) : au * bu;
        } else {
          p = au * bu;
        }
        uint64_t rm = width_mask(rbytes);
        if (in.op == Op::Mad) {
          uint64_t c = get(w, o[3], l);
          if ((in.flags & F_SAT) && t == Ty::S32 && (in.flags & F_HI)) {
            int64_t v = sext(p, 4) + sext(c, 4);
            v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
            p = uint64_t(v);
          } else {
            p += c;
          }
        }
        r = p & rm;
        break;
      }
      case Op::Div: case Op::Rem:
        // PTX leaves division by zero undefined; the interpreter gives an
        // all-ones quotient and the dividend as remainder.
        if (bu == 0) {
          r = in.op == Op::Div ? mask : au;
        } else if (sgn) {
          if (bs == -1) r = in.op == Op::Div ? uint64_t(-uint64_t(as)) & mask : 0;  // no overflow trap
          else r = uint64_t(in.op == Op::Div ? as / bs : as % bs) & mask;
        } else {
          r = in.op == Op::Div ? au / bu : au % bu;
        }
        break;
      case Op::Min: r = (sgn ? as < bs : au < bu) ? au : bu; break;
      case Op::Max: r = (sgn ? as > bs : au > bu) ? au : bu; break;
      case Op::Abs: r = (as < 0 ? uint64_t(0) - au : au) & mask; break;
      case Op::Neg: r = (uint64_t(0) - au) & mask; break;
      case Op::Shl: r = bu >= bits ? 0 : (au << bu) & mask; break;
      case Op::Shr:
        if (sgn) r = uint64_t(bu >= bits ? (as < 0 ? -1 : 0) : as >> bu) & mask;
        else r = bu >= bits ? 0 : au >> bu;
        break;
      case Op::Shf: {
        uint64_t n = get(w, o[3], l) & 0xffffffffu;
        n = (in.flags & F_WRAP) ? n & 31 : (n > 32 ? 32 : n);
        uint64_t both = ((b & 0xffffffffu) << 32) | (a & 0xffffffffu);
        r = (in.flags & F_LEFT) ? (n == 0 ? b : ((both << n) >> 32)) & 0xffffffffu : (both >> n) & 0xffffffffu;
        break;
      }
      case Op::Bfe: {
        unsigned msb = bits - 1;
        unsigned pos = unsigned(b & 0xff), len = unsigned(get(w, o[3], l) & 0xff);
        bool sbit = false;
        if (sgn && len != 0) sbit = (au >> std::min(pos + len - 1, msb)) & 1;
        r = 0;
        for (unsigned i = 0; i <= msb; ++i) {
          bool bit = (i < len && pos + i <= msb) ? (au >> (pos + i)) & 1 : sbit;
          r |= uint64_t(bit) << i;
        }
        break;
      }
      case Op::Bfi: {
        unsigned msb = bits - 1;
        unsigned pos = unsigned(get(w, o[3], l) & 0xff), len = unsigned(get(w, o[4], l) & 0xff);
        r = bu;
        for (unsigned i = 0; i < len && pos + i <= msb; ++i)
          r = (r & ~(uint64_t(1) << (pos + i))) | (((au >> i) & 1) << (pos + i));
        break;
      }
      case Op::Popc: r = uint64_t(__builtin_popcountll(au)); break;
      case Op::Clz: r = au == 0 ? bits : uint64_t(__builtin_clzll(au) - (64 - int(bits))); break;
      case Op::Brev: r = brev(au, bits); break;
      case Op::Prmt: {
        uint64_t c = get(w, o[3], l);
        uint64_t all = ((b & 0xffffffffu) << 32) | (a & 0xffffffffu);
        r = 0;
        for (int i = 0; i < 4; ++i) {
          unsigned sel = unsigned(c >> (4 * i)) & 0xf;
          uint64_t byte = (all >> (8 * (sel & 7))) & 0xff;
          if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
          r |= byte << (8 * i);
        }
        break;
      }
      case Op::Lop3: {
        uint64_t c = get(w, o[3], l) & mask, lut = get(w, o[4], l) & 0xff;
        r = 0;
        for (int k = 0; k < 8; ++k) {
          if (!((lut >> k) & 1)) continue;
          uint64_t x = (k & 4 ? au : ~au) & (k & 2 ? bu : ~bu) & (k & 1 ? c : ~c);
          r |= x;
        }
        r &= mask;
        break;
      }
      default:
        fault(FaultKind::Unsupported, w, l, in, "no integer form of this instruction");
    }
    put(w, o[0], l, r);
  });
}

}  // namespace ptoas::ptx
