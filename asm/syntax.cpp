// Statement-level recursive-descent parser; mirrors grammar/pto.y rule for
// rule (the names in comments are the Bison nonterminals).
#include "syntax.h"

#include <string>

namespace ptoas {

namespace {

bool starts_stmt(Tok t) {
  return t == Tok::ValueDef || t == Tok::OpName || t == Tok::GenericOp;
}

bool is_simple_atom(Tok t) {
  switch (t) {
    case Tok::ValueUse: case Tok::IvDef: case Tok::Ident: case Tok::AttrAlias:
    case Tok::TypeAlias: case Tok::Symbol: case Tok::BlockRef: case Tok::Int: case Tok::Float:
    case Tok::Hex: case Tok::String: case Tok::Shape: case Tok::Colon:
    case Tok::Comma: case Tok::Equal: case Tok::Arrow: case Tok::Question:
      return true;
    default:
      return false;
  }
}

Tok closer_of(Tok open) {
  switch (open) {
    case Tok::LParen: return Tok::RParen;
    case Tok::LBracket: return Tok::RBracket;
    case Tok::LAngle: return Tok::RAngle;
    default: return Tok::RBrace;
  }
}

class Parser {
 public:
  Parser(const std::vector<Token>& t, SyntaxTree& tree, Diag& d) : toks_(t), tree_(tree), diag_(d) {
    tree_.partner.assign(t.size(), kNoIndex);
  }

  // file: stmts_opt EOF
  bool parse_file() {
    while (peek() != Tok::Eof) {
      if (!starts_stmt(peek())) return fail("expected an operation");
      uint32_t id;
      if (!parse_stmt(id)) return false;
      tree_.top.push_back(id);
    }
    return true;
  }

 private:
  Tok peek() const { return toks_[pos_].kind; }

  // An error at an opener that is never closed: no ", found ..." suffix.
  bool fail_unclosed(uint32_t open, const char* what) {
    const Token& t = toks_[open];
    diag_.error(t.off, t.len, std::string(what) + " is never closed");
    return false;
  }

  bool fail(const std::string& what) {
    const Token& t = toks_[pos_];
    std::string msg = what;
    if (t.kind == Tok::Eof) msg += ", found end of file";
    else msg += std::string(", found ") + tok_name(t.kind);
    diag_.error(t.off, t.len, msg);
    return false;
  }

  // stmt: results '=' op atoms | op atoms
  bool parse_stmt(uint32_t& id) {
    SynStmt s{uint32_t(pos_), 0, 0};
    if (peek() == Tok::ValueDef) {
      for (;;) {
        if (peek() != Tok::ValueDef) return fail("expected a result name");
        ++pos_;
        if (peek() == Tok::Colon) {
          ++pos_;
          if (peek() != Tok::Int) return fail("expected a result count after ':'");
          ++pos_;
        }
        if (peek() == Tok::Comma) { ++pos_; continue; }
        break;
      }
      if (peek() != Tok::Equal) return fail("expected '=' after the results");
      ++pos_;
    }
    if (peek() != Tok::OpName && peek() != Tok::GenericOp) {
      if (peek() == Tok::Ident) return fail("unknown operation");
      return fail("expected an operation name");
    }
    s.op = uint32_t(pos_++);
    // atoms: everything up to the next statement start, '}' or EOF.
    for (;;) {
      Tok t = peek();
      if (starts_stmt(t) || t == Tok::RBrace || t == Tok::Eof || t == Tok::BlockLabel) break;
      if (!parse_atom(false)) return false;
    }
    s.end = uint32_t(pos_);
    id = uint32_t(tree_.stmts.size());
    tree_.stmts.push_back(s);
    return true;
  }

  // atom (inner_atom when in_group: a ValueDef is allowed too)
  bool parse_atom(bool in_group) {
    Tok t = peek();
    if (is_simple_atom(t) || (in_group && t == Tok::ValueDef)) { ++pos_; return true; }
    if (t == Tok::LParen || t == Tok::LBracket || t == Tok::LAngle) return parse_group();
    if (t == Tok::LBrace) return parse_brace();
    if (t == Tok::RParen || t == Tok::RBracket || t == Tok::RAngle)
      return fail("unbalanced closing bracket");
    if (t == Tok::OpName || t == Tok::GenericOp) {
      diag_.error(toks_[pos_].off, toks_[pos_].len, "unexpected operation name inside brackets");
      return false;
    }
    if (t == Tok::BlockLabel) return fail("unexpected block label");
    if (t == Tok::ValueDef) return fail("unexpected value definition");
    return fail("unexpected token");
  }

