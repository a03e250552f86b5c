// Long branches (after the wait pass): s_branch and s_cbranch hold a
// signed 16-bit count of dwords, so a target more than 128 KiB away is
// reached through s_getpc_b64 / s_add_u32 / s_addc_u32 / s_setpc_b64 on a
// spare SGPR pair, a conditional one behind the inverted condition.
// Instruction sizes are not known before the assembler runs: each counts
// at its upper bound (4 bytes for s_nop and the waits, 8 for other SALU,
// 12 for the rest), so a branch is made long whenever it might be far.
#pragma once
#include <string>

#include "chip.h"
#include "mir.h"

namespace ptoas::cg::amdgpu {

// False when a long branch is needed and no SGPR pair is free: allocate
// again with MFunc::reserved_top_s = 2, which this then uses.
bool relax_branches(const Chip& chip, MFunc& f, const std::string& label_prefix, std::string& why);

}  // namespace ptoas::cg::amdgpu
