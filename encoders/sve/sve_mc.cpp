// The AArch64 MC layer (sve_mc.h). LLVM is built without exceptions:
// nothing here throws.
#include "sve_mc_impl.h"

#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

extern "C" {
void LLVMInitializeAArch64TargetInfo();
void LLVMInitializeAArch64TargetMC();
void LLVMInitializeAArch64Disassembler();
}

namespace ptoas::cg::sve {

namespace {

std::once_flag g_once;
Mc* g_mc = nullptr;
std::string g_err;
std::atomic<Mc::EncodeObserver> g_observer{nullptr};

[[noreturn]] void die(const char* what, std::string_view name) {
  std::fprintf(stderr, "ptoas: internal error: the SVE encoder names an unknown %s '%.*s'\n", what,
               int(name.size()), name.data());
  std::abort();
}

}  // namespace

const Mc* Mc::get(std::string* err) {
  std::call_once(g_once, [] {
    using namespace llvm;
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64Disassembler();
    auto* p = new McImpl;
    std::string lerr;
    p->target = TargetRegistry::lookupTarget(kTriple, lerr);
    if (!p->target) {
      g_err = "LLVM has no AArch64 target: " + lerr;
      delete p;
      return;
    }
    p->triple = Triple(kTriple);
    const Target* T = p->target;
    p->mri.reset(T->createMCRegInfo(kTriple));
    if (p->mri) p->mai.reset(T->createMCAsmInfo(*p->mri, kTriple, p->opts));
    p->sti.reset(T->createMCSubtargetInfo(kTriple, "generic", kFeatures));
    p->mii.reset(T->createMCInstrInfo());
    if (!p->mri || !p->mai || !p->sti || !p->mii) {
      g_err = "cannot set up the LLVM MC layer for AArch64";
      delete p;
      return;
    }
    p->ctx = std::make_unique<MCContext>(p->triple, p->mai.get(), p->mri.get(), p->sti.get(), &p->srcmgr,
                                         &p->opts);
    p->mofi.reset(T->createMCObjectFileInfo(*p->ctx, /*PIC=*/true));
    p->ctx->setObjectFileInfo(p->mofi.get());
    p->emitter.reset(T->createMCCodeEmitter(*p->mii, *p->ctx));
    p->disasm.reset(T->createMCDisassembler(*p->sti, *p->ctx));
    p->printer.reset(T->createMCInstPrinter(p->triple, 0, *p->mai, *p->mii, *p->mri));
    if (p->printer) p->printer->setPrintBranchImmAsAddress(true);
    if (!p->emitter || !p->disasm || !p->printer) {
      g_err = "cannot create the LLVM AArch64 encoder, disassembler or printer";
      delete p;
      return;
    }
    for (unsigned i = 0; i < p->mii->getNumOpcodes(); ++i) p->opcodes.emplace(p->mii->getName(i).str(), i);
    for (unsigned r = 1; r < p->mri->getNumRegs(); ++r) p->regs.emplace(p->mri->getName(r), r);
    // LLVM names x29 and x30 by their roles.
    p->regs["X29"] = p->regs.at("FP");
    p->regs["X30"] = p->regs.at("LR");
    g_mc = new Mc;
    g_mc->impl_ = p;
  });
  if (!g_mc && err) *err = g_err;
  return g_mc;
}

unsigned Mc::opcode(std::string_view name) const {
  auto it = impl_->opcodes.find(std::string(name));
  if (it == impl_->opcodes.end()) die("opcode", name);
  return it->second;
}

std::string_view Mc::opcode_name(unsigned opc) const {
  llvm::StringRef n = impl_->mii->getName(opc);
  return {n.data(), n.size()};
}

unsigned Mc::reg(std::string_view name) const {
  auto it = impl_->regs.find(std::string(name));
  if (it == impl_->regs.end()) die("register", name);
  return it->second;
}

bool Mc::encode(const llvm::MCInst& mi, uint32_t& word, std::string& err) const {
  const llvm::MCInstrDesc& d = impl_->mii->get(mi.getOpcode());
  if (mi.getNumOperands() != d.getNumOperands()) {
    err = std::string(opcode_name(mi.getOpcode())) + " takes " + std::to_string(d.getNumOperands()) +
          " operands, not " + std::to_string(mi.getNumOperands());
    return false;
  }
  for (unsigned i = 0; i < mi.getNumOperands(); ++i) {
    const llvm::MCOperand& o = mi.getOperand(i);
    int rc = d.operands()[i].RegClass;
    if (rc < 0) {
      if (!o.isImm() && !o.isExpr()) {
        err = std::string(opcode_name(mi.getOpcode())) + " operand " + std::to_string(i) + " must be an immediate";
        return false;
      }
      continue;
    }
    if (!o.isReg() || !impl_->mri->getRegClass(unsigned(rc)).contains(o.getReg())) {
      err = std::string(opcode_name(mi.getOpcode())) + " operand " + std::to_string(i) + ": " +
            (o.isReg() ? impl_->mri->getName(o.getReg()) : "an immediate") + " is not in " +
            impl_->mri->getRegClassName(&impl_->mri->getRegClass(unsigned(rc)));
      return false;
    }
  }
  llvm::SmallVector<char, 8> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::SmallVector<llvm::MCFixup, 1> fixups;
  impl_->emitter->encodeInstruction(mi, os, fixups, *impl_->sti);
  if (buf.size() != 4 || !fixups.empty()) {
    err = std::string(opcode_name(mi.getOpcode())) + " did not encode as one word";
    return false;
  }
  word = uint32_t(uint8_t(buf[0])) | uint32_t(uint8_t(buf[1])) << 8 | uint32_t(uint8_t(buf[2])) << 16 |
         uint32_t(uint8_t(buf[3])) << 24;
  if (EncodeObserver fn = g_observer.load(std::memory_order_acquire)) fn(mi, word);
  return true;
}

void Mc::set_encode_observer(EncodeObserver fn) { g_observer.store(fn, std::memory_order_release); }

bool Mc::decode(uint32_t word, uint64_t addr, llvm::MCInst& out) const {
  uint8_t b[4] = {uint8_t(word), uint8_t(word >> 8), uint8_t(word >> 16), uint8_t(word >> 24)};
  uint64_t size = 0;
  return impl_->disasm->getInstruction(out, size, llvm::ArrayRef<uint8_t>(b, 4), addr, llvm::nulls()) ==
             llvm::MCDisassembler::Success &&
         size == 4;
}

std::string Mc::print(const llvm::MCInst& mi, uint64_t addr) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  impl_->printer->printInst(&mi, addr, "", *impl_->sti, os);
  os.flush();
  size_t a = 0;
  while (a < s.size() && (s[a] == '\t' || s[a] == ' ')) ++a;
  return s.substr(a);
}

}  // namespace ptoas::cg::sve
