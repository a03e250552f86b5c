// How a view's address moves from one iteration of an scf.for to the next,
// known before the loop runs: what lets a target fetch the next iteration's
// operands while the current one computes (x86: a tmatmul's tloads,
// docs/x86_backend.md "Prefetch of the next block").
#pragma once
#include <cstdint>
#include <vector>

#include "ir.h"

namespace ptoas::cg {

// v is a pto.partition_view of a view the loop does not change, and each
// of its offsets is c_d * iv + (a value the loop does not change), with iv
// the induction variable of scf.for `loop` and c_d a constant: then the
// next iteration's v starts step * sum_d c_d * stride_d elements further.
// coeff gets the c_d, one per dimension. False when v is not of that form
// (an offset through a division, a value carried by the loop, ...).
bool view_loop_coeffs(const Module& m, ValueId v, InstId loop, std::vector<int64_t>& coeff);

}  // namespace ptoas::cg
