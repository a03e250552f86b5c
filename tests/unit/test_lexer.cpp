// The re2c lexer (grammar/lexer.re) and the op-name classification step
// (asm/token_stream.cpp): every token kind, the decisions the lexer makes
// without lookahead (definitions, comments vs attributes, shapes vs hex),
// offsets and lengths, and the lexical errors tokenize() reports.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "diag.h"
#include "ops.h"
#include "token.h"
#include "token_stream.h"

using namespace ptoas;

namespace {

// One token as (kind, text).
using KT = std::pair<Tok, std::string>;

// Raw lexing (no classification), Eof stripped.
std::vector<KT> raw(const std::string& text) {
  std::vector<Token> toks;
  lex(text, toks);
  REQUIRE(!toks.empty());
  REQUIRE(toks.back().kind == Tok::Eof);
  std::vector<KT> out;
  for (size_t i = 0; i + 1 < toks.size(); ++i)
    out.emplace_back(toks[i].kind, text.substr(toks[i].off, toks[i].len));
  return out;
}

// Lexing plus classification, Eof stripped.
std::vector<KT> classified(const std::string& text) {
  std::vector<Token> toks;
  lex(text, toks);
  classify_tokens(text, toks);
  std::vector<KT> out;
  for (size_t i = 0; i + 1 < toks.size(); ++i)
    out.emplace_back(toks[i].kind, text.substr(toks[i].off, toks[i].len));
  return out;
}

// The single token `text` lexes to (raw).
Tok one(const std::string& text) {
  auto t = raw(text);
  INFO("input: " << text);
  REQUIRE(t.size() == 1);
  CHECK(t[0].second == text);
  return t[0].first;
}

std::vector<Tok> kinds(const std::vector<KT>& v) {
  std::vector<Tok> k;
  for (auto& p : v) k.push_back(p.first);
  return k;
}

struct TokResult {
  bool ok;
  std::vector<Token> toks;
  std::string diags;
};

TokResult tokenize_text(const std::string& text) {
  SourceFile src("t.pto", text);
  Diag d(&src);
  TokResult r;
  r.ok = tokenize(src, r.toks, d);
  r.diags = d.text();
  return r;
}

}  // namespace

namespace Catch {
template <>
struct StringMaker<Tok> {
  static std::string convert(Tok t) { return tok_name(t); }
};
}  // namespace Catch

TEST_CASE("lexer: empty input is one Eof token", "[lexer]") {
  std::vector<Token> toks;
  lex("", toks);
  REQUIRE(toks.size() == 1);
  CHECK(toks[0].kind == Tok::Eof);
  CHECK(toks[0].off == 0);
  CHECK(toks[0].len == 0);
  CHECK(raw("   \n\t\r\n  ").empty());
}

TEST_CASE("lexer: every token kind", "[lexer]") {
  CHECK(one("%x") == Tok::ValueUse);
  CHECK(one("%0") == Tok::ValueUse);
  CHECK(one("%arg0") == Tok::ValueUse);
  CHECK(one("%r#1") == Tok::ValueUse);
  CHECK(one("\"pto.tmov\"") == Tok::String);  // not followed by '('
  CHECK(one("pto.tadd") == Tok::Ident);       // raw lexing never says OpName
  CHECK(one("tile_buf") == Tok::Ident);
  CHECK(one("#pto") == Tok::AttrAlias);
  CHECK(one("#pto.layout") == Tok::AttrAlias);
  CHECK(one("#cmp") == Tok::AttrAlias);
  CHECK(one("!pto.tile_buf") == Tok::TypeAlias);
  CHECK(one("!pto.ptr") == Tok::TypeAlias);
  CHECK(one("@kernel") == Tok::Symbol);
  CHECK(one("@\"quoted name\"") == Tok::Symbol);
  CHECK(one("^bb0") == Tok::BlockLabel);
  CHECK(one("12") == Tok::Int);
  CHECK(one("0") == Tok::Int);
  CHECK(one("1.5") == Tok::Float);
  CHECK(one("1.") == Tok::Float);
  CHECK(one("2.0e-3") == Tok::Float);
  CHECK(one("1e9") == Tok::Float);
  CHECK(one("1E+9") == Tok::Float);
  CHECK(one("0x3F800000") == Tok::Hex);
  CHECK(one("0xdeadBEEF") == Tok::Hex);
  CHECK(one("\"text\"") == Tok::String);
  CHECK(one("\"\"") == Tok::String);
  CHECK(one("16x16xf32") == Tok::Shape);
  CHECK(one("(") == Tok::LParen);
  CHECK(one(")") == Tok::RParen);
  CHECK(one("[") == Tok::LBracket);
  CHECK(one("]") == Tok::RBracket);
  CHECK(one("{") == Tok::LBrace);
  CHECK(one("}") == Tok::RBrace);
  CHECK(one("<") == Tok::LAngle);
  CHECK(one(">") == Tok::RAngle);
  CHECK(one(",") == Tok::Comma);
  CHECK(one(":") == Tok::Colon);
  CHECK(one("=") == Tok::Equal);
  CHECK(one("->") == Tok::Arrow);
  CHECK(one("?") == Tok::Question);
  CHECK(one("$") == Tok::Error);
  CHECK(one("-") == Tok::Error);
  // GenericOp, ValueDef, OpName and IvDef need context: see below.
  CHECK(kinds(raw("\"pto.tmov\"(")) == std::vector<Tok>{Tok::GenericOp, Tok::LParen});
  CHECK(kinds(raw("%x =")) == std::vector<Tok>{Tok::ValueDef, Tok::Equal});
  CHECK(kinds(classified("tadd")) == std::vector<Tok>{Tok::OpName});
  CHECK(kinds(classified("scf.for %i =")) ==
        std::vector<Tok>{Tok::OpName, Tok::IvDef, Tok::Equal});
}

