// The instruction decoder's helpers, shared by parse_inst.cpp (opcodes,
// control) and parse_ops.cpp (arithmetic, memory, warp instructions).
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "fp.h"
#include "parse.h"

namespace ptoas::ptx {

bool ignorable_modifier(std::string_view w);
bool cmp_word(std::string_view w, Cmp& c);

// Decodes one instruction for Parser::decode.
struct Decoder {
  Decoder(Parser& p, const Token& t, std::vector<ParsedOpnd>& o, Inst& i) : P(p), opc(t), ops(o), in(i) {}
  Parser& P;
  const Token& opc;
  std::vector<ParsedOpnd>& ops;
  Inst& in;
  std::string_view base;
  std::vector<std::string_view> mods;
  std::vector<Opnd> out;

  bool fail(const std::string& msg) {
    P.error_at(opc.line, opc.col, msg);
    return false;
  }
  bool fail_at(const ParsedOpnd& po, const std::string& msg) {
    P.error_at(po.line, po.col, msg);
    return false;
  }

  // --- modifiers ---
  bool take(std::string_view w) {
    auto it = std::find(mods.begin(), mods.end(), w);
    if (it == mods.end()) return false;
    mods.erase(it);
    return true;
  }
  // The type words, in order (cvt: dst, src; mma: d, a, b, c).
  std::vector<Ty> take_types() {
    std::vector<Ty> v;
    for (auto it = mods.begin(); it != mods.end();) {
      Ty t;
      if (type_word(std::string(".") + std::string(*it), t)) {
        v.push_back(t);
        it = mods.erase(it);
      } else {
        ++it;
      }
    }
    return v;
  }
  Rnd take_rnd() {
    static const std::pair<const char*, Rnd> k[] = {{"rn", Rnd::RN},   {"rz", Rnd::RZ},   {"rm", Rnd::RM},
                                                    {"rp", Rnd::RP},   {"rna", Rnd::RNA}, {"rni", Rnd::RNI},
                                                    {"rzi", Rnd::RZI}, {"rmi", Rnd::RMI}, {"rpi", Rnd::RPI}};
    for (auto& [n, r] : k)
      if (take(n)) return r;
    return Rnd::None;
  }
  Space take_space() {
    if (take("global")) return Space::Global;
    if (take("shared") || take("shared::cta")) return Space::Shared;
    if (take("local")) return Space::Local;
    if (take("param") || take("param::entry")) return Space::Param;
    if (take("const")) return Space::Const;
    return Space::Generic;
  }
  // The first of `words` among the modifiers: its index into in.mode;
  // false when none is there.
  bool take_mode(std::initializer_list<const char*> words) {
    int i = 0;
    for (const char* w : words) {
      if (take(w)) {
        in.mode = uint8_t(i);
        return true;
      }
      ++i;
    }
    return false;
  }
  // An absent second destination (d|p, p|q) as a sink operand.
  void sink() {
    Opnd s;
    s.kind = Opnd::Sink;
    out.push_back(s);
  }
  void flag(const char* w, uint32_t f) {
    if (take(w)) in.flags |= f;
  }
  bool done() {
    for (auto it = mods.begin(); it != mods.end();)
      it = ignorable_modifier(*it) ? mods.erase(it) : it + 1;
    if (!mods.empty())
      return fail("unsupported modifier '." + std::string(mods.front()) + "' for '" + std::string(opc.text) + "'");
    return true;
  }
  bool one_type(std::initializer_list<Ty> allowed) {
    std::vector<Ty> t = take_types();
    if (t.size() != 1) return fail("'" + std::string(opc.text) + "' needs exactly one type");
    in.type = t[0];
    if (allowed.size() && std::find(allowed.begin(), allowed.end(), t[0]) == allowed.end())
      return fail(std::string("type ") + ty_name(t[0]) + " is not supported for '" + std::string(base) + "'");
    return true;
  }

