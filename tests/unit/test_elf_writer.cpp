// The ELF serializer (encoders/elf_writer.h) on an ObjectFile built by hand:
// the file is read back by the small reader below (headers, section names,
// the symbol table, a RELA entry, a note), not by the writer's own code.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "elf_writer.h"

using namespace ptoas::cg;

namespace {

uint64_t le(const std::string& d, size_t at, unsigned n) {
  REQUIRE(at + n <= d.size());
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= uint64_t(uint8_t(d[at + i])) << (8 * i);
  return v;
}

struct Shdr {
  std::string name;
  uint32_t type, link, info;
  uint64_t flags, offset, size, align, entsize;
};

// The section headers of an ELF64 file, named through e_shstrndx.
std::vector<Shdr> sections(const std::string& d) {
  const uint64_t shoff = le(d, 0x28, 8);
  const unsigned n = unsigned(le(d, 0x3c, 2)), strndx = unsigned(le(d, 0x3e, 2));
  REQUIRE(le(d, 0x3a, 2) == 64);
  std::vector<Shdr> out;
  for (unsigned i = 0; i < n; ++i) {
    const size_t h = size_t(shoff + 64 * i);
    out.push_back({"", uint32_t(le(d, h + 4, 4)), uint32_t(le(d, h + 40, 4)), uint32_t(le(d, h + 44, 4)),
                   le(d, h + 8, 8), le(d, h + 24, 8), le(d, h + 32, 8), le(d, h + 48, 8), le(d, h + 56, 8)});
  }
  REQUIRE(strndx < out.size());
  for (unsigned i = 0; i < n; ++i) {
    const size_t at = size_t(out[strndx].offset + le(d, size_t(shoff + 64 * i), 4));
    REQUIRE(at < d.size());
    out[i].name = d.c_str() + at;
  }
  return out;
}

// .text (8 bytes, a relocation against a global function), a note section
// with one note, a global function symbol added before a local one.
ObjectFile sample() {
  ObjectFile o;
  o.machine = 224;  // EM_AMDGPU
  o.flags = 0x4c;
  o.os_abi = 64;  // ELFOSABI_AMDGPU_HSA
  o.abi_version = 3;
  const uint32_t text = o.add_section({.name = ".text", .kind = SectionKind::Code, .align = 16,
                                       .bytes = std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8)});
  o.add_section({.name = ".note", .kind = SectionKind::Note, .align = 4,
                 .notes = {{.name = "AMDGPU", .type = 32, .desc = "abc"}}});
  const uint32_t f = o.add_symbol({.name = "kernel", .section = text, .offset = 0, .size = 8,
                                   .binding = SymbolBinding::Global, .type = SymbolType::Func});
  o.add_section_symbol(text);
  o.sections[text].relocs.push_back({.offset = 4, .symbol = f, .type = 10, .addend = -4});
  return o;
}

}  // namespace

