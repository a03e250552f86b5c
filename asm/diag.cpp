// Diagnostics rendering (see diag.h for the format).
#include "diag.h"

#include <algorithm>
#include <cstring>
#include <cstdio>
#include <vector>

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

namespace {

// The echoed line: whole up to kWholeLine bytes (the long lines of real
// kernels, tile types and all), else a window of kCols columns with at most
// kColsBefore before the caret (a 100 MB line must not print 100 MB).
constexpr size_t kWholeLine = 320;
constexpr unsigned kColsBefore = 80;
constexpr unsigned kCols = 160;
// A message longer than this is clipped (it may quote a huge token).
constexpr size_t kMaxMessage = 1024;

// The length of the valid UTF-8 sequence at s[i], or 0 when the byte there
// does not start one (stray continuation, overlong, surrogate, > U+10FFFF,
// truncated).
}  // namespace

size_t utf8_len(std::string_view s, size_t i) {
  unsigned char c = (unsigned char)s[i];
  if (c < 0x80) return 1;
  size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? (c < 0xf0 ? 3 : 0) : c >= 0xc2 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if (((unsigned char)s[i + k] & 0xc0) != 0x80) return 0;
  unsigned char c1 = (unsigned char)s[i + 1];
  if (c == 0xe0 && c1 < 0xa0) return 0;   // overlong
  if (c == 0xed && c1 >= 0xa0) return 0;  // surrogate
  if (c == 0xf0 && c1 < 0x90) return 0;   // overlong
  if (c == 0xf4 && c1 >= 0x90) return 0;  // > U+10FFFF
  return n;
}

namespace {

// Appends the character at s[i] as shown in a diagnostic and returns its byte
// length; *width gets its width in columns. Control bytes other than tab and
// bytes that are not valid UTF-8 are shown as \xNN, newline and CR as \n and
// \r; a tab stays a tab in the echoed line (the caret line copies it) and is
// \t inside a message (escape_tab), which stays on one line.
size_t show_char(std::string_view s, size_t i, std::string& out, unsigned* width,
                 bool escape_tab) {
  unsigned char c = (unsigned char)s[i];
  size_t n = utf8_len(s, i);
  if (c == '\t' && !escape_tab) {
    out += '\t';
    *width = 1;
    return 1;
  }
  if (c == '\n' || c == '\t' || c == '\r') {
    out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
    *width = 2;
    return 1;
  }
  if (n == 0 || c < 0x20 || c == 0x7f) {
    char b[8];
    std::snprintf(b, sizeof b, "\\x%02X", c);
    out += b;
    *width = 4;
    return 1;
  }
  out.append(s.data() + i, n);
  *width = 1;
  return n;
}

}  // namespace

std::string printable(std::string_view s, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < s.size();) {
    if (chars == max_chars) {
      out += "...";
      break;
    }
    unsigned w = 0;
    i += show_char(s, i, out, &w, true);
    ++chars;
  }
  return out;
}

std::string quoted(std::string_view token) { return "'" + printable(token, kMaxQuoted) + "'"; }

void Diag::render(const char* kind, uint32_t off, uint32_t len, const std::string& msg_in) {
  std::string msg = printable(msg_in, kMaxMessage);
  std::string r;
  if (!src_) {
    r = std::string("ptoas: ") + kind + ": " + msg + "\n";
  } else {
    LineCol lc = src_->line_col(off);
    std::string_view line = src_->line_text(lc.line);
    size_t at = std::min<size_t>(lc.col - 1, line.size());  // the caret's byte in the line
    // The column counts characters: the bytes that are not UTF-8
    // continuation bytes (a plain count, fast on a line of 100 MB).
    uint32_t col = 1;
    for (size_t i = 0; i < at; ++i) col += ((unsigned char)line[i] & 0xc0) != 0x80;
    r = src_->name() + ":" + std::to_string(lc.line) + ":" + std::to_string(col) + ": " + kind +
        ": " + msg + "\n";
    // The window of the line that is shown: up to kColsBefore columns before
    // the caret and kCols in all, on character boundaries. Characters are
    // rendered one by one so that escapes (4 columns) count as what they show.
    struct Piece {
      size_t byte;
      std::string text;
      unsigned width;
    };
    std::vector<Piece> before;
    bool whole = line.size() <= kWholeLine;
    unsigned cols_before = whole ? unsigned(kWholeLine) * 4 : kColsBefore;
    unsigned cols_all = whole ? unsigned(kWholeLine) * 4 : kCols;
    size_t b = at > 4 * cols_before ? at - 4 * cols_before : 0;
    while (b > 0 && b < at && ((unsigned char)line[b] & 0xc0) == 0x80) ++b;
    unsigned before_w = 0;
    for (size_t i = b; i < at;) {
      Piece pc{i, {}, 0};
      i += show_char(line, i, pc.text, &pc.width, false);
      before_w += pc.width;
      before.push_back(std::move(pc));
    }
    size_t drop = 0;
    while (before_w > cols_before && drop < before.size()) before_w -= before[drop++].width;
    bool clipped_front = b > 0 || drop > 0;
    std::string shown = clipped_front ? "..." : "";
    std::string caret(shown.size(), ' ');
    for (size_t k = drop; k < before.size(); ++k) {
      shown += before[k].text;
      caret.append(before[k].width, line[before[k].byte] == '\t' ? '\t' : ' ');
    }
    caret += '^';
    unsigned cols = before_w;
    unsigned tildes = 0;
    size_t span_end = size_t(at) + std::max<uint32_t>(len, 1);
    size_t i = at;
    while (i < line.size() && cols < cols_all) {
      unsigned w = 0;
      size_t n = show_char(line, i, shown, &w, false);
      tildes += i == at ? w - 1 : i < span_end ? w : 0;
      cols += w;
      i += n;
    }
    if (i < line.size()) shown += "...";
    caret.append(tildes, '~');
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
  // Said already (one per function of a module, for a library the target
  // cannot load): counted, not repeated.
  for (size_t at = out_.find(r); at != std::string::npos; at = out_.find(r, at + 1))
    if (at == 0 || out_[at - 1] == '\n') return;
  out_ += r;
  if (echo_) std::fputs(r.c_str(), stderr);
}

}  // namespace ptoas