TEST_CASE("lexer: token names exist for every kind", "[lexer]") {
  for (int k = 0; k < int(Tok::Count); ++k) {
    const char* n = tok_name(Tok(k));
    REQUIRE(n != nullptr);
    CHECK(std::string(n).size() > 0);
  }
}

TEST_CASE("lexer: ValueDef is decided by a trailing equals sign", "[lexer]") {
  CHECK(kinds(raw("%x = arith.constant")) ==
        std::vector<Tok>{Tok::ValueDef, Tok::Equal, Tok::Ident});
  CHECK(kinds(raw("%x=1")) == std::vector<Tok>{Tok::ValueDef, Tok::Equal, Tok::Int});
  // A use followed by anything but '=' stays a use.
  CHECK(kinds(raw("%x, %y")) == std::vector<Tok>{Tok::ValueUse, Tok::Comma, Tok::ValueUse});
  CHECK(kinds(raw("%x : f32")) == std::vector<Tok>{Tok::ValueUse, Tok::Colon, Tok::Ident});
  // '==' is not a definition.
  CHECK(kinds(raw("%x == %y")) ==
        std::vector<Tok>{Tok::ValueUse, Tok::Equal, Tok::Equal, Tok::ValueUse});
  // `%x:2 =`: a result group with a count.
  CHECK(kinds(raw("%x:2 = scf.while")) ==
        std::vector<Tok>{Tok::ValueDef, Tok::Colon, Tok::Int, Tok::Equal, Tok::Ident});
  // `%a, %b =`: both are definitions.
  CHECK(kinds(raw("%a, %b = x")) == std::vector<Tok>{Tok::ValueDef, Tok::Comma, Tok::ValueDef,
                                                     Tok::Equal, Tok::Ident});
  CHECK(kinds(raw("%q, %r:2 = x")) ==
        std::vector<Tok>{Tok::ValueDef, Tok::Comma, Tok::ValueDef, Tok::Colon, Tok::Int,
                         Tok::Equal, Tok::Ident});
  // The gap may hold newlines and // comments.
  CHECK(kinds(raw("%x // c\n = 1")) == std::vector<Tok>{Tok::ValueDef, Tok::Equal, Tok::Int});
  // '=' at the very end of the text.
  CHECK(kinds(raw("%x =")) == std::vector<Tok>{Tok::ValueDef, Tok::Equal});
  // %x#1 is a use of one result of a group.
  CHECK(kinds(raw("%r#1, %r#0")) == std::vector<Tok>{Tok::ValueUse, Tok::Comma, Tok::ValueUse});
}

TEST_CASE("lexer: hash and space is a comment and hash-name an attribute", "[lexer]") {
  CHECK(raw("# a comment").empty());
  CHECK(raw("#\tcomment").empty());
  CHECK(raw("#").empty());
  CHECK(raw("#\n").empty());
  CHECK(kinds(raw("x # note %y = 1\nz")) == std::vector<Tok>{Tok::Ident, Tok::Ident});
  CHECK(raw("// RUN: ptoas %s | FileCheck %s\n// CHECK: x").empty());
  auto t = raw("#cmp=gt");
  REQUIRE(t.size() == 3);
  CHECK(t[0] == KT{Tok::AttrAlias, "#cmp"});
  CHECK(t[1] == KT{Tok::Equal, "="});
  CHECK(t[2] == KT{Tok::Ident, "gt"});
  CHECK(kinds(raw("#pto.layout<nd>")) ==
        std::vector<Tok>{Tok::AttrAlias, Tok::LAngle, Tok::Ident, Tok::RAngle});
  CHECK(kinds(raw("#pto<cmp gt>")) ==
        std::vector<Tok>{Tok::AttrAlias, Tok::LAngle, Tok::Ident, Tok::Ident, Tok::RAngle});
}

