// ptodis (ptodis.h): a small bounds-checked ELF64 reader, Zydis 4 for x86-64.
#include "ptodis.h"

#include "dwarf_line.h"

#include <Zydis/Zydis.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

namespace ptoas::dis {

namespace {

struct Section {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0, offset = 0, size = 0;
  uint32_t link = 0, info = 0;
  uint64_t entsize = 0;
};

struct Func {
  std::string name;
  bool global = false;
  uint16_t shndx = 0;
  uint64_t value = 0, size = 0;
};

// A row of the line table, in the section it describes.
struct Line {
  unsigned section;
  uint64_t address;
  std::string file;
  uint32_t line, col;
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
  std::string cstr(uint64_t off, uint64_t limit) const {
    std::string s;
    while (off < limit && off < d_.size() && d_[off]) s += d_[off++];
    return s;
  }
  const std::string& d_;
};

const char* reloc_name(uint32_t t) {
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

std::string hex(uint64_t v, int w) {
  char b[32];
  std::snprintf(b, sizeof b, "%0*llx", w, (unsigned long long)v);
  return b;
}

// The contents of section `i` with its RELA relocations applied as a linker
// would with every section at address 0; `addr_section` gets the section of
// the symbol of each 8-byte address.
bool relocated(const Reader& r, const std::vector<Section>& secs, unsigned i, std::string& out,
               std::map<uint64_t, unsigned>* addr_section, std::string& err) {
  const Section& s = secs[i];
  if (s.flags & 0x800 /*SHF_COMPRESSED*/) {
    err = "compressed " + s.name + " sections are not supported";
    return false;
  }
  out = s.type == 8 /*NOBITS*/ ? std::string() : r.d_.substr(s.offset, s.size);
  for (const Section& rs : secs) {
    if (rs.type != 4 /*RELA*/ || rs.info != i) continue;
    if (rs.link >= secs.size() || secs[rs.link].type != 2 /*SYMTAB*/) {
      err = "the relocations of " + s.name + " have no symbol table";
      return false;
    }
    const Section& symtab = secs[rs.link];
    for (uint64_t off = 0; off + 24 <= rs.size; off += 24) {
      uint64_t e = rs.offset + off;
      uint64_t where = r.get<uint64_t>(e), info = r.get<uint64_t>(e + 8);
      int64_t addend = r.get<int64_t>(e + 16);
      uint32_t sym = uint32_t(info >> 32), type = uint32_t(info);
      if (type == 0 /*R_X86_64_NONE*/) continue;
      unsigned size = type == 1 /*R_X86_64_64*/ ? 8 : (type == 10 || type == 11) /*R_X86_64_32(S)*/ ? 4 : 0;
      if (size == 0) {
        err = std::string("unsupported relocation ") + reloc_name(type) + " (" + std::to_string(type) +
              ") in " + s.name;
        return false;
      }
      if (uint64_t(sym) * 24 + 24 > symtab.size) {
        err = "a relocation of " + s.name + " names a missing symbol";
        return false;
      }
      if (where > out.size() || size > out.size() - where) {
        err = "a relocation of " + s.name + " lies outside the section";
        return false;
      }
      uint64_t se = symtab.offset + uint64_t(sym) * 24;
      uint64_t v = r.get<uint64_t>(se + 8) + uint64_t(addend);
      for (unsigned b = 0; b < size; ++b) out[where + b] = char(uint8_t(v >> (8 * b)));
      if (size == 8 && addr_section) (*addr_section)[where] = r.get<uint16_t>(se + 6);
    }
  }
  return true;
}

// Every row of the object's .debug_line with a source line, sorted by
// (section, address), rows at one address in program order. No
// .debug_line: no rows.
bool read_lines(const Reader& r, const std::vector<Section>& secs, std::vector<Line>& lines,
                std::string& err) {
  int line_i = -1, str_i = -1, line_str_i = -1;
  for (unsigned i = 0; i < secs.size(); ++i) {
    if (secs[i].name == ".debug_line") line_i = int(i);
    else if (secs[i].name == ".debug_str") str_i = int(i);
    else if (secs[i].name == ".debug_line_str") line_str_i = int(i);
  }
  if (line_i < 0) return true;
  DwarfSections ds;
  std::string line, str, line_str;
  if (!relocated(r, secs, unsigned(line_i), line, &ds.address_section, err)) return false;
  if (str_i >= 0 && !relocated(r, secs, unsigned(str_i), str, nullptr, err)) return false;
  if (line_str_i >= 0 && !relocated(r, secs, unsigned(line_str_i), line_str, nullptr, err)) return false;
  ds.line = line;
  ds.str = str;
  ds.line_str = line_str;
  LineInfo info;
  std::string e;
  if (!decode_line_programs(ds, info, e)) {
    err = "malformed .debug_line: " + e;
    return false;
  }
  for (const LineRow& row : info.rows)
    if (!row.end_sequence && row.line != 0 && row.file >= 0)
      lines.push_back({row.section, row.address, info.files[size_t(row.file)], row.line, row.column});
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
    return std::make_pair(a.section, a.address) < std::make_pair(b.section, b.address);
  });
  return true;
}

// `file:line: text` for a row; the text from Options::read_source (each
// file read once), left out when it cannot be read.
class SourceCache {
 public:
  explicit SourceCache(const SourceReader& read) : read_(read) {}
  std::string describe(const Line& l) {
    size_t slash = l.file.find_last_of('/');
    std::string o = (slash == std::string::npos ? l.file : l.file.substr(slash + 1)) + ":" +
                    std::to_string(l.line);
    const std::vector<std::string>& text = lines_of(l.file);
    if (l.line <= text.size()) o += ": " + text[l.line - 1];
    return o;
  }

