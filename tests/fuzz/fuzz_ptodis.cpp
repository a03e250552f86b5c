// libFuzzer target for ptodis's object reader (disasm/): ELF headers,
// section and symbol tables, relocations, the DWARF line programs, and both
// decoders (Zydis for x86-64, LLVM MC for AArch64).
//
// Every input must be handled without a crash, a sanitizer report, a hang
// or a memory blow-up, and the listing must stay linear in the object's
// size (disasm/ptodis.h: a crafted object cannot multiply itself). The input
// bytes are the object as is, so a crash file replays with `ptodis FILE`.
//
// Seeds are ptoas's own objects (tests/fuzz/ptodis_seeds.sh: -target=avx2
// and -target=sve on the samples); the custom mutator below corrupts them
// where ptodis has to be careful, besides libFuzzer's own mutations:
// section header fields, symbol and relocation entries, the line program's
// lengths, opcodes and file table, truncations.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "elf_sections.h"
#include "ptodis.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using elf_test::get;
using elf_test::put;
using elf_test::sections;
using elf_test::Shdr;

// Objects beyond this size only slow the fuzzer down (ptoas's are 2-40 KB).
constexpr size_t kMaxInput = 256 * 1024;
// The listing's bound per input byte: one instruction line, a source line
// and a relocation line per code byte, each clipped (ptodis.h).
constexpr size_t kOutputPerByte = 4096;

// A source text for every file the line table names: lines of every kind
// the listing clips or escapes (long, tabs, control characters).
bool fake_source(const std::string& path, std::string& text) {
  if (path.empty()) return false;
  text.clear();
  for (int i = 1; i <= 200; ++i) {
    text += "  %v" + std::to_string(i) + " = pto.tadd ins(%a, %b)\t// " + path.substr(0, 40);
    if (i % 17 == 0) text += std::string(3000, 'x');
    if (i % 23 == 0) text += "\x1b[31m\x7f";
    text += i % 5 ? "\n" : "\r\n";
  }
  return true;
}

void check(const uint8_t* data, size_t size, bool source) {
  std::string obj(reinterpret_cast<const char*>(data), size);
  ptoas::dis::Options opt;
  opt.source = source;
  opt.read_source = fake_source;
  size_t written = 0;
  bool escaped = true;
  opt.write = [&](std::string_view piece) {
    written += piece.size();
    for (char c : piece)
      if (c == '\x1b' || c == '\x7f') escaped = false;
  };
  std::string out, err;
  bool ok = ptoas::dis::disassemble("fuzz.o", obj, opt, out, err);
  if (!ok && err.rfind("fuzz.o: ", 0) != 0) {
    std::fprintf(stderr, "fuzz_ptodis: failed without a message naming the file: '%s'\n", err.c_str());
    std::abort();
  }
  if (written > kOutputPerByte * size + 65536) {
    std::fprintf(stderr, "fuzz_ptodis: %zu bytes of listing from a %zu-byte object\n", written, size);
    std::abort();
  }
  if (!escaped) {
    std::fprintf(stderr, "fuzz_ptodis: a control character reached the listing unescaped\n");
    std::abort();
  }
}

// ---- ELF-aware mutations --------------------------------------------------------

struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
};

// A value for a field of `width` bytes that was `old`: the edges a reader
// must check (0, all ones, sign bits, the file size, off by one).
uint64_t interesting(Rng& r, uint64_t old, size_t file_size, unsigned width) {
  switch (r.below(10)) {
    case 0: return 0;
    case 1: return ~uint64_t(0);
    case 2: return uint64_t(1) << (8 * width - 1);
    case 3: return file_size;
    case 4: return file_size + 1 + r.below(64);
    case 5: return old + 1;
    case 6: return old - 1;
    case 7: return old ^ (uint64_t(1) << r.below(8 * width));
    case 8: return r.below(256);
    default: return old * 2 + r.below(16);
  }
}

void put_width(uint8_t* p, size_t off, unsigned width, uint64_t v) {
  for (unsigned i = 0; i < width; ++i) p[off + i] = uint8_t(v >> (8 * i));
}
uint64_t get_width(const uint8_t* p, size_t off, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) v |= uint64_t(p[off + i]) << (8 * i);
  return v;
}

