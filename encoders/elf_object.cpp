// Relocatable ELF64 objects of the CPU targets, written directly: LLVM MC's
// object streamer cost about 0.45 ms of set-up, layout and teardown per
// object, more than compiling a small kernel (docs/debug_info.md). The target's part comes in
// an ElfTarget (x86/emit.cpp, sve/emit.cpp); only LLVM's constants and
// MD5 are used.
//
//   .text        the functions, each 16-byte aligned (the target's padding),
//                a FUNC symbol with its size; global unless the function is
//                private
//   .rodata      the constants (when there are any); a function's rodata
//                fixup (x86: `lea r14, [rip + rel32]`) carries a PC32
//                relocation against it
//   .debug_line, .debug_line_str, .debug_abbrev, .debug_info
//                DWARF 5 (dwarf_sections.h): one line row per instruction
//                group, one compile unit, a subprogram per function
//   .note.GNU-stack (non-executable stack)
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/MD5.h>

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "dwarf_sections.h"
#include "elf_object.h"
#include "le_bytes.h"

#ifndef PTOAS_VERSION
#define PTOAS_VERSION "unknown"
#endif

namespace ptoas::cg {

namespace {

// The directory ptoas runs in (DW_AT_comp_dir, directory 0 of the line
// table); relative source names are relative to it.
std::string compilation_dir() {
  char buf[PATH_MAX];
  if (::getcwd(buf, sizeof buf)) return buf;
  return "";
}

struct Reloc {
  uint64_t offset;
  uint32_t sym, type;
  int64_t addend;
};

struct Section {
  std::string name;
  uint32_t type;
  uint64_t flags, align, entsize;
  std::string data;
  uint32_t link = 0, info = 0;
  std::vector<Reloc> relocs;  // become .rela<name>
  uint32_t sym = 0;           // its section symbol (0: none)
};

Section section(std::string name, uint32_t type, uint64_t flags, uint64_t align, uint64_t entsize,
                std::string data = {}) {
  Section s;
  s.name = std::move(name);
  s.type = type;
  s.flags = flags;
  s.align = align;
  s.entsize = entsize;
  s.data = std::move(data);
  return s;
}

struct Symbol {
  std::string name;
  uint8_t info;  // binding << 4 | type
  uint16_t shndx;
  uint64_t value, size;
};

void align_to(std::string& s, uint64_t a) {
  while (s.size() % a) s.push_back('\0');
}

// Lays out header, sections (with .rela, .symtab, .strtab added) and the
// section header table.
std::string link_layout(uint16_t machine, std::vector<Section> secs, const std::vector<Symbol>& syms) {
  using namespace llvm::ELF;
  // Symbols: locals first (sh_info of .symtab is the first global).
  std::string strtab(1, '\0');
  auto name_of = [&](const std::string& n) {
    if (n.empty()) return uint32_t(0);
    uint32_t at = uint32_t(strtab.size());
    strtab.append(n.c_str(), n.size() + 1);
    return at;
  };
  std::string symtab(24, '\0');  // the null symbol
  uint32_t first_global = 1;
  for (const Symbol& s : syms) {
    put_le(symtab, name_of(s.name), 4);
    symtab.push_back(char(s.info));
    symtab.push_back(char(STV_DEFAULT));
    put_le(symtab, s.shndx, 2);
    put_le(symtab, s.value, 8);
    put_le(symtab, s.size, 8);
    if ((s.info >> 4) == STB_LOCAL) ++first_global;
  }
  const uint32_t n_content = uint32_t(secs.size());
  const uint32_t symtab_index =
      n_content + 1 + uint32_t(std::count_if(secs.begin(), secs.end(), [](const Section& s) { return !s.relocs.empty(); }));
  for (uint32_t i = 0; i < n_content; ++i) {
    if (secs[i].relocs.empty()) continue;
    Section r = section(".rela" + secs[i].name, SHT_RELA, SHF_INFO_LINK, 8, 24);
    r.link = symtab_index;
    r.info = i + 1;
    for (const Reloc& x : secs[i].relocs) {
      put_le(r.data, x.offset, 8);
      put_le(r.data, uint64_t(x.sym) << 32 | x.type, 8);
      put_le(r.data, uint64_t(x.addend), 8);
    }
    secs.push_back(std::move(r));
  }
  secs.push_back(section(".symtab", SHT_SYMTAB, 0, 8, 24, std::move(symtab)));
  secs.back().link = symtab_index + 1;
  secs.back().info = first_global;
  std::vector<uint32_t> sh_name;
  for (const Section& s : secs) sh_name.push_back(name_of(s.name));
  const uint32_t strtab_name = name_of(".strtab");
  secs.push_back(section(".strtab", SHT_STRTAB, 0, 1, 0, std::move(strtab)));
  sh_name.push_back(strtab_name);

  std::string out(64, '\0');
  std::vector<uint64_t> offset;
  for (const Section& s : secs) {
    align_to(out, s.align);
    offset.push_back(out.size());
    out += s.data;
  }
  align_to(out, 8);
  const uint64_t shoff = out.size();
  out.append(64, '\0');  // the null section header
  for (size_t i = 0; i < secs.size(); ++i) {
    const Section& s = secs[i];
    put_le(out, sh_name[i], 4);
    put_le(out, s.type, 4);
    put_le(out, s.flags, 8);
    put_le(out, 0, 8);  // sh_addr
    put_le(out, offset[i], 8);
    put_le(out, s.data.size(), 8);
    put_le(out, s.link, 4);
    put_le(out, s.info, 4);
    put_le(out, s.align, 8);
    put_le(out, s.entsize, 8);
  }
  // The ELF header.
  std::string h = {'\x7f', 'E', 'L', 'F', char(ELFCLASS64), char(ELFDATA2LSB), char(EV_CURRENT), char(ELFOSABI_NONE)};
  h.resize(EI_NIDENT, '\0');
  put_le(h, ET_REL, 2);
  put_le(h, machine, 2);
  put_le(h, EV_CURRENT, 4);
  put_le(h, 0, 8);  // e_entry
  put_le(h, 0, 8);  // e_phoff
  put_le(h, shoff, 8);
  put_le(h, 0, 4);   // e_flags
  put_le(h, 64, 2);  // e_ehsize
  put_le(h, 0, 2);   // e_phentsize
  put_le(h, 0, 2);   // e_phnum
  put_le(h, 64, 2);  // e_shentsize
  put_le(h, secs.size() + 1, 2);
  put_le(h, secs.size(), 2);  // e_shstrndx: .strtab, the last
  out.replace(0, h.size(), h);
  return out;
}

}  // namespace

bool write_elf_object(const Module& m, const ModuleCode& code, const ElfTarget& et, std::string& out,
                      std::string& err) {
  using namespace llvm::ELF;
  // Section indices below are positions in `secs` + 1 (0 is the null section).
  std::vector<Section> secs;
  std::vector<Symbol> locals;
  auto add = [&](Section s, bool with_symbol) {
    secs.push_back(std::move(s));
    uint32_t index = uint32_t(secs.size());
    if (with_symbol) {
      locals.push_back({"", uint8_t(STB_LOCAL << 4 | STT_SECTION), uint16_t(index), 0, 0});
      secs.back().sym = uint32_t(locals.size());
    }
    return index;
  };
  const uint32_t text = add(section(".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16, 0), true);
  if (et.code_mapping_symbol) locals.push_back({et.code_mapping_symbol, uint8_t(STB_LOCAL << 4 | STT_NOTYPE), uint16_t(text), 0, 0});
  uint32_t rodata = 0;
  if (!code.rodata.empty()) {
    rodata = add(section(".rodata", SHT_PROGBITS, SHF_ALLOC, 64, 0), true);
    secs[rodata - 1].data.assign(reinterpret_cast<const char*>(code.rodata.data()), code.rodata.size());
  }
  add(section(".note.GNU-stack", SHT_PROGBITS, 0, 1, 0), false);

  // .text: each function 16-byte aligned, one line row per instruction
  // group (the last entry at an offset names it); the padding gets line 0.
  const bool debug = !code.funcs.empty();
  DebugUnit du;
  auto line_of = [&](uint32_t src_loc) { return m.src ? m.src->line_col(src_loc) : LineCol{0, 0}; };
  std::vector<Symbol> funcs_local, funcs_global;
  for (const FuncCode& f : code.funcs) {
    if (et.check && !et.check(f, err)) return false;
    std::string& t = secs[text - 1].data;
    const uint64_t pos = t.size(), begin = (pos + 15) & ~uint64_t(15);
    if (begin > pos) {
      du.rows.push_back({pos, 0, 0, false});
      et.pad(t, size_t(begin - pos));
    }
    const uint32_t n = uint32_t(f.code.size());
    t.append(reinterpret_cast<const char*>(f.code.data()), n);
    if (f.rodata_fixup != kNoFixup && f.rodata_fixup + 4 <= n && rodata) {
      std::memset(&t[begin + f.rodata_fixup], 0, 4);  // the value is in the relocation
      secs[text - 1].relocs.push_back({begin + f.rodata_fixup, secs[rodata - 1].sym, et.r_pc32, et.pc32_addend});
    }
    size_t rows = 0;
    for (size_t i = 0; i < f.lines.size() && f.lines[i].offset < n; ++i) {
      if (i + 1 < f.lines.size() && f.lines[i + 1].offset <= f.lines[i].offset) continue;
      LineCol lc = line_of(f.lines[i].src_loc);
      // The second row ends the prologue (the first is the function op).
      du.rows.push_back({begin + f.lines[i].offset, lc.line, lc.col, rows++ == 1});
    }
    Symbol s{f.name, uint8_t((f.global ? STB_GLOBAL : STB_LOCAL) << 4 | STT_FUNC), uint16_t(text), begin, n};
    (f.global ? funcs_global : funcs_local).push_back(s);
    du.funcs.push_back({f.name, f.global, f.lines.empty() ? 0 : line_of(f.lines.front().src_loc).line, begin, n});
  }

  if (debug) {
    du.producer = std::string("ptoas ") + PTOAS_VERSION;
    du.src_name = m.src ? m.src->name() : "<input>";
    du.comp_dir = compilation_dir();
    if (m.src) {
      std::string_view s = m.src->text();
      llvm::MD5::MD5Result h = llvm::MD5::hash(
          llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
      du.md5.emplace();
      std::copy(h.begin(), h.end(), du.md5->begin());
    }
    du.text_size = secs[text - 1].data.size();
    DebugSections d = build_debug_sections(du);
    const uint32_t abbrev = add(section(".debug_abbrev", SHT_PROGBITS, 0, 1, 0, std::move(d.abbrev)), true);
    const uint32_t info = add(section(".debug_info", SHT_PROGBITS, 0, 1, 0, std::move(d.info)), false);
    const uint32_t line = add(section(".debug_line", SHT_PROGBITS, 0, 1, 0, std::move(d.line)), true);
    const uint32_t line_str =
        add(section(".debug_line_str", SHT_PROGBITS, SHF_MERGE | SHF_STRINGS, 1, 1, std::move(d.line_str)), true);
    auto relocate = [&](uint32_t sec, const std::vector<DebugReloc>& rs) {
      for (const DebugReloc& r : rs) {
        uint32_t to = r.target == DebugTarget::Text     ? text
                      : r.target == DebugTarget::Abbrev ? abbrev
                      : r.target == DebugTarget::Line   ? line
                                                        : line_str;
        secs[sec - 1].relocs.push_back({r.offset, secs[to - 1].sym, r.wide ? et.r_abs64 : et.r_abs32, r.addend});
      }
    };
    relocate(info, d.info_relocs);
    relocate(line, d.line_relocs);
  }

  // Symbols: section and mapping symbols, private functions, then public ones.
  std::vector<Symbol> syms = std::move(locals);
  syms.insert(syms.end(), funcs_local.begin(), funcs_local.end());
  syms.insert(syms.end(), funcs_global.begin(), funcs_global.end());
  out = link_layout(et.machine, std::move(secs), syms);
  return true;
}

}  // namespace ptoas::cg
