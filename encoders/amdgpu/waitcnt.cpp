// s_waitcnt and hazard insertion (waitcnt.h).
#include "waitcnt.h"

#include <algorithm>

namespace ptoas::cg::amdgpu {

namespace {

// A register range an operand names: file 'v' or 's' (vcc is s106:107,
// exec apart), first index, count.
struct Range {
  char file = 0;
  int first = 0, count = 0;
};

constexpr int kVcc = 106;

Range range_of(const MFunc& f, const MOp& o) {
  if (o.kind == MOp::Reg) {
    const VReg& r = f.regs[o.reg];
    Range x{r.file == RegFile::V ? 'v' : 's', r.phys, r.dwords};
    if (o.part != 0xff) x.first += o.part, x.count = 1;
    return x;
  }
  const std::string& t = o.text;
  if (t == "vcc") return {'s', kVcc, 2};
  if (t == "vcc_lo") return {'s', kVcc, 1};
  if (t.size() >= 2 && (t[0] == 'v' || t[0] == 's')) {
    if (t[1] == '[') {
      int a = 0, b = 0;
      if (std::sscanf(t.c_str() + 2, "%d:%d", &a, &b) == 2) return {t[0], a, b - a + 1};
    } else if (t[1] >= '0' && t[1] <= '9') {
      return {t[0], std::atoi(t.c_str() + 1), 1};
    }
  }
  return {};
}

// Which operands an instruction writes: the first (a destination) and,
// for the carry-out ops, the second.
bool writes(const MInst& mi, size_t k) {
  if (mi.ops.empty()) return false;
  const std::string& op = mi.op;
  if (starts(op, "global_store") || starts(op, "ds_write") || starts(op, "ds_store") || starts(op, "s_cmp") ||
      starts(op, "s_cbranch") || starts(op, "s_branch") || op == "s_waitcnt_vscnt")
    return false;
  if (starts(op, "global_atomic")) return k == 0 && vmem_returns(mi);
  if (k == 0) return true;
  bool carry = starts(op, "v_add_co") || starts(op, "v_sub_co") || starts(op, "v_addc_co") ||
               starts(op, "v_subb_co") || starts(op, "v_mad_u64") || starts(op, "v_mad_i64");
  return carry && k == 1;
}

struct Pend {
  char counter = 0;  // 'v' vmcnt, 'l' lgkmcnt (LDS), 'm' lgkmcnt (SMEM)
  uint32_t seq = 0;
};

}  // namespace

bool is_valu(const std::string& op) { return starts(op, "v_"); }
bool is_trans(const std::string& op) {
  static const char* const kTrans[] = {"v_exp_f32", "v_log_f32", "v_rcp_f32", "v_rcp_iflag_f32", "v_rsq_f32",
                                       "v_sqrt_f32", "v_rcp_f64", "v_rsq_f64", "v_sqrt_f64"};
  for (const char* t : kTrans)
    if (op == t) return true;
  return false;
}
bool is_dpp(const std::string& op) { return op.size() > 4 && op.compare(op.size() - 4, 4, "_dpp") == 0; }
bool is_vmem(const std::string& op) { return starts(op, "global_"); }
bool is_mfma(const std::string& op) { return starts(op, "v_mfma"); }
bool is_wmma(const std::string& op) { return starts(op, "v_wmma"); }
bool is_lds(const std::string& op) { return starts(op, "ds_"); }
bool is_smem(const std::string& op) { return starts(op, "s_load"); }
bool vmem_returns(const MInst& mi) {
  return starts(mi.op, "global_load") ||
         (starts(mi.op, "global_atomic") &&
          (mi.tail.find("glc") != std::string::npos || mi.tail.find("sc0") != std::string::npos));
}

void insert_waits(const Chip& chip, MFunc& f) {
  bool gfx11 = chip.gen >= 11;
  unsigned max_vm = 63, max_lgkm = gfx11 ? 63 : 15;
  std::vector<MInst> out;
  out.reserve(f.code.size() + f.code.size() / 4);
  std::vector<Pend> pv(512), ps(128);
  uint32_t vm_issued = 0, vm_done = 0, lgkm_issued = 0, lgkm_done = 0, smem_pending = 0;
  // Hazard history: the wait-state position of the last VALU write of each
  // SGPR, of each VGPR by a TRANS op, and of big stores' data VGPRs.
  int64_t pos = 0;
  std::vector<int64_t> valu_sgpr(128, -100), trans_vgpr(512, -100), store_vgpr(512, -100);
  std::vector<int> trans_valus_since(512, 100);
  std::vector<int64_t> valu_vgpr(512, -100);  // gfx9 DPP and MFMA reads (VALU other than MFMA)
  int64_t label_pos = -100;
  // gfx9 MFMA: the last MFMA write of each VGPR with the range it wrote,
  // and the last MFMA read as C; gfx11: the last WMMA's D while no other
  // VALU has run since.
  const bool gfx9 = chip.gen == 9;
  const MfmaDistances md = mfma_distances(chip);
  std::vector<int64_t> mfma_def(512, -100), mfma_c(512, -100);
  std::vector<std::pair<int, int>> mfma_dst(512, {-1, 0});
  Range wmma_d{};
  bool wmma_last = false;
  auto emit = [&](MInst mi) {
    if (mi.kind == MInst::Op) pos += mi.op == "s_nop" ? std::atoi(mi.ops.empty() ? "0" : mi.ops[0].text.c_str()) + 1 : 1;
    out.push_back(std::move(mi));
  };
  auto nop = [&](int states) {
    while (states > 0) {
      int n = std::min(states, 8);
      MInst mi;
      mi.op = "s_nop";
      mi.ops.push_back(MOp{MOp::Text, false, false, 0xff, 0, 0, std::to_string(n - 1)});
      emit(mi);
      states -= n;
    }
  };
  auto wait = [&](int vm, int lgkm) {
    std::string t;
    if (vm >= 0) t += "vmcnt(" + std::to_string(std::min<int>(vm, int(max_vm))) + ")";
    if (lgkm >= 0) t += std::string(t.empty() ? "" : " ") + "lgkmcnt(" + std::to_string(std::min<int>(lgkm, int(max_lgkm))) + ")";
    MInst mi;
    mi.op = "s_waitcnt";
    mi.tail = t;
    emit(mi);
  };
  auto clear = [&](bool vm, bool lgkm) {
    for (Pend& p : pv)
      if ((vm && p.counter == 'v') || (lgkm && p.counter != 'v')) p = {};
    for (Pend& p : ps)
      if ((vm && p.counter == 'v') || (lgkm && p.counter != 'v')) p = {};
    if (vm) vm_done = vm_issued;
    if (lgkm) lgkm_done = lgkm_issued, smem_pending = 0;
  };
  auto drain = [&]() {
    bool vm = vm_done < vm_issued, lg = lgkm_done < lgkm_issued;
    if (vm || lg) wait(vm ? 0 : -1, lg ? 0 : -1);
    clear(true, true);
  };
  for (MInst& mi : f.code) {
    if (mi.kind != MInst::Op) {
      if (mi.kind == MInst::Label) drain(), label_pos = pos;
      out.push_back(mi);
      continue;
    }
    const std::string& op = mi.op;
    if (op == "s_waitcnt") {
      // A wait the selector asked for (before s_barrier): only for what is
      // outstanding.
      bool vm = mi.tail.find("vmcnt(0)") != std::string::npos && vm_done < vm_issued;
      bool lg = mi.tail.find("lgkmcnt(0)") != std::string::npos && lgkm_done < lgkm_issued;
      if (vm || lg) wait(vm ? 0 : -1, lg ? 0 : -1);
      clear(vm, lg);
      continue;
    }
    if (starts(op, "s_branch") || starts(op, "s_cbranch")) {
      // Nothing outstanding and no hazard window open across a branch: the
      // target's code is checked as if it followed the branch's own past.
      drain();
      int need = 0;
      for (int i = 0; i < 128; ++i)
        if (chip.gfx940) need = std::max<int>(need, int(2 - (pos - valu_sgpr[i] - 1)));
      for (int i = 0; i < 512; ++i) {
        if (gfx9) need = std::max<int>(need, int(std::max(md.result - (pos - mfma_def[i] - 1), md.war - (pos - mfma_c[i] - 1))));
        if (chip.gfx940) need = std::max<int>(need, int(1 - (pos - trans_vgpr[i] - 1)));
        if (chip.gen == 9) need = std::max<int>(need, int((chip.gfx940 ? 2 : 1) - (pos - store_vgpr[i] - 1)));
      }
      if (need > 0) nop(need);
      if (gfx11 && std::any_of(trans_valus_since.begin(), trans_valus_since.end(), [](int n) { return n < 5; })) {
        MInst d;
        d.op = "s_waitcnt_depctr";
        d.ops.push_back(MOp{MOp::Text, false, false, 0xff, 0, 0, "0xfff"});
        emit(d);
        std::fill(trans_valus_since.begin(), trans_valus_since.end(), 100);
      }
    }
    // Waits for the loads whose results this reads or overwrites.
    int need_vm = -1, need_lgkm = -1;
    for (size_t k = 0; k < mi.ops.size(); ++k) {
      Range r = range_of(f, mi.ops[k]);
      if (!r.file) continue;
      std::vector<Pend>& tab = r.file == 'v' ? pv : ps;
      for (int i = r.first; i < r.first + r.count && i < int(tab.size()); ++i) {
        const Pend& p = tab[i];
        if (p.counter == 'v' && p.seq >= vm_done) need_vm = std::max(need_vm, int(p.seq));
        if ((p.counter == 'l' || p.counter == 'm') && p.seq >= lgkm_done) need_lgkm = std::max(need_lgkm, int(p.seq));
      }
    }
    if (need_vm >= 0 || need_lgkm >= 0) {
      int vmc = need_vm >= 0 ? int(vm_issued) - need_vm - 1 : -1;
      int lgc = need_lgkm >= 0 ? (smem_pending ? 0 : int(lgkm_issued) - need_lgkm - 1) : -1;
      wait(vmc, lgc);
      if (need_vm >= 0) {
        vm_done = uint32_t(need_vm) + 1;
        for (Pend& p : pv)
          if (p.counter == 'v' && p.seq < vm_done) p = {};
        for (Pend& p : ps)
          if (p.counter == 'v' && p.seq < vm_done) p = {};
      }
      if (need_lgkm >= 0) {
        if (smem_pending) clear(false, true);
        lgkm_done = std::max(lgkm_done, uint32_t(need_lgkm) + 1);
        for (Pend& p : pv)
          if ((p.counter == 'l') && p.seq < lgkm_done) p = {};
      }
    }
    // MFMA distances (gfx9), for VALU and memory instructions alike.
    if (gfx9 && (is_valu(op) || is_vmem(op) || is_lds(op))) {
      int states = 0;
      const bool mfma = is_mfma(op);
      for (size_t k = 0; k < mi.ops.size(); ++k) {
        Range r = range_of(f, mi.ops[k]);
        if (r.file != 'v') continue;
        bool w = writes(mi, k);
        for (int i = r.first; i < r.first + r.count && i < 512; ++i) {
          int since = int(pos - mfma_def[i] - 1);
          if (mfma && k == 3) {  // C: the same range as the MFMA that wrote it chains at once
            bool same = mfma_dst[i].first == r.first && mfma_dst[i].second == r.count;
            if (!same) states = std::max(states, md.srcc - since);
            states = std::max(states, md.valu - int(pos - valu_vgpr[i] - 1));
          } else if (mfma && !w) {
            states = std::max(states, std::max(md.result - since, md.valu - int(pos - valu_vgpr[i] - 1)));
          } else if (!mfma) {
            states = std::max(states, md.result - since);  // a read, or a write after the MFMA's
            if (w) states = std::max(states, md.war - int(pos - mfma_c[i] - 1));
          }
        }
      }
      if (states > 0) nop(states);
    }
    // gfx11: a WMMA whose A or B is the previous WMMA's D needs a VALU between.
    if (gfx11 && is_wmma(op) && wmma_last) {
      bool overlap = false;
      for (size_t k = 1; k <= 2 && k < mi.ops.size(); ++k) {
        Range r = range_of(f, mi.ops[k]);
        overlap |= r.file == 'v' && r.first < wmma_d.first + wmma_d.count && wmma_d.first < r.first + r.count;
      }
      if (overlap) {
        MInst v;
        v.op = "v_nop";
        emit(v);
        wmma_last = false;
      }
    }
    // Hazards.
    if (is_valu(op)) {
      int states = 0;
      bool depctr = false;
      for (size_t k = 0; k < mi.ops.size(); ++k) {
        Range r = range_of(f, mi.ops[k]);
        if (!r.file) continue;
        bool w = writes(mi, k);
        for (int i = r.first; i < r.first + r.count; ++i) {
          if (r.file == 's' && !w && chip.gfx940 && i < 128)
            states = std::max<int>(states, int(2 - (pos - valu_sgpr[i] - 1)));
          if (r.file == 'v' && !w && !is_trans(op) && i < 512) {
            if (chip.gfx940) states = std::max<int>(states, int(1 - (pos - trans_vgpr[i] - 1)));
            if (gfx11 && trans_valus_since[i] < 5) depctr = true;
          }
          if (r.file == 'v' && w && chip.gen == 9 && i < 512)
            states = std::max<int>(states, int((chip.gfx940 ? 2 : 1) - (pos - store_vgpr[i] - 1)));
          if (r.file == 'v' && !w && chip.gen == 9 && is_dpp(op) && i < 512)
            states = std::max<int>(states, int(kDppAfterValu - (pos - std::max(valu_vgpr[i], label_pos - 1) - 1)));
        }
      }
      if (states > 0) nop(states);
      if (depctr) {
        MInst d;
        d.op = "s_waitcnt_depctr";
        d.ops.push_back(MOp{MOp::Text, false, false, 0xff, 0, 0, "0xfff"});
        emit(d);
        std::fill(trans_valus_since.begin(), trans_valus_since.end(), 100);
      }
    }
    // The instruction, then what it leaves pending.
    MInst done = mi;
    emit(std::move(done));
    int64_t at = pos - 1;
    if (is_valu(op))
      for (int& n : trans_valus_since) n = std::min(n + 1, 100);
    if (is_wmma(op)) wmma_d = range_of(f, mi.ops[0]), wmma_last = true;
    else if (is_valu(op)) wmma_last = false;
    for (size_t k = 0; k < mi.ops.size(); ++k) {
      Range r = range_of(f, mi.ops[k]);
      if (!r.file) continue;
      bool w = writes(mi, k);
      for (int i = r.first; i < r.first + r.count; ++i) {
        if (w && is_valu(op) && r.file == 's' && i < 128) valu_sgpr[i] = at;
        if (w && is_valu(op) && !is_mfma(op) && r.file == 'v' && i < 512) valu_vgpr[i] = at;
        if (is_mfma(op) && r.file == 'v' && i < 512) {
          if (w) mfma_def[i] = at, mfma_dst[i] = {r.first, r.count};
          else if (k == 3) mfma_c[i] = at;
        }
        if (w && is_trans(op) && r.file == 'v' && i < 512) trans_vgpr[i] = at, trans_valus_since[i] = 0;
        if (!w && r.file == 'v' && i < 512 && k == 1 && starts(op, "global_store") &&
            (op.find("x4") != std::string::npos || op.find("b128") != std::string::npos || op.find("x3") != std::string::npos))
          store_vgpr[i] = at;
      }
    }
    Pend p{};
    if (is_vmem(op) && (vmem_returns(mi) || !gfx11)) p = {'v', vm_issued++};
    else if (is_lds(op)) p = {'l', lgkm_issued++};
    else if (is_smem(op)) p = {'m', lgkm_issued++}, ++smem_pending;
    if (p.counter && !mi.ops.empty() && writes(mi, 0)) {
      Range r = range_of(f, mi.ops[0]);
      std::vector<Pend>& tab = r.file == 'v' ? pv : ps;
      for (int i = r.first; i < r.first + r.count && i < int(tab.size()); ++i) tab[i] = p;
    }
  }
  f.code = std::move(out);
}

}  // namespace ptoas::cg::amdgpu
