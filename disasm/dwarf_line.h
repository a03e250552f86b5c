// A small bounds-checked reader of DWARF line programs (.debug_line, versions
// 2 to 5), enough for ptodis to map code addresses back to .pto lines. It
// never trusts a length or an index read from the file.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ptoas::dis {

struct LineRow {
  uint64_t address;
  unsigned section;  // ELF section the address lies in (0: not known)
  int file;          // index into LineInfo::files, -1 if out of range
  uint32_t line;     // 1-based; 0: no source line
  uint32_t column;
  bool end_sequence;
};

struct LineInfo {
  std::vector<std::string> files;  // full names: directory joined unless absolute
  std::vector<LineRow> rows;       // in program order
};

// The sections a line program refers to, with relocations already applied.
struct DwarfSections {
  std::string_view line;      // .debug_line
  std::string_view line_str;  // .debug_line_str (DW_FORM_line_strp)
  std::string_view str;       // .debug_str (DW_FORM_strp)
  // Offset in .debug_line of a relocated address -> the ELF section the
  // relocation's symbol lies in (so relocatable objects map to sections).
  std::map<uint64_t, unsigned> address_section;
};

// Decodes every line program of `s.line` into `out`. False with `err` (no
// file name prefix) on anything malformed, truncated or unsupported.
bool decode_line_programs(const DwarfSections& s, LineInfo& out, std::string& err);

}  // namespace ptoas::dis
