// Interpreter: elementwise ops. Tile-tile binary, unary, tile-scalar,
// fused multi-term ops, TPART*, compare (TCMP/TCMPS) and select (TSEL/TSELS),
// TEXPANDS. Domain: the dst valid region; sources are read at the same (r, c)
// through their own layouts (docs/semantics.md §1-§4).
#include <cmath>
#include <cstring>
#include <vector>

#include "ops_common.h"

namespace ptoas::rt {

using namespace ops;

namespace {

Bin bin_of(Op op) {
  switch (op) {
    case Op::TAdd: case Op::TAddS: case Op::TPartAdd: return Bin::Add;
    case Op::TSub: case Op::TSubS: return Bin::Sub;
    case Op::TMul: case Op::TMulS: case Op::TPartMul: return Bin::Mul;
    case Op::TDiv: case Op::TDivS: return Bin::Div;
    case Op::TMax: case Op::TMaxS: case Op::TPartMax: return Bin::Max;
    case Op::TMin: case Op::TMinS: case Op::TPartMin: return Bin::Min;
    case Op::TRem: case Op::TRemS: return Bin::Rem;
    case Op::TFmod: case Op::TFmodS: return Bin::Fmod;
    case Op::TPow: case Op::TPowS: return Bin::Pow;
    case Op::TAnd: case Op::TAndS: return Bin::And;
    case Op::TOr: case Op::TOrS: return Bin::Or;
    case Op::TXor: case Op::TXorS: return Bin::Xor;
    case Op::TShl: case Op::TShlS: return Bin::Shl;
    case Op::TShr: case Op::TShrS: return Bin::Shr;
    default: return Bin::Add;
  }
}

// ---- tile-tile binary ---------------------------------------------------------------

void tile_tile(Exec& ex, const Inst& in) {
  Bin op = bin_of(in.op);
  TileAcc d = ex.out_tile(in, 0), a = ex.in_tile(in, 0), b = ex.in_tile(in, 1);
  need_phys(ex, in, a, d.vrow, d.vcol, "first source");
  need_phys(ex, in, b, d.vrow, d.vcol, "second source");
  bool fl = is_float(d.elem);
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c) {
      if (fl) d.setf(r, c, fbin(ex, in, op, num_f(a, r, c), num_f(b, r, c)));
      else d.seti(r, c, ibin(ex, in, op, d.elem, num_i(a, r, c), num_i(b, r, c)));
    }
}

// ---- tile-scalar ------------------------------------------------------------------------

void tile_scalar(Exec& ex, const Inst& in) {
  Bin op = bin_of(in.op);
  // tdivs also comes as ins(%s, %tile): scalar / tile.
  bool scalar_first = !is_tile(ex, ex.in_id(in, 0));
  unsigned ti = scalar_first ? 1 : 0, si = scalar_first ? 0 : 1;
  TileAcc d = ex.out_tile(in, 0), a = ex.in_tile(in, ti);
  need_phys(ex, in, a, d.vrow, d.vcol, "source");
  bool fl = is_float(d.elem);
  ValueId sv = ex.in_id(in, si);
  double sf = fl ? ex.scalar_f(in, sv) : 0;
  int64_t si64 = fl ? 0 : ex.scalar_i(in, sv);
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c) {
      if (fl) {
        double x = num_f(a, r, c);
        d.setf(r, c, scalar_first ? fbin(ex, in, op, sf, x) : fbin(ex, in, op, x, sf));
      } else {
        int64_t x = num_i(a, r, c);
        d.seti(r, c, scalar_first ? ibin(ex, in, op, d.elem, si64, x)
                                  : ibin(ex, in, op, d.elem, x, si64));
      }
    }
}

void texpands(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0);
  ValueId sv = ex.in_id(in, 0);
  bool fl = is_float(d.elem);
  double sf = fl ? ex.scalar_f(in, sv) : 0;
  int64_t si = fl ? 0 : ex.scalar_i(in, sv);
  // A broadcast copies the scalar's bits (a signalling NaN that
  // pto.load_scalar read stays one, as the CPU targets' broadcasts keep it).
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c) {
      if (fl) store_f_bits(d.at(r, c), d.elem, sf);
      else d.seti(r, c, si);
    }
}

// ---- unary ----------------------------------------------------------------------------------

