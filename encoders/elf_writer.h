// The one ELF serializer: any ObjectFile (object_file.h) as a relocatable
// ELF64 little-endian file (ET_REL), the CPU objects and GPU code objects
// alike. No program headers: a loadable AMDGPU code object (ET_DYN) is a
// link of this output, or needs them added here.
#pragma once
#include <string>

#include "object_file.h"

namespace ptoas::cg {

// Writes `obj` into `out`: the ELF header, its sections in order, then a
// .rela<name> for each section with relocations, .symtab and .strtab (which
// also names the sections). False with a message when `obj` is not
// writable (a symbol or relocation naming nothing, a bad alignment, notes
// outside a Note section, more sections than ELF numbers without escapes).
bool serialize_elf(const ObjectFile& obj, std::string& out, std::string& err);

}  // namespace ptoas::cg
