// LLVM's printed text of each instruction -> the decoded form (ir.h), once
// at load. The text is the contract: it is what the backend writes and what
// the tests compare; the MCInst is consulted only for the two immediates
// whose printed forms are symbolic (branch targets, swizzle patterns).
#include <charconv>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "chip.h"
#include "ir.h"

namespace ptoas::amdgpu_emu {

const InlineFloat kInlineFloats[] = {
    {"0.5", 0x3800, 0x3f000000, 0x3fe0000000000000ull},   {"-0.5", 0xb800, 0xbf000000, 0xbfe0000000000000ull},
    {"1.0", 0x3c00, 0x3f800000, 0x3ff0000000000000ull},   {"-1.0", 0xbc00, 0xbf800000, 0xbff0000000000000ull},
    {"2.0", 0x4000, 0x40000000, 0x4000000000000000ull},   {"-2.0", 0xc000, 0xc0000000, 0xc000000000000000ull},
    {"4.0", 0x4400, 0x40800000, 0x4010000000000000ull},   {"-4.0", 0xc400, 0xc0800000, 0xc010000000000000ull},
    {"0.15915494", 0x3118, 0x3e22f983, 0x3fc45f306dc9c882ull},
};
const unsigned kNumInlineFloats = sizeof(kInlineFloats) / sizeof(kInlineFloats[0]);

namespace {

struct NameInfo {
  Op op;
  uint8_t bytes = 0;
  bool is_signed = false;
};

const std::unordered_map<std::string_view, NameInfo>& names() {
  static const std::unordered_map<std::string_view, NameInfo> m = {
      {"s_mov_b32", {Op::SMovB32}}, {"s_mov_b64", {Op::SMovB64}}, {"s_add_u32", {Op::SAddU32}},
      {"s_sub_u32", {Op::SSubU32}}, {"s_and_b32", {Op::SAndB32}}, {"s_and_b64", {Op::SAndB64}},
      {"s_or_b32", {Op::SOrB32}}, {"s_or_b64", {Op::SOrB64}}, {"s_xor_b32", {Op::SXorB32}},
      {"s_xor_b64", {Op::SXorB64}}, {"s_andn2_b32", {Op::SAndn2B32}}, {"s_andn2_b64", {Op::SAndn2B64}},
      {"s_and_not1_b32", {Op::SAndn2B32}}, {"s_and_not1_b64", {Op::SAndn2B64}}, {"s_not_b32", {Op::SNotB32}},
      {"s_not_b64", {Op::SNotB64}}, {"s_and_saveexec_b32", {Op::SAndSaveexecB32}},
      {"s_and_saveexec_b64", {Op::SAndSaveexecB64}}, {"s_cmp_eq_u32", {Op::SCmpEqU32}},
      {"s_cmp_lg_u32", {Op::SCmpLgU32}}, {"s_cselect_b32", {Op::SCselectB32}}, {"s_lshl_b32", {Op::SLshlB32}},
      {"v_nop", {Op::SNop}}, {"v_mfma_f32_16x16x16f16", {Op::VMatrix}}, {"v_mfma_f32_16x16x16_f16", {Op::VMatrix}},
      {"v_mfma_f32_16x16x16bf16_1k", {Op::VMatrix, 0, true}}, {"v_mfma_f32_16x16x16_bf16", {Op::VMatrix, 0, true}},
      {"v_wmma_f32_16x16x16_f16", {Op::VMatrix}}, {"v_wmma_f32_16x16x16_bf16", {Op::VMatrix, 0, true}},
      {"s_mul_i32", {Op::SMulI32}}, {"s_mul_hi_u32", {Op::SMulHiU32}}, {"s_addc_u32", {Op::SAddcU32}}, {"s_load_dword", {Op::SLoad, 4}}, {"s_load_dwordx2", {Op::SLoad, 8}},
      {"s_load_dwordx4", {Op::SLoad, 16}}, {"s_load_b32", {Op::SLoad, 4}}, {"s_load_b64", {Op::SLoad, 8}},
      {"s_load_b128", {Op::SLoad, 16}}, {"s_waitcnt", {Op::SWaitcnt}}, {"s_waitcnt_vscnt", {Op::SWaitcnt}},
      {"s_waitcnt_depctr", {Op::SNop}}, {"s_nop", {Op::SNop}}, {"s_sendmsg", {Op::SNop}},
      {"s_getpc_b64", {Op::SGetpcB64}}, {"s_setpc_b64", {Op::SSetpcB64}}, {"s_barrier", {Op::SBarrier}}, {"s_branch", {Op::SBranch}}, {"s_cbranch_scc0", {Op::SCbranch}},
      {"s_cbranch_scc1", {Op::SCbranch}}, {"s_cbranch_execz", {Op::SCbranch}}, {"s_cbranch_execnz", {Op::SCbranch}},
      {"s_cbranch_vccz", {Op::SCbranch}}, {"s_cbranch_vccnz", {Op::SCbranch}}, {"s_endpgm", {Op::SEndpgm}},
      // VALU, integer
      {"v_mov_b32", {Op::VMovB32}}, {"v_add_u32", {Op::VAddU32}}, {"v_add_nc_u32", {Op::VAddU32}},
      {"v_sub_u32", {Op::VSubU32}}, {"v_sub_nc_u32", {Op::VSubU32}}, {"v_add_co_u32", {Op::VAddCoU32}},
      {"v_addc_co_u32", {Op::VAddcCoU32}}, {"v_add_co_ci_u32", {Op::VAddcCoU32}}, {"v_sub_co_u32", {Op::VSubCoU32}},
      {"v_subb_co_u32", {Op::VSubbCoU32}}, {"v_sub_co_ci_u32", {Op::VSubbCoU32}}, {"v_mul_lo_u32", {Op::VMulLoU32}},
      {"v_mul_hi_u32", {Op::VMulHiU32}}, {"v_mul_hi_i32", {Op::VMulHiI32}}, {"v_mad_u64_u32", {Op::VMadU64U32}},
      {"v_mad_i64_i32", {Op::VMadI64I32}}, {"v_and_b32", {Op::VAndB32}}, {"v_or_b32", {Op::VOrB32}},
      {"v_xor_b32", {Op::VXorB32}}, {"v_not_b32", {Op::VNotB32}}, {"v_lshlrev_b32", {Op::VLshlrevB32}},
      {"v_lshrrev_b32", {Op::VLshrrevB32}}, {"v_ashrrev_i32", {Op::VAshrrevI32}}, {"v_lshlrev_b64", {Op::VLshlrevB64}},
      {"v_lshrrev_b64", {Op::VLshrrevB64}}, {"v_ashrrev_i64", {Op::VAshrrevI64}}, {"v_bfe_u32", {Op::VBfeU32}},
      {"v_bfe_i32", {Op::VBfeI32}}, {"v_bfi_b32", {Op::VBfiB32}}, {"v_min_i32", {Op::VMinI32}},
      {"v_min_u32", {Op::VMinU32}}, {"v_max_i32", {Op::VMaxI32}}, {"v_max_u32", {Op::VMaxU32}},
      {"v_cndmask_b32", {Op::VCndmaskB32}}, {"v_bcnt_u32_b32", {Op::VBcntU32B32}}, {"v_ffbh_u32", {Op::VFfbhU32}},
      {"v_clz_i32_u32", {Op::VFfbhU32}}, {"v_bfrev_b32", {Op::VBfrevB32}}, {"v_cmp_class_f32", {Op::VCmpClassF32}},
      {"v_cmp_class_f64", {Op::VCmpClassF64}},
      {"v_readfirstlane_b32", {Op::VReadfirstlaneB32}}, {"v_mbcnt_lo_u32_b32", {Op::VMbcntLo}},
      {"v_mbcnt_hi_u32_b32", {Op::VMbcntHi}},
      // VALU, float
      {"v_add_f32", {Op::VAddF32}}, {"v_sub_f32", {Op::VSubF32}}, {"v_mul_f32", {Op::VMulF32}},
      {"v_fma_f32", {Op::VFmaF32}}, {"v_min_f32", {Op::VMinF32}}, {"v_max_f32", {Op::VMaxF32}},
      {"v_rcp_f32", {Op::VRcpF32}}, {"v_rcp_iflag_f32", {Op::VRcpIflagF32}}, {"v_sqrt_f32", {Op::VSqrtF32}},
      {"v_rsq_f32", {Op::VRsqF32}}, {"v_exp_f32", {Op::VExpF32}}, {"v_log_f32", {Op::VLogF32}},
      {"v_ldexp_f32", {Op::VLdexpF32}}, {"v_rndne_f32", {Op::VRndneF32}}, {"v_trunc_f32", {Op::VTruncF32}},
      {"v_floor_f32", {Op::VFloorF32}}, {"v_ceil_f32", {Op::VCeilF32}}, {"v_cvt_f32_u32", {Op::VCvtF32U32}},
      {"v_cvt_f32_i32", {Op::VCvtF32I32}}, {"v_cvt_u32_f32", {Op::VCvtU32F32}}, {"v_cvt_i32_f32", {Op::VCvtI32F32}},
      {"v_cvt_f16_f32", {Op::VCvtF16F32}}, {"v_cvt_f32_f16", {Op::VCvtF32F16}}, {"v_cvt_f64_f32", {Op::VCvtF64F32}},
      {"v_cvt_f32_f64", {Op::VCvtF32F64}}, {"v_cvt_f64_i32", {Op::VCvtF64I32}}, {"v_cvt_f64_u32", {Op::VCvtF64U32}}, {"v_add_f64", {Op::VAddF64}}, {"v_mul_f64", {Op::VMulF64}},
      {"v_fma_f64", {Op::VFmaF64}}, {"v_rcp_f64", {Op::VRcpF64}}, {"v_rsq_f64", {Op::VRsqF64}},
      {"v_sqrt_f64", {Op::VSqrtF64}},
      // memory
      {"global_load_dword", {Op::GlobalLoad, 4}}, {"global_load_dwordx2", {Op::GlobalLoad, 8}},
      {"global_load_dwordx4", {Op::GlobalLoad, 16}}, {"global_load_ubyte", {Op::GlobalLoad, 1}},
      {"global_load_sbyte", {Op::GlobalLoad, 1, true}}, {"global_load_ushort", {Op::GlobalLoad, 2}},
      {"global_load_sshort", {Op::GlobalLoad, 2, true}}, {"global_load_b32", {Op::GlobalLoad, 4}},
      {"global_load_b64", {Op::GlobalLoad, 8}}, {"global_load_b128", {Op::GlobalLoad, 16}},
      {"global_load_u8", {Op::GlobalLoad, 1}}, {"global_load_i8", {Op::GlobalLoad, 1, true}},
      {"global_load_u16", {Op::GlobalLoad, 2}}, {"global_load_i16", {Op::GlobalLoad, 2, true}},
      {"global_store_dword", {Op::GlobalStore, 4}}, {"global_store_dwordx2", {Op::GlobalStore, 8}},
      {"global_store_dwordx4", {Op::GlobalStore, 16}}, {"global_store_byte", {Op::GlobalStore, 1}},
      {"global_store_short", {Op::GlobalStore, 2}}, {"global_store_b32", {Op::GlobalStore, 4}},
      {"global_store_b64", {Op::GlobalStore, 8}}, {"global_store_b128", {Op::GlobalStore, 16}},
      {"global_store_b8", {Op::GlobalStore, 1}}, {"global_store_b16", {Op::GlobalStore, 2}},
      {"global_atomic_add", {Op::GlobalAtomicAdd, 4}}, {"global_atomic_add_u32", {Op::GlobalAtomicAdd, 4}},
      {"global_atomic_cmpswap", {Op::GlobalAtomicCmpswap, 4}},
      {"global_atomic_cmpswap_b32", {Op::GlobalAtomicCmpswap, 4}},
      {"ds_read_b32", {Op::DsRead, 4}}, {"ds_read_b64", {Op::DsRead, 8}}, {"ds_read_b128", {Op::DsRead, 16}},
      {"ds_read_u8", {Op::DsRead, 1}}, {"ds_read_i8", {Op::DsRead, 1, true}}, {"ds_read_u16", {Op::DsRead, 2}},
      {"ds_read_i16", {Op::DsRead, 2, true}}, {"ds_load_b32", {Op::DsRead, 4}}, {"ds_load_b64", {Op::DsRead, 8}},
      {"ds_load_b128", {Op::DsRead, 16}}, {"ds_load_u8", {Op::DsRead, 1}}, {"ds_load_i8", {Op::DsRead, 1, true}},
      {"ds_load_u16", {Op::DsRead, 2}}, {"ds_load_i16", {Op::DsRead, 2, true}},
      {"ds_write_b32", {Op::DsWrite, 4}}, {"ds_write_b64", {Op::DsWrite, 8}}, {"ds_write_b128", {Op::DsWrite, 16}},
      {"ds_write_b8", {Op::DsWrite, 1}}, {"ds_write_b16", {Op::DsWrite, 2}}, {"ds_store_b32", {Op::DsWrite, 4}},
      {"ds_store_b64", {Op::DsWrite, 8}}, {"ds_store_b128", {Op::DsWrite, 16}}, {"ds_store_b8", {Op::DsWrite, 1}},
      {"ds_store_b16", {Op::DsWrite, 2}}, {"ds_swizzle_b32", {Op::DsSwizzle, 4}},
      {"ds_bpermute_b32", {Op::DsBpermute, 4}},
  };
  return m;
}

bool parse_int(std::string_view s, int64_t& v) {
  bool neg = false;
  if (!s.empty() && s[0] == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  uint64_t u = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), u, base);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) return false;
  v = neg ? -int64_t(u) : int64_t(u);
  return true;
}