TEST_CASE("lexer: shapes", "[lexer]") {
  CHECK(one("16x16xf32") == Tok::Shape);
  CHECK(one("?x?") == Tok::Shape);
  CHECK(one("?x?xbf16") == Tok::Shape);
  CHECK(one("4xi16") == Tok::Shape);
  CHECK(one("32x32") == Tok::Shape);
  CHECK(one("1x1x1x16x16xf32") == Tok::Shape);
  CHECK(one("16x?xf16") == Tok::Shape);
  // A lone number or '?' is not a shape.
  CHECK(one("16") == Tok::Int);
  CHECK(one("?") == Tok::Question);
  // In context: the '>' ends the shape.
  CHECK(kinds(raw("<vec, 16x16xf32>")) == std::vector<Tok>{Tok::LAngle, Tok::Ident, Tok::Comma,
                                                           Tok::Shape, Tok::RAngle});
}

TEST_CASE("lexer: hex literal vs shape", "[lexer]") {
  CHECK(one("0x3F800000") == Tok::Hex);
  CHECK(one("0x7FC00000") == Tok::Hex);
  // `0x16xf32` is a 0 x 16 f32 shape (longest match)...
  CHECK(one("0x16xf32") == Tok::Shape);
  // ... while `0x16` alone is hex (the rule listed first wins a tie).
  CHECK(one("0x16") == Tok::Hex);
  CHECK(one("-0x10") == Tok::Hex);
}

TEST_CASE("lexer: negative numbers and the arrow", "[lexer]") {
  CHECK(one("-3") == Tok::Int);
  CHECK(one("-1.5") == Tok::Float);
  CHECK(one("-2e-3") == Tok::Float);
  CHECK(one("->") == Tok::Arrow);
  CHECK(kinds(raw("(f32) -> f32")) == std::vector<Tok>{Tok::LParen, Tok::Ident, Tok::RParen,
                                                       Tok::Arrow, Tok::Ident});
  CHECK(kinds(raw("->-1")) == std::vector<Tok>{Tok::Arrow, Tok::Int});
  CHECK(kinds(raw("- 1")) == std::vector<Tok>{Tok::Error, Tok::Int});
}

TEST_CASE("lexer: strings with escapes", "[lexer]") {
  CHECK(one("\"a\\\"b\"") == Tok::String);
  CHECK(one("\"tab\\tnl\\n\\\\\"") == Tok::String);
  CHECK(one("\"with spaces and = signs\"") == Tok::String);
  auto t = raw("\"a\" \"b\"");
  REQUIRE(t.size() == 2);
  CHECK(t[0] == KT{Tok::String, "\"a\""});
  CHECK(t[1] == KT{Tok::String, "\"b\""});
  // Unterminated: the quote is an Error token, lexing goes on.
  auto u = raw("\"abc\nx");
  REQUIRE(u.size() == 3);
  CHECK(u[0] == KT{Tok::Error, "\""});
  CHECK(u[1] == KT{Tok::Ident, "abc"});
  CHECK(u[2] == KT{Tok::Ident, "x"});
}

TEST_CASE("lexer: GenericOp only before an open paren", "[lexer]") {
  CHECK(kinds(raw("\"pto.tmov\"(%a)")) ==
        std::vector<Tok>{Tok::GenericOp, Tok::LParen, Tok::ValueUse, Tok::RParen});
  CHECK(kinds(raw("\"pto.tmov\" (")) == std::vector<Tok>{Tok::GenericOp, Tok::LParen});
  CHECK(kinds(raw("\"pto.tmov\"\n(")) == std::vector<Tok>{Tok::GenericOp, Tok::LParen});
  CHECK(kinds(raw("\"pto.tmov\" = (")) ==
        std::vector<Tok>{Tok::String, Tok::Equal, Tok::LParen});
  CHECK(kinds(raw("\"pto.tmov\"")) == std::vector<Tok>{Tok::String});
  // A string that is not an identifier stays a string even before '('.
  CHECK(kinds(raw("\"a b\"(")) == std::vector<Tok>{Tok::String, Tok::LParen});
}

