// Relocatable ELF objects for the CPU targets (elf_object.cpp): .text with
// the functions, .rodata, the DWARF line table and compile unit
// (dwarf_sections.h). What is target-specific comes in an ElfTarget.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "codegen.h"

namespace ptoas::cg {

struct ElfTarget {
  uint16_t machine = 0;               // e_machine
  uint32_t r_abs64 = 0, r_abs32 = 0;  // relocation types of debug fields
  uint32_t r_pc32 = 0;                // the rodata fixup (x86: lea's rel32)
  int64_t pc32_addend = -4;           // rel32 counts from the field's end
  const char* code_mapping_symbol = nullptr;  // AArch64: "$x" at .text 0
  // Appends n bytes of padding between functions.
  std::function<void(std::string&, size_t)> pad;
  // Checks a function's code before it is written (e.g. that every word is
  // an instruction); false with a message if it cannot be written.
  std::function<bool(const FuncCode&, std::string&)> check;
};

bool write_elf_object(const Module& m, const ModuleCode& code, const ElfTarget& et, std::string& out,
                      std::string& err);

}  // namespace ptoas::cg
