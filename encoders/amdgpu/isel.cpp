// Instruction selection: the driver over one PTX entry, operands, and the
// dispatch to the op families (isel.h).
#include "isel.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace ptoas::cg::amdgpu {

using ptx::Op;
using ptx::Opnd;
using ptx::Ty;

namespace {

// gfx11 renamed these (the gfx9 name -> the gfx11 one).
struct Rename {
  const char* gfx9;
  const char* gfx11;
};
constexpr Rename kRenames[] = {
    {"v_add_u32", "v_add_nc_u32"},
    {"v_sub_u32", "v_sub_nc_u32"},
    {"v_addc_co_u32", "v_add_co_ci_u32"},
    {"v_subb_co_u32", "v_sub_co_ci_u32"},
    {"v_ffbh_u32", "v_clz_i32_u32"},
    {"s_andn2_b64", "s_and_not1_b64"},
    {"s_andn2_b32", "s_and_not1_b32"},
    {"global_load_dword", "global_load_b32"},
    {"global_load_dwordx2", "global_load_b64"},
    {"global_load_dwordx4", "global_load_b128"},
    {"global_load_ubyte", "global_load_u8"},
    {"global_load_sbyte", "global_load_i8"},
    {"global_load_ushort", "global_load_u16"},
    {"global_load_sshort", "global_load_i16"},
    {"global_store_dword", "global_store_b32"},
    {"global_store_dwordx2", "global_store_b64"},
    {"global_store_dwordx4", "global_store_b128"},
    {"global_store_byte", "global_store_b8"},
    {"global_store_short", "global_store_b16"},
    {"global_atomic_add", "global_atomic_add_u32"},
    {"global_atomic_cmpswap", "global_atomic_cmpswap_b32"},
    {"ds_read_b32", "ds_load_b32"},
    {"ds_read_b64", "ds_load_b64"},
    {"ds_read_b128", "ds_load_b128"},
    {"ds_read_u8", "ds_load_u8"},
    {"ds_read_i8", "ds_load_i8"},
    {"ds_read_u16", "ds_load_u16"},
    {"ds_read_i16", "ds_load_i16"},
    {"ds_write_b32", "ds_store_b32"},
    {"ds_write_b64", "ds_store_b64"},
    {"ds_write_b128", "ds_store_b128"},
    {"ds_write_b8", "ds_store_b8"},
    {"ds_write_b16", "ds_store_b16"},
    {"s_load_dword", "s_load_b32"},
    {"s_load_dwordx2", "s_load_b64"},
    {"s_load_dwordx4", "s_load_b128"},
};

}  // namespace

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

std::string int_text(uint32_t bits) {
  int32_t s = int32_t(bits);
  return s >= -16 && s <= 64 ? std::to_string(s) : hex(bits);
}

bool select_entry(const Chip& chip, const ptx::Module& pm, const ptx::Entry& e, MFunc& f, KernelAbi& abi,
                  IselError& err) {
  Isel s(chip, pm, e, f);
  return s.run(abi, err);
}

Isel::Isel(const Chip& c, const ptx::Module& pm, const ptx::Entry& e, MFunc& f)
    : chip_(c), pm_(pm), e_(e), f_(f), wave64_(c.wave == 64) {
  f_.regs.push_back({});  // vreg 0: none
  regs_.assign(e.reg_bits.size(), 0);
  preds_.assign(e.npreds, 0);
  pred_defs_.assign(e.npreds, 0);
  for (const ptx::Inst& in : e.code) {
    if (in.op == Op::Setp || (in.op == Op::Mov && in.type == Ty::Pred) ||
        ((in.op == Op::And || in.op == Op::Or || in.op == Op::Xor || in.op == Op::Not) && in.type == Ty::Pred)) {
      for (unsigned k = 0; k < 2 && k < in.nops; ++k) {
        const Opnd& o = e.ops[in.op0 + k];
        if (o.kind == Opnd::Pred) pred_defs_[o.reg] += in.guard >= 0 ? 2 : 1;
      }
    }
  }
  f_.reserved_s = chip_.wgid_sgpr() + 1;
  f_.reserved_v = 1;
}

MOp Isel::reg_op(uint32_t r, uint8_t part, bool use, bool def) {
  MOp o;
  o.kind = MOp::Reg;
  o.reg = r;
  o.part = part;
  o.use = use;
  o.def = def;
  return o;
}

uint32_t Isel::vnew(RegFile file, unsigned dwords) {
  f_.regs.push_back({file, uint8_t(dwords), -1});
  return uint32_t(f_.regs.size() - 1);
}

