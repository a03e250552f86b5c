// The CPU targets' shared lowering layer (cpu_lowering.h).
#include "cpu_lowering.h"

#include <algorithm>

#include "int_eval.h"

namespace ptoas::cg {

void CpuLowering::copy_values(const std::vector<ValueId>& from, const std::vector<ValueId>& to) {
  std::vector<std::pair<uint32_t, uint32_t>> c = slot_copies(frame_, from, to);
  for (size_t k = 0; k < c.size(); ++k) move_slot(c[k].first, frame_.temp_first + uint32_t(k));
  for (size_t k = 0; k < c.size(); ++k) move_slot(frame_.temp_first + uint32_t(k), c[k].second);
}

void CpuLowering::view(const Inst& in) {
  const Module& m = cpu_m_;
  switch (in.op) {
    case Op::MakeTensorView: {  // base, shape, strides: copies
      unsigned rank = (in.n_ins - 1u) / 2u;
      if (frame_.slots[in.res].count != 1 + 2 * rank) return fail(in, {RefusalCode::Shape, "a view whose rank differs from its type"});
      move_slot(slot(m.operand(in, 0)), slot(in.res));
      for (unsigned k = 0; k < 2 * rank; ++k) move_slot(slot(m.operand(in, 1 + k)), slot(in.res, 1 + k));
      return;
    }
    case Op::PartitionView: {
      unsigned rank = (in.n_ins - 1u) / 2u;
      ValueId src = m.operand(in, 0);
      if (frame_.slots[in.res].count != 1 + 2 * rank || frame_.slots[src].count != 1 + 2 * rank)
        return fail(in, {RefusalCode::Shape, "a partition whose rank differs from its view's"});
      return partition_view(in, src, in.res, rank, std::max(1u, dtype_bytes(m.type_of(in.res).elem)));
    }
    case Op::AddPtr:
      return add_ptr(in, std::max(1u, dtype_bytes(m.type_of(m.operand(in, 0)).elem)));
    case Op::GetTensorViewDim: {
      int64_t k;
      ValueId v = m.operand(in, 0);
      unsigned rank = (frame_.slots[v].count - 1u) / 2u;
      if (!int_constant(m, m.operand(in, 1), k) || k < 0 || k >= int64_t(rank))
        return fail(in, {RefusalCode::Operands, "pto.get_tensor_view_dim with a dimension that is not a constant in range"});
      return move_slot(slot(v, 1 + unsigned(k)), slot(in.res));
    }
    case Op::SetValidShape: {
      ValueId t = m.operand(in, 0);
      const Type& tt = m.type_of(t);
      for (unsigned k = 0; k < 2; ++k) store_valid(t, k, m.operand(in, 1 + k), k == 0 ? tt.rows : tt.cols);
      return;
    }
    case Op::Subset: case Op::Subview: {
      ValueId t = m.operand(in, 0);
      const Type& rt = m.type_of(in.res);
      bool valid_ops = false;
      Refusal why;
      if (!plan_row_subset(m, in, valid_ops, why)) return fail(in, why);
      subset(in, t, std::max(1u, dtype_bytes(rt.elem)));
      if (valid_ops)
        for (unsigned k = 0; k < 2; ++k) store_valid(in.res, k, m.operand(in, 3 + k), k == 0 ? rt.rows : rt.cols);
      return;
    }
    default:
      return fail(in);
  }
}

// A window subview: its storage and valid extents (static, or its explicit
// ones clamped to its sizes); false when plan_frame gave it none.
bool CpuLowering::window_view(const Inst& in) {
  InstId id = current_inst();
  if (id == kNone || frame_.alloc_offset[id] == kNone) return false;
  const Type& t = cpu_m_.type_of(in.res);
  store_imm(in.res, 0, frame_.alloc_offset[id]);
  for (unsigned k = 0; k < 2; ++k) {
    int32_t phys = k == 0 ? t.rows : t.cols, stat = k == 0 ? t.vrow : t.vcol;
    if (in.n_ins == 5) store_valid(in.res, k, cpu_m_.operand(in, 3 + k), phys);
    else store_imm(in.res, 1 + k, stat < 0 ? phys : std::min(stat, phys));
  }
  return true;
}

void CpuLowering::copy_window(const Inst& at, ValueId w, const WindowPlan& p) {
  const Type& t = cpu_m_.type_of(w);
  const uint32_t keep = frame_.temp_first;
  move_slot(slot(w, 1), keep);
  move_slot(slot(w, 2), keep + 1);
  store_imm(w, 1, t.rows);
  store_imm(w, 2, t.cols);
  twindow(at, p);
  move_slot(keep, slot(w, 1));
  move_slot(keep + 1, slot(w, 2));
}

void CpuLowering::scalar_mem(const Inst& in) {
  ScalarMemPlan p;
  Refusal why;
  if (!plan_scalar_mem(cpu_m_, in, p, why)) return fail(in, why);
  scalar_mem(in, p);
}

void CpuLowering::tstore_combined(const Inst& in, ValueId t, ValueId v, bool relu, bool atomic) {
  StoreCombinePlan p;
  p.tile = t, p.view = v, p.relu = relu, p.atomic = atomic;
  Refusal why;
  if (!plan_store_combine(cpu_m_, in, p, why)) return fail(in, why);
  store_combined(in, p);
}

// The tile's arena offset and valid extents: static, or run-time counts
// clamped (the interpreter takes a negative count as "the whole tile" and
// reports one above it; here it is clamped).
void CpuLowering::alloc(const Inst& in, InstId id) {
  const Type& t = cpu_m_.type_of(in.res);
  if (frame_.alloc_offset[id] == kNone) return;  // reported by the planner
  store_imm(in.res, 0, frame_.alloc_offset[id]);
  unsigned k = (in.flags & kInstHasAddr) ? 1 : 0;
  auto valid = [&](bool present, int32_t stat, int32_t phys, unsigned s) {
    if (present) store_count(in.res, s, cpu_m_.operand(in, k++), phys);
    else store_imm(in.res, s, stat < 0 ? phys : std::min(stat, phys));
  };
  valid(in.flags & kInstHasValidRow, t.vrow, t.rows, 1);
  valid(in.flags & kInstHasValidCol, t.vcol, t.cols, 2);
}

// Each family: its plan, or the refusal the plan gives.
#define PTOAS_PLANNED(family, Plan, planner)         \
  void CpuLowering::family(const Inst& in) {         \
    Plan p;                                          \
    Refusal why;                                     \
    if (!planner(cpu_m_, in, p, why)) return fail(in, why); \
    family(in, p);                                   \
  }
PTOAS_PLANNED(elementwise, EltPlan, plan_elementwise)
PTOAS_PLANNED(fused, FusedPlan, plan_fused)
PTOAS_PLANNED(row_expand, ExpandPlan, plan_row_expand)
PTOAS_PLANNED(col_expand, ExpandPlan, plan_col_expand)
PTOAS_PLANNED(tcmp, CmpPlan, plan_tcmp)
PTOAS_PLANNED(tsel, SelPlan, plan_tsel)
PTOAS_PLANNED(tcvt, CvtPlan, plan_tcvt)
PTOAS_PLANNED(matmul, MatmulPlan, plan_matmul)
PTOAS_PLANNED(twindow, WindowPlan, plan_twindow)
PTOAS_PLANNED(tgather, GatherPlan, plan_tgather)
#undef PTOAS_PLANNED

void CpuLowering::row_reduce(const Inst& in) {
  ValueId src, dst;
  Refusal why;
  if (!plan_reduce(cpu_m_, in, true, src, dst, why)) return fail(in, why);
  row_reduce(in, src, dst);
}

void CpuLowering::col_reduce(const Inst& in) {
  ValueId src, dst;
  Refusal why;
  if (!plan_reduce(cpu_m_, in, false, src, dst, why)) return fail(in, why);
  col_reduce(in, src, dst);
}

void CpuLowering::tmov(const Inst& in) {
  ValueId src, dst;
  bool skip;
  Refusal why;
  if (!plan_tmov(cpu_m_, in, src, dst, skip, why)) return fail(in, why);
  if (!skip) tmov(in, src, dst);
}

void CpuLowering::tci(const Inst& in) {
  unsigned es;
  bool desc;
  if (!plan_tci(cpu_m_, in, es, desc)) return fail(in);
  tci(in, es, desc);
}

void CpuLowering::ttri(const Inst& in) {
  ValueId dst;
  bool upper;
  if (!plan_ttri(cpu_m_, in, dst, upper)) return fail(in);
  ttri(in, dst, upper);
}

}  // namespace ptoas::cg
