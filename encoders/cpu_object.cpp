// The object of a CPU target (cpu_object.h), as a target-neutral
// ObjectFile that elf_writer.cpp serializes. The target's part comes in an
// ElfTarget (x86/emit.cpp, sve/emit.cpp); only LLVM's constants and MD5 are
// used.
//
//   .text        the functions, each 16-byte aligned (the target's padding),
//                a FUNC symbol with its size; global unless the function is
//                private
//   .rodata      the constants (when there are any); a function's rodata
//                fixup (x86: `lea r14, [rip + rel32]`) carries a PC32
//                relocation against it
//   .note.GNU-stack (non-executable stack: an empty marker section, not a note)
//   .debug_abbrev, .debug_info, .debug_line, .debug_line_str
//                DWARF 5 (dwarf_sections.h): one line row per instruction
//                group, one compile unit, a subprogram per function
// Section symbols come first (then the mapping symbol, then the functions),
// so the serializer's locals-first order keeps them there.
#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/MD5.h>

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "cpu_object.h"
#include "dwarf_sections.h"

namespace ptoas::cg {

namespace {

// The directory ptoas runs in (DW_AT_comp_dir, directory 0 of the line
// table); relative source names are relative to it.
std::string compilation_dir() {
  char buf[PATH_MAX];
  if (::getcwd(buf, sizeof buf)) return buf;
  return "";
}

ObjSection section(std::string name, SectionKind kind, uint64_t align, bool strings = false) {
  return ObjSection{.name = std::move(name), .kind = kind, .align = align, .strings = strings};
}

}  // namespace

bool cpu_object(const Module& m, const ModuleCode& code, const ElfTarget& et, ObjectFile& obj, std::string& err) {
  obj = ObjectFile{};
  obj.machine = et.machine;
  const uint32_t text = obj.add_section(section(".text", SectionKind::Code, 16));
  const uint32_t text_sym = obj.add_section_symbol(text);
  if (et.code_mapping_symbol) obj.add_symbol({.name = et.code_mapping_symbol, .section = text});
  uint32_t rodata_sym = kNoSection;
  if (!code.rodata.empty()) {
    const uint32_t rodata = obj.add_section(section(".rodata", SectionKind::ReadOnly, 64));
    obj.sections[rodata].bytes.assign(reinterpret_cast<const char*>(code.rodata.data()), code.rodata.size());
    rodata_sym = obj.add_section_symbol(rodata);
  }
  obj.add_section(section(".note.GNU-stack", SectionKind::NonAlloc, 1));
  // The debug sections (filled once .text is laid out) come before the
  // function symbols so that their section symbols do too.
  const bool debug = !code.funcs.empty();
  uint32_t abbrev = 0, info = 0, line = 0, line_str = 0, abbrev_sym = 0, line_sym = 0, line_str_sym = 0;
  if (debug) {
    abbrev = obj.add_section(section(".debug_abbrev", SectionKind::NonAlloc, 1));
    abbrev_sym = obj.add_section_symbol(abbrev);
    info = obj.add_section(section(".debug_info", SectionKind::NonAlloc, 1));
    line = obj.add_section(section(".debug_line", SectionKind::NonAlloc, 1));
    line_sym = obj.add_section_symbol(line);
    line_str = obj.add_section(section(".debug_line_str", SectionKind::NonAlloc, 1, true));
    line_str_sym = obj.add_section_symbol(line_str);
  }

  // .text: each function 16-byte aligned, one line row per instruction
  // group (the last entry at an offset names it); the padding gets line 0.
  DebugUnit du;
  auto line_of = [&](uint32_t src_loc) { return m.src ? m.src->line_col(src_loc) : LineCol{0, 0}; };
  for (const FuncCode& f : code.funcs) {
    if (et.check && !et.check(f, err)) return false;
    std::string& t = obj.sections[text].bytes;
    const uint64_t pos = t.size(), begin = (pos + 15) & ~uint64_t(15);
    if (begin > pos) {
      du.rows.push_back({pos, 0, 0, false});
      et.pad(t, size_t(begin - pos));
    }
    const uint32_t n = uint32_t(f.code.size());
    t.append(reinterpret_cast<const char*>(f.code.data()), n);
    if (f.rodata_fixup != kNoFixup && f.rodata_fixup + 4 <= n && rodata_sym != kNoSection) {
      std::memset(&t[begin + f.rodata_fixup], 0, 4);  // the value is in the relocation
      obj.sections[text].relocs.push_back({begin + f.rodata_fixup, rodata_sym, et.r_pc32, et.pc32_addend});
    }
    size_t rows = 0;
    for (size_t i = 0; i < f.lines.size() && f.lines[i].offset < n; ++i) {
      if (i + 1 < f.lines.size() && f.lines[i + 1].offset <= f.lines[i].offset) continue;
      LineCol lc = line_of(f.lines[i].src_loc);
      // The second row ends the prologue (the first is the function op).
      du.rows.push_back({begin + f.lines[i].offset, lc.line, lc.col, rows++ == 1});
    }
    obj.add_symbol({.name = f.name,
                    .section = text,
                    .offset = begin,
                    .size = n,
                    .binding = f.global ? SymbolBinding::Global : SymbolBinding::Local,
                    .type = SymbolType::Func});
    du.funcs.push_back({f.name, f.global, f.lines.empty() ? 0 : line_of(f.lines.front().src_loc).line, begin, n});
  }
  if (!debug) return true;

  du.producer = std::string("ptoas ") + PTOAS_VERSION;
  du.src_name = m.src ? m.src->name() : "<input>";
  du.comp_dir = compilation_dir();
  if (m.src) {
    std::string_view s = m.src->text();
    llvm::MD5::MD5Result h =
        llvm::MD5::hash(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
    du.md5.emplace();
    std::copy(h.begin(), h.end(), du.md5->begin());
  }
  du.text_size = obj.sections[text].bytes.size();
  DebugSections d = build_debug_sections(du);
  obj.sections[abbrev].bytes = std::move(d.abbrev);
  obj.sections[info].bytes = std::move(d.info);
  obj.sections[line].bytes = std::move(d.line);
  obj.sections[line_str].bytes = std::move(d.line_str);
  auto relocate = [&](uint32_t sec, const std::vector<DebugReloc>& rs) {
    for (const DebugReloc& r : rs) {
      uint32_t to = r.target == DebugTarget::Text     ? text_sym
                    : r.target == DebugTarget::Abbrev ? abbrev_sym
                    : r.target == DebugTarget::Line   ? line_sym
                                                      : line_str_sym;
      obj.sections[sec].relocs.push_back({r.offset, to, r.wide ? et.r_abs64 : et.r_abs32, r.addend});
    }
  };
  relocate(info, d.info_relocs);
  relocate(line, d.line_relocs);
  return true;
}

bool cpu_output(const Module& m, const ModuleCode& code, const ElfTarget& et, Output& out, std::string& err) {
  out = Output{.kind = Output::Kind::Object};
  return cpu_object(m, code, et, out.object, err);
}

}  // namespace ptoas::cg