namespace {

// VOP1 / VOP2 ops, whose first source may be a 32-bit literal (the others
// are VOP3 on gfx9, which has no literal operand).
bool literal_ok(std::string_view op) {
  static constexpr std::string_view kOps[] = {
      "v_mov_b32", "v_and_b32", "v_or_b32", "v_xor_b32", "v_add_u32", "v_sub_u32", "v_add_f32",
      "v_sub_f32", "v_mul_f32", "v_min_f32", "v_max_f32", "v_min_i32", "v_max_i32", "v_min_u32",
      "v_max_u32", "v_lshlrev_b32", "v_lshrrev_b32", "v_ashrrev_i32"};
  for (std::string_view k : kOps)
    if (op == k) return true;
  return false;
}

bool is_vgpr(const MOp& o, const std::vector<VReg>& regs) {
  if (o.kind == MOp::Reg) return regs[o.reg].file == RegFile::V;
  return o.text.size() > 1 && o.text[0] == 'v' && (std::isdigit((unsigned char)o.text[1]) || o.text[1] == '[');
}

}  // namespace

void Isel::I(std::string_view op, std::initializer_list<MOp> ops, std::string tail) {
  MInst mi;
  mi.op = mn(op);
  mi.ops = ops;
  // A literal (written in hex) where the encoding cannot hold one moves to
  // a VGPR: not in a VOP3-only op, not beside a non-VGPR source.
  if (op.substr(0, 2) == "v_" && op != "v_mov_b32") {
    size_t first_src = (op.find("_co_") != std::string_view::npos || op.rfind("v_mad_", 0) == 0 ||
                        op.rfind("v_addc", 0) == 0 || op.rfind("v_subb", 0) == 0) ? 2 : 1;
    for (size_t k = first_src; k < mi.ops.size(); ++k) {
      MOp& o = mi.ops[k];
      if (o.kind != MOp::Text || o.text.rfind("0x", 0) != 0) continue;
      bool ok = literal_ok(op) && k == first_src;
      for (size_t j = first_src; j < mi.ops.size() && ok; ++j)
        if (j != k && !is_vgpr(mi.ops[j], f_.regs)) ok = false;
      if (!ok) o = U(const32(uint32_t(std::strtoull(o.text.c_str(), nullptr, 16))));
    }
  }
  mi.tail = std::move(tail);
  // An instruction under a guard writes only the guard's lanes: the
  // others keep their values, so a written register is also read.
  if (saved_exec_)
    for (MOp& o : mi.ops)
      if (o.kind == MOp::Reg && o.def) o.use = true;
  f_.code.push_back(std::move(mi));
}

std::string Isel::mn(std::string_view gfx9) const {
  if (chip_.gen < 11) return std::string(gfx9);
  for (const Rename& r : kRenames)
    if (gfx9 == r.gfx9) return r.gfx11;
  return std::string(gfx9);
}

MOp Isel::imm32(uint32_t bits, bool float_op) {
  int32_t s = int32_t(bits);
  if (!float_op && s >= -16 && s <= 64) return T(std::to_string(s));
  if (float_op) {
    static constexpr struct {
      uint32_t bits;
      const char* text;
    } kF[] = {{0, "0"},           {0x3f000000, "0.5"},  {0xbf000000, "-0.5"}, {0x3f800000, "1.0"},
              {0xbf800000, "-1.0"}, {0x40000000, "2.0"}, {0xc0000000, "-2.0"}, {0x40800000, "4.0"},
              {0xc0800000, "-4.0"}};
    for (const auto& k : kF)
      if (k.bits == bits) return T(k.text);
  }
  return U(const32(bits));
}

uint32_t Isel::const32(uint32_t bits) {
  uint32_t r = v32();
  I("v_mov_b32", {D(r), T(int_text(bits))});
  return r;
}

uint32_t Isel::dst(const Opnd& o) {
  if (o.kind != Opnd::Reg) return v32();  // a sink
  uint32_t& r = regs_[o.reg];
  if (!r) r = vnew(RegFile::V, e_.reg_bits[o.reg] > 32 ? 2 : 1);
  return r;
}

uint32_t Isel::pred(uint32_t p) {
  uint32_t& r = preds_[p];
  if (!r) r = mask();
  return r;
}

MOp Isel::src32(const Opnd& o, bool float_op) {
  switch (o.kind) {
    case Opnd::Reg: {
      uint32_t r = dst(o);
      return e_.reg_bits[o.reg] > 32 ? U(r, 0) : U(r);
    }
    case Opnd::Imm: return imm32(uint32_t(o.imm), float_op);
    case Opnd::Special: {
      uint32_t r = v32();
      special(o, r);
      return U(r);
    }
    default: {
      err_.msg = "an operand of this kind has no amdgpu translation";
      return T("0");
    }
  }
}

