// A small bounds-checked reader of DWARF line programs (.debug_line, versions
// 2 to 5), enough for ptodis to map code addresses back to .pto lines. It
// never trusts a length or an index read from the file.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ptoas::dis {

struct LineRow {
  uint64_t address;
  unsigned section;  // ELF section the address lies in (0: not known)
  int64_t file;      // index into LineInfo::files, -1 if out of range
  uint32_t line;     // 1-based; 0: no source line
  uint32_t column;
  bool end_sequence;
};

// A file of a line program's table: its directory and name as the table
// has them (views into the sections, or into LineInfo::owned), joined only
// when shown: a crafted table of many entries naming one long directory
// costs a few bytes per entry, not the directory's length.
struct FileName {
  std::string_view dir, name;
  // The full name: `dir/name` unless `name` is absolute or `dir` empty;
  // empty when longer than `max` bytes (no such path opens anyway).
  std::string path(size_t max) const;
};

struct LineInfo {
  std::vector<FileName> files;
  std::deque<std::string> owned;  // names the table gives as numbers
};

// Called for every row of the line programs, in program order.
using RowSink = std::function<void(const LineRow&)>;

// The sections a line program refers to, with relocations already applied.
struct DwarfSections {
  std::string_view line;      // .debug_line
  std::string_view line_str;  // .debug_line_str (DW_FORM_line_strp)
  std::string_view str;       // .debug_str (DW_FORM_strp)
  // Offset in .debug_line of a relocated address -> the ELF section the
  // relocation's symbol lies in (so relocatable objects map to sections).
  std::map<uint64_t, unsigned> address_section;
};

// Decodes every line program of `s.line`: the file tables into `out`, the
// rows to `row` (streamed: a program of a byte per row would otherwise cost
// 32 bytes of memory per byte). False with `err` (no file name prefix) on
// anything malformed, truncated or unsupported; rows already passed to
// `row` stand. `s`'s sections must outlive `out`.
bool decode_line_programs(const DwarfSections& s, LineInfo& out, const RowSink& row, std::string& err);

}  // namespace ptoas::dis
