// What ptodis's binary listings share (internal to libptoas_disasm): the
// rows of a line table as a listing looks them up, the text of the .pto
// lines they name, and names shown so that a crafted file cannot flood
// the listing or drive the terminal (limits in ptodis.h).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dwarf_line.h"
#include "ptodis.h"

namespace ptoas::dis {

// `s` as shown: at most `max` bytes (then "..."), control characters as
// \xNN (tabs kept when asked).
std::string shown(std::string_view s, size_t max, bool keep_tabs = false);

// `v` in lower-case hex digits, zero-padded to `w` (no 0x): addresses and
// words in a listing's columns.
std::string hex(uint64_t v, int w);

// A row of the line table, in the section it describes (0 where the
// addresses are a linked image's virtual addresses).
struct Line {
  unsigned section;
  uint64_t address;
  int64_t file;  // index into LineInfo::files
  uint32_t line, col;
};

// The rows a listing shows, gathered from the line programs as they
// stream by: sorted by (section, address), one per address (the last in
// program order). Compacted whenever it holds more than two rows per code
// byte, so a program of a byte per row cannot make it grow past that.
class LineRows {
 public:
  explicit LineRows(uint64_t code_bytes) : limit_(2 * code_bytes + 1024) {}
  void add(const Line& l);
  std::vector<Line> finish();

 private:
  void compact();
  uint64_t limit_;
  std::vector<Line> rows_;
};

// `file:line: text` for a row; the text from Options::read_source (each
// file read once, at most kMaxSourceFiles of them and kMaxSourceBytes in
// all), left out when it cannot be read.
class SourceCache {
 public:
  SourceCache(const SourceReader& read, const LineInfo& info) : read_(read), info_(info) {}
  std::string describe(const Line& l);

 private:
  struct Text {
    std::string text;
    std::vector<uint32_t> starts;  // where each line begins
  };
  const Text* text_of(int64_t file);
  const SourceReader& read_;
  const LineInfo& info_;
  std::map<std::string, std::unique_ptr<Text>> cache_;
  size_t read_bytes_ = 0;
  int64_t last_file_ = -1;
  const Text* last_ = nullptr;
};

}  // namespace ptoas::dis