uint32_t Isel::src32v(const Opnd& o) {
  if (o.kind == Opnd::Reg && e_.reg_bits[o.reg] <= 32) return dst(o);
  MOp m = src32(o);
  if (m.kind == MOp::Reg && m.part == 0xff) return m.reg;
  uint32_t r = v32();
  MOp d = D(r);
  I("v_mov_b32", {d, m});
  return r;
}

uint32_t Isel::src64(const Opnd& o) {
  if (o.kind == Opnd::Reg && e_.reg_bits[o.reg] > 32) return dst(o);
  uint32_t r = v64();
  if (o.kind == Opnd::Imm) {
    uint64_t v = uint64_t(o.imm);
    I("v_mov_b32", {D(r, 0), imm32(uint32_t(v), false)});
    I("v_mov_b32", {D(r, 1), imm32(uint32_t(v >> 32), false)});
    return r;
  }
  // A 32-bit register or special read as 64 bits: zero-extended.
  I("v_mov_b32", {D(r, 0), src32(o)});
  I("v_mov_b32", {D(r, 1), T("0")});
  return r;
}

bool Isel::special(const Opnd& o, uint32_t d) {
  using ptx::Sreg;
  switch (o.sreg) {
    case Sreg::TidX: I("v_mov_b32", {D(d), T("v0")}); return true;
    case Sreg::TidY: case Sreg::TidZ: case Sreg::CtaidY: case Sreg::CtaidZ: I("v_mov_b32", {D(d), T("0")}); return true;
    case Sreg::NtidX: I("v_mov_b32", {D(d), T(std::to_string(abi_.workgroup))}); return true;
    case Sreg::NtidY: case Sreg::NtidZ: case Sreg::NctaidY: case Sreg::NctaidZ: I("v_mov_b32", {D(d), T("1")}); return true;
    case Sreg::CtaidX: I("v_mov_b32", {D(d), T("s" + std::to_string(chip_.wgid_sgpr()))}); return true;
    case Sreg::NctaidX: {
      uint32_t s = vnew(RegFile::S, 1);
      I("s_load_dword", {D(s), T("s[0:1]"), T(hex(abi_.block_count_off))});
      I("v_mov_b32", {D(d), U(s)});
      return true;
    }
    case Sreg::Laneid: I("v_and_b32", {D(d), T("31"), T("v0")}); return true;
    case Sreg::Warpid: I("v_lshrrev_b32", {D(d), T("5"), T("v0")}); return true;
    default:
      err_.msg = "this special register has no amdgpu translation";
      I("v_mov_b32", {D(d), T("0")});
      return false;
  }
}

bool Isel::run(KernelAbi& abi, IselError& err) {
  // The kernarg segment: the PTX parameters where PTX puts them, then the
  // hidden block count.
  abi_.explicit_bytes = e_.param_buffer_bytes;
  abi_.block_count_off = (e_.param_buffer_bytes + 7) / 8 * 8;
  abi_.kernarg_bytes = abi_.block_count_off + 8;
  abi_.lds_bytes = uint32_t(e_.shared_total());
  abi_.workgroup = e_.reqntid[0] ? e_.reqntid[0] * std::max(1u, e_.reqntid[1]) * std::max(1u, e_.reqntid[2]) : 256;
  if (e_.reqntid[1] > 1 || e_.reqntid[2] > 1) {
    err = {"a block of more than one dimension has no amdgpu translation", ~0u};
    return false;
  }
  if (abi_.lds_bytes > kMaxTileScratch) {
    err = {"the kernel needs " + std::to_string(abi_.lds_bytes) + " bytes of tile memory; a workgroup may have " +
               std::to_string(kMaxTileScratch) + " in global memory",
           ~0u, true};
    return false;
  }
  plan_labels();
  if (abi_.lds_bytes > chip_.lds_bytes) tile_scratch_prologue();
  uint32_t last_line = 0, last_col = 0;
  for (uint32_t i = 0; i < e_.code.size(); ++i) {
    bind_label(i);
    const ptx::Inst& in = e_.code[i];
    if (in.loc) {
      const ptx::Loc& l = pm_.locs[in.loc - 1];
      if (l.line != last_line || l.col != last_col) {
        MInst m;
        m.kind = MInst::Loc;
        m.line = l.line, m.col = l.col;
        f_.code.push_back(m);
        last_line = l.line, last_col = l.col;
      }
    }
    cur_ = i;
    if (!inst(in, i) || !err_.msg.empty()) {
      err = err_;
      if (err.msg.empty()) err.msg = "PTX '" + e_.text[i] + "' has no amdgpu translation yet";
      err.inst = i;
      return false;
    }
  }
  bind_label(uint32_t(e_.code.size()));
  MInst end;
  end.kind = MInst::Label;
  end.label = end_label_;
  f_.code.push_back(end);
  I("s_endpgm", {});
  abi = abi_;
  return true;
}

