// The statement-level parser (asm/syntax.cpp): statement boundaries, regions,
// block labels, attribute dictionaries, bracket partners, and the inputs it
// must reject (with the message and position it reports).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "diag.h"
#include "frontend.h"
#include "ir.h"
#include "syntax.h"
#include "token_stream.h"

using namespace ptoas;

namespace {

struct Parsed {
  bool ok = false;
  std::string text;
  std::vector<Token> toks;
  SyntaxTree tree;
  std::string diags;

  std::string tok_text(uint32_t i) const { return text.substr(toks[i].off, toks[i].len); }
  // The op name of statement `s`.
  std::string op(uint32_t s) const { return tok_text(tree.stmts[s].op); }
};

Parsed parse(const std::string& text) {
  Parsed p;
  p.text = text;
  SourceFile src("t.pto", text);
  Diag d(&src);
  bool lex_ok = tokenize(src, p.toks, d);
  p.ok = lex_ok && parse_syntax(p.toks, p.tree, d);
  p.diags = d.text();
  return p;
}

// The region id of the '{' at token `open` (kNoIndex when it opens none);
// works with either spelling of the SyntaxTree accessor.
template <class Tree>
uint32_t region_of(const Tree& t, uint32_t open) {
  if constexpr (requires { t.region_at(open); })
    return t.region_at(open);
  else
    return t.brace_region[open];
}

#define ACCEPTS(text)                        \
  do {                                       \
    Parsed p_ = parse(text);                 \
    INFO("input:\n" << (text) << "\n" << p_.diags); \
    CHECK(p_.ok);                            \
    CHECK(p_.diags.empty());                 \
  } while (0)

// Rejected with a located error whose message contains `msg` at line:col.
#define REJECTS(text, line, col, msg)                                                   \
  do {                                                                                  \
    Parsed p_ = parse(text);                                                            \
    INFO("input:\n" << (text) << "\ndiagnostics:\n" << p_.diags);                       \
    CHECK_FALSE(p_.ok);                                                                 \
    CHECK(p_.diags.find("t.pto:" + std::to_string(line) + ":" + std::to_string(col) +  \
                        ": error: ") == 0);                                             \
    CHECK(p_.diags.find(msg) != std::string::npos);                                     \
  } while (0)

}  // namespace

TEST_CASE("syntax: empty and comment-only files", "[syntax]") {
  Parsed p = parse("");
  CHECK(p.ok);
  CHECK(p.tree.stmts.empty());
  CHECK(p.tree.top.empty());
  ACCEPTS("// only a comment\n# and another\n");
}

TEST_CASE("syntax: statement boundaries without separators", "[syntax]") {
  // Three statements on one line: each starts at a definition or an op name.
  Parsed p = parse("%d = pto.tadd %a, %b : !pto.tile<16x16xf32> tadd %d, %a, %b "
                   "%q, %r:2 = pto.tadd %a, %b #cmp=gt");
  REQUIRE(p.ok);
  REQUIRE(p.tree.stmts.size() == 3);
  REQUIRE(p.tree.top.size() == 3);
  CHECK(p.op(0) == "pto.tadd");
  CHECK(p.op(1) == "tadd");
  CHECK(p.op(2) == "pto.tadd");
  // The first statement starts at its result and ends where the second starts.
  CHECK(p.tok_text(p.tree.stmts[0].first) == "%d");
  CHECK(p.tree.stmts[0].end == p.tree.stmts[1].first);
  CHECK(p.tok_text(p.tree.stmts[1].first) == "tadd");
  CHECK(p.tok_text(p.tree.stmts[2].first) == "%q");
  CHECK(p.tree.stmts[2].end == p.toks.size() - 1);  // up to Eof
  // A statement may span lines, and a line may hold several statements.
  Parsed q = parse("%c0 = arith.constant\n  0\n  : index %c1 = arith.constant 1 : index");
  REQUIRE(q.ok);
  CHECK(q.tree.stmts.size() == 2);
}

