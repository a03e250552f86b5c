// x86-64 relocatable ELF through the LLVM 16 MC object streamer (the only
// translation unit of the encoder that includes LLVM; notes/TOOLCHAIN.md §4).
// LLVM is built without exceptions: nothing here throws.
//
//   .text        the functions, each 16-byte aligned (0xCC padding), a FUNC
//                symbol with its size; global unless the function is private
//   .rodata      the constants; each function's `lea r14, [rip + rel32]`
//                carries an R_X86_64_PC32 relocation against it
//   .pto.lines   the line table ptodis reads (docs/x86_backend.md)
//   .note.GNU-stack (non-executable stack)
#include <llvm/MC/MCAsmBackend.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCExpr.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCObjectWriter.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSectionELF.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <memory>
#include <mutex>

#include "x86.h"

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86TargetMC();
}

namespace ptoas::cg::x86 {

namespace {
std::once_flag g_init;
}

bool write_elf(const Module& m, const ModuleCode& code, std::string& out, std::string& err) {
  using namespace llvm;
  std::call_once(g_init, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86TargetMC();
  });
  const std::string tt = "x86_64-unknown-linux-gnu";
  std::string lerr;
  const llvm::Target* T = TargetRegistry::lookupTarget(tt, lerr);
  if (!T) {
    err = "LLVM has no x86-64 target: " + lerr;
    return false;
  }
  Triple triple(tt);
  MCTargetOptions opts;
  std::unique_ptr<MCRegisterInfo> mri(T->createMCRegInfo(tt));
  std::unique_ptr<MCAsmInfo> mai(T->createMCAsmInfo(*mri, tt, opts));
  std::unique_ptr<MCSubtargetInfo> sti(T->createMCSubtargetInfo(tt, "x86-64", ""));
  std::unique_ptr<MCInstrInfo> mii(T->createMCInstrInfo());
  if (!mri || !mai || !sti || !mii) {
    err = "cannot set up the LLVM MC layer for x86-64";
    return false;
  }
  SourceMgr srcmgr;
  MCContext ctx(triple, mai.get(), mri.get(), sti.get(), &srcmgr, &opts);
  std::unique_ptr<MCObjectFileInfo> mofi(T->createMCObjectFileInfo(ctx, /*PIC=*/true));
  ctx.setObjectFileInfo(mofi.get());
  SmallVector<char, 0> buf;
  raw_svector_ostream os(buf);
  MCAsmBackend* mab = T->createMCAsmBackend(*sti, *mri, opts);
  MCCodeEmitter* mce = T->createMCCodeEmitter(*mii, ctx);
  if (!mab || !mce) {
    err = "cannot create the LLVM x86-64 object writer";
    return false;
  }
  std::unique_ptr<MCStreamer> s(T->createMCObjectStreamer(
      triple, ctx, std::unique_ptr<MCAsmBackend>(mab), mab->createObjectWriter(os),
      std::unique_ptr<MCCodeEmitter>(mce), *sti, false, false, false));
  s->initSections(/*NoExecStack=*/true, *sti);

  MCSymbol* consts = ctx.createTempSymbol("pto_consts", true);
  // .text: lay the functions out ourselves so that the offsets in the line
  // table are known.
  s->switchSection(mofi->getTextSection());
  s->emitCodeAlignment(Align(16), sti.get());
  std::vector<uint64_t> offsets;
  uint64_t pos = 0;
  for (const FuncCode& f : code.funcs) {
    uint64_t aligned = (pos + 15) & ~uint64_t(15);
    if (aligned > pos) s->emitBytes(StringRef(std::string(size_t(aligned - pos), '\xCC')));
    pos = aligned;
    offsets.push_back(pos);
    MCSymbol* sym = ctx.getOrCreateSymbol(f.name);
    if (f.global) s->emitSymbolAttribute(sym, MCSA_Global);
    else s->emitSymbolAttribute(sym, MCSA_Local);
    s->emitSymbolAttribute(sym, MCSA_ELF_TypeFunction);
    s->emitLabel(sym);
    const char* bytes = reinterpret_cast<const char*>(f.code.data());
    size_t n = f.code.size();
    if (f.rodata_fixup != kNoFixup && f.rodata_fixup + 4 <= n) {
      s->emitBytes(StringRef(bytes, f.rodata_fixup));
      MCSymbol* here = ctx.createTempSymbol();
      s->emitLabel(here);
      // consts - (here + 4): R_X86_64_PC32 against .rodata, addend -4.
      const MCExpr* e = MCBinaryExpr::createSub(
          MCSymbolRefExpr::create(consts, ctx),
          MCBinaryExpr::createAdd(MCSymbolRefExpr::create(here, ctx), MCConstantExpr::create(4, ctx),
                                  ctx),
          ctx);
      s->emitValue(e, 4);
      s->emitBytes(StringRef(bytes + f.rodata_fixup + 4, n - f.rodata_fixup - 4));
    } else {
      s->emitBytes(StringRef(bytes, n));
    }
    MCSymbol* end = ctx.createTempSymbol();
    s->emitLabel(end);
    s->emitELFSize(sym, MCBinaryExpr::createSub(MCSymbolRefExpr::create(end, ctx),
                                                MCSymbolRefExpr::create(sym, ctx), ctx));
    pos += n;
  }
  // .rodata
  s->switchSection(mofi->getReadOnlySection());
  s->emitValueToAlignment(Align(64));
  s->emitLabel(consts);
  s->emitBytes(StringRef(reinterpret_cast<const char*>(code.rodata.data()), code.rodata.size()));
  // .pto.lines
  std::vector<uint8_t> lines = line_table_blob(m, code, offsets);
  MCSection* ls = ctx.getELFSection(".pto.lines", ELF::SHT_PROGBITS, 0);
  s->switchSection(ls);
  s->emitBytes(StringRef(reinterpret_cast<const char*>(lines.data()), lines.size()));
  s->finish();
  out.assign(buf.data(), buf.size());
  return true;
}

}  // namespace ptoas::cg::x86
