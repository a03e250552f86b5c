// x86-64 code generation: the fused multi-term ops and row / column
// expansion (x86_gen.h, docs/x86_backend.md).
#include <algorithm>

#include "x86_gen.h"

namespace ptoas::cg::x86::gen {

// The fused multi-term ops, each IEEE operation rounded to the element type
// in turn as the interpreter evaluates them (f16 / bf16 through
// round_lane); no FMA contraction.
void Gen::fused(const Inst& in) {
  if (in.n_outs != 1) return fail(in);
  Op o = in.op;
  ValueId dst = op(in, in.n_ins);
  if (!tile_type_ok(in, dst, false)) return;
  DType d = ty(dst).elem;
  unsigned es = dtype_bytes(d);
  bool fl = dtype_is_float(d);
  bool int_ok = o == Op::TAddC || o == Op::TSubC || o == Op::TAddSC || o == Op::TSubSC;
  if (!fl && !int_ok) return fail(in);
  unsigned n_used = o == Op::TPrelu ? 2 : in.n_ins;
  unsigned want = (o == Op::TAddC || o == Op::TSubC || o == Op::TAddSC || o == Op::TSubSC) ? 3 : 2;
  if (n_used < want) return fail(in, "this operand form of " + std::string(op_name(o)));
  n_used = want;
  bool reads_dst = o == Op::TMulAddDst || o == Op::TFusedMulAdd || o == Op::TFusedMulAddRelu || o == Op::TAxpy;
  // Inputs: tiles get the loop's pointer registers in order; scalars are
  // broadcast once into V8 + i.
  std::vector<ValueId> tiles;
  std::vector<int> tile_of(n_used, -1);
  for (unsigned i = 0; i < n_used; ++i) {
    ValueId v = op(in, i);
    if (ty(v).kind == TypeKind::TileBuf) {
      if (!tile_type_ok(in, v, false)) return;
      if (ty(v).elem != d) return fail(in, "op " + std::string(op_name(o)) + " with mixed element types");
      tile_of[i] = int(tiles.size());
      tiles.push_back(v);
    } else {
      if (ty(v).kind != TypeKind::Scalar || ty(v).elem != d) return fail(in);
    }
  }
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

// The checks both expansions start with: one result tile of a lane type,
// the sources s[0] (and s[1] unless plain), the binary kind (no div or
// expdif for integers). False when an error was reported.
bool Gen::expand_head(const Inst& in, bool plain, ValueId& dst, ValueId s[2], Bin& bk) {
  if (in.n_outs != 1 || in.n_ins < (plain ? 1u : 2u)) return fail(in), false;
  dst = op(in, in.n_ins);
  if (!tile_type_ok(in, dst, false)) return false;
  DType d = ty(dst).elem;
  bk = Bin::Add;
  if (!plain) bin_of(in.op, bk);
  if (!lane_type(d) || (!dtype_is_float(d) && (bk == Bin::Div || bk == Bin::ExpDif))) return fail(in), false;
  s[0] = op(in, 0);
  s[1] = plain ? kNone : op(in, 1);
  return true;
}

// dst[r, c] = op(s0[r, c], s1[r, 0]) (or with s0 the column): the operand
// that is one column wide is broadcast per row. A full operand narrower than
// dst (the interpreter tiles it cyclically) is read as if it were as wide.
void Gen::row_expand(const Inst& in) {
  bool plain = in.op == Op::TRowExpand;
  unsigned nsrc = plain ? 1 : 2;
  ValueId dst, s[2];
  Bin bk;
  if (!expand_head(in, plain, dst, s, bk)) return;
  DType d = ty(dst).elem;
  unsigned es = dtype_bytes(d);
  int colk = -1;  // which source is the column
  for (unsigned i = 0; i < nsrc; ++i) {
    if (!tile_type_ok(in, s[i], false)) return;
    if (ty(s[i]).elem != d) return fail(in, "op " + std::string(op_name(in.op)) + " with mixed element types");
  }
  if (plain) colk = 0;
  else if (ty(s[1]).cols == 1 || ty(s[1]).vcol == 1) colk = 1;
  else if (ty(s[0]).cols == 1 || ty(s[0]).vcol == 1) colk = 0;
  if (colk < 0) return fail(in, "op " + std::string(op_name(in.op)) + " without a one-column operand");
  TileGeo gd = geo(dst);
  if (!gd.rowvec) return fail(in, "op " + std::string(op_name(in.op)) + " into a column-major tile");
  int32_t cap_r = ty(dst).rows, cap_c = ty(dst).cols;
  for (unsigned i = 0; i < nsrc; ++i) {
    cap_r = std::min(cap_r, ty(s[i]).rows);
    if (int(i) != colk) {
      if (!geo(s[i]).rowvec) return fail(in, "op " + std::string(op_name(in.op)) + " on tiles of mixed layouts");
      cap_c = std::min(cap_c, ty(s[i]).cols);
    }
  }
  mov(r8, q(dst, 1));
  mov(r9, q(dst, 2));
  clamp(r8, cap_r);
  clamp(r9, cap_c);
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
void Gen::col_expand(const Inst& in) {
  bool plain = in.op == Op::TColExpand;
  unsigned nsrc = plain ? 1 : 2;
  ValueId dst, s[2];
  Bin bk;
  if (!expand_head(in, plain, dst, s, bk)) return;
  DType d = ty(dst).elem;
  unsigned es = dtype_bytes(d);
  TileGeo gd = geo(dst);
  if (!gd.rowvec) return fail(in, "op " + std::string(op_name(in.op)) + " into a column-major tile");
  int32_t cap_r = ty(dst).rows, cap_c = ty(dst).cols;
  for (unsigned i = 0; i < nsrc; ++i) {
    if (!tile_type_ok(in, s[i], false)) return;
    if (ty(s[i]).elem != d) return fail(in, "op " + std::string(op_name(in.op)) + " with mixed element types");
    if (!geo(s[i]).rowvec) return fail(in, "op " + std::string(op_name(in.op)) + " on tiles of mixed layouts");
    if (ty(s[i]).rows > 1 && !plain) cap_r = std::min(cap_r, ty(s[i]).rows);
    cap_c = std::min(cap_c, ty(s[i]).cols);
  }
  mov(r8, q(dst, 1));
  mov(r9, q(dst, 2));
  clamp(r8, cap_r);
  clamp(r9, cap_c);
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
