// ptodis (ptodis.h): a small bounds-checked ELF64 reader; the instructions
// come from a decoder per machine (decoders.h): Zydis 4 for x86-64, LLVM MC
// for AArch64.
#include "ptodis.h"

#include "decoders.h"
#include "dwarf_line.h"
#include "source_lines.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <new>
#include <tuple>
#include <vector>

namespace ptoas::dis {

namespace {

constexpr uint16_t kEmX86_64 = 62, kEmAArch64 = 183;

struct Section {
  std::string_view name;
  uint32_t type = 0;
  uint64_t flags = 0, offset = 0, size = 0;
  uint32_t link = 0, info = 0;
  uint64_t entsize = 0;
};

struct Func {
  std::string_view name;
  bool global = false;
  uint16_t shndx = 0;
  uint64_t value = 0, size = 0;
};

// The line table and what its names point into.
struct LineTable {
  std::string line, str, line_str;  // the sections, relocated
  LineInfo info;
  std::vector<Line> rows;  // sorted by (section, address), one per address
};

class Reader {
 public:
  explicit Reader(const std::string& d) : d_(d) {}
  bool has(uint64_t off, uint64_t n) const { return off <= d_.size() && n <= d_.size() - off; }
  template <class T>
  T get(uint64_t off) const {
    T v{};
    std::memcpy(&v, d_.data() + off, sizeof v);
    return v;
  }
  // The NUL-terminated string at `off`, up to `limit` (and the file's end).
  std::string_view cstr(uint64_t off, uint64_t limit) const {
    limit = std::min<uint64_t>(limit, d_.size());
    if (off >= limit) return {};
    const char* b = d_.data() + off;
    const void* z = std::memchr(b, 0, limit - off);
    return std::string_view(b, z ? size_t(static_cast<const char*>(z) - b) : size_t(limit - off));
  }
  const std::string& d_;
};

const char* x86_reloc_name(uint32_t t) {
  switch (t) {
    case 1: return "R_X86_64_64";
    case 2: return "R_X86_64_PC32";
    case 4: return "R_X86_64_PLT32";
    case 9: return "R_X86_64_GOTPCREL";
    case 10: return "R_X86_64_32";
    case 11: return "R_X86_64_32S";
    case 42: return "R_X86_64_REX_GOTPCRELX";
    default: return "R_X86_64_?";
  }
}

const char* a64_reloc_name(uint32_t t) {
  switch (t) {
    case 257: return "R_AARCH64_ABS64";
    case 258: return "R_AARCH64_ABS32";
    case 259: return "R_AARCH64_ABS16";
    case 260: return "R_AARCH64_PREL64";
    case 261: return "R_AARCH64_PREL32";
    case 274: return "R_AARCH64_ADR_PREL_LO21";
    case 275: return "R_AARCH64_ADR_PREL_PG_HI21";
    case 277: return "R_AARCH64_ADD_ABS_LO12_NC";
    case 280: return "R_AARCH64_CONDBR19";
    case 282: return "R_AARCH64_JUMP26";
    case 283: return "R_AARCH64_CALL26";
    case 286: return "R_AARCH64_LDST64_ABS_LO12_NC";
    case 299: return "R_AARCH64_LDST128_ABS_LO12_NC";
    default: return "R_AARCH64_?";
  }
}

// What differs between the machines ptodis reads.
struct Machine {
  uint16_t em;
  const char* format;  // objdump's name of the file format
  const char* (*reloc_name)(uint32_t type);
  // The bytes an absolute relocation writes (the only kind debug sections
  // need); 0 for one ptodis does not apply, -1 for one to ignore (NONE).
  int (*abs_size)(uint32_t type);
  unsigned bytes_width;  // the bytes column, padded to this many characters
};

const Machine kMachines[] = {
    {kEmX86_64, "elf64-x86-64", x86_reloc_name,
     [](uint32_t t) { return t == 0 ? -1 : t == 1 ? 8 : (t == 10 || t == 11) ? 4 : 0; }, 45},
    {kEmAArch64, "elf64-littleaarch64", a64_reloc_name,
     [](uint32_t t) { return (t == 0 || t == 256) ? -1 : t == 257 ? 8 : t == 258 ? 4 : 0; }, 8},
};

// The contents of section `i` with its RELA relocations applied as a linker
// would with every section at address 0; `addr_section` gets the section of
// the symbol of each 8-byte address.
bool relocated(const Reader& r, const Machine& mach, const std::vector<Section>& secs, unsigned i,
               std::string& out, std::map<uint64_t, unsigned>* addr_section, std::string& err) {
  const Section& s = secs[i];
  if (s.flags & 0x800 /*SHF_COMPRESSED*/) {
    err = "compressed " + shown(s.name, kMaxShownName) + " sections are not supported";
    return false;
  }
  if (s.type != 8 /*NOBITS*/ && !r.has(s.offset, s.size)) {
    err = shown(s.name, kMaxShownName) + " lies outside the file";
    return false;
  }
  out = s.type == 8 /*NOBITS*/ ? std::string() : r.d_.substr(size_t(s.offset), size_t(s.size));
  for (const Section& rs : secs) {
    if (rs.type != 4 /*RELA*/ || rs.info != i) continue;
    if (rs.link >= secs.size() || secs[rs.link].type != 2 /*SYMTAB*/) {
      err = "the relocations of " + shown(s.name, kMaxShownName) + " have no symbol table";
      return false;
    }
    const Section& symtab = secs[rs.link];
    for (uint64_t off = 0; off + 24 <= rs.size; off += 24) {
      uint64_t e = rs.offset + off;
      uint64_t where = r.get<uint64_t>(e), info = r.get<uint64_t>(e + 8);
      int64_t addend = r.get<int64_t>(e + 16);
      uint32_t sym = uint32_t(info >> 32), type = uint32_t(info);
      int size = mach.abs_size(type);
      if (size < 0) continue;
      if (size == 0) {
        err = std::string("unsupported relocation ") + mach.reloc_name(type) + " (" + std::to_string(type) +
              ") in " + shown(s.name, kMaxShownName);
        return false;
      }
      if (uint64_t(sym) * 24 + 24 > symtab.size) {
        err = "a relocation of " + shown(s.name, kMaxShownName) + " names a missing symbol";
        return false;
      }
      if (where > out.size() || uint64_t(size) > out.size() - where) {
        err = "a relocation of " + shown(s.name, kMaxShownName) + " lies outside the section";
        return false;
      }
      uint64_t se = symtab.offset + uint64_t(sym) * 24;
      uint64_t v = r.get<uint64_t>(se + 8) + uint64_t(addend);
      for (int b = 0; b < size; ++b) out[where + b] = char(uint8_t(v >> (8 * b)));
      if (size == 8 && addr_section) (*addr_section)[where] = r.get<uint16_t>(se + 6);
    }
  }
  return true;
}

// Every row of the object's .debug_line with a source line in an
// executable section (where a function can show it), sorted by (section,
// address) and one per address: the last in program order, the one the
// listing shows. No .debug_line: no rows.
bool read_lines(const Reader& r, const Machine& mach, const std::vector<Section>& secs, LineTable& t,
                std::string& err) {
  int line_i = -1, str_i = -1, line_str_i = -1;
  for (unsigned i = 0; i < secs.size(); ++i) {
    if (secs[i].name == ".debug_line") line_i = int(i);
    else if (secs[i].name == ".debug_str") str_i = int(i);
    else if (secs[i].name == ".debug_line_str") line_str_i = int(i);
  }
  if (line_i < 0) return true;
  DwarfSections ds;
  if (!relocated(r, mach, secs, unsigned(line_i), t.line, &ds.address_section, err)) return false;
  if (str_i >= 0 && !relocated(r, mach, secs, unsigned(str_i), t.str, nullptr, err)) return false;
  if (line_str_i >= 0 && !relocated(r, mach, secs, unsigned(line_str_i), t.line_str, nullptr, err)) return false;
  ds.line = t.line;
  ds.str = t.str;
  ds.line_str = t.line_str;
  uint64_t code_bytes = 0;
  for (const Section& s : secs)
    if ((s.flags & 4 /*EXECINSTR*/) && s.type != 8 /*NOBITS*/) code_bytes += s.size;
  LineRows rows(code_bytes);
  auto keep = [&](const LineRow& row) {
    if (row.end_sequence || row.line == 0 || row.file < 0) return;
    if (row.section == 0 || row.section >= secs.size()) return;
    const Section& s = secs[row.section];
    if (!(s.flags & 4 /*EXECINSTR*/) || s.type == 8 /*NOBITS*/ || row.address >= s.size) return;
    rows.add({row.section, row.address, row.file, row.line, row.column});
  };
  std::string e;
  if (!decode_line_programs(ds, t.info, keep, e)) {
    err = "malformed .debug_line: " + e;
    return false;
  }
  t.rows = rows.finish();
  return true;
}

// AArch64 mapping symbols (ELF for the Arm 64-bit Architecture, 5.5.4):
// `$x` starts code, `$d` data, each up to the next one in its section.
// section -> address -> is data.
using Mapping = std::map<unsigned, std::map<uint64_t, bool>>;

// Function symbols (sorted by section and address) and mapping symbols.
bool read_symbols(const Reader& r, const std::vector<Section>& secs, std::vector<Func>& funcs, Mapping& mapping,
                  std::string& err) {
  int symtabs = 0;
  for (const Section& s : secs) {
    if (s.type != 2 /*SYMTAB*/) continue;
    if (s.link >= secs.size()) {
      err = "symbol table links to a missing string table";
      return false;
    }
    if (++symtabs > 1) {  // ELF allows one; several over the same bytes would list them again and again
      err = "more than one symbol table";
      return false;
    }
    const Section& str = secs[s.link];
    for (uint64_t off = 0; off + 24 <= s.size; off += 24) {
      uint64_t e = s.offset + off;
      uint32_t nm = r.get<uint32_t>(e);
      uint8_t info = r.get<uint8_t>(e + 4);
      Func f;
      f.shndx = r.get<uint16_t>(e + 6);
      f.value = r.get<uint64_t>(e + 8);
      f.size = r.get<uint64_t>(e + 16);
      if (f.shndx == 0 || f.shndx >= secs.size()) continue;
      if (nm < str.size) f.name = r.cstr(str.offset + nm, str.offset + str.size);
      const Section& ts = secs[f.shndx];
      // Code comes from the file: a NOBITS section has none (and a NULL
      // one's extent was never checked).
      if (!(ts.flags & 4 /*EXECINSTR*/) || ts.type == 8 /*NOBITS*/ || !r.has(ts.offset, ts.size)) continue;
      if ((info & 0xf) == 0 /*NOTYPE*/ && f.name.size() >= 2 && f.name[0] == '$' &&
          (f.name[1] == 'x' || f.name[1] == 'd') && (f.name.size() == 2 || f.name[2] == '.')) {
        mapping[f.shndx][f.value] = f.name[1] == 'd';
        continue;
      }
      if ((info & 0xf) != 2 /*FUNC*/) continue;
      f.global = (info >> 4) != 0;
      if (f.value > ts.size || f.size > ts.size - f.value) {
        err = "function " + shown(f.name, kMaxShownName) + " lies outside its section";
        return false;
      }
      funcs.push_back(f);
    }
  }
  std::sort(funcs.begin(), funcs.end(), [](const Func& a, const Func& b) {
    return a.shndx != b.shndx ? a.shndx < b.shndx : a.value < b.value;
  });
  // ptoas's functions never share bytes; overlapping ones would list the
  // same code once per symbol (output quadratic in the object's size).
  for (size_t i = 1; i < funcs.size(); ++i) {
    const Func& a = funcs[i - 1];
    const Func& b = funcs[i];
    if (a.shndx == b.shndx && a.size && b.size && b.value < a.value + a.size) {
      err = "functions " + shown(a.name, kMaxShownName) + " and " + shown(b.name, kMaxShownName) + " overlap";
      return false;
    }
  }
  return true;
}

// A relocation against an executable section, shown below its instruction.
struct TextReloc {
  unsigned section;
  uint64_t where;
  uint32_t type, sym;
  int64_t addend;
  unsigned symtab;  // the RELA section's link
  bool operator<(const TextReloc& o) const { return std::tie(section, where) < std::tie(o.section, o.where); }
};

// Sorted by (section, offset), the last of several at one offset kept (as
// a linker would apply it last).
std::vector<TextReloc> text_relocs(const Reader& r, const std::vector<Section>& secs) {
  std::vector<TextReloc> relocs;
  for (const Section& s : secs) {
    if (s.type != 4 /*RELA*/ || s.info >= secs.size() || s.link >= secs.size()) continue;
    if (!(secs[s.info].flags & 4 /*EXECINSTR*/)) continue;
    for (uint64_t off = 0; off + 24 <= s.size; off += 24) {
      uint64_t e = s.offset + off;
      uint64_t info = r.get<uint64_t>(e + 8);
      relocs.push_back({s.info, r.get<uint64_t>(e), uint32_t(info), uint32_t(info >> 32), r.get<int64_t>(e + 16),
                        s.link});
    }
  }
  std::stable_sort(relocs.begin(), relocs.end());
  size_t n = 0;
  for (size_t i = 0; i < relocs.size(); ++i)
    if (i + 1 == relocs.size() || relocs[i] < relocs[i + 1]) relocs[n++] = relocs[i];
  relocs.resize(n);
  return relocs;
}

// `R_X86_64_PLT32 name+0`.
std::string reloc_text(const Reader& r, const Machine& mach, const std::vector<Section>& secs, const TextReloc& t) {
  const Section& symtab = secs[t.symtab];
  const Section* str = symtab.link < secs.size() ? &secs[symtab.link] : nullptr;
  std::string target = "sym#" + std::to_string(t.sym);
  if (symtab.type != 8 /*NOBITS*/ && r.has(symtab.offset, symtab.size) && uint64_t(t.sym) * 24 + 24 <= symtab.size) {
    uint64_t se = symtab.offset + uint64_t(t.sym) * 24;
    uint32_t nm = r.get<uint32_t>(se);
    uint8_t sinfo = r.get<uint8_t>(se + 4);
    uint16_t shx = r.get<uint16_t>(se + 6);
    if ((sinfo & 0xf) == 3 /*SECTION*/ && shx < secs.size()) target = shown(secs[shx].name, kMaxShownName);
    else if (str && nm < str->size) target = shown(r.cstr(str->offset + nm, str->offset + str->size), kMaxShownName);
  }
  char a[32];
  std::snprintf(a, sizeof a, "%+lld", (long long)t.addend);
  return std::string(mach.reloc_name(t.type)) + " " + target + a;
}

// Refuses sections that share bytes of the file: each section's bytes are
// then read once, so nothing (symbols, relocations) is multiplied by the
// number of section headers pointing at the same data.
bool sections_disjoint(const std::vector<Section>& secs, std::string& err) {
  std::vector<std::pair<uint64_t, unsigned>> at;
  for (unsigned i = 0; i < secs.size(); ++i)
    if (secs[i].type != 0 && secs[i].type != 8 /*NOBITS*/ && secs[i].size) at.push_back({secs[i].offset, i});
  std::sort(at.begin(), at.end());
  for (size_t k = 1; k < at.size(); ++k) {
    const Section& a = secs[at[k - 1].second];
    if (at[k].first < a.offset + a.size) {
      err = "sections #" + std::to_string(at[k - 1].second) + " and #" + std::to_string(at[k].second) +
            " overlap in the file";
      return false;
    }
  }
  return true;
}

}  // namespace

namespace {

bool disassemble_checked(const std::string& name, const std::string& data, const Options& opt, std::string& out,
                         std::string& err) {
  Reader r(data);
  auto bad = [&](const std::string& why) {
    err = name + ": " + why;
    return false;
  };
  if (!r.has(0, 64)) return bad("not an ELF object (too short: " + std::to_string(data.size()) + " bytes)");
  if (std::memcmp(data.data(), "\x7f" "ELF", 4) != 0) return bad("not an ELF object (bad magic)");
  if (data[4] != 2) return bad("only 64-bit ELF objects are supported");
  if (data[5] != 1) return bad("only little-endian ELF objects are supported");
  uint16_t em = r.get<uint16_t>(18);
  const Machine* mach = nullptr;
  for (const Machine& m : kMachines)
    if (m.em == em) mach = &m;
  if (!mach)
    return bad("ELF machine " + std::to_string(em) +
               " is not supported (ptodis reads x86-64 and AArch64 objects and AMDGPU .hsaco)");
  uint64_t shoff = r.get<uint64_t>(40);
  uint16_t shentsize = r.get<uint16_t>(58), shnum = r.get<uint16_t>(60), shstrndx = r.get<uint16_t>(62);
  if (shnum == 0) return bad("the object has no section headers");
  if (shentsize != 64) return bad("unexpected section header size " + std::to_string(shentsize));
  if (!r.has(shoff, uint64_t(shnum) * 64)) return bad("truncated: the section headers lie outside the file");
  std::vector<Section> secs(shnum);
  for (unsigned i = 0; i < shnum; ++i) {
    uint64_t h = shoff + uint64_t(i) * 64;
    Section& s = secs[i];
    s.type = r.get<uint32_t>(h + 4);
    s.flags = r.get<uint64_t>(h + 8);
    s.offset = r.get<uint64_t>(h + 24);
    s.size = r.get<uint64_t>(h + 32);
    s.link = r.get<uint32_t>(h + 40);
    s.info = r.get<uint32_t>(h + 44);
    s.entsize = r.get<uint64_t>(h + 56);
    if (s.type != 8 /*NOBITS*/ && s.type != 0 && !r.has(s.offset, s.size))
      return bad("truncated: section #" + std::to_string(i) + " lies outside the file");
  }
  if (shstrndx >= shnum) return bad("bad section name table index");
  const Section& shstr = secs[shstrndx];
  for (unsigned i = 0; i < shnum; ++i) {
    uint32_t nameoff = r.get<uint32_t>(shoff + uint64_t(i) * 64);
    if (shstr.type != 8 /*NOBITS*/ && nameoff < shstr.size)
      secs[i].name = r.cstr(shstr.offset + nameoff, shstr.offset + shstr.size);
  }
  std::string serr;
  if (!sections_disjoint(secs, serr)) return bad(serr);
  std::vector<Func> funcs;
  Mapping mapping;
  if (!read_symbols(r, secs, funcs, mapping, serr)) return bad(serr);
  if (!opt.function.empty()) {
    funcs.erase(std::remove_if(funcs.begin(), funcs.end(),
                               [&](const Func& f) { return f.name != opt.function; }),
                funcs.end());
    if (funcs.empty()) return bad("no function named '" + shown(opt.function, kMaxShownName) + "'");
  }
  // Line table: the DWARF line programs (docs/debug_info.md).
  LineTable table;
  if (opt.source) {
    std::string lerr;
    if (!read_lines(r, *mach, secs, table, lerr)) return bad(lerr);
  }
  const std::vector<Line>& lines = table.rows;
  SourceCache sources(opt.read_source, table.info);
  std::vector<TextReloc> relocs = text_relocs(r, secs);
  // Made last: setting up LLVM costs more than rejecting a bad file.
  DecodeFn decode;
  if (em == kEmAArch64) {
    std::string derr;
    if (!a64_decoder(decode, derr)) return bad(derr);
  } else {
    decode = x86_decoder();
  }

  // With a sink, the listing leaves in pieces of about this size.
  constexpr size_t kPiece = size_t(1) << 20;
  auto flush = [&](bool last) {
    if (opt.write && (last || out.size() >= kPiece)) {
      opt.write(out);
      out.clear();
    }
  };
  out = name + ":\tfile format " + mach->format + "\n";
  if (funcs.empty()) out += "\n(no functions)\n";
  for (const Func& f : funcs) {
    const Section& ts = secs[f.shndx];
    out += "\n" + shown(f.name, kMaxShownName) + " (" + (f.global ? "global" : "local") + ", " +
           std::to_string(f.size) + " bytes) in " + shown(ts.name, kMaxShownName) + ":\n";
    const uint8_t* code = reinterpret_cast<const uint8_t*>(data.data() + ts.offset);
    const std::map<uint64_t, bool>& maps = mapping[f.shndx];
    uint64_t pc = f.value, end = f.value + f.size;
    // Rows of this function's section, from its start on.
    auto li = std::lower_bound(lines.begin(), lines.end(), std::make_pair(unsigned(f.shndx), pc),
                               [](const Line& l, const std::pair<unsigned, uint64_t>& k) {
                                 return std::make_pair(l.section, l.address) < k;
                               });
    while (pc < end) {
      // One source line per group: the last row at or before this
      // instruction that has not been shown.
      const Line* show = nullptr;
      while (li != lines.end() && li->section == f.shndx && li->address <= pc) show = &*li++;
      if (show) out += sources.describe(*show) + "\n";
      // The mapping symbol in force and where the next one starts: an
      // instruction never straddles a change between code and data.
      auto next = maps.upper_bound(pc);
      bool is_data = next != maps.begin() && std::prev(next)->second;
      uint64_t stop = next != maps.end() && next->first < end ? next->first : end;
      std::string text;
      unsigned len = 0;
      if (is_data && stop - pc >= 4) {
        char t[32];
        std::snprintf(t, sizeof t, ".word\t0x%08x", le32(code + pc));
        text = t;
        len = 4;
      } else if (is_data || !decode(code + pc, stop - pc, pc, text, len) || len == 0 || len > stop - pc) {
        char t[32];
        if (em == kEmAArch64 && stop - pc >= 4) {
          std::snprintf(t, sizeof t, ".inst\t0x%08x", le32(code + pc));
          len = 4;
        } else {
          std::snprintf(t, sizeof t, em == kEmAArch64 ? ".byte\t0x%02x" : ".byte 0x%02x", code[pc]);
          len = 1;
        }
        text = t;
      }
      std::string bytes;
      if (em == kEmAArch64 && len == 4) bytes = hex(le32(code + pc), 8);  // one word, as objdump shows it
      else
        for (unsigned i = 0; i < len; ++i) bytes += hex(code[pc + i], 2) + " ";
      if (bytes.size() < mach->bytes_width) bytes.resize(mach->bytes_width, ' ');
      out += "  " + hex(pc, 6) + ":  " + bytes + "\t" + text + "\n";
      TextReloc k{f.shndx, pc, 0, 0, 0, 0};
      for (auto it = std::lower_bound(relocs.begin(), relocs.end(), k);
           it != relocs.end() && it->section == f.shndx && it->where < pc + len; ++it)
        out += "  " + std::string(8, ' ') + "  " + hex(it->where, 6) + ": " + reloc_text(r, *mach, secs, *it) + "\n";
      pc += len;
      flush(false);
    }
  }
  flush(true);
  return true;
}

}  // namespace

// PTX text (ptx_listing.cpp).
bool looks_like_ptx(const std::string& data);
bool list_ptx(const std::string& name, const std::string& data, const Options& opt, std::string& out,
              std::string& err);
// AMDGPU code objects (hsaco_listing.cpp).
bool looks_like_hsaco(const std::string& data);
bool list_hsaco(const std::string& name, const std::string& data, const Options& opt, std::string& out,
                std::string& err);

bool disassemble(const std::string& name, const std::string& data, const Options& opt, std::string& out,
                 std::string& err) {
  try {
    if (looks_like_ptx(data)) return list_ptx(name, data, opt, out, err);
    if (looks_like_hsaco(data)) return list_hsaco(name, data, opt, out, err);
    return disassemble_checked(name, data, opt, out, err);
  } catch (const std::bad_alloc&) {
    out.clear();
    err = name + ": out of memory";
    return false;
  }
}

}  // namespace ptoas::dis
