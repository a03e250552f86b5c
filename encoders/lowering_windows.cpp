// The shared driver's subview windows (lowering.h): copies of a parent's
// columns kept in step with the parent around each tile op.
#include "lowering.h"

#include "tile_plan.h"

namespace ptoas::cg {

void Lowering::tile_view(const Inst& in) {
  if (WindowPlan p; subview_window(lower_m_, in, p) && window_view(in)) {
    windows_[in.res] = p;
    window_of_[in.res] = in.res;
    return;
  }
  view(in);
  if (ValueId w = window_of(lower_m_.operand(in, 0)); w != kNone && in.n_res == 1) window_of_[in.res] = w;
}

ValueId Lowering::window_of(ValueId v) const {
  auto i = window_of_.find(v);
  return i == window_of_.end() ? kNone : i->second;
}

void Lowering::carry(const Inst& at, const std::vector<ValueId>& from, const std::vector<ValueId>& to) {
  for (const std::vector<ValueId>* vs : {&from, &to})
    for (ValueId v : *vs)
      if (window_of(v) != kNone)
        return fail(at, {RefusalCode::Control, "a pto.subview window (not whole rows) passed through scf"});
  copy_values(from, to);
}

void Lowering::refresh(const Inst& at, ValueId w, std::unordered_set<ValueId>& done) {
  if (!done.insert(w).second) return;
  const WindowPlan& p = windows_.at(w);
  if (ValueId up = window_of(p.src); up != kNone) refresh(at, up, done);
  copy_window(at, w, p);
}

void Lowering::write_back(const Inst& at, ValueId w) {
  WindowPlan p = windows_.at(w);
  p.ext = false;
  std::swap(p.src, p.dst);
  copy_window(at, w, p);
  if (ValueId up = window_of(p.dst); up != kNone) write_back(at, up);
}

void Lowering::refresh_windows(const Inst& in) {
  if (windows_.empty()) return;
  std::unordered_set<ValueId> done;
  for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k) {
    ValueId w = window_of(lower_m_.operand(in, k));
    if (w == kNone) continue;
    // A tile that names a window's storage from then on would miss the
    // copies.
    if (in.op == Op::TReshape)
      return fail(in, {RefusalCode::Shape, "pto.treshape of a pto.subview window (not whole rows)"});
    refresh(in, w, done);
  }
}

void Lowering::write_back_windows(const Inst& in) {
  if (windows_.empty()) return;
  std::unordered_set<ValueId> done;
  for (unsigned k = in.n_ins; k < unsigned(in.n_ins + in.n_outs); ++k) {
    ValueId w = window_of(lower_m_.operand(in, k));
    if (w != kNone && done.insert(w).second) write_back(in, w);
  }
}

// A fused loop addresses its tiles itself: a region with a subview, or one
// that names a window, is lowered op by op (with the copies).
bool Lowering::names_window(const Region& r) const {
  for (unsigned i = 0; i < r.inst_count; ++i) {
    const Inst& in = lower_m_.inst(lower_m_.region_inst(r, i));
    if (in.op == Op::Subview) return true;
    for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k)
      if (window_of(lower_m_.operand(in, k)) != kNone) return true;
    for (unsigned k = 0; k < in.n_regions; ++k)
      if (names_window(lower_m_.region(in, k))) return true;
  }
  return false;
}

}  // namespace ptoas::cg
