// test_parser_agreement: the hand-written statement parser (asm/syntax.cpp)
// and the Bison reference grammar (grammar/pto.y) must accept exactly the same
// token sequences.
//
//   test_parser_agreement [--cases DIR] [--mutants N] [--seed S] ROOT...
//
// 1. Every .pto file under each ROOT (recursively; directories named build*,
//    and hidden ones, are skipped; an absent ROOT is skipped with a note) is
//    run through tokenize -> parse_syntax and tokenize -> bison_parse.
// 2. --cases DIR: DIR/accept/*.pto must be accepted by both parsers,
//    DIR/reject/*.pto rejected by both.
// 3. Every sequence of up to 4 tokens ($PTOAS_EXHAUST_LEN) over one token of
//    each class the grammar distinguishes.
// 4. Generated sentences and every sequence one token edit (or one bracket
//    pair edit) away ($PTOAS_SENTENCES, default 300).
// 5. N deterministic mutants (default 20000, or $PTOAS_MUTANTS; fixed seed):
//    token-level edits of the files (delete, duplicate, swap, insert a
//    bracket/punctuation/ValueDef/OpName/... token, replace, truncate, delete
//    a range, splice a range from another file), fed to both parsers as token
//    vectors directly and, for a share of them, rendered back to text and
//    re-tokenized; plus grammar-generated statement sequences (mutated or
//    not) and uniformly random token sequences.
// A disagreement prints the input (shrunk to a minimal token sequence) and
// makes the test fail.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "bison_adapter.h"
#include "diag.h"
#include "syntax.h"
#include "token.h"
#include "token_stream.h"

namespace fs = std::filesystem;
using ptoas::Tok;
using ptoas::Token;

namespace {

// ---- inputs ----------------------------------------------------------------

struct Seed {
  std::string path;
  std::unique_ptr<ptoas::SourceFile> src;
  std::vector<Token> toks;  // without the trailing Eof
};

bool read_file(const fs::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = std::move(ss).str();
  return !in.bad();
}

void collect(const fs::path& root, std::vector<fs::path>& out) {
  std::error_code ec;
  if (fs::is_regular_file(root, ec)) {
    out.push_back(root);
    return;
  }
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    std::string name = p.filename().string();
    if (it->is_directory(ec)) {
      if (name.rfind("build", 0) == 0 || (!name.empty() && name[0] == '.')) it.disable_recursion_pending();
      continue;
    }
    if (p.extension() == ".pto" && it->is_regular_file(ec)) out.push_back(p);
  }
}

// ---- running both parsers ---------------------------------------------------

struct Verdict {
  bool hand, bison;
  std::string hand_msg, bison_msg;
};

// `toks` must end with Eof.
Verdict run_both(const std::vector<Token>& toks, const ptoas::SourceFile& src) {
  Verdict v;
  ptoas::SyntaxTree tree;
  ptoas::Diag diag(&src);
  v.hand = ptoas::parse_syntax(toks, tree, diag);
  if (!v.hand) v.hand_msg = diag.text().substr(0, diag.text().find('\n'));
  ptoas::BisonResult b = ptoas::bison_parse(toks);
  v.bison = b.accepted;
  if (!v.bison) {
    ptoas::LineCol lc = src.line_col(toks[b.error_token].off);
    v.bison_msg = std::to_string(lc.line) + ":" + std::to_string(lc.col) + ": " + b.message;
  }
  return v;
}

bool agree(const std::vector<Token>& toks, const ptoas::SourceFile& src) {
  ptoas::SyntaxTree tree;
  ptoas::Diag diag(&src);
  return ptoas::parse_syntax(toks, tree, diag) == ptoas::bison_accepts(toks);
}

std::string kinds(const std::vector<Token>& toks) {
  std::string s;
  for (const Token& t : toks) {
    if (!s.empty()) s += ' ';
    s += ptoas::tok_name(t.kind);
  }
  return s;
}

bool is_open(Tok t) { return t == Tok::LParen || t == Tok::LBracket || t == Tok::LAngle || t == Tok::LBrace; }
bool is_close(Tok t) { return t == Tok::RParen || t == Tok::RBracket || t == Tok::RAngle || t == Tok::RBrace; }
Tok kind_of(const Token& t) { return t.kind; }