TEST_CASE("syntax: regions and nesting and top-level order", "[syntax]") {
  Parsed p = parse(R"(module {
  func.func @k(%n: index) {
    %c0 = arith.constant 0 : index
    scf.for %i = %c0 to %n step %c0 {
      %x = arith.addi %i, %i : index
    }
    return
  }
}
func.func @g() {
}
)");
  REQUIRE(p.ok);
  REQUIRE(p.tree.top.size() == 2);
  CHECK(p.op(p.tree.top[0]) == "module");
  CHECK(p.op(p.tree.top[1]) == "func.func");
  // Regions: for body, func body, module body, g body (closed in that order).
  REQUIRE(p.tree.regions.size() == 4);
  const SynRegion& for_body = p.tree.regions[0];
  REQUIRE(for_body.stmt_count == 1);
  CHECK(p.op(p.tree.region_stmts[for_body.stmt_begin]) == "arith.addi");
  const SynRegion& func_body = p.tree.regions[1];
  REQUIRE(func_body.stmt_count == 3);
  CHECK(p.op(p.tree.region_stmts[func_body.stmt_begin + 0]) == "arith.constant");
  CHECK(p.op(p.tree.region_stmts[func_body.stmt_begin + 1]) == "scf.for");
  CHECK(p.op(p.tree.region_stmts[func_body.stmt_begin + 2]) == "return");
  CHECK(p.tree.regions[2].stmt_count == 1);  // module holds @k
  CHECK(p.tree.regions[3].stmt_count == 0);  // @g is empty
  for (uint32_t r = 0; r < p.tree.regions.size(); ++r) {
    const SynRegion& reg = p.tree.regions[r];
    CHECK(p.toks[reg.open].kind == Tok::LBrace);
    CHECK(p.toks[reg.close].kind == Tok::RBrace);
    CHECK(p.tree.partner[reg.open] == reg.close);
    CHECK(region_of(p.tree, reg.open) == r);
    CHECK(reg.label == kNoIndex);
    CHECK(reg.stmt_begin + reg.stmt_count <= p.tree.region_stmts.size());
  }
  // Every statement appears exactly once, either at top level or in one region.
  std::vector<int> seen(p.tree.stmts.size(), 0);
  for (uint32_t s : p.tree.top) seen[s]++;
  for (uint32_t s : p.tree.region_stmts) seen[s]++;
  for (size_t s = 0; s < seen.size(); ++s) {
    INFO("statement " << s);
    CHECK(seen[s] == 1);
  }
}

TEST_CASE("syntax: bracket partners", "[syntax]") {
  Parsed p = parse("pto.tadd ins(%a, %b : !pto.tile<16x16xf32>, f32) outs(%c : [1, <2>])");
  REQUIRE(p.ok);
  int groups = 0;
  for (uint32_t i = 0; i < p.toks.size(); ++i) {
    Tok k = p.toks[i].kind;
    if (k == Tok::LParen || k == Tok::LBracket || k == Tok::LAngle || k == Tok::LBrace) {
      ++groups;
      uint32_t c = p.tree.partner[i];
      REQUIRE(c != kNoIndex);
      REQUIRE(c < p.toks.size());
      Tok ck = p.toks[c].kind;
      CHECK(((k == Tok::LParen && ck == Tok::RParen) || (k == Tok::LBracket && ck == Tok::RBracket) ||
             (k == Tok::LAngle && ck == Tok::RAngle) || (k == Tok::LBrace && ck == Tok::RBrace)));
      CHECK(c > i);
    }
  }
  // `!pto.tile<16x16xf32>` is one token (a flat type body), so four groups.
  CHECK(groups == 4);
}

TEST_CASE("syntax: attribute dictionaries vs regions", "[syntax]") {
  // `{ key = value }` after an op is an attribute dictionary, not a region.
  Parsed p = parse("pto.tcmp ins(%a, %b : T, T) outs(%c : T) {cmpMode = #pto<cmp gt>}");
  REQUIRE(p.ok);
  CHECK(p.tree.regions.empty());
  CHECK(p.tree.stmts.size() == 1);
  // `{}` is an (empty) region at this level.
  Parsed e = parse("func.func @f() {}");
  REQUIRE(e.ok);
  CHECK(e.tree.regions.size() == 1);
  CHECK(e.tree.regions[0].stmt_count == 0);
  // module attributes {...} { ... }: one dictionary, one region.
  Parsed m = parse("module attributes {pto.target_arch = \"a5\"} { func.func @f() { return } }");
  REQUIRE(m.ok);
  CHECK(m.tree.regions.size() == 2);
  // A quoted key in a dictionary.
  ACCEPTS("module attributes {\"pto.device-spec\" = \"Ascend910B1\"} {}");
}