TEST_CASE("lexer: symbols and type/attribute aliases and block labels", "[lexer]") {
  auto t = raw("func.func @k(%arg0: !pto.ptr<f32>) ^bb0 @\"q r\"");
  std::vector<KT> want = {{Tok::Ident, "func.func"},  {Tok::Symbol, "@k"},
                          {Tok::LParen, "("},         {Tok::ValueUse, "%arg0"},
                          {Tok::Colon, ":"},          {Tok::TypeAlias, "!pto.ptr<f32>"},
                          {Tok::RParen, ")"},
                          {Tok::BlockLabel, "^bb0"},  {Tok::Symbol, "@\"q r\""}};
  CHECK(t == want);
}

TEST_CASE("lexer: a dialect type with a flat body is one token", "[lexer]") {
  // Flat bodies (no '<', '->' or '/') are one token, across lines too.
  CHECK(kinds(raw("!pto.tile_buf<loc=vec, dtype=f32,\n rows=16, v_row=-1>")) ==
        std::vector<Tok>{Tok::TypeAlias});
  // Nested '<', an arrow or a comment inside: the name alone, then the brackets.
  CHECK(kinds(raw("!pto.tile_buf<32x32xf32, strided<[1]>>")).size() > 1);
  CHECK(kinds(raw("!pto.x<a -> b>"))[0] == Tok::TypeAlias);
  CHECK(kinds(raw("!pto.x<a -> b>"))[1] == Tok::LAngle);
  CHECK(kinds(raw("!pto.x<a // c\n>"))[1] == Tok::LAngle);
}

TEST_CASE("lexer: NUL byte is an Error token", "[lexer]") {
  std::string s("a\0b", 3);
  auto t = raw(s);
  REQUIRE(t.size() == 3);
  CHECK(t[0].first == Tok::Ident);
  CHECK(t[1].first == Tok::Error);
  CHECK(t[1].second == std::string(1, '\0'));
  CHECK(t[2].first == Tok::Ident);
  // The Eof token sits at the end of the text.
  std::vector<Token> toks;
  lex(s, toks);
  CHECK(toks.back().kind == Tok::Eof);
  CHECK(toks.back().off == 3);
  // A NUL right after a definition's '=' (the lexer's trailing context).
  std::string d("%x =\0", 5);
  std::vector<Token> dt;
  lex(d, dt);
  for (const Token& k : dt) CHECK(k.off + k.len <= d.size());
  CHECK(dt.back().kind == Tok::Eof);
}

TEST_CASE("lexer: offsets and lengths", "[lexer]") {
  std::string s = "  %c0 = arith.constant 0x10 : index // tail\n  tadd";
  std::vector<Token> t;
  lex(s, t);
  REQUIRE(t.size() == 8);
  struct E { Tok k; uint32_t off, len; };
  E want[] = {{Tok::ValueDef, 2, 3}, {Tok::Equal, 6, 1}, {Tok::Ident, 8, 14},
              {Tok::Hex, 23, 4},     {Tok::Colon, 28, 1}, {Tok::Ident, 30, 5},
              {Tok::Ident, 46, 4},   {Tok::Eof, 50, 0}};
  for (size_t i = 0; i < 8; ++i) {
    INFO("token " << i);
    CHECK(t[i].kind == want[i].k);
    CHECK(t[i].off == want[i].off);
    CHECK(t[i].len == want[i].len);
  }
  // Every token stays inside the text and tokens do not overlap.
  for (size_t i = 1; i < t.size(); ++i) CHECK(t[i].off >= t[i - 1].off + t[i - 1].len);
}

TEST_CASE("classify: op names", "[lexer]") {
  auto t = classified("pto.tadd tadd tmatmul_acc pto.tmatmul.acc return func.return "
                      "pto.nope nope arith.constant ins outs to step");
  std::vector<Tok> want = {Tok::OpName, Tok::OpName, Tok::OpName, Tok::OpName, Tok::OpName,
                           Tok::OpName, Tok::Ident,  Tok::Ident,  Tok::OpName, Tok::Ident,
                           Tok::Ident,  Tok::Ident,  Tok::Ident};
  CHECK(kinds(t) == want);
}

TEST_CASE("classify: op lookup spellings", "[lexer]") {
  CHECK(lookup_op("pto.tadd") != Op::Count);
  CHECK(lookup_op("pto.tadd") == lookup_op("tadd"));
  CHECK(lookup_op("tmatmul_acc") == lookup_op("tmatmul.acc"));
  CHECK(lookup_op("tmatmul_acc") == lookup_op("pto.tmatmul.acc"));
  CHECK(op_name(lookup_op("tmatmul_acc")) == "pto.tmatmul.acc");
  CHECK(lookup_op("return") == lookup_op("func.return"));
  CHECK(lookup_op("pto.nope") == Op::Count);
  CHECK(lookup_op("") == Op::Count);
  CHECK(op_has_iv(lookup_op("scf.for")));
  CHECK_FALSE(op_has_iv(lookup_op("scf.while")));
}

