// The IR printer: canonical text. Tile ops in DPS form, tile types in the
// compact `!pto.tile_buf<vec, 16x16xf32, ...>` spelling, the arch in force
// recorded as the module's pto.target_arch. Printing, parsing and printing
// again gives the same bytes (tested over the whole corpus).
#include <string>

#include "frontend.h"
#include "ir.h"

namespace ptoas {

namespace {

bool is_bare_key(std::string_view k) {
  if (k.empty() || !(std::isalpha((unsigned char)k[0]) || k[0] == '_')) return false;
  for (char c : k)
    if (!(std::isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$')) return false;
  return true;
}

class Printer {
 public:
  explicit Printer(const Module& m) : m_(m) {}

  std::string run() {
    out_ += "module";
    if (m_.module_name != kNone) out_ += " " + std::string(m_.str(m_.module_name));
    out_ += " attributes {pto.target_arch = \"";
    out_ += m_.arch == Arch::A5 ? "a5" : "a3";
    out_ += "\"";
    for (const NamedAttr& na : m_.module_attrs) {
      if (m_.str(na.key) == "pto.target_arch") continue;
      out_ += ", ";
      attr(na);
    }
    out_ += "} {\n";
    if (m_.body != kNone) region_body(m_.regions[m_.body], 1);
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  void indent(int n) { out_.append(size_t(n) * 2, ' '); }
  void val(ValueId v) {
    out_ += '%';
    out_ += m_.str(m_.values[v].name);
  }
  void type(TypeId t) { out_ += m_.types.text(t); }
  void vtype(ValueId v) { type(m_.values[v].type); }

  void attr(const NamedAttr& na) {
    std::string_view k = m_.str(na.key);
    if (is_bare_key(k)) out_ += k;
    else out_ += "\"" + std::string(k) + "\"";
    const Attr& a = m_.attr(na.value);
    if (a.kind == AttrKind::Unit) return;
    out_ += " = ";
    out_ += m_.str(a.text);
  }

  // `{a = 1, b}` for the attributes not consumed by the syntax itself.
  void attr_dict(const Inst& in, std::initializer_list<std::string_view> skip = {}) {
    bool first = true;
    for (unsigned i = 0; i < in.n_attrs; ++i) {
      const NamedAttr& na = m_.attrs[in.attrs + i];
      std::string_view k = m_.str(na.key);
      bool skipped = false;
      for (std::string_view s : skip) skipped |= (s == k);
      if (skipped) continue;
      out_ += first ? " {" : ", ";
      first = false;
      attr(na);
    }
    if (!first) out_ += "}";
  }

  void results(const Inst& in) {
    std::vector<ValueId> vs;
    for (unsigned i = 0; i < in.n_res; ++i) vs.push_back(in.res + i);
    result_names(vs);
  }

  // `%a, %g:2 = ` (a run `g#0, g#1` prints as its group).
  void result_names(const std::vector<ValueId>& vs) {
    if (vs.empty()) return;
    for (size_t i = 0; i < vs.size();) {
      if (i) out_ += ", ";
      std::string_view name = m_.str(m_.values[vs[i]].name);
      size_t hash = name.find('#');
      if (hash != std::string_view::npos && name.substr(hash + 1) == "0") {
        std::string_view base = name.substr(0, hash);
        size_t n = 1;
        while (i + n < vs.size()) {
          std::string_view nx = m_.str(m_.values[vs[i + n]].name);
          if (nx != std::string(base) + "#" + std::to_string(n)) break;
          ++n;
        }
        out_ += "%" + std::string(base) + ":" + std::to_string(n);
        i += n;
        continue;
      }
      out_ += "%" + std::string(name);
      ++i;
    }
    out_ += " = ";
  }

  void value_list(const Inst& in, unsigned from, unsigned count) {
    for (unsigned i = 0; i < count; ++i) {
      if (i) out_ += ", ";
      val(m_.operand(in, from + i));
    }
  }

  void typed_tail(const Inst& in, unsigned from, unsigned count) {
    if (count == 0) return;
    out_ += " ";
    value_list(in, from, count);
    out_ += " : ";
    for (unsigned i = 0; i < count; ++i) {
      if (i) out_ += ", ";
      vtype(m_.operand(in, from + i));
    }
  }

  void type_list_paren(const std::vector<TypeId>& ts) {
    out_ += "(";
    for (size_t i = 0; i < ts.size(); ++i) {
      if (i) out_ += ", ";
      type(ts[i]);
    }
    out_ += ")";
  }

  std::vector<TypeId> result_types(const Inst& in) {
    std::vector<TypeId> ts;
    for (unsigned i = 0; i < in.n_res; ++i) ts.push_back(m_.values[in.res + i].type);
    return ts;
  }

  void region_block(const Region& r, int ind, bool print_args) {
    out_ += "{\n";
    if (print_args && r.arg_count) {
      indent(ind);
      out_ += r.label != kNone ? std::string(m_.str(r.label)) : "^bb0";
      out_ += "(";
      for (unsigned i = 0; i < r.arg_count; ++i) {
        if (i) out_ += ", ";
        ValueId a = m_.region_arg(r, i);
        val(a);
        out_ += ": ";
        vtype(a);
      }
      out_ += "):\n";
    }
    region_body(r, ind + 1);
    indent(ind);
    out_ += "}";
  }

  void region_body(const Region& r, int ind) {
    for (unsigned i = 0; i < r.inst_count; ++i) {
      if (unsigned n = ssa_group(r, i)) {
        ssa_op(m_.region_inst(r, i + n), ind);
        i += n;
        continue;
      }
      inst(m_.region_inst(r, i), ind);
    }
  }

  // The implicit allocations of an SSA-form tile op (Form::Ssa, directly
  // before the op whose destinations they are, in order): how many start at
  // `i`, or 0 when the op must print in DPS form.
  unsigned ssa_group(const Region& r, unsigned i) const {
    unsigned n = 0;
    while (i + n < r.inst_count) {
      const Inst& a = m_.inst(m_.region_inst(r, i + n));
      if (a.op != Op::AllocTile || a.form != Form::Ssa || a.n_res != 1 || a.n_ins) break;
      ++n;
    }
    if (n == 0 || i + n >= r.inst_count) return 0;
    const Inst& op = m_.inst(m_.region_inst(r, i + n));
    if (op_info(op.op).syn != Syn::Dps || op.form != Form::Ssa || op.n_outs != n) return 0;
    for (unsigned k = 0; k < n; ++k)
      if (m_.operand(op, op.n_ins + k) != m_.inst(m_.region_inst(r, i + k)).res) return 0;
    return n;
  }

  // `%r = pto.treshape %s {attrs} : (T) -> U`.
  void ssa_op(InstId id, int ind) {
    const Inst& in = m_.inst(id);
    indent(ind);
    std::vector<ValueId> outs;
    for (unsigned k = 0; k < in.n_outs; ++k) outs.push_back(m_.operand(in, in.n_ins + k));
    result_names(outs);
    out_ += op_info(in.op).name;
    if (in.n_ins) out_ += " ";
    value_list(in, 0, in.n_ins);
    attr_dict(in);
    out_ += " : (";
    for (unsigned k = 0; k < in.n_ins; ++k) {
      if (k) out_ += ", ";
      vtype(m_.operand(in, k));
    }
    out_ += ") -> ";
    if (in.n_outs != 1) out_ += "(";
    for (unsigned k = 0; k < in.n_outs; ++k) {
      if (k) out_ += ", ";
      vtype(m_.operand(in, in.n_ins + k));
    }
    if (in.n_outs != 1) out_ += ")";
    out_ += "\n";
  }

  void dps_group(const char* kw, const Inst& in, unsigned from, unsigned count) {
    out_ += kw;
    out_ += "(";
    value_list(in, from, count);
    if (count) {
      out_ += " : ";
      for (unsigned i = 0; i < count; ++i) {
        if (i) out_ += ", ";
        vtype(m_.operand(in, from + i));
      }
    }
    out_ += ")";
  }

  void inst(InstId id, int ind) {
    const Inst& in = m_.inst(id);
    const OpInfo& info = op_info(in.op);
    // A block header sits one level out, as MLIR prints it.
    indent(info.syn == Syn::Block && ind > 0 ? ind - 1 : ind);
    switch (info.syn) {
      case Syn::Module: {
        out_ += "module";
        if (const Attr* nm = m_.find_attr(in, "sym_name")) out_ += " " + std::string(m_.str(nm->text));
        bool any = false;
        for (unsigned i = 0; i < in.n_attrs; ++i)
          any |= m_.str(m_.attrs[in.attrs + i].key) != "sym_name";
        if (any) {
          out_ += " attributes";
          attr_dict(in, {"sym_name"});
        }
        out_ += " ";
        if (in.n_regions) region_block(m_.region(in, 0), ind, false);
        else out_ += "{\n" + std::string(size_t(ind) * 2, ' ') + "}";
        break;
      }
      case Syn::Func: {
        out_ += "func.func ";
        std::string_view vis = m_.attr_word(in, "sym_visibility");
        if (!vis.empty()) out_ += std::string(vis) + " ";
        out_ += "@" + std::string(m_.attr_word(in, "sym_name"));
        out_ += "(";
        if (in.n_regions) {
          const Region& r = m_.region(in, 0);
          for (unsigned i = 0; i < r.arg_count; ++i) {
            if (i) out_ += ", ";
            ValueId a = m_.region_arg(r, i);
            val(a);
            out_ += ": ";
            vtype(a);
          }
        } else {
          for (unsigned i = 0; i < in.n_ins; ++i) {  // a declaration: the types
            if (i) out_ += ", ";
            type(m_.type_lists[in.opnd + in.n_outs + i]);
          }
        }
        out_ += ")";
        if (in.n_outs) {
          out_ += " -> ";
          if (in.n_outs == 1) type(m_.type_lists[in.opnd]);
          else type_list_paren({m_.type_lists.begin() + in.opnd,
                                m_.type_lists.begin() + in.opnd + in.n_outs});
        }
        bool any = false;
        for (unsigned i = 0; i < in.n_attrs; ++i) {
          std::string_view k = m_.str(m_.attrs[in.attrs + i].key);
          if (k != "sym_name" && k != "sym_visibility") any = true;
        }
        if (any) {
          out_ += " attributes";
          attr_dict(in, {"sym_name", "sym_visibility"});
        }
        if (in.n_regions) {
          out_ += " ";
          region_block(m_.region(in, 0), ind, false);
        }
        out_ += "\n";
        return;
      }
      case Syn::Block:
        out_ += m_.attr_word(in, "label");
        if (in.n_res) {
          out_ += "(";
          for (unsigned i = 0; i < in.n_res; ++i) {
            if (i) out_ += ", ";
            val(in.res + i);
            out_ += ": ";
            vtype(in.res + i);
          }
          out_ += ")";
        }
        out_ += ":";
        break;
      case Syn::Return:
        out_ += "return";
        typed_tail(in, 0, in.n_ins);
        break;
      case Syn::Yield:
        out_ += "scf.yield";
        typed_tail(in, 0, in.n_ins);
        break;
      case Syn::Condition:
        out_ += "scf.condition(";
        val(m_.operand(in, 0));
        out_ += ")";
        if (in.n_ins > 1) typed_tail(in, 1, in.n_ins - 1u);
        break;
      case Syn::Call:
        results(in);
        out_ += "func.call @" + std::string(m_.attr_word(in, "callee")) + "(";
        value_list(in, 0, in.n_ins);
        out_ += ") : ";
        {
          std::vector<TypeId> ts;
          for (unsigned i = 0; i < in.n_ins; ++i) ts.push_back(m_.values[m_.operand(in, i)].type);
          type_list_paren(ts);
        }
        out_ += " -> ";
        type_list_paren(result_types(in));
        break;
      case Syn::For: {
        results(in);
        const Region& r = m_.region(in, 0);
        out_ += "scf.for ";
        val(m_.region_arg(r, 0));
        out_ += " = ";
        val(m_.operand(in, 0));
        out_ += " to ";
        val(m_.operand(in, 1));
        out_ += " step ";
        val(m_.operand(in, 2));
        TypeId ivt = m_.values[m_.region_arg(r, 0)].type;
        if (m_.types.text(ivt) != "index") {
          out_ += " : ";
          type(ivt);
        }
        if (in.n_ins > 3) {
          out_ += " iter_args(";
          for (unsigned i = 3; i < in.n_ins; ++i) {
            if (i > 3) out_ += ", ";
            val(m_.region_arg(r, i - 2));
            out_ += " = ";
            val(m_.operand(in, i));
          }
          out_ += ") -> ";
          type_list_paren(result_types(in));
        }
        out_ += " ";
        region_block(r, ind, false);
        attr_dict(in);
        break;
      }
      case Syn::Fuse:
        out_ += "pto.fuse ";
        region_block(m_.region(in, 0), ind, false);
        break;
      case Syn::If:
        results(in);
        out_ += "scf.if ";
        val(m_.operand(in, 0));
        if (in.n_res) {
          out_ += " -> ";
          type_list_paren(result_types(in));
        }
        out_ += " ";
        region_block(m_.region(in, 0), ind, false);
        if (in.n_regions > 1) {
          out_ += " else ";
          region_block(m_.region(in, 1), ind, false);
        }
        break;
      case Syn::While: {
        results(in);
        const Region& before = m_.region(in, 0);
        out_ += "scf.while (";
        for (unsigned i = 0; i < in.n_ins; ++i) {
          if (i) out_ += ", ";
          val(m_.region_arg(before, i));
          out_ += " = ";
          val(m_.operand(in, i));
        }
        out_ += ") : ";
        std::vector<TypeId> ts;
        for (unsigned i = 0; i < in.n_ins; ++i) ts.push_back(m_.values[m_.operand(in, i)].type);
        type_list_paren(ts);
        out_ += " -> ";
        type_list_paren(result_types(in));
        out_ += " ";
        region_block(before, ind, false);
        out_ += " do ";
        region_block(m_.region(in, 1), ind, true);
        break;
      }
      case Syn::Const:
        results(in);
        out_ += "arith.constant ";
        out_ += m_.str(m_.find_attr(in, "value")->text);
        out_ += " : ";
        vtype(in.res);
        break;
      case Syn::ArithBin:
      case Syn::ArithUn:
      case Syn::ArithSelect:
        results(in);
        out_ += info.name;
        out_ += " ";
        value_list(in, 0, in.n_ins);
        if (const Attr* f = m_.find_attr(in, "overflowFlags")) out_ += " " + std::string(m_.str(f->text));
        attr_dict(in, {"overflowFlags"});
        out_ += " : ";
        vtype(in.res);
        break;
      case Syn::ArithCmp:
        results(in);
        out_ += info.name;
        out_ += " " + std::string(m_.attr_word(in, "predicate")) + ", ";
        value_list(in, 0, in.n_ins);
        attr_dict(in, {"predicate"});
        out_ += " : ";
        vtype(m_.operand(in, 0));
        break;
      case Syn::ArithCast:
        results(in);
        out_ += info.name;
        out_ += " ";
        val(m_.operand(in, 0));
        out_ += " : ";
        vtype(m_.operand(in, 0));
        out_ += " to ";
        vtype(in.res);
        break;
      case Syn::NoArgs:
        results(in);
        out_ += info.name;
        if (m_.types.text(m_.values[in.res].type) != "i64") {
          out_ += " : ";
          vtype(in.res);
        }
        break;
      case Syn::MakeTensorView:
      case Syn::PartitionView: {
        bool mtv = info.syn == Syn::MakeTensorView;
        results(in);
        unsigned rank = (in.n_ins - 1u) / 2u;
        out_ += info.name;
        out_ += " ";
        val(m_.operand(in, 0));
        out_ += mtv ? ", shape = [" : ", offsets = [";
        value_list(in, 1, rank);
        out_ += mtv ? "], strides = [" : "], sizes = [";
        value_list(in, 1 + rank, rank);
        out_ += "]";
        attr_dict(in);
        out_ += " : ";
        if (!mtv) {
          vtype(m_.operand(in, 0));
          out_ += " -> ";
        }
        vtype(in.res);
        break;
      }
      case Syn::GetDim:
      case Syn::AddPtr:
        results(in);
        out_ += info.name;
        out_ += " ";
        value_list(in, 0, 2);
        out_ += " : ";
        vtype(m_.operand(in, 0));
        out_ += " -> ";
        vtype(in.res);
        break;
      case Syn::AllocTile: {
        results(in);
        out_ += "pto.alloc_tile";
        unsigned k = 0;
        if (in.flags & kInstHasAddr) { out_ += " addr = "; val(m_.operand(in, k++)); }
        if (in.flags & kInstHasValidRow) { out_ += " valid_row = "; val(m_.operand(in, k++)); }
        if (in.flags & kInstHasValidCol) { out_ += " valid_col = "; val(m_.operand(in, k++)); }
        out_ += " : ";
        vtype(in.res);
        break;
      }
      case Syn::SetValidShape:
        out_ += "pto.set_validshape ";
        value_list(in, 0, 3);
        out_ += " : ";
        vtype(m_.operand(in, 0));
        break;
      case Syn::Subset:
        results(in);
        out_ += "pto.subset ";
        val(m_.operand(in, 0));
        out_ += "[";
        value_list(in, 1, 2);
        out_ += "] sizes " + std::string(m_.str(m_.find_attr(in, "sizes")->text)) + " : ";
        vtype(m_.operand(in, 0));
        break;
      case Syn::Dps:
        out_ += info.name;
        out_ += " ";
        if (in.n_ins || !in.n_outs) dps_group("ins", in, 0, in.n_ins);
        if (in.n_outs || !in.n_ins) {
          if (in.n_ins || !in.n_outs) out_ += " ";
          dps_group("outs", in, in.n_ins, in.n_outs);
        }
        attr_dict(in);
        break;
      case Syn::Opaque: {
        results(in);
        if (in.form == Form::Generic) out_ += "\"" + std::string(info.name) + "\"";
        else out_ += info.name;
        const Attr* body = m_.find_attr(in, "__body");
        std::string_view b = body && body->word != kNone ? m_.str(body->word) : std::string_view();
        if (!b.empty() && b[0] != '(' && b[0] != '[' && b[0] != '<') out_ += " ";
        unsigned reg = 0;
        for (char ch : b) {
          if (ch == '\x01' && reg < in.n_regions) region_block(m_.region(in, reg++), ind, true);
          else out_ += ch;
        }
        break;
      }
    }
    out_ += "\n";
  }

  const Module& m_;
  std::string out_;
};

}  // namespace

std::string print_module(const Module& m) { return Printer(m).run(); }

}  // namespace ptoas