// Index of the closer matching the opener at `i` (by depth only), or npos.
template <class T>
size_t partner_of(const std::vector<T>& v, size_t i) {
  int depth = 0;
  for (size_t k = i; k < v.size(); ++k) {
    Tok t = kind_of(v[k]);
    if (is_open(t)) ++depth;
    else if (is_close(t) && --depth == 0) return k;
  }
  return std::string::npos;
}

// Shrinks a disagreeing token sequence (ddmin-style chunk deletion), keeping
// the trailing Eof.
std::vector<Token> shrink(std::vector<Token> toks, const ptoas::SourceFile& src) {
  for (bool again = true; again;) {
    again = false;
    // Chunk deletion, halving the chunk size (the final Eof stays).
    for (size_t chunk = std::max<size_t>(1, (toks.size() - 1) / 2);;) {
      bool progress = false;
      for (size_t i = 0; i + chunk < toks.size();) {
        std::vector<Token> t = toks;
        t.erase(t.begin() + long(i), t.begin() + long(i + chunk));
        if (!agree(t, src)) {
          toks = std::move(t);
          progress = again = true;
        } else {
          i += chunk;
        }
      }
      if (!progress) {
        if (chunk == 1) break;
        chunk /= 2;
      }
    }
    // Whole bracket groups, or just their brackets.
    for (size_t a = 0; a + 1 < toks.size(); ++a) {
      if (!is_open(toks[a].kind)) continue;
      size_t b = partner_of(toks, a);
      if (b == std::string::npos) continue;
      std::vector<Token> t = toks;
      t.erase(t.begin() + long(a), t.begin() + long(b + 1));
      if (!agree(t, src)) { toks = std::move(t); again = true; break; }
      t = toks;
      t.erase(t.begin() + long(b));
      t.erase(t.begin() + long(a));
      if (!agree(t, src)) { toks = std::move(t); again = true; break; }
    }
  }
  return toks;
}

struct Stats {
  long inputs = 0, accepted = 0, rejected = 0, disagreements = 0, failures = 0;
};

constexpr int kMaxReported = 10;

// Runs both parsers; on disagreement prints `what`, the text (if any), the
// verdicts and a shrunk token sequence.
void check(Stats& st, const std::vector<Token>& toks, const ptoas::SourceFile& src,
           const std::string& what, const std::string* text) {
  ++st.inputs;
  Verdict v = run_both(toks, src);
  if (v.hand == v.bison) {
    (v.hand ? st.accepted : st.rejected)++;
    return;
  }
  if (++st.disagreements > kMaxReported) return;
  std::printf("DISAGREEMENT on %s\n  hand parser: %s\n  bison:       %s\n", what.c_str(),
              v.hand ? "accept" : ("reject (" + v.hand_msg + ")").c_str(),
              v.bison ? "accept" : ("reject (" + v.bison_msg + ")").c_str());
  if (text) {
    std::string t = text->size() > 4000 ? text->substr(0, 4000) + " ...[truncated]" : *text;
    std::printf("  text:\n%s\n", t.c_str());
  }
  std::vector<Token> small = shrink(toks, src);
  std::printf("  minimal token sequence (%zu tokens): %s\n", small.size(), kinds(small).c_str());
}

// ---- mutation ---------------------------------------------------------------