// Shared memory past the chip's LDS: the PTX's shared window becomes this
// workgroup's slice of a global buffer the launcher passes after the
// hidden block count. Its base is an SGPR pair reserved after the
// workgroup id (and two more for the product), so every former LDS access
// is a global one with that `saddr` and the 32-bit shared address as its
// VGPR offset; the LDS itself is not used.
void Isel::tile_scratch_prologue() {
  abi_.tile_scratch_bytes = uint32_t((abi_.lds_bytes + 255) & ~uint64_t(255));
  abi_.tile_scratch_off = abi_.kernarg_bytes;
  abi_.kernarg_bytes += 8;
  abi_.lds_bytes = 0;
  unsigned b = (chip_.wgid_sgpr() + 2) & ~1u;
  f_.reserved_s = b + 4;
  auto s = [](unsigned i) { return "s" + std::to_string(i); };
  tile_base_ = "s[" + std::to_string(b) + ":" + std::to_string(b + 1) + "]";
  std::string wg = s(chip_.wgid_sgpr()), bytes = hex(abi_.tile_scratch_bytes);
  I("s_load_dwordx2", {T(tile_base_), T("s[0:1]"), T(hex(abi_.tile_scratch_off))});
  I("s_mul_i32", {T(s(b + 2)), T(wg), T(bytes)});
  I("s_mul_hi_u32", {T(s(b + 3)), T(wg), T(bytes)});
  I("s_add_u32", {T(s(b)), T(s(b)), T(s(b + 2))});
  I("s_addc_u32", {T(s(b + 1)), T(s(b + 1)), T(s(b + 3))});
}

// One PTX instruction; a guard makes it run on the guard's lanes only.
bool Isel::inst(const ptx::Inst& in, uint32_t idx) {
  switch (in.op) {
    case Op::Bra: branch(in, idx); return true;
    case Op::Ret: case Op::Exit: ret(in, idx); return true;
    case Op::Nop: case Op::BarWarp: case Op::CpCommit: case Op::CpWait: return true;
    case Op::Bar:
      // Every wave's memory operations are done before any wave passes.
      I("s_waitcnt", {}, "vmcnt(0) lgkmcnt(0)");
      if (chip_.gen >= 11) I("s_waitcnt_vscnt", {T("null"), T("0x0")});
      I("s_barrier", {});
      return true;
    default: break;
  }
  if (in.guard >= 0 && !(in.op == Op::Setp || in.op == Op::Selp)) guard_begin(in);
  bool ok = false;
  switch (in.op) {
    case Op::Mov: ok = mov(in); break;
    case Op::Ld: ok = load(in); break;
    case Op::St: ok = store(in); break;
    case Op::Cvta: case Op::CvtaTo: {
      if (in.space != ptx::Space::Global) break;
      uint32_t d = dst(opnd(in, 0));
      if (in.type == Ty::U64) {
        uint32_t s = src64(opnd(in, 1));
        I("v_mov_b32", {D(d, 0), U(s, 0)});
        I("v_mov_b32", {D(d, 1), U(s, 1)});
      } else {
        I("v_mov_b32", {D(d), src32(opnd(in, 1))});
      }
      ok = true;
      break;
    }
    case Op::Setp: ok = setp(in); break;
    case Op::Selp: ok = selp(in); break;
    case Op::Cvt: ok = cvt(in); break;
    case Op::Atom: ok = atom(in); break;
    case Op::Shfl: ok = shfl(in); break;
    case Op::Mma: ok = wave_mma(in); break;
    case Op::CpAsync: ok = cp_async(in); break;
    default:
      if (in.type == Ty::F64) ok = f64_op(in);
      else if (ptx::ty_float(in.type)) ok = float_op(in);
      else if (in.type == Ty::Pred) ok = int_op(in);
      else if (ptx::ty_bytes(in.type) == 8) ok = int64_op(in);
      else ok = int_op(in);
      break;
  }
  if (in.guard >= 0 && !(in.op == Op::Setp || in.op == Op::Selp)) guard_end();
  return ok;
}

void Isel::guard_begin(const ptx::Inst& in) {
  uint32_t p = pred(uint32_t(in.guard));
  uint32_t saved = mask();
  if (in.guard_neg) {
    uint32_t t = mask();
    I(mask_op("s_not"), {D(t), U(p)});
    p = t;
  }
  I(mask_op("s_and_saveexec"), {D(saved), U(p)});
  saved_exec_ = saved;
}

void Isel::guard_end() {
  uint32_t s = saved_exec_;
  saved_exec_ = 0;
  I(mask_op("s_mov"), {T(exec()), U(s)});
}

}  // namespace ptoas::cg::amdgpu
