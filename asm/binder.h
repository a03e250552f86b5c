// The binder turns the statement tree (asm/syntax.h) into IR (asm/ir.h).
// Internal to asm/: binder_core.cpp (cursor, names, types, attributes),
// binder_stmts.cpp (structure, scalar and view ops), binder_dps.cpp (tile
// ops in all three spellings, generic form, opaque NPU ops).
//
// Each statement is read with a Cursor limited to its own tokens; the op's
// syntax class (Syn in ops.def) selects the reader. Every error is reported
// at a token and the statement is skipped; binding goes on with the next
// statement so that one run reports several problems.
#pragma once
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "diag.h"
#include "frontend.h"
#include "ir.h"
#include "syntax.h"

namespace ptoas {

bool bind_module(const SourceFile& src, const std::vector<Token>& toks, const SyntaxTree& tree,
                 const FrontendOptions& opts, Module& m, Diag& diag);

namespace bind {

// Thrown to abandon the current statement after its error was reported.
struct StmtError {};

class Binder {
 public:
  Binder(const SourceFile& src, const std::vector<Token>& toks, const SyntaxTree& tree,
         const FrontendOptions& opts, Module& m, Diag& diag);
  bool run();

  // ---- token access (binder_core.cpp) ----
  // Token access goes through tp_/pp_: while a whole-type token's body is
  // read they point at its own sub-tokens (see parse_type).
  Tok kind(uint32_t i) const { return (*tp_)[i].kind; }
  std::string_view text(uint32_t i) const { return src_.text().substr((*tp_)[i].off, (*tp_)[i].len); }
  uint32_t partner(uint32_t i) const { return (*pp_)[i]; }
  uint32_t region_at(uint32_t open) const {
    uint32_t close = (*pp_)[open];
    return close == kNoIndex ? kNoIndex : (*pp_)[close];
  }
  const Token& tok(uint32_t i) const { return (*tp_)[i]; }
  [[noreturn]] void fail(uint32_t tok, const std::string& msg);
  [[noreturn]] void fail_at(uint32_t off, uint32_t len, const std::string& msg);

  // A cursor over [pos, end) of one statement or group.
  struct Cursor {
    Binder* b;
    uint32_t pos, end;
    bool done() const { return pos >= end; }
    Tok peek() const { return pos < end ? b->kind(pos) : Tok::Eof; }
    Tok peek2() const { return pos + 1 < end ? b->kind(pos + 1) : Tok::Eof; }
    std::string_view ptext() const { return pos < end ? b->text(pos) : std::string_view(); }
    bool is_ident(std::string_view w) const { return peek() == Tok::Ident && ptext() == w; }
    bool accept(Tok t) {
      if (peek() != t) return false;
      ++pos;
      return true;
    }
    bool accept_ident(std::string_view w) {
      if (!is_ident(w)) return false;
      ++pos;
      return true;
    }
    uint32_t expect(Tok t, const char* what);
    void expect_ident(std::string_view w);
    // Enters a group at pos ('(' '[' '<' '{'): returns a cursor over its
    // contents and moves this cursor past the closer.
    Cursor enter();
    [[noreturn]] void fail_here(const std::string& msg);
  };
  Cursor cursor(uint32_t b, uint32_t e) { return Cursor{this, b, e}; }

  // ---- names ----
  ValueId use_value(uint32_t tok);  // a ValueUse token -> defined value
  ValueId def_value(uint32_t tok, std::string_view name, TypeId type, InstId def);
  std::string fresh_name(const char* stem);
  void push_scope();
  void pop_scope();

  // ---- types and attributes ----
  TypeId parse_type(Cursor& c, TypeKind hint = TypeKind::Other);
  TypeId parse_type_uncached(Cursor& c, TypeKind hint);
  void parse_type_list(Cursor& c, std::vector<TypeId>& out);  // T | (T, T) | ()
  AttrId parse_attr_value(Cursor& c);
  Attr literal_attr(uint32_t lit_tok, TypeId type);
  void parse_attr_dict(Cursor& c, std::vector<NamedAttr>& out);  // at '{'
  AttrId make_attr(AttrKind k, std::string text, std::string_view word = {}, int64_t i = 0);
  std::string render(uint32_t b, uint32_t e, bool mark_regions = false) const;
  std::string type_text(TypeId t) const { return std::string(m_.types.text(t)); }
  TypeId scalar(DType d) { return m_.types.scalar(d); }

