// Binder core: cursors, SSA names and scopes, regions, types, attributes.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <utility>

#include "binder.h"

namespace ptoas {
namespace bind {

Binder::Binder(const SourceFile& src, const std::vector<Token>& toks, const SyntaxTree& tree,
               const FrontendOptions& opts, Module& m, Diag& diag)
    : src_(src), toks_(toks), tree_(tree), opts_(opts), m_(m), diag_(diag),
      tp_(&toks), pp_(&tree.partner) {}

void Binder::fail_at(uint32_t off, uint32_t len, const std::string& msg) {
  diag_.error(off, len, msg);
  throw StmtError{};
}

void Binder::fail(uint32_t tok, const std::string& msg) {
  const Token& t = (*tp_)[std::min<size_t>(tok, tp_->size() - 1)];
  fail_at(t.off, t.len, msg);
}

void Binder::Cursor::fail_here(const std::string& msg) {
  if (pos < end) b->fail(pos, msg);
  // At the end of a statement or group: point just past its last token.
  const Token& last = b->tok(end > 0 ? end - 1 : 0);
  b->fail_at(last.off + last.len, 0, msg);
}

uint32_t Binder::Cursor::expect(Tok t, const char* what) {
  if (peek() != t) {
    std::string msg = std::string("expected ") + what;
    if (done()) msg += " at the end of the statement";
    else msg += std::string(", found ") + tok_name(peek()) + " " + quoted(ptext());
    fail_here(msg);
  }
  return pos++;
}

void Binder::Cursor::expect_ident(std::string_view w) {
  if (!accept_ident(w)) {
    std::string msg = "expected '" + std::string(w) + "'";
    if (!done()) msg += ", found " + quoted(ptext());
    fail_here(msg);
  }
}

Binder::Cursor Binder::Cursor::enter() {
  uint32_t open = pos;
  uint32_t close = b->partner(open);
  pos = close + 1;
  return Cursor{b, open + 1, close};
}

// ---- names --------------------------------------------------------------------

ValueId Binder::use_value(uint32_t tok) {
  std::string_view t = text(tok);
  StrId id = m_.strings.find(t.substr(1));
  ValueId v = id == kNone ? kNone : name_lookup(id);
  if (v == kNone) fail(tok, "use of undefined value " + quoted(t));
  return v;
}

void Binder::name_define(StrId id, ValueId v) {
  if (id >= names_.size()) names_.resize(std::max<size_t>(m_.strings.size(), 2 * names_.size()), kNone);
  names_[id] = v;
  undo_.push_back(id);
}

ValueId Binder::def_value(uint32_t tok, std::string_view name, TypeId type, InstId def) {
  StrId id = m_.strings.intern(name);
  if (name_lookup(id) != kNone) {
    std::string key(name);
    if (tok != kNoIndex) fail(tok, "redefinition of value " + quoted("%" + key));
    fail_at(0, 0, "redefinition of value " + quoted("%" + key));
  }
  ValueId v = ValueId(m_.values.size());
  uint32_t off = tok == kNoIndex ? 0 : (*tp_)[tok].off;
  m_.values.push_back(Value{type, def, id, off});
  name_define(id, v);
  // `%x#0` is also reachable as `%x`.
  size_t hash = name.find('#');
  if (hash != std::string_view::npos && name.substr(hash + 1) == "0") {
    StrId base = m_.strings.intern(name.substr(0, hash));
    if (name_lookup(base) == kNone) name_define(base, v);
  }
  return v;
}

std::string Binder::fresh_name(const char* stem) {
  // Generated names must never collide with a name the source defines later
  // (collected on first use: most kernels never need a generated name).
  // Parameters and block arguments are spelled as uses (`%x: T`), and
  // `%r#1` names the group `%r`.
  if (source_names_.empty())
    for (const Token& t : toks_)
      if (t.kind == Tok::ValueDef || t.kind == Tok::IvDef || t.kind == Tok::ValueUse) {
        std::string_view n = src_.text().substr(t.off + 1, t.len - 1);
        source_names_.emplace(n.substr(0, n.find('#')));
      }
  for (;;) {
    std::string n = std::string(stem) + std::to_string(fresh_counter_++);
    if (source_names_.count(n)) continue;
    StrId id = m_.strings.find(n);
    if (id == kNone || name_lookup(id) == kNone) return n;
  }
}

void Binder::push_scope() { scope_marks_.push_back(undo_.size()); }

void Binder::pop_scope() {
  size_t mark = scope_marks_.back();
  scope_marks_.pop_back();
  while (undo_.size() > mark) {
    names_[undo_.back()] = kNone;
    undo_.pop_back();
  }
}

// ---- rendering ----------------------------------------------------------------

namespace {
bool is_opener(Tok t) { return t == Tok::LParen || t == Tok::LBracket || t == Tok::LAngle; }
bool is_closer(Tok t) { return t == Tok::RParen || t == Tok::RBracket || t == Tok::RAngle; }
}  // namespace

std::string Binder::render(uint32_t b, uint32_t e, bool mark_regions) const {
  std::string s;
  Tok prev = Tok::Eof;
  for (uint32_t i = b; i < e; ++i) {
    Tok k = kind(i);
    if (mark_regions && k == Tok::LBrace && region_at(i) != kNoIndex) {
      if (!s.empty()) s += ' ';
      s += '\x01';
      i = partner(i);
      prev = Tok::RBrace;
      continue;
    }
    bool space = !s.empty();
    if (is_closer(k) || k == Tok::Comma || k == Tok::RBrace) space = false;
    if (is_opener(prev) || prev == Tok::LBrace) space = false;
    if ((k == Tok::LAngle || k == Tok::LBracket || k == Tok::LParen) &&
        (prev == Tok::Ident || prev == Tok::AttrAlias || prev == Tok::TypeAlias ||
         prev == Tok::ValueUse || prev == Tok::GenericOp || prev == Tok::BlockRef))
      space = false;
    if (k == Tok::RBrace && prev == Tok::LBrace) space = false;
    // `%m ==` reads as a use of %m and two '='; spaced, `%m = =` would read
    // back as a definition of %m (the lexer's deftail: '=' then not '=').
    if (k == Tok::Equal && prev == Tok::Equal) space = false;
    if (space) s += ' ';
    s += text(i);
    prev = k;
  }
  return s;
}

// ---- attributes -----------------------------------------------------------------

AttrId Binder::make_attr(AttrKind k, std::string text_, std::string_view word, int64_t i) {
  Attr a;
  a.kind = k;
  a.ival = i;
  a.text = m_.strings.intern(text_);
  if (!word.empty()) a.word = m_.strings.intern(word);
  return m_.intern_attr(a);
}

AttrId Binder::parse_attr_value(Cursor& c) {
  uint32_t start = c.pos;
  Tok k = c.peek();
  Attr a;
  switch (k) {
    case Tok::Int:
    case Tok::Hex:
    case Tok::Float: {
      ++c.pos;
      a.kind = k == Tok::Float ? AttrKind::Float : AttrKind::Int;
      if (k != Tok::Float && !parse_int(text(start), a.ival))
        fail(start, "integer literal is out of range");
      if (k == Tok::Float) a.fval = std::strtod(std::string(text(start)).c_str(), nullptr);
      if (c.accept(Tok::Colon)) {
        TypeId ty = parse_type(c);
        a.dtype = m_.types.get(ty).elem;
      }
      break;
    }
    case Tok::String: {
      ++c.pos;
      a.kind = AttrKind::String;
      std::string_view s = text(start);
      a.word = m_.strings.intern(s.substr(1, s.size() - 2));
      break;
    }
    case Tok::Symbol: {
      ++c.pos;
      a.kind = AttrKind::Symbol;
      std::string_view s = text(start).substr(1);
      if (!s.empty() && s[0] == '"') s = s.substr(1, s.size() - 2);
      a.word = m_.strings.intern(s);
      break;
    }
    case Tok::Ident: {
      std::string_view w = c.ptext();
      ++c.pos;
      if (w == "true" || w == "false") {
        a.kind = AttrKind::Bool;
        a.ival = w == "true";
      } else if (c.peek() == Tok::LAngle) {
        c.enter();  // dense<...>, array<...>
        a.kind = AttrKind::Other;
      } else if (parse_dtype(w) != DType::None) {
        a.kind = AttrKind::Type;
      } else {
        a.kind = AttrKind::Enum;  // assembly form: #cmp=gt
        a.word = m_.strings.intern(w);
      }
      break;
    }
    case Tok::AttrAlias:
    case Tok::LAngle: {
      if (k == Tok::AttrAlias) ++c.pos;
      a.kind = AttrKind::Enum;
      if (c.peek() == Tok::LAngle) {
        Cursor in = c.enter();
        // The enumerator is the last word: #pto<round_mode ROUND> -> ROUND.
        uint32_t last_word = kNoIndex;
        bool simple = true;
        for (uint32_t i = in.pos; i < in.end; ++i) {
          if (kind(i) == Tok::Ident) last_word = i;
          else simple = false;
        }
        if (last_word != kNoIndex && simple) a.word = m_.strings.intern(text(last_word));
        else a.kind = AttrKind::Other;
      } else {
        a.word = m_.strings.intern(text(start).substr(1));
      }
      break;
    }
    case Tok::TypeAlias:
      parse_type(c);
      a.kind = AttrKind::Type;
      break;
    case Tok::LBracket:
    case Tok::LBrace:
      c.enter();
      a.kind = AttrKind::Other;
      break;
    default:
      c.fail_here("expected an attribute value");
  }
  a.text = m_.strings.intern(render(start, c.pos));
  return m_.intern_attr(a);
}

void Binder::parse_attr_dict(Cursor& c, std::vector<NamedAttr>& out) {
  if (c.peek() != Tok::LBrace) c.fail_here("expected '{'");
  if (region_at(c.pos) != kNoIndex && partner(c.pos) != c.pos + 1)
    c.fail_here("expected an attribute dictionary, found a region");
  Cursor in = c.enter();
  while (!in.done()) {
    uint32_t key_tok = in.pos;
    std::string key;
    if (in.peek() == Tok::Ident || in.peek() == Tok::OpName) {
      key = std::string(in.ptext());
    } else if (in.peek() == Tok::String) {
      std::string_view s = in.ptext();
      key = std::string(s.substr(1, s.size() - 2));
    } else {
      in.fail_here("expected an attribute name");
    }
    ++in.pos;
    for (const NamedAttr& na : out)
      if (m_.str(na.key) == key) fail(key_tok, "duplicate attribute " + quoted(key));
    AttrId v;
    if (in.accept(Tok::Equal)) v = parse_attr_value(in);
    else v = make_attr(AttrKind::Unit, "unit");
    out.push_back(NamedAttr{m_.strings.intern(key), v});
    if (!in.done()) in.expect(Tok::Comma, "',' between attributes");
  }
}

// ---- building -------------------------------------------------------------------

namespace {
// Recycled Pending vectors (ValueId, RegionId and TypeId are all uint32_t).
// At most four per Pending alive at once, so the pool stays small.
struct PendingPool {
  std::vector<std::vector<uint32_t>> ids;
  std::vector<std::vector<NamedAttr>> attrs;
};
thread_local PendingPool pending_pool;

template <class V>
void take(std::vector<V>& pool, V& v) {
  if (pool.empty()) return;
  v = std::move(pool.back());
  pool.pop_back();
}

template <class V>
void give(std::vector<V>& pool, V& v) {
  if (v.capacity() == 0 || v.capacity() > 1024) return;  // nothing to keep / too big to hoard
  v.clear();
  pool.push_back(std::move(v));
}
}  // namespace

Binder::Pending::Pending(Op o, uint32_t l) : op(o), loc(l) {
  PendingPool& pp = pending_pool;
  take(pp.ids, ins);
  take(pp.ids, outs);
  take(pp.ids, regions);
  take(pp.ids, result_types);
  take(pp.attrs, attrs);
}

Binder::Pending::~Pending() {
  PendingPool& pp = pending_pool;
  give(pp.ids, ins);
  give(pp.ids, outs);
  give(pp.ids, regions);
  give(pp.ids, result_types);
  give(pp.attrs, attrs);
}

InstId Binder::emit(Pending& p) {
  Inst in{};
  in.op = p.op;
  in.loc = p.loc;
  in.form = p.form;
  in.flags = p.flags;
  if (p.ins.size() > 0xffff || p.outs.size() > 0xffff || p.attrs.size() > 0xffff ||
      p.regions.size() > 0xff || p.result_types.size() > 0xff)
    fail_at(p.loc, 0, "operation has too many operands, results or attributes");
  in.n_ins = uint16_t(p.ins.size());
  in.n_outs = uint16_t(p.outs.size());
  in.opnd = uint32_t(m_.operands.size());
  m_.operands.insert(m_.operands.end(), p.ins.begin(), p.ins.end());
  m_.operands.insert(m_.operands.end(), p.outs.begin(), p.outs.end());
  in.n_attrs = uint16_t(p.attrs.size());
  in.attrs = uint32_t(m_.attrs.size());
  m_.attrs.insert(m_.attrs.end(), p.attrs.begin(), p.attrs.end());
  in.n_regions = uint8_t(p.regions.size());
  in.region = p.regions.empty() ? kNone : p.regions[0];
  for (size_t i = 1; i < p.regions.size(); ++i)
    if (p.regions[i] != p.regions[0] + i) fail_at(p.loc, 0, "internal: regions not consecutive");
  in.n_res = 0;
  in.res = uint32_t(m_.values.size());
  InstId id = InstId(m_.insts.size());
  m_.insts.push_back(in);
  region_stack_.back()->push_back(id);
  return id;
}

InstId Binder::emit_with_results(Pending& p, const std::vector<uint32_t>& result_toks) {
  if (result_toks.empty() && !p.result_types.empty()) {
    // MLIR lets an op's results go unnamed (`scf.for ... -> i32 {` or
    // `func.call @f() : () -> i64` on its own). They get a fresh number,
    // as MLIR's printer numbers them, and print named: `%0:2 = scf.for`
    // reads back to the same names, so the printed text is a fixed point.
    InstId id = emit(p);
    std::string base = fresh_name("");
    bool group = p.result_types.size() > 1;
    m_.insts[id].res = uint32_t(m_.values.size());
    for (size_t i = 0; i < p.result_types.size(); ++i) {
      std::string name = group ? base + "#" + std::to_string(i) : base;
      ValueId v = def_value(kNoIndex, name, p.result_types[i], id);
      m_.values[v].loc = p.loc;
    }
    m_.insts[id].n_res = uint8_t(p.result_types.size());
    return id;
  }
  if (result_toks.size() != p.result_types.size()) {
    uint32_t tok = result_toks.empty() ? kNoIndex : result_toks[0];
    std::string msg = "operation produces " + std::to_string(p.result_types.size()) +
                      " result" + (p.result_types.size() == 1 ? "" : "s") + " but " +
                      std::to_string(result_toks.size()) + (result_toks.size() == 1 ? " is" : " are") +
                      " named";
    if (tok == kNoIndex) fail_at(p.loc, 0, msg);
    fail(tok, msg);
  }
  InstId id = emit(p);
  Inst& in = m_.insts[id];
  in.res = uint32_t(m_.values.size());
  for (size_t i = 0; i < result_toks.size(); ++i) {
    std::string name(text(result_toks[i]).substr(1));
    if (result_group_.size() > i && result_group_[i]) {
      name.push_back('#');
      name.append(std::to_string(result_index_[i]));
    }
    def_value(result_toks[i], name, p.result_types[i], id);
  }
  m_.insts[id].n_res = uint8_t(result_toks.size());
  return id;
}

RegionId Binder::empty_region() {
  RegionId r = RegionId(m_.regions.size());
  m_.regions.push_back(Region{uint32_t(m_.region_insts.size()), 0,
                              uint32_t(m_.region_args.size()), 0, kNone});
  return r;
}

RegionId Binder::reserve_regions(unsigned n) {
  RegionId first = RegionId(m_.regions.size());
  for (unsigned i = 0; i < n; ++i) m_.regions.push_back(Region{0, 0, 0, 0, kNone});
  return first;
}

RegionId Binder::bind_region(uint32_t brace_tok,
                             const std::vector<std::pair<uint32_t, TypeId>>& args, RegionId into) {
  bool module_body = std::exchange(next_region_module_, false);
  uint32_t rid = region_at(brace_tok);
  if (kind(brace_tok) != Tok::LBrace || rid == kNoIndex) fail(brace_tok, "expected a region");
  // The slot is taken before the contents are bound: an op's regions must be
  // consecutive, and nested regions are created while binding.
  RegionId r = into == kNone ? reserve_regions(1) : into;
  const SynRegion& sr = tree_.regions[rid];
  // The statements inside overwrite the current statement's result names.
  auto saved_res = results_;
  auto saved_idx = result_index_;
  auto saved_grp = result_group_;
  push_scope();
  std::vector<ValueId> arg_vals;
  StrId label = kNone;
  try {
    for (const auto& [tok, ty] : args)
      arg_vals.push_back(def_value(tok, text(tok).substr(1), ty, kNone));
    if (sr.label != kNoIndex) {
      label = m_.strings.intern(text(sr.label));
      std::vector<std::pair<uint32_t, TypeId>> label_args = block_args(sr.label);
      if (!label_args.empty() && !args.empty())
        fail(sr.label, "this region's arguments are already named");
      for (const auto& [vt, ty] : label_args)
        arg_vals.push_back(def_value(vt, text(vt).substr(1), ty, kNone));
    }
  } catch (...) {
    pop_scope();
    throw;
  }
  std::vector<InstId> body;
  region_stack_.push_back(&body);
  region_module_.push_back(module_body);
  for (uint32_t i = 0; i < sr.stmt_count; ++i) {
    bind_stmt(tree_.region_stmts[sr.stmt_begin + i]);
    if (diag_.too_many()) break;
  }
  region_module_.pop_back();
  region_stack_.pop_back();
  pop_scope();
  results_ = std::move(saved_res);
  result_index_ = std::move(saved_idx);
  result_group_ = std::move(saved_grp);
  Region reg{uint32_t(m_.region_insts.size()), uint32_t(body.size()),
             uint32_t(m_.region_args.size()), uint32_t(arg_vals.size()), label};
  m_.region_insts.insert(m_.region_insts.end(), body.begin(), body.end());
  m_.region_args.insert(m_.region_args.end(), arg_vals.begin(), arg_vals.end());
  m_.regions[r] = reg;
  return r;
}

// ---- statements -----------------------------------------------------------------

// The arguments `(%a: T, ...)` after a block label (none without parentheses).
std::vector<std::pair<uint32_t, TypeId>> Binder::block_args(uint32_t label) {
  std::vector<std::pair<uint32_t, TypeId>> out;
  uint32_t p = label + 1;
  if (kind(p) != Tok::LParen) return out;
  Cursor in{this, p + 1, partner(p)};
  while (!in.done()) {
    uint32_t vt = in.pos;
    if (in.peek() != Tok::ValueUse) in.fail_here("expected a block argument '%name'");
    ++in.pos;
    in.expect(Tok::Colon, "':' and a type");
    out.emplace_back(vt, parse_type(in));
    if (!in.done()) in.expect(Tok::Comma, "','");
  }
  return out;
}

// `^bb3(%x: i32, ...):` after the first block of a region: an instruction in
// the region's list whose results are the block arguments. Names follow the
// textual order (a later block sees the earlier blocks' values), which is
// looser than MLIR's dominance but agrees with it on every program MLIR takes
// whose blocks come in dominance order.
void Binder::bind_block(const SynStmt& s) {
  Pending p{Op::Block, tok(s.op).off};
  std::string_view label = text(s.op);
  p.attrs.push_back({m_.strings.intern("label"), make_attr(AttrKind::String, "\"" +
                                                               std::string(label) + "\"", label)});
  std::vector<uint32_t> arg_toks;
  for (const auto& [vt, ty] : block_args(s.op)) {
    arg_toks.push_back(vt);
    p.result_types.push_back(ty);
  }
  result_index_.assign(arg_toks.size(), 0);
  result_group_.assign(arg_toks.size(), 0);
  if (arg_toks.empty()) emit(p);
  else emit_with_results(p, arg_toks);
}

void Binder::collect_results(const SynStmt& s) {
  results_.clear();
  result_index_.clear();
  result_group_.clear();
  for (uint32_t i = s.first; i < s.op; ++i) {
    if (kind(i) != Tok::ValueDef) continue;
    uint32_t n = 1;
    bool group = false;
    if (kind(i + 1) == Tok::Colon && kind(i + 2) == Tok::Int) {
      int64_t v = 0;
      if (!parse_int(text(i + 2), v) || v < 1 || v > 255) fail(i + 2, "bad result count");
      n = uint32_t(v);
      group = true;
    }
    for (uint32_t k = 0; k < n; ++k) {
      results_.push_back(i);
      result_index_.push_back(uint8_t(k));
      result_group_.push_back(group);
    }
  }
}

void Binder::bind_stmt(uint32_t stmt_id) {
  const SynStmt& s = tree_.stmts[stmt_id];
  try {
    if (kind(s.op) == Tok::BlockLabel) {
      bind_block(s);
      return;
    }
    collect_results(s);
    Op op = Op::Count;
    if (kind(s.op) == Tok::GenericOp) {
      std::string_view n = text(s.op);
      op = lookup_op(n.substr(1, n.size() - 2));
      if (op == Op::Count) fail(s.op, "unknown operation " + std::string(n));
    } else {
      op = Op(tok(s.op).op);  // the parser accepts only OpName and GenericOp here
    }
    Cursor c{this, s.op + 1, s.end};
    if (kind(s.op) == Tok::GenericOp) {
      if (op == Op::For) bind_generic_for(c, s);
      else bind_generic(op, c, s);
      return;
    }
    switch (op_info(op).syn) {
      case Syn::Module:
        if (!in_module_body()) fail(s.op, "a module can only appear at the top level or in a module");
        bind_nested_module(c, s);
        return;
      case Syn::Func:
        bind_func(c, s);
        return;
      case Syn::Block:  // the parser makes these from block headers only
        fail(s.op, "internal: a block header as an operation");
      case Syn::Return: case Syn::Call: case Syn::For: case Syn::If: case Syn::While:
      case Syn::Condition: case Syn::Yield: case Syn::Fuse:
        bind_structural(op, c, s);
        return;
      case Syn::Const: case Syn::ArithBin: case Syn::ArithUn: case Syn::ArithCmp:
      case Syn::ArithSelect: case Syn::ArithCast: case Syn::NoArgs:
        bind_scalar(op, c, s);
        return;
      case Syn::MakeTensorView: case Syn::PartitionView: case Syn::GetDim: case Syn::AddPtr:
      case Syn::AllocTile: case Syn::SetValidShape: case Syn::Subset:
        bind_view(op, c, s);
        return;
      case Syn::Dps:
        bind_dps(op, c, s);
        return;
      case Syn::Opaque:
        bind_opaque(op, c, s);
        return;
    }
  } catch (const StmtError&) {
    // Reported; the statement is skipped. Names it would have defined stay
    // undefined, so later uses report too — but only the first use of each
    // is interesting, and the error cap keeps the output short.
  }
}

void Binder::resolve_arch() {
  m_.arch = opts_.arch;
  if (opts_.arch_from_cli) return;
  for (const NamedAttr& na : m_.module_attrs) {
    if (m_.str(na.key) != "pto.target_arch") continue;
    const Attr& a = m_.attr(na.value);
    std::string v = a.kind == AttrKind::String ? std::string(m_.str(a.word)) : std::string();
    for (char& ch : v) ch = char(std::tolower((unsigned char)ch));
    // "a2a3" is what some generators write for the A2/A3 generation.
    if (v == "a3" || v == "a2a3" || v == "a2") m_.arch = Arch::A3;
    else if (v == "a5") m_.arch = Arch::A5;
    else {
      const Attr& at = m_.attr(na.value);
      diag_.error(0, 0, "module attribute pto.target_arch must be \"a3\" or \"a5\", found " +
                            std::string(m_.str(at.text)));
    }
  }
}

void Binder::bind_module_stmt(const SynStmt& s) {
  Cursor c{this, s.op + 1, s.end};
  if (!results_.empty()) fail(s.first, "a module has no results");
  m_.module_loc = tok(s.op).off;
  if (c.peek() == Tok::Symbol) m_.module_name = m_.strings.intern(text(c.pos++));
  if (c.accept_ident("attributes")) parse_attr_dict(c, m_.module_attrs);
  resolve_arch();
  if (c.peek() != Tok::LBrace) c.fail_here("expected the module body '{'");
  uint32_t brace = c.pos;
  c.enter();
  if (!c.done()) c.fail_here("unexpected token after the module body");
  next_region_module_ = true;
  m_.body = bind_region(brace, {});
}

// A module inside a module (0.60: PTODSL and the VPTO tests group functions
// per backend or kernel kind this way). It is an instruction with one region;
// its name and attributes are the instruction's (sym_name first).
void Binder::bind_nested_module(Cursor& c, const SynStmt& s) {
  if (!results_.empty()) fail(s.first, "a module has no results");
  Pending p{Op::Module, tok(s.op).off};
  if (c.peek() == Tok::Symbol) {
    uint32_t t = c.pos++;
    std::string_view nm = text(t).substr(1);
    p.attrs.push_back({m_.strings.intern("sym_name"),
                       make_attr(AttrKind::Symbol, std::string(text(t)), nm)});
  }
  if (c.accept_ident("attributes")) parse_attr_dict(c, p.attrs);
  if (c.peek() != Tok::LBrace) c.fail_here("expected the module body '{'");
  uint32_t brace = c.pos;
  c.enter();
  if (!c.done()) c.fail_here("unexpected token after the module body");
  next_region_module_ = true;
  p.regions.push_back(bind_region(brace, {}));
  emit(p);
}

bool Binder::run() {
  m_.level = opts_.level;
  std::vector<InstId> top;
  region_stack_.push_back(&top);
  region_module_.push_back(1);  // functions at the top level: an implicit module
  // One `module { ... }`, or functions at the top level (an implicit module).
  bool has_module = false;
  for (uint32_t id : tree_.top) {
    const SynStmt& s = tree_.stmts[id];
    if (kind(s.op) == Tok::OpName && Op(tok(s.op).op) == Op::Module) has_module = true;
  }
  if (has_module) {
    if (tree_.top.size() != 1) {
      for (uint32_t id : tree_.top) {
        const SynStmt& s = tree_.stmts[id];
        if (kind(s.op) != Tok::OpName || Op(tok(s.op).op) != Op::Module || id != tree_.top[0]) {
          diag_.error(tok(s.op).off, tok(s.op).len,
                      "only one module per file, with nothing beside it");
          return false;
        }
      }
    }
    try {
      collect_results(tree_.stmts[tree_.top[0]]);
      bind_module_stmt(tree_.stmts[tree_.top[0]]);
    } catch (const StmtError&) {
      return false;
    }
  } else {
    resolve_arch();
    for (uint32_t id : tree_.top) {
      const SynStmt& s = tree_.stmts[id];
      Op op = kind(s.op) == Tok::OpName ? Op(tok(s.op).op) : Op::Count;
      if (op != Op::Func) {
        diag_.error(tok(s.op).off, tok(s.op).len,
                    "expected 'func.func' or 'module' at the top level");
        continue;
      }
      bind_stmt(id);
      if (diag_.too_many()) break;
    }
    m_.body = RegionId(m_.regions.size());
    m_.regions.push_back(Region{uint32_t(m_.region_insts.size()), uint32_t(top.size()),
                                uint32_t(m_.region_args.size()), 0, kNone});
    m_.region_insts.insert(m_.region_insts.end(), top.begin(), top.end());
  }
  region_module_.pop_back();
  region_stack_.pop_back();
  return diag_.error_count() == 0;
}

}  // namespace bind

bool bind_module(const SourceFile& src, const std::vector<Token>& toks, const SyntaxTree& tree,
                 const FrontendOptions& opts, Module& m, Diag& diag) {
  bind::Binder b(src, toks, tree, opts, m, diag);
  return b.run();
}

}  // namespace ptoas
