// ptodis_poke OBJECT: ptodis's object reader (dis::disassemble, in this
// process) on corrupted copies of one good ELF object that ptoas wrote:
// every byte of the line table (.debug_line, .debug_line_str and their
// relocations) set to 0x00, 0xff and 0x80 in turn, every byte of .symtab
// to 0xff, .debug_line cut short through its section header, the .text
// section header broken (type NULL or NOBITS, an offset or a size past the
// end), and .text replaced by random bytes. The reader must either succeed
// or fail with a message, never crash or hang; a cut line table must be
// refused, and ignored when the source lines are off; random code is
// instructions or data, never an error. Prints the number of corrupted
// line tables refused (at least one); exit 1 on a failure.
//
// These are some 1,200 objects for a sample's: one ptodis process each (as
// ptodis_robust.sh ran them before) took a minute, here they take about a
// second. ptodis_robust.sh keeps what needs the program itself (exit
// statuses, the message's form).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "elf_sections.h"
#include "ptodis.h"

namespace {

namespace dis = ptoas::dis;

const uint8_t* bytes(const std::string& b) { return reinterpret_cast<const uint8_t*>(b.data()); }

int failures = 0;

void fail(const std::string& what) {
  std::printf("FAIL: %s\n", what.c_str());
  ++failures;
}

// The source text as ptodis reads it: regular files only, bounded.
bool read_source(const std::string& path, std::string& text) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) > (64u << 20)) return false;
  std::ifstream in(path, std::ios::binary);
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return bool(in) || in.eof();
}

// ptodis on `obj`: true if it listed it; a refusal must say why.
bool run(const std::string& obj, const std::string& what, bool source = true) {
  dis::Options opt;
  opt.source = source;
  opt.read_source = read_source;
  std::string out, err;
  bool ok = dis::disassemble("bad.o", obj, opt, out, err);
  if (!ok && err.empty()) fail(what + ": refused without a message");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ptodis_poke OBJECT\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::string obj((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (obj.size() < 64 || obj.compare(0, 4, "\x7f" "ELF") != 0) {
    std::fprintf(stderr, "ptodis_poke: %s is not an ELF object\n", argv[1]);
    return 2;
  }
  if (!run(obj, "the object itself")) fail("the good object is refused");
  // The headers of the good object; each corruption is of a fresh copy.
  std::vector<elf_test::Shdr> secs = elf_test::sections(bytes(obj), obj.size());
  unsigned errors = 0;
  bool have_line = false;
  const elf_test::Shdr* text = nullptr;
  auto poke = [&](size_t at, auto v) {
    std::string bad = obj;
    if (at + sizeof v <= bad.size()) elf_test::put(reinterpret_cast<uint8_t*>(bad.data()), at, v);
    return bad;
  };
  for (const elf_test::Shdr& s : secs) {
    if (s.name == ".text") text = &s;
    bool line = s.name == ".debug_line" || s.name == ".debug_line_str" || s.name == ".rela.debug_line" ||
                s.name == ".rela.debug_line_str";
    if (!line && s.name != ".symtab") continue;
    have_line |= s.name == ".debug_line";
    std::string name(s.name);
    if (s.offset > obj.size() || s.size > obj.size() - s.offset) {
      fail(name + " lies outside the object");
      continue;
    }
    // The symbol table only to 0xff: the line tables are the intricate part.
    std::vector<uint8_t> values = line ? std::vector<uint8_t>{0, 255, 128} : std::vector<uint8_t>{255};
    for (uint64_t i = 0; i < s.size; ++i)
      for (uint8_t v : values)
        if (!run(poke(s.offset + i, v), name + " byte " + std::to_string(i) + " = " + std::to_string(v)) && line)
          ++errors;
    if (s.name == ".debug_line")
      for (uint64_t cut : {uint64_t(0), uint64_t(1), uint64_t(4), uint64_t(10), uint64_t(30), s.size / 2, s.size - 1}) {
        std::string bad = poke(s.at + 32, cut);  // sh_size
        std::string what = ".debug_line cut to " + std::to_string(cut) + " bytes";
        if (run(bad, what)) fail(what + ": no error");
        if (!run(bad, what + " (no source)", false)) fail(what + ": refused without the source lines");
      }
  }
  if (secs.empty()) fail("no section headers");
  if (!have_line) fail("no .debug_line section");
  if (!errors) fail("no corruption of the line table was noticed");
  if (!text) {
    fail("no .text section");
  } else {
    // Its header: type NULL or NOBITS, an offset or a size past the end.
    struct Field { unsigned at; uint32_t v; };
    for (Field f : {Field{4, 0}, Field{4, 8}, Field{24, 0x7fffffff}, Field{32, 0x7fffffff}})
      run(poke(text->at + f.at, f.v), ".text header +" + std::to_string(f.at) + " = " + std::to_string(f.v));
    // Random code: any bytes are instructions or data, never an error.
    if (text->offset <= obj.size() && text->size <= obj.size() - text->offset)
      for (unsigned seed = 1; seed <= 4; ++seed) {
        std::mt19937 r(seed);
        std::string bad = obj;
        for (uint64_t i = 0; i < text->size; ++i) bad[text->offset + i] = char(r());
        if (!run(bad, "random .text (" + std::to_string(seed) + ")")) fail("random .text: refused");
      }
  }
  if (failures) return 1;
  std::printf("%u\n", errors);
  return 0;
}
