// Instruction selection: memory (kernel parameters, global memory, LDS),
// atomics, cp.async and warp shuffles.
#include "isel.h"

namespace ptoas::cg::amdgpu {

using ptx::Op;
using ptx::Opnd;
using ptx::Space;
using ptx::Ty;

namespace {

std::string off_tail(int64_t off) { return off ? "offset:" + std::to_string(off) : std::string(); }

}  // namespace

// The address operand: a VGPR (pair for global) and an immediate offset
// the instruction's field can hold.
void Isel::address(const Opnd& a, uint32_t& vaddr, int64_t& off, bool shared) {
  off = a.imm;
  if (shared) {
    if (a.has_base) {
      Opnd b;
      b.kind = Opnd::Reg;
      b.reg = a.reg;
      vaddr = src32v(b);
    } else {
      vaddr = const32(0);
    }
    // ds offsets are 16 bits unsigned; global ones (tiles in global
    // memory) 13 bits signed.
    if (off < 0 || off > (tile_base_.empty() ? 65535 : 4095)) {
      uint32_t x = v32();
      I("v_add_u32", {D(x), U(const32(uint32_t(off))), U(vaddr)});
      vaddr = x, off = 0;
    }
    return;
  }
  if (!a.has_base || e_.reg_bits[a.reg] != 64) {
    err_.msg = "a global address that is not a 64-bit register has no amdgpu translation";
    vaddr = v64();
    return;
  }
  Opnd b;
  b.kind = Opnd::Reg;
  b.reg = a.reg;
  vaddr = src64(b);
  if (off < -4096 || off > 4095) {
    uint32_t k = v64(), x = v64();
    I("v_mov_b32", {D(k, 0), U(const32(uint32_t(off)))});
    I("v_mov_b32", {D(k, 1), U(const32(uint32_t(uint64_t(off) >> 32)))});
    add64(x, vaddr, k);
    vaddr = x, off = 0;
  }
}

// The address of a global or shared access; false for another space, or
// an address the backend cannot form (err_ says why).
bool Isel::mem_address(const ptx::Inst& in, const Opnd& a, bool& shared, uint32_t& va, int64_t& off) {
  shared = in.space == Space::Shared;
  if (!shared && in.space != Space::Global) return false;
  address(a, va, off, shared);
  return err_.msg.empty();
}

// One global or LDS access at va + off: a load's data operand comes before
// the address, a store's after it (both ISAs); the gfx9 names, renamed for
// gfx11 by I().
void Isel::mem_inst(const char* g9, const char* ds, bool shared, bool load, MOp data, uint32_t va, int64_t off) {
  std::string tail = off_tail(off);
  if (shared && !tile_base_.empty()) {  // the shared window in global memory
    static const std::pair<std::string_view, const char*> kGlobal[] = {
        {"ds_read_b32", "global_load_dword"},     {"ds_read_b64", "global_load_dwordx2"},
        {"ds_read_b128", "global_load_dwordx4"},  {"ds_read_u8", "global_load_ubyte"},
        {"ds_read_i8", "global_load_sbyte"},      {"ds_read_u16", "global_load_ushort"},
        {"ds_read_i16", "global_load_sshort"},    {"ds_write_b32", "global_store_dword"},
        {"ds_write_b64", "global_store_dwordx2"}, {"ds_write_b128", "global_store_dwordx4"},
        {"ds_write_b8", "global_store_byte"},     {"ds_write_b16", "global_store_short"}};
    const char* g = nullptr;
    for (const auto& [d, gl] : kGlobal)
      if (d == ds) g = gl;
    if (load) I(g, {data, U(va), T(tile_base_)}, tail);
    else I(g, {U(va), data, T(tile_base_)}, tail);
    return;
  }
  if (shared) {
    if (load) I(ds, {data, U(va)}, tail);
    else I(ds, {U(va), data}, tail);
  } else {
    if (load) I(g9, {data, U(va), T("off")}, tail);
    else I(g9, {U(va), data, T("off")}, tail);
  }
}

bool Isel::load(const ptx::Inst& in) {
  const Opnd& d0 = opnd(in, 0);
  const Opnd& a = opnd(in, 1);
  unsigned eb = ptx::ty_bytes(in.type), n = in.vec, total = eb * n;
  if (in.space == Space::Param) {
    // The kernarg segment: dword loads, the parameter's bytes taken out.
    uint32_t off = uint32_t(a.imm), d = dst(d0);
    if (eb == 8) {
      uint32_t s = vnew(RegFile::S, 2);
      I("s_load_dwordx2", {D(s), T("s[0:1]"), T(hex(off))});
      I("v_mov_b32", {D(d, 0), U(s, 0)});
      I("v_mov_b32", {D(d, 1), U(s, 1)});
      return true;
    }
    uint32_t s = vnew(RegFile::S, 1);
    I("s_load_dword", {D(s), T("s[0:1]"), T(hex(off & ~3u))});
    if (eb == 4) {
      I("v_mov_b32", {D(d), U(s)});
    } else {
      uint32_t x = v32();
      I("v_mov_b32", {D(x), U(s)});
      I("v_bfe_u32", {D(d), U(x), T(std::to_string((off & 3) * 8)), T(std::to_string(eb * 8))});
    }
    return true;
  }
  bool shared = false;
  uint32_t va = 0;
  int64_t off = 0;
  if (!mem_address(in, a, shared, va, off)) return false;
  auto emit = [&](const char* g9, const char* ds, MOp data) { mem_inst(g9, ds, shared, true, data, va, off); };
  if (n == 1 && eb <= 4) {
    unsigned rb = d0.kind == Opnd::Reg ? e_.reg_bits[d0.reg] : 32;
    bool sx = ptx::ty_signed(in.type) && rb > eb * 8;
    uint32_t d = dst(d0);
    MOp data = rb == 64 ? D(d, 0) : D(d);
    if (eb == 4) emit("global_load_dword", "ds_read_b32", data);
    else if (eb == 2) emit(sx ? "global_load_sshort" : "global_load_ushort", sx ? "ds_read_i16" : "ds_read_u16", data);
    else emit(sx ? "global_load_sbyte" : "global_load_ubyte", sx ? "ds_read_i8" : "ds_read_u8", data);
    if (rb == 64) {
      if (sx) I("v_ashrrev_i32", {D(d, 1), T("31"), U(d, 0)});
      else I("v_mov_b32", {D(d, 1), T("0")});
    }
    return true;
  }
  if (eb == 1 && (total == 2 || total == 4)) {
    // Bytes: one 16- or 32-bit access, then each byte taken out.
    uint32_t t = v32();
    if (total == 2) emit("global_load_ushort", "ds_read_u16", D(t));
    else emit("global_load_dword", "ds_read_b32", D(t));
    for (unsigned k = 0; k < n; ++k) {
      const Opnd& e = e_.ops[d0.reg + k];
      if (e.kind != Opnd::Reg) continue;
      bool sx = ptx::ty_signed(in.type) && e_.reg_bits[e.reg] > 8;
      I(sx ? "v_bfe_i32" : "v_bfe_u32", {D(dst(e)), U(t), T(std::to_string(8 * k)), T("8")});
    }
    return true;
  }
  if (total != 4 && total != 8 && total != 16) return false;
  unsigned dw = total / 4;
  uint32_t t = n == 1 && eb == 8 ? dst(d0) : vnew(RegFile::V, dw);
  const char* g9 = dw == 1 ? "global_load_dword" : dw == 2 ? "global_load_dwordx2" : "global_load_dwordx4";
  const char* ds = dw == 1 ? "ds_read_b32" : dw == 2 ? "ds_read_b64" : "ds_read_b128";
  emit(g9, ds, D(t));
  if (n == 1 && eb == 8) return true;
  for (unsigned k = 0; k < n; ++k) {
    const Opnd& e = e_.ops[d0.reg + k];
    if (e.kind != Opnd::Reg) continue;
    uint32_t r = dst(e);
    if (eb == 8) {
      I("v_mov_b32", {D(r, 0), U(t, uint8_t(2 * k))});
      I("v_mov_b32", {D(r, 1), U(t, uint8_t(2 * k + 1))});
    } else if (eb == 4) {
      I("v_mov_b32", {D(r), U(t, uint8_t(k))});
    } else if (eb == 2) {
      if (k % 2 == 0) I("v_and_b32", {D(r), T("0xffff"), U(t, uint8_t(k / 2))});
      else I("v_lshrrev_b32", {D(r), T("16"), U(t, uint8_t(k / 2))});
    } else {
      return false;
    }
  }
  return true;
}

bool Isel::store(const ptx::Inst& in) {
  const Opnd& a = opnd(in, 0);
  const Opnd& s0 = opnd(in, 1);
  unsigned eb = ptx::ty_bytes(in.type), n = in.vec, total = eb * n;
  bool shared = false;
  uint32_t va = 0;
  int64_t off = 0;
  if (!mem_address(in, a, shared, va, off)) return false;
  auto emit = [&](const char* g9, const char* ds, MOp data) { mem_inst(g9, ds, shared, false, data, va, off); };
  if (n == 1 && eb <= 4) {
    uint32_t v = src32v(s0);
    if (eb == 4) emit("global_store_dword", "ds_write_b32", U(v));
    else if (eb == 2) emit("global_store_short", "ds_write_b16", U(v));
    else emit("global_store_byte", "ds_write_b8", U(v));
    return true;
  }
  if (n == 1 && eb == 8) {
    emit("global_store_dwordx2", "ds_write_b64", U(src64(s0)));
    return true;
  }
  if (eb == 1 && (total == 2 || total == 4)) {
    uint32_t t = v32();
    I("v_and_b32", {D(t), T("0xff"), src32(e_.ops[s0.reg])});
    for (unsigned k = 1; k < n; ++k) {
      uint32_t b = v32(), h = v32();
      I("v_and_b32", {D(b), T("0xff"), src32(e_.ops[s0.reg + k])});
      I("v_lshlrev_b32", {D(h), T(std::to_string(8 * k)), U(b)});
      I("v_or_b32", {DU(t), U(t), U(h)});
    }
    if (total == 2) emit("global_store_short", "ds_write_b16", U(t));
    else emit("global_store_dword", "ds_write_b32", U(t));
    return true;
  }
  if (total != 4 && total != 8 && total != 16) return false;
  unsigned dw = total / 4;
  uint32_t t = vnew(RegFile::V, dw);
  for (unsigned k = 0; k < n; ++k) {
    const Opnd& e = e_.ops[s0.reg + k];
    if (eb == 8) {
      uint32_t x = src64(e);
      I("v_mov_b32", {D(t, uint8_t(2 * k)), U(x, 0)});
      I("v_mov_b32", {D(t, uint8_t(2 * k + 1)), U(x, 1)});
    } else if (eb == 4) {
      I("v_mov_b32", {D(t, uint8_t(k)), src32(e)});
    } else if (eb == 2) {
      if (k % 2 == 0) {
        I("v_and_b32", {D(t, uint8_t(k / 2)), T("0xffff"), src32(e)});
      } else {
        uint32_t h = v32();
        I("v_lshlrev_b32", {D(h), T("16"), src32(e)});
        I("v_or_b32", {DU(t, uint8_t(k / 2)), U(t, uint8_t(k / 2)), U(h)});
      }
    } else {
      return false;
    }
  }
  emit(dw == 1 ? "global_store_dword" : dw == 2 ? "global_store_dwordx2" : "global_store_dwordx4",
       dw == 1 ? "ds_write_b32" : dw == 2 ? "ds_write_b64" : "ds_write_b128", U(t));
  return true;
}

bool Isel::atom(const ptx::Inst& in) {
  if (in.space != Space::Global || ptx::ty_bytes(in.type) != 4) return false;
  bool red = opnd(in, 0).kind == Opnd::Sink;
  uint32_t va = 0;
  int64_t off = 0;
  address(opnd(in, 1), va, off, false);
  if (!err_.msg.empty()) return false;
  auto a = ptx::AtomOp(in.mode);
  std::string tail = off_tail(off), ret = tail + (tail.empty() ? "" : " ") + returns_old();
  if (a == ptx::AtomOp::Add && ptx::ty_int(in.type)) {
    uint32_t v = src32v(opnd(in, 2));
    if (red) I("global_atomic_add", {U(va), U(v), T("off")}, tail);
    else I("global_atomic_add", {D(dst(opnd(in, 0))), U(va), U(v), T("off")}, ret);
  } else if (a == ptx::AtomOp::Cas && !red) {
    uint32_t pair = v64();
    I("v_mov_b32", {D(pair, 0), src32(opnd(in, 3))});
    I("v_mov_b32", {D(pair, 1), src32(opnd(in, 2))});
    I("global_atomic_cmpswap", {D(dst(opnd(in, 0))), U(va), U(pair), T("off")}, ret);
  } else {
    return false;
  }
  return true;
}

// cp.async: done at once (a load into registers, then an LDS store), so
// its commit and wait are nothing. Bytes past src-size are zero.
bool Isel::cp_async(const ptx::Inst& in) {
  const Opnd& size = opnd(in, 2);
  if (size.imm != 16 && size.imm != 8 && size.imm != 4) return false;
  unsigned dw = unsigned(size.imm / 4);
  uint32_t ga = 0, sa = 0;
  int64_t goff = 0, soff = 0;
  address(opnd(in, 1), ga, goff, false);
  address(opnd(in, 0), sa, soff, true);
  if (!err_.msg.empty()) return false;
  uint32_t t = vnew(RegFile::V, dw == 3 ? 4 : dw);
  for (unsigned k = 0; k < dw; ++k) I("v_mov_b32", {D(t, uint8_t(k)), T("0")});
  uint32_t nb = 0;
  bool has_size = in.nops > 3 && in.mode != 1;
  if (in.nops > 3 && in.mode == 1) return false;
  if (has_size) nb = src32v(opnd(in, 3));
  for (unsigned k = 0; k < dw; ++k) {
    uint32_t saved = 0;
    if (has_size) {
      uint32_t m = mask();
      saved = mask();
      I("v_cmp_le_u32_e64", {D(m), U(const32(4 * k + 4)), U(nb)});
      I(mask_op("s_and_saveexec"), {D(saved), U(m)});
    }
    I("global_load_dword", {DU(t, uint8_t(k)), U(ga), T("off")}, off_tail(goff + 4 * k));
    if (has_size) I(mask_op("s_mov"), {T(exec()), U(saved)});
  }
  mem_inst(nullptr, dw == 1 ? "ds_write_b32" : dw == 2 ? "ds_write_b64" : "ds_write_b128", true, false, U(t), sa, soff);
  return true;
}

// A butterfly within a 16-lane row as DPP moves (the reduction steps
// xor 1, 2, 4, 8): a VALU op, no trip through the LDS unit. gfx11 has
// row_xmask for any mask below 16; gfx9 has quad_perm for 1 and 2, and
// for 4 and 8 two row shifts, each writing the banks (groups of 4 lanes)
// whose partner lies that way. bound_ctrl: a lane whose source is off
// reads 0, as ds_swizzle gives.
bool Isel::dpp_butterfly(uint32_t d, uint32_t a, unsigned xmask) {
  const char* fixed = "row_mask:0xf bank_mask:0xf bound_ctrl:1";
  if (xmask == 0 || xmask > 15) return false;
  if (chip_.gen >= 11) {
    I("v_mov_b32_dpp", {D(d), U(a)}, "row_xmask:" + std::to_string(xmask) + " " + fixed);
    return true;
  }
  if (xmask == 1 || xmask == 2) {
    I("v_mov_b32_dpp", {D(d), U(a)}, std::string(xmask == 1 ? "quad_perm:[1,0,3,2] " : "quad_perm:[2,3,0,1] ") + fixed);
    return true;
  }
  if (xmask != 4 && xmask != 8) return false;
  // Lanes with bit `xmask` clear read upward (row_shl), the others downward.
  std::string n = std::to_string(xmask);
  const char* low = xmask == 4 ? "0x5" : "0x3";
  const char* high = xmask == 4 ? "0xa" : "0xc";
  I("v_mov_b32_dpp", {D(d), U(a)}, "row_shl:" + n + " row_mask:0xf bank_mask:" + low + " bound_ctrl:1");
  I("v_mov_b32_dpp", {DU(d), U(a)}, "row_shr:" + n + " row_mask:0xf bank_mask:" + high + " bound_ctrl:1");
  return true;
}

// shfl.sync within a PTX warp (32 lanes: half a wave64 wave): a butterfly
// with a constant mask within 16 lanes is DPP (dpp_butterfly), with any
// other constant mask ds_swizzle_b32's bit-mask mode, every other form
// ds_bpermute_b32 with the source lane's byte address.
bool Isel::shfl(const ptx::Inst& in) {
  if (opnd(in, 1).kind == Opnd::Pred) return false;
  auto mode = ptx::ShflMode(in.mode);
  const Opnd& b = opnd(in, 3);
  const Opnd& c = opnd(in, 4);
  uint32_t d = dst(opnd(in, 0));
  uint32_t a = src32v(opnd(in, 2));
  if (c.kind != Opnd::Imm) return false;
  bool up = mode == ptx::ShflMode::Up;
  if ((up && c.imm != 0) || (!up && c.imm != 31)) return false;
  if (mode == ptx::ShflMode::Bfly && b.kind == Opnd::Imm && b.imm >= 0 && b.imm < 32) {
    if (dpp_butterfly(d, a, unsigned(b.imm))) return true;
    unsigned off = unsigned(b.imm) << 10 | 0x1f;
    I("ds_swizzle_b32", {D(d), U(a)}, "offset:" + std::to_string(off));
    return true;
  }
  // The source lane within the wave; lanes outside the 32-lane group (up /
  // down past its end) read their own value.
  uint32_t lane = v32(), in32 = v32(), src = v32(), bv = src32v(b), m = mask();
  I("v_and_b32", {D(lane), T(wave64_ ? "63" : "31"), T("v0")});
  I("v_and_b32", {D(in32), T("31"), T("v0")});
  switch (mode) {
    case ptx::ShflMode::Bfly: {
      uint32_t x = v32();
      I("v_and_b32", {D(x), T("31"), U(bv)});
      I("v_xor_b32", {D(src), U(lane), U(x)});
      break;
    }
    case ptx::ShflMode::Idx: {
      uint32_t x = v32(), y = v32();
      I("v_and_b32", {D(x), T("31"), U(bv)});
      I("v_and_b32", {D(y), T(wave64_ ? "32" : "0"), U(lane)});
      I("v_or_b32", {D(src), U(x), U(y)});
      break;
    }
    case ptx::ShflMode::Down: {
      uint32_t x = v32(), y = v32();
      I("v_add_u32", {D(x), U(in32), U(bv)});
      I("v_cmp_lt_u32_e64", {D(m), T("31"), U(x)});
      I("v_add_u32", {D(y), U(lane), U(bv)});
      I("v_cndmask_b32_e64", {D(src), U(y), U(lane), U(m)});
      break;
    }
    case ptx::ShflMode::Up: {
      uint32_t y = v32();
      I("v_cmp_lt_u32_e64", {D(m), U(in32), U(bv)});
      I("v_sub_u32", {D(y), U(lane), U(bv)});
      I("v_cndmask_b32_e64", {D(src), U(y), U(lane), U(m)});
      break;
    }
  }
  uint32_t byte = v32();
  I("v_lshlrev_b32", {D(byte), T("2"), U(src)});
  I("ds_bpermute_b32", {D(d), U(byte), U(a)});
  return true;
}

}  // namespace ptoas::cg::amdgpu
