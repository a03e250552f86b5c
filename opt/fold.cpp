// Pass `fold`: integer scalar arithmetic on constants becomes a constant
// (computed by asm/int_eval.h, the interpreter's own definition), and the
// integer identities x+0, x-0, x*1, x|0, x^0, x<<0, x>>0 forward x.
// Float arithmetic is never folded: the NaN payload and the rounding of
// f16/bf16 intermediates would have to be reproduced exactly.
#include "int_eval.h"
#include "ir_edit.h"
#include "passes.h"

namespace ptoas::opt {

namespace {

bool int_typed(const Type& t) {
  return t.kind == TypeKind::Scalar && (dtype_is_int(t.elem) || t.elem == DType::Index || t.elem == DType::I1);
}

// The operand x of `x op k` / `k op x` that the op leaves unchanged, if any.
ValueId identity_operand(const Module& m, const Inst& in) {
  ValueId a = m.operand(in, 0), b = m.operand(in, 1);
  int64_t ka, kb;
  bool ca = int_constant(m, a, ka), cb = int_constant(m, b, kb);
  switch (in.op) {
    case Op::AddI: case Op::OrI: case Op::XOrI:
      if (cb && kb == 0) return a;
      if (ca && ka == 0) return b;
      return kNone;
    case Op::MulI:
      if (cb && kb == 1) return a;
      if (ca && ka == 1) return b;
      return kNone;
    case Op::SubI: case Op::ShLI: case Op::ShRSI: case Op::ShRUI:
      return cb && kb == 0 ? a : kNone;
    default:
      return kNone;
  }
}

}  // namespace

bool pass_fold(Module& m, const PassContext&) {
  std::vector<InstId> order;
  walk(m, m.body, [&](InstId id, RegionId) { order.push_back(id); });
  // Pre-order visits a definition before its uses (SSA dominance), so one
  // sweep sees every operand already folded.
  Subst sub(m);
  for (InstId id : order) {
    sub.rewrite(m, id);
    const Inst& in = m.insts[id];
    if (in.n_res != 1 || in.n_regions) continue;
    if (in.op == Op::Select && in.n_ins == 3) {
      int64_t c;
      if (int_constant(m, m.operand(in, 0), c)) sub.set(in.res, m.operand(in, c ? 1 : 2));
      continue;
    }
    const Type& rt = m.type_of(in.res);
    if (!int_typed(rt)) continue;
    const OpInfo& info = op_info(in.op);
    if (info.syn == Syn::ArithBin && in.n_ins == 2) {
      int64_t a, b, r;
      if (int_constant(m, m.operand(in, 0), a) && int_constant(m, m.operand(in, 1), b) &&
          eval_int_bin(in.op, rt.elem, a, b, r) == IntFault::None) {
        make_int_constant(m, id, r);
        continue;
      }
      ValueId x = identity_operand(m, in);
      if (x != kNone && m.values[x].type == m.values[in.res].type) sub.set(in.res, x);
    } else if (in.op == Op::CmpI && in.n_ins == 2) {
      int64_t a, b;
      bool ok;
      if (int_constant(m, m.operand(in, 0), a) && int_constant(m, m.operand(in, 1), b)) {
        bool r = eval_int_cmp(m.attr_word(in, "predicate"), m.type_of(m.operand(in, 0)).elem, a, b, ok);
        if (ok) make_int_constant(m, id, r);
      }
    } else if (info.syn == Syn::ArithCast && in.n_ins == 1) {
      int64_t a;
      const Type& st = m.type_of(m.operand(in, 0));
      if (int_typed(st) && int_constant(m, m.operand(in, 0), a))
        make_int_constant(m, id, eval_int_cast(in.op, st.elem, rt.elem, a));
    }
  }
  sub.finish(m);
  return true;
}

}  // namespace ptoas::opt