TEST_CASE("syntax: block labels", "[syntax]") {
  Parsed p = parse(R"(%w:2 = scf.while (%x = %c0, %a = %t) : (index, i1) -> (index, i1) {
  scf.condition(%a) %x, %a : index, i1
} do {
^bb0(%x2: index, %a2: i1):
  scf.yield %x2, %a2 : index, i1
})");
  REQUIRE(p.ok);
  REQUIRE(p.tree.stmts.size() == 3);
  REQUIRE(p.tree.regions.size() == 2);
  CHECK(p.tree.regions[0].label == kNoIndex);
  REQUIRE(p.tree.regions[1].label != kNoIndex);
  CHECK(p.tok_text(p.tree.regions[1].label) == "^bb0");
  CHECK(p.tree.regions[1].stmt_count == 1);
  // A label without arguments; a label in an otherwise empty region.
  ACCEPTS("func.func @f() {\n^entry:\n  return\n}");
  ACCEPTS("func.func @f() {\n^entry:\n}");
}

TEST_CASE("syntax: several blocks and block references", "[syntax]") {
  // A later block is a statement of its region: the label is its op token.
  Parsed p = parse("func.func @f(%c: i1) {\n  cf.cond_br %c, ^a, ^b(%c : i1)\n^a:\n  return\n"
                   "^b(%x: i1):\n  return\n}");
  REQUIRE(p.ok);
  REQUIRE(p.tree.regions.size() == 1);
  CHECK(p.tree.regions[0].stmt_count == 5);
  const SynStmt& a = p.tree.stmts[p.tree.region_stmts[p.tree.regions[0].stmt_begin + 1]];
  CHECK(p.tok_text(a.op) == "^a");
  CHECK(a.first == a.op);
  CHECK(p.toks[a.op].kind == Tok::BlockLabel);
  // The successors are block references, atoms of the branch.
  const SynStmt& br = p.tree.stmts[p.tree.region_stmts[p.tree.regions[0].stmt_begin]];
  CHECK(br.end - br.op == 11);
  ACCEPTS("func.func @f() {\n  cf.br ^x\n^x:\n^y:\n  return\n}");
  ACCEPTS("cf.br ^bb1(%a : i32)");
}

TEST_CASE("syntax: all three spellings and the generic form", "[syntax]") {
  ACCEPTS("pto.tadd ins(%a, %b : T, T) outs(%c : T)");
  ACCEPTS("%c = pto.tadd %a, %b : (T, T) -> T");
  ACCEPTS("tadd %c, %a, %b : !pto.tile<16x16xf32>");
  ACCEPTS("%c = tadds %a, %s : !pto.tile<f32, 16, 16>");
  ACCEPTS("tmuls %d, %s, 0x3F800000 : !pto.tile<16x16xf32> #rnd=rne");
  ACCEPTS("\"pto.tmov\"(%a, %b) <{operandSegmentSizes = array<i32: 1, 1>}> : "
          "(!pto.tile<16x16xf32>, !pto.tile<16x16xf32>) -> ()");
  ACCEPTS("%r = \"pto.unknown_thing\"(%a) : (f32) -> f32");
  ACCEPTS("pto.set_flag[<PIPE_M>, <PIPE_MTE2>, <EVENT_ID0>]");
  ACCEPTS("pto.section.cube { tadd %c, %a, %b : !pto.tile<16x16xf32> }");
  // iter_args definitions inside the header are part of the scf.for statement.
  Parsed p = parse("%s = scf.for %i = %a to %b step %c iter_args(%acc = %z) -> (index) {\n"
                   "  scf.yield %acc : index\n}");
  REQUIRE(p.ok);
  CHECK(p.tree.stmts.size() == 2);
  CHECK(p.tree.top.size() == 1);
}

