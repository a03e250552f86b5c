// From text to the classified token stream both parsers read.
//
// Classification (after lexing, before parsing):
//  * MLIR source locations are dropped: a trailing `loc(...)` (after an op,
//    a region, a parameter or a block argument) and a location alias
//    definition `#loc3 = loc(...)`. Nothing here keeps them: the printed IR
//    has none, as the official tool prints none by default.
//  * an Ident that names a known op (asm/ops.def) becomes OpName;
//  * a ValueDef directly after an OpName whose op binds an induction
//    variable (scf.for) becomes IvDef — it is part of that statement, not the
//    start of the next one;
//  * a BlockLabel (`^bb1`) that is not followed by ':' or by '(...)' and
//    ':' becomes BlockRef: a successor inside a statement, not the start of
//    a block.
// Limits checked here, so that neither parser can recurse without bound:
// bracket nesting deeper than kMaxNesting is an error.
#pragma once
#include <vector>

#include "diag.h"
#include "token.h"

namespace ptoas {

inline constexpr int kMaxNesting = 200;
// Sources larger than this are refused before lexing (token offsets are 32-bit).
inline constexpr size_t kMaxSourceBytes = size_t(1) << 30;

// Lexes and classifies `src`. Reports lexical errors (invalid characters,
// unterminated strings, nesting too deep) to `diag`; returns false if any.
bool tokenize(const SourceFile& src, std::vector<Token>& out, Diag& diag);

// The message for `run` bytes at `off` the lexer takes no token for (a Tok::Error
// token, or a run of them): "unexpected character '#'", a UTF-8 character
// with its code point, or "unexpected byte 0x..".
std::string unexpected_bytes(std::string_view text, uint32_t off, uint32_t run);

// Classification alone (for callers that lexed themselves).
void classify_tokens(std::string_view text, std::vector<Token>& toks);
// Drops `loc(...)` groups and `#alias = loc(...)` definitions (see above).
void strip_locations(std::string_view text, std::vector<Token>& toks);

}  // namespace ptoas
