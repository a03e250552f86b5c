// The MC layer (mc.h). LLVM is built without exceptions: nothing here
// throws; a target LLVM lacks is an error returned, a name an encoder
// gets wrong an abort.
#include "mc.h"

#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/TargetParser/Triple.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "mc_llvm.h"

namespace ptoas::mc {

struct McImpl {
  McSpec spec;
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

namespace {

std::atomic<Mc::EncodeObserver> g_observer{nullptr};

[[noreturn]] void die(const McSpec& s, const char* what, std::string_view name) {
  std::fprintf(stderr, "ptoas: internal error: an encoder names an unknown %s %s '%.*s'\n", s.name, what,
               int(name.size()), name.data());
  std::abort();
}

// Sets up LLVM's MC objects for `s`; nullptr with the reason on failure.
McImpl* create(const McSpec& s, std::string& err) {
  using namespace llvm;
  s.init_target_info();
  s.init_target_mc();
  s.init_disassembler();
  auto p = std::make_unique<McImpl>();
  p->spec = s;
  std::string lerr;
  p->target = TargetRegistry::lookupTarget(s.triple, lerr);
  if (!p->target) {
    err = std::string("LLVM has no ") + s.name + " target: " + lerr;
    return nullptr;
  }
  p->triple = Triple(s.triple);
  const Target* t = p->target;
  p->mri.reset(t->createMCRegInfo(s.triple));
  if (p->mri) p->mai.reset(t->createMCAsmInfo(*p->mri, s.triple, p->opts));
  p->sti.reset(t->createMCSubtargetInfo(s.triple, s.cpu, s.features));
  p->mii.reset(t->createMCInstrInfo());
  if (!p->mri || !p->mai || !p->sti || !p->mii) {
    err = std::string("cannot set up the LLVM MC layer for ") + s.name;
    return nullptr;
  }
  p->ctx = std::make_unique<MCContext>(p->triple, p->mai.get(), p->mri.get(), p->sti.get(), &p->srcmgr, &p->opts);
  p->mofi.reset(t->createMCObjectFileInfo(*p->ctx, /*PIC=*/true));
  p->ctx->setObjectFileInfo(p->mofi.get());
  p->emitter.reset(t->createMCCodeEmitter(*p->mii, *p->ctx));
  p->disasm.reset(t->createMCDisassembler(*p->sti, *p->ctx));
  p->printer.reset(t->createMCInstPrinter(p->triple, 0, *p->mai, *p->mii, *p->mri));
  if (p->printer) p->printer->setPrintBranchImmAsAddress(true);
  if (!p->emitter || !p->disasm || !p->printer) {
    err = std::string("cannot create the LLVM ") + s.name + " encoder, disassembler or printer";
    return nullptr;
  }
  for (unsigned i = 0; i < p->mii->getNumOpcodes(); ++i) p->opcodes.emplace(p->mii->getName(i).str(), i);
  for (unsigned r = 1; r < p->mri->getNumRegs(); ++r) p->regs.emplace(p->mri->getName(r), r);
  for (const RegAlias& a : s.reg_aliases) {
    auto it = p->regs.find(a.llvm_name);
    if (it == p->regs.end()) die(s, "register", a.llvm_name);
    p->regs[a.alias] = it->second;
  }
  return p.release();
}

// One entry per (triple, CPU, features), never freed: encoders hold the
// pointer for the life of the process, and LLVM's objects have no business
// being torn down by static destructors while another thread still lists.
struct Entry {
  const Mc* mc = nullptr;
  std::string err;
};

}  // namespace

const Mc* Mc::get(const McSpec& spec, std::string* err) {
  static std::mutex mu;
  static auto* entries = new std::map<std::string, Entry>;
  std::string key = std::string(spec.triple) + '\0' + spec.cpu + '\0' + spec.features;
  std::lock_guard<std::mutex> lock(mu);
  auto [it, fresh] = entries->try_emplace(key);
  Entry& e = it->second;
  if (fresh) {
    if (McImpl* p = create(spec, e.err)) e.mc = new Mc(p);
  }
  if (!e.mc && err) *err = e.err;
  return e.mc;
}

const McSpec& Mc::spec() const { return impl_->spec; }
const llvm::Target& Mc::target() const { return *impl_->target; }
const llvm::MCRegisterInfo& Mc::reg_info() const { return *impl_->mri; }
const llvm::MCInstrInfo& Mc::instr_info() const { return *impl_->mii; }
const llvm::MCSubtargetInfo& Mc::subtarget() const { return *impl_->sti; }
const llvm::MCCodeEmitter& Mc::emitter() const { return *impl_->emitter; }

unsigned Mc::opcode(std::string_view name) const {
  auto it = impl_->opcodes.find(std::string(name));
  if (it == impl_->opcodes.end()) die(impl_->spec, "opcode", name);
  return it->second;
}

std::string_view Mc::opcode_name(unsigned opc) const {
  llvm::StringRef n = impl_->mii->getName(opc);
  return {n.data(), n.size()};
}

unsigned Mc::reg(std::string_view name) const {
  auto it = impl_->regs.find(std::string(name));
  if (it == impl_->regs.end()) die(impl_->spec, "register", name);
  return it->second;
}

std::string_view Mc::reg_name(unsigned reg) const { return impl_->mri->getName(reg); }

bool Mc::encode(const llvm::MCInst& mi, InstBytes& out, std::string& err) const {
  const llvm::MCInstrDesc& d = impl_->mii->get(mi.getOpcode());
  auto fail = [&](const std::string& why) {
    err = std::string(opcode_name(mi.getOpcode())) + why;
    return false;
  };
  if (mi.getNumOperands() != d.getNumOperands())
    return fail(" takes " + std::to_string(d.getNumOperands()) + " operands, not " +
                std::to_string(mi.getNumOperands()));
  for (unsigned i = 0; i < mi.getNumOperands(); ++i) {
    const llvm::MCOperand& o = mi.getOperand(i);
    const llvm::MCOperandInfo& oi = d.operands()[i];
    int rc = oi.RegClass;
    if (rc < 0) {
      if (!o.isImm() && !o.isExpr()) return fail(" operand " + std::to_string(i) + " must be an immediate");
      continue;
    }
    // A register-class operand of a target-specific kind may also take an
    // immediate (AMDGPU sources take inline constants); a plain register
    // operand (every AArch64 one) must be a register of the class.
    if ((o.isImm() || o.isExpr()) && oi.OperandType != llvm::MCOI::OPERAND_REGISTER) continue;
    const llvm::MCRegisterClass& cls = impl_->mri->getRegClass(unsigned(rc));
    if (!o.isReg() || !cls.contains(o.getReg()))
      return fail(" operand " + std::to_string(i) + ": " +
                  (o.isReg() ? std::string(impl_->mri->getName(o.getReg())) : std::string("an immediate")) +
                  " is not in " + impl_->mri->getRegClassName(&cls));
  }
  llvm::SmallVector<char, InstBytes::kMax> buf;
  llvm::SmallVector<llvm::MCFixup, 1> fixups;
  emit_unchecked(*impl_->emitter, mi, *impl_->sti, buf, fixups);
  if (!fixups.empty()) return fail(" needs a fixup (a symbolic operand)");
  if (buf.empty() || buf.size() > InstBytes::kMax) return fail(" encoded as " + std::to_string(buf.size()) + " bytes");
  out.size = unsigned(buf.size());
  for (unsigned i = 0; i < out.size; ++i) out.data[i] = uint8_t(buf[i]);
  if (EncodeObserver fn = g_observer.load(std::memory_order_acquire)) fn(*this, mi, out.bytes());
  return true;
}

bool Mc::encode(const llvm::MCInst& mi, uint32_t& word, std::string& err) const {
  InstBytes b;
  if (!encode(mi, b, err)) return false;
  if (b.size != 4) {
    err = std::string(opcode_name(mi.getOpcode())) + " did not encode as one word";
    return false;
  }
  word = uint32_t(b.data[0]) | uint32_t(b.data[1]) << 8 | uint32_t(b.data[2]) << 16 | uint32_t(b.data[3]) << 24;
  return true;
}

void Mc::set_encode_observer(EncodeObserver fn) { g_observer.store(fn, std::memory_order_release); }

bool Mc::decode(std::span<const uint8_t> bytes, uint64_t addr, llvm::MCInst& out, unsigned& size) const {
  uint64_t n = 0;
  bool ok = impl_->disasm->getInstruction(out, n, llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()), addr,
                                          llvm::nulls()) == llvm::MCDisassembler::Success;
  size = unsigned(n);
  return ok && n > 0 && n <= bytes.size();
}

bool Mc::decode(uint32_t word, uint64_t addr, llvm::MCInst& out) const {
  const uint8_t b[4] = {uint8_t(word), uint8_t(word >> 8), uint8_t(word >> 16), uint8_t(word >> 24)};
  unsigned size = 0;
  return decode(b, addr, out, size) && size == 4;
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

}  // namespace ptoas::mc