  // ---- building ----
  // One per statement. Its vectors come from a per-thread pool and go back
  // to it (cleared, capacity kept) when it dies: allocating four or five
  // small vectors per statement was a large part of binding.
  struct Pending {
    Pending(Op o, uint32_t l);
    ~Pending();
    Pending(const Pending&) = delete;
    Pending& operator=(const Pending&) = delete;
    Op op;
    uint32_t loc;
    Form form = Form::Dps;
    uint8_t flags = 0;
    std::vector<ValueId> ins, outs;
    std::vector<NamedAttr> attrs;
    std::vector<RegionId> regions;
    std::vector<TypeId> result_types;
  };
  // Appends an instruction to the current region; defines its results from
  // the statement's result names (checking the count).
  InstId emit(Pending& p);
  InstId emit_with_results(Pending& p, const std::vector<uint32_t>& result_toks);
  RegionId bind_region(uint32_t brace_tok, const std::vector<std::pair<uint32_t, TypeId>>& args,
                       RegionId into = kNone);
  RegionId reserve_regions(unsigned n);
  RegionId empty_region();

  // ---- statements (binder_stmts.cpp / binder_dps.cpp) ----
  void bind_stmt(uint32_t stmt_id);
  void bind_module_stmt(const SynStmt& s);
  void bind_nested_module(Cursor& c, const SynStmt& s);
  void bind_block(const SynStmt& s);
  std::vector<std::pair<uint32_t, TypeId>> block_args(uint32_t label);
  // True while binding the body of a module (the top level or a nested
  // `module { ... }`): the only place functions and modules may appear.
  bool in_module_body() const { return !region_module_.empty() && region_module_.back(); }
  void bind_func(Cursor& c, const SynStmt& s);
  void bind_structural(Op op, Cursor& c, const SynStmt& s);
  void bind_scalar(Op op, Cursor& c, const SynStmt& s);
  void bind_view(Op op, Cursor& c, const SynStmt& s);
  void bind_dps(Op op, Cursor& c, const SynStmt& s);
  void bind_generic(Op op, Cursor& c, const SynStmt& s);
  void bind_generic_for(Cursor& c, const SynStmt& s);
  void bind_opaque(Op op, Cursor& c, const SynStmt& s);

  // The result names of the statement being bound (ValueDef token indices,
  // one per result; `%x:2` expands to two entries with the same token).
  std::vector<uint32_t> results_;
  std::vector<uint8_t> result_index_;  // for %x:N groups: the #k of each entry
  std::vector<uint8_t> result_group_;  // 1 when the entry came from %x:N

  const SourceFile& src_;
  const std::vector<Token>& toks_;
  const SyntaxTree& tree_;
  const FrontendOptions& opts_;
  Module& m_;
  Diag& diag_;

 private:
  // Value names in scope, indexed by the name's StrId (kNone: not defined).
  // Names are interned anyway (Value::name), so a lookup is the string
  // table's one hash probe plus an index.
  std::vector<ValueId> names_;
  ValueId name_lookup(StrId id) const { return id < names_.size() ? names_[id] : kNone; }
  void name_define(StrId id, ValueId v);
  // Types by their source spelling: kernels repeat the same long tile types
  // on every line, so each distinct spelling is parsed once.
  std::unordered_map<std::string_view, TypeId> type_cache_;
  const std::vector<Token>* tp_;
  const std::vector<uint32_t>* pp_;
  TypeId parse_whole_type_token(Cursor& c, TypeKind hint);
  std::vector<StrId> undo_;  // names defined, in order (shadowing is an error)
  std::vector<size_t> scope_marks_;
  std::unordered_set<std::string_view> source_names_;
  uint32_t fresh_counter_ = 0;
  std::vector<std::vector<InstId>*> region_stack_;
  std::vector<uint8_t> region_module_;  // per region_stack_ entry: a module body
  bool next_region_module_ = false;     // the next bind_region binds a module body
  void collect_results(const SynStmt& s);
  void resolve_arch();
};

// Helpers shared by the readers.
bool parse_int(std::string_view s, int64_t& v);  // decimal or 0x hex, optional '-'
Loc loc_from_word(std::string_view w);           // vec, ub, mat, ... ; Loc::None if unknown
// `16x?x32xf32`: dims (kDyn for '?') and the element type if there is one.
// False when malformed; *too_big (when given) tells a dimension over
// `max_dim` apart, so that the caller can name the limit.
bool parse_shape_token(std::string_view s, std::vector<int64_t>& dims, DType& elem,
                       bool& has_elem, bool* too_big = nullptr,
                       int64_t max_dim = int64_t(1) << 40);
// View types take MLIR's 64-bit dimensions (the official verifier accepts a
// 2^62 x 4 view); nothing computes with a view type's static extents
// unguarded. Memref and vector shapes, which may describe local buffers,
// keep the 2^40 limit.
inline constexpr int64_t kMaxViewDim = int64_t(1) << 62;

}  // namespace bind
}  // namespace ptoas
