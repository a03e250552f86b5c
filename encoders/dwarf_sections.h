// The DWARF 5 sections of a CPU object (docs/debug_info.md): the line
// program (.debug_line, .debug_line_str) and one compile unit with a
// subprogram per function (.debug_abbrev, .debug_info), as bytes plus the
// relocations the CPU object (cpu_object.cpp) turns into ObjectFile ones.
// Target-neutral and LLVM-free: addresses are .text offsets.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptoas::cg {

// One row of the line table: the code from `address` on is `line`:`col`
// (line 0: no source, e.g. padding). is_stmt is set on every row with a line.
struct LineRow {
  uint64_t address;
  uint32_t line, col;
  bool prologue_end;
};

struct DebugFunc {
  std::string name;
  bool global;
  uint32_t decl_line;
  uint64_t begin, size;  // in .text
};

struct DebugUnit {
  std::string producer, src_name, comp_dir;
  std::optional<std::array<uint8_t, 16>> md5;  // of the source text
  std::vector<DebugFunc> funcs;                // at least one
  std::vector<LineRow> rows;                   // by address
  uint64_t text_size;                          // the sequence ends here
};

// A field to relocate: `offset` in its section holds the address or offset
// of `target` + addend once linked.
enum class DebugTarget : uint8_t { Text, Abbrev, Line, LineStr };
struct DebugReloc {
  uint64_t offset;
  bool wide;  // 8 bytes (an address) or 4 (a section offset)
  DebugTarget target;
  int64_t addend;
};

struct DebugSections {
  std::string abbrev, info, line, line_str;
  std::vector<DebugReloc> info_relocs, line_relocs;
};

DebugSections build_debug_sections(const DebugUnit& u);

}  // namespace ptoas::cg