struct Synth {
  Tok kind;
  const char* spelling;
};
// Tokens a mutation may insert. In text mode the spelling is re-lexed, so the
// kind may change (a "%m" not followed by '=' lexes as a ValueUse, etc.).
const Synth kSynth[] = {
    {Tok::LParen, "("},      {Tok::RParen, ")"},        {Tok::LBracket, "["},
    {Tok::RBracket, "]"},    {Tok::LBrace, "{"},        {Tok::RBrace, "}"},
    {Tok::LAngle, "<"},      {Tok::RAngle, ">"},        {Tok::Comma, ","},
    {Tok::Colon, ":"},       {Tok::Equal, "="},         {Tok::Arrow, "->"},
    {Tok::Question, "?"},    {Tok::ValueDef, "%m ="},   {Tok::ValueDef, "%m"},
    {Tok::ValueUse, "%u"},   {Tok::IvDef, "%iv"},       {Tok::OpName, "pto.tadd"},
    {Tok::OpName, "scf.for"}, {Tok::OpName, "scf.yield"}, {Tok::GenericOp, "\"pto.tmov\""},
    {Tok::Ident, "ins"},     {Tok::BlockLabel, "^bb1"}, {Tok::BlockRef, "^bb2"},
    {Tok::Int, "2"},
    {Tok::Float, "1.5"},     {Tok::Hex, "0x10"},        {Tok::String, "\"s\""},
    {Tok::Shape, "16x16xf32"}, {Tok::AttrAlias, "#pto"}, {Tok::TypeAlias, "!pto.x"},
    {Tok::Symbol, "@f"},     {Tok::Error, "$"},
};
constexpr size_t kNumSynth = sizeof kSynth / sizeof kSynth[0];

// A token plus its spelling (for re-rendering as text).
struct MTok {
  Token t;
  std::string_view spell;
};
Tok kind_of(const MTok& m) { return m.t.kind; }

using Rng = std::mt19937_64;

size_t pick(Rng& rng, size_t n) { return n == 0 ? 0 : size_t(rng() % n); }

Tok random_kind(Rng& rng) {
  // Every kind except Eof and Count; Error only rarely.
  for (;;) {
    Tok k = Tok(1 + pick(rng, size_t(Tok::Count) - 1));
    if (k != Tok::Error || pick(rng, 8) == 0) return k;
  }
}

MTok synth_tok(Rng& rng, uint32_t off) {
  const Synth& s = kSynth[pick(rng, kNumSynth)];
  return {{.kind = s.kind, .off = off}, s.spelling};
}


const Synth kPairs[4][2] = {{{Tok::LParen, "("}, {Tok::RParen, ")"}},
                            {{Tok::LBracket, "["}, {Tok::RBracket, "]"}},
                            {{Tok::LAngle, "<"}, {Tok::RAngle, ">"}},
                            {{Tok::LBrace, "{"}, {Tok::RBrace, "}"}}};

// Bracket-pair edits: change a matched pair's kind, unwrap it, or wrap a
// range of tokens in a new pair.
void pair_edit(Rng& rng, std::vector<MTok>& v, size_t i) {
  size_t n = v.size();
  const Synth* pr = kPairs[pick(rng, 4)];
  size_t what = pick(rng, 3);
  if (what < 2) {
    // Find an opener at or after i (wrapping around).
    for (size_t k = 0; k < n; ++k) {
      size_t a = (i + k) % n;
      if (!is_open(v[a].t.kind)) continue;
      size_t b = partner_of(v, a);
      if (b == std::string::npos) return;
      if (what == 0) {
        v[a] = {{.kind = pr[0].kind, .off = v[a].t.off, .len = v[a].t.len}, pr[0].spelling};
        v[b] = {{.kind = pr[1].kind, .off = v[b].t.off, .len = v[b].t.len}, pr[1].spelling};
      } else {
        v.erase(v.begin() + long(b));
        v.erase(v.begin() + long(a));
      }
      return;
    }
    return;
  }
  size_t a = std::min(i, n), b = std::min(n, a + pick(rng, 12));
  uint32_t off = n == 0 ? 0 : v[std::min(a, n - 1)].t.off;
  v.insert(v.begin() + long(b), MTok{{.kind = pr[1].kind, .off = off}, pr[1].spelling});
  v.insert(v.begin() + long(a), MTok{{.kind = pr[0].kind, .off = off}, pr[0].spelling});
}

