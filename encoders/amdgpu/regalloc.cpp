// Linear-scan register allocation (regalloc.h).
#include "regalloc.h"

#include <algorithm>
#include <unordered_map>

namespace ptoas::cg::amdgpu {

namespace {

struct Interval {
  uint32_t start = UINT32_MAX, end = 0;
  bool first_is_use = false;
};

struct Loop {
  uint32_t head, back;
};

}  // namespace

namespace {

// One attempt; on running out of SGPRs, `victim` is the lane mask live
// there that ends last (0: none can be spilled).
bool attempt(const Chip& chip, MFunc& f, std::string& why, uint32_t& victim) {
  victim = 0;
  size_t nv = f.regs.size();
  std::vector<Interval> iv(nv);
  std::unordered_map<int32_t, uint32_t> label_pos;
  for (uint32_t i = 0; i < f.code.size(); ++i) {
    const MInst& mi = f.code[i];
    if (mi.kind == MInst::Label) label_pos[mi.label] = i;
    for (const MOp& o : mi.ops) {
      if (o.kind != MOp::Reg) continue;
      Interval& x = iv[o.reg];
      if (x.start == UINT32_MAX) {
        x.start = i;
        x.first_is_use = o.use && !o.def;
      }
      x.end = i;
    }
  }
  std::vector<Loop> loops;
  for (uint32_t i = 0; i < f.code.size(); ++i) {
    const MInst& mi = f.code[i];
    if (mi.kind != MInst::Op || mi.label < 0) continue;
    auto it = label_pos.find(mi.label);
    if (it != label_pos.end() && it->second <= i) loops.push_back({it->second, i});
  }
  // Widen to a fixed point: a widened interval may now cross another loop.
  for (bool changed = true; changed;) {
    changed = false;
    for (const Loop& l : loops) {
      for (size_t r = 1; r < nv; ++r) {
        Interval& x = iv[r];
        if (x.start == UINT32_MAX || x.end < l.head || x.start > l.back) continue;
        bool inside = x.start >= l.head && x.end <= l.back;
        if (inside && !x.first_is_use) continue;
        uint32_t s = std::min(x.start, l.head), e = std::max(x.end, l.back);
        if (s != x.start || e != x.end) {
          x.start = s, x.end = e;
          changed = true;
        }
      }
    }
  }
  // Allocation in order of start; a register file as a table of the
  // position where each physical register becomes free.
  std::vector<uint32_t> order;
  for (uint32_t r = 1; r < nv; ++r)
    if (iv[r].start != UINT32_MAX) order.push_back(r);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return iv[a].start < iv[b].start; });
  std::vector<int64_t> busy_v(chip.max_vgprs, -1), busy_s(chip.max_sgprs, -1);
  for (unsigned k = 0; k < f.reserved_v && k < busy_v.size(); ++k) busy_v[k] = INT64_MAX;
  for (unsigned k = 0; k < f.reserved_s && k < busy_s.size(); ++k) busy_s[k] = INT64_MAX;
  for (unsigned k = 0; k < f.reserved_top_s && k < busy_s.size(); ++k) busy_s[busy_s.size() - 1 - k] = INT64_MAX;
  f.used_v = f.reserved_v;
  f.used_s = f.reserved_s;
  for (uint32_t r : order) {
    VReg& vr = f.regs[r];
    std::vector<int64_t>& busy = vr.file == RegFile::V ? busy_v : busy_s;
    unsigned n = vr.dwords, align = n == 1 ? 1 : (vr.file == RegFile::S && n == 4) ? 4 : 2;
    int found = -1;
    for (unsigned p = 0; p + n <= busy.size() && found < 0; p += align) {
      bool ok = true;
      for (unsigned k = 0; k < n && ok; ++k) ok = busy[p + k] < int64_t(iv[r].start);
      if (ok) found = int(p);
    }
    if (found < 0 && vr.file == RegFile::S) {
      // Spill the mask live here that is needed longest: it moves to a VGPR.
      unsigned mask_dwords = chip.wave / 32;
      auto spillable = [&](uint32_t x) {
        return f.regs[x].file == RegFile::S && f.regs[x].dwords == mask_dwords && !f.regs[x].no_spill;
      };
      uint32_t best = spillable(r) ? r : 0;
      for (uint32_t x : order) {
        if (f.regs[x].phys < 0 || !spillable(x) || iv[x].end < iv[r].start) continue;
        if (!best || iv[x].end > iv[best].end) best = x;
      }
      victim = best;
    }
    if (found < 0) {
      why = std::string("needs more ") + (vr.file == RegFile::V ? "VGPRs" : "SGPRs") + " than " +
            std::string(chip.name) + " gives a wave (" +
            std::to_string(vr.file == RegFile::V ? chip.max_vgprs : chip.max_sgprs) + "); spilling is not implemented";
      return false;
    }
    vr.phys = found;
    for (unsigned k = 0; k < n; ++k) busy[found + k] = iv[r].end;
    unsigned top = unsigned(found) + n;
    if (vr.file == RegFile::V) f.used_v = std::max(f.used_v, top);
    else f.used_s = std::max(f.used_s, top);
  }
  return true;
}

