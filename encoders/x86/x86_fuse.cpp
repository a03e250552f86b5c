// x86-64 code generation: pto.fuse regions (opt/fuse.cpp) lowered as one
// loop nest. A region this file does not take is lowered op by op, which
// is always correct: the body's meaning is sequential.
#include "x86_gen.h"

namespace ptoas::cg::x86::gen {

bool Gen::fused_region(const Inst&) { return false; }

}  // namespace ptoas::cg::x86::gen
