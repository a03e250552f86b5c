// The statement-level syntax of PTO-AS (docs/language.md §2), shared with the
// Bison reference grammar grammar/pto.y: the two accept exactly the same
// token sequences, which tests/grammar checks on every file we have.
//
// This level knows statements, balanced groups, regions and block labels but
// nothing about individual ops; the binder (asm/binder*.cpp) reads each
// statement's tokens according to its op's syntax class.
#pragma once
#include <cstdint>
#include <vector>

#include "diag.h"
#include "token.h"

namespace ptoas {

inline constexpr uint32_t kNoIndex = ~0u;

struct SynStmt {
  uint32_t first;  // first token (the first result, or the op name)
  uint32_t op;     // OpName / GenericOp token; for a block header that is not
                   // its region's first (unstructured control flow), the
                   // BlockLabel token (first == op, end past the ':')
  uint32_t end;    // one past the last token
};

struct SynRegion {
  uint32_t open, close;  // '{' and '}' token indices
  uint32_t label;        // BlockLabel token at the start, or kNoIndex
  uint32_t stmt_begin;   // range in SyntaxTree::region_stmts
  uint32_t stmt_count;
};

struct SyntaxTree {
  std::vector<SynStmt> stmts;
  std::vector<SynRegion> regions;
  std::vector<uint32_t> region_stmts;  // statement ids, grouped per region
  std::vector<uint32_t> top;           // top-level statement ids in order
  // For each '(' '[' '<' '{' token: the index of its closer. The entry of a
  // '}' that closes a region (a brace enclosing statements, or an empty one)
  // holds that region's id; other closers hold kNoIndex.
  std::vector<uint32_t> partner;
  uint32_t region_at(uint32_t open) const {
    uint32_t close = partner[open];
    return close == kNoIndex ? kNoIndex : partner[close];
  }
};

// Parses the classified token stream. Stops at the first syntax error
// (reported to diag) and returns false.
bool parse_syntax(const std::vector<Token>& toks, SyntaxTree& tree, Diag& diag);

}  // namespace ptoas
