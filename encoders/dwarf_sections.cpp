// build_debug_sections (dwarf_sections.h): written here rather than by
// LLVM MC's DWARF streamer, whose set-up cost more than compiling a small
// kernel (docs/debug_info.md). Only LLVM's constants are used.
#include "dwarf_sections.h"

#include <llvm/BinaryFormat/Dwarf.h>

#include "le_bytes.h"

namespace ptoas::cg {

namespace {

// The line program's parameters (those of LLVM MC and GNU as).
constexpr int kLineBase = -5;
constexpr unsigned kLineRange = 14;
constexpr unsigned kOpcodeBase = 13;
constexpr uint16_t kDwarfVersion = 5;

// The abbreviation codes of the two DIEs .debug_info uses.
enum : unsigned { kAbbrevCU = 1, kAbbrevSubprogram = 2 };

struct Bytes {
  std::string& s;
  void u8(unsigned v) { s.push_back(char(v & 0xff)); }
  void le(uint64_t v, unsigned n) { put_le(s, v, n); }
  void uleb(uint64_t v) {
    do {
      unsigned b = v & 0x7f;
      v >>= 7;
      u8(v ? b | 0x80 : b);
    } while (v);
  }
  void sleb(int64_t v) {
    for (;;) {
      unsigned b = unsigned(v) & 0x7f;
      v >>= 7;  // arithmetic
      bool done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
      u8(done ? b : b | 0x80);
      if (done) return;
    }
  }
  void str(const std::string& t) { s.append(t.c_str(), t.size() + 1); }  // with its NUL
  // A relocated field: zero bytes here, the value in the relocation.
  void reloc(std::vector<DebugReloc>& rs, bool wide, DebugTarget t, int64_t addend) {
    rs.push_back({s.size(), wide, t, addend});
    le(0, wide ? 8 : 4);
  }
  // Patches a 4-byte length field at `at` to the bytes after it.
  void close_length(size_t at) { patch_le(s, at, s.size() - at - 4, 4); }
};

void write_abbrevs(std::string& out) {
  using namespace llvm::dwarf;
  Bytes b{out};
  auto attr = [&](unsigned at, unsigned form) {
    b.uleb(at);
    b.uleb(form);
  };
  b.uleb(kAbbrevCU);
  b.uleb(DW_TAG_compile_unit);
  b.u8(DW_CHILDREN_yes);
  attr(DW_AT_producer, DW_FORM_string);
  attr(DW_AT_language, DW_FORM_data2);
  attr(DW_AT_name, DW_FORM_string);
  attr(DW_AT_comp_dir, DW_FORM_string);
  attr(DW_AT_stmt_list, DW_FORM_sec_offset);
  attr(DW_AT_low_pc, DW_FORM_addr);
  attr(DW_AT_high_pc, DW_FORM_data4);  // a length (DWARF 4+)
  attr(0, 0);
  b.uleb(kAbbrevSubprogram);
  b.uleb(DW_TAG_subprogram);
  b.u8(DW_CHILDREN_no);
  attr(DW_AT_name, DW_FORM_string);
  attr(DW_AT_external, DW_FORM_flag);
  attr(DW_AT_decl_file, DW_FORM_udata);
  attr(DW_AT_decl_line, DW_FORM_udata);
  attr(DW_AT_low_pc, DW_FORM_addr);
  attr(DW_AT_high_pc, DW_FORM_data4);
  attr(0, 0);
  b.uleb(0);  // end of the table
}

void write_info(const DebugUnit& u, DebugSections& d) {
  using namespace llvm::dwarf;
  Bytes b{d.info};
  const DebugFunc& first = u.funcs.front();
  const DebugFunc& last = u.funcs.back();
  b.le(0, 4);  // unit_length (DWARF32), patched below
  b.le(kDwarfVersion, 2);
  b.u8(DW_UT_compile);
  b.u8(8);  // address size
  b.reloc(d.info_relocs, false, DebugTarget::Abbrev, 0);
  // The compile unit: .text from the first function to the end of the last.
  b.uleb(kAbbrevCU);
  b.str(u.producer);
  b.le(DW_LANG_Mips_Assembler, 2);
  b.str(u.src_name);
  b.str(u.comp_dir);
  b.reloc(d.info_relocs, false, DebugTarget::Line, 0);
  b.reloc(d.info_relocs, true, DebugTarget::Text, int64_t(first.begin));
  b.le(last.begin + last.size - first.begin, 4);
  for (const DebugFunc& f : u.funcs) {
    b.uleb(kAbbrevSubprogram);
    b.str(f.name);
    b.u8(f.global ? 1 : 0);
    b.uleb(0);  // DW_AT_decl_file: file 0, the .pto file
    b.uleb(f.decl_line);
    b.reloc(d.info_relocs, true, DebugTarget::Text, int64_t(f.begin));
    b.le(f.size, 4);
  }
  b.uleb(0);  // end of the unit's children
  b.close_length(0);
}

// Adds one row: line and address advance in as few bytes as the standard
// opcodes allow (a special opcode when they fit).
void advance_row(Bytes& b, int64_t dline, uint64_t daddr) {
  using namespace llvm::dwarf;
  if (dline < kLineBase || dline >= kLineBase + int64_t(kLineRange)) {
    b.u8(DW_LNS_advance_line);
    b.sleb(dline);
    dline = 0;
  }
  auto special = [&](uint64_t a) { return uint64_t(dline - kLineBase) + kLineRange * a + kOpcodeBase; };
  const uint64_t const_add = (255 - kOpcodeBase) / kLineRange;  // DW_LNS_const_add_pc's advance
  if (special(daddr) > 255 && daddr >= const_add && special(daddr - const_add) <= 255) {
    b.u8(DW_LNS_const_add_pc);
    daddr -= const_add;
  } else if (special(daddr) > 255) {
    b.u8(DW_LNS_advance_pc);
    b.uleb(daddr);
    daddr = 0;
  }
  b.u8(unsigned(special(daddr)));
}

void write_line_program(const DebugUnit& u, DebugSections& d) {
  using namespace llvm::dwarf;
  // .debug_line_str: the directory, then the file name.
  const int64_t dir_str = 0, file_str = int64_t(u.comp_dir.size() + 1);
  Bytes{d.line_str}.str(u.comp_dir);
  Bytes{d.line_str}.str(u.src_name);

  Bytes b{d.line};
  b.le(0, 4);  // unit_length, patched below
  b.le(kDwarfVersion, 2);
  b.u8(8);  // address size
  b.u8(0);  // segment selector size
  const size_t header_length_at = d.line.size();
  b.le(0, 4);  // header_length, patched below
  b.u8(1);     // minimum_instruction_length
  b.u8(1);     // maximum_operations_per_instruction
  b.u8(1);     // default_is_stmt
  b.u8(uint8_t(int8_t(kLineBase)));
  b.u8(kLineRange);
  b.u8(kOpcodeBase);
  for (unsigned n : {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1}) b.u8(n);  // operands of opcodes 1..12
  // Directory 0: the compilation directory.
  b.u8(1);
  b.uleb(DW_LNCT_path);
  b.uleb(DW_FORM_line_strp);
  b.uleb(1);
  b.reloc(d.line_relocs, false, DebugTarget::LineStr, dir_str);
  // File 0: the .pto file, in directory 0, with its MD5.
  b.u8(u.md5 ? 3 : 2);
  b.uleb(DW_LNCT_path);
  b.uleb(DW_FORM_line_strp);
  b.uleb(DW_LNCT_directory_index);
  b.uleb(DW_FORM_udata);
  if (u.md5) {
    b.uleb(DW_LNCT_MD5);
    b.uleb(DW_FORM_data16);
  }
  b.uleb(1);
  b.reloc(d.line_relocs, false, DebugTarget::LineStr, file_str);
  b.uleb(0);
  if (u.md5)
    for (uint8_t x : *u.md5) b.u8(x);
  b.close_length(header_length_at);

  // One sequence over all of .text.
  b.u8(DW_LNS_set_file);
  b.uleb(0);
  b.u8(0);  // extended opcode: length, then DW_LNE_set_address
  b.uleb(9);
  b.u8(DW_LNE_set_address);
  b.reloc(d.line_relocs, true, DebugTarget::Text, 0);
  uint64_t addr = 0;
  uint32_t line = 1, col = 0;
  bool stmt = true;
  for (const LineRow& r : u.rows) {
    if (r.col != col) {
      b.u8(DW_LNS_set_column);
      b.uleb(r.col);
      col = r.col;
    }
    if ((r.line != 0) != stmt) {
      b.u8(DW_LNS_negate_stmt);
      stmt = !stmt;
    }
    if (r.prologue_end) b.u8(DW_LNS_set_prologue_end);
    advance_row(b, int64_t(r.line) - int64_t(line), r.address - addr);
    line = r.line;
    addr = r.address;
  }
  if (u.text_size > addr) {
    b.u8(DW_LNS_advance_pc);
    b.uleb(u.text_size - addr);
  }
  b.u8(0);
  b.uleb(1);
  b.u8(DW_LNE_end_sequence);
  b.close_length(0);
}

}  // namespace

DebugSections build_debug_sections(const DebugUnit& u) {
  DebugSections d;
  write_abbrevs(d.abbrev);
  write_info(u, d);
  write_line_program(u, d);
  return d;
}

}  // namespace ptoas::cg
