// The layer between the shared driver (lowering.h) and the CPU targets
// (x86, sve): what those two share beyond the walk. Values live in frame
// slots (cpu_frame.h), so copy_values is slot moves through the frame's
// temporaries; and a tile op is checked against the CPU targets' common
// rules (tile_plan.h: lane types, layouts, static shapes) before the
// target selects instructions, so each family hook receives its plan and
// only does instruction selection. A refused op never reaches the target.
#pragma once
#include "lowering.h"
#include "cpu_frame.h"
#include "tile_plan.h"

namespace ptoas::cg {

class CpuLowering : public Lowering {
 public:
  CpuLowering(const Module& m, const FramePlan& frame) : Lowering(m), cpu_m_(m), frame_(frame) {}

 protected:
  // One 8-byte move between frame slots.
  virtual void move_slot(uint32_t from, uint32_t to) = 0;
  // Slot k of v = imm.
  virtual void store_imm(ValueId v, unsigned k, int64_t imm) = 0;
  // Slot k of v = count clamped to [0, limit], a negative count giving
  // `limit` (alloc_tile's valid extents: negative means the whole tile).
  virtual void store_count(ValueId v, unsigned k, ValueId count, int32_t limit) = 0;

  // ---- views: the checks and slot moves here, the arithmetic there ----
  // res = the partition of src (rank dims): base + sum(offset_k * stride_k)
  // elements of es bytes; its shape the sizes, its strides src's.
  virtual void partition_view(const Inst& in, ValueId src, ValueId res, unsigned rank, unsigned es) = 0;
  virtual void add_ptr(const Inst& in, unsigned es) = 0;  // res = op0 + op1 * es bytes
  // Valid extent k (0 rows, 1 cols) of tile t = count clamped to
  // [0, limit], a negative count giving 0 (set_validshape).
  virtual void store_valid(ValueId t, unsigned k, ValueId count, int32_t limit) = 0;
  // res = rows [op1 ..] of row-major tile t from column op2: its address
  // (es-byte elements, `cols` a row) and static valid extents.
  virtual void subset(const Inst& in, ValueId t, unsigned es) = 0;
  // One GM element: in.res = p.ptr[p.idx] (load) or p.ptr[p.idx] = p.val.
  virtual void scalar_mem(const Inst& in, const ScalarMemPlan& p) = 0;
  virtual void store_combined(const Inst& in, const StoreCombinePlan& p) = 0;

  // ---- the families, with their plans ----
  virtual void elementwise(const Inst& in, const EltPlan& p) = 0;
  virtual void fused(const Inst& in, const FusedPlan& p) = 0;
  virtual void row_expand(const Inst& in, const ExpandPlan& p) = 0;
  virtual void col_expand(const Inst& in, const ExpandPlan& p) = 0;
  virtual void row_reduce(const Inst& in, ValueId src, ValueId dst) = 0;
  virtual void col_reduce(const Inst& in, ValueId src, ValueId dst) = 0;
  virtual void tcmp(const Inst& in, const CmpPlan& p) = 0;
  virtual void tsel(const Inst& in, const SelPlan& p) = 0;
  virtual void tcvt(const Inst& in, const CvtPlan& p) = 0;
  virtual void matmul(const Inst& in, const MatmulPlan& p) = 0;
  virtual void tmov(const Inst& in, ValueId src, ValueId dst) = 0;  // not src == dst
  virtual void twindow(const Inst& in, const WindowPlan& p) = 0;
  virtual void tci(const Inst& in, unsigned elem_bytes, bool descending) = 0;
  virtual void ttri(const Inst& in, ValueId dst, bool upper) = 0;
  virtual void tgather(const Inst& in, const GatherPlan& p) = 0;

 private:
  void copy_values(const std::vector<ValueId>& from, const std::vector<ValueId>& to) final;
  void view(const Inst& in) final;
  void alloc(const Inst& in, InstId id) final;
  void scalar_mem(const Inst& in) final;
  void tstore_combined(const Inst& in, ValueId t, ValueId v, bool relu, bool atomic) final;
  uint32_t slot(ValueId v, unsigned k = 0) const { return uint32_t(frame_.slots[v].first) + k; }
  void elementwise(const Inst& in) final;
  void fused(const Inst& in) final;
  void row_expand(const Inst& in) final;
  void col_expand(const Inst& in) final;
  void row_reduce(const Inst& in) final;
  void col_reduce(const Inst& in) final;
  void tcmp(const Inst& in) final;
  void tsel(const Inst& in) final;
  void tcvt(const Inst& in) final;
  void matmul(const Inst& in) final;
  void tmov(const Inst& in) final;
  void twindow(const Inst& in) final;
  void tci(const Inst& in) final;
  void ttri(const Inst& in) final;
  void tgather(const Inst& in) final;

  // A window subview: storage of its own (plan_frame's alloc_offset of the
  // subview); its copies (lowering.h) through twindow with the window's
  // valid extents set to its shape.
  bool window_view(const Inst& in) final;
  void copy_window(const Inst& at, ValueId w, const WindowPlan& p) final;

  const Module& cpu_m_;
  const FramePlan& frame_;
};

}  // namespace ptoas::cg
