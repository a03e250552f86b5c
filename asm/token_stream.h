// From text to the classified token stream both parsers read.
//
// Classification (after lexing, before parsing):
//  * an Ident that names a known op (asm/ops.def) becomes OpName;
//  * a ValueDef directly after an OpName whose op binds an induction
//    variable (scf.for) becomes IvDef — it is part of that statement, not the
//    start of the next one.
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

// Classification alone (for callers that lexed themselves).
void classify_tokens(std::string_view text, std::vector<Token>& toks);

}  // namespace ptoas
