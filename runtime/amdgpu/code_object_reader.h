// Reading a linked AMDGPU code object (.hsaco) back: which chip it is for,
// each kernel's descriptor (`<name>.kd`), and the kernel's instructions as
// LLVM disassembles them for that chip. The interpreter (amdgpu_emu.h)
// decodes from this; ptodis and tests can list it. Facts behind the
// descriptor layout: notes/GPU_NOTES.md AMDGPU §2.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptoas::cg::amdgpu {
struct Chip;
}

namespace ptoas::amdgpu_emu {

// The 64-byte kernel descriptor, the fields a launch needs.
struct KernelDescriptor {
  uint32_t group_segment_fixed_size = 0;
  uint32_t private_segment_fixed_size = 0;
  uint32_t kernarg_size = 0;
  int64_t entry_offset = 0;  // kernel_code_entry_byte_offset, from the KD's address
  uint32_t rsrc3 = 0, rsrc1 = 0, rsrc2 = 0;
  uint16_t code_properties = 0;

  unsigned user_sgpr_count() const { return (rsrc2 >> 1) & 31; }
  bool tgid_x() const { return (rsrc2 >> 7) & 1; }
  bool wave32() const { return (code_properties >> 10) & 1; }
  bool kernarg_ptr() const { return (code_properties >> 3) & 1; }
};

// One MCInst operand, as far as a reader of the text may want it.
struct McOperand {
  enum Kind : uint8_t { Reg, Imm, Other };
  Kind kind = Other;
  unsigned reg = 0;  // LLVM's register number (Mc::reg_name gives its name)
  int64_t imm = 0;
};

struct CodeInst {
  uint64_t offset = 0;      // from the kernel's entry
  unsigned size = 0;        // bytes: 4, 8 or 12
  std::string text;         // LLVM's printed form, blanks normalised: "v_add_u32_e32 v1, v2, v3"
  std::string opcode;       // LLVM's opcode name: "V_ADD_U32_e32_vi"
  std::vector<McOperand> operands;
};

struct KernelCode {
  std::string name;
  uint64_t address = 0;     // the entry's virtual address
  uint64_t kd_address = 0;
  KernelDescriptor kd;
  std::vector<CodeInst> insts;
};

struct CodeObject {
  const cg::amdgpu::Chip* chip = nullptr;
  uint32_t e_flags = 0;
  std::vector<KernelCode> kernels;
  const KernelCode* find(std::string_view name) const;
};

// Reads every kernel (a function symbol with a `<name>.kd` object beside
// it). False with `err` set when the bytes are not a 64-bit AMDGPU ELF of
// a known chip, a descriptor lies outside the file, or an instruction
// does not decode (the message names the kernel and the offset).
bool read_code_object(std::span<const uint8_t> hsaco, CodeObject& out, std::string& err);

}  // namespace ptoas::amdgpu_emu
