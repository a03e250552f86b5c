// ptodis (ptodis.h): a small bounds-checked ELF64 reader, Zydis 4 for x86-64.
#include "ptodis.h"

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

struct Line {
  uint64_t offset;
  uint32_t line, col;
  std::string text;
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
  // Line table.
  std::string src_file;
  std::vector<Line> lines;
  for (const Section& s : secs) {
    if (s.name != ".pto.lines") continue;
    uint64_t p = s.offset, end = s.offset + s.size;
    auto need = [&](uint64_t n) { return n <= end - p; };
    if (!need(16) || std::memcmp(data.data() + p, "PTOLINES", 8) != 0)
      return bad("malformed .pto.lines section (bad header)");
    p += 12;  // magic, version
    uint32_t nlen = r.get<uint32_t>(p);
    p += 4;
    if (!need(nlen)) return bad("malformed .pto.lines section (file name)");
    src_file.assign(data.data() + p, nlen);
    p += nlen;
    if (!need(4)) return bad("malformed .pto.lines section (count)");
    uint32_t n = r.get<uint32_t>(p);
    p += 4;
    for (uint32_t i = 0; i < n; ++i) {
      if (!need(16)) return bad("malformed .pto.lines section (truncated entry)");
      Line l;
      l.offset = r.get<uint32_t>(p);
      l.line = r.get<uint32_t>(p + 4);
      l.col = r.get<uint32_t>(p + 8);
      uint32_t tl = r.get<uint32_t>(p + 12);
      p += 16;
      if (!need(tl)) return bad("malformed .pto.lines section (truncated text)");
      l.text.assign(data.data() + p, tl);
      p += tl;
      lines.push_back(std::move(l));
    }
  }
  size_t slash = src_file.find_last_of('/');
  std::string src_base = slash == std::string::npos ? src_file : src_file.substr(slash + 1);
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
    size_t li = 0;
    while (li < lines.size() && lines[li].offset < pc) ++li;
    while (pc < end) {
      if (opt.source) {
        bool printed = false;
        while (li < lines.size() && lines[li].offset <= pc) {
          if (!printed) out += src_base + ":" + std::to_string(lines[li].line) + ": " + lines[li].text + "\n";
          printed = true;  // one line per group (the last entry at the same offset wins below)
          ++li;
        }
      }
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