std::string mutate(Rng& rng, std::vector<MTok>& v, const std::vector<Seed>& seeds) {
  static const char* names[] = {"delete",  "duplicate", "swap",     "insert", "replace",
                                "truncate", "del-range", "splice",  "pair"};
  int op = int(pick(rng, 9));
  size_t n = v.size();
  size_t i = pick(rng, n + 1);
  uint32_t off = n == 0 ? 0 : v[std::min(i, n - 1)].t.off;
  switch (op) {
    case 0: if (i < n) v.erase(v.begin() + long(i)); break;
    case 1: if (i < n) v.insert(v.begin() + long(i), v[i]); break;
    case 2: if (i + 1 < n) std::swap(v[i], v[i + 1]); break;
    case 3: v.insert(v.begin() + long(i), synth_tok(rng, off)); break;
    case 4:
      if (i < n) {
        if (pick(rng, 2)) v[i] = synth_tok(rng, v[i].t.off);
        else v[i].t.kind = random_kind(rng);  // raw mode only sees the kind
      }
      break;
    case 5: v.resize(i); break;
    case 6: v.erase(v.begin() + long(i), v.begin() + long(std::min(n, i + 2 + pick(rng, 15)))); break;
    case 7: {
      if (seeds.empty()) break;
      const Seed& s = seeds[pick(rng, seeds.size())];
      if (s.toks.empty()) break;
      size_t a = pick(rng, s.toks.size());
      size_t b = std::min(s.toks.size(), a + 1 + pick(rng, 40));
      std::vector<MTok> ins;
      for (size_t k = a; k < b; ++k)
        ins.push_back({s.toks[k], s.src->text().substr(s.toks[k].off, s.toks[k].len)});
      v.insert(v.begin() + long(i), ins.begin(), ins.end());
      break;
    }
    case 8: if (n) pair_edit(rng, v, std::min(i, n - 1)); break;
  }
  return std::string(names[op]) + "@" + std::to_string(i);
}

std::string render(const std::vector<MTok>& v) {
  std::string s;
  for (const MTok& m : v) {
    if (!s.empty()) s += (m.t.kind == Tok::OpName || m.t.kind == Tok::ValueDef) ? '\n' : ' ';
    s += m.spell;
  }
  return s;
}

// ---- grammar-directed generation (valid statement sequences) ----------------

struct Gen {
  Rng& rng;
  std::vector<Tok> out;

  void simple() {
    static const Tok k[] = {Tok::ValueUse, Tok::IvDef,  Tok::Ident,  Tok::AttrAlias,
                            Tok::TypeAlias, Tok::Symbol, Tok::Int,    Tok::Float,
                            Tok::Hex,      Tok::String, Tok::Shape,  Tok::Colon,
                            Tok::Comma,    Tok::Equal,  Tok::Arrow,  Tok::Question,
                            Tok::BlockRef};
    out.push_back(k[pick(rng, sizeof k / sizeof k[0])]);
  }
  void atom(int depth) {
    size_t r = pick(rng, depth > 0 ? 10 : 6);
    if (r < 6) return simple();
    if (r < 9) {
      static const Tok open[] = {Tok::LParen, Tok::LBracket, Tok::LAngle};
      static const Tok close[] = {Tok::RParen, Tok::RBracket, Tok::RAngle};
      size_t w = pick(rng, 3);
      out.push_back(open[w]);
      size_t n = pick(rng, 5);
      for (size_t j = 0; j < n; ++j) {
        if (pick(rng, 5) == 0) out.push_back(Tok::ValueDef);
        else atom(depth - 1);
      }
      out.push_back(close[w]);
      return;
    }
    brace(depth - 1);
  }
  void brace(int depth) {
    out.push_back(Tok::LBrace);
    size_t r = pick(rng, 4);
    if (r == 1) {  // attr_atoms
      size_t n = 1 + pick(rng, 4);
      for (size_t j = 0; j < n; ++j) atom(depth);
    } else if (r >= 2) {  // region_body
      bool hdr = r == 3;
      if (hdr) {
        out.push_back(Tok::BlockLabel);
        if (pick(rng, 2)) {
          out.push_back(Tok::LParen);
          size_t n = pick(rng, 4);
          for (size_t j = 0; j < n; ++j) {
            if (pick(rng, 3) == 0) out.push_back(Tok::ValueDef);
            else atom(depth);
          }
          out.push_back(Tok::RParen);
        }
        out.push_back(Tok::Colon);
      }
      size_t n = (hdr ? 0 : 1) + pick(rng, 4);
      for (size_t j = 0; j < n; ++j) {
        // A later block of the region (unstructured control flow).
        if (j > 0 && pick(rng, 6) == 0) {
          out.push_back(Tok::BlockLabel);
          out.push_back(Tok::Colon);
        }
        stmt(depth);
      }
    }
    out.push_back(Tok::RBrace);
  }
  void stmt(int depth) {
    if (pick(rng, 2)) {
      size_t n = 1 + pick(rng, 3);
      for (size_t j = 0; j < n; ++j) {
        if (j) out.push_back(Tok::Comma);
        out.push_back(Tok::ValueDef);
        if (pick(rng, 4) == 0) { out.push_back(Tok::Colon); out.push_back(Tok::Int); }
      }
      out.push_back(Tok::Equal);
    }
    out.push_back(pick(rng, 5) ? Tok::OpName : Tok::GenericOp);
    size_t n = pick(rng, 6);
    for (size_t j = 0; j < n; ++j) atom(depth);
  }
  void file() {
    size_t n = pick(rng, 4);
    for (size_t j = 0; j < n; ++j) stmt(3);
  }
};

