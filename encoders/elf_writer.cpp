// The ELF serializer (elf_writer.h), written directly: LLVM MC's object
// streamer cost about 0.45 ms of set-up, layout and teardown per object,
// more than compiling a small kernel (docs/debug_info.md). Only LLVM's
// ELF constants are used.
//
// File layout: the header, the sections in ObjectFile order (each at its
// alignment), the .rela sections, .symtab, .strtab, then the section
// header table. .strtab holds the symbol names and the section names both
// (e_shstrndx points at it): one string table fewer, as in assemblers'
// own output.
#include <llvm/BinaryFormat/ELF.h>

#include <algorithm>

#include "elf_writer.h"
#include "le_bytes.h"

namespace ptoas::cg {

namespace {

// A section as the file has it: ELF's fields and its contents, either the
// model's bytes (not copied: .text can be megabytes) or made here.
struct ElfSection {
  std::string name = {};
  uint32_t type = 0;
  uint64_t flags = 0, align = 1, entsize = 0;
  uint32_t link = 0, info = 0;
  std::string data = {};
  const std::string* bytes = nullptr;  // the model's, instead of data
  const std::string& contents() const { return bytes ? *bytes : data; }
};

void align_to(std::string& s, uint64_t a) {
  while (s.size() % a) s.push_back('\0');
}

uint64_t flags_of(const ObjSection& s) {
  using namespace llvm::ELF;
  uint64_t f = 0;
  switch (s.kind) {
    case SectionKind::Code: f = SHF_ALLOC | SHF_EXECINSTR; break;
    case SectionKind::ReadOnly: f = SHF_ALLOC; break;
    case SectionKind::Data: f = SHF_ALLOC | SHF_WRITE; break;
    case SectionKind::NonAlloc: f = 0; break;
    case SectionKind::Note: f = SHF_ALLOC; break;  // loaders read notes (AMDGPU metadata)
  }
  if (s.strings) f |= SHF_MERGE | SHF_STRINGS;
  return f;
}

// Note records: namesz, descsz, type, then name and desc each padded to 4
// bytes (the 4-byte note format every ELF64 producer uses, GNU and AMDGPU).
std::string note_bytes(const std::vector<ObjNote>& notes) {
  std::string d;
  for (const ObjNote& n : notes) {
    put_le(d, n.name.empty() ? 0 : n.name.size() + 1, 4);
    put_le(d, n.desc.size(), 4);
    put_le(d, n.type, 4);
    if (!n.name.empty()) d.append(n.name.c_str(), n.name.size() + 1);
    align_to(d, 4);
    d += n.desc;
    align_to(d, 4);
  }
  return d;
}

uint8_t info_of(const ObjSymbol& s) {
  using namespace llvm::ELF;
  uint8_t bind = s.binding == SymbolBinding::Local ? STB_LOCAL : s.binding == SymbolBinding::Global ? STB_GLOBAL : STB_WEAK;
  uint8_t type = s.type == SymbolType::Func     ? STT_FUNC
                 : s.type == SymbolType::Object  ? STT_OBJECT
                 : s.type == SymbolType::Section ? STT_SECTION
                                                 : STT_NOTYPE;
  return uint8_t(bind << 4 | type);
}

// What serialize_elf refuses: a model that names what is not there.
bool check(const ObjectFile& obj, std::string& err) {
  for (const ObjSection& s : obj.sections) {
    if (s.align == 0 || (s.align & (s.align - 1))) {
      err = "section " + s.name + ": alignment " + std::to_string(s.align) + " is not a power of two";
      return false;
    }
    if (s.kind == SectionKind::Note ? !s.bytes.empty() : !s.notes.empty()) {
      err = "section " + s.name + (s.kind == SectionKind::Note ? ": a note section with bytes" : ": notes outside a note section");
      return false;
    }
    for (const ObjReloc& r : s.relocs) {
      if (r.symbol >= obj.symbols.size()) {
        err = "section " + s.name + ": a relocation names symbol " + std::to_string(r.symbol) + " of " +
              std::to_string(obj.symbols.size());
        return false;
      }
      if (r.offset > s.bytes.size()) {
        err = "section " + s.name + ": a relocation at " + std::to_string(r.offset) + " is past its end";
        return false;
      }
    }
  }
  for (const ObjSymbol& s : obj.symbols) {
    if (s.section != kNoSection && s.section >= obj.sections.size()) {
      err = "symbol " + s.name + " names section " + std::to_string(s.section) + " of " +
            std::to_string(obj.sections.size());
      return false;
    }
  }
  // The null section, the content, their .rela, .symtab and .strtab must
  // number below SHN_LORESERVE (no extended section numbering).
  size_t n = 3 + obj.sections.size();
  for (const ObjSection& s : obj.sections) n += !s.relocs.empty();
  if (n >= llvm::ELF::SHN_LORESERVE) {
    err = "an object of " + std::to_string(n) + " sections (ELF numbers " +
          std::to_string(llvm::ELF::SHN_LORESERVE - 1) + ")";
    return false;
  }
  return true;
}

}  // namespace

bool serialize_elf(const ObjectFile& obj, std::string& out, std::string& err) {
  using namespace llvm::ELF;
  if (!check(obj, err)) return false;

  // Symbols: locals first (sh_info of .symtab is the first global), each
  // group in model order; elf_index maps a model index to its ELF one.
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < obj.symbols.size(); ++i)
    if (obj.symbols[i].binding == SymbolBinding::Local) order.push_back(i);
  const uint32_t first_global = uint32_t(order.size()) + 1;
  for (uint32_t i = 0; i < obj.symbols.size(); ++i)
    if (obj.symbols[i].binding != SymbolBinding::Local) order.push_back(i);
  std::vector<uint32_t> elf_index(obj.symbols.size());
  for (uint32_t k = 0; k < order.size(); ++k) elf_index[order[k]] = k + 1;

