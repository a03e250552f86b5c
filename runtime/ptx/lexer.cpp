// PTX tokens (lexer.h).
#include "lexer.h"

#include <cstdio>

namespace ptoas::ptx {

namespace {

bool word_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%' || c == '.';
}
bool word_char(char c) { return word_start(c) || (c >= '0' && c <= '9'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool lex(std::string_view s, const std::string& name, std::vector<Token>& out, std::string& err) {
  uint32_t line = 1;
  size_t line_start = 0;
  size_t i = 0, n = s.size();
  auto fail = [&](size_t at, const std::string& msg) {
    err = name + ":" + std::to_string(line) + ":" + std::to_string(at - line_start + 1) + ": error: " + msg;
    return false;
  };
  while (i < n) {
    char c = s[i];
    if (c == '\n') {
      ++line;
      line_start = ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      // "// pto.dynamic_shared_bytes N" (PTX_CONTRACT) is read as a
      // directive of that name; every other comment is dropped.
      static constexpr std::string_view kDyn = "// pto.dynamic_shared_bytes ";
      if (s.substr(i, kDyn.size()) == kDyn) {
        size_t d = i + kDyn.size(), e = d;
        while (e < n && s[e] >= '0' && s[e] <= '9') ++e;
        if (e > d) {
          uint32_t col = uint32_t(i - line_start + 1);
          out.push_back(Token{Token::Word, ".pto.dynamic_shared_bytes", line, col});
          out.push_back(Token{Token::Number, s.substr(d, e - d), line, uint32_t(d - line_start + 1)});
        }
      }
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t at = i;
      i += 2;
      while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) {
        if (s[i] == '\n') {
          ++line;
          line_start = i + 1;
        }
        ++i;
      }
      if (i + 1 >= n) return fail(at, "unterminated comment");
      i += 2;
      continue;
    }
    Token t;
    t.line = line;
    t.col = uint32_t(i - line_start + 1);
    size_t b = i;
    if (c == '"') {
      ++i;
      while (i < n && s[i] != '"' && s[i] != '\n') ++i;
      if (i >= n || s[i] != '"') return fail(b, "unterminated string");
      ++i;
      t.kind = Token::String;
      t.text = s.substr(b + 1, i - b - 2);
    } else if (digit(c)) {
      // Integers (0x.., 0b.., octal, decimal, U suffix), hex floats 0f../0d..,
      // decimal floats with an exponent.
      ++i;
      while (i < n && (word_char(s[i]) && s[i] != '%' && s[i] != '$')) {
        if ((s[i] == 'e' || s[i] == 'E') && i + 1 < n && (s[i + 1] == '+' || s[i + 1] == '-') &&
            !(s[b] == '0' && b + 1 < n && (s[b + 1] == 'x' || s[b + 1] == 'X' || s[b + 1] == 'f' ||
                                            s[b + 1] == 'F' || s[b + 1] == 'd' || s[b + 1] == 'D')))
          i += 2;
        else
          ++i;
      }
      t.kind = Token::Number;
      t.text = s.substr(b, i - b);
    } else if (word_start(c)) {
      ++i;
      while (i < n) {
        if (word_char(s[i])) {
          ++i;
        } else if (s[i] == ':' && i + 1 < n && s[i + 1] == ':') {
          i += 2;  // shared::cta, L2::128B
        } else {
          break;
        }
      }
      t.kind = Token::Word;
      t.text = s.substr(b, i - b);
    } else if (std::string_view(",;:{}[]()@!|+-<>=").find(c) != std::string_view::npos) {
      ++i;
      t.kind = Token::Punct;
      t.text = s.substr(b, 1);
    } else {
      char buf[64];
      if (c >= 32 && c < 127)
        std::snprintf(buf, sizeof buf, "unexpected character '%c'", c);
      else
        std::snprintf(buf, sizeof buf, "unexpected byte 0x%02x", unsigned(uint8_t(c)));
      return fail(b, buf);
    }
    out.push_back(t);
  }
  Token e;
  e.kind = Token::End;
  e.line = line;
  e.col = uint32_t(i - line_start + 1);
  out.push_back(e);
  return true;
}

}  // namespace ptoas::ptx
