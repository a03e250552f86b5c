// What a backend hands the driver (Output): text (CCE C++, PTX, the toy
// target) or an object file, and the target-neutral object model.
//
// An ObjectFile is sections (bytes or notes, relocations against symbols),
// symbols (name, section, offset, size, binding, type) and the ELF header's
// target fields. Backends fill it; one serializer (elf_writer.h) writes any
// ObjectFile, adding .rela*, .symtab and .strtab. The CPU targets fill it in
// cpu_object.cpp (.text, .rodata, DWARF). A GPU target builds its own: add
// its sections (add_section: .text, the kernel descriptors as ReadOnly),
// the symbols the loader looks up (add_symbol: Func for code, Object for
// descriptors), relocations with its own ELF types, and a Note section whose
// `notes` hold e.g. AMDGPU's metadata note (name "AMDGPU", its type, the
// msgpack desc); set machine, flags, os_abi and abi_version for the header.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ptoas::cg {

// How a section is loaded; the serializer turns this into the ELF type
// and flags, so backends never spell them.
enum class SectionKind : uint8_t {
  Code,      // loaded, executable (.text)
  ReadOnly,  // loaded constants (.rodata, GPU kernel descriptors)
  Data,      // loaded, writable
  NonAlloc,  // not loaded: debug info, the .note.GNU-stack marker
  Note,      // an ELF note section, its contents built from `notes`
};

// The field at `offset` in its section holds `symbol` + addend once linked;
// `type` is the machine's ELF relocation number (R_X86_64_PC32, ...).
struct ObjReloc {
  uint64_t offset = 0;
  uint32_t symbol = 0;  // index into ObjectFile::symbols
  uint32_t type = 0;
  int64_t addend = 0;
};

// One entry of a note section (ELF's namesz/descsz/type record).
struct ObjNote {
  std::string name = {};  // the owner ("GNU", "AMDGPU"), written NUL-terminated
  uint32_t type = 0;
  std::string desc = {};
};

struct ObjSection {
  std::string name = {};
  SectionKind kind = SectionKind::NonAlloc;
  uint64_t align = 1;    // a power of two
  bool strings = false;  // NUL-terminated strings a linker may merge (.debug_line_str)
  std::string bytes = {};  // empty for a Note section
  std::vector<ObjReloc> relocs = {};
  std::vector<ObjNote> notes = {};  // kind Note only
};

inline constexpr uint32_t kNoSection = ~0u;  // an undefined (external) symbol

enum class SymbolBinding : uint8_t { Local, Global, Weak };
enum class SymbolType : uint8_t { NoType, Object, Func, Section };

struct ObjSymbol {
  std::string name = {};  // empty for section symbols
  uint32_t section = kNoSection;  // index into ObjectFile::sections
  uint64_t offset = 0, size = 0;
  SymbolBinding binding = SymbolBinding::Local;
  SymbolType type = SymbolType::NoType;
};

struct ObjectFile {
  uint16_t machine = 0;     // e_machine
  uint32_t flags = 0;       // e_flags (AMDGPU: the GPU and its features)
  uint8_t os_abi = 0;       // EI_OSABI (AMDGPU: HSA)
  uint8_t abi_version = 0;  // EI_ABIVERSION (AMDGPU: the code object version)
  std::vector<ObjSection> sections = {};
  // In any order: the serializer puts locals first, as ELF requires, keeping
  // the order within each group, and renumbers the relocations.
  std::vector<ObjSymbol> symbols = {};

  uint32_t add_section(ObjSection s) {
    sections.push_back(std::move(s));
    return uint32_t(sections.size() - 1);
  }
  uint32_t add_symbol(ObjSymbol s) {
    symbols.push_back(std::move(s));
    return uint32_t(symbols.size() - 1);
  }
  // A local symbol at the start of `section`, for relocations that name a
  // section rather than a function (debug info, constants).
  uint32_t add_section_symbol(uint32_t section) {
    return add_symbol({.section = section, .type = SymbolType::Section});
  }
};

// A backend's output: what OutputKind (target.h) promises, text for Text
// targets, an ObjectFile for ElfObject ones, and for GpuObject ones either
// an ObjectFile or the bytes of a file a linker made (AMDGPU: lld's .hsaco).
struct Output {
  enum class Kind : uint8_t { Text, Object, Bytes };
  Kind kind = Kind::Text;
  std::string text = {};
  ObjectFile object = {};
  std::vector<uint8_t> bytes = {};
};

}  // namespace ptoas::cg