// Moves mask v to the lanes of a VGPR (0 or 1 each): read back into a
// fresh mask before each use, written after each def, both with every lane
// on (EXEC saved around), so the mask keeps every lane's bit whatever EXEC
// is at the time.
void spill_mask(const Chip& chip, MFunc& f, uint32_t v) {
  bool w64 = chip.wave == 64;
  const char* mov = w64 ? "s_mov_b64" : "s_mov_b32";
  const char* exec = w64 ? "exec" : "exec_lo";
  auto sreg = [&]() {
    f.regs.push_back({RegFile::S, uint8_t(w64 ? 2 : 1), -1, true});
    return uint32_t(f.regs.size() - 1);
  };
  f.regs.push_back({RegFile::V, 1, -1});
  uint32_t lanes = uint32_t(f.regs.size() - 1);
  auto reg = [](uint32_t r, bool use, bool def) {
    MOp o;
    o.kind = MOp::Reg;
    o.reg = r;
    o.use = use;
    o.def = def;
    return o;
  };
  auto text = [](const char* t) {
    MOp o;
    o.text = t;
    return o;
  };
  auto op = [](const char* name, std::vector<MOp> ops) {
    MInst m;
    m.op = name;
    m.ops = std::move(ops);
    return m;
  };
  std::vector<MInst> out;
  out.reserve(f.code.size() + 64);
  for (MInst& mi : f.code) {
    bool use = false, def = false;
    for (const MOp& o : mi.ops)
      if (o.kind == MOp::Reg && o.reg == v) use |= o.use, def |= o.def;
    if (!use && !def) {
      out.push_back(std::move(mi));
      continue;
    }
    uint32_t t = sreg();
    if (use) {
      uint32_t e = sreg();
      out.push_back(op(mov, {reg(e, false, true), text(exec)}));
      out.push_back(op(mov, {text(exec), text("-1")}));
      out.push_back(op("v_cmp_ne_u32_e64", {reg(t, false, true), text("0"), reg(lanes, true, false)}));
      out.push_back(op(mov, {text(exec), reg(e, true, false)}));
    }
    for (MOp& o : mi.ops)
      if (o.kind == MOp::Reg && o.reg == v) o.reg = t;
    out.push_back(std::move(mi));
    if (def) {
      uint32_t e = sreg();
      out.push_back(op(mov, {reg(e, false, true), text(exec)}));
      out.push_back(op(mov, {text(exec), text("-1")}));
      out.push_back(op("v_cndmask_b32_e64", {reg(lanes, false, true), text("0"), text("1"), reg(t, true, false)}));
      out.push_back(op(mov, {text(exec), reg(e, true, false)}));
    }
  }
  f.code = std::move(out);
}

}  // namespace

bool allocate_registers(const Chip& chip, MFunc& f, std::string& why) {
  for (int k = 0; k < 400; ++k) {
    uint32_t victim = 0;
    for (VReg& r : f.regs) r.phys = -1;
    if (attempt(chip, f, why, victim)) return true;
    if (!victim) return false;
    spill_mask(chip, f, victim);
  }
  return false;
}

}  // namespace ptoas::cg::amdgpu
