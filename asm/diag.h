// Source text and diagnostics. Every user-facing error goes through Diag:
//   file:line:col: error: message
//     <the source line>
//     ^~~~
// Errors are collected (at most kMaxErrors are printed) so that one run
// reports several problems; callers stop early when too_many() is true.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptoas {

struct LineCol {
  uint32_t line;  // 1-based
  uint32_t col;   // 1-based, in bytes
};

class SourceFile {
 public:
  SourceFile(std::string name, std::string text);
  const std::string& name() const { return name_; }
  // The text; text().data()[text().size()] is '\0' (the lexer's sentinel).
  std::string_view text() const { return text_; }
  LineCol line_col(uint32_t off) const;
  std::string_view line_text(uint32_t line) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<uint32_t> line_starts_;
};

class Diag {
 public:
  static constexpr int kMaxErrors = 20;
  explicit Diag(const SourceFile* src) : src_(src) {}

  // An error at byte offset `off` spanning `len` bytes (len 0: caret only).
  void error(uint32_t off, uint32_t len, std::string msg);
  // A note attached to the previous error (printed only if that was printed).
  void note(uint32_t off, uint32_t len, std::string msg);
  // An error that belongs to no source position (`ptoas: error: ...`).
  void error_global(std::string msg);

  int error_count() const { return errors_; }
  bool too_many() const { return errors_ >= kMaxErrors; }
  // The rendered diagnostics, in order.
  const std::string& text() const { return out_; }
  // Renders to stderr as it goes when true (the default for the tools).
  void set_echo(bool on) { echo_ = on; }

 private:
  void render(const char* kind, uint32_t off, uint32_t len, const std::string& msg);
  const SourceFile* src_;
  std::string out_;
  int errors_ = 0;
  bool echo_ = false;
  bool last_printed_ = false;
};

}  // namespace ptoas
