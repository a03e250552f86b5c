// Register allocation for the machine IR (mir.h): linear scan over the
// instruction order, one interval per virtual register. A register live
// into, out of or across a loop (a backward branch) is live through the
// whole loop, as is one whose first mention in the loop is a read (it is
// carried from the previous iteration): with lanes waiting at labels, a
// loop's every instruction may run again before any exit.
#pragma once
#include <string>

#include "chip.h"
#include "mir.h"

namespace ptoas::cg::amdgpu {

// False (with why) when the registers do not fit the chip's file.
bool allocate_registers(const Chip& chip, MFunc& f, std::string& why);

}  // namespace ptoas::cg::amdgpu