  // --- operands ---
  bool count(size_t lo, size_t hi) {
    if (ops.size() < lo || ops.size() > hi)
      return fail("'" + std::string(opc.text) + "' takes " +
                  (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                  " operands, found " + std::to_string(ops.size()));
    return true;
  }
  // A literal read as a value of type t.
  bool literal(const ParsedOpnd& po, Ty t, Opnd& o) {
    o = po.o;
    if (po.o.sym_space != Space::Generic) return true;  // a variable's address
    bool flt = ty_float(t) && t != Ty::F16x2 && t != Ty::BF16x2;
    double v = 0;
    switch (po.lit) {
      case ParsedOpnd::Int:
        if (!flt) return true;
        v = double(po.o.imm);
        break;
      // 0f / 0d literals of their own width are exact bit patterns (a NaN
      // payload included, as ptxas takes them); only a literal of the other
      // width is converted.
      case ParsedOpnd::F32Bits:
        if (!flt || t == Ty::F32) return true;
        v = fp::f32(uint32_t(po.o.imm));
        break;
      case ParsedOpnd::F64Bits:
        if (!flt || t == Ty::F64) return true;
        v = fp::f64(uint64_t(po.o.imm));
        break;
      case ParsedOpnd::Decimal:
        if (!flt) return fail_at(po, "a floating-point literal needs a floating-point instruction type");
        v = po.dec;
        break;
    }
    if (t == Ty::F64) o.imm = int64_t(fp::bits(v));
    else if (t == Ty::F32) o.imm = int64_t(fp::round(v, 0, fp::Mode::RN, fp::kF32));
    else if (t == Ty::F16) o.imm = int64_t(fp::round(v, 0, fp::Mode::RN, fp::kF16));
    else if (t == Ty::BF16) o.imm = int64_t(fp::round(v, 0, fp::Mode::RN, fp::kBF16));
    else o.imm = int64_t(fp::round(v, 0, fp::Mode::RN, fp::kF32));
    return true;
  }
  bool dst(size_t i) {
    const ParsedOpnd& po = ops[i];
    if (po.o.kind != Opnd::Reg && po.o.kind != Opnd::Sink)
      return fail_at(po, "operand " + std::to_string(i + 1) + " of '" + std::string(opc.text) + "' must be a register");
    out.push_back(po.o);
    return true;
  }
  bool pdst(size_t i) {
    const ParsedOpnd& po = ops[i];
    if ((po.o.kind != Opnd::Pred || po.o.neg) && po.o.kind != Opnd::Sink)
      return fail_at(po, "operand " + std::to_string(i + 1) + " of '" + std::string(opc.text) + "' must be a predicate register");
    out.push_back(po.o);
    return true;
  }
  bool src(size_t i, Ty t) {
    const ParsedOpnd& po = ops[i];
    Opnd o;
    switch (po.o.kind) {
      case Opnd::Reg: case Opnd::Special: out.push_back(po.o); return true;
      case Opnd::Imm:
        if (!literal(po, t, o)) return false;
        out.push_back(o);
        return true;
      case Opnd::Pred:
        if (t == Ty::Pred) {
          out.push_back(po.o);
          return true;
        }
        break;
      case Opnd::Label:
        return fail_at(po, "unknown symbol '" + std::string(po.sym) + "'");
      default: break;
    }
    return fail_at(po, "operand " + std::to_string(i + 1) + " of '" + std::string(opc.text) + "' must be a register or a constant");
  }
  bool psrc(size_t i) {
    const ParsedOpnd& po = ops[i];
    if (po.o.kind == Opnd::Pred) {
      out.push_back(po.o);
      return true;
    }
    if (po.o.kind == Opnd::Imm && po.lit == ParsedOpnd::Int && (po.o.imm == 0 || po.o.imm == 1)) {
      out.push_back(po.o);
      return true;
    }
    return fail_at(po, "operand " + std::to_string(i + 1) + " of '" + std::string(opc.text) + "' must be a predicate");
  }
  bool addr(size_t i, Space sp) {
    const ParsedOpnd& po = ops[i];
    if (po.o.kind != Opnd::Addr)
      return fail_at(po, "operand " + std::to_string(i + 1) + " of '" + std::string(opc.text) + "' must be an address [..]");
    Opnd o = po.o;
    if (!o.has_base && o.sym_space != Space::Generic) {
      Space vs = o.sym_space;
      if (sp == Space::Generic) {
        if (vs == Space::Shared) o.imm += int64_t(kSharedWindow);
        else if (vs == Space::Local) o.imm += int64_t(kLocalWindow);
        else if (vs == Space::Param) return fail_at(po, "a kernel parameter is read with ld.param");
      } else if (vs != sp && !(vs == Space::Const && sp == Space::Global) && !(vs == Space::Global && sp == Space::Const)) {
        return fail_at(po, "this variable is not in the instruction's state space");
      }
    }
    if (sp == Space::Param && o.has_base)
      return fail_at(po, "ld.param takes a parameter name, not a register address");
    out.push_back(o);
    return true;
  }
  // A {..} operand of n registers (dest: sinks allowed) or a single
  // register when n == 1 and single is allowed.
  bool vec(size_t i, size_t n, bool dest, Ty t) {
    const ParsedOpnd& po = ops[i];
    if (po.o.kind != Opnd::Vec || po.elems.size() != n)
      return fail_at(po, "operand " + std::to_string(i + 1) + " of '" + std::string(opc.text) + "' must be a vector of " +
                             std::to_string(n) + " registers");
    Opnd v;
    v.kind = Opnd::Vec;
    v.count = uint16_t(n);
    v.reg = uint32_t(P.entry().ops.size());
    std::vector<Opnd> el;
    for (const ParsedOpnd& e : po.elems) {
      Opnd o;
      if (e.o.kind == Opnd::Reg || (dest && e.o.kind == Opnd::Sink)) {
        o = e.o;
      } else if (!dest && e.o.kind == Opnd::Imm) {
        if (!literal(e, t, o)) return false;
      } else {
        return fail_at(e, dest ? "a vector destination holds registers (or _)" : "a vector source holds registers or constants");
      }
      el.push_back(o);
    }
    P.entry().ops.insert(P.entry().ops.end(), el.begin(), el.end());
    out.push_back(v);
    return true;
  }
  bool label(size_t i) {
    const ParsedOpnd& po = ops[i];
    if (po.o.kind != Opnd::Label) return fail_at(po, "expected a label");
    Opnd o;
    o.kind = Opnd::Label;
    out.push_back(o);
    label_at = int(out.size()) - 1;
    label_sym = po.sym;
    label_line = po.line;
    label_col = po.col;
    return true;
  }
  int label_at = -1;
  std::string_view label_sym;
  uint32_t label_line = 0, label_col = 0;

  bool run();
  bool arith();
  bool control();
  bool memory();
  bool warp();
};

}  // namespace ptoas::ptx
