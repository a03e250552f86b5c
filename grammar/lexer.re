// re2c specification of the PTO-AS lexer. Generated into lexer.cpp at build
// time (cmake/FindRE2C.cmake); never edit the generated file.
//
// One lexer serves all three spellings (DPS, SSA, assembly form): the forms
// differ in statement structure, not in tokens. Two decisions live here:
//  * `#` followed by whitespace starts a comment (the assembly-form docs use
//    `# note`), while `#name` is an attribute (`#pto.layout<nd>`, `#cmp=gt`).
//  * `%x` directly followed by `=` (possibly after `, %y` or `:2`) is a
//    definition, so a statement start is visible without lookahead.
#include "token.h"

namespace ptoas {

void lex(std::string_view src, std::vector<Token>& out) {
  const unsigned char* const base = reinterpret_cast<const unsigned char*>(src.data());
  const unsigned char* const end = base + src.size();
  const unsigned char* cur = base;
  const unsigned char* mar = nullptr;
  const unsigned char* ctx = nullptr;
  out.reserve(out.size() + src.size() / 4 + 2);

  for (;;) {
    const unsigned char* tok = cur;
    Tok kind;
    /*!re2c
      re2c:define:YYCTYPE = "unsigned char";
      re2c:define:YYCURSOR = cur;
      re2c:define:YYMARKER = mar;
      re2c:define:YYCTXMARKER = ctx;
      re2c:yyfill:enable = 0;
      re2c:flags:utf-8 = 0;

      nul      = "\x00";
      ws       = [ \t\r\n\f\v];
      letter   = [a-zA-Z_];
      digit    = [0-9];
      hexdig   = [0-9a-fA-F];
      idchar   = [a-zA-Z0-9_$.];
      sufchar  = [a-zA-Z0-9_$.\-];
      bareid   = letter idchar*;
      sufid    = (digit+ | [a-zA-Z_$.\-] sufchar*);
      valname  = "%" sufid;
      gap      = (ws | "//" [^\n\x00]* "\n" | "#" [ \t\r\f\v] [^\n\x00]* "\n")*;
      dim      = digit+ | "?";
      defnum   = gap ":" gap digit+;
      deftail  = (defnum)? (gap "," gap valname (defnum)?)* gap "=" [^=];

      nul { if (tok == end) { out.push_back({Tok::Eof, uint32_t(tok - base), 0}); return; }
            kind = Tok::Error; goto emit; }
      ws+ { continue; }
      "//" [^\n\x00]* { continue; }
      "#" ws [^\n\x00]* { continue; }
      "#" / ("\n" | nul) { continue; }

      valname / deftail { kind = Tok::ValueDef; goto emit; }
      valname ("#" digit+)? { kind = Tok::ValueUse; goto emit; }
      "\"" [a-zA-Z_][a-zA-Z0-9_.]* "\"" / gap "(" { kind = Tok::GenericOp; goto emit; }
      "@" bareid { kind = Tok::Symbol; goto emit; }
      "@" "\"" ([^"\\\n\x00] | "\\" [^\n\x00])* "\"" { kind = Tok::Symbol; goto emit; }
      "#" bareid { kind = Tok::AttrAlias; goto emit; }
      // A dialect type with a flat body is one token: `!pto.tile_buf<vec,
      // 16x16xf32>`. Kernels repeat the same long types on every line; the
      // binder reads each distinct spelling once (docs/language.md §1).
      // Bodies with nested '<', '->' or '/' fall back to `!name` + '<' ... '>'.
      "!" bareid "<" ([^<>/\x00\-] | "-" [^<>/\x00])* ">" { kind = Tok::TypeAlias; goto emit; }
      "!" bareid { kind = Tok::TypeAlias; goto emit; }
      "^" sufid { kind = Tok::BlockLabel; goto emit; }

      "-"? "0x" hexdig+ { kind = Tok::Hex; goto emit; }
      (dim "x")+ (dim | bareid) { kind = Tok::Shape; goto emit; }
      "-"? digit+ { kind = Tok::Int; goto emit; }
      "-"? digit+ "." digit* ([eE] [+-]? digit+)? { kind = Tok::Float; goto emit; }
      "-"? digit+ [eE] [+-]? digit+ { kind = Tok::Float; goto emit; }
      "\"" ([^"\\\n\x00] | "\\" [^\n\x00])* "\"" { kind = Tok::String; goto emit; }
      bareid { kind = Tok::Ident; goto emit; }

      "(" { kind = Tok::LParen; goto emit; }
      ")" { kind = Tok::RParen; goto emit; }
      "[" { kind = Tok::LBracket; goto emit; }
      "]" { kind = Tok::RBracket; goto emit; }
      "{" { kind = Tok::LBrace; goto emit; }
      "}" { kind = Tok::RBrace; goto emit; }
      "<" { kind = Tok::LAngle; goto emit; }
      ">" { kind = Tok::RAngle; goto emit; }
      "," { kind = Tok::Comma; goto emit; }
      ":" { kind = Tok::Colon; goto emit; }
      "=" { kind = Tok::Equal; goto emit; }
      "->" { kind = Tok::Arrow; goto emit; }
      "?" { kind = Tok::Question; goto emit; }
      * { kind = Tok::Error; goto emit; }
    */
  emit:
    // A token can run past `end` only by matching the sentinel inside a
    // trailing context; clamp so that offsets always stay inside the text.
    if (cur > end) cur = end;
    out.push_back({kind, uint32_t(tok - base), uint32_t(cur - tok)});
    if (kind == Tok::Error && tok == end) {
      out.push_back({Tok::Eof, uint32_t(end - base), 0});
      return;
    }
  }
}

}  // namespace ptoas
