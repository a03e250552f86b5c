// Binder: types (tile buffers in every spelling, views, pointers, memrefs),
// shapes and numeric literals. See binder.h.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "binder.h"
#include "token_stream.h"
#include "vpto_types.h"

namespace ptoas {
namespace bind {

// ---- shapes and types ----------------------------------------------------------

bool parse_shape_token(std::string_view s, std::vector<int64_t>& dims, DType& elem,
                       bool& has_elem, bool* too_big, int64_t max_dim) {
  if (too_big) *too_big = false;
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
        if (v > (max_dim - (ch - '0')) / 10) {
          if (too_big) *too_big = true;
          return false;
        }
        v = v * 10 + (ch - '0');
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
  // -2^63 is the one negative value whose magnitude is no int64_t; a larger
  // magnitude does not fit at all. Unsigned 64-bit spellings keep their bits.
  if (neg && acc > (uint64_t(1) << 63)) return false;
  v = !neg ? int64_t(acc) : acc == (uint64_t(1) << 63) ? INT64_MIN : -int64_t(acc);
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



// The text of a shape as the tokens spell it: one Shape token (`16x32xf32`),
// or a run the lexer splits: spaced (`8 x 128 x f32`) or with a `!pto.`
// element type (`16x32x!pto.hif8`: Shape, Ident "x", TypeAlias). Joins the
// run without its blanks and returns the position after it; `end` == c.pos
// when no shape starts here.
static std::string shape_run(Binder& b, const Binder::Cursor& c, uint32_t& end) {
  end = c.pos;
  Tok k = c.peek();
  if (k != Tok::Shape && k != Tok::Int && k != Tok::Question) return {};
  std::string joined(c.ptext());
  uint32_t i = c.pos + 1;
  while (i < c.end) {
    Tok nk = b.kind(i);
    std::string_view nt = b.text(i);
    bool after_x = !joined.empty() && joined.back() == 'x';
    bool part = nk == Tok::Shape || nk == Tok::Int || nk == Tok::Question || nk == Tok::Ident ||
                (nk == Tok::TypeAlias && nt.find('<') == std::string_view::npos);
    if (!part || !(after_x || ((nk == Tok::Ident || nk == Tok::Shape) && nt[0] == 'x'))) break;
    joined += nt;
    ++i;
  }
  if (k != Tok::Shape && i == c.pos + 1) return {};  // a lone integer is no shape
  end = i;
  return joined;
}

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
    // `dtype=!pto.hif8`: the 0.60 storage formats are spelled as types.
    bool alias = c.peek() == Tok::TypeAlias && std::string_view(what) == "dtype";
    if (c.peek() != Tok::Ident && !alias) c.fail_here(std::string("expected a word for '") + what + "'");
    return b.text(c.pos++);
  };
  std::vector<int64_t> dims;
  DType elem;
  bool has_elem;
  std::string shape;
  unsigned positional = 0;
  std::unordered_set<std::string> seen;
  while (!c.done()) {
    if (c.peek() == Tok::Ident && c.peek2() == Tok::Equal) {
      uint32_t key_tok = c.pos;
      std::string key(c.ptext());
      c.pos += 2;
      if (!seen.insert(key).second) b.fail(key_tok, "duplicate tile parameter " + quoted(key));
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
        // "0x8" lexes as a hex literal; as a valid shape it is 0 rows by 8 cols.
        bool zero_rows = c.peek() == Tok::Hex && c.ptext().size() > 2 &&
                         c.ptext().find_first_not_of("0123456789", 2) == std::string_view::npos;
        if (c.peek() != Tok::Shape && !zero_rows) c.fail_here("expected 'valid=RxC'");
        bool big = false;
        if (!parse_shape_token(c.ptext(), dims, elem, has_elem, &big) || has_elem || dims.size() != 2)
          c.fail_here(big ? "valid shape is out of range (rows and cols at most 2^24)"
                          : "expected 'valid=RxC'");
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
        b.fail(key_tok, "unknown tile parameter " + quoted(key));
      }
    } else if (uint32_t run_end; positional <= 1 && !(shape = shape_run(b, c, run_end)).empty()) {
      bool big = false;
      bool shape_ok = parse_shape_token(shape, dims, elem, has_elem, &big);
      if (big || (shape_ok && dims.size() == 2 &&
                  (dims[0] > (1 << 24) || dims[1] > (1 << 24) || dims[0] < 0 || dims[1] < 0)))
        c.fail_here("tile shape must be static and at most 2^24");
      if (!shape_ok || !has_elem || dims.size() != 2) c.fail_here("expected a tile shape 'RxCxT'");
      t.rows = int32_t(dims[0]);
      t.cols = int32_t(dims[1]);
      t.elem = elem;
      have_dtype = true;
      c.pos = run_end;
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
      else c.fail_here("unknown tile parameter " + quoted(w));
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
  uint32_t run_end;
  std::string shape = shape_run(b, c, run_end);
  if (!shape.empty()) {
    bool big = false;
    if (!parse_shape_token(shape, dims, elem, has_elem, &big, kMaxViewDim) || !has_elem)
      c.fail_here(big ? "a view dimension is larger than 2^62" : "expected a shape 'DxDxT'");
    t.elem = elem;
    c.pos = run_end;
  } else if ((c.peek() == Tok::Ident || c.peek() == Tok::TypeAlias) && parse_dtype(c.ptext()) != DType::None) {
    t.elem = parse_dtype(c.ptext());
    ++c.pos;
  } else {
    c.fail_here("expected a shape 'DxDxT'");
  }
  if (dims.size() > 8) b.fail(type_tok, "views have at most 8 dimensions");
  if (!c.done()) c.fail_here("unexpected token in view type");
}

TypeId Binder::parse_type(Cursor& c, TypeKind hint) {
  // A whole-type token (`!pto.tile_buf<...>` lexed as one): cached by its text.
  if (c.peek() == Tok::TypeAlias && c.ptext().find('<') != std::string_view::npos) {
    std::string_view key = c.ptext();
    auto it = type_cache_.find(key);
    if (it != type_cache_.end()) {
      ++c.pos;
      return it->second;
    }
    TypeId id = parse_whole_type_token(c, hint);
    type_cache_.emplace(key, id);
    return id;
  }
  uint32_t start = c.pos;
  // The cache key is the exact source text of the type; the hint only
  // matters for `<...>` bodies without a type name, which are not cached.
  uint32_t last = kNoIndex;
  if (c.peek() == Tok::TypeAlias && c.peek2() == Tok::LAngle) last = partner(c.pos + 1);
  else if (c.peek() == Tok::Ident && c.peek2() != Tok::LAngle) last = c.pos;
  std::string_view key;
  if (last != kNoIndex && last < c.end) {
    key = src_.text().substr(tok(start).off, tok(last).off + tok(last).len - tok(start).off);
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

// Reads a whole-type token: its body is lexed into sub-tokens (offsets still
// in the source, so errors point into the type) and read by the ordinary
// type parser with the token view switched to them.
TypeId Binder::parse_whole_type_token(Cursor& c, TypeKind hint) {
  uint32_t ti = c.pos;
  Token whole = tok(ti);
  std::string_view t = text(ti);
  size_t lt = t.find('<');
  std::vector<Token> sub;
  sub.push_back(Token{.kind = Tok::TypeAlias, .off = whole.off, .len = uint32_t(lt)});
  std::string body(t.substr(lt));  // NUL-terminated, as lex() needs
  size_t first = sub.size();
  lex(body, sub);
  for (size_t i = first; i < sub.size(); ++i) {
    sub[i].off += whole.off + uint32_t(lt);
    // A byte the lexer does not take: refused here as in the token stream
    // (kept, it would print as a lone token that reads back differently:
    // `f#32` printed `f # 32`, a comment from the `#` on).
    if (sub[i].kind == Tok::Error) {
      uint32_t run = std::max<uint32_t>(sub[i].len, 1);
      fail_at(sub[i].off, run, unexpected_bytes(src_.text(), sub[i].off, run) + " in type");
    }
  }
  uint32_t n = uint32_t(sub.size() - 1);  // without the Eof
  std::vector<uint32_t> part(sub.size(), kNoIndex);
  std::vector<uint32_t> stack;
  for (uint32_t i = 0; i < n; ++i) {
    Tok k = sub[i].kind;
    if (k == Tok::LParen || k == Tok::LBracket || k == Tok::LBrace || k == Tok::LAngle) {
      stack.push_back(i);
    } else if (k == Tok::RParen || k == Tok::RBracket || k == Tok::RBrace || k == Tok::RAngle) {
      if (stack.empty()) fail_at(sub[i].off, sub[i].len, "unbalanced bracket in type");
      part[stack.back()] = i;
      stack.pop_back();
    }
  }
  if (!stack.empty()) fail_at(sub[stack.back()].off, 1, "unbalanced bracket in type");
  const std::vector<Token>* saved_t = tp_;
  const std::vector<uint32_t>* saved_p = pp_;
  tp_ = &sub;
  pp_ = &part;
  TypeId id;
  try {
    Cursor sc{this, 0, n};
    id = parse_type_uncached(sc, hint);
    if (!sc.done()) sc.fail_here("unexpected token after the type");
  } catch (...) {
    tp_ = saved_t;
    pp_ = saved_p;
    throw;
  }
  tp_ = saved_t;
  pp_ = saved_p;
  c.pos = ti + 1;
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
      bool has_elem = false, big = false;
      // The shape may be split into several tokens (`?x!pto.hif8`,
      // `16x16x!pto.f4E2M1x2`: a dialect element type after the last 'x').
      uint32_t run_end = in.pos;
      std::string shape = shape_run(*this, in, run_end);
      if (!shape.empty() && parse_shape_token(shape, dims, t.elem, has_elem, &big) && has_elem) {
        in.pos = run_end - 1;  // the checks below stand on the shape's last token
      } else if (big) {
        in.fail_here("a " + std::string(w) + " dimension is larger than 2^40");
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
      // The shape unspaced, however many tokens it took.
      std::string head = has_elem && !shape.empty() ? shape : std::string(text(in.pos));
      t.text = m_.strings.intern("memref<" + head + render(in.pos + 1, in.end) + ">");
      (void)start;
      return m_.types.intern(t, dims);
    }
    c.fail_here("unknown type " + quoted(w));
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
        // Pointers into on-chip buffers (ub, l1, l0a..., the VPTO layer) or
        // to element types outside DType are kept verbatim: no tile-level op
        // takes them, the VPTO verifier reads their text (verify_vpto.cpp).
        if (ptr_is_vpto_only(*this, in)) {
          t.kind = TypeKind::Other;
          t.text = m_.strings.intern((alias.empty() ? "!pto.ptr" : "") + render(start, c.pos));
          return m_.types.intern(t);
        }
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
        t.text = m_.strings.intern(canonical_vtype_text(render(start, c.pos)));
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


}  // namespace bind
}  // namespace ptoas
