// Tokens of PTX text. A word is an identifier, a directive (.reg), an
// opcode with its modifiers (ld.global.v4.f32, L2::128B included), a
// register (%r12, %tid.x) or a number (0x1F, 0f3F800000, 1.5e-3); the
// parser splits and classifies words.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptoas::ptx {

struct Token {
  enum Kind : uint8_t { End, Word, Number, String, Punct } kind = End;
  std::string_view text;  // Punct: one character
  uint32_t line = 0, col = 0;
};

// Splits `src` into tokens (comments dropped). False with a located message
// in `err` ("NAME:L:C: error: ...") on a character PTX does not use or an
// unterminated string or comment.
bool lex(std::string_view src, const std::string& name, std::vector<Token>& out, std::string& err);

}  // namespace ptoas::ptx
