// The static checker (hazard_check.h). It reads the assembler text, not
// the machine IR the wait pass worked on, and shares with that pass only
// the classification of mnemonics (waitcnt.h): the distances and counters
// are derived again here.
#include "hazard_check.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <sstream>

#include "waitcnt.h"

namespace ptoas::cg::amdgpu {

namespace {

struct Reg {
  char file = 0;  // 'v' or 's' (vcc: s106..107)
  int first = 0, count = 0;
};

Reg parse_reg(std::string t) {
  while (!t.empty() && (t[0] == '-' || t[0] == '|')) t.erase(0, 1);
  while (!t.empty() && t.back() == '|') t.pop_back();
  if (t == "vcc") return {'s', 106, 2};
  if (t == "vcc_lo") return {'s', 106, 1};
  if (t.size() < 2 || (t[0] != 'v' && t[0] != 's')) return {};
  if (t[1] == '[') {
    int a = 0, b = 0;
    if (std::sscanf(t.c_str() + 2, "%d:%d", &a, &b) == 2 && b >= a) return {t[0], a, b - a + 1};
    return {};
  }
  for (size_t i = 1; i < t.size(); ++i)
    if (t[i] < '0' || t[i] > '9') return {};
  return {t[0], std::atoi(t.c_str() + 1), 1};
}

struct Line {
  std::string op, tail;
  std::vector<std::string> ops;
  bool label = false;
  unsigned no = 0;
};

bool parse_line(const std::string& raw, unsigned no, Line& l) {
  size_t b = raw.find_first_not_of(' ');
  if (b == std::string::npos) return false;
  std::string s = raw.substr(b);
  l.no = no;
  if (s[0] == '.') {
    l.label = s.back() == ':';
    return l.label;
  }
  size_t sp = s.find(' ');
  l.op = s.substr(0, sp);
  if (sp == std::string::npos) return true;
  std::string rest = s.substr(sp + 1);
  // Operands are comma-separated; a DPP quad_perm:[a,b,c,d] is one item.
  std::vector<std::string> items(1);
  int depth = 0;
  for (char c : rest) {
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (c == ',' && depth == 0) items.emplace_back();
    else items.back() += c;
  }
  for (std::string item : items) {
    size_t f = item.find_first_not_of(' ');
    item = f == std::string::npos ? "" : item.substr(f);
    size_t tsp = item.find(' ');
    if (tsp != std::string::npos) {
      l.tail += item.substr(tsp + 1);
      item.resize(tsp);
    }
    l.ops.push_back(item);
  }
  if (l.op == "s_waitcnt") l.tail = rest;
  return true;
}

bool is_def(const Line& l, size_t k) {
  const std::string& op = l.op;
  static const char* const kNoDef[] = {"global_store", "ds_write", "ds_store", "s_cmp", "s_cbranch", "s_branch",
                                       "s_waitcnt", "s_barrier", "s_nop", "s_endpgm", "s_sendmsg", "s_setpc"};
  for (const char* p : kNoDef)
    if (starts(op, p)) return false;
  if (starts(op, "global_atomic"))
    return k == 0 && (l.tail.find("glc") != std::string::npos || l.tail.find("sc0") != std::string::npos);
  if (k == 0) return true;
  return k == 1 && (starts(op, "v_add_co") || starts(op, "v_sub_co") || starts(op, "v_addc") ||
                    starts(op, "v_subb") || starts(op, "v_mad_u64") || starts(op, "v_mad_i64"));
}

struct Outstanding {
  char counter;  // 'v' vmcnt, 's' vscnt, 'l' LDS, 'm' SMEM
  Reg dst;
  unsigned line;
};

int count_arg(const std::string& tail, const char* name) {
  size_t p = tail.find(name);
  if (p == std::string::npos) return -1;
  return std::atoi(tail.c_str() + p + std::strlen(name) + 1);
}

bool overlaps(const Reg& a, int file, int idx) { return a.file == file && idx >= a.first && idx < a.first + a.count; }

}  // namespace

bool check_hazards(const Chip& chip, const std::string& body, unsigned next_free_vgpr, unsigned next_free_sgpr,
                   std::string& err) {
  bool gfx11 = chip.gen >= 11, w32 = chip.wave == 32;
  std::deque<Outstanding> out;
  // Wait-state positions of the hazards' sources, per register.
  int64_t pos = 0;
  std::vector<int64_t> valu_sgpr(128, -100), trans_v(512, -100), store_v(512, -100);
  std::vector<int> trans_since(512, 100);
  std::vector<int64_t> valu_v(512, -100);  // VALU other than MFMA
  int64_t label_pos = -100;  // a label: what branches to it wrote is unknown
  const bool gfx9 = chip.gen == 9;
  const MfmaDistances md = mfma_distances(chip);
  std::vector<int64_t> mfma_def(512, -100), mfma_c(512, -100);
  std::vector<Reg> mfma_dst(512);
  Reg wmma_d;
  bool wmma_last = false;
  auto fail = [&](const Line& l, const std::string& why) {
    err = "amdgpu hazard checker: line " + std::to_string(l.no) + " (" + l.op + "): " + why;
    return false;
  };
  auto expired = [&]() {
    for (int i = 0; i < 128; ++i)
      if (chip.gfx940 && pos - valu_sgpr[i] - 1 < 2) return false;
    for (int i = 0; i < 512; ++i) {
      if (gfx9 && (pos - mfma_def[i] - 1 < md.result || pos - mfma_c[i] - 1 < md.war)) return false;
      if (chip.gfx940 && pos - trans_v[i] - 1 < 1) return false;
      if (chip.gen == 9 && pos - store_v[i] - 1 < (chip.gfx940 ? 2 : 1)) return false;
      if (gfx11 && trans_since[i] < 5) return false;
    }
    return true;
  };
  std::istringstream in(body);
  unsigned no = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++no;
    Line l;
    if (!parse_line(raw, no, l)) continue;
    if (l.label) {
      if (std::any_of(out.begin(), out.end(), [](const Outstanding& o) { return o.counter != 's'; }))
        return fail(l, "a load is still outstanding at a label");
      label_pos = pos;
      continue;
    }
    const std::string& op = l.op;
    if (op == "s_nop") {
      pos += std::atoi(l.ops.empty() ? "0" : l.ops[0].c_str()) + 1;
      continue;
    }
    if (op == "s_waitcnt_depctr") {
      std::fill(trans_since.begin(), trans_since.end(), 100);
      ++pos;
      continue;
    }
    if (op == "s_waitcnt") {
      int vm = count_arg(l.tail, "vmcnt"), lg = count_arg(l.tail, "lgkmcnt");
      auto retire = [&](char c, int n) {
        int k = 0;
        for (const Outstanding& o : out) k += o.counter == c;
        for (auto it = out.begin(); it != out.end() && k > n;) {
          if (it->counter == c) {
            it = out.erase(it);
            --k;
          } else {
            ++it;
          }
        }
      };
      if (vm >= 0) retire('v', vm);
      if (lg == 0) {
        retire('l', 0);
        retire('m', 0);
      } else if (lg > 0 && std::none_of(out.begin(), out.end(), [](const Outstanding& o) { return o.counter == 'm'; })) {
        retire('l', lg);
      }
      ++pos;
      continue;
    }
    if (op == "s_waitcnt_vscnt") {
      out.erase(std::remove_if(out.begin(), out.end(), [](const Outstanding& o) { return o.counter == 's'; }), out.end());
      ++pos;
      continue;
    }
    // Another wave reads what this one wrote only if the writes are done
    // when it passes the barrier.
    if (op == "s_barrier" && !out.empty()) return fail(l, "s_barrier with memory operations outstanding");
    bool branch = starts(op, "s_branch") || starts(op, "s_cbranch") || op == "s_setpc_b64";
    if (branch && std::any_of(out.begin(), out.end(), [](const Outstanding& o) { return o.counter != 's'; }))
      return fail(l, "a load is still outstanding at a branch");
    if (branch && !expired()) return fail(l, "a hazard's wait states run past a branch");
    for (size_t k = 0; k < l.ops.size(); ++k) {
      const std::string& t = l.ops[k];
      if (w32 && (t == "vcc" || t == "exec")) return fail(l, "wave32 code names the 64-bit " + t);
      if (!w32 && (t == "vcc_lo" || t == "exec_lo")) return fail(l, "wave64 code names " + t + " as a mask");
      Reg r = parse_reg(t);
      if (!r.file) continue;
      bool def = is_def(l, k);
      if (r.file == 'v' && (unsigned(r.first + r.count) > next_free_vgpr || r.first + r.count > int(chip.max_vgprs)))
        return fail(l, t + " is past the kernel's VGPRs (" + std::to_string(next_free_vgpr) + ")");
      if (r.file == 's' && r.first < 106 &&
          (unsigned(r.first + r.count) > next_free_sgpr || r.first + r.count > int(chip.max_sgprs)))
        return fail(l, t + " is past the kernel's SGPRs (" + std::to_string(next_free_sgpr) + ")");
      if (r.file == 'v' && r.count == 2 && chip.gen == 9 && r.first % 2)
        return fail(l, t + ": a 64-bit VGPR tuple must start at an even register on " + std::string(chip.name));
      for (const Outstanding& o : out)
        for (int i = r.first; i < r.first + r.count; ++i)
          if (o.counter != 's' && overlaps(o.dst, r.file, i))
            return fail(l, std::string(def ? "overwrites " : "reads ") + t + " before an s_waitcnt retires the load on line " +
                               std::to_string(o.line));
      const bool mfma = is_mfma(op);
      if (gfx9 && r.file == 'v' && (is_valu(op) || is_vmem(op) || is_lds(op)))
        for (int i = r.first; i < r.first + r.count && i < 512; ++i) {
          int64_t since = pos - mfma_def[i] - 1, since_valu = pos - valu_v[i] - 1;
          bool same_c = mfma_dst[i].first == r.first && mfma_dst[i].count == r.count;
          if (mfma && k == 3 && !same_c && since < md.srcc)
            return fail(l, "reads " + t + " as C " + std::to_string(since) + " wait states after an MFMA wrote part of it (needs " +
                               std::to_string(md.srcc) + ")");
          if (mfma && k > 0 && since_valu < md.valu)
            return fail(l, "MFMA reads " + t + " " + std::to_string(since_valu) + " wait states after a VALU wrote it (needs " +
                               std::to_string(md.valu) + ")");
          if (((mfma && (k == 1 || k == 2)) || !mfma) && since < md.result)
            return fail(l, std::string(def ? "overwrites " : "reads ") + t + " " + std::to_string(since) +
                               " wait states after an MFMA wrote it (needs " + std::to_string(md.result) + ")");
          if (!mfma && def && pos - mfma_c[i] - 1 < md.war)
            return fail(l, "overwrites " + t + " " + std::to_string(pos - mfma_c[i] - 1) +
                               " wait states after an MFMA read it as C (needs " + std::to_string(md.war) + ")");
        }
      if (gfx11 && is_wmma(op) && wmma_last && (k == 1 || k == 2) && r.file == 'v' &&
          r.first < wmma_d.first + wmma_d.count && wmma_d.first < r.first + r.count)
        return fail(l, "WMMA reads " + t + ", the previous WMMA's result, with no VALU between");
      if (!is_valu(op)) continue;
      // Rules of instructions the backend does not emit yet, so that text
      // with them is held to GPU_NOTES AMDGPU §6 too: gfx9 4 wait states
      // between a VALU's SGPR write and v_readlane / v_writelane selecting
      // the lane with it; gfx940 1 between a VALU's VGPR write and
      // v_readlane reading it.
      bool lane_op = starts(op, "v_readlane") || starts(op, "v_writelane");
      for (int i = r.first; i < r.first + r.count; ++i) {
        if (lane_op && k == 2 && r.file == 's' && gfx9 && i < 128 && pos - valu_sgpr[i] - 1 < 4)
          return fail(l, "selects the lane with " + t + " " + std::to_string(pos - valu_sgpr[i] - 1) +
                             " wait states after a VALU wrote it (gfx9 needs 4)");
        if (starts(op, "v_readlane") && k == 1 && r.file == 'v' && chip.gfx940 && i < 512 && pos - valu_v[i] - 1 < 1)
          return fail(l, "v_readlane reads " + t + " right after a VALU wrote it (gfx940 needs 1)");
        if (r.file == 's' && !def && chip.gfx940 && i < 128 && pos - valu_sgpr[i] - 1 < 2)
          return fail(l, "reads " + t + " " + std::to_string(pos - valu_sgpr[i] - 1) +
                             " wait states after a VALU wrote it (gfx940 needs 2)");
        if (r.file == 'v' && !def && !is_trans(op) && i < 512) {
          if (chip.gfx940 && pos - trans_v[i] - 1 < 1) return fail(l, "reads " + t + " right after a TRANS op wrote it");
          if (gfx11 && trans_since[i] < 5)
            return fail(l, "reads " + t + " within 5 VALUs of a TRANS op without s_waitcnt_depctr");
        }
        if (r.file == 'v' && !def && chip.gen == 9 && is_dpp(op) && i < 512 &&
            pos - std::max(valu_v[i], label_pos - 1) - 1 < kDppAfterValu)
          return fail(l, "DPP reads " + t + " " + std::to_string(pos - std::max(valu_v[i], label_pos - 1) - 1) +
                             " wait states after a VALU wrote it (or a label; gfx9 needs " + std::to_string(kDppAfterValu) + ")");
        if (r.file == 'v' && def && chip.gen == 9 && i < 512 && pos - store_v[i] - 1 < (chip.gfx940 ? 2 : 1))
          return fail(l, "overwrites " + t + " too soon after a store of more than 64 bits read it");
      }
    }
    // v_div_fmas reads VCC without naming it: 4 after a VALU wrote it (gfx9).
    if (gfx9 && starts(op, "v_div_fmas") && std::min(pos - valu_sgpr[106], pos - valu_sgpr[107]) - 1 < 4)
      return fail(l, "v_div_fmas reads vcc " + std::to_string(std::min(pos - valu_sgpr[106], pos - valu_sgpr[107]) - 1) +
                         " wait states after a VALU wrote it (gfx9 needs 4)");
    int64_t at = pos++;
    if (is_valu(op))
      for (int& n : trans_since) n = std::min(n + 1, 100);
    if (is_wmma(op)) wmma_d = parse_reg(l.ops[0]), wmma_last = true;
    else if (is_valu(op) || op == "v_nop") wmma_last = false;
    for (size_t k = 0; k < l.ops.size(); ++k) {
      Reg r = parse_reg(l.ops[k]);
      if (!r.file) continue;
      bool def = is_def(l, k);
      for (int i = r.first; i < r.first + r.count; ++i) {
        if (def && is_valu(op) && r.file == 's' && i < 128) valu_sgpr[i] = at;
        if (def && is_valu(op) && !is_mfma(op) && r.file == 'v' && i < 512) valu_v[i] = at;
        if (is_mfma(op) && r.file == 'v' && i < 512) {
          if (def) mfma_def[i] = at, mfma_dst[i] = r;
          else if (k == 3) mfma_c[i] = at;
        }
        if (def && is_trans(op) && r.file == 'v' && i < 512) trans_v[i] = at, trans_since[i] = 0;
        if (!def && k == 1 && r.file == 'v' && i < 512 && starts(op, "global_store") &&
            (op.find("x4") != std::string::npos || op.find("b128") != std::string::npos))
          store_v[i] = at;
      }
    }
    bool returns = starts(op, "global_load") || (starts(op, "global_atomic") && is_def(l, 0));
    char c = 0;
    if (is_vmem(op)) c = returns ? 'v' : (gfx11 ? 's' : 'v');
    else if (is_lds(op)) c = 'l';
    else if (is_smem(op)) c = 'm';
    if (c) {
      Reg d = is_def(l, 0) && !l.ops.empty() ? parse_reg(l.ops[0]) : Reg{};
      out.push_back({c, d, no});
    }
  }
  return true;
}

}  // namespace ptoas::cg::amdgpu
