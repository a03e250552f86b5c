// Long branches (branch_relax.h).
#include "branch_relax.h"

#include <algorithm>
#include <cstdint>

namespace ptoas::cg::amdgpu {

namespace {

int64_t max_bytes(const MInst& mi) {
  if (mi.kind != MInst::Op) return 0;
  if (mi.op == "s_nop" || starts(mi.op, "s_waitcnt") || mi.op == "s_barrier" || mi.op == "s_endpgm") return 4;
  return starts(mi.op, "s_") ? 8 : 12;
}

bool is_branch(const MInst& mi) { return mi.kind == MInst::Op && mi.label >= 0 && starts(mi.op, "s_"); }

const char* inverse(const std::string& op) {
  static const char* const kPairs[][2] = {{"s_cbranch_scc0", "s_cbranch_scc1"},
                                          {"s_cbranch_vccz", "s_cbranch_vccnz"},
                                          {"s_cbranch_execz", "s_cbranch_execnz"}};
  for (const auto& p : kPairs) {
    if (op == p[0]) return p[1];
    if (op == p[1]) return p[0];
  }
  return nullptr;
}

}  // namespace

bool relax_branches(const Chip& chip, MFunc& f, const std::string& label_prefix, std::string& why) {
  // Short reach: 32767 dwords past the next instruction, less a margin.
  constexpr int64_t kReach = 32767 * 4 - 64;
  std::vector<uint8_t> is_long(f.code.size(), 0);
  bool any = false;
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<int64_t> at(f.code.size() + 1, 0);
    std::vector<int64_t> label_at;
    for (size_t i = 0; i < f.code.size(); ++i) {
      const MInst& mi = f.code[i];
      // A long branch: getpc, add, addc, setpc (8 + 12 + 12 + 4), and a
      // conditional one's inverted branch (4).
      at[i + 1] = at[i] + (is_long[i] ? 40 : max_bytes(mi));
      if (mi.kind == MInst::Label) {
        if (size_t(mi.label) >= label_at.size()) label_at.resize(size_t(mi.label) + 1, -1);
        label_at[size_t(mi.label)] = at[i];
      }
    }
    for (size_t i = 0; i < f.code.size(); ++i) {
      if (is_long[i] || !is_branch(f.code[i])) continue;
      size_t l = size_t(f.code[i].label);
      if (l >= label_at.size() || label_at[l] < 0) continue;
      if (std::abs(label_at[l] - at[i + 1]) > kReach) is_long[i] = 1, changed = any = true;
    }
  }
  if (!any) return true;
  unsigned pair = (f.used_s + 1) & ~1u;
  if (pair + 2 > chip.max_sgprs) {
    if (f.reserved_top_s < 2) {
      why = "no SGPR pair";  // the caller allocates again with the top pair kept free
      return false;
    }
    pair = (chip.max_sgprs - 2) & ~1u;
  }
  f.used_s = std::max(f.used_s, pair + 2);
  int32_t next_label = 0;
  for (const MInst& mi : f.code)
    if (mi.kind == MInst::Label || mi.label >= 0) next_label = std::max(next_label, mi.label + 1);
  auto name = [&](int32_t l) { return label_name(label_prefix, l); };
  auto text = [](const std::string& t) {
    MOp o;
    o.text = t;
    return o;
  };
  const std::string lo = "s" + std::to_string(pair), hi = "s" + std::to_string(pair + 1),
                    both = "s[" + std::to_string(pair) + ":" + std::to_string(pair + 1) + "]";
  std::vector<MInst> out;
  out.reserve(f.code.size() + 8);
  for (size_t i = 0; i < f.code.size(); ++i) {
    MInst mi = f.code[i];
    if (!is_long[i]) {
      out.push_back(std::move(mi));
      continue;
    }
    int32_t skip = -1;
    if (mi.op != "s_branch") {
      const char* inv = inverse(mi.op);
      if (!inv) {
        why = "has a far " + mi.op + " (no inverse for a long branch)";
        return false;
      }
      skip = next_label++;
      MInst b;
      b.op = inv;
      b.label = skip;
      out.push_back(b);
    }
    int32_t post = next_label++;
    MInst g;
    g.op = "s_getpc_b64";
    g.ops = {text(both)};
    out.push_back(g);
    MInst pl;
    pl.kind = MInst::Label;
    pl.label = post;
    out.push_back(pl);
    std::string delta = "(" + name(mi.label) + "-" + name(post) + ")";
    MInst a;
    a.op = "s_add_u32";
    a.ops = {text(lo), text(lo), text(delta + "&4294967295")};
    out.push_back(a);
    MInst c;
    c.op = "s_addc_u32";
    c.ops = {text(hi), text(hi), text(delta + ">>32")};
    out.push_back(c);
    MInst s;
    s.op = "s_setpc_b64";
    s.ops = {text(both)};
    out.push_back(s);
    if (skip >= 0) {
      MInst sl;
      sl.kind = MInst::Label;
      sl.label = skip;
      out.push_back(sl);
    }
  }
  f.code = std::move(out);
  return true;
}

}  // namespace ptoas::cg::amdgpu
