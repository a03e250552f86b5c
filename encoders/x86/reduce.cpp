// x86-64 code generation: row and column reductions in the interpreter's
// order (x86/gen.h, docs/x86_backend.md).
#include <algorithm>

#include "gen.h"

namespace ptoas::cg::x86::gen {

// ---- row reductions -------------------------------------------------------------------

// dst[r, 0] = reduce(src[r, 0..vcol)) for r < src valid rows, in the
// interpreter's order: each vector lane is one row, the columns are
// gathered one after the other (sequential sum in f32 is exactly the
// interpreter's double sum rounded to f32 at each step, so bit-exact).
void Gen::row_reduce(const Inst& in, ValueId src, ValueId dst) {
  DType d = ty(dst).elem;
  unsigned es = dtype_bytes(d);
  bool fl = dtype_is_float(d);
  TileGeo gs = geo(src);
  valid_rc(src, std::min(ty(src).rows, ty(dst).rows), ty(src).cols);
  Label done, grp, col, first;
  test(r8, r8);
  jle(done, T_NEAR);
  test(r9, r9);
  jle(done, T_NEAR);
  // V7 = byte offsets of lanes() consecutive rows.
  Xmm x0 = V(0), x1 = V(1), x3 = V(3), x7 = V(7);
  vmovups(x7, ptr[r14 + kIota]);
  mov(eax, uint32_t(gs.rs));
  vmovd(xmm1, eax);
  vpbroadcastd(x1, xmm1);
  vpmulld(x7, x7, x1);
  vbroadcastss(x3, dword[r14 + kSignF32]);
  tile_ptr(rsi, src);
  tile_ptr(rdi, dst);
  bool sum = in.op == Op::TRowSum, mx = in.op == Op::TRowMax, prod = in.op == Op::TRowProd;
  L(grp);
  mov(r11, lanes());  // rows in this group
  cmp(r11, r8);
  cmovg(r11, r8);
  mov(rcx, r11);
  tail_mask_rcx();
  mov(rdx, rsi);
  mov(r10, r9);
  // One column of the group's rows, as 32-bit lanes. Narrow elements are
  // gathered as dwords at their own address (the low bytes; the rest is
  // inside the tile arena) and widened in place.
  auto gather = [&](const Xmm& y) {
    gather_ps(y, rdx, x7, 1);
    add(rdx, int(gs.cs));
    switch (d) {
      case DType::BF16: vpslld(y, y, 16); break;
      case DType::I16: vpslld(y, y, 16); vpsrad(y, y, 16); break;
      case DType::U16: vpslld(y, y, 16); vpsrld(y, y, 16); break;
      case DType::I8: vpslld(y, y, 24); vpsrad(y, y, 24); break;
      case DType::U8: vpslld(y, y, 24); vpsrld(y, y, 24); break;
      case DType::F16:
        if (z()) {
          vpmovdw(H(y.getIdx()), y);
        } else {
          vpslld(y, y, 16);
          vpsrld(y, y, 16);
          vextracti128(xmm14, Ymm(y.getIdx()), 1);
          vpackusdw(Xmm(y.getIdx()), Xmm(y.getIdx()), xmm14);
        }
        vcvtph2ps(y, H(y.getIdx()));
        break;
      default: break;
    }
  };
  // Sums: f32 accumulates in f32 (f16 / bf16 too: the interpreter's
  // TROWSUM accumulator), integers wrap; products round to the element
  // type at each step; max / min in the lane type.
  if (sum) {
    vxorps(x0, x0, x0);
  } else if (prod) {
    if (fl) vbroadcastss(x0, dword[r14 + kOneF32]);
    else vpbroadcastd(x0, dword[r14 + kIota + 4]);  // int 1
  } else {
    gather(x0);
    dec(r10);
    jz(first, T_NEAR);
  }
  L(col);
  gather(x1);
  if (fl && sum) {
    vaddps(x0, x0, x1);
  } else if (fl && prod) {
    vmulps(x0, x0, x1);
    round_lane(d, x0);
  } else if (fl) {
    minmax_step(mx, x0, x1);
  } else {
    bin(sum ? Bin::Add : prod ? Bin::Mul : mx ? Bin::Max : Bin::Min, d);
  }
  dec(r10);
  jnz(col, T_NEAR);
  L(first);
  if (fl && !sum && !prod) vaddps(x0, x0, x3);  // quiet a signalling NaN (f32 -> double)
  vst_e(d, rdi, x0, true, &r11);
  add(rdi, int(es) * lanes());
  add(rsi, int(lanes() * gs.rs));
  sub(r8, lanes());
  jg(grp, T_NEAR);
  L(done);
}

// dst[0, c] = reduce(src[0..vrow), c]) for c < src valid columns, rows in
// order (the interpreter's order), one vector of columns at a time. Sums
// and products round to the element type at each step, as the interpreter
// does; max / min follow its NaN rule.
void Gen::col_reduce(const Inst& in, ValueId src, ValueId dst) {
  DType d = ty(dst).elem;
  TileGeo gs = geo(src);
  bool fl = dtype_is_float(d), sum = in.op == Op::TColSum, prod = in.op == Op::TColProd;
  bool mx = in.op == Op::TColMax;
  unsigned es = dtype_bytes(d);
  valid_rc(src, ty(src).rows, std::min(ty(src).cols, ty(dst).cols));
  Label done, vec, tail;
  vec_bounds(done);
  vbroadcastss(V(3), dword[r14 + kSignF32]);
  tile_ptr(rsi, src);
  tile_ptr(rdi, dst);
  Xmm acc = V(0), x = V(1);
  auto chunk = [&](bool masked) {
    Label loop, fin;
    lea(rdx, ptr[rsi + rax * int(es)]);
    mov(r10, r8);
    if (sum || prod) {
      if (!prod) vxorps(acc, acc, acc);
      else if (fl) vbroadcastss(acc, dword[r14 + kOneF32]);
      else vpbroadcastd(acc, dword[r14 + kIota + 4]);  // int 1
    } else {
      vld_e(d, acc, rdx, masked);
      add(rdx, int(gs.rs));
      dec(r10);
      jz(fin, T_NEAR);
    }
    L(loop);
    vld_e(d, x, rdx, masked);
    if (fl && (sum || prod)) {
      sum ? vaddps(acc, acc, x) : vmulps(acc, acc, x);
      round_lane(d, acc);
    } else if (fl) {
      minmax_step(mx, acc, x);
    } else {
      bin(sum ? Bin::Add : prod ? Bin::Mul : mx ? Bin::Max : Bin::Min, d);
    }
    add(rdx, int(gs.rs));
    dec(r10);
    jnz(loop, T_NEAR);
    L(fin);
    if (fl && !sum && !prod) vaddps(acc, acc, V(3));  // quiet a signalling NaN (f32 -> double)
    vst_e(d, rdi + rax * int(es), acc, masked);
  };
  xor_(eax, eax);
  cmp(rax, r13);
  jge(tail, T_NEAR);
  L(vec);
  chunk(false);
  add(rax, lanes());
  cmp(rax, r13);
  jl(vec, T_NEAR);
  L(tail);
  cmp(rax, r9);
  jge(done, T_NEAR);
  chunk(true);
  L(done);
}

}  // namespace ptoas::cg::x86::gen