TEST_CASE("classify: IvDef only right after scf.for", "[lexer]") {
  CHECK(kinds(classified("scf.for %i = %a to %b step %c")) ==
        std::vector<Tok>{Tok::OpName, Tok::IvDef, Tok::Equal, Tok::ValueUse, Tok::Ident,
                         Tok::ValueUse, Tok::Ident, Tok::ValueUse});
  // With results: `%r = scf.for %i = ...`.
  CHECK(kinds(classified("%r = scf.for %i = %a")) ==
        std::vector<Tok>{Tok::ValueDef, Tok::Equal, Tok::OpName, Tok::IvDef, Tok::Equal,
                         Tok::ValueUse});
  // iter_args definitions inside the header stay ValueDef.
  CHECK(kinds(classified("scf.for %i = %a to %b step %c iter_args(%x = %y)")) ==
        std::vector<Tok>{Tok::OpName, Tok::IvDef, Tok::Equal, Tok::ValueUse, Tok::Ident,
                         Tok::ValueUse, Tok::Ident, Tok::ValueUse, Tok::Ident, Tok::LParen,
                         Tok::ValueDef, Tok::Equal, Tok::ValueUse, Tok::RParen});
  // A definition after another op is the start of the next statement.
  CHECK(kinds(classified("scf.yield %x = arith.constant")) ==
        std::vector<Tok>{Tok::OpName, Tok::ValueDef, Tok::Equal, Tok::OpName});
  CHECK(kinds(classified("scf.while %x = %y")) ==
        std::vector<Tok>{Tok::OpName, Tok::ValueDef, Tok::Equal, Tok::ValueUse});
}

TEST_CASE("tokenize: lexical errors are diagnosed", "[lexer]") {
  auto r = tokenize_text("module {\n  $\n}\n");
  CHECK_FALSE(r.ok);
  CHECK(r.diags.find("t.pto:2:3: error: unexpected character '$'") != std::string::npos);

  auto s = tokenize_text("x = \"abc\n");
  CHECK_FALSE(s.ok);
  CHECK(s.diags.find("t.pto:1:5: error: unterminated string") != std::string::npos);

  auto n = tokenize_text(std::string("ab\0c", 4));
  CHECK_FALSE(n.ok);
  CHECK(n.diags.find("t.pto:1:3: error: unexpected byte 0x00") != std::string::npos);

  auto h = tokenize_text("a \x80 b");
  CHECK_FALSE(h.ok);
  CHECK(h.diags.find("unexpected byte 0x80") != std::string::npos);

  auto ok = tokenize_text("module { }\n");
  CHECK(ok.ok);
  CHECK(ok.diags.empty());
  CHECK(ok.toks.back().kind == Tok::Eof);
}

TEST_CASE("tokenize: nesting limit", "[lexer]") {
  std::string deep_ok = std::string(kMaxNesting, '(') + std::string(kMaxNesting, ')');
  CHECK(tokenize_text(deep_ok).ok);
  std::string too_deep = std::string(kMaxNesting + 1, '[') + std::string(kMaxNesting + 1, ']');
  auto r = tokenize_text(too_deep);
  CHECK_FALSE(r.ok);
  CHECK(r.diags.find("nested deeper than " + std::to_string(kMaxNesting)) != std::string::npos);
  // The error is at the first bracket past the limit.
  CHECK(r.diags.find("t.pto:1:" + std::to_string(kMaxNesting + 1) + ":") != std::string::npos);
  // Very deep input does not crash or recurse.
  std::string huge(200000, '<');
  CHECK_FALSE(tokenize_text(huge).ok);
  // Closing brackets bring the depth back down: many shallow groups are fine.
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "(<[{}]>)";
  CHECK(tokenize_text(many).ok);
}

TEST_CASE("tokenize: error count is capped", "[lexer]") {
  std::string bad;
  for (int i = 0; i < 50; ++i) bad += "$ ";
  auto r = tokenize_text(bad);
  CHECK_FALSE(r.ok);
  size_t n = 0;
  for (size_t p = r.diags.find(": error:"); p != std::string::npos;
       p = r.diags.find(": error:", p + 1))
    ++n;
  CHECK(n == size_t(Diag::kMaxErrors));
  CHECK(r.diags.find("too many errors") != std::string::npos);
}
