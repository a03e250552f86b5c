// Internal to the SVE encoder's LLVM users (sve_mc.cpp, the object writer):
// what Mc holds. Includes LLVM; nothing outside encoders/ sees it.
#pragma once
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/TargetParser/Triple.h>

#include <memory>
#include <string>
#include <unordered_map>

#include "sve_mc.h"

namespace ptoas::cg::sve {

struct McImpl {
  const llvm::Target* target = nullptr;
  llvm::Triple triple;
  llvm::MCTargetOptions opts;
  std::unique_ptr<llvm::MCRegisterInfo> mri;
  std::unique_ptr<llvm::MCAsmInfo> mai;
  std::unique_ptr<llvm::MCSubtargetInfo> sti;
  std::unique_ptr<llvm::MCInstrInfo> mii;
  llvm::SourceMgr srcmgr;
  std::unique_ptr<llvm::MCContext> ctx;
  std::unique_ptr<llvm::MCObjectFileInfo> mofi;
  std::unique_ptr<llvm::MCCodeEmitter> emitter;
  std::unique_ptr<llvm::MCDisassembler> disasm;
  std::unique_ptr<llvm::MCInstPrinter> printer;
  std::unordered_map<std::string, unsigned> opcodes, regs;
};

}  // namespace ptoas::cg::sve
