// Verifier driver and the module-level rules: entry function, build level
// gating (pto.tassign, alloc_tile addr), call graph (callee, arity,
// recursion), function returns, structured control flow (scf.for/if/while
// operands and yields) and the index operands of the view ops.
#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

#include "opaque_text.h"
#include "verify.h"

namespace ptoas {
namespace verify_detail {

// ---- Ctx ------------------------------------------------------------------------

Ctx::Ctx(const Module& mod, const FrontendOptions& o, Diag& d) : m(mod), opts(o), diag(d) {
  arch = o.arch_from_cli ? o.arch : mod.arch;
}

void Ctx::error(uint32_t off, std::string msg) {
  ok = false;
  if (diag.too_many()) return;
  diag.error(off, 0, std::move(msg));
}

ValueId Ctx::operand(const Inst& in, unsigned i) const {
  if (i >= n_operands(in)) return kNone;
  size_t k = size_t(in.opnd) + i;
  if (k >= m.operands.size()) return kNone;
  ValueId v = m.operands[k];
  return v < m.values.size() ? v : kNone;
}

const Type* Ctx::vtype(ValueId v) const {
  if (v == kNone || v >= m.values.size()) return nullptr;
  TypeId t = m.values[v].type;
  if (t == kNone) return nullptr;
  return &m.types.get(t);
}

const Inst* Ctx::def_of(ValueId v) const {
  if (v == kNone || v >= m.values.size()) return nullptr;
  return inst(m.values[v].def);
}

const Region* Ctx::region(const Inst& in, unsigned i) const {
  if (i >= in.n_regions) return nullptr;
  size_t k = size_t(in.region) + i;
  return k < m.regions.size() ? &m.regions[k] : nullptr;
}

std::vector<InstId> Ctx::region_insts(const Region& r) const {
  std::vector<InstId> out;
  for (uint32_t i = 0; i < r.inst_count; ++i) {
    size_t k = size_t(r.inst_begin) + i;
    if (k >= m.region_insts.size()) break;
    if (m.region_insts[k] < m.insts.size()) out.push_back(m.region_insts[k]);
  }
  return out;
}

std::vector<ValueId> Ctx::region_args(const Region& r) const {
  std::vector<ValueId> out;
  for (uint32_t i = 0; i < r.arg_count; ++i) {
    size_t k = size_t(r.arg_begin) + i;
    if (k >= m.region_args.size()) break;
    out.push_back(m.region_args[k] < m.values.size() ? m.region_args[k] : kNone);
  }
  return out;
}

ValueId Ctx::result(const Inst& in, unsigned i) const {
  if (i >= in.n_res) return kNone;
  size_t v = size_t(in.res) + i;
  return v < m.values.size() ? ValueId(v) : kNone;
}

std::string Ctx::type_text(ValueId v) const {
  TypeId t = vtype_id(v);
  if (t == kNone) return "<unknown>";
  return std::string(m.types.text(t));
}

std::string_view Ctx::attr_text(const Inst& in, std::string_view key) const {
  return ptoas::attr_text(m, in, key);
}

std::string Ctx::symbol(const Inst& in, std::string_view key) const {
  std::string s(attr_text(in, key));
  if (!s.empty() && s[0] == '@') s.erase(0, 1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

std::string_view Ctx::body(const Inst& in) const { return opaque_body(m, in); }

namespace {
bool ident_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_' || ch == '.' || ch == '-';
}
}  // namespace

std::string Ctx::kv(const Inst& in, std::string_view key) const {
  if (size_t(in.attrs) + in.n_attrs <= m.attrs.size()) {
    if (const Attr* a = m.find_attr(in, key)) {
      std::string s;
      if (a->kind == AttrKind::Int || a->kind == AttrKind::Bool) {
        if (a->kind == AttrKind::Bool) return a->ival ? "true" : "false";
        return std::to_string(a->ival);
      }
      if (a->word != kNone) s = std::string(m.str(a->word));
      else if (a->text != kNone) s = std::string(m.str(a->text));
      if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
      return s;
    }
  }
  std::string_view b = body(in);
  size_t pos = 0;
  while ((pos = b.find(key, pos)) != std::string_view::npos) {
    size_t end = pos + key.size();
    bool left_ok = pos == 0 || !ident_char(b[pos - 1]);
    bool right_ok = end >= b.size() || !ident_char(b[end]);
    pos = end;
    if (!left_ok || !right_ok) continue;
    size_t i = end;
    while (i < b.size() && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) ++i;
    if (i >= b.size() || b[i] != '=') continue;
    ++i;
    while (i < b.size() && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) ++i;
    if (i >= b.size()) return {};
    if (b[i] == '"') {
      size_t close = b.find('"', i + 1);
      if (close == std::string_view::npos) return std::string(b.substr(i + 1));
      return std::string(b.substr(i + 1, close - i - 1));
    }
    size_t j = i;
    int depth = 0;
    while (j < b.size()) {
      char ch = b[j];
      if (ch == '<' || ch == '(' || ch == '[') ++depth;
      else if (ch == '>' || ch == ')' || ch == ']') {
        if (depth == 0) break;
        --depth;
      } else if (depth == 0 && (ch == ',' || ch == '}' || ch == ' ' || ch == '\n' || ch == '\t'))
        break;
      ++j;
    }
    return std::string(b.substr(i, j - i));
  }
  return {};
}

// ---- shared helpers -------------------------------------------------------------

bool is_tile_like(const Type& t) {
  switch (t.kind) {
    case TypeKind::TileBuf:
      return true;
    case TypeKind::Memref:
      return t.loc != Loc::Gm;
    default:
      return false;
  }
}

bool is_gm_like(const Type& t) {
  switch (t.kind) {
    case TypeKind::PartitionView:
    case TypeKind::TensorView:
      return true;
    case TypeKind::Memref:
      return t.loc == Loc::Gm || t.loc == Loc::None;
    default:
      return false;
  }
}

bool is_index_or_int(const Type& t) {
  return t.kind == TypeKind::Scalar && (t.elem == DType::Index || dtype_is_int(t.elem));
}

bool is_i1(const Type& t) { return t.kind == TypeKind::Scalar && t.elem == DType::I1; }

std::string q(Op op) { return "'" + std::string(op_name(op)) + "'"; }

namespace {

struct WalkItem {
  InstId id;
  InstId parent;  // the instruction owning the region this one sits in, or kNone
  InstId func;    // the enclosing func.func, or kNone
  InstId scope;   // the nearest enclosing nested module (its symbol table), or kNone
};

// Pre-order walk of everything reachable from the module body, iterative
// (fuzzed inputs nest deeply) and immune to malformed region lists.
// Calls push(id) for the valid instruction ids of `r` (those region_insts
// would return) in reverse order, for stack-based pre-order walks; no copy
// of the list (a function body holds thousands).
template <class F>
void push_region_reversed(const Ctx& c, const Region& r, F&& push) {
  const Module& m = c.m;
  size_t avail = r.inst_begin < m.region_insts.size() ? m.region_insts.size() - r.inst_begin : 0;
  size_t n = std::min<size_t>(r.inst_count, avail);
  for (size_t i = n; i-- > 0;) {
    InstId id = m.region_insts[r.inst_begin + i];
    if (id < m.insts.size()) push(id);
  }
}

template <class F>
void walk_module(const Ctx& c, F&& visit) {
  const Module& m = c.m;
  if (m.body == kNone || m.body >= m.regions.size()) return;
  std::vector<uint8_t> seen(m.insts.size(), 0);
  std::vector<WalkItem> stack;
  auto push_region = [&](const Region& r, InstId parent, InstId func, InstId scope) {
    push_region_reversed(c, r, [&](InstId id) { stack.push_back({id, parent, func, scope}); });
  };
  push_region(m.regions[m.body], kNone, kNone, kNone);
  while (!stack.empty()) {
    WalkItem it = stack.back();
    stack.pop_back();
    if (it.id >= m.insts.size() || seen[it.id]) continue;
    seen[it.id] = 1;
    const Inst& in = m.insts[it.id];
    if (in.op >= Op::Count) continue;
    visit(it);
    InstId func = in.op == Op::Func ? it.id : it.func;
    InstId scope = in.op == Op::Module ? it.id : it.scope;
    for (unsigned r = in.n_regions; r-- > 0;) {
      const Region* reg = c.region(in, r);
      if (reg) push_region(*reg, it.id, func, scope);
    }
  }
}

bool same_type(const Ctx& c, TypeId a, TypeId b) {
  if (a == b) return true;
  if (a == kNone || b == kNone) return false;
  auto strip = [](std::string_view s) {
    std::string o;
    for (char ch : s)
      if (ch != ' ' && ch != '\n' && ch != '\t' && ch != '\r') o += ch;
    return o;
  };
  return strip(c.m.types.text(a)) == strip(c.m.types.text(b));
}

std::string plural(size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

struct ModuleChecker {
  Ctx& c;
  // Every func.func by symbol table and name: a module (the top one, kNone,
  // or a nested one) is a symbol table, and `func.call @f` looks @f up in the
  // nearest module around the call only (MLIR's lookupNearestSymbolFrom).
  std::map<std::pair<InstId, std::string>, InstId> funcs;
  std::vector<InstId> defs;                       // definitions in order

  explicit ModuleChecker(Ctx& ctx) : c(ctx) {}

  TypeId func_result_type(const Inst& fn, unsigned i) const {
    size_t k = size_t(fn.opnd) + i;
    return k < c.m.type_lists.size() ? c.m.type_lists[k] : kNone;
  }

  void collect_funcs() {
    walk_module(c, [&](const WalkItem& it) {
      const Inst& in = c.m.insts[it.id];
      if (in.op != Op::Func) return;
      std::string name = c.symbol(in, "sym_name");
      if (!name.empty() && !funcs.emplace(std::make_pair(it.scope, name), it.id).second)
        c.error(in.loc, "redefinition of symbol named " + quoted(name));
      if (in.n_regions > 0) defs.push_back(it.id);
    });
  }

  // PTOAS 0.60: the entries are the definitions marked with an entry
  // attribute (no implicit entry: a lone function returning a value is an
  // ordinary function), and an entry returns nothing.
  void check_entry() {
    walk_module(c, [&](const WalkItem& it) {
      const Inst& in = c.m.insts[it.id];
      if (in.op != Op::Func || size_t(in.attrs) + in.n_attrs > c.m.attrs.size()) return;
      if (!c.m.has_entry_attr(in)) return;
      if (in.n_regions == 0)
        c.error(in.loc, "'pto.entry' is only valid on function definitions ('@" +
                            c.symbol(in, "sym_name") + "' is a declaration)");
      else if (in.n_outs != 0)
        c.error(in.loc, "PTO entry functions must return void: '@" + c.symbol(in, "sym_name") +
                            "' returns " + plural(in.n_outs, "value"));
    });
    // pto.auto_sync_tail_hint values (any function).
    for (InstId f : defs) {
      const Inst& in = c.m.insts[f];
      if (size_t(in.attrs) + in.n_attrs > c.m.attrs.size()) continue;
      if (!c.m.find_attr(in, "pto.auto_sync_tail_hint")) continue;
      std::string v = c.kv(in, "pto.auto_sync_tail_hint");
      std::string norm;
      for (char ch : v) {
        if (ch == '-' || ch == '_') continue;
        norm += char(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
      }
      if (norm != "barrierall" && norm != "default" && norm != "mte3tosevent0" &&
          norm != "mte3tosevent")
        c.error(in.loc, "invalid pto.auto_sync_tail_hint \"" + v +
                            "\": expected \"barrier-all\", \"default\" or \"mte3-to-s-event0\"");
    }
  }

  void check_calls_and_recursion() {
    // Call graph over definitions.
    std::unordered_map<InstId, size_t> index;
    for (size_t i = 0; i < defs.size(); ++i) index.emplace(defs[i], i);
    std::vector<std::vector<std::pair<size_t, InstId>>> edges(defs.size());

    walk_module(c, [&](const WalkItem& it) {
      const Inst& in = c.m.insts[it.id];
      if (in.op != Op::Call) return;
      std::string callee = c.symbol(in, "callee");
      auto f = funcs.find(std::make_pair(it.scope, callee));
      if (f == funcs.end()) {
        c.error(in.loc, "'func.call' references undefined function " + quoted("@" + callee));
        return;
      }
      const Inst& fn = c.m.insts[f->second];
      // Arity and types against the callee's signature: a definition's
      // parameters, or the parameter types a declaration keeps.
      std::vector<TypeId> params;
      if (const Region* body = c.region(fn, 0)) {
        for (ValueId p : c.region_args(*body)) params.push_back(c.vtype_id(p));
      } else {
        for (unsigned i = 0; i < fn.n_ins; ++i) params.push_back(func_result_type(fn, fn.n_outs + i));
      }
      if (params.size() != in.n_ins) {
        c.error(in.loc, "'func.call' to " + quoted("@" + callee) + " passes " +
                            plural(in.n_ins, "argument") + ", the function takes " +
                            std::to_string(params.size()));
      } else {
        for (unsigned i = 0; i < in.n_ins; ++i) {
          ValueId a = c.operand(in, i);
          if (a == kNone || params[i] == kNone) continue;
          if (!same_type(c, c.vtype_id(a), params[i]))
            c.error(in.loc, "'func.call' argument #" + std::to_string(i) + " of '@" + callee +
                                "' has type " + c.type_text(a) + ", expected " +
                                std::string(c.m.types.text(params[i])));
        }
      }
      if (in.n_res != fn.n_outs) {
        c.error(in.loc, "'func.call' to " + quoted("@" + callee) + " expects " +
                            plural(in.n_res, "result") + ", the function returns " +
                            std::to_string(fn.n_outs));
      } else {
        for (unsigned i = 0; i < in.n_res; ++i) {
          ValueId r = c.result(in, i);
          TypeId want = func_result_type(fn, i);
          if (r == kNone || want == kNone) continue;
          if (!same_type(c, c.vtype_id(r), want))
            c.error(in.loc, "'func.call' result #" + std::to_string(i) + " of '@" + callee +
                                "' has type " + c.type_text(r) + ", expected " +
                                std::string(c.m.types.text(want)));
        }
      }
      if (it.func != kNone) {
        auto from = index.find(it.func);
        auto to = index.find(f->second);
        if (from != index.end() && to != index.end())
          edges[from->second].push_back({to->second, it.id});
      }
    });

    // Cycle detection (iterative DFS, colours 0 white / 1 grey / 2 black).
    std::vector<uint8_t> colour(defs.size(), 0);
    for (size_t root = 0; root < defs.size(); ++root) {
      if (colour[root]) continue;
      std::vector<std::pair<size_t, size_t>> st{{root, 0}};
      colour[root] = 1;
      while (!st.empty()) {
        auto& [node, next] = st.back();
        if (next < edges[node].size()) {
          auto [to, call] = edges[node][next++];
          if (colour[to] == 1) {
            const Inst& ci = c.m.insts[call];
            c.error(ci.loc, "recursive function calls are not supported ('@" + c.symbol(c.m.insts[defs[node]], "sym_name") + "' calls '@" +
                                c.symbol(c.m.insts[defs[to]], "sym_name") +
                                "', which is already on the call stack)");
          } else if (colour[to] == 0) {
            colour[to] = 1;
            st.push_back({to, 0});
          }
        } else {
          colour[node] = 2;
          st.pop_back();
        }
      }
    }
  }

  void check_yield(const Inst& y, const Inst& parent, unsigned region_index) {
    // What the terminator must produce.
    std::vector<TypeId> want;
    const char* what = nullptr;
    if (parent.op == Op::For || parent.op == Op::If) {
      for (unsigned i = 0; i < parent.n_res; ++i) want.push_back(c.vtype_id(c.result(parent, i)));
      what = parent.op == Op::For ? "'scf.for'" : "'scf.if'";
    } else if (parent.op == Op::While && region_index == 1) {
      for (unsigned i = 0; i < parent.n_ins; ++i) want.push_back(c.vtype_id(c.operand(parent, i)));
      what = "'scf.while' (its loop-carried values)";
    } else {
      return;
    }
    if (y.n_ins != want.size()) {
      c.error(y.loc, "'scf.yield' yields " + plural(y.n_ins, "value") + " but " + what +
                         " expects " + std::to_string(want.size()));
      return;
    }
    for (unsigned i = 0; i < y.n_ins; ++i) {
      ValueId v = c.operand(y, i);
      if (v == kNone || want[i] == kNone) continue;
      if (!same_type(c, c.vtype_id(v), want[i]))
        c.error(y.loc, "'scf.yield' value #" + std::to_string(i) + " has type " + c.type_text(v) +
                           ", " + what + " expects " + std::string(c.m.types.text(want[i])));
    }
  }

  // Which of its parent's regions holds `it` (0 at the top level).
  unsigned region_index(const WalkItem& it) const {
    if (it.parent == kNone) return 0;
    const Inst& p = c.m.insts[it.parent];
    for (unsigned r = 0; r < p.n_regions; ++r) {
      const Region* reg = c.region(p, r);
      if (!reg) continue;
      for (InstId x : c.region_insts(*reg))
        if (x == it.id) return r;
    }
    return 0;
  }

  // Every ^label a branch names is a block of the branch's own region.
  void check_successors(const WalkItem& it) {
    const Region* reg = it.parent == kNone ? nullptr
                                           : c.region(c.m.insts[it.parent], region_index(it));
    if (!reg) return;
    std::vector<std::string_view> labels;
    if (reg->label != kNone && reg->label < c.m.strings.size()) labels.push_back(c.m.str(reg->label));
    for (InstId x : c.region_insts(*reg))
      if (c.m.insts[x].op == Op::Block) labels.push_back(c.attr_text(c.m.insts[x], "label"));
    std::string_view b = c.body(c.m.insts[it.id]);
    for (size_t i = 0; i < b.size(); ++i) {
      if (b[i] != '^') continue;
      size_t j = i + 1;
      while (j < b.size() && (std::isalnum((unsigned char)b[j]) || b[j] == '_' || b[j] == '$' ||
                              b[j] == '.' || b[j] == '-'))
        ++j;
      std::string_view name = b.substr(i, j - i);
      if (std::find(labels.begin(), labels.end(), name) == labels.end())
        c.error(c.m.insts[it.id].loc, "reference to an undefined block " + std::string(name) +
                                          " (a branch goes to a block of its own region)");
      i = j - 1;
    }
  }

  void need_index(const Inst& in, unsigned first, unsigned last, const char* role) {
    for (unsigned i = first; i < last && i < c.n_operands(in); ++i) {
      ValueId v = c.operand(in, i);
      const Type* t = c.vtype(v);
      if (t && !is_index_or_int(*t))
        c.error(in.loc, q(in.op) + " expects " + role + " to be index or integer, got " +
                            c.type_text(v));
    }
  }

  void check_inst(const WalkItem& it) {
    const Inst& in = c.m.insts[it.id];
    const OpInfo& info = op_info(in.op);
    switch (in.op) {
      case Op::Return: {
        if (it.func == kNone) break;
        const Inst& fn = c.m.insts[it.func];
        if (in.n_ins != fn.n_outs) {
          c.error(in.loc, "'func.return' returns " + plural(in.n_ins, "value") +
                              " but '@" + c.symbol(fn, "sym_name") + "' is declared to return " +
                              std::to_string(fn.n_outs));
          break;
        }
        for (unsigned i = 0; i < in.n_ins; ++i) {
          ValueId v = c.operand(in, i);
          TypeId want = func_result_type(fn, i);
          if (v == kNone || want == kNone) continue;
          if (!same_type(c, c.vtype_id(v), want))
            c.error(in.loc, "'func.return' value #" + std::to_string(i) + " has type " +
                                c.type_text(v) + ", the function returns " +
                                std::string(c.m.types.text(want)));
        }
        break;
      }
      case Op::For:
        need_index(in, 0, 3, "loop bounds and step");
        break;
      case Op::Fuse: {
        // Encoders lower the body as one loop nest: it may hold only tile
        // ops (no values defined inside, no control flow).
        const Region* body = c.region(in, 0);
        if (!body) break;
        for (InstId x : c.region_insts(*body)) {
          const Inst& b = c.m.insts[x];
          if (op_info(b.op).syn != Syn::Dps)
            c.error(b.loc, "'pto.fuse' may contain only tile operations, not '" +
                               std::string(op_name(b.op)) + "'");
        }
        break;
      }
      case Op::If: {
        const Type* t = c.vtype(c.operand(in, 0));
        if (t && !is_i1(*t))
          c.error(in.loc, "'scf.if' expects an i1 condition, got " + c.type_text(c.operand(in, 0)));
        break;
      }
      case Op::Condition: {
        const Type* t = c.vtype(c.operand(in, 0));
        if (t && !is_i1(*t))
          c.error(in.loc, "'scf.condition' expects an i1 condition, got " +
                              c.type_text(c.operand(in, 0)));
        if (it.parent != kNone) {
          const Inst& w = c.m.insts[it.parent];
          if (w.op == Op::While && in.n_ins >= 1 && unsigned(in.n_ins - 1) != w.n_res)
            c.error(in.loc, "'scf.condition' forwards " + plural(in.n_ins - 1u, "value") +
                                " but 'scf.while' has " + plural(w.n_res, "result"));
        }
        break;
      }
      case Op::Yield: {
        if (it.parent == kNone) break;
        check_yield(in, c.m.insts[it.parent], region_index(it));
        break;
      }
      case Op::Block: {
        // The structured ops (and modules) hold single-block regions: MLIR's
        // SingleBlock trait. Functions and scf.execute_region take several.
        if (it.parent == kNone) break;
        const Inst& p = c.m.insts[it.parent];
        if (p.op != Op::Func && op_info(p.op).syn != Syn::Opaque)
          c.error(in.loc, q(p.op) + " expects its region to hold one block, found " +
                              std::string(c.attr_text(in, "label")));
        break;
      }
      case Op::CfBr: case Op::CfCondBr: case Op::CfSwitch:
        check_successors(it);
        break;
      case Op::MakeTensorView:
        need_index(in, 1, c.n_operands(in), "shape and strides");
        break;
      case Op::PartitionView:
        need_index(in, 1, c.n_operands(in), "offsets and sizes");
        break;
      case Op::AllocTile: {
        bool has_addr = (in.flags & kInstHasAddr) != 0;
        // The official rule is on the program's alloc_tile ops; the result
        // of an SSA-form op (pto.treshape: a view of its source there) is
        // none of them.
        bool implicit = in.form == Form::Ssa;
        if (c.opts.level == Level::Level3 && !has_addr && !implicit)
          c.error(in.loc, "'pto.alloc_tile' op requires 'addr' operand when --pto-level=level3");
        if (c.opts.level != Level::Level3 && has_addr)
          c.error(in.loc, "'pto.alloc_tile' op 'addr' operand is only supported when "
                          "--pto-level=level3");
        unsigned first = has_addr ? 1 : 0;
        if (has_addr) {
          const Type* t = c.vtype(c.operand(in, 0));
          if (t && !is_index_or_int(*t))
            c.error(in.loc, "'pto.alloc_tile' expects 'addr' to be an integer, got " +
                                c.type_text(c.operand(in, 0)));
        }
        need_index(in, first, c.n_operands(in), "valid_row/valid_col");
        break;
      }
      case Op::SetValidShape:
        need_index(in, 1, c.n_operands(in), "valid rows/cols");
        break;
      case Op::TAssign:
        if (c.opts.level != Level::Level3)
          c.error(in.loc, "pto.tassign is only supported when --pto-level=level3.");
        else if (c.opts.enable_insert_sync)
          c.error(in.loc, "pto.tassign requires --enable-insert-sync to be disabled");
        break;
      default:
        break;
    }
    if (info.syn == Syn::Dps) verify_dps_inst(c, it.id);
    if (info.sem == Sem::Scalar) verify_arith_inst(c, it.id);
    verify_npu_inst(c, it.id);
    verify_vpto_inst(c, it.id);
    verify_scalar_mem_inst(c, it.id);
  }

  void run() {
    collect_funcs();
    verify_backend_module(c);
    check_entry();
    check_calls_and_recursion();
    walk_module(c, [&](const WalkItem& it) {
      if (!c.stop()) check_inst(it);
    });
    if (!c.stop()) verify_tiles(c);
    if (!c.stop()) verify_npu_module(c);
    if (!c.stop()) verify_vpto_backend(c);
    if (!c.stop()) verify_sections(c);
  }
};

}  // namespace

std::vector<InstId> module_functions(const Ctx& c) {
  std::vector<InstId> out;
  walk_module(c, [&](const WalkItem& it) {
    const Inst& in = c.m.insts[it.id];
    if (in.op == Op::Func && in.n_regions > 0) out.push_back(it.id);
  });
  return out;
}

void collect_nested(const Ctx& c, InstId fn, std::vector<InstId>& out) {
  const Inst* f = c.inst(fn);
  if (!f) return;
  std::vector<uint8_t> seen(c.m.insts.size(), 0);
  std::vector<InstId> stack;
  auto push = [&](const Inst& in) {
    for (unsigned r = in.n_regions; r-- > 0;) {
      const Region* reg = c.region(in, r);
      if (!reg) continue;
      push_region_reversed(c, *reg, [&](InstId id) { stack.push_back(id); });
    }
  };
  seen[fn] = 1;
  push(*f);
  while (!stack.empty()) {
    InstId id = stack.back();
    stack.pop_back();
    if (id >= c.m.insts.size() || seen[id]) continue;
    seen[id] = 1;
    const Inst& in = c.m.insts[id];
    if (in.op >= Op::Count) continue;
    out.push_back(id);
    push(in);
  }
}

}  // namespace verify_detail

bool verify_module(const Module& m, const FrontendOptions& opts, Diag& diag) {
  verify_detail::Ctx c(m, opts, diag);
  verify_detail::ModuleChecker(c).run();
  return c.ok;
}

}  // namespace ptoas
