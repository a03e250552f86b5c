// mc_layer: the MC layer of encoders/mc/ on its own, independent of any
// encoder. `mc_layer aarch64`: the SVE encoder's spec encodes a few
// instructions to LLVM's known bytes, decodes and prints them back, refuses
// operands of the wrong kind or register class, and is one shared instance
// (also when eight threads ask for a new spec at once); a target the
// program does not link gives no instance and the reason.
// `mc_layer amdgpu`: the same layer set up for amdgcn (gfx90a) by a spec
// alone, with 4- and 8-byte instructions, so the AMDGPU backend only adds
// its spec; exit 77 (skipped) when this LLVM has no AMDGPU target.
//
// The expected bytes are what `llvm-mc-19 -show-encoding` prints for the
// same text.
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "mc/mc_llvm.h"
#include "sve/a64_mc.h"

#ifdef PTOAS_HAVE_AMDGPU
extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUDisassembler();
}
#endif

namespace {

using ptoas::mc::InstBytes;
using ptoas::mc::Mc;
using ptoas::mc::McSpec;

int g_failures = 0;

void fail(const std::string& what) {
  std::printf("FAIL: %s\n", what.c_str());
  ++g_failures;
}

std::string hex(std::span<const uint8_t> b) {
  std::string s;
  char buf[8];
  for (uint8_t x : b) {
    std::snprintf(buf, sizeof buf, "%s%02x", s.empty() ? "" : " ", x);
    s += buf;
  }
  return s;
}

// An operand: a register by LLVM name, or an immediate.
struct Op {
  const char* reg = nullptr;
  int64_t imm = 0;
};
Op R(const char* n) { return {n, 0}; }
Op I(int64_t v) { return {nullptr, v}; }

llvm::MCInst inst(const Mc& mc, const char* opcode, std::initializer_list<Op> ops) {
  llvm::MCInst mi;
  mi.setOpcode(mc.opcode(opcode));
  for (const Op& o : ops)
    mi.addOperand(o.reg ? llvm::MCOperand::createReg(mc.reg(o.reg)) : llvm::MCOperand::createImm(o.imm));
  return mi;
}

bool same(const llvm::MCInst& a, const llvm::MCInst& b) {
  if (a.getOpcode() != b.getOpcode() || a.getNumOperands() != b.getNumOperands()) return false;
  for (unsigned i = 0; i < a.getNumOperands(); ++i) {
    const llvm::MCOperand &x = a.getOperand(i), &y = b.getOperand(i);
    if (x.isReg() != y.isReg() || (x.isReg() && x.getReg() != y.getReg()) ||
        (x.isImm() && (!y.isImm() || x.getImm() != y.getImm())))
      return false;
  }
  return true;
}

// `mi` encodes to `want`, decodes back to itself with that length, and
// prints as `text`.
void round_trip(const Mc& mc, const llvm::MCInst& mi, std::vector<uint8_t> want, const char* text) {
  std::string name(mc.opcode_name(mi.getOpcode())), err;
  InstBytes b;
  if (!mc.encode(mi, b, err)) return fail(name + ": refused: " + err);
  if (hex(b.bytes()) != hex(want)) return fail(name + ": bytes " + hex(b.bytes()) + ", LLVM's are " + hex(want));
  llvm::MCInst back;
  unsigned size = 0;
  if (!mc.decode(b.bytes(), 0x1000, back, size) || size != b.size || !same(back, mi))
    return fail(name + ": " + hex(b.bytes()) + " does not decode back to it");
  std::string printed = mc.print(back, 0x1000);
  if (printed != text) return fail(name + ": prints '" + printed + "', not '" + text + "'");
  std::printf("ok: %-18s %-24s %s\n", name.c_str(), hex(b.bytes()).c_str(), printed.c_str());
}

// `mi` is refused, with a message naming `why`.
void refused(const Mc& mc, const llvm::MCInst& mi, const char* why) {
  std::string name(mc.opcode_name(mi.getOpcode())), err;
  InstBytes b;
  if (mc.encode(mi, b, err)) return fail(name + ": accepted (" + hex(b.bytes()) + "), should be refused: " + why);
  if (err.find(why) == std::string::npos) return fail(name + ": refused as '" + err + "', not for '" + why + "'");
  std::printf("ok: refused: %s\n", err.c_str());
}

int g_observed = 0;
void count(const Mc&, const llvm::MCInst&, std::span<const uint8_t>) { ++g_observed; }

int aarch64() {
  std::string err;
  const Mc* mc = ptoas::cg::sve::a64_mc(&err);
  if (!mc) {
    std::printf("SKIP: %s\n", err.c_str());
    return 77;
  }
  // One instance per spec: the encoder's, ptodis's and an equal copy's.
  McSpec copy = ptoas::cg::sve::kA64Spec;
  if (Mc::get(copy) != mc || ptoas::cg::sve::a64_mc() != mc) fail("a second AArch64 instance");
  if (mc->reg("X29") != mc->reg("FP") || mc->reg("X30") != mc->reg("LR")) fail("the X29/X30 aliases");

  round_trip(*mc, inst(*mc, "FADD_ZZZ_S", {R("Z0"), R("Z1"), R("Z2")}), {0x20, 0x00, 0x82, 0x65},
             "fadd\tz0.s, z1.s, z2.s");
  round_trip(*mc, inst(*mc, "ADDXri", {R("X0"), R("X1"), I(1), I(0)}), {0x20, 0x04, 0x00, 0x91}, "add\tx0, x1, #1");
  round_trip(*mc, inst(*mc, "LD1W", {R("Z3"), R("P1"), R("X2"), R("X4")}), {0x43, 0x44, 0x44, 0xa5},
             "ld1w\t{ z3.s }, p1/z, [x2, x4, lsl #2]");

  // The 32-bit forms agree with the byte forms.
  uint32_t word = 0;
  llvm::MCInst fadd = inst(*mc, "FADD_ZZZ_S", {R("Z0"), R("Z1"), R("Z2")}), back;
  if (!mc->encode(fadd, word, err) || word != 0x65820020) fail("the 32-bit encode of fadd");
  if (!mc->decode(word, 0, back) || !same(back, fadd)) fail("the 32-bit decode of fadd");
  if (mc->decode(0xffffffffu, 0, back)) fail("0xffffffff decodes as an instruction");

  // The check: an X register where a Z one belongs, a W register where an X
  // one belongs (it would encode as the same number), a register in an
  // immediate's place, a missing operand.
  refused(*mc, inst(*mc, "FADD_ZZZ_S", {R("X0"), R("Z1"), R("Z2")}), "X0 is not in ZPR");
  refused(*mc, inst(*mc, "ADDXri", {R("X0"), R("W1"), I(1), I(0)}), "W1 is not in GPR64sp");
  refused(*mc, inst(*mc, "ADDXri", {R("X0"), R("X1"), R("X2"), I(0)}), "operand 2 must be an immediate");
  refused(*mc, inst(*mc, "ADDXri", {R("X0"), R("X1"), I(1)}), "takes 4 operands, not 3");

  // A spec of its own (another CPU), first asked for by eight threads at
  // once: one instance, made once.
  McSpec v1 = ptoas::cg::sve::kA64Spec;
  v1.cpu = "neoverse-v1";
  const Mc* got[8] = {};
  std::vector<std::thread> threads;
  for (const Mc*& g : got) threads.emplace_back([&g, &v1] { g = Mc::get(v1); });
  for (std::thread& t : threads) t.join();
  for (const Mc* g : got)
    if (!g || g != got[0] || g == mc) fail("eight threads did not get one neoverse-v1 instance of their own");
  // A triple whose target this program does not link: no instance, and the
  // reason, the same on every call.
  McSpec riscv = ptoas::cg::sve::kA64Spec;
  riscv.name = "RISCV";
  riscv.triple = "riscv64-unknown-linux-gnu";
  std::string e1, e2;
  if (Mc::get(riscv, &e1) || Mc::get(riscv, &e2) || e1.find("LLVM has no RISCV target") != 0 || e1 != e2)
    fail("a target LLVM lacks: '" + e1 + "', then '" + e2 + "'");
  else
    std::printf("ok: no instance: %s\n", e1.c_str());

  // The observer sees what encode() accepts and nothing it refuses.
  Mc::set_encode_observer(count);
  mc->encode(fadd, word, err);
  mc->encode(inst(*mc, "FADD_ZZZ_S", {R("X0"), R("Z1"), R("Z2")}), word, err);
  Mc::set_encode_observer(nullptr);
  mc->encode(fadd, word, err);
  if (g_observed != 1) fail("the observer saw " + std::to_string(g_observed) + " encodings, not 1");
  return g_failures ? 1 : 0;
}

int amdgpu() {
#ifndef PTOAS_HAVE_AMDGPU
  std::printf("SKIP: this LLVM was built without the AMDGPU target\n");
  return 77;
#else
  // All an AMDGPU backend has to write to get the layer.
  static constexpr McSpec kSpec = {
      .name = "AMDGPU",
      .triple = "amdgcn-amd-amdhsa",
      .cpu = "gfx90a",
      .features = "",
      .init_target_info = LLVMInitializeAMDGPUTargetInfo,
      .init_target_mc = LLVMInitializeAMDGPUTargetMC,
      .init_disassembler = LLVMInitializeAMDGPUDisassembler,
  };
  std::string err;
  const Mc* mc = Mc::get(kSpec, &err);
  if (!mc) {
    std::printf("SKIP: %s\n", err.c_str());
    return 77;
  }
  if (Mc::get(kSpec) != mc || mc == ptoas::cg::sve::a64_mc()) fail("the AMDGPU instance is not one of its own");
  // The chips the AMDGPU backend targets: LLVM 16 did not know gfx942
  // (it warned and fell back to a generic CPU), which is why the project
  // moved to LLVM 19.
  for (const char* chip : {"gfx90a", "gfx942", "gfx1100"})
    if (!mc->subtarget().isCPUStringValid(chip)) fail(std::string("this LLVM does not know ") + chip);
  // 4 bytes (SOP1), 4 bytes with an inline constant, 8 bytes (VOP3).
  round_trip(*mc, inst(*mc, "S_MOV_B32_vi", {R("SGPR0"), R("SGPR1")}), {0x01, 0x00, 0x80, 0xbe}, "s_mov_b32 s0, s1");
  round_trip(*mc, inst(*mc, "S_MOV_B32_vi", {R("SGPR0"), I(1)}), {0x81, 0x00, 0x80, 0xbe}, "s_mov_b32 s0, 1");
  round_trip(*mc, inst(*mc, "V_ADD_F32_e64_vi", {R("VGPR0"), I(0), R("VGPR1"), I(0), R("VGPR2"), I(0), I(0)}),
             {0x00, 0x00, 0x01, 0xd1, 0x01, 0x05, 0x02, 0x00}, "v_add_f32_e64 v0, v1, v2");
  // A vector register as a scalar destination; the 32-bit form of an
  // 8-byte instruction.
  refused(*mc, inst(*mc, "S_MOV_B32_vi", {R("VGPR0"), R("SGPR1")}), "VGPR0 is not in SReg_32");
  uint32_t word = 0;
  if (mc->encode(inst(*mc, "V_ADD_F32_e64_vi", {R("VGPR0"), I(0), R("VGPR1"), I(0), R("VGPR2"), I(0), I(0)}), word,
                 err))
    fail("an 8-byte instruction encoded as one 32-bit word");
  return g_failures ? 1 : 0;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && !std::strcmp(argv[1], "aarch64")) return aarch64();
  if (argc == 2 && !std::strcmp(argv[1], "amdgpu")) return amdgpu();
  std::fprintf(stderr, "usage: mc_layer aarch64|amdgpu\n");
  return 2;
}
