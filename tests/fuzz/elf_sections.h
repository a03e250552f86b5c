// The section headers of an ELF64 little-endian object (what ptoas writes
// for x86-64 and AArch64), read without trusting it: for the tests that
// corrupt ptoas's objects on purpose (fuzz_ptodis.cpp's mutator,
// tests/x86/ptodis_poke.cpp). Header-only; test code.
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace elf_test {

// A field at `off`; the caller keeps it inside the buffer.
template <class T>
T get(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof v);
  return v;
}
template <class T>
void put(uint8_t* p, size_t off, T v) {
  std::memcpy(p + off, &v, sizeof v);
}

struct Shdr {
  size_t at;  // where the header is
  uint32_t type;
  uint64_t offset, size;
  std::string_view name;  // into the object's bytes (empty if it cannot be read)
};

// The section headers of a well-formed enough object (empty if not).
inline std::vector<Shdr> sections(const uint8_t* d, size_t n) {
  std::vector<Shdr> v;
  if (n < 64 || std::memcmp(d, "\x7f" "ELF", 4) != 0) return v;
  uint64_t shoff = get<uint64_t>(d, 40);
  uint16_t shnum = get<uint16_t>(d, 60), shstrndx = get<uint16_t>(d, 62);
  if (shoff > n || uint64_t(shnum) * 64 > n - shoff) return v;
  for (unsigned i = 0; i < shnum; ++i) {
    size_t h = size_t(shoff) + size_t(i) * 64;
    v.push_back({h, get<uint32_t>(d, h + 4), get<uint64_t>(d, h + 24), get<uint64_t>(d, h + 32), {}});
  }
  if (shstrndx < v.size() && v[shstrndx].offset <= n && v[shstrndx].size <= n - v[shstrndx].offset) {
    const Shdr& ss = v[shstrndx];
    for (Shdr& s : v) {
      uint32_t nm = get<uint32_t>(d, s.at);
      if (nm >= ss.size) continue;
      const char* b = reinterpret_cast<const char*>(d + ss.offset + nm);
      s.name = std::string_view(b, strnlen(b, size_t(ss.size - nm)));
    }
  }
  return v;
}

}  // namespace elf_test
