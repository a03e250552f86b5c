// Little-endian fields in a byte string, for the object writers
// (elf_writer.cpp, dwarf_sections.cpp).
#pragma once
#include <cstdint>
#include <string>

namespace ptoas::cg {

// Appends the low n bytes of v.
inline void put_le(std::string& s, uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; ++i) s.push_back(char(v >> (8 * i)));
}

// Overwrites the n bytes at `at` with v.
inline void patch_le(std::string& s, size_t at, uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; ++i) s[at + i] = char(v >> (8 * i));
}

}  // namespace ptoas::cg