void unary(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0), a = ex.in_tile(in, 0);
  need_phys(ex, in, a, d.vrow, d.vcol, "source");
  bool fl = is_float(d.elem);
  Op op = in.op;
  if (op == Op::TExp || op == Op::TLog || op == Op::TSqrt || op == Op::TRsqrt)
    need_float(ex, in, d.elem);
  if (op == Op::TNot) need_int(ex, in, d.elem);
  bool u = dtype_is_unsigned(d.elem);
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c) {
      if (fl) {
        double x = num_f(a, r, c), y = 0;
        switch (op) {
          case Op::TAbs: y = std::fabs(x); break;
          case Op::TNeg: y = -x; break;
          case Op::TRelu: y = fmax_std(x, 0.0); break;  // std::max(x, 0): NaN, -0 kept
          case Op::TExp: y = std::exp(x); break;
          case Op::TLog: y = std::log(x); break;
          case Op::TSqrt: y = std::sqrt(x); break;
          case Op::TRsqrt: y = 1.0 / std::sqrt(x); break;
          case Op::TRecip: y = 1.0 / x; break;
          default: break;
        }
        d.setf(r, c, y);
      } else {
        int64_t x = num_i(a, r, c), y = 0;
        switch (op) {
          case Op::TAbs: y = (!u && x < 0) ? int64_t(0 - uint64_t(x)) : x; break;
          case Op::TNeg: y = int64_t(0 - uint64_t(x)); break;
          case Op::TNot: y = ~x; break;
          case Op::TRelu: y = (!u && x < 0) ? 0 : x; break;
          case Op::TRecip: y = ibin(ex, in, Bin::Div, d.elem, 1, x); break;
          default: break;
        }
        d.seti(r, c, y);
      }
    }
}

// ---- fused / multi-term ------------------------------------------------------------------
// Each IEEE operation is rounded to the element type in turn (the operations
// are evaluated left to right in T, as the CPU simulator does).

double rnd(DType d, double v) { return round_to(d, v); }

// IEEE add / sub / mul with the NaN result pinned (ops_common.h nan_first).
double add_l(double a, double b) { return nan_first(a, b, a + b); }
double sub_l(double a, double b) { return nan_first(a, b, a - b); }
double mul_l(double a, double b) { return nan_first(a, b, a * b); }

void fused(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0);
  DType T = d.elem;
  bool fl = is_float(T);
  Op op = in.op;
  if (op == Op::TMulAddDst || op == Op::TFusedMulAdd || op == Op::TFusedMulAddRelu ||
      op == Op::TSubRelu || op == Op::TLRelu || op == Op::TPrelu || op == Op::TAxpy)
    need_float(ex, in, T);
  // Operands: tiles or scalars by position.
  std::vector<TileAcc> t;
  std::vector<double> sf;
  std::vector<int64_t> si;
  std::vector<int> kind;  // per input: index into t (>= 0) or ~index into scalars
  unsigned n_used = in.n_ins;
  if (op == Op::TPrelu) n_used = 2;  // the tmp tile is scratch
  for (unsigned i = 0; i < n_used; ++i) {
    ValueId v = ex.in_id(in, i);
    if (is_tile(ex, v)) {
      t.push_back(ex.tile(in, v));
      need_phys(ex, in, t.back(), d.vrow, d.vcol, "source");
      kind.push_back(int(t.size() - 1));
    } else {
      sf.push_back(fl ? ex.scalar_f(in, v) : 0);
      si.push_back(fl ? 0 : ex.scalar_i(in, v));
      kind.push_back(~int(sf.size() - 1));
    }
  }
  auto F = [&](unsigned i, int64_t r, int64_t c) {
    return kind[i] >= 0 ? num_f(t[size_t(kind[i])], r, c) : sf[size_t(~kind[i])];
  };
  auto I = [&](unsigned i, int64_t r, int64_t c) {
    return kind[i] >= 0 ? num_i(t[size_t(kind[i])], r, c) : si[size_t(~kind[i])];
  };
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c) {
      if (fl) {
        double y = 0;
        switch (op) {
          case Op::TAddC: y = add_l(rnd(T, add_l(F(0, r, c), F(1, r, c))), F(2, r, c)); break;
          case Op::TSubC: y = add_l(rnd(T, sub_l(F(0, r, c), F(1, r, c))), F(2, r, c)); break;
          case Op::TAddSC: y = add_l(rnd(T, add_l(F(0, r, c), F(1, r, c))), F(2, r, c)); break;
          case Op::TSubSC: y = add_l(rnd(T, sub_l(F(0, r, c), F(1, r, c))), F(2, r, c)); break;
          case Op::TMulAddDst: y = add_l(rnd(T, mul_l(F(0, r, c), F(1, r, c))), d.getf(r, c)); break;
          case Op::TFusedMulAdd: y = add_l(rnd(T, mul_l(F(0, r, c), d.getf(r, c))), F(1, r, c)); break;
          case Op::TFusedMulAddRelu: {
            double v = rnd(T, add_l(rnd(T, mul_l(F(0, r, c), d.getf(r, c))), F(1, r, c)));
            y = v > 0 ? v : 0;
            break;
          }
          case Op::TSubRelu: {
            double v = rnd(T, sub_l(F(0, r, c), F(1, r, c)));
            y = v > 0 ? v : 0;
            break;
          }
          case Op::TLRelu:
          case Op::TPrelu: {
            double x = F(0, r, c);
            y = x > 0 ? x : mul_l(x, F(1, r, c));
            break;
          }
          case Op::TAxpy: {
            // dst = s * src + dst; the product is formed in the src type.
            DType st = t[0].elem;
            y = add_l(rnd(st, mul_l(F(1, r, c), F(0, r, c))), d.getf(r, c));
            break;
          }
          default: break;
        }
        d.setf(r, c, y);
      } else {
        auto add = [](int64_t x, int64_t z) { return int64_t(uint64_t(x) + uint64_t(z)); };
        auto sub = [](int64_t x, int64_t z) { return int64_t(uint64_t(x) - uint64_t(z)); };
        int64_t y = 0;
        switch (op) {
          case Op::TAddC: case Op::TAddSC: y = add(add(I(0, r, c), I(1, r, c)), I(2, r, c)); break;
          case Op::TSubC: case Op::TSubSC: y = add(sub(I(0, r, c), I(1, r, c)), I(2, r, c)); break;
          default: need_float(ex, in, T);
        }
        d.seti(r, c, y);
      }
    }
}

