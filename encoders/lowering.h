// The shared lowering driver (docs/architecture.md): one walk over a
// function's regions for every target. It lowers what is the same
// everywhere — the order of instructions, scf.for / scf.if / scf.while
// with their block arguments and yields (tiles included: a yield copies
// every part of the value, cpu_frame.h slot_copies), returns, the refusals of
// what no kernel may contain — and hands each piece to the target through
// the hooks below: structured (begin_for .. end_for), so a text target
// prints a loop where a machine target binds labels and branches.
//
// Tile ops are dispatched by family (tile_op): each family is one hook, so
// a target implements families, not a switch over ~80 ops.
#pragma once
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir.h"
#include "refusal.h"
#include "tile_plan.h"

namespace ptoas::cg {

class Lowering {
 public:
  explicit Lowering(const Module& m) : lower_m_(m) {}
  virtual ~Lowering() = default;
  Lowering(const Lowering&) = delete;
  Lowering& operator=(const Lowering&) = delete;

  // Lowers the instructions of r in order but a final scf.yield or
  // scf.condition, which it returns (kNone if r has none).
  InstId lower_region(const Region& r);
  void lower_inst(const Inst& in, InstId id);
  // The family hooks of tile op `in` (tile_op's switch).
  void tile_op(const Inst& in);

 protected:
  // ---- what every target provides ----
  // Called before anything else of an instruction: true when the target
  // lowered it itself (x86: the tloads and tstores folded into a tmatmul).
  virtual bool lower_special(const Inst&, InstId) { return false; }
  // The instruction lower_inst is lowering.
  InstId current_inst() const { return current_; }
  // The innermost scf.for whose body is being lowered (kNone: none).
  InstId innermost_for() const { return fors_.empty() ? kNone : fors_.back(); }

  // ---- subview windows (lowering_windows.cpp) ----
  // A pto.subview that is not a run of whole rows (subview_window) would
  // need its parent's row stride in every op. A target that gives such a
  // window storage of its own says so from window_view (its address and
  // valid extents; false: no storage, and view() reports the subview).
  // The driver then copies the whole window in from its parent before
  // each op that names it, or a tile made from it (a row run of it), and
  // back after each op that writes one, nested windows in order, so each
  // element mirrors the parent's as the interpreter's window does. A
  // pto.fuse region that names a window is lowered op by op; a window
  // carried through scf or reshaped is refused.
  virtual bool window_view(const Inst&) { return false; }
  // The whole of window w (its valid extents taken as its shape) copied by
  // p: textract's lowering from the parent, or tinsert's back to it.
  virtual void copy_window(const Inst& at, ValueId w, const WindowPlan& p) { (void)w, (void)p, fail(at); }
  // The code that follows belongs to `in` (line tables, size limits).
  virtual void mark(const Inst& in) = 0;
  // A located refusal: r.what is not supported on the target (empty: the
  // op and its element type), with r.code.
  virtual void fail(const Inst& in, const Refusal& r = {}) = 0;
  // to[k] = from[k] for all k at once (the sets may overlap).
  virtual void copy_values(const std::vector<ValueId>& from, const std::vector<ValueId>& to) = 0;
  // func.return; with operands only where returns_values() (a kernel
  // returns void; CCE's helper functions may return scalars).
  virtual void lower_return(const Inst& in) = 0;
  virtual bool returns_values() const { return false; }
  // scf.for %iv = op0 to op1 step op2: the body runs between begin_for and
  // end_for (iter_args are copied by the driver around them). A step <= 0
  // runs no iteration; an overflowing increment ends the loop.
  virtual void begin_for(const Inst& in, ValueId iv) = 0;
  virtual void end_for(const Inst& in, ValueId iv) = 0;
  // scf.if op0: then-region, else_if, the else-region if any, end_if.
  virtual void begin_if(const Inst& in) = 0;
  virtual void else_if(const Inst& in) = 0;
  virtual void end_if(const Inst& in) = 0;
  // scf.while: begin_while, the before-region, test_while (leave the loop
  // when cond's operand 0 is false; the forwarded values are already in the
  // results), the after-region, end_while (back to the top).
  virtual void begin_while(const Inst& in) = 0;
  virtual void test_while(const Inst& in, const Inst& cond) = 0;
  virtual void end_while(const Inst& in) = 0;
  // A pto.fuse region as one loop nest; false: the driver lowers its body
  // op by op.
  virtual bool fused_region(const Inst&) { return false; }
  virtual void scalar(const Inst& in) = 0;  // arith.*, block and subblock ids
  virtual void view(const Inst& in) = 0;    // tensor views, addptr, subset, set_validshape
  virtual void alloc(const Inst& in, InstId id) = 0;
  // pto.load_scalar / pto.store_scalar: one element of global memory
  // through a pointer (a target that does not lower them refuses them).
  virtual void scalar_mem(const Inst& in) { fail(in); }

  // ---- tile op families (tile_op) ----
  virtual void tcopy(const Inst& in, ValueId tile, ValueId view, bool load) = 0;  // tload, tstore
  // pto.tstore with reluPreMode = normal_relu (v > 0 ? v : 0) and / or
  // atomicType = atomic_add (GM += v).
  virtual void tstore_combined(const Inst& in, ValueId, ValueId, bool, bool) {
    fail(in, {RefusalCode::Attribute, "pto.tstore with atomic add or relu"});
  }
  virtual void row_reduce(const Inst& in) = 0;
  virtual void col_reduce(const Inst& in) = 0;
  virtual void tfillpad(const Inst& in) = 0;
  virtual void twindow(const Inst& in) = 0;  // textract, tinsert
  virtual void ttrans(const Inst& in) = 0;
  virtual void tconcat(const Inst& in) = 0;
  // dst names src's storage (same location and size, checked here).
  virtual void treshape(const Inst& in, ValueId src, ValueId dst) = 0;
  virtual void tcmp(const Inst& in) = 0;
  virtual void tsel(const Inst& in) = 0;
  virtual void fused(const Inst& in) = 0;  // taddc .. taxpy
  virtual void tcvt(const Inst& in) = 0;
  virtual void tmov(const Inst& in) = 0;
  virtual void ttri(const Inst& in) = 0;
  virtual void tci(const Inst& in) = 0;
  virtual void tgather(const Inst& in) { fail(in); }
  virtual void matmul(const Inst& in) = 0;
  virtual void row_expand(const Inst& in) = 0;
  virtual void col_expand(const Inst& in) = 0;
  virtual void elementwise(const Inst& in) = 0;  // binary, tile-scalar and unary ops

 private:
  void yield_to(InstId term, const std::vector<ValueId>& to);
  // copy_values, refused where a value names a window's copy.
  void carry(const Inst& at, const std::vector<ValueId>& from, const std::vector<ValueId>& to);
  // A subset or subview: a window (window_view), else the target's view()
  // (a row run, which names its parent's window if the parent is one).
  void tile_view(const Inst& in);
  ValueId window_of(ValueId v) const;
  void refresh_windows(const Inst& in);
  void write_back_windows(const Inst& in);
  void refresh(const Inst& at, ValueId w, std::unordered_set<ValueId>& done);
  void write_back(const Inst& at, ValueId w);
  bool names_window(const Region& r) const;
  const Module& lower_m_;
  InstId current_ = kNone;
  std::vector<InstId> fors_;
  std::unordered_map<ValueId, WindowPlan> windows_;  // a window -> the textract that refreshes it
  std::unordered_map<ValueId, ValueId> window_of_;   // a tile -> the window whose copy it names
};

}  // namespace ptoas::cg
