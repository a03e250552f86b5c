// The x86-64 part of the CPU object (cpu_object.h): the code as Xbyak made
// it, 0xCC between functions.
#include <llvm/BinaryFormat/ELF.h>

#include "cpu_object.h"
#include "x86.h"

namespace ptoas::cg::x86 {

bool build_output(const Module& m, const ModuleCode& code, Output& out, std::string& err) {
  ElfTarget et;
  et.machine = llvm::ELF::EM_X86_64;
  et.r_abs64 = llvm::ELF::R_X86_64_64;
  et.r_abs32 = llvm::ELF::R_X86_64_32;
  et.r_pc32 = llvm::ELF::R_X86_64_PC32;
  et.pad = [](std::string& t, size_t n) { t.append(n, '\xCC'); };
  return cpu_output(m, code, et, out, err);
}

}  // namespace ptoas::cg::x86