// ---- TPART*: op where both sources are valid, else the valid one, else 0 -----------------

void part(Exec& ex, const Inst& in) {
  Bin op = bin_of(in.op);
  TileAcc d = ex.out_tile(in, 0), a = ex.in_tile(in, 0), b = ex.in_tile(in, 1);
  bool fl = is_float(d.elem);
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c) {
      bool va = r < a.vrow && c < a.vcol, vb = r < b.vrow && c < b.vcol;
      if (fl) {
        double y = 0;
        if (va && vb) y = fbin(ex, in, op, num_f(a, r, c), num_f(b, r, c));
        else if (va) y = num_f(a, r, c);
        else if (vb) y = num_f(b, r, c);
        d.setf(r, c, y);
      } else {
        int64_t y = 0;
        if (va && vb) y = ibin(ex, in, op, d.elem, num_i(a, r, c), num_i(b, r, c));
        else if (va) y = num_i(a, r, c);
        else if (vb) y = num_i(b, r, c);
        d.seti(r, c, y);
      }
    }
}

// ---- compare ---------------------------------------------------------------------------------

enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

Cmp cmp_mode(Exec& ex, const Inst& in) {
  std::string_view w = ex.m.attr_word(in, "cmpMode");
  if (w.empty() || w == "eq" || w == "EQ") return Cmp::Eq;
  if (w == "ne" || w == "NE") return Cmp::Ne;
  if (w == "lt" || w == "LT") return Cmp::Lt;
  if (w == "le" || w == "LE") return Cmp::Le;
  if (w == "gt" || w == "GT") return Cmp::Gt;
  if (w == "ge" || w == "GE") return Cmp::Ge;
  ex.fail(in, std::string(op_name(in.op)) + ": unknown cmpMode '" + std::string(w) + "'");
}

template <class T>
bool cmp_apply(Cmp m, T a, T b) {
  switch (m) {
    case Cmp::Eq: return a == b;
    case Cmp::Ne: return a != b;  // true with a NaN
    case Cmp::Lt: return a < b;
    case Cmp::Le: return a <= b;
    case Cmp::Gt: return a > b;
    case Cmp::Ge: return a >= b;
  }
  return false;
}

