// LoopStride (loop_stride.h): the offsets of a partition view as affine
// functions of one loop's induction variable.
#include "loop_stride.h"

#include "int_eval.h"

namespace ptoas::cg {

namespace {

constexpr int64_t kMaxCoeff = int64_t(1) << 31;  // far past any tile; keeps products in 64 bits

bool bounded(int64_t c) { return c > -kMaxCoeff && c < kMaxCoeff; }

}  // namespace

LoopStride::LoopStride(const Module& m, InstId loop) : m_(m), loop_(loop) {
  if (loop == kNone || m.inst(loop).op != Op::For || m.inst(loop).n_regions < 1) return;
  const Region& body = m.region(m.inst(loop), 0);
  if (body.arg_count < 1) return;
  iv_ = m.region_arg(body, 0);
  auto add = [&](const Region& r, auto&& self) -> void {
    for (unsigned i = 0; i < r.arg_count; ++i) args_.insert(m.region_arg(r, i));
    for (unsigned i = 0; i < r.inst_count; ++i) {
      InstId id = m.region_inst(r, i);
      insts_.insert(id);
      const Inst& in = m.inst(id);
      for (unsigned k = 0; k < in.n_regions; ++k) self(m.region(in, k), self);
    }
  };
  add(body, add);
}

bool LoopStride::varies(ValueId x) const {
  InstId d = m_.values[x].def;
  return d == kNone ? args_.count(x) != 0 : insts_.count(d) != 0;
}

// c = x's coefficient of iv, if x is affine in it with a constant one.
bool LoopStride::coeff_of(ValueId x, int depth, int64_t& c) const {
  c = 0;
  if (x == iv_) return c = 1, true;
  if (!varies(x)) return true;
  InstId d = m_.values[x].def;
  if (d == kNone || depth > 32) return false;
  const Inst& in = m_.inst(d);
  int64_t a = 0, b = 0, k = 0;
  auto sub = [&](unsigned i, int64_t& out) { return coeff_of(m_.operand(in, i), depth + 1, out); };
  switch (in.op) {
    case Op::Constant:
      return true;
    case Op::IndexCast: case Op::IndexCastUI:
      return sub(0, c);
    case Op::AddI: case Op::SubI:
      if (!sub(0, a) || !sub(1, b)) return false;
      c = in.op == Op::AddI ? a + b : a - b;
      return bounded(c);
    case Op::MulI:
      if (!sub(0, a) || !sub(1, b)) return false;
      if (a == 0 && b == 0) return true;
      if (a == 0 && int_constant(m_, m_.operand(in, 0), k) && bounded(k)) c = k * b;
      else if (b == 0 && int_constant(m_, m_.operand(in, 1), k) && bounded(k)) c = k * a;
      else return false;
      return bounded(c);
    default:
      return false;
  }
}

bool LoopStride::view_coeffs(ValueId v, std::vector<int64_t>& coeff) const {
  coeff.clear();
  if (iv_ == kNone) return false;
  InstId def = m_.values[v].def;
  if (def == kNone || m_.inst(def).op != Op::PartitionView) return false;
  const Inst& pv = m_.inst(def);
  if (varies(m_.operand(pv, 0))) return false;
  unsigned rank = (pv.n_ins - 1u) / 2u;
  for (unsigned d = 0; d < rank; ++d) {
    int64_t c;
    if (!coeff_of(m_.operand(pv, 1 + d), 0, c)) return coeff.clear(), false;
    coeff.push_back(c);
  }
  return true;
}

}  // namespace ptoas::cg
