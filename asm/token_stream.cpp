// Lexing plus op-name classification; see token_stream.h.
#include "token_stream.h"

#include <unordered_map>

#include "ops.h"

namespace ptoas {

void classify_tokens(std::string_view text, std::vector<Token>& toks) {
  Op prev_op = Op::Count;
  // Identifiers repeat (keywords, types, op names): look each spelling up once.
  std::unordered_map<std::string_view, Op> seen;
  for (Token& t : toks) {
    if (t.kind == Tok::Ident) {
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
  bool ok = true;
  int depth = 0;
  for (const Token& t : out) {
    switch (t.kind) {
      case Tok::Error: {
        unsigned char c = (unsigned char)text[t.off];
        std::string what;
        if (c == '"') what = "unterminated string";
        else if (c >= 0x20 && c < 0x7f) what = std::string("unexpected character '") + char(c) + "'";
        else {
          char buf[8];
          snprintf(buf, sizeof buf, "0x%02x", c);
          what = std::string("unexpected byte ") + buf;
        }
        diag.error(t.off, 1, what);
        ok = false;
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
