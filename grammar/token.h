// Token kinds shared by the re2c lexer (grammar/lexer.re), the hand-written
// parser (asm/parser.cpp) and the Bison reference grammar (grammar/pto.y).
//
// The lexer is op-agnostic: every identifier comes out as Ident. A second
// step (asm/token_stream.cpp) consults the op table and turns identifiers that
// name operations into OpName, and a ValueDef that directly follows a
// loop-header op (scf.for) into IvDef, and a BlockLabel that starts no
// block into BlockRef. Doing that once, before either parser
// runs, is what lets both parsers find statement boundaries with one token of
// lookahead (docs/language.md, "Statement boundaries").
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace ptoas {

// ORDER TOK: tok_name() in grammar/token_names.cpp follows this order.
enum class Tok : uint8_t {
  Eof,
  Error,      // a character that starts no token; an unterminated string
  ValueDef,   // %name directly followed by '=' (or ', %x ... =' / ':N =')
  IvDef,      // ValueDef right after a loop-header op (scf.for %i = ...)
  ValueUse,   // %name, %name#N
  OpName,     // identifier naming a known op (pto.tadd, tadd, scf.for, return)
  GenericOp,  // "dialect.op" directly followed by '(' (MLIR generic form)
  Ident,      // bare identifier: keywords, enum words, builtin types, attr keys
  AttrAlias,  // #ident (#pto, #pto.layout, #cmp)
  TypeAlias,  // !ident (!pto.tile_buf)
  Symbol,     // @name or @"name"
  BlockLabel, // ^bb0 starting a block: followed by ':' or by '(args)' and ':'
  BlockRef,   // ^bb0 anywhere else: a branch's successor (cf.br ^bb1(%x : i32))
  Int,        // 12, -3
  Float,      // 1.5, -2.0e-3, 1e9
  Hex,        // 0x3F800000 (a bit pattern when typed as float)
  String,     // "text" with C escapes
  Shape,      // 16x16xf32, ?x?xbf16, 32x32, 4xi16
  LParen, RParen, LBracket, RBracket, LBrace, RBrace, LAngle, RAngle,
  Comma, Colon, Equal, Arrow, Question,
  Count
};

struct Token {
  Tok kind;
  // For an OpName, the op it names (asm/ops.h's Op), set where the kind is
  // (asm/token_stream.cpp), so that nothing looks the spelling up again.
  uint16_t op = 0;
  uint32_t off = 0;  // byte offset in the source
  uint32_t len = 0;  // byte length
};
static_assert(sizeof(Token) == 12, "tokens are kept in bulk; keep them small");

// Lexes `src` completely. `src.data()[src.size()]` must be '\0' (the lexer
// uses it as its sentinel). Always ends the vector with one Eof token.
// A NUL byte inside the text yields an Error token.
void lex(std::string_view src, std::vector<Token>& out);

const char* tok_name(Tok t);

}  // namespace ptoas
