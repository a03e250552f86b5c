// Lexing plus op-name classification; see token_stream.h.
#include "token_stream.h"

#include <algorithm>
#include <unordered_map>

#include "ops.h"

namespace ptoas {

void classify_tokens(std::string_view text, std::vector<Token>& toks) {
  Op prev_op = Op::Count;
  // Identifiers repeat (keywords, types, op names): look each spelling up once.
  std::unordered_map<std::string_view, Op> seen;
  for (size_t i = 0; i < toks.size(); ++i) {
    Token& t = toks[i];
    // `{pto.multi_buffer_addrs = ...}`: a word followed by '=' is an
    // attribute key even where it spells an op (no op is followed by '=').
    bool key = i + 1 < toks.size() && toks[i + 1].kind == Tok::Equal;
    if (t.kind == Tok::Ident && !key) {
      std::string_view w = text.substr(t.off, t.len);
      auto it = seen.find(w);
      Op op = it != seen.end() ? it->second : seen.emplace(w, lookup_op(w)).first->second;
      if (op != Op::Count) {
        t.kind = Tok::OpName;
        t.op = uint16_t(op);
        prev_op = op;
        continue;
      }
    } else if (t.kind == Tok::ValueDef && prev_op != Op::Count && op_has_iv(prev_op)) {
      t.kind = Tok::IvDef;
    }
    prev_op = Op::Count;
  }
  // A ^label starts a block only where ':' or a balanced '(...)' and ':'
  // follow it; anywhere else it names a successor (`cf.br ^bb1(%x : i32)`,
  // `cf.cond_br %c, ^bb1, ^bb2`).
  for (size_t i = 0; i < toks.size(); ++i) {
    if (toks[i].kind != Tok::BlockLabel) continue;
    size_t j = i + 1;
    if (j < toks.size() && toks[j].kind == Tok::LParen) {
      for (int depth = 0; j < toks.size(); ++j) {
        if (toks[j].kind == Tok::LParen) ++depth;
        else if (toks[j].kind == Tok::RParen && --depth == 0) break;
      }
      ++j;
    }
    if (j >= toks.size() || toks[j].kind != Tok::Colon) toks[i].kind = Tok::BlockRef;
  }
}

void strip_locations(std::string_view text, std::vector<Token>& toks) {
  auto is_loc = [&](size_t i) {
    return i + 1 < toks.size() && toks[i].kind == Tok::Ident && toks[i + 1].kind == Tok::LParen &&
           text.substr(toks[i].off, toks[i].len) == "loc";
  };
  size_t w = 0;
  for (size_t i = 0; i < toks.size();) {
    if (!is_loc(i)) {
      toks[w++] = toks[i++];
      continue;
    }
    size_t close = i + 1;
    for (int depth = 0; close < toks.size(); ++close) {
      if (toks[close].kind == Tok::LParen) ++depth;
      else if (toks[close].kind == Tok::RParen && --depth == 0) break;
    }
    if (close >= toks.size()) {  // never closed: the parsers report it
      toks[w++] = toks[i++];
      continue;
    }
    // `#loc3 = loc(...)`: a location alias definition goes with it.
    if (w >= 2 && toks[w - 1].kind == Tok::Equal && toks[w - 2].kind == Tok::AttrAlias) w -= 2;
    i = close + 1;
  }
  toks.resize(w);
}

std::string unexpected_bytes(std::string_view text, uint32_t off, uint32_t run) {
  unsigned char c = (unsigned char)text[off];
  size_t n = std::max<size_t>(utf8_len(text, off), 1);
  std::string what;
  if (c >= 0x20 && c < 0x7f) {
    what = std::string("unexpected character '") + char(c) + "'";
  } else if (n > 1) {
    uint32_t cp = c & (0xff >> (n + 1));
    for (size_t k = 1; k < n; ++k) cp = cp << 6 | ((unsigned char)text[off + k] & 0x3f);
    char buf[16];
    snprintf(buf, sizeof buf, " (U+%04X)", unsigned(cp));
    what = "unexpected character " + quoted(text.substr(off, n)) + buf;
  } else {
    char buf[8];
    snprintf(buf, sizeof buf, "0x%02x", c);
    what = std::string("unexpected byte ") + buf;
  }
  if (run > n) what += " (and " + std::to_string(run - n) + " more bytes the lexer does not take)";
  return what;
}

bool tokenize(const SourceFile& src, std::vector<Token>& out, Diag& diag) {
  std::string_view text = src.text();
  if (text.size() > kMaxSourceBytes) {
    diag.error_global("input is larger than 1 GiB");
    return false;
  }
  out.clear();
  lex(text, out);
  classify_tokens(text, out);
  strip_locations(text, out);
  bool ok = true;
  int depth = 0;
  for (size_t ti = 0; ti < out.size(); ++ti) {
    const Token& t = out[ti];
    switch (t.kind) {
      case Tok::Error: {
        unsigned char c = (unsigned char)text[t.off];
        ok = false;
        if (c == '"') {
          diag.error(t.off, 1, "unterminated string");
          break;
        }
        // One error for a run of bad bytes (a line of NULs, the bytes of one
        // UTF-8 character), not one per byte.
        size_t end = ti;
        while (end + 1 < out.size() && out[end + 1].kind == Tok::Error &&
               out[end + 1].off == out[end].off + out[end].len && text[out[end + 1].off] != '"')
          ++end;
        uint32_t run = out[end].off + out[end].len - t.off;
        diag.error(t.off, run, unexpected_bytes(text, t.off, run));
        ti = end;
        break;
      }
      case Tok::LParen: case Tok::LBracket: case Tok::LBrace: case Tok::LAngle:
        if (++depth > kMaxNesting) {
          diag.error(t.off, 1, "brackets nested deeper than " + std::to_string(kMaxNesting));
          return false;
        }
        break;
      case Tok::RParen: case Tok::RBracket: case Tok::RBrace: case Tok::RAngle:
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
    if (diag.too_many()) return false;
  }
  return ok;
}

}  // namespace ptoas
