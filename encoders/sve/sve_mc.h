// The LLVM MC layer for AArch64 + SVE, shared by the SVE encoder, its object
// writer, the listing and ptodis: opcodes and registers looked up by name
// (LLVM does not install its generated enums), MCInst -> bytes with an
// operand check, bytes -> MCInst and text.
//
// Why the check: a hand-built MCInst with a register of the wrong class is
// encoded silently (an X register where a W one belongs encodes the same
// number), so encode() compares every register operand with the register
// class the instruction's descriptor names and refuses a mismatch.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class MCInst;
}

namespace ptoas::cg::sve {

struct McImpl;

class Mc {
 public:
  // The process-wide instance (created once, thread-safe); nullptr when
  // LLVM lacks the AArch64 target (`err` says why).
  static const Mc* get(std::string* err = nullptr);

  // The opcode called `name` (e.g. "LD1W", as llvm-mc -show-inst prints);
  // aborts on an unknown name: that is a bug in the encoder, not in input.
  unsigned opcode(std::string_view name) const;
  std::string_view opcode_name(unsigned opc) const;
  // A register by LLVM's name ("X3", "W3", "Z7", "P1", "S0", "D0", "SP",
  // "XZR"); aborts on an unknown name.
  unsigned reg(std::string_view name) const;

  // One 32-bit instruction word; false (with the reason) when the operand
  // count or a register class does not match the opcode's descriptor.
  bool encode(const llvm::MCInst& mi, uint32_t& word, std::string& err) const;
  // The instruction at `word` (its address `addr` for branch targets);
  // false if it is not a valid AArch64+SVE instruction.
  bool decode(uint32_t word, uint64_t addr, llvm::MCInst& out) const;
  // Assembler text of an instruction (LLVM's printer, tab-separated).
  std::string print(const llvm::MCInst& mi, uint64_t addr) const;

  // Test hook (tests/sve/sve_forms.cpp): when set, encode() calls it with
  // every instruction it accepts and the word it made, so a test can
  // compare each form the encoder uses with LLVM's own assembler.
  // Process-wide; nullptr turns it off.
  using EncodeObserver = void (*)(const llvm::MCInst& mi, uint32_t word);
  static void set_encode_observer(EncodeObserver fn);

  McImpl* impl() const { return impl_; }

 private:
  Mc() = default;
  McImpl* impl_ = nullptr;
};

// The target triple and features every AArch64 MC object uses.
inline constexpr const char* kTriple = "aarch64-unknown-linux-gnu";
inline constexpr const char* kFeatures = "+sve,+fullfp16,+bf16";

}  // namespace ptoas::cg::sve
