// The object of a CPU target (cpu_object.cpp): ModuleCode laid out as an
// ObjectFile (object_file.h) with .text, .rodata, .note.GNU-stack and the
// DWARF line table and compile unit (dwarf_sections.h), for elf_writer.h
// to serialize. What is target-specific comes in an ElfTarget
// (x86/emit.cpp, sve/emit.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "codegen.h"
#include "object_file.h"

namespace ptoas::cg {

struct ElfTarget {
  uint16_t machine = 0;               // e_machine
  uint32_t r_abs64 = 0, r_abs32 = 0;  // relocation types of debug fields
  uint32_t r_pc32 = 0;                // the rodata fixup (x86: lea's rel32)
  int64_t pc32_addend = -4;           // rel32 counts from the field's end
  const char* code_mapping_symbol = nullptr;  // AArch64: "$x" at .text 0
  // Appends n bytes of padding between functions.
  std::function<void(std::string&, size_t)> pad;
  // Checks a function's code before it is laid out (e.g. that every word
  // is an instruction); false with a message if it cannot be written.
  std::function<bool(const FuncCode&, std::string&)> check;
};

bool cpu_object(const Module& m, const ModuleCode& code, const ElfTarget& et, ObjectFile& out, std::string& err);

// cpu_object as a descriptor's build_output (Output::Kind::Object).
bool cpu_output(const Module& m, const ModuleCode& code, const ElfTarget& et, Output& out, std::string& err);

}  // namespace ptoas::cg
