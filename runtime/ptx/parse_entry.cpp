// The PTX parser, inside an entry: parameters, performance directives,
// register declarations, labels, instructions and their operands; and
// Program, the public face of a parsed module.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "parse.h"
#include "ptx.h"

namespace ptoas::ptx {

namespace {

struct SregName {
  const char* name;
  Sreg r;
};
constexpr SregName kSregs[] = {
    {"%tid.x", Sreg::TidX},         {"%tid.y", Sreg::TidY},         {"%tid.z", Sreg::TidZ},
    {"%ntid.x", Sreg::NtidX},       {"%ntid.y", Sreg::NtidY},       {"%ntid.z", Sreg::NtidZ},
    {"%ctaid.x", Sreg::CtaidX},     {"%ctaid.y", Sreg::CtaidY},     {"%ctaid.z", Sreg::CtaidZ},
    {"%nctaid.x", Sreg::NctaidX},   {"%nctaid.y", Sreg::NctaidY},   {"%nctaid.z", Sreg::NctaidZ},
    {"%laneid", Sreg::Laneid},      {"%warpid", Sreg::Warpid},      {"%nwarpid", Sreg::Nwarpid},
    {"%lanemask_eq", Sreg::LanemaskEq}, {"%lanemask_lt", Sreg::LanemaskLt},
    {"%lanemask_le", Sreg::LanemaskLe}, {"%lanemask_gt", Sreg::LanemaskGt},
    {"%lanemask_ge", Sreg::LanemaskGe}, {"%clock", Sreg::Clock},    {"%clock64", Sreg::Clock64},
    {"%smid", Sreg::Smid},          {"%gridid", Sreg::Gridid},
};

}  // namespace

// .entry NAME ( .param ... ) directives { body }
bool Parser::entry_decl() {
  next();  // .entry
  const Token& nm = next();
  if (nm.kind != Token::Word) {
    error_at(nm.line, nm.col, "expected the entry's name");
    return false;
  }
  if (m_.entry_index.count(std::string(nm.text))) {
    error_at(nm.line, nm.col, "entry '" + std::string(nm.text) + "' is defined twice");
    return false;
  }
  m_.entries.emplace_back();
  e_ = &m_.entries.back();
  e_->name = std::string(nm.text);
  e_->line = nm.line;
  e_->shared_bytes = m_.module_shared_bytes;
  e_->dyn_bytes = pending_dyn_;
  pending_dyn_ = 0;
  regs_.clear();
  preds_.clear();
  params_.clear();
  vars_.clear();
  labels_.clear();
  fixups_.clear();
  cur_loc_ = 0;
  uint32_t poff = 0;
  if (is_punct('(')) {
    next();
    while (!is_punct(')')) {
      if (!is_word(".param")) {
        error_at(peek().line, peek().col, "expected .param");
        return false;
      }
      next();
      uint64_t align = 0, count = 1;
      Ty ty = Ty::None;
      while (peek().kind == Token::Word && peek().text[0] == '.') {
        const Token& d = next();
        if (d.text == ".align") {
          const Token& v = next();
          if (!number(v, align) || align == 0 || (align & (align - 1)) || align > 256) {
            error_at(v.line, v.col, ".align expects a power of two");
            return false;
          }
        } else if (d.text.rfind(".ptr", 0) == 0) {
          // .ptr[.space][.align N]: what the pointer points to (one word
          // when written without spaces: .ptr.global.align 16).
          bool align_next = d.text.size() >= 6 && d.text.substr(d.text.size() - 6) == ".align";
          while (is_word(".global") || is_word(".shared") || is_word(".const") || is_word(".local")) next();
          if (is_word(".align")) {
            next();
            align_next = true;
          }
          if (align_next && peek().kind == Token::Number) next();
        } else if (!type_word(d.text, ty) || ty == Ty::Pred) {
          error_at(d.line, d.col, "unsupported parameter attribute '" + std::string(d.text) + "'");
          return false;
        }
      }
      const Token& pn = next();
      if (pn.kind != Token::Word || ty == Ty::None) {
        error_at(pn.line, pn.col, "expected a typed parameter name");
        return false;
      }
      if (is_punct('[')) {
        next();
        const Token& v = next();
        if (!number(v, count) || count == 0 || count > 4096) {
          error_at(v.line, v.col, "a parameter array needs a constant size");
          return false;
        }
        if (!expect_punct(']', "after the parameter array size")) return false;
      }
      uint64_t bytes = ty_bytes(ty) * count;
      if (!align) align = ty_bytes(ty);
      poff = uint32_t(align_up(poff, align));
      params_[pn.text] = uint32_t(e_->param_offset.size());
      e_->param_name.push_back(std::string(pn.text));
      Var v;
      v.space = Space::Param;
      v.offset = poff;
      v.bytes = bytes;
      vars_[pn.text] = v;
      e_->param_offset.push_back(poff);
      e_->param_bytes.push_back(uint8_t(std::min<uint64_t>(bytes, 255)));
      e_->param_float.push_back(count == 1 && (ty == Ty::F32 || ty == Ty::F64));
      poff += uint32_t(bytes);
      if (poff > 32768) {
        error_at(pn.line, pn.col, "kernel parameters exceed 32 KiB");
        return false;
      }
      if (is_punct(',')) next();
      else if (!is_punct(')')) {
        expect_punct(')', "after the parameters");
        return false;
      }
    }
    next();  // )
  }
  e_->param_buffer_bytes = poff;
  // Performance directives.
  while (peek().kind == Token::Word && peek().text[0] == '.') {
    const Token& d = next();
    if (d.text == ".reqntid" || d.text == ".maxntid") {
      unsigned dims[3] = {1, 1, 1};
      for (int i = 0; i < 3; ++i) {
        const Token& v = next();
        uint64_t n = 0;
        if (!number(v, n) || n == 0 || n > 1024) {
          error_at(v.line, v.col, std::string(d.text) + " expects 1 to 3 sizes from 1 to 1024");
          return false;
        }
        dims[i] = unsigned(n);
        if (!is_punct(',')) break;
        next();
      }
      if (d.text == ".reqntid")
        for (int i = 0; i < 3; ++i) e_->reqntid[i] = dims[i];
    } else if (d.text == ".minnctapersm" || d.text == ".maxnreg" || d.text == ".maxnctapersm") {
      next();
    } else if (d.text == ".pragma") {
      next();
      if (is_punct(';')) next();
    } else if (d.text == ".noreturn") {
    } else {
      error_at(d.line, d.col, "unsupported entry directive '" + std::string(d.text) + "'");
      return false;
    }
  }
  if (!is_punct('{')) {
    error_at(peek().line, peek().col, "expected '{' to open the body of entry '" + e_->name + "'");
    return false;
  }
  m_.entry_index[e_->name] = m_.entries.size() - 1;
  return entry_body();
}

bool Parser::entry_body() {
  next();  // {
  int depth = 1;
  // Registers declared in a nested block shadow outer ones until it closes.
  std::vector<std::vector<std::pair<std::string_view, std::pair<bool, uint32_t>>>> shadows(1);
  while (depth > 0) {
    if (peek().kind == Token::End) {
      error_at(peek().line, peek().col, "unterminated body of entry '" + e_->name + "'");
      return false;
    }
    if (nerrs_ > 20) return false;
    if (is_punct('{')) {
      next();
      ++depth;
      shadows.emplace_back();
      continue;
    }
    if (is_punct('}')) {
      next();
      --depth;
      for (auto& [name, old] : shadows.back()) {
        if (old.first) regs_[name] = old.second;
        else regs_.erase(name);
      }
      shadows.pop_back();
      continue;
    }
    failed_ = false;
    stmt_done_ = false;
    size_t at = p_;
    if (is_word(".reg")) {
      // Record what this declaration shadows.
      size_t mark = p_;
      std::vector<std::string_view> names;
      for (size_t k = mark + 2; k < t_.size() && !(t_[k].kind == Token::Punct && t_[k].text[0] == ';'); ++k)
        if (t_[k].kind == Token::Word && t_[k].text[0] == '%') names.push_back(t_[k].text);
      if (depth > 1)
        for (std::string_view n : names) {
          auto it = regs_.find(n);
          shadows.back().push_back({n, {it != regs_.end(), it != regs_.end() ? it->second : 0}});
        }
      if (!reg_decl() && p_ == at) next();
    } else if (!statement() && p_ == at) {
      next();
    }
    if (failed_ && !stmt_done_) skip_statement();
  }
  bool ok = resolve_labels();
  e_ = nullptr;
  return ok;
}

// .reg .type %r<N>; / .reg .type %a, %b;
bool Parser::reg_decl() {
  next();  // .reg
  const Token& tt = next();
  Ty ty = Ty::None;
  if (tt.text == ".v2" || tt.text == ".v4") {
    error_at(tt.line, tt.col, "vector registers are not supported");
    return false;
  }
  if (!type_word(tt.text, ty)) {
    error_at(tt.line, tt.col, "expected a register type after .reg, found '" + std::string(tt.text) + "'");
    return false;
  }
  while (true) {
    const Token& nm = next();
    if (nm.kind != Token::Word) {
      error_at(nm.line, nm.col, "expected a register name");
      return false;
    }
    uint64_t n = 0;
    bool range = false;
    if (is_punct('<')) {
      next();
      const Token& v = next();
      if (!number(v, n) || n > 100000) {
        error_at(v.line, v.col, "expected a register count");
        return false;
      }
      if (!expect_punct('>', "after the register count")) return false;
      range = true;
    }
    auto add = [&](std::string_view name) {
      if (ty == Ty::Pred) {
        preds_[name] = e_->npreds++;
      } else {
        regs_[name] = uint32_t(e_->reg_bits.size());
        e_->reg_bits.push_back(uint8_t(std::min(64u, ty_bytes(ty) * 8)));
        e_->reg_signed.push_back(ty >= Ty::S8 && ty <= Ty::S64);
      }
    };
    if (ty == Ty::B128) {
      error_at(tt.line, tt.col, ".b128 registers are not supported");
      return false;
    }
    if (range) {
      // Names are NAME0..NAME(N-1); they live in the module's string store.
      for (uint64_t i = 0; i < n; ++i) {
        name_store_.push_back(std::string(nm.text) + std::to_string(i));
        add(name_store_.back());
      }
    } else {
      add(nm.text);
    }
    if (e_->reg_bits.size() > 65536 || e_->npreds > 65536) {
      error_at(nm.line, nm.col, "too many registers (at most 65536 of a kind per entry)");
      return false;
    }
    if (!is_punct(',')) break;
    next();
  }
  return expect_punct(';', "after the register declaration");
}

bool Parser::statement() {
  const Token& t = peek();
  if (t.kind == Token::Word && is_punct(':', 1)) {
    if (labels_.count(t.text)) {
      error_at(t.line, t.col, "label '" + std::string(t.text) + "' is defined twice");
      next();
      next();
      return true;
    }
    labels_[t.text] = uint32_t(e_->code.size());
    next();
    next();
    return true;
  }
  if (t.kind == Token::Word && t.text[0] == '.') {
    if (t.text == ".loc") return loc_directive();
    if (t.text == ".shared") {
      next();
      return variable(Space::Shared, true);
    }
    if (t.text == ".local") {
      next();
      return variable(Space::Local, true);
    }
    if (t.text == ".pragma") {
      next();
      next();
      return expect_punct(';', "after .pragma");
    }
    if (t.text == ".param") {
      error_at(t.line, t.col, ".param declarations in a body are for calls, which the interpreter does not support");
      return false;
    }
    error_at(t.line, t.col, "unsupported directive '" + std::string(t.text) + "' in an entry body");
    return false;
  }
  return instruction();
}

bool Parser::instruction() {
  Inst in;
  if (is_punct('@')) {
    next();
    if (is_punct('!')) {
      next();
      in.guard_neg = true;
    }
    const Token& g = next();
    auto it = preds_.find(g.text);
    if (g.kind != Token::Word || it == preds_.end()) {
      error_at(g.line, g.col, "expected a predicate register after '@', found '" + std::string(g.text) + "'");
      return false;
    }
    in.guard = int32_t(it->second);
  }
  const Token& opc = next();
  if (opc.kind != Token::Word || opc.text[0] == '.' || opc.text[0] == '%') {
    error_at(opc.line, opc.col, "expected an instruction, found '" + std::string(opc.text) + "'");
    return false;
  }
  std::vector<ParsedOpnd> ops;
  if (!is_punct(';')) {
    while (true) {
      ParsedOpnd po;
      if (!operand(po)) return false;
      ops.push_back(std::move(po));
      if (is_punct('|')) {
        next();
        ParsedOpnd q;
        if (!operand(q)) return false;
        q.piped = true;
        ops.push_back(std::move(q));
      }
      if (!is_punct(',')) break;
      next();
    }
  }
  if (!expect_punct(';', "at the end of the instruction")) return false;
  stmt_done_ = true;
  in.line = opc.line;
  in.col = opc.col;
  in.loc = cur_loc_;
  if (!decode(opc, ops, in)) return false;
  if (e_->code.size() >= (1u << 24)) {
    error_at(opc.line, opc.col, "too many instructions in one entry");
    return false;
  }
  e_->code.push_back(in);
  e_->text.push_back(std::string(opc.text));
  return true;
}

bool Parser::operand(ParsedOpnd& po) {
  const Token& t = peek();
  po.line = t.line;
  po.col = t.col;
  if (is_punct('[')) {
    next();
    po.o.kind = Opnd::Addr;
    const Token& b = next();
    int64_t off = 0;
    if (b.kind == Token::Word) {
      auto r = regs_.find(b.text);
      if (r != regs_.end()) {
        po.o.has_base = true;
        po.o.reg = r->second;
      } else {
        auto v = vars_.find(b.text);
        const Var* var = v != vars_.end() ? &v->second : nullptr;
        if (!var) {
          auto mv = module_vars_.find(std::string(b.text));
          if (mv != module_vars_.end()) var = &mv->second;
        }
        if (!var) {
          error_at(b.line, b.col, "unknown register or variable '" + std::string(b.text) + "' in an address");
          return false;
        }
        po.o.sym_space = var->space;
        po.o.dyn_shared = var->dynamic;
        off = int64_t(var->offset);
      }
    } else if (b.kind == Token::Number) {
      uint64_t v = 0;
      if (!number(b, v)) {
        error_at(b.line, b.col, "bad address constant");
        return false;
      }
      off = int64_t(v);
    } else {
      error_at(b.line, b.col, "expected a register, variable or constant in an address");
      return false;
    }
    while (is_punct('+') || is_punct('-')) {
      bool neg = is_punct('-');
      next();
      if (is_punct('-')) {
        next();
        neg = !neg;
      }
      const Token& v = next();
      uint64_t n = 0;
      if (v.kind != Token::Number || !number(v, n)) {
        error_at(v.line, v.col, "expected a constant offset in an address");
        return false;
      }
      off = neg ? int64_t(uint64_t(off) - n) : int64_t(uint64_t(off) + n);
    }
    po.o.imm = off;
    return expect_punct(']', "to close the address");
  }
  if (is_punct('{')) {
    next();
    po.o.kind = Opnd::Vec;
    while (true) {
      ParsedOpnd el;
      if (is_punct('{') || is_punct('[')) {
        error_at(peek().line, peek().col, "a vector operand holds registers or constants");
        return false;
      }
      if (!operand(el)) return false;
      if (el.o.kind == Opnd::Vec || el.o.kind == Opnd::Addr) {
        error_at(el.line, el.col, "a vector operand holds registers or constants");
        return false;
      }
      po.elems.push_back(std::move(el));
      if (!is_punct(',')) break;
      next();
    }
    if (po.elems.size() > 8) {
      error_at(po.line, po.col, "a vector operand has at most 8 elements here");
      return false;
    }
    return expect_punct('}', "to close the vector operand");
  }
  bool neg = false;
  if (is_punct('!')) {
    next();
    const Token& w = next();
    auto it = preds_.find(w.text);
    if (it == preds_.end()) {
      error_at(w.line, w.col, "'!' must precede a predicate register");
      return false;
    }
    po.o.kind = Opnd::Pred;
    po.o.reg = it->second;
    po.o.neg = true;
    return true;
  }
  if (is_punct('-')) {
    next();
    neg = true;
  }
  const Token& w = next();
  if (w.kind == Token::Number) {
    std::string_view s = w.text;
    po.o.kind = Opnd::Imm;
    if (s.size() == 10 && (s[1] == 'f' || s[1] == 'F') && s[0] == '0') {
      uint64_t v = std::strtoull(std::string(s.substr(2)).c_str(), nullptr, 16);
      po.lit = ParsedOpnd::F32Bits;
      po.o.imm = int64_t(neg ? v ^ 0x80000000u : v);
    } else if (s.size() == 18 && (s[1] == 'd' || s[1] == 'D') && s[0] == '0') {
      uint64_t v = std::strtoull(std::string(s.substr(2)).c_str(), nullptr, 16);
      po.lit = ParsedOpnd::F64Bits;
      po.o.imm = int64_t(neg ? v ^ 0x8000000000000000ull : v);
    } else if (s.find_first_of(".eE") != std::string_view::npos && !(s.size() > 1 && (s[1] == 'x' || s[1] == 'X'))) {
      char* end = nullptr;
      std::string str(s);
      double d = std::strtod(str.c_str(), &end);
      if (!end || *end) {
        error_at(w.line, w.col, "bad number '" + str + "'");
        return false;
      }
      po.lit = ParsedOpnd::Decimal;
      po.dec = neg ? -d : d;
    } else {
      uint64_t v = 0;
      if (!number(w, v)) {
        error_at(w.line, w.col, "bad number '" + std::string(s) + "'");
        return false;
      }
      po.o.imm = int64_t(neg ? ~v + 1 : v);
    }
    return true;
  }
  if (w.kind != Token::Word || neg) {
    error_at(w.line, w.col, "expected an operand, found '" + std::string(w.text) + "'");
    return false;
  }
  if (w.text == "_") {
    po.o.kind = Opnd::Sink;
    return true;
  }
  if (auto r = regs_.find(w.text); r != regs_.end()) {
    po.o.kind = Opnd::Reg;
    po.o.reg = r->second;
    return true;
  }
  if (auto r = preds_.find(w.text); r != preds_.end()) {
    po.o.kind = Opnd::Pred;
    po.o.reg = r->second;
    return true;
  }
  if (w.text[0] == '%') {
    for (const SregName& s : kSregs)
      if (w.text == s.name) {
        po.o.kind = Opnd::Special;
        po.o.sreg = s.r;
        return true;
      }
    error_at(w.line, w.col, "unknown register '" + std::string(w.text) + "'");
    return false;
  }
  const Var* var = nullptr;
  if (auto v = vars_.find(w.text); v != vars_.end()) var = &v->second;
  else if (auto mv = module_vars_.find(std::string(w.text)); mv != module_vars_.end()) var = &mv->second;
  if (var) {
    po.o.kind = Opnd::Imm;
    po.o.sym_space = var->space;
    po.o.dyn_shared = var->dynamic;
    po.o.imm = int64_t(var->offset);
    po.sym = w.text;
    return true;
  }
  po.o.kind = Opnd::Label;
  po.sym = w.text;
  return true;
}

bool Parser::resolve_labels() {
  bool ok = true;
  // The dynamic shared memory starts after the entry's static bytes.
  e_->dyn_base = (e_->shared_bytes + m_.dyn_align - 1) / m_.dyn_align * m_.dyn_align;
  for (Opnd& o : e_->ops)
    if (o.dyn_shared) {
      o.imm += int64_t(e_->dyn_base);
      e_->uses_dyn = true;
    }
  for (const Fixup& f : fixups_) {
    auto it = labels_.find(f.label);
    if (it == labels_.end()) {
      error_at(f.line, f.col, "unknown label '" + std::string(f.label) + "'");
      ok = false;
      continue;
    }
    e_->ops[f.opnd].imm = it->second;
  }
  // A label at the very end (after the last instruction) jumps past it:
  // give the entry a final implicit exit so every target is an instruction.
  Inst ex;
  ex.op = Op::Exit;
  ex.line = e_->code.empty() ? e_->line : e_->code.back().line;
  e_->code.push_back(ex);
  e_->text.push_back("exit");
  return ok;
}

Program::~Program() = default;

std::unique_ptr<Program> Program::parse(std::string_view text, std::string& err, const std::string& name) {
  std::vector<Token> toks;
  if (!lex(text, name, toks, err)) return nullptr;
  auto m = std::make_unique<Module>();
  m->name = name;
  Parser p(toks, *m, name);
  if (!p.run(err)) return nullptr;
  std::unique_ptr<Program> prog(new Program());
  for (const Entry& e : m->entries) {
    EntryInfo info;
    info.name = e.name;
    for (size_t i = 0; i < e.param_offset.size(); ++i) {
      ParamDecl d;
      d.name = e.param_name[i];
      d.bytes = e.param_bytes[i];
      d.is_float = e.param_float[i];
      info.params.push_back(d);
    }
    for (int i = 0; i < 3; ++i) info.reqntid[i] = e.reqntid[i];
    info.shared_bytes = e.shared_total();
    info.dynamic_shared_bytes = e.dyn_bytes;
    info.local_bytes = e.local_bytes;
    info.instructions = e.code.size();
    prog->info_.push_back(info);
  }
  prog->m_ = std::move(m);
  return prog;
}

std::vector<EntryInfo> Program::entries() const { return info_; }

const EntryInfo* Program::entry(std::string_view name) const {
  for (const EntryInfo& e : info_)
    if (e.name == name) return &e;
  return nullptr;
}

const std::string& Program::target() const { return m_->target; }
const std::string& Program::version() const { return m_->version; }

}  // namespace ptoas::ptx
