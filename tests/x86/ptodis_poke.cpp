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
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ptodis.h"

namespace {

namespace dis = ptoas::dis;

struct Section {
  unsigned index;
  std::string name;
  uint64_t offset, size;
};

template <class T>
T get(const std::string& b, size_t at) {
  T v{};
  if (at + sizeof v <= b.size()) std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

template <class T>
void put(std::string& b, size_t at, T v) {
  if (at + sizeof v <= b.size()) std::memcpy(b.data() + at, &v, sizeof v);
}

// ELF64 little-endian section headers (what ptoas writes for avx2 and sve).
std::vector<Section> sections(const std::string& obj, uint64_t& shoff) {
  shoff = get<uint64_t>(obj, 0x28);
  uint16_t n = get<uint16_t>(obj, 0x3c), strndx = get<uint16_t>(obj, 0x3e);
  uint64_t names = get<uint64_t>(obj, shoff + strndx * 64 + 0x18);
  std::vector<Section> out;
  for (unsigned i = 0; i < n; ++i) {
    size_t h = shoff + i * 64;
    size_t at = names + get<uint32_t>(obj, h);
    std::string name = at < obj.size() ? std::string(obj.c_str() + at) : "";
    out.push_back({i, name, get<uint64_t>(obj, h + 0x18), get<uint64_t>(obj, h + 0x20)});
  }
  return out;
}

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
  uint64_t shoff = 0;
  std::vector<Section> secs = sections(obj, shoff);
  unsigned errors = 0;
  bool have_line = false;
  const Section* text = nullptr;
  for (const Section& s : secs) {
    if (s.name == ".text") text = &s;
    bool line = s.name == ".debug_line" || s.name == ".debug_line_str" || s.name == ".rela.debug_line" ||
                s.name == ".rela.debug_line_str";
    if (!line && s.name != ".symtab") continue;
    have_line |= s.name == ".debug_line";
    if (s.offset > obj.size() || s.size > obj.size() - s.offset) {
      fail(s.name + " lies outside the object");
      continue;
    }
    // The symbol table only to 0xff: the line tables are the intricate part.
    std::vector<uint8_t> values = line ? std::vector<uint8_t>{0, 255, 128} : std::vector<uint8_t>{255};
    for (uint64_t i = 0; i < s.size; ++i)
      for (uint8_t v : values) {
        std::string bad = obj;
        bad[s.offset + i] = char(v);
        if (!run(bad, s.name + " byte " + std::to_string(i) + " = " + std::to_string(v)) && line) ++errors;
      }
    if (s.name == ".debug_line")
      for (uint64_t cut : {uint64_t(0), uint64_t(1), uint64_t(4), uint64_t(10), uint64_t(30), s.size / 2, s.size - 1}) {
        std::string bad = obj;
        put<uint64_t>(bad, shoff + s.index * 64 + 0x20, cut);
        std::string what = ".debug_line cut to " + std::to_string(cut) + " bytes";
        if (run(bad, what)) fail(what + ": no error");
        if (!run(bad, what + " (no source)", false)) fail(what + ": refused without the source lines");
      }
  }
  if (!have_line) fail("no .debug_line section");
  if (!errors) fail("no corruption of the line table was noticed");
  if (!text) {
    fail("no .text section");
  } else {
    // Its header: type NULL or NOBITS, an offset or a size past the end.
    size_t th = shoff + text->index * 64;
    struct Field { unsigned at; uint32_t v; };
    for (Field f : {Field{4, 0}, Field{4, 8}, Field{24, 0x7fffffff}, Field{32, 0x7fffffff}}) {
      std::string bad = obj;
      put<uint32_t>(bad, th + f.at, f.v);
      run(bad, ".text header +" + std::to_string(f.at) + " = " + std::to_string(f.v));
    }
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