// "v7", "v[4:7]", "s[0:1]": the first register and the count.
bool parse_range(std::string_view s, unsigned& first, unsigned& count) {
  int64_t a = 0, b = 0;
  if (!s.empty() && s[0] == '[') {
    auto colon = s.find(':');
    if (colon == std::string_view::npos || s.back() != ']') return false;
    if (!parse_int(s.substr(1, colon - 1), a) || !parse_int(s.substr(colon + 1, s.size() - colon - 2), b)) return false;
  } else {
    if (!parse_int(s, a)) return false;
    b = a;
  }
  if (a < 0 || b < a || b - a > 15) return false;
  first = unsigned(a);
  count = unsigned(b - a + 1);
  return true;
}

bool parse_operand(std::string_view s, Opnd& o) {
  o = Opnd{};
  if (s.size() > 1 && s[0] == '-' && (s[1] == 'v' || s[1] == 's' || s[1] == '|')) {
    o.neg = true;
    s.remove_prefix(1);
  }
  if (s.size() > 2 && s.front() == '|' && s.back() == '|') {
    o.abs = true;
    s = s.substr(1, s.size() - 2);
  }
  static const struct {
    const char* name;
    unsigned reg, count;
  } named[] = {{"vcc", kVcc, 2},       {"vcc_lo", kVcc, 1},  {"vcc_hi", kVcc + 1, 1}, {"exec", kExec, 2},
               {"exec_lo", kExec, 1}, {"exec_hi", kExec + 1, 1}, {"m0", kM0, 1},     {"null", kNull, 1}};
  for (const auto& n : named)
    if (s == n.name) {
      o.kind = Opnd::Sreg;
      o.reg = uint16_t(n.reg);
      o.count = uint8_t(n.count);
      return true;
    }
  unsigned first = 0, count = 0;
  if ((s[0] == 'v' || s[0] == 's') && s.size() > 1 && parse_range(s.substr(1), first, count)) {
    bool v = s[0] == 'v';
    if ((v && first + count > 256) || (!v && first + count > kNumSgprs)) return false;
    o.kind = v ? Opnd::Vgpr : Opnd::Sreg;
    o.reg = uint16_t(first);
    o.count = uint8_t(count);
    return true;
  }
  if (o.neg || o.abs) return false;
  for (unsigned i = 0; i < kNumInlineFloats; ++i)
    if (s == kInlineFloats[i].text || (i == kNumInlineFloats - 1 && s.substr(0, 9) == "0.1591549")) {
      o.kind = Opnd::Float;
      o.imm = i;
      return true;
    }
  int64_t v = 0;
  if (!parse_int(s, v)) return false;
  bool hex = s.find("0x") != std::string_view::npos;
  o.kind = hex ? Opnd::Lit : Opnd::Int;
  o.imm = hex ? int64_t(uint32_t(v)) : v;
  return true;
}

