// Binder core: cursors, SSA names and scopes, regions, types, attributes.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cmath>
#include <cstring>

#include "binder.h"

namespace ptoas {
namespace bind {

Binder::Binder(const SourceFile& src, const std::vector<Token>& toks, const SyntaxTree& tree,
               const FrontendOptions& opts, Module& m, Diag& diag)
    : src_(src), toks_(toks), tree_(tree), opts_(opts), m_(m), diag_(diag) {}

void Binder::fail_at(uint32_t off, uint32_t len, const std::string& msg) {
  diag_.error(off, len, msg);
  throw StmtError{};
}

void Binder::fail(uint32_t tok, const std::string& msg) {
  const Token& t = toks_[std::min<size_t>(tok, toks_.size() - 1)];
  fail_at(t.off, t.len, msg);
}

void Binder::Cursor::fail_here(const std::string& msg) {
  if (pos < end) b->fail(pos, msg);
  // At the end of a statement or group: point just past its last token.
  const Token& last = b->toks_[end > 0 ? end - 1 : 0];
  b->fail_at(last.off + last.len, 0, msg);
}

uint32_t Binder::Cursor::expect(Tok t, const char* what) {
  if (peek() != t) {
    std::string msg = std::string("expected ") + what;
    if (done()) msg += " at the end of the statement";
    else msg += std::string(", found ") + tok_name(peek()) + " '" + std::string(ptext()) + "'";
    fail_here(msg);
  }
  return pos++;
}

void Binder::Cursor::expect_ident(std::string_view w) {
  if (!accept_ident(w)) {
    std::string msg = "expected '" + std::string(w) + "'";
    if (!done()) msg += ", found '" + std::string(ptext()) + "'";
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
  auto it = names_.find(t.substr(1));
  if (it == names_.end()) fail(tok, "use of undefined value '" + std::string(t) + "'");
  return it->second;
}

ValueId Binder::def_value(uint32_t tok, std::string_view name, TypeId type, InstId def) {
  std::string key(name);
  if (names_.count(key)) {
    if (tok != kNoIndex) fail(tok, "redefinition of value '%" + key + "'");
    fail_at(0, 0, "redefinition of value '%" + key + "'");
  }
  ValueId v = ValueId(m_.values.size());
  uint32_t off = tok == kNoIndex ? 0 : toks_[tok].off;
  m_.values.push_back(Value{type, def, m_.strings.intern(name), off});
  names_.emplace(key, v);
  undo_.emplace_back(std::move(key), kNone);
  // `%x#0` is also reachable as `%x`.
  size_t hash = name.find('#');
  if (hash != std::string_view::npos && name.substr(hash + 1) == "0") {
    std::string base(name.substr(0, hash));
    if (!names_.count(base)) {
      names_.emplace(base, v);
      undo_.emplace_back(std::move(base), kNone);
    }
  }
  return v;
}

std::string Binder::fresh_name(const char* stem) {
  // Generated names must never collide with a name the source defines later
  // (collected on first use: most kernels never need a generated name).
  if (source_names_.empty())
    for (const Token& t : toks_)
      if (t.kind == Tok::ValueDef || t.kind == Tok::IvDef)
        source_names_.emplace(src_.text().substr(t.off + 1, t.len - 1));
  for (;;) {
    std::string n = std::string(stem) + std::to_string(fresh_counter_++);
    if (!source_names_.count(n) && names_.find(n) == names_.end()) return n;
  }
}

void Binder::push_scope() { scope_marks_.push_back(undo_.size()); }

void Binder::pop_scope() {
  size_t mark = scope_marks_.back();
  scope_marks_.pop_back();
  while (undo_.size() > mark) {
    names_.erase(undo_.back().first);
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
    if (mark_regions && k == Tok::LBrace && tree_.region_at(i) != kNoIndex) {
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
         prev == Tok::ValueUse || prev == Tok::GenericOp))
      space = false;
    if (k == Tok::RBrace && prev == Tok::LBrace) space = false;
    if (space) s += ' ';
    s += text(i);
    prev = k;
  }
  return s;
}

// ---- shapes and types ----------------------------------------------------------

bool parse_shape_token(std::string_view s, std::vector<int64_t>& dims, DType& elem,
                       bool& has_elem) {
  dims.clear();
  has_elem = false;
  elem = DType::None;
  size_t i = 0;
  while (i <= s.size()) {
    size_t x = s.find('x', i);
    std::string_view part = s.substr(i, x == std::string_view::npos ? std::string_view::npos : x - i);
    if (part == "?") {
      dims.push_back(kDyn);
    } else if (!part.empty() && std::isdigit((unsigned char)part[0])) {
      int64_t v = 0;
      for (char ch : part) {
        if (!std::isdigit((unsigned char)ch)) return false;
        v = v * 10 + (ch - '0');
        if (v > (int64_t(1) << 40)) return false;
      }
      dims.push_back(v);
    } else {
      // The element type ends the shape: it may itself contain 'x'? No
      // builtin element type does, so the rest is the type name.
      std::string_view rest = s.substr(i);
      elem = parse_dtype(rest);
      has_elem = true;
      return elem != DType::None;
    }
    if (x == std::string_view::npos) break;
    i = x + 1;
  }
  return true;
}

namespace {

bool parse_int(std::string_view s, int64_t& v) {
  bool neg = false;
  size_t i = 0;
  if (!s.empty() && s[0] == '-') { neg = true; i = 1; }
  if (i >= s.size()) return false;
  uint64_t acc = 0;
  if (s.size() > i + 1 && s[i] == '0' && s[i + 1] == 'x') {
    for (i += 2; i < s.size(); ++i) {
      int d = std::isdigit((unsigned char)s[i]) ? s[i] - '0' : (std::tolower(s[i]) - 'a' + 10);
      if (acc > (UINT64_MAX >> 4)) return false;
      acc = acc * 16 + uint64_t(d);
    }
  } else {
    for (; i < s.size(); ++i) {
      if (!std::isdigit((unsigned char)s[i])) return false;
      if (acc > (UINT64_MAX - 9) / 10) return false;
      acc = acc * 10 + uint64_t(s[i] - '0');
    }
  }
  v = neg ? -int64_t(acc) : int64_t(acc);
  return true;
}

Loc loc_from_word(std::string_view w) {
  if (w == "vec" || w == "ub") return Loc::Vec;
  if (w == "mat" || w == "cbuf" || w == "l1") return Loc::Mat;
  if (w == "left" || w == "l0a") return Loc::Left;
  if (w == "right" || w == "l0b") return Loc::Right;
  if (w == "acc" || w == "l0c") return Loc::Acc;
  if (w == "bias") return Loc::Bias;
  if (w == "scaling") return Loc::Scaling;
  if (w == "gm") return Loc::Gm;
  return Loc::None;
}

}  // namespace

// `!pto.tile_buf<...>` in its keyword form (loc=..., dtype=..., ...; any key
// order) or compact form (vec, 16x16xf32, key=value ...); `!pto.tile<...>`
// forms of the docs. `c` is the cursor inside the angle brackets.
static void parse_tile_body(Binder& b, Binder::Cursor& c, Type& t, bool docs_tile,
                            uint32_t type_tok) {
  t.kind = TypeKind::TileBuf;
  t.loc = Loc::Vec;
  t.rows = t.cols = -2;  // unset
  t.vrow = t.vcol = -2;
  bool have_dtype = false;
  bool keyword_form = c.is_ident("loc") && c.peek2() == Tok::Equal;
  auto int_value = [&](const char* what) -> int32_t {
    if (c.accept(Tok::Question)) return kDyn;
    uint32_t tok = c.pos;
    if (c.peek() != Tok::Int) c.fail_here(std::string("expected an integer for '") + what + "'");
    int64_t v;
    if (!parse_int(b.text(tok), v) || v < -1 || v > (1 << 24))
      b.fail(tok, std::string("'") + what + "' is out of range");
    ++c.pos;
    return int32_t(v);
  };
  auto word = [&](const char* what) -> std::string_view {
    if (c.peek() != Tok::Ident) c.fail_here(std::string("expected a word for '") + what + "'");
    return b.text(c.pos++);
  };
  std::vector<int64_t> dims;
  DType elem;
  bool has_elem;
  unsigned positional = 0;
  std::unordered_set<std::string> seen;
  while (!c.done()) {
    if (c.peek() == Tok::Ident && c.peek2() == Tok::Equal) {
      uint32_t key_tok = c.pos;
      std::string key(c.ptext());
      c.pos += 2;
      if (!seen.insert(key).second) b.fail(key_tok, "duplicate tile parameter '" + key + "'");
      if (key == "loc") {
        t.loc = loc_from_word(word("loc"));
        if (t.loc == Loc::None || t.loc == Loc::Gm) b.fail(c.pos - 1, "unknown tile location");
      } else if (key == "dtype") {
        t.elem = parse_dtype(word("dtype"));
        if (t.elem == DType::None) b.fail(c.pos - 1, "unknown element type");
        have_dtype = true;
      } else if (key == "rows") {
        t.rows = int_value("rows");
      } else if (key == "cols") {
        t.cols = int_value("cols");
      } else if (key == "v_row") {
        t.vrow = int_value("v_row");
      } else if (key == "v_col") {
        t.vcol = int_value("v_col");
      } else if (key == "valid") {
        if (c.peek() != Tok::Shape) c.fail_here("expected 'valid=RxC'");
        if (!parse_shape_token(c.ptext(), dims, elem, has_elem) || has_elem || dims.size() != 2)
          c.fail_here("expected 'valid=RxC'");
        t.vrow = int32_t(dims[0] > (1 << 24) ? -3 : dims[0]);
        t.vcol = int32_t(dims[1] > (1 << 24) ? -3 : dims[1]);
        ++c.pos;
      } else if (key == "blayout") {
        std::string_view w = word("blayout");
        if (w == "row_major") t.blayout = BLayout::RowMajor;
        else if (w == "col_major") t.blayout = BLayout::ColMajor;
        else b.fail(c.pos - 1, "blayout must be row_major or col_major");
      } else if (key == "slayout") {
        std::string_view w = word("slayout");
        if (w == "none_box") t.slayout = SLayout::NoneBox;
        else if (w == "row_major") t.slayout = SLayout::RowMajor;
        else if (w == "col_major") t.slayout = SLayout::ColMajor;
        else b.fail(c.pos - 1, "slayout must be none_box, row_major or col_major");
      } else if (key == "fractal") {
        int32_t f = int_value("fractal");
        if (f < 0 || f > 65535) b.fail(c.pos - 1, "fractal is out of range");
        t.fractal = uint16_t(f);
      } else if (key == "pad") {
        int32_t p = int_value("pad");
        if (p < 0 || p > 255) b.fail(c.pos - 1, "pad is out of range");
        t.pad = uint8_t(p);
      } else if (key == "compact") {
        int32_t p = int_value("compact");
        if (p < 0 || p > 255) b.fail(c.pos - 1, "compact is out of range");
        t.compact = uint8_t(p);
      } else {
        b.fail(key_tok, "unknown tile parameter '" + key + "'");
      }
    } else if (c.peek() == Tok::Shape && positional <= 1) {
      if (!parse_shape_token(c.ptext(), dims, elem, has_elem) || !has_elem || dims.size() != 2)
        c.fail_here("expected a tile shape 'RxCxT'");
      if (dims[0] > (1 << 24) || dims[1] > (1 << 24) || dims[0] < 0 || dims[1] < 0)
        c.fail_here("tile shape must be static and at most 2^24");
      t.rows = int32_t(dims[0]);
      t.cols = int32_t(dims[1]);
      t.elem = elem;
      have_dtype = true;
      ++c.pos;
      positional = 2;
    } else if (c.peek() == Tok::Ident && positional == 0 && !keyword_form &&
               loc_from_word(c.ptext()) != Loc::None && loc_from_word(c.ptext()) != Loc::Gm &&
               !docs_tile) {
      t.loc = loc_from_word(c.ptext());
      ++c.pos;
      positional = 1;
    } else if (docs_tile && c.peek() == Tok::Ident && !have_dtype &&
               parse_dtype(c.ptext()) != DType::None) {
      // !pto.tile<f32, 16, 16>
      t.elem = parse_dtype(c.ptext());
      have_dtype = true;
      ++c.pos;
      c.expect(Tok::Comma, "','");
      t.rows = int_value("rows");
      c.expect(Tok::Comma, "','");
      t.cols = int_value("cols");
      positional = 2;
    } else if (docs_tile && c.peek() == Tok::Ident) {
      std::string_view w = c.ptext();
      if (w == "RowMajor") t.blayout = BLayout::RowMajor;
      else if (w == "ColMajor") t.blayout = BLayout::ColMajor;
      else if (w == "NoneBox") t.slayout = SLayout::NoneBox;
      else if (w == "Null" || w == "None") {}
      else if (w == "Zero") t.pad = 1;
      else if (w == "Max") t.pad = 2;
      else if (w == "Min") t.pad = 3;
      else c.fail_here("unknown tile parameter '" + std::string(w) + "'");
      ++c.pos;
    } else {
      c.fail_here("unexpected token in tile type");
    }
    if (!c.done()) c.expect(Tok::Comma, "',' between tile parameters");
  }
  if (!have_dtype) b.fail(type_tok, "tile type needs an element type");
  if (t.rows == -2 || t.cols == -2) b.fail(type_tok, "tile type needs rows and cols");
  if (t.rows < 0 || t.cols < 0) b.fail(type_tok, "tile rows and cols must be static");
  if (keyword_form) {
    static const char* const kNeeded[] = {"dtype", "rows", "cols", "v_row", "v_col",
                                          "blayout", "slayout", "fractal", "pad"};
    for (const char* k : kNeeded)
      if (!seen.count(k)) b.fail(type_tok, std::string("tile type is missing '") + k + "'");
  }
  if (t.vrow == -2) t.vrow = t.rows;
  if (t.vcol == -2) t.vcol = t.cols;
  if (t.vrow == -3 || t.vcol == -3) b.fail(type_tok, "valid shape is out of range");
  // PTOAS semantics: with an arch in force, a `left` tile's blayout is the
  // arch's (A3 row-major, A5 column-major), whatever the text says.
  if (t.loc == Loc::Left) t.blayout = b.m_.arch == Arch::A5 ? BLayout::ColMajor : BLayout::RowMajor;
}

static void parse_view_body(Binder& b, Binder::Cursor& c, Type& t, std::vector<int64_t>& dims,
                            uint32_t type_tok) {
  DType elem;
  bool has_elem;
  if (c.peek() == Tok::Shape) {
    if (!parse_shape_token(c.ptext(), dims, elem, has_elem) || !has_elem)
      c.fail_here("expected a shape 'DxDxT'");
    t.elem = elem;
    ++c.pos;
  } else if (c.peek() == Tok::Ident && parse_dtype(c.ptext()) != DType::None) {
    t.elem = parse_dtype(c.ptext());
    ++c.pos;
  } else {
    c.fail_here("expected a shape 'DxDxT'");
  }
  if (dims.size() > 8) b.fail(type_tok, "views have at most 8 dimensions");
  if (!c.done()) c.fail_here("unexpected token in view type");
}

TypeId Binder::parse_type(Cursor& c, TypeKind hint) {
  uint32_t start = c.pos;
  // The cache key is the exact source text of the type; the hint only
  // matters for `<...>` bodies without a type name, which are not cached.
  uint32_t last = kNoIndex;
  if (c.peek() == Tok::TypeAlias && c.peek2() == Tok::LAngle) last = partner(c.pos + 1);
  else if (c.peek() == Tok::Ident && c.peek2() != Tok::LAngle) last = c.pos;
  std::string_view key;
  if (last != kNoIndex && last < c.end) {
    key = src_.text().substr(toks_[start].off, toks_[last].off + toks_[last].len - toks_[start].off);
    auto it = type_cache_.find(key);
    if (it != type_cache_.end()) {
      c.pos = last + 1;
      return it->second;
    }
  }
  TypeId id = parse_type_uncached(c, hint);
  if (!key.empty() && c.pos == last + 1) type_cache_.emplace(key, id);
  return id;
}

TypeId Binder::parse_type_uncached(Cursor& c, TypeKind hint) {
  uint32_t start = c.pos;
  Type t;
  std::vector<int64_t> dims;
  Tok k = c.peek();
  if (k == Tok::Ident) {
    std::string_view w = c.ptext();
    DType d = parse_dtype(w);
    if (d != DType::None) {
      ++c.pos;
      return scalar(d);
    }
    if ((w == "memref" || w == "vector") && c.peek2() == Tok::LAngle) {
      ++c.pos;
      Cursor in = c.enter();
      bool has_elem = false;
      if (in.peek() == Tok::Shape &&
          parse_shape_token(in.ptext(), dims, t.elem, has_elem) && has_elem) {
      } else if (in.peek() == Tok::Ident && parse_dtype(in.ptext()) != DType::None) {
        t.elem = parse_dtype(in.ptext());
        dims.clear();
      } else {
        in.fail_here(std::string("expected a shape in ") + std::string(w) + " type");
      }
      if (w == "vector") {
        if (in.pos + 1 != in.end) in.fail_here("unexpected token in vector type");
        t.kind = TypeKind::Vector;
        return m_.types.intern(t, dims);
      }
      t.kind = TypeKind::Memref;
      t.loc = Loc::Gm;
      for (uint32_t i = in.pos; i + 3 < in.end; ++i)
        if (kind(i) == Tok::AttrAlias && text(i) == "#pto.address_space" &&
            kind(i + 1) == Tok::LAngle && kind(i + 2) == Tok::Ident)
          t.loc = loc_from_word(text(i + 2));
      t.text = m_.strings.intern(render(start, c.pos));
      return m_.types.intern(t, dims);
    }
    c.fail_here("unknown type '" + std::string(w) + "'");
  }
  if (k == Tok::TypeAlias || k == Tok::LAngle) {
    std::string_view alias = k == Tok::TypeAlias ? c.ptext() : std::string_view();
    if (k == Tok::TypeAlias) ++c.pos;
    TypeKind kind_wanted = hint;
    if (alias == "!pto.tile_buf" || alias == "!pto.tile") kind_wanted = TypeKind::TileBuf;
    else if (alias == "!pto.ptr") kind_wanted = TypeKind::Ptr;
    else if (alias == "!pto.tensor_view") kind_wanted = TypeKind::TensorView;
    else if (alias == "!pto.partition_tensor_view") kind_wanted = TypeKind::PartitionView;
    else if (!alias.empty()) kind_wanted = TypeKind::Other;
    if (c.peek() != Tok::LAngle) {
      if (alias.empty() || kind_wanted != TypeKind::Other)
        c.fail_here("expected '<' after the type name");
      t.kind = TypeKind::Other;
      t.text = m_.strings.intern(alias);
      return m_.types.intern(t);
    }
    uint32_t body_open = c.pos;
    Cursor in = c.enter();
    switch (kind_wanted) {
      case TypeKind::TileBuf: {
        // The legacy memref-like spelling (`<32x32xf32, strided<...>, ...>`)
        // is not a tile description we can read.
        parse_tile_body(*this, in, t, alias == "!pto.tile", body_open);
        return m_.types.intern(t);
      }
      case TypeKind::Ptr: {
        if (in.peek() != Tok::Ident || parse_dtype(in.ptext()) == DType::None)
          in.fail_here("expected an element type in !pto.ptr");
        t.kind = TypeKind::Ptr;
        t.elem = parse_dtype(in.ptext());
        ++in.pos;
        if (in.accept(Tok::Comma)) {
          if (in.peek() != Tok::Ident || loc_from_word(in.ptext()) != Loc::Gm)
            in.fail_here("only global-memory pointers ('gm') are supported");
          ++in.pos;
        }
        if (!in.done()) in.fail_here("unexpected token in !pto.ptr");
        t.loc = Loc::Gm;
        return m_.types.intern(t);
      }
      case TypeKind::TensorView:
      case TypeKind::PartitionView:
        t.kind = kind_wanted;
        parse_view_body(*this, in, t, dims, body_open);
        return m_.types.intern(t, dims);
      default:
        if (alias.empty()) fail(start, "a type without a name needs a known context");
        t.kind = TypeKind::Other;
        t.text = m_.strings.intern(render(start, c.pos));
        return m_.types.intern(t);
    }
  }
  if (k == Tok::LParen) c.fail_here("expected a type, found a type list");
  c.fail_here("expected a type");
}

void Binder::parse_type_list(Cursor& c, std::vector<TypeId>& out) {
  if (c.peek() == Tok::LParen) {
    Cursor in = c.enter();
    while (!in.done()) {
      out.push_back(parse_type(in));
      if (!in.done()) in.expect(Tok::Comma, "','");
    }
    return;
  }
  out.push_back(parse_type(c));
}

// ---- literals --------------------------------------------------------------------

// The attribute of a numeric literal token typed `ty` (arith.constant and the
// assembly form's immediates): one set of rules for both, so that whatever
// is accepted prints as a constant that reads back.
Attr Binder::literal_attr(uint32_t lit, TypeId ty) {
  const Type& t = m_.types.get(ty);
  Tok k = kind(lit);
  std::string_view lt = text(lit);
  Attr a;
  a.dtype = t.elem;
  a.text = m_.strings.intern(lt);
  bool is_float_type = t.kind == TypeKind::Scalar && dtype_is_float(t.elem);
  if (t.kind != TypeKind::Scalar) fail(lit, "a numeric literal needs a scalar type, not " + type_text(ty));
  if (k == Tok::Float) {
    if (!is_float_type) fail(lit, "a float literal needs a float type, not " + type_text(ty));
    a.kind = AttrKind::Float;
    a.fval = std::strtod(std::string(lt).c_str(), nullptr);
    double r = t.elem == DType::F64 ? a.fval : double(float(a.fval));
    if (t.elem == DType::F16 && std::fabs(a.fval) >= 65520.0) r = INFINITY;
    if (t.elem == DType::BF16 && std::fabs(a.fval) >= 3.3961775292304601e38) r = INFINITY;
    if (std::isinf(r)) fail(lit, "float literal is out of range for " + type_text(ty));
    return a;
  }
  a.kind = AttrKind::Int;
  if (!parse_int(lt, a.ival)) fail(lit, "integer literal does not fit in 64 bits");
  unsigned bits = t.elem == DType::Index ? 64 : t.elem == DType::I1 ? 1 : dtype_bytes(t.elem) * 8;
  bool hex = lt.find("0x") != std::string_view::npos;
  if (bits < 64) {
    // Signless integers: the signed and the unsigned range are both fine.
    int64_t lo = -(int64_t(1) << (bits - 1)), hi = int64_t((uint64_t(1) << bits) - 1);
    if (hex && is_float_type && a.ival < 0) fail(lit, "a bit pattern cannot be negative");
    if (a.ival < lo || a.ival > hi)
      fail(lit, std::string(hex && is_float_type ? "bit pattern" : "integer literal") +
                    " does not fit in " + type_text(ty));
  }
  return a;
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
  if (tree_.region_at(c.pos) != kNoIndex && partner(c.pos) != c.pos + 1)
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
      if (m_.str(na.key) == key) fail(key_tok, "duplicate attribute '" + key + "'");
    AttrId v;
    if (in.accept(Tok::Equal)) v = parse_attr_value(in);
    else v = make_attr(AttrKind::Unit, "unit");
    out.push_back(NamedAttr{m_.strings.intern(key), v});
    if (!in.done()) in.expect(Tok::Comma, "',' between attributes");
  }
}

// ---- building -------------------------------------------------------------------

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
    if (result_group_.size() > i && result_group_[i]) name += "#" + std::to_string(result_index_[i]);
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
  uint32_t rid = tree_.region_at(brace_tok);
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
      uint32_t p = sr.label + 1;
      if (kind(p) == Tok::LParen) {
        if (!args.empty()) fail(sr.label, "this region's arguments are already named");
        Cursor in{this, p + 1, partner(p)};
        while (!in.done()) {
          uint32_t vt = in.pos;
          if (in.peek() != Tok::ValueUse) in.fail_here("expected a block argument '%name'");
          ++in.pos;
          in.expect(Tok::Colon, "':' and a type");
          TypeId ty = parse_type(in);
          arg_vals.push_back(def_value(vt, text(vt).substr(1), ty, kNone));
          if (!in.done()) in.expect(Tok::Comma, "','");
        }
      }
    }
  } catch (...) {
    pop_scope();
    throw;
  }
  std::vector<InstId> body;
  region_stack_.push_back(&body);
  for (uint32_t i = 0; i < sr.stmt_count; ++i) {
    bind_stmt(tree_.region_stmts[sr.stmt_begin + i]);
    if (diag_.too_many()) break;
  }
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
    collect_results(s);
    Op op = Op::Count;
    if (kind(s.op) == Tok::GenericOp) {
      std::string_view n = text(s.op);
      op = lookup_op(n.substr(1, n.size() - 2));
      if (op == Op::Count) fail(s.op, "unknown operation " + std::string(n));
    } else {
      op = lookup_op(text(s.op));
    }
    Cursor c{this, s.op + 1, s.end};
    if (kind(s.op) == Tok::GenericOp) {
      bind_generic(op, c, s);
      return;
    }
    switch (op_info(op).syn) {
      case Syn::Module:
        fail(s.op, "a module can only appear at the top level");
      case Syn::Func:
        bind_func(c, s);
        return;
      case Syn::Return: case Syn::Call: case Syn::For: case Syn::If: case Syn::While:
      case Syn::Condition: case Syn::Yield:
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
  if (c.peek() == Tok::Symbol) m_.module_name = m_.strings.intern(text(c.pos++));
  if (c.accept_ident("attributes")) parse_attr_dict(c, m_.module_attrs);
  resolve_arch();
  if (c.peek() != Tok::LBrace) c.fail_here("expected the module body '{'");
  uint32_t brace = c.pos;
  c.enter();
  if (!c.done()) c.fail_here("unexpected token after the module body");
  m_.body = bind_region(brace, {});
}

bool Binder::run() {
  m_.level = opts_.level;
  std::vector<InstId> top;
  region_stack_.push_back(&top);
  // One `module { ... }`, or functions at the top level (an implicit module).
  bool has_module = false;
  for (uint32_t id : tree_.top) {
    const SynStmt& s = tree_.stmts[id];
    if (kind(s.op) == Tok::OpName && lookup_op(text(s.op)) == Op::Module) has_module = true;
  }
  if (has_module) {
    if (tree_.top.size() != 1) {
      for (uint32_t id : tree_.top) {
        const SynStmt& s = tree_.stmts[id];
        if (lookup_op(text(s.op)) != Op::Module || id != tree_.top[0]) {
          diag_.error(toks_[s.op].off, toks_[s.op].len,
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
      Op op = kind(s.op) == Tok::OpName ? lookup_op(text(s.op)) : Op::Count;
      if (op != Op::Func) {
        diag_.error(toks_[s.op].off, toks_[s.op].len,
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
