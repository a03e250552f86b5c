// The machine IR of the amdgpu backend: GCN instructions as the assembler
// spells them, whose register operands are still virtual (a VGPR or SGPR
// tuple of 1, 2 or 4 dwords). Instruction selection (isel*.cpp) makes it,
// the register allocator (regalloc.cpp) gives every virtual register a
// physical one, the wait pass (waitcnt.cpp) adds s_waitcnt and hazard
// s_nops, and print_body() writes the text the code-object writer
// assembles.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ptoas::cg::amdgpu {

enum class RegFile : uint8_t { V, S };

struct VReg {
  RegFile file = RegFile::V;
  uint8_t dwords = 1;  // 1, 2 or 4
  int32_t phys = -1;   // after allocation: the first physical register
  bool no_spill = false;  // a spill's own scratch register
};

struct MOp {
  enum Kind : uint8_t { Reg, Text };
  Kind kind = Text;
  bool use = false, def = false;
  uint8_t part = 0xff;  // Reg: 0xff the whole tuple, k: its dword k alone
  uint8_t mod = 0;      // float source modifiers: 1 negate, 2 absolute value
  uint32_t reg = 0;
  std::string text;  // Text: as written ("s[0:1]", "vcc", "0x3f800000", "off")
};

struct MInst {
  enum Kind : uint8_t { Op, Label, Loc };
  Kind kind = Op;
  std::string op;        // the mnemonic
  std::vector<MOp> ops;  // in assembler order
  std::string tail;      // modifiers after the operands ("offset:16 glc")
  int32_t label = -1;    // Label: its number; a branch: its target
  uint32_t line = 0, col = 0;  // Loc: the .pto position
};

struct MFunc {
  std::vector<VReg> regs;
  std::vector<MInst> code;
  // Physical registers the allocator must leave alone: [0, reserved_s)
  // SGPRs (the kernarg pointer, the workgroup id and the padding before
  // it) and [0, reserved_v) VGPRs (the work-item id).
  unsigned reserved_s = 0, reserved_v = 0;
  // SGPRs kept free at the top of the file (a long branch's pair,
  // branch_relax.h).
  unsigned reserved_top_s = 0;
  // After allocation: the highest register used + 1.
  unsigned used_v = 0, used_s = 0;
};

// The text of an operand after allocation.
std::string op_text(const MFunc& f, const MOp& o);
// A label's name: .L<prefix>_<n>.
std::string label_name(const std::string& prefix, int32_t n);
// The body as assembler text (labels .L<name>_<n>; .loc lines against file 1).
std::string print_body(const MFunc& f, const std::string& label_prefix);
// Whether the mnemonic `s` begins with `p` (an instruction family).
inline bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace ptoas::cg::amdgpu