// One structured mutation in place (the size may shrink). False: none
// applied (not an ELF object ptodis could read that far).
bool mutate_elf(uint8_t* d, size_t& n, Rng& r) {
  std::vector<Shdr> secs = sections(d, n);
  if (secs.empty()) return false;
  auto inside = [&](const Shdr& s) { return s.type != 8 && s.offset <= n && s.size <= n - s.offset && s.size; };
  const Shdr* line = nullptr;
  for (const Shdr& s : secs)
    if (s.name == ".debug_line" && inside(s)) line = &s;
  switch (r.below(7)) {
    case 0: {  // a section header field
      const Shdr& s = secs[r.below(secs.size())];
      static const struct { unsigned off, width; } fields[] = {{0, 4}, {4, 4}, {8, 8}, {24, 8}, {32, 8}, {40, 4}, {44, 4}, {56, 8}};
      auto f = fields[r.below(sizeof fields / sizeof fields[0])];
      put_width(d, s.at + f.off, f.width, interesting(r, get_width(d, s.at + f.off, f.width), n, f.width));
      return true;
    }
    case 1: {  // a symbol or relocation entry field (24-byte entries)
      std::vector<const Shdr*> tabs;
      for (const Shdr& s : secs)
        if ((s.type == 2 || s.type == 4) && inside(s) && s.size >= 24) tabs.push_back(&s);
      if (tabs.empty()) return false;
      const Shdr& s = *tabs[r.below(tabs.size())];
      size_t e = size_t(s.offset) + 24 * size_t(r.below(s.size / 24));
      static const struct { unsigned off, width; } fields[] = {{0, 4}, {4, 1}, {6, 2}, {8, 8}, {16, 8}, {12, 4}};
      auto f = fields[r.below(sizeof fields / sizeof fields[0])];
      put_width(d, e + f.off, f.width, interesting(r, get_width(d, e + f.off, f.width), n, f.width));
      return true;
    }
    case 2: case 3: {  // the line program: a header field or any byte
      if (!line) return false;
      size_t b = size_t(line->offset), len = size_t(line->size);
      if (r.below(2) && len >= 12) {
        // unit_length (0), version (4), header_length (6 or 8 in v5),
        // minimum_instruction_length .. opcode_base right after.
        static const struct { unsigned off, width; } fields[] = {{0, 4}, {4, 2}, {6, 4}, {8, 4}, {10, 1}, {11, 1}, {12, 1}};
        auto f = fields[r.below(sizeof fields / sizeof fields[0])];
        if (f.off + f.width <= len)
          put_width(d, b + f.off, f.width, interesting(r, get_width(d, b + f.off, f.width), n, f.width));
      } else {
        static const uint8_t ops[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x0c, 0x80, 0xff, 0x7f};
        d[b + r.below(len)] = r.below(2) ? ops[r.below(sizeof ops)] : uint8_t(r.next());
      }
      return true;
    }
    case 4: {  // truncation (also inside the section header table)
      if (n < 2) return false;
      n = size_t(r.below(n));
      return true;
    }
    case 5: {  // bit flips in one section's bytes
      std::vector<const Shdr*> in;
      for (const Shdr& s : secs)
        if (inside(s)) in.push_back(&s);
      if (in.empty()) return false;
      const Shdr& s = *in[r.below(in.size())];
      for (unsigned k = 1 + unsigned(r.below(4)); k; --k) d[s.offset + r.below(s.size)] ^= uint8_t(1u << r.below(8));
      return true;
    }
    default: {  // a section over another one's bytes (offset and size copied)
      const Shdr& a = secs[r.below(secs.size())];
      const Shdr& b = secs[r.below(secs.size())];
      put<uint64_t>(d, a.at + 24, b.offset);
      put<uint64_t>(d, a.at + 32, b.size);
      return true;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  check(data, size, true);
  check(data, size, false);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  Rng r{uint64_t(seed) * 0x9e3779b97f4a7c15ull + 1};
  // Half the time one or a few ELF-aware mutations, else libFuzzer's own.
  if (r.below(2)) {
    size_t n = size;
    bool any = false;
    for (unsigned k = 1 + unsigned(r.below(3)); k; --k) any |= mutate_elf(data, n, r);
    if (any) return n;
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