std::vector<Token> as_tokens(const std::vector<Tok>& ks) {
  std::vector<Token> t;
  t.reserve(ks.size() + 1);
  for (Tok k : ks) t.push_back({.kind = k, .len = 1});
  t.push_back({.kind = Tok::Eof});
  return t;
}

long env_long(const char* name, long dflt) {
  const char* s = std::getenv(name);
  if (!s || !*s) return dflt;
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  return (end && *end == '\0' && v >= 0) ? v : dflt;
}

}  // namespace

int main(int argc, char** argv) {
  long mutants = env_long("PTOAS_MUTANTS", 20000);
  uint64_t seed = uint64_t(env_long("PTOAS_SEED", 20240611));
  std::string cases;
  std::vector<std::string> roots;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--cases" && i + 1 < argc) cases = argv[++i];
    else if (a == "--mutants" && i + 1 < argc) mutants = std::atol(argv[++i]);
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "usage: test_parser_agreement [--cases DIR] [--mutants N] [--seed S] ROOT...\n");
      return 2;
    } else roots.push_back(a);
  }

  Stats st;
  std::vector<Seed> seeds;

  // 1. Files.
  std::vector<fs::path> files;
  for (const std::string& r : roots) {
    std::error_code ec;
    if (!fs::exists(r, ec)) {
      std::printf("agreement: skipping %s (absent)\n", r.c_str());
      continue;
    }
    collect(r, files);
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  long file_acc = 0;
  for (const fs::path& p : files) {
    std::string text;
    if (!read_file(p, text)) {
      std::printf("FAIL: cannot read %s\n", p.c_str());
      ++st.failures;
      continue;
    }
    Seed s;
    s.path = p.string();
    s.src = std::make_unique<ptoas::SourceFile>(s.path, std::move(text));
    ptoas::Diag diag(s.src.get());
    ptoas::tokenize(*s.src, s.toks, diag);  // lexical errors: compare the parsers anyway
    if (s.toks.empty() || s.toks.back().kind != Tok::Eof)
      s.toks.push_back({.kind = Tok::Eof, .off = uint32_t(s.src->text().size())});
    long before = st.accepted;
    std::string t(s.src->text());
    check(st, s.toks, *s.src, s.path, &t);
    file_acc += st.accepted - before;
    s.toks.pop_back();  // Eof
    seeds.push_back(std::move(s));
  }
  std::printf("agreement: %zu files (%ld accepted by both)\n", files.size(), file_acc);

  // 2. Hand-written cases with a known answer.
  if (!cases.empty()) {
    for (const char* want : {"accept", "reject"}) {
      std::vector<fs::path> cf;
      std::error_code ec;
      if (fs::is_directory(fs::path(cases) / want, ec)) collect(fs::path(cases) / want, cf);
      std::sort(cf.begin(), cf.end());
      bool expect = std::strcmp(want, "accept") == 0;
      for (const fs::path& p : cf) {
        std::string text;
        if (!read_file(p, text)) { ++st.failures; continue; }
        ptoas::SourceFile src(p.string(), std::move(text));
        ptoas::Diag diag(&src);
        std::vector<Token> toks;
        bool lexed = ptoas::tokenize(src, toks, diag);
        if (toks.empty() || toks.back().kind != Tok::Eof)
          toks.push_back({.kind = Tok::Eof, .off = uint32_t(src.text().size())});
        Verdict v = run_both(toks, src);
        if (expect && !lexed) {
          std::printf("FAIL: %s: expected to tokenize: %s", p.c_str(), diag.text().c_str());
          ++st.failures;
        }
        if (v.hand != expect || v.bison != expect) {
          std::printf("FAIL: %s: expected %s; hand parser %s%s%s, bison %s%s%s\n", p.c_str(), want,
                      v.hand ? "accepts" : "rejects", v.hand ? "" : ": ", v.hand_msg.c_str(),
                      v.bison ? "accepts" : "rejects", v.bison ? "" : ": ", v.bison_msg.c_str());
          ++st.failures;
        }
        ++st.inputs;
        if (v.hand == v.bison) (v.hand ? st.accepted : st.rejected)++;
        else ++st.disagreements;
      }
      std::printf("agreement: %zu %s cases\n", cf.size(), want);
    }
  }

  ptoas::SourceFile dummy("<generated>", "x\n");

  // 3. Every token sequence of length <= PTOAS_EXHAUST_LEN (default 4) over an
  //    alphabet with one member of each class the grammar distinguishes.
  {
    static const Tok alpha[] = {Tok::OpName,   Tok::GenericOp, Tok::ValueDef, Tok::IvDef,
                                Tok::Ident,    Tok::Int,       Tok::Colon,    Tok::Comma,
                                Tok::Equal,    Tok::BlockLabel, Tok::BlockRef, Tok::LParen,  Tok::RParen,
                                Tok::LBracket, Tok::RBracket,  Tok::LBrace,   Tok::RBrace,
                                Tok::LAngle,   Tok::RAngle};
    constexpr size_t A = sizeof alpha / sizeof alpha[0];
    long maxlen = env_long("PTOAS_EXHAUST_LEN", 4);
    long before = st.inputs;
    std::vector<size_t> digits;
    for (long len = 0; len <= maxlen; ++len) {
      digits.assign(size_t(len), 0);
      for (;;) {
        std::vector<Tok> ks;
        for (size_t d : digits) ks.push_back(alpha[d]);
        check(st, as_tokens(ks), dummy, "exhaustive sequence", nullptr);
        size_t k = 0;
        while (k < digits.size() && ++digits[k] == A) digits[k++] = 0;
        if (k == digits.size()) break;
      }
    }
    std::printf("agreement: %ld exhaustive sequences (length <= %ld)\n", st.inputs - before, maxlen);
  }

  // 4. Neighbourhoods of grammar-generated sentences: each of PTOAS_SENTENCES
  //    (default 300) generated sequences, plus every sequence one edit away
  //    (delete a token; replace or precede it with a token of any
  //    kind; change a bracket pair to another kind or drop the pair).
  Rng rng(seed);
  {
    std::vector<Tok> alpha;  // every kind but Eof
    for (int k = 1; k < int(Tok::Count); ++k) alpha.push_back(Tok(k));
    long sentences = env_long("PTOAS_SENTENCES", 300);
    long before = st.inputs;
    for (long k = 0; k < sentences; ++k) {
      Gen g{rng, {}};
      g.file();
      const std::vector<Tok> base = g.out;
      std::string what = "neighbour of generated sentence #" + std::to_string(k);
      check(st, as_tokens(base), dummy, "generated sentence #" + std::to_string(k), nullptr);
      for (size_t i = 0; i <= base.size(); ++i) {
        std::vector<Tok> t;
        if (i < base.size()) {
          t = base;
          t.erase(t.begin() + long(i));
          check(st, as_tokens(t), dummy, what, nullptr);
        }
        for (Tok a : alpha) {
          if (i < base.size() && a != base[i]) {
            t = base;
            t[i] = a;
            check(st, as_tokens(t), dummy, what, nullptr);
          }
          t = base;
          t.insert(t.begin() + long(i), a);
          check(st, as_tokens(t), dummy, what, nullptr);
        }
        if (i < base.size() && is_open(base[i])) {
          std::vector<Token> bt = as_tokens(base);
          size_t j = partner_of(bt, i);
          if (j == std::string::npos) continue;
          for (const auto& pr : kPairs) {
            if (pr[0].kind == base[i]) continue;
            t = base;
            t[i] = pr[0].kind;
            t[j] = pr[1].kind;
            check(st, as_tokens(t), dummy, what, nullptr);
          }
          t = base;
          t.erase(t.begin() + long(j));
          t.erase(t.begin() + long(i));
          check(st, as_tokens(t), dummy, what, nullptr);
        }
      }
    }
    std::printf("agreement: %ld generated sentences and their one-edit neighbours\n", st.inputs - before);
  }

  // 5. Mutants.
  long text_mutants = 0;
  for (long m = 0; m < mutants; ++m) {
    size_t kind = pick(rng, 10);
    if (kind < 8 && !seeds.empty()) {
      // Token-level mutation of a file (kind 6,7: rendered and re-lexed).
      const Seed& s = seeds[pick(rng, seeds.size())];
      std::vector<MTok> v;
      v.reserve(s.toks.size() + 8);
      for (const Token& t : s.toks) v.push_back({t, s.src->text().substr(t.off, t.len)});
      std::string ops;
      size_t nops = 1 + pick(rng, 3);
      for (size_t k = 0; k < nops; ++k) ops += (k ? "," : "") + mutate(rng, v, seeds);
      std::string what = "mutant #" + std::to_string(m) + " of " + s.path + " [" + ops + "]";
      if (kind >= 6) {
        ++text_mutants;
        ptoas::SourceFile src(s.path + "~" + std::to_string(m), render(v));
        ptoas::Diag diag(&src);
        std::vector<Token> toks;
        ptoas::tokenize(src, toks, diag);
        std::string t(src.text());
        check(st, toks, src, what + " (re-lexed)", &t);
      } else {
        std::vector<Token> toks;
        toks.reserve(v.size() + 1);
        for (const MTok& x : v) toks.push_back(x.t);
        uint32_t end = uint32_t(s.src->text().size());
        toks.push_back({.kind = Tok::Eof, .off = end});
        std::string t = render(v);
        check(st, toks, *s.src, what, &t);
      }
    } else if (kind < 9 || seeds.empty()) {
      // A grammar-generated (valid) sequence, perhaps mutated.
      Gen g{rng, {}};
      g.file();
      std::vector<Token> toks = as_tokens(g.out);
      toks.pop_back();
      std::vector<MTok> v;
      for (const Token& t : toks) v.push_back({t, ""});
      size_t nops = pick(rng, 3);
      std::string ops;
      for (size_t k = 0; k < nops; ++k) ops += (k ? "," : "") + mutate(rng, v, seeds);
      toks.clear();
      for (const MTok& x : v) toks.push_back({.kind = x.t.kind, .len = 1});
      toks.push_back({.kind = Tok::Eof});
      check(st, toks, dummy, "generated #" + std::to_string(m) + " [" + ops + "]", nullptr);
    } else {
      // Uniformly random kinds.
      std::vector<Tok> ks(pick(rng, 26));
      for (Tok& k : ks) k = random_kind(rng);
      check(st, as_tokens(ks), dummy, "random #" + std::to_string(m), nullptr);
    }
  }

  std::printf("agreement: %ld inputs (%ld mutants, %ld of them re-lexed), %ld accepted, %ld rejected, "
              "%ld disagreements\n",
              st.inputs, mutants, text_mutants, st.accepted, st.rejected, st.disagreements);
  if (st.failures) std::printf("agreement: %ld expectation failures\n", st.failures);
  return (st.disagreements || st.failures) ? 1 : 0;
}
