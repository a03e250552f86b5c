// Source text and diagnostics. Every user-facing error goes through Diag:
//   file:line:col: error: message
//     <the source line>
//     ^~~~
// The column counts characters (UTF-8), the echoed line is a window of about
// 160 bytes around the caret, and bytes that would disturb a terminal
// (control bytes, invalid UTF-8) are shown escaped as \xNN, so that the
// output stays small and on its lines whatever the input holds.
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

// Quoting source text in messages: `quoted(tok)` is 'tok' with at most
// kMaxQuoted characters (then "..."), newlines and control bytes escaped (\n,
// \x00), invalid UTF-8 as \xNN: one short line whatever the token holds.
inline constexpr size_t kMaxQuoted = 48;
std::string quoted(std::string_view token);
// The same escaping without quotes, clipped after max_chars characters.
std::string printable(std::string_view s, size_t max_chars);
// The byte length of the valid UTF-8 sequence at s[i]; 0 if none starts there.
size_t utf8_len(std::string_view s, size_t i);

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
  // An error that belongs to no source position (`ptoas: error: ...`);
  // one that was said already is counted but not said again.
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