TEST_CASE("serialize_elf writes sections, symbols, relocations and notes", "[elf_writer]") {
  std::string d, err;
  REQUIRE(serialize_elf(sample(), d, err));
  REQUIRE(d.size() > 64);
  CHECK(d.compare(0, 4, "\x7f" "ELF") == 0);
  CHECK(uint8_t(d[4]) == 2);   // ELFCLASS64
  CHECK(uint8_t(d[5]) == 1);   // little-endian
  CHECK(uint8_t(d[7]) == 64);  // EI_OSABI
  CHECK(uint8_t(d[8]) == 3);   // EI_ABIVERSION
  CHECK(le(d, 0x10, 2) == 1);  // ET_REL
  CHECK(le(d, 0x12, 2) == 224);
  CHECK(le(d, 0x30, 4) == 0x4c);  // e_flags

  const std::vector<Shdr> s = sections(d);
  REQUIRE(s.size() == 6);
  CHECK(s[0].name.empty());
  CHECK(s[1].name == ".text");
  CHECK(s[2].name == ".note");
  CHECK(s[3].name == ".rela.text");
  CHECK(s[4].name == ".symtab");
  CHECK(s[5].name == ".strtab");
  CHECK(le(d, 0x3e, 2) == 5);  // e_shstrndx

  // .text: PROGBITS, ALLOC|EXECINSTR, aligned, its bytes.
  CHECK(s[1].type == 1);
  CHECK(s[1].flags == 6);
  CHECK(s[1].align == 16);
  CHECK(s[1].offset % 16 == 0);
  CHECK(d.compare(size_t(s[1].offset), 8, std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8)) == 0);

  // The note: namesz 7, descsz 3, type, "AMDGPU\0" padded to 8, "abc" to 4.
  CHECK(s[2].type == 7);  // SHT_NOTE
  REQUIRE(s[2].size == 12 + 8 + 4);
  const size_t n = size_t(s[2].offset);
  CHECK(le(d, n, 4) == 7);
  CHECK(le(d, n + 4, 4) == 3);
  CHECK(le(d, n + 8, 4) == 32);
  CHECK(d.compare(n + 12, 8, std::string("AMDGPU\0\0", 8)) == 0);
  CHECK(d.compare(n + 20, 4, std::string("abc\0", 4)) == 0);

  // .symtab: the null symbol, the section symbol (a local, moved first),
  // then the function; sh_info is the first global.
  const Shdr& st = s[4];
  CHECK(st.type == 2);
  CHECK(st.link == 5);
  CHECK(st.info == 2);
  CHECK(st.entsize == 24);
  REQUIRE(st.size == 3 * 24);
  const size_t sec_sym = size_t(st.offset + 24), fn = size_t(st.offset + 48);
  CHECK(uint8_t(d[sec_sym + 4]) == 3);  // STB_LOCAL, STT_SECTION
  CHECK(le(d, sec_sym + 6, 2) == 1);
  CHECK(uint8_t(d[fn + 4]) == (1 << 4 | 2));  // STB_GLOBAL, STT_FUNC
  CHECK(le(d, fn + 6, 2) == 1);
  CHECK(le(d, fn + 16, 8) == 8);
  CHECK(std::string(d.c_str() + s[5].offset + le(d, fn, 4)) == "kernel");

  // .rela.text: for section 1, through .symtab; the symbol index follows
  // the function to its new place (2), not its model index (0).
  const Shdr& r = s[3];
  CHECK(r.type == 4);
  CHECK(r.link == 4);
  CHECK(r.info == 1);
  REQUIRE(r.size == 24);
  CHECK(le(d, size_t(r.offset), 8) == 4);
  CHECK(le(d, size_t(r.offset + 8), 8) == (uint64_t(2) << 32 | 10));
  CHECK(int64_t(le(d, size_t(r.offset + 16), 8)) == -4);
}

TEST_CASE("serialize_elf refuses a model that names what is not there", "[elf_writer]") {
  std::string d, err;
  ObjectFile bad_symbol = sample();
  bad_symbol.sections[0].relocs[0].symbol = 7;
  CHECK_FALSE(serialize_elf(bad_symbol, d, err));
  CHECK(err.find("symbol 7") != std::string::npos);

  ObjectFile bad_section = sample();
  bad_section.symbols[0].section = 9;
  CHECK_FALSE(serialize_elf(bad_section, d, err));

  ObjectFile bad_align = sample();
  bad_align.sections[0].align = 3;
  CHECK_FALSE(serialize_elf(bad_align, d, err));

  ObjectFile stray_note = sample();
  stray_note.sections[0].notes.push_back({.name = "GNU", .type = 1});
  CHECK_FALSE(serialize_elf(stray_note, d, err));

  // An undefined symbol (kNoSection) is fine: SHN_UNDEF.
  ObjectFile external = sample();
  external.add_symbol({.name = "memcpy", .binding = SymbolBinding::Global});
  REQUIRE(serialize_elf(external, d, err));
  const std::vector<Shdr> s = sections(d);
  CHECK(le(d, size_t(s[4].offset + 3 * 24 + 6), 2) == 0);
}
