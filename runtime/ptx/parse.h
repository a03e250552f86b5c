// The PTX parser's internals, shared by parse.cpp (module, declarations,
// statements, operands) and parse_inst.cpp (opcode and modifier decoding).
#pragma once
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir.h"
#include "lexer.h"

namespace ptoas::ptx {

// Generic-address windows of the shared and local spaces (non-canonical
// x86-64/AArch64 addresses, so no host pointer falls in them). A space's
// own addresses are offsets from 0; cvta adds the window.
inline constexpr uint64_t kSharedWindow = 0xFFFE000000000000ull;
inline constexpr uint64_t kLocalWindow = 0xFFFD000000000000ull;
inline constexpr uint64_t kWindowSize = uint64_t(1) << 32;

// `v` rounded up to a multiple of `a` (0: no alignment).
inline uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

// An operand as written, before the instruction type says how to read a
// literal.
struct ParsedOpnd {
  enum Lit : uint8_t { Int, F32Bits, F64Bits, Decimal } lit = Int;
  Opnd o;
  double dec = 0;       // Decimal literal
  bool piped = false;   // written after '|' (d|p)
  std::vector<ParsedOpnd> elems;  // a vector operand's elements
  std::string_view sym;           // a symbol that is not a register (labels, fixed later)
  uint32_t line = 0, col = 0;
};

// A type word (".f32") as a Ty; false for anything else.
bool type_word(std::string_view w, Ty& t);

class Parser {
 public:
  Parser(std::vector<Token>& toks, Module& m, const std::string& name) : t_(toks), m_(m), name_(name) {}
  bool run(std::string& err);

  // --- used by parse_inst.cpp ---
  // Reports an error at a token position; parsing of the statement stops.
  void error_at(uint32_t line, uint32_t col, const std::string& msg);
  // Decodes `opcode` with its parsed operands into `in` (operands appended
  // to the entry's pool). False after reporting an error.
  bool decode(const Token& opcode, std::vector<ParsedOpnd>& ops, Inst& in);
  Entry& entry() { return *e_; }
  // A label operand at e_->ops[opnd], resolved when the entry ends.
  void add_fixup(uint32_t opnd, std::string_view label, uint32_t line, uint32_t col) {
    fixups_.push_back({opnd, label, line, col});
  }

 private:
  friend struct Decoder;
  const Token& peek(size_t k = 0) const { return t_[p_ + k < t_.size() ? p_ + k : t_.size() - 1]; }
  const Token& next() { return t_[p_ < t_.size() - 1 ? p_++ : p_]; }
  bool is_punct(char c, size_t k = 0) const {
    const Token& t = peek(k);
    return t.kind == Token::Punct && t.text[0] == c;
  }
  bool is_word(std::string_view w, size_t k = 0) const {
    const Token& t = peek(k);
    return t.kind == Token::Word && t.text == w;
  }
  bool expect_punct(char c, const char* what);
  void skip_statement();
  bool number(const Token& t, uint64_t& v);

  bool module_directive();
  bool variable(Space sp, bool entry_scope);
  bool entry_decl();
  bool entry_body();
  bool statement();
  bool reg_decl();
  bool loc_directive();
  bool instruction();
  bool operand(ParsedOpnd& po);
  bool resolve_labels();

  std::vector<Token>& t_;
  size_t p_ = 0;
  Module& m_;
  std::string name_;
  std::string errs_;
  int nerrs_ = 0;
  bool failed_ = false;  // the current statement failed
  bool stmt_done_ = false;  // ... after its ';' (nothing to skip)

  std::unordered_map<std::string, Var> module_vars_;
  // The entry being parsed.
  Entry* e_ = nullptr;
  std::unordered_map<std::string_view, uint32_t> regs_, preds_, params_;
  std::unordered_map<std::string_view, Var> vars_;
  std::unordered_map<std::string_view, uint32_t> labels_;
  struct Fixup {
    uint32_t opnd;  // index in e_->ops
    std::string_view label;
    uint32_t line, col;
  };
  std::vector<Fixup> fixups_;
  uint32_t cur_loc_ = 0;
  std::deque<std::string> name_store_;  // register names made from %r<N>
  uint64_t module_data_bytes_ = 0;
  bool extern_ = false;         // the directive being read began with .extern
  uint64_t pending_dyn_ = 0;    // // pto.dynamic_shared_bytes N, for the next entry
};

}  // namespace ptoas::ptx