// dst = packed bit mask of (src0[r,c] cmp rhs), row-aligned: bit (c % B) of
// dst[r, c / B] with B = 8 * sizeof(dst element), LSB first; dst's whole
// storage is zeroed first.
void compare(Exec& ex, const Inst& in) {
  Cmp mode = cmp_mode(ex, in);
  TileAcc d = ex.out_tile(in, 0), a = ex.in_tile(in, 0);
  need_int(ex, in, d.elem);
  ValueId rv = ex.in_id(in, 1);
  bool rhs_tile = is_tile(ex, rv);
  TileAcc b = rhs_tile ? ex.tile(in, rv) : a;
  if (rhs_tile) need_phys(ex, in, b, a.vrow, a.vcol, "second source");
  DType st = a.elem;
  bool fl = is_float(st);
  double sf = (!rhs_tile && fl) ? ex.scalar_f(in, rv) : 0;
  int64_t si = (!rhs_tile && !fl) ? ex.scalar_i(in, rv) : 0;
  unsigned bits = d.esize * 8;
  int64_t words = (int64_t(a.vcol) + bits - 1) / bits;
  words = std::min<int64_t>(words, d.vcol);
  need_phys(ex, in, d, a.vrow, words, "mask");
  zero_storage(d);
  for (int64_t r = 0; r < a.vrow; ++r)
    for (int64_t w = 0; w < words; ++w) {
      uint64_t word = 0;
      for (unsigned k = 0; k < bits; ++k) {
        int64_t c = w * bits + k;
        if (c >= a.vcol) break;
        bool bit;
        if (fl) {
          bit = cmp_apply<double>(mode, num_f(a, r, c), rhs_tile ? num_f(b, r, c) : sf);
        } else {
          int64_t x = num_i(a, r, c), y = rhs_tile ? num_i(b, r, c) : si;
          bit = st == DType::U64 ? cmp_apply<uint64_t>(mode, uint64_t(x), uint64_t(y))
                                 : cmp_apply<int64_t>(mode, x, y);
        }
        if (bit) word |= uint64_t(1) << k;
      }
      d.seti(r, w, int64_t(word));
    }
}

// ---- select ------------------------------------------------------------------------------------

// The canonical mask (TCMP's layout): bit (c % B) of mask[r, c / B].
bool mask_bit(const TileAcc& m, int64_t r, int64_t c) {
  unsigned bits = m.esize * 8;
  uint64_t word = uint64_t(m.geti(r, c / bits));
  return (word >> (c % bits)) & 1;
}

void select(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0), m = ex.in_tile(in, 0), a = ex.in_tile(in, 1);
  need_int(ex, in, m.elem);
  unsigned bits = m.esize * 8;
  need_phys(ex, in, m, d.vrow, (int64_t(d.vcol) + bits - 1) / bits, "mask");
  need_phys(ex, in, a, d.vrow, d.vcol, "first source");
  bool scalar = in.op == Op::TSelS;
  TileAcc b = a;
  double sf = 0;
  int64_t si = 0;
  if (!scalar) {
    b = ex.in_tile(in, 2);
    need_phys(ex, in, b, d.vrow, d.vcol, "second source");
  } else {
    ValueId sv = ex.in_id(in, in.n_ins - 1);
    if (is_float(d.elem)) sf = ex.scalar_f(in, sv);
    else si = ex.scalar_i(in, sv);
  }
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c) {
      bool bit = mask_bit(m, r, c);
      if (bit || !scalar) {
        const TileAcc& s = bit ? a : b;
        move_elem(d.at(r, c), d.elem, s.at(r, c), s.elem, false);
      } else if (is_float(d.elem)) {
        d.setf(r, c, sf);
      } else {
        d.seti(r, c, si);
      }
    }
}

}  // namespace

void register_elementwise_ops(HandlerTable& t) {
  for (Op op : {Op::TAdd, Op::TSub, Op::TMul, Op::TDiv, Op::TMax, Op::TMin, Op::TRem, Op::TFmod,
                Op::TPow, Op::TAnd, Op::TOr, Op::TXor, Op::TShl, Op::TShr})
    t[size_t(op)] = tile_tile;
  for (Op op : {Op::TAddS, Op::TSubS, Op::TMulS, Op::TDivS, Op::TMaxS, Op::TMinS, Op::TFmodS,
                Op::TRemS, Op::TPowS, Op::TAndS, Op::TOrS, Op::TXorS, Op::TShlS, Op::TShrS})
    t[size_t(op)] = tile_scalar;
  t[size_t(Op::TExpandS)] = texpands;
  for (Op op : {Op::TAbs, Op::TNeg, Op::TNot, Op::TRelu, Op::TExp, Op::TLog, Op::TSqrt,
                Op::TRsqrt, Op::TRecip})
    t[size_t(op)] = unary;
  for (Op op : {Op::TAddC, Op::TSubC, Op::TAddSC, Op::TSubSC, Op::TMulAddDst, Op::TFusedMulAdd,
                Op::TFusedMulAddRelu, Op::TSubRelu, Op::TLRelu, Op::TPrelu, Op::TAxpy})
    t[size_t(op)] = fused;
  for (Op op : {Op::TPartAdd, Op::TPartMul, Op::TPartMax, Op::TPartMin}) t[size_t(op)] = part;
  t[size_t(Op::TCmp)] = compare;
  t[size_t(Op::TCmpS)] = compare;
  t[size_t(Op::TSel)] = select;
  t[size_t(Op::TSelS)] = select;
}

}  // namespace ptoas::rt
