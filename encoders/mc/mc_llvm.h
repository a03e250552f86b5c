// The LLVM side of the MC layer (mc.h) for the files that use LLVM's MC
// objects directly (the SVE scheduler reads instruction descriptors and
// register units; tests build their own assembler). The two calls whose
// signature changed between LLVM 16 and 19 are wrapped here, so those files
// build against either.
#pragma once
#include <llvm/Config/llvm-config.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCFixup.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>

#include "mc.h"

namespace ptoas::mc {

// `mi` through a code emitter, without the layer's operand check (encode()
// is the checked path; this is for tests that show why the check exists).
inline void emit_unchecked(const llvm::MCCodeEmitter& em, const llvm::MCInst& mi, const llvm::MCSubtargetInfo& sti,
                           llvm::SmallVectorImpl<char>& out, llvm::SmallVectorImpl<llvm::MCFixup>& fixups) {
#if LLVM_VERSION_MAJOR >= 17
  em.encodeInstruction(mi, out, fixups, sti);
#else
  llvm::raw_svector_ostream os(out);
  em.encodeInstruction(mi, os, fixups, sti);
#endif
}

// f(unit) for each register unit of `reg` (the units two registers share
// are how overlap, an S register inside its Z register, shows).
template <class F>
void each_reg_unit(const llvm::MCRegisterInfo& mri, unsigned reg, F&& f) {
#if LLVM_VERSION_MAJOR >= 17
  for (auto u : mri.regunits(reg)) f(unsigned(u));
#else
  for (llvm::MCRegUnitIterator u(reg, &mri); u.isValid(); ++u) f(unsigned(*u));
#endif
}

}  // namespace ptoas::mc
