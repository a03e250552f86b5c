// Divergent control flow (docs/amdgpu_backend.md, "Divergence"): PTX
// branches per thread; GCN branches per wave. Lanes that must not run the
// next instructions leave EXEC and wait in the mask of a label after the
// current instruction; each such label (a wait label) adds its lanes back.
// When EXEC becomes empty the wave jumps to the next wait label in program
// order, so the lanes run in program order and meet at the first label
// they share.
#include "isel.h"

namespace ptoas::cg::amdgpu {

using ptx::Op;
using ptx::Opnd;

void Isel::plan_labels() {
  size_t n = e_.code.size();
  label_at_.assign(n + 1, -1);
  wait_label_.assign(n + 1, 0);
  wait_mask_.assign(n + 1, 0);
  landing_.assign(n + 1, -1);
  inits_.assign(n + 1, {});
  end_label_ = nlabels_++;
  auto target = [&](const ptx::Inst& in) { return uint32_t(e_.ops[in.op0].imm); };
  for (uint32_t i = 0; i < n; ++i) {
    const ptx::Inst& in = e_.code[i];
    if (in.op != Op::Bra) continue;
    uint32_t t = target(in);
    if (label_at_[t] < 0) label_at_[t] = nlabels_++;
    if (in.guard >= 0) wait_label_[t > i ? t : i + 1] = 1;
  }
  // An unguarded forward branch over a wait label leaves lanes waiting
  // behind it: its lanes wait too, so its target is a wait label. Each
  // new wait label may make another branch jump over one: to a fixed point.
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 0; i < n; ++i) {
      const ptx::Inst& in = e_.code[i];
      if (in.op != Op::Bra || in.guard >= 0) continue;
      uint32_t t = target(in);
      if (t <= i || wait_label_[t]) continue;
      for (uint32_t k = i + 1; k < t; ++k)
        if (wait_label_[k]) {
          wait_label_[t] = 1;
          changed = true;
          break;
        }
    }
  }
  // A wait label's mask is cleared where its lanes could first arrive: at
  // its first site, moved out of every loop that holds the site but not
  // the label (lanes collect there over the iterations). The clearing point
  // is a landing: the code jumps there when EXEC empties before it, so the
  // mask is cleared on every path (and holds an SGPR only in between).
  std::vector<uint32_t> first_site(n + 1, UINT32_MAX);
  std::vector<std::pair<uint32_t, uint32_t>> loops;
  for (uint32_t i = 0; i < n; ++i) {
    const ptx::Inst& in = e_.code[i];
    if (in.op != Op::Bra) continue;
    uint32_t t = target(in);
    if (t <= i) loops.push_back({t, i});
    uint32_t w = in.guard >= 0 ? (t > i ? t : i + 1) : (t > i && wait_label_[t] ? t : UINT32_MAX);
    if (w != UINT32_MAX) first_site[w] = std::min(first_site[w], i);
  }
  for (uint32_t l = 0; l <= n; ++l) {
    if (!wait_label_[l]) continue;
    if (label_at_[l] < 0) label_at_[l] = nlabels_++;
    wait_mask_[l] = mask();
    uint32_t p = first_site[l] == UINT32_MAX ? 0 : first_site[l];
    for (bool moved = true; moved;) {
      moved = false;
      for (const auto& [h, b] : loops)
        if (h <= p && p <= b && b < l && h < p) p = h, moved = true;
    }
    inits_[p].push_back(l);
    if (landing_[p] < 0) landing_[p] = nlabels_++;
  }
}

int32_t Isel::label_of(uint32_t idx) { return label_at_[idx]; }

// The label lanes go to when EXEC is empty after instruction idx (at
// position idx itself when `here`): the next landing or wait label.
int32_t Isel::next_stop(uint32_t idx, bool here) {
  for (uint32_t k = here ? idx : idx + 1; k < wait_label_.size(); ++k) {
    if (k > idx && landing_[k] >= 0) return landing_[k];
    if (wait_label_[k]) return label_at_[k];
  }
  return end_label_;
}

void Isel::skip_to_next_wait(uint32_t idx) { f_.code.back().label = next_stop(idx, false); }

void Isel::bind_label(uint32_t idx) {
  if (idx >= label_at_.size()) return;
  if (landing_[idx] >= 0) {
    MInst m;
    m.kind = MInst::Label;
    m.label = landing_[idx];
    f_.code.push_back(m);
    for (uint32_t l : inits_[idx]) I(mask_op("s_mov"), {D(wait_mask_[l]), T("0")});
    I("s_cbranch_execz", {});
    f_.code.back().label = next_stop(idx, true);
  }
  if (label_at_[idx] < 0) return;
  MInst m;
  m.kind = MInst::Label;
  m.label = label_at_[idx];
  f_.code.push_back(m);
  if (!wait_label_[idx]) return;
  uint32_t w = wait_mask_[idx];
  I(mask_op("s_or"), {T(exec()), T(exec()), U(w)});
  I("s_cbranch_execz", {});
  skip_to_next_wait(idx);
}

void Isel::branch(const ptx::Inst& in, uint32_t idx) {
  uint32_t t = uint32_t(e_.ops[in.op0].imm);
  auto jump = [&](const char* op, int32_t label) {
    I(op, {});
    f_.code.back().label = label;
  };
  if (in.guard < 0) {
    if (t > idx && wait_label_[t]) {
      bool between = false;
      for (uint32_t k = idx + 1; k < t; ++k) between |= wait_label_[k] != 0;
      if (between) {
        uint32_t w = wait_mask_[t];
        I(mask_op("s_or"), {DU(w), U(w), T(exec())});
        I(mask_op("s_mov"), {T(exec()), T("0")});
        I("s_branch", {});
        skip_to_next_wait(idx);
        return;
      }
    }
    jump("s_branch", label_of(t));
    return;
  }
  uint32_t p = pred(uint32_t(in.guard));
  bool neg = in.guard_neg;
  uint32_t tmp = mask();
  if (t > idx) {
    uint32_t w = wait_mask_[t];
    I(mask_op(neg ? "s_andn2" : "s_and"), {D(tmp), T(exec()), U(p)});
    I(mask_op("s_or"), {DU(w), U(w), U(tmp)});
    I(mask_op(neg ? "s_and" : "s_andn2"), {T(exec()), T(exec()), U(p)});
    I("s_cbranch_scc0", {});
    skip_to_next_wait(idx);
    return;
  }
  uint32_t w = wait_mask_[idx + 1];
  I(mask_op(neg ? "s_and" : "s_andn2"), {D(tmp), T(exec()), U(p)});
  I(mask_op("s_or"), {DU(w), U(w), U(tmp)});
  I(mask_op(neg ? "s_andn2" : "s_and"), {T(exec()), T(exec()), U(p)});
  jump("s_cbranch_scc1", label_of(t));
}

void Isel::ret(const ptx::Inst& in, uint32_t idx) {
  if (in.guard < 0) {
    I(mask_op("s_mov"), {T(exec()), T("0")});
    I("s_branch", {});
  } else {
    uint32_t p = pred(uint32_t(in.guard));
    I(mask_op(in.guard_neg ? "s_and" : "s_andn2"), {T(exec()), T(exec()), U(p)});
    I("s_cbranch_scc0", {});
  }
  skip_to_next_wait(idx);
}

}  // namespace ptoas::cg::amdgpu
