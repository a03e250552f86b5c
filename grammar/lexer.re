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

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace ptoas {
namespace {

bool flat_stop(unsigned char c) { return c == '<' || c == '>' || c == '/' || c == '-' || c == 0; }

// The body of a flat dialect type, `!name<` BODY `>`: BODY is a run of bytes
// other than < > / NUL, where '-' must be followed by such a byte too (so
// that '->' never appears). `p` is just past the '<'. Returns one past the
// closing '>', or nullptr when the body is not flat (the caller then lexes
// `!name` alone). Kernels spend most of their bytes in these bodies (long
// tile types on every line), so the ordinary bytes are skipped 16 at a time;
// the vector loads stop 16 bytes before `end`, the rest goes byte by byte up
// to the NUL sentinel at `end`.
const unsigned char* flat_type_end(const unsigned char* p, const unsigned char* end) {
  for (;;) {
#ifdef __SSE2__
    const __m128i lt = _mm_set1_epi8('<'), gt = _mm_set1_epi8('>'), sl = _mm_set1_epi8('/'),
                  mi = _mm_set1_epi8('-'), nul = _mm_setzero_si128();
    while (end - p >= 16) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, lt), _mm_cmpeq_epi8(v, gt)),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, sl),
                                              _mm_or_si128(_mm_cmpeq_epi8(v, mi),
                                                           _mm_cmpeq_epi8(v, nul))));
      int mask = _mm_movemask_epi8(hit);
      if (mask) {
        p += __builtin_ctz(unsigned(mask));
        break;
      }
      p += 16;
    }
#endif
    unsigned char c = *p;
    if (!flat_stop(c)) {
      ++p;
      continue;
    }
    if (c == '>') return p + 1;
    if (c != '-' || (flat_stop(p[1]) && p[1] != '-')) return nullptr;
    p += 2;  // '-' and the byte after it
  }
}

}  // namespace

void lex(std::string_view src, std::vector<Token>& out) {
  const unsigned char* const base = reinterpret_cast<const unsigned char*>(src.data());
  const unsigned char* const end = base + src.size();
  const unsigned char* cur = base;
  const unsigned char* mar = nullptr;
  const unsigned char* ctx = nullptr;
  out.reserve(out.size() + src.size() / 4 + 2);

  for (;;) {
    // Blanks between tokens, skipped before the DFA (same as its `ws+`
    // rule, one dispatch less per token).
    while (*cur == ' ' || *cur == '\n') ++cur;
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

      nul { if (tok == end) { out.push_back({.kind = Tok::Eof, .off = uint32_t(tok - base)}); return; }
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
      // The body, ([^<>/\x00\-] | "-" [^<>/\x00])* ">", is scanned by
      // flat_type_end (a byte-at-a-time DFA loop was the lexer's main cost).
      "!" bareid "<" {
        const unsigned char* e = flat_type_end(cur, end);
        cur = e ? e : cur - 1;
        kind = Tok::TypeAlias;
        goto emit;
      }
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
    out.push_back({.kind = kind, .off = uint32_t(tok - base), .len = uint32_t(cur - tok)});
    if (kind == Tok::Error && tok == end) {
      out.push_back({.kind = Tok::Eof, .off = uint32_t(end - base)});
      return;
    }
  }
}

}  // namespace ptoas
