// x86-64 code generation: the fused multi-term ops and row / column
// expansion (x86/gen.h, docs/x86_backend.md).
#include <algorithm>

#include "gen.h"

namespace ptoas::cg::x86::gen {

// The fused multi-term ops, each IEEE operation rounded to the element type
// in turn as the interpreter evaluates them (f16 / bf16 through
// round_lane); no FMA contraction.
void Gen::fused(const Inst& in, const FusedPlan& pl) {
  const auto& d = pl.d;
  const auto& dst = pl.dst;
  const auto& n_used = pl.n_used;
  const auto& tile_of = pl.tile_of;
  const auto& tiles = pl.tiles;
  const auto& reads_dst = pl.reads_dst;
  Op o = in.op;
  unsigned es = dtype_bytes(d);
  bool fl = dtype_is_float(d);
  std::vector<Reg64> ptrs;
  std::vector<Stride> strides;
  if (!elem_loop(in, dst, tiles, ptrs, strides)) return;
  for (unsigned i = 0; i < n_used; ++i)
    if (tile_of[i] < 0) bcast_e(d, V(8 + int(i)), rbp + disp(sl(op(in, i))));
  vxorps(V(6), V(6), V(6));
  Xmm r = V(0), a = V(1), b = V(2), c = V(3), dv = V(4), t = V(5), zero = V(6);
  Xmm xin[3] = {a, b, c};
  auto add = [&](const Xmm& y, const Xmm& p, const Xmm& q2) { fl ? vaddps(y, p, q2) : vpaddd(y, p, q2); };
  auto sub = [&](const Xmm& y, const Xmm& p, const Xmm& q2) { fl ? vsubps(y, p, q2) : vpsubd(y, p, q2); };
  auto relu0 = [&](const Xmm& y) {  // v > 0 ? v : 0 (NaN and -0 give +0)
    cmp_ps(t, y, zero, 0x1E);        // GT_OQ
    vandps(y, y, t);
  };
  row_loop(ptrs, strides, [&](bool masked) {
    for (unsigned i = 0; i < n_used; ++i) {
      if (tile_of[i] >= 0) LD(xin[i], ptrs[size_t(tile_of[i]) + 1]);
      else vmovaps(xin[i], V(8 + int(i)));
    }
    if (reads_dst) LD(dv, rdi);
    switch (o) {
      case Op::TAddC: case Op::TAddSC:
        add(r, a, b);
        round_lane(d, r);
        add(r, r, c);
        break;
      case Op::TSubC: case Op::TSubSC:
        sub(r, a, b);
        round_lane(d, r);
        add(r, r, c);
        break;
      case Op::TMulAddDst:
        vmulps(r, a, b);
        round_lane(d, r);
        vaddps(r, r, dv);
        break;
      case Op::TFusedMulAdd: case Op::TFusedMulAddRelu:
        vmulps(r, a, dv);
        round_lane(d, r);
        vaddps(r, r, b);
        if (o == Op::TFusedMulAddRelu) {
          round_lane(d, r);
          relu0(r);
        }
        break;
      case Op::TSubRelu:
        vsubps(r, a, b);
        round_lane(d, r);
        relu0(r);
        break;
      case Op::TLRelu: case Op::TPrelu:  // x > 0 ? x : x * slope
        vmulps(r, a, b);
        cmp_ps(t, a, zero, 0x1E);
        blend_ps(r, r, a, t);
        break;
      case Op::TAxpy:  // s * src in the element type, then + dst
        vmulps(r, b, a);
        round_lane(d, r);
        vaddps(r, r, dv);
        break;
      default: break;
    }
    ST(rdi, r);
  });
}

// ---- row / column expansion ------------------------------------------------------------

// dst[r, c] = op(s0[r, c], s1[r, 0]) (or with s0 the column): the operand
// that is one column wide is broadcast per row. A full operand narrower than
// dst (the interpreter tiles it cyclically) is read as if it were as wide.
void Gen::row_expand(const Inst& in, const ExpandPlan& pl) {
  const auto& plain = pl.plain;
  const auto& dst = pl.dst;
  const auto& s = pl.s;
  const auto& bk = pl.bk;
  const auto& colk = pl.colk;
  const auto& cap_r = pl.cap_r;
  const auto& cap_c = pl.cap_c;
  DType d = ty(dst).elem;
  unsigned es = dtype_bytes(d);
  TileGeo gd = geo(dst);
  valid_rc(dst, cap_r, cap_c);
  LOOP_CONSTANTS();
  tile_ptr(rdi, dst);
  tile_ptr(rsi, s[0]);
  std::vector<Reg64> ptrs{rdi, rsi};
  std::vector<Stride> strides{{nullptr, gd.rs}, {nullptr, geo(s[0]).rs}};
  if (!plain) {
    tile_ptr(rdx, s[1]);
    ptrs.push_back(rdx);
    strides.push_back({nullptr, geo(s[1]).rs});
  }
  if (plain) d = bits_type(d);  // trowexpand copies bits
  row_loop(ptrs, strides, [&](bool masked) {
    if (plain) {
      bcast_e(d, V(0), rsi);
    } else {
      if (colk == 0) bcast_e(d, V(0), rsi);
      else LD(V(0), rsi);
      if (colk == 1) bcast_e(d, V(1), rdx);
      else LD(V(1), rdx);
      bin(bk, d);
    }
    ST(rdi, V(0));
  });
}

// dst[r, c] = op(s0[r', c], s1[r'', c]), an operand with one valid row read
// at row 0 (its row stride is 0 then, decided at run time).
void Gen::col_expand(const Inst& in, const ExpandPlan& pl) {
  const auto& plain = pl.plain;
  const auto& nsrc = pl.nsrc;
  const auto& dst = pl.dst;
  const auto& s = pl.s;
  const auto& bk = pl.bk;
  const auto& cap_r = pl.cap_r;
  const auto& cap_c = pl.cap_c;
  DType d = ty(dst).elem;
  unsigned es = dtype_bytes(d);
  TileGeo gd = geo(dst);
  valid_rc(dst, cap_r, cap_c);
  static const Reg64 sregs[] = {rsi, rdx};
  static const Reg64 stregs[] = {r10, r11};
  for (unsigned i = 0; i < nsrc; ++i) {
    tile_ptr(sregs[i], s[i]);
    if (plain || ty(s[i]).rows == 1) {
      xor_(stregs[i].cvt32(), stregs[i].cvt32());
    } else {
      mov(stregs[i], geo(s[i]).rs);
      xor_(ecx, ecx);
      cmp(qword[rbp + disp(sl(s[i], 1))], 1);
      cmove(stregs[i], rcx);
    }
  }
  LOOP_CONSTANTS();
  tile_ptr(rdi, dst);
  std::vector<Reg64> ptrs{rdi, rsi};
  std::vector<Stride> strides{{nullptr, gd.rs}, {&r10, 0}};
  if (!plain) {
    ptrs.push_back(rdx);
    strides.push_back({&r11, 0});
  }
  if (plain) d = bits_type(d);  // tcolexpand copies bits
  row_loop(ptrs, strides, [&](bool masked) {
    LD(V(0), rsi);
    if (!plain) {
      LD(V(1), rdx);
      bin(bk, d);
    }
    ST(rdi, V(0));
  });
}

}  // namespace ptoas::cg::x86::gen
