// Runs the Bison reference grammar (grammar/pto.y) on a classified token
// stream, as produced by ptoas::tokenize (asm/token_stream.h). Used by
// `ptocheck` and by tests/grammar/test_parser_agreement, which requires the
// hand-written parser (asm/syntax.cpp) to accept exactly the same inputs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "token.h"

namespace ptoas {

struct BisonResult {
  bool accepted = false;
  // On rejection: index (into the token vector) of the token at which the
  // grammar failed, and Bison's message ("syntax error, unexpected ...").
  uint32_t error_token = 0;
  std::string message;
};

// Parses `toks` (normally ending with a Tok::Eof token; the first Eof ends
// the input, and so does running off the end of the vector).
BisonResult bison_parse(const std::vector<Token>& toks);

inline bool bison_accepts(const std::vector<Token>& toks) { return bison_parse(toks).accepted; }

}  // namespace ptoas
