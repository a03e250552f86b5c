// Pass `simplify`: tile algebra that is exact under IEEE and the
// interpreter's rules (docs/optimizer.md lists each rewrite and why):
//   * tdivs t, c with c = ±2^k (|k| <= 14) -> tmuls t, 1/c: both compute
//     the same real number x/c and round it once (NaN operands, infinities
//     and signed zeros come out the same), and a multiply is several times
//     cheaper than a divide;
//   * in-place integer identities (tadds/tsubs/tors/txors/tshls/tshrs by
//     0, tmuls by 1, dst == src) are removed.
// Float identities such as x*1 or x+0 are not rewritten: the interpreter's
// float ops quiet signalling NaNs and x+0 turns -0 into +0.
#include <cmath>
#include <cstdio>
#include <string>

#include "ir_edit.h"
#include "passes.h"

namespace ptoas::opt {

namespace {

// A name no value has yet (printed IR must parse back).
StrId fresh_name(Module& m, std::string_view base) {
  std::string name(base);
  for (unsigned i = 1; m.strings.find(name) != kNone; ++i) name = std::string(base) + "_" + std::to_string(i);
  return m.strings.intern(name);
}

// A new `arith.constant v : type` (float) instruction; its result value.
InstId new_float_constant(Module& m, TypeId type, double v, uint32_t loc) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string text = buf;
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  Attr a;
  a.kind = AttrKind::Float;
  a.fval = v;
  a.dtype = m.types.get(type).elem;
  a.text = m.strings.intern(text);
  NamedAttr na{m.strings.intern("value"), m.intern_attr(a)};
  Inst in{};
  in.op = Op::Constant;
  in.n_res = 1;
  in.opnd = uint32_t(m.operands.size());
  in.res = uint32_t(m.values.size());
  in.attrs = uint32_t(m.attrs.size());
  in.n_attrs = 1;
  in.region = kNone;
  in.loc = loc;
  in.form = Form::Dps;
  m.attrs.push_back(na);
  m.values.push_back(Value{type, uint32_t(m.insts.size()), fresh_name(m, "inv"), loc});
  m.insts.push_back(in);
  return InstId(m.insts.size() - 1);
}

// 1/c when c = ±2^k with |k| <= 14 (exact in every float type), else 0.
double exact_reciprocal(double c) {
  if (!std::isfinite(c) || c == 0) return 0;
  int e;
  double f = std::frexp(c, &e);
  if (std::fabs(f) != 0.5 || e - 1 < -14 || e - 1 > 14) return 0;
  return 1.0 / c;
}

bool int_tile(const Module& m, ValueId v) {
  const Type& t = m.type_of(v);
  return t.kind == TypeKind::TileBuf && dtype_is_int(t.elem);
}

// An in-place integer op that leaves its tile unchanged.
bool int_identity(const Module& m, const Inst& in) {
  if (in.n_ins != 2 || in.n_outs != 1 || (in.flags & kInstScalarFirst)) return false;
  ValueId t = m.operand(in, 0), d = m.operand(in, 2);
  if (t != d || !int_tile(m, t)) return false;
  int64_t k;
  if (!int_constant(m, m.operand(in, 1), k)) return false;
  switch (in.op) {
    case Op::TAddS: case Op::TSubS: case Op::TOrS: case Op::TXorS: case Op::TShlS: case Op::TShrS:
      return k == 0;
    case Op::TMulS:
      return k == 1;
    default:
      return false;
  }
}

struct Simplify {
  Module& m;

  void region(RegionId r) {
    std::vector<InstId> list = region_list(m, r), out;
    bool changed = false;
    for (InstId id : list) {
      if (m.insts[id].op == Op::Fuse) {  // only tile ops may live in there
        out.push_back(id);
        continue;
      }
      for (unsigned k = 0; k < m.insts[id].n_regions; ++k) region(m.insts[id].region + k);
      const Inst& in = m.insts[id];
      if (int_identity(m, in)) {
        changed = true;
        continue;
      }
      double c, inv;
      if (in.op == Op::TDivS && in.n_ins == 2 && !(in.flags & kInstScalarFirst) &&
          m.type_of(m.operand(in, 0)).kind == TypeKind::TileBuf &&
          dtype_is_float(m.type_of(m.operand(in, 0)).elem) &&
          float_constant(m, m.operand(in, 1), c) && (inv = exact_reciprocal(c)) != 0) {
        ValueId s = m.operand(in, 1);
        InstId k = new_float_constant(m, m.values[s].type, inv, in.loc);
        out.push_back(k);
        Inst& mul = m.insts[id];
        mul.op = Op::TMulS;
        m.operands[mul.opnd + 1] = m.insts[k].res;
        changed = true;
      }
      out.push_back(id);
    }
    if (changed) set_region_list(m, r, out);
  }
};

}  // namespace

bool pass_simplify(Module& m, const PassContext&) {
  Simplify s{m};
  for (InstId fn : function_defs(m)) s.region(m.insts[fn].region);
  return true;
}

}  // namespace ptoas::opt