// Splits at commas outside parentheses and quotes.
std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  bool quote = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') quote = !quote;
    if (quote) continue;
    if (c == '(' || c == '[') ++depth;  // swizzle(...), quad_perm:[...]
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  for (auto& p : out) {
    while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
    while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
  }
  return out;
}

// "vmcnt(0) expcnt(0) lgkmcnt(0)": the counters named; the others do not wait.
bool parse_waitcnt(std::string_view s, Inst& in) {
  while (!s.empty()) {
    while (!s.empty() && (s[0] == ' ' || s[0] == '&' || s[0] == ',')) s.remove_prefix(1);
    if (s.empty()) break;
    auto open = s.find('('), close = s.find(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
    std::string_view name = s.substr(0, open);
    int64_t v = 0;
    if (!parse_int(s.substr(open + 1, close - open - 1), v) || v < 0 || v > 0xfffe) return false;
    if (name == "vmcnt")
      in.wait_vm = uint16_t(v);
    else if (name == "lgkmcnt")
      in.wait_lgkm = uint16_t(v);
    else if (name != "expcnt")
      return false;
    s.remove_prefix(close + 1);
  }
  return true;
}

void add_use(Inst& in, const Opnd& o, bool write) {
  if (o.kind == Opnd::Vgpr) in.uses.push_back({true, write, o.reg, o.count});
  if (o.kind == Opnd::Sreg && o.reg != kNull) in.uses.push_back({false, write, o.reg, o.count});
}

// How many leading operands an op writes (the rest it reads).
unsigned dest_count(const Inst& in) {
  switch (in.op) {
    case Op::VAddCoU32: case Op::VAddcCoU32: case Op::VSubCoU32: case Op::VSubbCoU32:
    case Op::VMadU64U32: case Op::VMadI64I32:
      return 2;
    case Op::SCmpEqU32: case Op::SCmpLgU32: case Op::SWaitcnt: case Op::SNop: case Op::SBarrier:
    case Op::SBranch: case Op::SCbranch: case Op::SEndpgm: case Op::GlobalStore: case Op::DsWrite:
    case Op::SSetpcB64:
      return 0;
    case Op::GlobalAtomicAdd: case Op::GlobalAtomicCmpswap:
      return in.ops[0].kind == Opnd::None ? 0 : 1;
    default:
      return 1;
  }
}

// One modifier of a v_mov_b32_dpp (false: not a DPP one). `ctrl` is set
// once the lane control is read.
bool parse_dpp_modifier(std::string_view m, Dpp& d, bool& ctrl) {
  int64_t v = 0;
  auto after = [&](std::string_view key, std::string_view& rest) {
    if (!m.starts_with(key)) return false;
    rest = m.substr(key.size());
    return true;
  };
  std::string_view r;
  if (after("quad_perm:[", r)) {
    unsigned sel = 0, k = 0;
    for (char c : r) {
      if (c >= '0' && c <= '3' && k < 4) sel |= unsigned(c - '0') << (2 * k++);
      else if (c != ',' && c != ']') return false;
    }
    if (k != 4) return false;
    d.kind = Dpp::QuadPerm, d.arg = uint8_t(sel), ctrl = true;
    return true;
  }
  for (auto [key, kind] : {std::pair{"row_shl:", Dpp::RowShl}, {"row_shr:", Dpp::RowShr}, {"row_xmask:", Dpp::RowXmask}})
    if (after(key, r)) {
      if (!parse_int(r, v) || v < 0 || v > 15 || (v == 0 && kind != Dpp::RowXmask)) return false;
      d.kind = kind, d.arg = uint8_t(v), ctrl = true;
      return true;
    }
  if (after("row_mask:", r) && parse_int(r, v) && v >= 0 && v <= 15) return d.row_mask = uint8_t(v), true;
  if (after("bank_mask:", r) && parse_int(r, v) && v >= 0 && v <= 15) return d.bank_mask = uint8_t(v), true;
  if (m == "bound_ctrl:1" || m == "bound_ctrl:0") return d.bound_ctrl = true, true;  // the same bit, either spelling
  if (m == "fi:0") return true;
  return false;
}

// Operand counts as the printer writes them (after the modifiers are taken
// off), per op; a mismatch means a form the executor was not written for.
unsigned expected_operands(Op op) {
  switch (op) {
    case Op::SWaitcnt: case Op::SNop: case Op::SBarrier: case Op::SEndpgm: case Op::SBranch: case Op::SCbranch:
      return ~0u;
    case Op::SGetpcB64: case Op::SSetpcB64:
      return 1;
    case Op::SMovB32: case Op::SMovB64: case Op::SNotB32: case Op::SNotB64: case Op::SAndSaveexecB32:
    case Op::SAndSaveexecB64: case Op::SCmpEqU32: case Op::SCmpLgU32: case Op::VMovB32: case Op::VMovDpp: case Op::VNotB32:
    case Op::VFfbhU32: case Op::VBfrevB32: case Op::VReadfirstlaneB32: case Op::VRcpF32: case Op::VRcpIflagF32:
    case Op::VSqrtF32: case Op::VRsqF32: case Op::VExpF32: case Op::VLogF32: case Op::VRndneF32: case Op::VTruncF32:
    case Op::VFloorF32: case Op::VCeilF32: case Op::VCvtF32U32: case Op::VCvtF32I32: case Op::VCvtU32F32:
    case Op::VCvtI32F32: case Op::VCvtF16F32: case Op::VCvtF32F16: case Op::VCvtF64F32: case Op::VCvtF32F64:
    case Op::VCvtF64I32: case Op::VCvtF64U32: case Op::VRcpF64: case Op::VRsqF64: case Op::VSqrtF64: case Op::DsRead: case Op::DsWrite: case Op::DsSwizzle:
      return 2;
    case Op::VAddCoU32: case Op::VSubCoU32:
      return 4;
    case Op::VAddcCoU32: case Op::VSubbCoU32: case Op::VMadU64U32: case Op::VMadI64I32:
      return 5;
    case Op::GlobalLoad: case Op::GlobalStore:  // `off` is not counted
      return 2;
    case Op::VMatrix: case Op::VFmaF32: case Op::VFmaF64: case Op::VBfeU32: case Op::VBfeI32: case Op::VBfiB32: case Op::VCndmaskB32:
      return 4;
    default:
      return 3;
  }
}

}  // namespace

