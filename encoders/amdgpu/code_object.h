// The AMDGPU code-object writer: GCN assembly of finished kernels (physical
// registers, waitcnts and hazard nops already in place) -> a linked code
// object v5 (.hsaco, ET_DYN) that the ROCm runtime loads. Everything runs in
// this process: LLVM MC's AMDGPU assembler turns the text into a relocatable
// object, writing the kernel descriptors and the metadata note from
// directives, and lld links it.
//
// Why assembler text and not MCInsts: the descriptor directives, the
// metadata verifier and the instruction parser are LLVM's, so the defaults
// and checks stay theirs (GPU_NOTES AMDGPU §4, "Recommendation").
// docs/amdgpu_backend.md has the ABI the directives describe.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "chip.h"

namespace ptoas::cg::amdgpu {

struct KernelArg {
  std::string name;
  uint32_t offset = 0, size = 0;
  std::string value_kind;  // "global_buffer", "by_value", "hidden_block_count_x"
};

struct KernelCode {
  std::string name;             // symbol; the descriptor is <name>.kd
  std::string body;             // GCN assembly: instructions, local labels (.L...), .loc lines; physical registers only
  std::vector<KernelArg> args;  // explicit args then hidden ones
  uint32_t kernarg_size = 0;    // bytes, covers every arg
  uint32_t lds_bytes = 0;       // .amdhsa_group_segment_fixed_size
  uint32_t next_free_vgpr = 1, next_free_sgpr = 1;  // highest register used + 1 (at least 1)
  bool uses_vcc = true;
  unsigned workgroup_size = 256;
  uint32_t tile_scratch_bytes = 0;  // global memory per workgroup for tiles past the LDS (0: none)
};

// The global buffer of a kernel whose tiles do not fit the LDS
// (docs/amdgpu_backend.md, "Tiles past the LDS"): the launcher passes a
// pointer at `kernarg_off` to `bytes_per_workgroup` times the grid's
// workgroups of memory. bytes_per_workgroup 0: the kernel has none.
struct TileScratch {
  uint32_t kernarg_off = 0;
  uint32_t bytes_per_workgroup = 0;
};
// Of a function ptoas compiled for amdgpu (its FuncCode::target_note).
TileScratch tile_scratch(const std::string& target_note);

struct CodeObjectInput {
  const Chip* chip;
  std::vector<KernelCode> kernels;
  std::string source_name;  // the .pto path, file 1 of the line table; may be empty
};

// The relocatable object of code_object_asm(in) (LLVM MC in-process); false
// with the assembler's diagnostics, each with its line of the text.
bool assemble_code_object(const CodeObjectInput& in, std::vector<uint8_t>& obj, std::string& err);

// lld over that object (code_object_link.cpp, a separate library: lld
// brings all of LLVM's targets with it); false with lld's messages.
bool link_code_object(const std::vector<uint8_t>& obj, std::vector<uint8_t>& hsaco, std::string& err);

// Assembles code_object_asm(in) and links it with lld into `hsaco`. On
// failure returns false with the assembler's diagnostics (each with the
// offending line of the generated text) or lld's messages in `err`, and
// leaves `hsaco` empty. Safe to call from several threads (the link step is
// serialised: lld keeps process-wide state).
bool build_code_object(const CodeObjectInput& in, std::vector<uint8_t>& hsaco, std::string& err);

// The full assembler text build_code_object assembles (--emit=asm, debugging).
std::string code_object_asm(const CodeObjectInput& in);

}  // namespace ptoas::cg::amdgpu
