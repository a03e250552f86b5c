// The x86-64 part of the ELF writer (elf_object.h): the target, and code
// emitted as the bytes Xbyak made, 0xCC between functions.
#include <llvm/ADT/StringRef.h>

#include <mutex>

#include "elf_object.h"
#include "x86.h"

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86TargetMC();
}

namespace ptoas::cg::x86 {

bool write_elf(const Module& m, const ModuleCode& code, std::string& out, std::string& err) {
  static std::once_flag init;
  std::call_once(init, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86TargetMC();
  });
  ElfTarget et;
  et.triple = "x86_64-unknown-linux-gnu";
  et.cpu = "x86-64";
  std::string lerr;
  et.target = llvm::TargetRegistry::lookupTarget(et.triple, lerr);
  if (!et.target) {
    err = "LLVM has no x86-64 target: " + lerr;
    return false;
  }
  et.emit = [](llvm::MCStreamer& s, const llvm::MCSubtargetInfo&, const uint8_t* p, size_t n, std::string&) {
    s.emitBytes(llvm::StringRef(reinterpret_cast<const char*>(p), n));
    return true;
  };
  et.pad = [](llvm::MCStreamer& s, const llvm::MCSubtargetInfo&, size_t n) {
    s.emitBytes(llvm::StringRef(std::string(n, '\xCC')));
  };
  return write_elf_object(m, code, et, out, err);
}

}  // namespace ptoas::cg::x86