bool decode_kernel(const KernelCode& code, const cg::amdgpu::Chip& chip, Kernel& out, std::string& err) {
  out = Kernel{};
  out.name = code.name;
  out.kd = code.kd;
  out.wave = chip.wave;
  std::unordered_map<uint64_t, uint32_t> index_of;
  for (size_t i = 0; i < code.insts.size(); ++i) index_of[code.insts[i].offset] = uint32_t(i);
  std::vector<uint64_t> branch_to(code.insts.size(), ~0ull);

  for (size_t i = 0; i < code.insts.size(); ++i) {
    const CodeInst& ci = code.insts[i];
    auto fail = [&](const std::string& why) {
      char b[48];
      std::snprintf(b, sizeof b, " at offset 0x%llx", (unsigned long long)ci.offset);
      err = "kernel " + code.name + b + ": `" + ci.text + "`: " + why;
      return false;
    };
    std::string_view t = ci.text;
    size_t sp = t.find(' ');
    std::string_view mn = t.substr(0, sp);
    std::string_view rest = sp == std::string_view::npos ? std::string_view{} : t.substr(sp + 1);
    Inst in;
    bool dpp = mn == "v_mov_b32_dpp";
    if (dpp) mn.remove_suffix(4);
    if (mn.ends_with("_sdwa") || mn.ends_with("_dpp")) return fail("SDWA forms and DPP other than v_mov_b32_dpp are not run by the interpreter");
    if (mn.ends_with("_e32")) {
      in.e32 = true;
      mn.remove_suffix(4);
    } else if (mn.ends_with("_e64")) {
      mn.remove_suffix(4);
    }
    const auto& tab = names();
    auto it = tab.find(mn);
    if (it != tab.end()) {
      in.op = it->second.op;
      in.bytes = it->second.bytes;
      in.is_signed = it->second.is_signed;
    } else if (mn.starts_with("v_cmp_")) {
      std::string_view r = mn.substr(6);
      auto us = r.rfind('_');
      if (us == std::string_view::npos) return fail("not an instruction the backend emits");
      std::string_view c = r.substr(0, us), ty = r.substr(us + 1);
      static const std::pair<const char*, Cmp> cmps[] = {
          {"eq", Cmp::Eq},   {"ne", Cmp::Ne},   {"lt", Cmp::Lt},   {"le", Cmp::Le},   {"gt", Cmp::Gt},
          {"ge", Cmp::Ge},   {"lg", Cmp::Lg},   {"o", Cmp::O},     {"u", Cmp::U},     {"neq", Cmp::Neq},
          {"nlg", Cmp::Nlg}, {"nlt", Cmp::Nlt}, {"nle", Cmp::Nle}, {"ngt", Cmp::Ngt}, {"nge", Cmp::Nge}};
      static const std::pair<const char*, CmpTy> tys[] = {{"i32", CmpTy::I32}, {"u32", CmpTy::U32},
                                                          {"i64", CmpTy::I64}, {"u64", CmpTy::U64},
                                                          {"f32", CmpTy::F32}, {"f64", CmpTy::F64}};
      bool okc = false, okt = false;
      for (auto& [n, v] : cmps)
        if (c == n) in.cmp = v, okc = true;
      for (auto& [n, v] : tys)
        if (ty == n) in.ty = v, okt = true;
      if (!okc || !okt) return fail("not an instruction the backend emits");
      bool fl = in.ty == CmpTy::F32 || in.ty == CmpTy::F64;
      bool int_only = in.cmp == Cmp::Ne;
      bool float_only = in.cmp >= Cmp::Lg;
      if ((fl && int_only) || (!fl && float_only)) return fail("not an instruction the backend emits");
      in.op = Op::VCmp;
    } else {
      return fail("not an instruction the backend emits (docs/amdgpu_backend.md lists them)");
    }

    if (in.op == Op::SWaitcnt && mn == "s_waitcnt") {
      if (!parse_waitcnt(rest, in)) return fail("cannot read the counters");
    } else if (in.op == Op::SBranch || in.op == Op::SCbranch) {
      static const std::pair<const char*, Cond> conds[] = {
          {"s_cbranch_scc0", Cond::Scc0},   {"s_cbranch_scc1", Cond::Scc1}, {"s_cbranch_execz", Cond::Execz},
          {"s_cbranch_execnz", Cond::Execnz}, {"s_cbranch_vccz", Cond::Vccz}, {"s_cbranch_vccnz", Cond::Vccnz}};
      for (auto& [n, v] : conds)
        if (mn == n) in.cond = v;
      // The SOPP immediate: a signed count of dwords from the next instruction.
      const McOperand* imm = nullptr;
      for (const auto& o : ci.operands)
        if (o.kind == McOperand::Imm) {
          imm = &o;
          break;
        }
      if (!imm) return fail("the branch has no target");
      branch_to[i] = ci.offset + 4 + uint64_t(int64_t(int16_t(imm->imm)) * 4);
      if (in.op == Op::SCbranch && (in.cond == Cond::Vccz || in.cond == Cond::Vccnz))
        in.uses.push_back({false, false, uint16_t(kVcc), uint8_t(chip.wave == 64 ? 2 : 1)});
    } else if (in.op != Op::SNop && in.op != Op::SBarrier && in.op != Op::SEndpgm) {
      std::vector<std::string_view> parts = split_commas(rest);
      std::vector<std::string_view> mods;
      // The modifiers follow the last operand, blank-separated.
      if (!parts.empty()) {
        std::string_view& last = parts.back();
        size_t b = last.find(' ');
        if (in.op == Op::DsSwizzle || b != std::string_view::npos) {
          std::string_view m = b == std::string_view::npos ? std::string_view{} : last.substr(b + 1);
          last = last.substr(0, b);
          while (!m.empty()) {
            size_t e = m.find(' ');
            mods.push_back(m.substr(0, e));
            if (e == std::string_view::npos) break;
            m.remove_prefix(e + 1);
          }
        }
      }
      if (parts.size() == 1 && parts[0].empty()) parts.clear();
      std::vector<Opnd> ops;
      bool saddr_off = false;
      for (auto p : parts) {
        if (p == "off") {
          saddr_off = true;
          continue;
        }
        Opnd o;
        if (!parse_operand(p, o)) return fail("cannot read operand `" + std::string(p) + "`");
        ops.push_back(o);
      }
      bool is_global = in.op == Op::GlobalLoad || in.op == Op::GlobalStore || in.op == Op::GlobalAtomicAdd ||
                       in.op == Op::GlobalAtomicCmpswap;
      // Without `off` the last operand is an SGPR-pair base and the VGPR
      // address a 32-bit offset (loads and stores only).
      if (is_global && !saddr_off) {
        bool ls = in.op == Op::GlobalLoad || in.op == Op::GlobalStore;
        if (!ls || ops.empty() || ops.back().kind != Opnd::Sreg || ops.back().count != 2)
          return fail("a global access without `off` is run only as a load or store with an SGPR-pair base");
        in.saddr = true;
      }
      if (dpp) {
        in.op = Op::VMovDpp;
        bool ctrl = false;
        std::vector<std::string_view> rest_mods;
        for (auto m : mods) {
          if (!parse_dpp_modifier(m, in.dpp, ctrl)) rest_mods.push_back(m);
        }
        if (!ctrl) return fail("a DPP move without a lane control the interpreter runs");
        mods = rest_mods;
      }
      for (auto m : mods) {
        int64_t v = 0;
        if (m.starts_with("offset:swizzle(") || (in.op == Op::DsSwizzle && m.starts_with("offset:"))) {
          for (const auto& o : ci.operands)
            if (o.kind == McOperand::Imm) {
              in.offset = int32_t(o.imm & 0xffff);
              break;
            }
        } else if (m.starts_with("offset:") && parse_int(m.substr(7), v)) {
          in.offset = int32_t(v);
        } else if (m == "glc" || m == "sc0") {
          in.glc = true;
        } else if (m == "sc1" || m == "nt" || m == "slc" || m == "dlc") {
          // cache policy: no effect on a functional model
        } else if (m == "clamp" || m.starts_with("mul:") || m.starts_with("div:")) {
          return fail("clamp and output modifiers are not emitted by the backend and not run");
        } else {
          return fail("unknown modifier `" + std::string(m) + "`");
        }
      }
      if (in.op == Op::SWaitcnt) {  // s_waitcnt_vscnt null, N
        if (ops.size() != 2 || ops[1].kind == Opnd::Vgpr) return fail("cannot read the counter");
        in.wait_vs = uint16_t(std::min<int64_t>(ops[1].imm, 0xfffe));
        ops.clear();
      }
      // Atomics without a returned value print no destination.
      if ((in.op == Op::GlobalAtomicAdd || in.op == Op::GlobalAtomicCmpswap) && !in.glc) ops.insert(ops.begin(), Opnd{});
      unsigned want = expected_operands(in.op);
      if (in.op == Op::GlobalAtomicAdd || in.op == Op::GlobalAtomicCmpswap) want = 3;
      if (in.op == Op::SWaitcnt) want = 0;
      if (in.saddr) ++want;
      if (want != ~0u && ops.size() != want) return fail("unexpected operand count");
      if (ops.size() > 6) return fail("too many operands");
      in.nops = uint8_t(ops.size());
      for (size_t k = 0; k < ops.size(); ++k) in.ops[k] = ops[k];
      unsigned nd = dest_count(in);
      for (size_t k = 0; k < ops.size(); ++k) add_use(in, ops[k], k < nd);
      if (in.op == Op::SAndSaveexecB32 || in.op == Op::SAndSaveexecB64) {
        uint8_t n = in.op == Op::SAndSaveexecB64 ? 2 : 1;
        in.uses.push_back({false, false, uint16_t(kExec), n});
        in.uses.push_back({false, true, uint16_t(kExec), n});
      }
    }
    out.insts.push_back(std::move(in));
    out.offsets.push_back(ci.offset);
    out.texts.push_back(ci.text);
  }
  for (size_t i = 0; i < out.insts.size(); ++i) {
    if (branch_to[i] == ~0ull) continue;
    auto f = index_of.find(branch_to[i]);
    if (f == index_of.end()) {
      char b[96];
      std::snprintf(b, sizeof b, " at offset 0x%llx: branch target 0x%llx is not an instruction of the kernel",
                    (unsigned long long)out.offsets[i], (unsigned long long)branch_to[i]);
      err = "kernel " + code.name + b;
      return false;
    }
    out.insts[i].target = f->second;
  }
  return true;
}

}  // namespace ptoas::amdgpu_emu
