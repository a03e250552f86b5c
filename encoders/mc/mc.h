// One LLVM MC layer for every target whose instructions LLVM encodes
// (AArch64+SVE now, AMDGPU next): a target describes itself with an McSpec
// (triple, CPU, features, the LLVM functions that register its MC parts)
// and gets an Mc that sets up LLVM's target, subtarget, code emitter,
// disassembler and printer once. The encoder, its object writer, the
// --emit=asm listing and ptodis all go through the same instance, so what
// ptodis prints is what the listing prints, for the same features.
//
// Services: opcodes and registers by their LLVM names (LLVM does not
// install its generated enums), MCInst -> bytes with an operand check,
// bytes -> MCInst, MCInst -> text. Instructions are any number of bytes
// (AArch64: 4; AMDGPU: 4, 8 or more); 32-bit overloads keep fixed-width
// callers short.
//
// Why the check: a hand-built MCInst with a register of the wrong class is
// encoded silently (on AArch64 an X register where a W one belongs encodes
// the same number), so encode() compares every register operand with the
// register class the instruction's descriptor names and refuses a mismatch.
//
// This header does not include LLVM; mc_llvm.h does, for the files that
// need the LLVM objects themselves (schedulers, tests).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace llvm {
class MCInst;
class MCInstrInfo;
class MCRegisterInfo;
class MCSubtargetInfo;
class MCCodeEmitter;
class MCContext;
class Target;
}  // namespace llvm

namespace ptoas::mc {

// A second name for an LLVM register (AArch64 calls x29 and x30 FP and LR).
struct RegAlias {
  const char* alias;
  const char* llvm_name;
};

// What a target gives the layer; a constant of the target's folder. The
// instance keeps the pointers: the strings and aliases must live as long as
// the program (literals and constants do).
struct McSpec {
  const char* name;      // in messages: "AArch64", "AMDGPU"
  const char* triple;    // "aarch64-unknown-linux-gnu"
  const char* cpu;       // "generic", "gfx90a"
  const char* features;  // "+sve,+fullfp16,+bf16"
  // LLVMInitialize<T>TargetInfo, ...TargetMC, ...Disassembler: named here so
  // that only the targets a program uses are linked into it.
  void (*init_target_info)();
  void (*init_target_mc)();
  void (*init_disassembler)();
  std::span<const RegAlias> reg_aliases = {};
};

// The bytes of one instruction.
struct InstBytes {
  static constexpr unsigned kMax = 32;
  uint8_t data[kMax] = {};
  unsigned size = 0;
  std::span<const uint8_t> bytes() const { return {data, size}; }
};

struct McImpl;

class Mc {
 public:
  // The instance for `spec` (created on first use, then shared; thread-safe;
  // specs with the same triple, CPU and features share one). nullptr when
  // LLVM lacks the target or cannot set it up (`err` says why).
  static const Mc* get(const McSpec& spec, std::string* err = nullptr);

  const McSpec& spec() const;

  // The opcode called `name` (e.g. "LD1W", "S_MOV_B32_vi", as llvm-mc
  // -show-inst prints); aborts on an unknown name: that is a bug in an
  // encoder, not in its input.
  unsigned opcode(std::string_view name) const;
  std::string_view opcode_name(unsigned opc) const;
  // A register by LLVM's name ("X3", "Z7", "P1", "SP"; "SGPR0", "VGPR1") or
  // an alias of the spec; aborts on an unknown name.
  unsigned reg(std::string_view name) const;
  std::string_view reg_name(unsigned reg) const;

  // The bytes of `mi`; false (with the reason) when the operand count, an
  // operand's kind or a register's class does not match the opcode's
  // descriptor, or the instruction needs a fixup (a symbolic operand).
  bool encode(const llvm::MCInst& mi, InstBytes& out, std::string& err) const;
  // The same for a target of 32-bit words: also false unless it is 4 bytes.
  bool encode(const llvm::MCInst& mi, uint32_t& word, std::string& err) const;

  // The instruction at the start of `bytes` (at address `addr`, for branch
  // targets) and its length; false if it is not a valid instruction.
  bool decode(std::span<const uint8_t> bytes, uint64_t addr, llvm::MCInst& out, unsigned& size) const;
  // The same for one little-endian 32-bit word: false unless it is exactly
  // one 4-byte instruction.
  bool decode(uint32_t word, uint64_t addr, llvm::MCInst& out) const;

  // Assembler text of an instruction (LLVM's printer, tab-separated,
  // without leading blanks).
  std::string print(const llvm::MCInst& mi, uint64_t addr) const;

  // The LLVM objects behind the services (mc_llvm.h has their types).
  const llvm::Target& target() const;
  const llvm::MCRegisterInfo& reg_info() const;
  const llvm::MCInstrInfo& instr_info() const;
  const llvm::MCSubtargetInfo& subtarget() const;
  const llvm::MCCodeEmitter& emitter() const;

  // Test hook (tests/sve/sve_forms.cpp): when set, encode() calls it with
  // every instruction it accepts, on any instance, and the bytes it made,
  // so a test can compare each form an encoder uses with LLVM's own
  // assembler. Process-wide; nullptr turns it off.
  using EncodeObserver = void (*)(const Mc& mc, const llvm::MCInst& mi, std::span<const uint8_t> bytes);
  static void set_encode_observer(EncodeObserver fn);

  Mc(const Mc&) = delete;
  Mc& operator=(const Mc&) = delete;

 private:
  explicit Mc(McImpl* impl) : impl_(impl) {}
  McImpl* impl_;
};

}  // namespace ptoas::mc
