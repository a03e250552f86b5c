// The static checker of a kernel's final instruction stream (GPU_NOTES
// AMDGPU §6): it reads the text the assembler gets and proves, for the
// chosen chip, what the MC layer does not check. The compile fails when a
// rule does not hold; tests delete an s_nop or an s_waitcnt from compiled
// kernels and expect it to say so.
//
// Rules: every register a load writes is read or overwritten only after an
// s_waitcnt that retires the load (vmcnt and LDS in order, SMEM out of
// order), with nothing outstanding at a label or branch; gfx940: 2 wait
// states between a VALU's SGPR (or VCC) write and a VALU reading it, 1
// between a TRANS result and a non-TRANS VALU reading it; gfx90a/gfx940: 1
// (gfx940: 2) between a store of more than 64 bits and a VALU overwriting
// its data; gfx11: s_waitcnt_depctr between a TRANS result and a VALU use
// within 5 VALUs; registers below the kernel's next_free counts and the
// chip's file, 64-bit VGPR tuples even on gfx9; wave32 code names no
// 64-bit VCC or EXEC, wave64 code no _lo halves as masks.
//
// check_code_object verifies the linked object against what was asked:
// each kernel's descriptor (wave size, kernarg and LDS sizes, register
// counts) and that its metadata names the same values.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "chip.h"
#include "code_object.h"

namespace ptoas::cg::amdgpu {

bool check_hazards(const Chip& chip, const std::string& body, unsigned next_free_vgpr, unsigned next_free_sgpr,
                   std::string& err);

bool check_code_object(const CodeObjectInput& in, const std::vector<uint8_t>& hsaco, std::string& err);

}  // namespace ptoas::cg::amdgpu