 private:
  const std::vector<std::string>& lines_of(const std::string& file) {
    auto it = cache_.find(file);
    if (it != cache_.end()) return it->second;
    std::vector<std::string>& v = cache_[file];
    std::string t;
    if (!read_ || !read_(file, t)) return v;
    for (size_t a = 0; a < t.size();) {
      size_t e = t.find('\n', a);
      if (e == std::string::npos) e = t.size();
      size_t b = a, z = e;
      while (b < z && (t[b] == ' ' || t[b] == '\t')) ++b;
      while (z > b && (t[z - 1] == ' ' || t[z - 1] == '\t' || t[z - 1] == '\r')) --z;
      v.push_back(t.substr(b, z - b));
      a = e + 1;
    }
    return v;
  }
  const SourceReader& read_;
  std::map<std::string, std::vector<std::string>> cache_;
};

}  // namespace

bool disassemble(const std::string& name, const std::string& data, const Options& opt,
                 std::string& out, std::string& err) {
  Reader r(data);
  auto bad = [&](const std::string& why) {
    err = name + ": " + why;
    return false;
  };
  if (!r.has(0, 64)) return bad("not an ELF object (too short: " + std::to_string(data.size()) + " bytes)");
  if (std::memcmp(data.data(), "\x7f" "ELF", 4) != 0) return bad("not an ELF object (bad magic)");
  if (data[4] != 2) return bad("only 64-bit ELF objects are supported");
  if (data[5] != 1) return bad("only little-endian ELF objects are supported");
  uint16_t machine = r.get<uint16_t>(18);
  if (machine != 62)
    return bad("ELF machine " + std::to_string(machine) + " is not supported (ptodis reads x86-64 objects)");
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
    if (nameoff < shstr.size) secs[i].name = r.cstr(shstr.offset + nameoff, shstr.offset + shstr.size);
  }
  // Function symbols.
  std::vector<Func> funcs;
  for (const Section& s : secs) {
    if (s.type != 2 /*SYMTAB*/) continue;
    if (s.link >= shnum) return bad("symbol table links to a missing string table");
    const Section& str = secs[s.link];
    for (uint64_t off = 0; off + 24 <= s.size; off += 24) {
      uint64_t e = s.offset + off;
      uint32_t nm = r.get<uint32_t>(e);
      uint8_t info = r.get<uint8_t>(e + 4);
      Func f;
      f.shndx = r.get<uint16_t>(e + 6);
      f.value = r.get<uint64_t>(e + 8);
      f.size = r.get<uint64_t>(e + 16);
      if ((info & 0xf) != 2 /*FUNC*/) continue;
      if (f.shndx == 0 || f.shndx >= shnum) continue;
      f.global = (info >> 4) != 0;
      if (nm < str.size) f.name = r.cstr(str.offset + nm, str.offset + str.size);
      const Section& ts = secs[f.shndx];
      if (!(ts.flags & 4 /*EXECINSTR*/)) continue;
      if (f.value > ts.size || f.size > ts.size - f.value)
        return bad("function " + f.name + " lies outside its section");
      funcs.push_back(f);
    }
  }
  std::sort(funcs.begin(), funcs.end(), [](const Func& a, const Func& b) {
    return a.shndx != b.shndx ? a.shndx < b.shndx : a.value < b.value;
  });
  if (!opt.function.empty()) {
    funcs.erase(std::remove_if(funcs.begin(), funcs.end(),
                               [&](const Func& f) { return f.name != opt.function; }),
                funcs.end());
    if (funcs.empty()) return bad("no function named '" + opt.function + "'");
  }
  // Line table: the DWARF line programs (docs/debug_info.md).
  std::vector<Line> lines;
  if (opt.source) {
    std::string lerr;
    if (!read_lines(r, secs, lines, lerr)) return bad(lerr);
  }
  SourceCache sources(opt.read_source);
  // Relocations against executable sections: offset -> text.
  std::map<std::pair<unsigned, uint64_t>, std::string> relocs;
  for (const Section& s : secs) {
    if (s.type != 4 /*RELA*/ || s.info >= shnum || s.link >= shnum) continue;
    const Section& symtab = secs[s.link];
    const Section* str = symtab.link < shnum ? &secs[symtab.link] : nullptr;
    for (uint64_t off = 0; off + 24 <= s.size; off += 24) {
      uint64_t e = s.offset + off;
      uint64_t where = r.get<uint64_t>(e), info = r.get<uint64_t>(e + 8);
      int64_t addend = r.get<int64_t>(e + 16);
      uint32_t sym = uint32_t(info >> 32), type = uint32_t(info);
      std::string target = "sym#" + std::to_string(sym);
      if (uint64_t(sym) * 24 + 24 <= symtab.size) {
        uint64_t se = symtab.offset + uint64_t(sym) * 24;
        uint32_t nm = r.get<uint32_t>(se);
        uint8_t sinfo = r.get<uint8_t>(se + 4);
        uint16_t shx = r.get<uint16_t>(se + 6);
        if ((sinfo & 0xf) == 3 /*SECTION*/ && shx < shnum) target = secs[shx].name;
        else if (str && nm < str->size) target = r.cstr(str->offset + nm, str->offset + str->size);
      }
      char a[32];
      std::snprintf(a, sizeof a, "%+lld", (long long)addend);
      relocs[{s.info, where}] = std::string(reloc_name(type)) + " " + target + a;
    }
  }

  ZydisDecoder dec;
  ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  ZydisFormatter fmt;
  ZydisFormatterInit(&fmt, ZYDIS_FORMATTER_STYLE_INTEL);
  ZydisFormatterSetProperty(&fmt, ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE);

  out = name + ":\tfile format elf64-x86-64\n";
  if (funcs.empty()) out += "\n(no functions)\n";
  for (const Func& f : funcs) {
    const Section& ts = secs[f.shndx];
    out += "\n" + f.name + " (" + (f.global ? "global" : "local") + ", " + std::to_string(f.size) +
           " bytes) in " + ts.name + ":\n";
    const uint8_t* code = reinterpret_cast<const uint8_t*>(data.data() + ts.offset);
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
      ZydisDecodedInstruction ins;
      ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
      std::string text;
      unsigned len;
      if (ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code + pc, end - pc, &ins, ops))) {
        char t[256];
        if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&fmt, &ins, ops, ins.operand_count_visible, t,
                                                           sizeof t, pc, nullptr)))
          std::snprintf(t, sizeof t, "(unformattable)");
        text = t;
        len = ins.length;
      } else {
        char t[32];
        std::snprintf(t, sizeof t, ".byte 0x%02x", code[pc]);
        text = t;
        len = 1;
      }
      std::string bytes;
      for (unsigned i = 0; i < len; ++i) bytes += hex(code[pc + i], 2) + " ";
      if (bytes.size() < 45) bytes.resize(45, ' ');
      out += "  " + hex(pc, 6) + ":  " + bytes + "\t" + text + "\n";
      for (unsigned i = 0; i < len; ++i) {
        auto it = relocs.find({f.shndx, pc + i});
        if (it != relocs.end()) out += "  " + std::string(8, ' ') + "  " + hex(pc + i, 6) + ": " + it->second + "\n";
      }
      pc += len;
    }
  }
  return true;
}

}  // namespace ptoas::dis
