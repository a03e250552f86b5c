// The PTX parser: module directives, variables, entries, statements and
// operands. Opcodes are decoded in parse_inst.cpp. Errors are located
// ("NAME:LINE:COL: error: ..."); after one, the parser skips to the end of
// the statement and goes on (at most 20 are reported).
#include <algorithm>
#include <cstring>


#include "parse.h"
#include "ptx.h"

namespace ptoas::ptx {

namespace {

constexpr int kMaxErrors = 20;

}  // namespace

bool type_word(std::string_view w, Ty& t) {
  static const std::pair<const char*, Ty> k[] = {
      {".pred", Ty::Pred}, {".b8", Ty::B8},   {".b16", Ty::B16},   {".b32", Ty::B32},     {".b64", Ty::B64},
      {".b128", Ty::B128}, {".u8", Ty::U8},   {".u16", Ty::U16},   {".u32", Ty::U32},     {".u64", Ty::U64},
      {".s8", Ty::S8},     {".s16", Ty::S16}, {".s32", Ty::S32},   {".s64", Ty::S64},     {".f16", Ty::F16},
      {".f16x2", Ty::F16x2}, {".bf16", Ty::BF16}, {".bf16x2", Ty::BF16x2}, {".tf32", Ty::TF32},
      {".f32", Ty::F32},   {".f64", Ty::F64},
  };
  for (auto& [n, ty] : k)
    if (w == n) {
      t = ty;
      return true;
    }
  return false;
}

unsigned ty_bytes(Ty t) {
  switch (t) {
    case Ty::None: return 0;
    case Ty::Pred: return 1;
    case Ty::B8: case Ty::U8: case Ty::S8: return 1;
    case Ty::B16: case Ty::U16: case Ty::S16: case Ty::F16: case Ty::BF16: return 2;
    case Ty::B32: case Ty::U32: case Ty::S32: case Ty::F32: case Ty::F16x2: case Ty::BF16x2: case Ty::TF32: return 4;
    case Ty::B64: case Ty::U64: case Ty::S64: case Ty::F64: return 8;
    case Ty::B128: return 16;
  }
  return 0;
}

const char* ty_name(Ty t) {
  static const char* k[] = {"none", ".pred", ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32",
                            ".u64", ".s8", ".s16", ".s32", ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2",
                            ".tf32", ".f32", ".f64"};
  return k[size_t(t)];
}

void Parser::error_at(uint32_t line, uint32_t col, const std::string& msg) {
  failed_ = true;
  if (nerrs_ < kMaxErrors)
    errs_ += name_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: " + msg + "\n";
  else if (nerrs_ == kMaxErrors)
    errs_ += name_ + ": error: too many errors; stopped\n";
  ++nerrs_;
}

bool Parser::expect_punct(char c, const char* what) {
  if (is_punct(c)) {
    next();
    return true;
  }
  const Token& t = peek();
  error_at(t.line, t.col, std::string("expected '") + c + "' " + what + ", found " +
                              (t.kind == Token::End ? std::string("the end of the text") : "'" + std::string(t.text) + "'"));
  return false;
}

void Parser::skip_statement() {
  int depth = 0;
  while (peek().kind != Token::End) {
    if (is_punct('{')) ++depth;
    if (is_punct('}')) {
      if (depth == 0) return;
      --depth;
    }
    if (is_punct(';') && depth == 0) {
      next();
      return;
    }
    next();
  }
}

bool Parser::number(const Token& t, uint64_t& v) {
  std::string_view s = t.text;
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.remove_suffix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
    base = 2;
    s.remove_prefix(2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  unsigned __int128 acc = 0;
  for (char c : s) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
    if (d >= base) return false;
    acc = acc * unsigned(base) + unsigned(d);
    if (acc > ~uint64_t(0)) return false;
  }
  v = uint64_t(acc);
  return true;
}

bool Parser::run(std::string& err) {
  while (peek().kind != Token::End && nerrs_ <= kMaxErrors) {
    failed_ = false;
    size_t at = p_;
    if (!module_directive() || failed_) {
      if (p_ == at) next();
      skip_statement();
    }
  }
  if (nerrs_ == 0 && m_.entries.empty() && !m_.version.empty()) {
    // A module without entries parses; launching it reports the name.
  }
  if (nerrs_ == 0 && m_.version.empty()) error_at(1, 1, "missing .version directive");
  err = errs_;
  if (!err.empty() && err.back() == '\n') err.pop_back();
  return nerrs_ == 0;
}

bool Parser::module_directive() {
  const Token& t = peek();
  if (t.kind != Token::Word) {
    error_at(t.line, t.col, "expected a directive, found '" + std::string(t.text) + "'");
    return false;
  }
  std::string_view w = t.text;
  if (w == ".version") {
    next();
    const Token& v = next();
    if (v.kind != Token::Number) {
      error_at(v.line, v.col, ".version expects MAJOR.MINOR");
      return false;
    }
    m_.version = std::string(v.text);
    return true;
  }
  if (w == ".target") {
    next();
    const Token& v = next();
    if (v.kind != Token::Word) {
      error_at(v.line, v.col, ".target expects an architecture (sm_80)");
      return false;
    }
    m_.target = std::string(v.text);
    while (is_punct(',')) {
      next();
      next();  // texmode_independent, debug, map_f64_to_f32
    }
    return true;
  }
  if (w == ".address_size") {
    next();
    const Token& v = next();
    uint64_t n = 0;
    if (v.kind != Token::Number || !number(v, n) || (n != 32 && n != 64)) {
      error_at(v.line, v.col, ".address_size expects 32 or 64");
      return false;
    }
    if (n != 64) {
      error_at(v.line, v.col, "only .address_size 64 is supported");
      return false;
    }
    return true;
  }
  if (w == ".file") {
    next();
    const Token& idx = next();
    uint64_t n = 0;
    if (idx.kind != Token::Number || !number(idx, n) || n > 4096) {
      error_at(idx.line, idx.col, ".file expects an index and a quoted path");
      return false;
    }
    const Token& path = next();
    if (path.kind != Token::String) {
      error_at(path.line, path.col, ".file expects a quoted path");
      return false;
    }
    if (m_.files.size() <= n) m_.files.resize(n + 1);
    m_.files[n] = std::string(path.text);
    while (is_punct(',')) {  // timestamp, size
      next();
      next();
    }
    return true;
  }
  if (w == ".visible" || w == ".weak" || w == ".extern") {
    next();
    extern_ = w == ".extern";
    bool ok = module_directive();
    extern_ = false;
    return ok;
  }
  if (w == ".pto.dynamic_shared_bytes") {
    next();
    const Token& v = next();
    // A bound against nonsense only: the launch checks the device's own
    // (228 KiB on NVIDIA GPUs and the interpreter); the amdgpu backend,
    // whose input this PTX also is, moves up to 16 MiB to global memory.
    if (!number(v, pending_dyn_) || pending_dyn_ > (16u << 20)) {
      error_at(v.line, v.col, "pto.dynamic_shared_bytes: expected a size of at most 16 MiB");
      return false;
    }
    return true;
  }
  if (w == ".entry") return entry_decl();
  if (w == ".func") {
    error_at(t.line, t.col, "functions (.func) are not supported by the PTX interpreter; only .entry kernels");
    return false;
  }
  if (w == ".global" || w == ".shared" || w == ".const") {
    next();
    return variable(w == ".global" ? Space::Global : w == ".shared" ? Space::Shared : Space::Const, false);
  }
  if (w == ".loc") return loc_directive();
  error_at(t.line, t.col, "unsupported module directive '" + std::string(w) + "'");
  return false;
}

// [.align N] [.vN] .type name[dims] [= init] ;  (the space word is consumed)
bool Parser::variable(Space sp, bool entry_scope) {
  uint64_t align = 0, vecn = 1;
  Ty ty = Ty::None;
  while (peek().kind == Token::Word && peek().text[0] == '.') {
    const Token& d = next();
    if (d.text == ".align") {
      const Token& v = next();
      if (v.kind != Token::Number || !number(v, align) || align == 0 || (align & (align - 1)) || align > 4096) {
        error_at(v.line, v.col, ".align expects a power of two");
        return false;
      }
    } else if (d.text == ".v2" || d.text == ".v4") {
      vecn = d.text == ".v2" ? 2 : 4;
    } else if (!type_word(d.text, ty) || ty == Ty::Pred) {
      error_at(d.line, d.col, "unsupported variable attribute '" + std::string(d.text) + "'");
      return false;
    }
  }
  if (ty == Ty::None) {
    error_at(peek().line, peek().col, "a variable needs a type");
    return false;
  }
  const Token& nm = next();
  if (nm.kind != Token::Word) {
    error_at(nm.line, nm.col, "expected a variable name");
    return false;
  }
  uint64_t count = 1;
  bool dynamic = false;
  if (is_punct('[') && is_punct(']', 1)) {
    // .extern .shared .align A .b8 name[]: the dynamic shared memory.
    if (!extern_ || sp != Space::Shared || entry_scope) {
      error_at(nm.line, nm.col, "an array without a size is only the dynamic shared memory (.extern .shared ... name[])");
      return false;
    }
    next();
    next();
    dynamic = true;
  }
  while (is_punct('[')) {
    next();
    const Token& v = next();
    uint64_t n = 0;
    if (v.kind != Token::Number || !number(v, n) || n == 0 || n > (uint64_t(1) << 30)) {
      error_at(v.line, v.col, "an array size must be a positive constant");
      return false;
    }
    count *= n;
    if (count > (uint64_t(1) << 30)) {
      error_at(v.line, v.col, "variable too large");
      return false;
    }
    if (!expect_punct(']', "after the array size")) return false;
  }
  uint64_t elem = ty_bytes(ty) * vecn;
  uint64_t bytes = elem * count;
  if (!align) align = elem;
  Var var;
  var.space = sp;
  var.bytes = bytes;
  var.align = align;
  if (dynamic) {
    if (!expect_punct(';', "after the variable")) return false;
    var.dynamic = true;
    var.offset = 0;
    var.bytes = 0;
    m_.dyn_align = std::max<uint64_t>(m_.dyn_align, align);
    module_vars_[std::string(nm.text)] = var;
    return true;
  }
  std::vector<uint8_t> init;
  if ((sp == Space::Global || sp == Space::Const) && bytes > (uint64_t(256) << 20)) {
    error_at(nm.line, nm.col, "module data (.global/.const variables) over 256 MiB");
    return false;
  }
  if (is_punct('=')) {
    next();
    if (sp == Space::Shared || sp == Space::Local) {
      error_at(nm.line, nm.col, "shared and local variables cannot have initializers");
      return false;
    }
    init.resize(bytes);
    size_t k = 0;
    bool brace = is_punct('{');
    if (brace) next();
    while (true) {
      bool neg = false;
      if (is_punct('-')) {
        next();
        neg = true;
      }
      const Token& v = next();
      uint64_t bits = 0;
      if (v.kind != Token::Number) {
        error_at(v.line, v.col, "initializers must be numbers");
        return false;
      }
      if ((v.text.size() == 10 && (v.text[1] == 'f' || v.text[1] == 'F')) ||
          (v.text.size() == 18 && (v.text[1] == 'd' || v.text[1] == 'D'))) {
        Token h = v;
        std::string hex = "0x" + std::string(v.text.substr(2));
        h.text = hex;
        number(h, bits);
      } else if (!number(v, bits)) {
        error_at(v.line, v.col, "unsupported initializer '" + std::string(v.text) + "'");
        return false;
      }
      if (neg) bits = ~bits + 1;
      if (k + ty_bytes(ty) <= init.size()) std::memcpy(init.data() + k, &bits, ty_bytes(ty));
      k += ty_bytes(ty);
      if (!brace || !is_punct(',')) break;
      next();
    }
    if (brace && !expect_punct('}', "after the initializer")) return false;
  }
  if (!expect_punct(';', "after the variable")) return false;
  std::string_view name = nm.text;
  if (sp == Space::Shared) {
    uint64_t& top = entry_scope ? e_->shared_bytes : m_.module_shared_bytes;
    top = align_up(top, align);
    var.offset = top;
    top += bytes;
  } else if (sp == Space::Local) {
    e_->local_bytes = align_up(e_->local_bytes, align);
    var.offset = e_->local_bytes;
    e_->local_bytes += bytes;
  } else {
    init.resize(bytes);
    module_data_bytes_ += bytes + align;
    if (module_data_bytes_ > (uint64_t(256) << 20)) {
      error_at(nm.line, nm.col, "module data (.global/.const variables) over 256 MiB");
      return false;
    }
    // Over-allocate to the alignment so the host address is aligned too.
    std::vector<uint8_t>& buf = m_.data.emplace_back(bytes + align);
    uint64_t base = reinterpret_cast<uint64_t>(buf.data());
    uint64_t addr = align_up(base, align);
    std::memcpy(buf.data() + (addr - base), init.data(), bytes);
    var.offset = addr;  // the host address
  }
  if (entry_scope)
    vars_[name] = var;
  else
    module_vars_[std::string(name)] = var;
  return true;
}

bool Parser::loc_directive() {
  next();  // .loc
  uint64_t f = 0, l = 0, c = 0;
  const Token& a = next();
  const Token& b = next();
  const Token& cc = next();
  if (!number(a, f) || !number(b, l) || !number(cc, c)) {
    error_at(a.line, a.col, ".loc expects FILE LINE COLUMN");
    return false;
  }
  while (is_punct(',')) {  // , function_name LABEL [+ N] / , inlined_at F L C
    next();
    const Token& k = next();
    if (k.text == "inlined_at") {
      next();
      next();
      next();
    } else {
      next();
      if (is_punct('+')) {
        next();
        next();
      }
    }
  }
  Loc loc;
  loc.file = uint32_t(std::min<uint64_t>(f, 1u << 30));
  loc.line = uint32_t(std::min<uint64_t>(l, 1u << 30));
  loc.col = uint32_t(std::min<uint64_t>(c, 1u << 30));
  m_.locs.push_back(loc);
  cur_loc_ = uint32_t(m_.locs.size());
  return true;
}

}  // namespace ptoas::ptx