  std::string strtab(1, '\0');
  auto name_of = [&](const std::string& n) {
    if (n.empty()) return uint32_t(0);
    uint32_t at = uint32_t(strtab.size());
    strtab.append(n.c_str(), n.size() + 1);
    return at;
  };
  std::string symtab(24, '\0');  // the null symbol
  for (uint32_t i : order) {
    const ObjSymbol& s = obj.symbols[i];
    put_le(symtab, name_of(s.name), 4);
    symtab.push_back(char(info_of(s)));
    symtab.push_back(char(STV_DEFAULT));
    put_le(symtab, s.section == kNoSection ? uint32_t(SHN_UNDEF) : s.section + 1, 2);
    put_le(symtab, s.offset, 8);
    put_le(symtab, s.size, 8);
  }

  // ELF section indices are positions in `secs` + 1 (0 is the null section).
  std::vector<ElfSection> secs;
  for (const ObjSection& s : obj.sections) {
    ElfSection e;
    e.name = s.name;
    e.type = s.kind == SectionKind::Note ? SHT_NOTE : SHT_PROGBITS;
    e.flags = flags_of(s);
    e.align = s.align;
    e.entsize = s.strings ? 1 : 0;
    if (s.kind == SectionKind::Note)
      e.data = note_bytes(s.notes);
    else
      e.bytes = &s.bytes;
    secs.push_back(std::move(e));
  }
  const uint32_t n_content = uint32_t(secs.size());
  const uint32_t symtab_index =
      n_content + 1 +
      uint32_t(std::count_if(obj.sections.begin(), obj.sections.end(), [](const ObjSection& s) { return !s.relocs.empty(); }));
  for (uint32_t i = 0; i < n_content; ++i) {
    const ObjSection& s = obj.sections[i];
    if (s.relocs.empty()) continue;
    ElfSection r{.name = ".rela" + s.name, .type = SHT_RELA, .flags = SHF_INFO_LINK, .align = 8, .entsize = 24};
    r.link = symtab_index;
    r.info = i + 1;
    for (const ObjReloc& x : s.relocs) {
      put_le(r.data, x.offset, 8);
      put_le(r.data, uint64_t(elf_index[x.symbol]) << 32 | x.type, 8);
      put_le(r.data, uint64_t(x.addend), 8);
    }
    secs.push_back(std::move(r));
  }
  secs.push_back({.name = ".symtab", .type = SHT_SYMTAB, .align = 8, .entsize = 24, .link = symtab_index + 1,
                  .info = first_global, .data = std::move(symtab)});
  std::vector<uint32_t> sh_name;
  for (const ElfSection& s : secs) sh_name.push_back(name_of(s.name));
  const uint32_t strtab_name = name_of(".strtab");
  secs.push_back({.name = ".strtab", .type = SHT_STRTAB, .data = std::move(strtab)});
  sh_name.push_back(strtab_name);

  out.assign(64, '\0');
  std::vector<uint64_t> offset;
  for (const ElfSection& s : secs) {
    align_to(out, s.align);
    offset.push_back(out.size());
    out += s.contents();
  }
  align_to(out, 8);
  const uint64_t shoff = out.size();
  out.append(64, '\0');  // the null section header
  for (size_t i = 0; i < secs.size(); ++i) {
    const ElfSection& s = secs[i];
    put_le(out, sh_name[i], 4);
    put_le(out, s.type, 4);
    put_le(out, s.flags, 8);
    put_le(out, 0, 8);  // sh_addr
    put_le(out, offset[i], 8);
    put_le(out, s.contents().size(), 8);
    put_le(out, s.link, 4);
    put_le(out, s.info, 4);
    put_le(out, s.align, 8);
    put_le(out, s.entsize, 8);
  }
  // The ELF header.
  std::string h = {'\x7f', 'E', 'L', 'F', char(ELFCLASS64), char(ELFDATA2LSB), char(EV_CURRENT), char(obj.os_abi),
                   char(obj.abi_version)};
  h.resize(EI_NIDENT, '\0');
  put_le(h, ET_REL, 2);
  put_le(h, obj.machine, 2);
  put_le(h, EV_CURRENT, 4);
  put_le(h, 0, 8);  // e_entry
  put_le(h, 0, 8);  // e_phoff
  put_le(h, shoff, 8);
  put_le(h, obj.flags, 4);
  put_le(h, 64, 2);  // e_ehsize
  put_le(h, 0, 2);   // e_phentsize
  put_le(h, 0, 2);   // e_phnum
  put_le(h, 64, 2);  // e_shentsize
  put_le(h, secs.size() + 1, 2);
  put_le(h, secs.size(), 2);  // e_shstrndx: .strtab, the last
  out.replace(0, h.size(), h);
  return true;
}

}  // namespace ptoas::cg