  // '(' inner ')' | '[' inner ']' | '<' inner '>'
  bool parse_group() {
    uint32_t open = uint32_t(pos_);
    Tok close = closer_of(peek());
    ++pos_;
    for (;;) {
      Tok t = peek();
      if (t == close) break;
      if (t == Tok::Eof) {
        return fail_unclosed(open, "this bracket");
      }
      if (!parse_atom(true)) return false;
    }
    tree_.partner[open] = uint32_t(pos_);
    ++pos_;
    return true;
  }

  // brace: '{' '}' | '{' region_body '}' | '{' attr_atoms '}'
  bool parse_brace() {
    uint32_t open = uint32_t(pos_++);
    Tok t = peek();
    if (t == Tok::Eof) return fail_unclosed(open, "this brace");
    if (t == Tok::RBrace || starts_stmt(t) || t == Tok::BlockLabel) {
      SynRegion r{open, 0, kNoIndex, 0, 0};
      std::vector<uint32_t> ids;
      if (t == Tok::BlockLabel) {  // block_hdr
        r.label = uint32_t(pos_++);
        if (peek() == Tok::LParen && !parse_group()) return false;
        if (peek() != Tok::Colon) return fail("expected ':' after the block label");
        ++pos_;
      }
      while (peek() != Tok::RBrace) {
        if (peek() == Tok::Eof) {
          return fail_unclosed(open, "this region");
        }
        if (peek() == Tok::BlockLabel) {  // a later block: a statement of its own
          SynStmt b{uint32_t(pos_), uint32_t(pos_), 0};
          ++pos_;
          if (peek() == Tok::LParen && !parse_group()) return false;
          if (peek() != Tok::Colon) return fail("expected ':' after the block label");
          ++pos_;
          b.end = uint32_t(pos_);
          ids.push_back(uint32_t(tree_.stmts.size()));
          tree_.stmts.push_back(b);
          continue;
        }
        if (!starts_stmt(peek())) {
          if (peek() == Tok::Ident) return fail("unknown operation");
          return fail("expected an operation");
        }
        uint32_t id;
        if (!parse_stmt(id)) return false;
        ids.push_back(id);
      }
      r.close = uint32_t(pos_);
      r.stmt_begin = uint32_t(tree_.region_stmts.size());
      r.stmt_count = uint32_t(ids.size());
      tree_.region_stmts.insert(tree_.region_stmts.end(), ids.begin(), ids.end());
      tree_.partner[pos_] = uint32_t(tree_.regions.size());
      tree_.regions.push_back(r);
    } else {
      // attr_atoms: atom+
      while (peek() != Tok::RBrace) {
        if (peek() == Tok::Eof) {
          return fail_unclosed(open, "this brace");
        }
        // An operation inside braces that did not start with one: a region
        // whose first token is no operation (`{ {} return }`). The mistake
        // is that first token, not the operation after it.
        if (starts_stmt(peek()) || peek() == Tok::BlockLabel) {
          const Token& first = toks_[open + 1];
          diag_.error(first.off, first.len,
                      std::string("expected an operation, found ") + tok_name(first.kind) +
                          " (a region holds only operations)");
          return false;
        }
        if (!parse_atom(false)) return false;
      }
    }
    tree_.partner[open] = uint32_t(pos_);
    ++pos_;
    return true;
  }

  const std::vector<Token>& toks_;
  SyntaxTree& tree_;
  Diag& diag_;
  size_t pos_ = 0;
};

}  // namespace

bool parse_syntax(const std::vector<Token>& toks, SyntaxTree& tree, Diag& diag) {
  tree = SyntaxTree{};
  Parser p(toks, tree, diag);
  return p.parse_file();
}

}  // namespace ptoas