TEST_CASE("syntax: statement-level rejects", "[syntax]") {
  REJECTS(": !pto.tile<16x16xf32>", 1, 1, "expected an operation, found ':'");
  // At the top level an unknown op name is not a statement start.
  REJECTS("pto.not_an_op %a, %b", 1, 1, "expected an operation, found identifier");
  // Without '=' the lexer sees uses, not definitions.
  REJECTS("%d, %e pto.tadd %a, %b", 1, 1, "expected an operation, found value");
  REJECTS("%q:x = pto.tadd %a, %b", 1, 1, "expected an operation, found value");
  REJECTS("%x = bogus %a", 1, 6, "unknown operation");
  REJECTS("func.func @f() {\n  %x = pto.nope %a\n}", 2, 8, "unknown operation");
  REJECTS("%q = %r", 1, 6, "expected an operation name, found value");
  REJECTS("pto.tadd %a, %b ] : T", 1, 17, "unbalanced closing bracket");
  REJECTS("pto.tadd ins(%a : !pto.tile<16x16xf32]) outs(%d)", 1, 38,
          "unbalanced closing bracket");
  REJECTS("pto.tadd ins(%a, %b : T outs(%d : T)", 1, 13, "this bracket is never closed");
  REJECTS("pto.tadd ins(pto.tsub %a, %b) outs(%d : T)", 1, 14, "unexpected operation name");
  REJECTS("pto.tadd ins(^bb0: T) outs(%d : T)", 1, 14, "unexpected block label");
  // `{%x = 1}` opens a region whose statement lacks an op.
  REJECTS("pto.tadd %a, %b {%x = 1}", 1, 23, "expected an operation name, found integer");
  REJECTS("module {\n  func.func @f() {\n    return\n  }\n", 1, 8, "this region is never closed");
  REJECTS("module {", 1, 8, "this brace is never closed");
  REJECTS("pto.tadd %a {cmpMode = 1", 1, 13, "this brace is never closed");
  // `^bb0` without ':' is a block reference (an atom), not a block's start.
  REJECTS("func.func @f() {\n^bb0\n  return\n}", 2, 1,
          "expected an operation, found block reference");
  REJECTS("func.func @f() {\n^bb0(%a: i32) return\n}", 2, 1,
          "expected an operation, found block reference");
  REJECTS("}", 1, 1, "expected an operation");
  REJECTS("^bb0: return", 1, 1, "expected an operation");
  REJECTS("%x =", 1, 5, "found end of file");
}

TEST_CASE("syntax: the parser stops at the first syntax error", "[syntax]") {
  Parsed p = parse("pto.tadd ] \n pto.tadd ]\n pto.tadd ]\n");
  CHECK_FALSE(p.ok);
  size_t n = 0;
  for (size_t at = p.diags.find("error:"); at != std::string::npos; at = p.diags.find("error:", at + 1))
    ++n;
  CHECK(n == 1);
}

TEST_CASE("syntax: deep but legal nesting does not recurse without bound", "[syntax]") {
  // kMaxNesting levels of regions, each holding one opaque op.
  std::string s;
  for (int i = 0; i < kMaxNesting; ++i) s += "pto.section.cube {\n";
  for (int i = 0; i < kMaxNesting; ++i) s += "}\n";
  Parsed p = parse(s);
  CHECK(p.ok);
  CHECK(p.tree.regions.size() == size_t(kMaxNesting));
  // One more level is a lexical error (reported by tokenize).
  std::string t;
  for (int i = 0; i <= kMaxNesting; ++i) t += "pto.section.cube {\n";
  for (int i = 0; i <= kMaxNesting; ++i) t += "}\n";
  Parsed q = parse(t);
  CHECK_FALSE(q.ok);
  CHECK(q.diags.find("nested deeper than") != std::string::npos);
}

TEST_CASE("syntax: --syntax-only accepts what the binder or verifier rejects", "[syntax]") {
  // Undefined value and a type that does not exist: fine at statement level.
  std::string text = "module {\n  func.func @k() {\n"
                     "    pto.tadd ins(%nope, %nope : !pto.what, !pto.what) outs(%x : !pto.what)\n"
                     "    return\n  }\n}\n";
  SourceFile src("t.pto", text);
  FrontendOptions o;
  o.syntax_only = true;
  {
    Diag d(&src);
    Module m;
    FrontendStats st;
    CHECK(run_frontend(src, o, m, d, &st));
    CHECK(d.text().empty());
    CHECK(st.statements == 4);
    CHECK(st.tokens > 0);
    CHECK(m.insts.empty());  // nothing bound
  }
  o.syntax_only = false;
  {
    Diag d(&src);
    Module m;
    CHECK_FALSE(run_frontend(src, o, m, d));
    CHECK(d.text().find("t.pto:3:") != std::string::npos);
  }
  // A syntax error is still an error with syntax_only.
  SourceFile bad("t.pto", "module {\n");
  o.syntax_only = true;
  Diag d(&bad);
  Module m;
  CHECK_FALSE(run_frontend(bad, o, m, d));
}
