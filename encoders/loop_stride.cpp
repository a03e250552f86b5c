// view_loop_coeffs (loop_stride.h): the offsets of a partition view as
// affine functions of one loop's induction variable.
#include "loop_stride.h"

#include <optional>
#include <unordered_set>

#include "int_eval.h"

namespace ptoas::cg {

namespace {

// What the loop's body defines: its instructions (nested ones too) and
// the block arguments of its regions (the induction variable, iter_args,
// and those of nested loops), which change from one iteration to the next.
struct LoopBody {
  std::unordered_set<InstId> insts;
  std::unordered_set<ValueId> args;
  void add(const Module& m, const Region& r) {
    for (unsigned i = 0; i < r.arg_count; ++i) args.insert(m.region_arg(r, i));
    for (unsigned i = 0; i < r.inst_count; ++i) {
      InstId id = m.region_inst(r, i);
      insts.insert(id);
      const Inst& in = m.inst(id);
      for (unsigned k = 0; k < in.n_regions; ++k) add(m, m.region(in, k));
    }
  }
  bool varies(const Module& m, ValueId x) const {
    InstId d = m.values[x].def;
    return d == kNone ? args.count(x) != 0 : insts.count(d) != 0;
  }
};

constexpr int64_t kMaxCoeff = int64_t(1) << 31;  // far past any tile; keeps products in 64 bits

// x's coefficient of iv, if x is affine in it with a constant coefficient.
std::optional<int64_t> coeff_of(const Module& m, const LoopBody& body, ValueId iv, ValueId x, int depth) {
  if (x == iv) return 1;
  if (!body.varies(m, x)) return 0;
  InstId d = m.values[x].def;
  if (d == kNone || depth > 32) return std::nullopt;
  const Inst& in = m.inst(d);
  auto sub = [&](unsigned k) { return coeff_of(m, body, iv, m.operand(in, k), depth + 1); };
  auto bounded = [](int64_t c) -> std::optional<int64_t> {
    if (c <= -kMaxCoeff || c >= kMaxCoeff) return std::nullopt;
    return c;
  };
  switch (in.op) {
    case Op::Constant:
      return 0;
    case Op::IndexCast: case Op::IndexCastUI:
      return sub(0);
    case Op::AddI: case Op::SubI: {
      auto a = sub(0), b = sub(1);
      if (!a || !b) return std::nullopt;
      return bounded(in.op == Op::AddI ? *a + *b : *a - *b);
    }
    case Op::MulI: {
      auto a = sub(0), b = sub(1);
      if (!a || !b) return std::nullopt;
      if (*a == 0 && *b == 0) return 0;
      int64_t k;
      if (*a == 0 && int_constant(m, m.operand(in, 0), k) && k > -kMaxCoeff && k < kMaxCoeff) return bounded(k * *b);
      if (*b == 0 && int_constant(m, m.operand(in, 1), k) && k > -kMaxCoeff && k < kMaxCoeff) return bounded(k * *a);
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

bool view_loop_coeffs(const Module& m, ValueId v, InstId loop, std::vector<int64_t>& coeff) {
  coeff.clear();
  if (loop == kNone || m.inst(loop).op != Op::For || m.inst(loop).n_regions < 1) return false;
  InstId def = m.values[v].def;
  if (def == kNone || m.inst(def).op != Op::PartitionView) return false;
  const Inst& pv = m.inst(def);
  const Region& r = m.region(m.inst(loop), 0);
  if (r.arg_count < 1) return false;
  LoopBody body;
  body.add(m, r);
  if (body.varies(m, m.operand(pv, 0))) return false;
  ValueId iv = m.region_arg(r, 0);
  unsigned rank = (pv.n_ins - 1u) / 2u;
  for (unsigned d = 0; d < rank; ++d) {
    auto c = coeff_of(m, body, iv, m.operand(pv, 1 + d), 0);
    if (!c) return false;
    coeff.push_back(*c);
  }
  return true;
}

}  // namespace ptoas::cg
