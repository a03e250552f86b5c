// How a view's address moves from one iteration of an scf.for to the next,
// known before the loop runs: what lets a target fetch the next iteration's
// operands while the current one computes (x86: a tmatmul's tloads,
// docs/x86_backend.md "Prefetch of the next block").
#pragma once
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "ir.h"

namespace ptoas::cg {

// What one loop's body defines, gathered once, then asked about any number
// of views (a body holding many tmatmuls is walked once, not per operand).
class LoopStride {
 public:
  // `loop`: an scf.for; anything else (kNone included) answers no view.
  LoopStride(const Module& m, InstId loop);
  InstId loop() const { return loop_; }
  // v is a pto.partition_view of a view the loop does not change, and each
  // of its offsets is c_d * iv + (a value the loop does not change), with
  // iv the loop's induction variable and c_d a constant: then the next
  // iteration's v starts step * sum_d c_d * stride_d elements further.
  // coeff gets the c_d, one per dimension. False when v is not of that
  // form (an offset through a division, a value carried by the loop, ...).
  bool view_coeffs(ValueId v, std::vector<int64_t>& coeff) const;

 private:
  bool varies(ValueId x) const;
  bool coeff_of(ValueId x, int depth, int64_t& c) const;
  const Module& m_;
  InstId loop_;
  ValueId iv_ = kNone;
  // The body's instructions (nested ones too) and the block arguments of
  // its regions (the induction variable, iter_args, and those of nested
  // loops): what changes from one iteration to the next.
  std::unordered_set<InstId> insts_;
  std::unordered_set<ValueId> args_;
};

}  // namespace ptoas::cg
