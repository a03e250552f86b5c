// Diagnostics rendering (see diag.h for the format).
#include "diag.h"

#include <algorithm>
#include <cstring>
#include <cstdio>

namespace ptoas {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  // memchr scans a vector at a time; a byte loop cost as much as lexing.
  const char* b = text_.data();
  const char* e = b + text_.size();
  for (const char* p = b; (p = static_cast<const char*>(std::memchr(p, '\n', size_t(e - p)))); )
    line_starts_.push_back(uint32_t(++p - b));
}

LineCol SourceFile::line_col(uint32_t off) const {
  off = std::min<uint32_t>(off, uint32_t(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), off);
  uint32_t line = uint32_t(it - line_starts_.begin());
  return {line, off - line_starts_[line - 1] + 1};
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  uint32_t b = line_starts_[line - 1];
  uint32_t e = line < line_starts_.size() ? line_starts_[line] : uint32_t(text_.size());
  std::string_view s(text_.data() + b, e - b);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

void Diag::render(const char* kind, uint32_t off, uint32_t len, const std::string& msg) {
  std::string r;
  if (!src_) {
    r = std::string("ptoas: ") + kind + ": " + msg + "\n";
  } else {
    LineCol lc = src_->line_col(off);
    r = src_->name() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col) + ": " +
        kind + ": " + msg + "\n";
    std::string_view line = src_->line_text(lc.line);
    std::string shown;
    std::string caret;
    for (size_t i = 0; i < line.size(); ++i) {
      // Keep the caret under the right column: tabs stay tabs, other control
      // bytes are shown as spaces so the terminal is not disturbed.
      char c = line[i];
      bool ctl = (unsigned char)c < 0x20 && c != '\t';
      shown += ctl ? ' ' : c;
      if (i + 1 < lc.col) caret += (c == '\t') ? '\t' : ' ';
    }
    caret += '^';
    uint32_t maxlen = uint32_t(line.size()) >= lc.col ? uint32_t(line.size()) - lc.col : 0;
    for (uint32_t i = 1; i < len && i <= maxlen; ++i) caret += '~';
    r += "  " + shown + "\n  " + caret + "\n";
  }
  out_ += r;
  if (echo_) std::fputs(r.c_str(), stderr);
}

void Diag::error(uint32_t off, uint32_t len, std::string msg) {
  ++errors_;
  last_printed_ = errors_ <= kMaxErrors;
  if (errors_ <= kMaxErrors) render("error", off, len, msg);
  if (errors_ == kMaxErrors) {
    std::string r = "ptoas: note: too many errors; stopping after " +
                    std::to_string(kMaxErrors) + "\n";
    out_ += r;
    if (echo_) std::fputs(r.c_str(), stderr);
  }
}

void Diag::note(uint32_t off, uint32_t len, std::string msg) {
  if (last_printed_ && errors_ < kMaxErrors) render("note", off, len, msg);
}

void Diag::error_global(std::string msg) {
  ++errors_;
  last_printed_ = true;
  std::string r = "ptoas: error: " + msg + "\n";
  out_ += r;
  if (echo_) std::fputs(r.c_str(), stderr);
}

}  // namespace ptoas
