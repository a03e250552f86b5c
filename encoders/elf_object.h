// Relocatable ELF objects for the CPU targets (elf_object.cpp): .text with
// the functions, .rodata, the DWARF line table and compile unit. What is
// target-specific comes in an ElfTarget. Includes LLVM: only the encoders'
// object writers include this.
#pragma once
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>

#include <functional>
#include <string>

#include "codegen.h"

namespace ptoas::cg {

struct ElfTarget {
  const llvm::Target* target = nullptr;  // registered and initialized by the caller
  std::string triple, cpu, features;
  // Emits n bytes of a function's code (whole instructions) at the
  // streamer's position; false with a message if they cannot be.
  std::function<bool(llvm::MCStreamer&, const llvm::MCSubtargetInfo&, const uint8_t*, size_t, std::string&)> emit;
  // Emits n bytes of padding between functions.
  std::function<void(llvm::MCStreamer&, const llvm::MCSubtargetInfo&, size_t)> pad;
};

bool write_elf_object(const Module& m, const ModuleCode& code, const ElfTarget& et, std::string& out,
                      std::string& err);

}  // namespace ptoas::cg
