// x86-64 code generation: treshape, tload / tstore between tiles
// and views, and the elementwise / tile-scalar / unary ops (x86/gen.h,
// docs/x86_backend.md).
#include <algorithm>

#include "tile_layout.h"
#include "gen.h"

namespace ptoas::cg::x86::gen {

void Gen::treshape(const Inst&, ValueId src, ValueId dst) {  // no copy: dst takes src's storage
  mov(rax, q(src, 0));
  mov(q(dst, 0), rax);
}

// ---- tload / tstore ------------------------------------------------------------------

// A tload's pad fill of tile t: `count` units of `unit` bytes (1, 2 or 4)
// of `bits` from its base. `cover`: the tile's rows x cols are all of
// that storage, so the fill is skipped when the r8 x r9 overlap about to
// be copied is the whole tile (every element is overwritten anyway).
// Clobbers rax, rcx, rdi.
void Gen::pad_fill(ValueId t, uint64_t count, unsigned unit, uint32_t bits, bool cover) {
  Label fill, skip;
  if (cover) {
    cmp(r8, ty(t).rows);
    jne(fill, T_NEAR);
    cmp(r9, ty(t).cols);
    je(skip, T_NEAR);
  }
  L(fill);
  tile_ptr(rdi, t);
  mov(rcx, count);
  mov(eax, bits);
  rep();
  if (unit == 4) stosd();
  else if (unit == 2) stosw();
  else stosb();
  L(skip);
}

// Copies the overlap of the tile's valid region and the view (the
// interpreter requires them to be equal and reports a mismatch) between
// tile t and view v: contiguous rows (ND tile, view's last stride 1) or
// contiguous columns (DN tile, view's first stride 1) with vectors, any
// other pairing element by element. A load first fills the whole tile with
// the pad value.
void Gen::tcopy(const Inst& in, ValueId t, ValueId v, bool load) {
  if (ty(t).kind == TypeKind::TileBuf && ty(t).slayout != SLayout::NoneBox)
    return tcopy_boxed(in, t, v, load);
  if (!tile_type_ok(in, t, true)) return;
  const ptoas::Type& tt = ty(t);
  const ptoas::Type& vt = ty(v);
  const char* what = load ? "pto.tload from" : "pto.tstore to";
  unsigned rank = (p_.slots[v].count - 1u) / 2u;
  if (vt.kind != TypeKind::Ptr && rank > 2) return tcopy_views(in, t, v, load);
  if (vt.kind == TypeKind::Ptr || rank < 1 || rank > 2)
    return fail(in, {RefusalCode::Shape, std::string(what) + " a view of rank " + std::to_string(rank)});
  unsigned es = dtype_bytes(tt.elem);
  if (dtype_bytes(vt.elem) != es) return fail(in);
  if (!load && vt.elem != tt.elem)
    return fail(in, {RefusalCode::Type, "pto.tstore that converts " + std::string(dtype_name(tt.elem)) + " to " +
                        std::string(dtype_name(vt.elem))});
  TileGeo g = geo(t);
  // r8 x r9 = rows x cols of the overlap; r10 / r11 = the view's row /
  // column stride in bytes; rbx = the view base, r12 = the tile base.
  mov(r8, q(t, 1));
  mov(r9, q(t, 2));
  if (rank == 2) {
    cap_by_view(v);
    mov(r10, q(v, 3));
    if (es > 1) shl(r10, es == 4 ? 2 : 1);
    mov(r11, q(v, 4));
    if (es > 1) shl(r11, es == 4 ? 2 : 1);
  } else {
    clamp(r8, 1);
    mov(rcx, q(v, 1));
    cmp(r9, rcx);
    cmovg(r9, rcx);
    xor_(r10d, r10d);
    mov(r11, q(v, 2));
    if (es > 1) shl(r11, es == 4 ? 2 : 1);
  }
  if (load) pad_fill(t, uint64_t(tt.rows) * uint64_t(tt.cols), es, pad_bits(tt), true);
  mov(rbx, q(v, 0));
  tile_ptr(r12, t);
  Label general, done;
  // 4-byte elements, row by row (rsi to rdi): four vectors a step while
  // they last (one vector a step left the tile copies of gemm_1024's
  // blocks 2-3 % slower), then one at a time, then the masked tail.
  auto vec_copy = [&](const Reg64& vstride, int64_t tstride) {
    const int LN = lanes();
    mov(rdi, load ? r12 : rbx);
    mov(rsi, load ? rbx : r12);
    Stride vs{&vstride, 0}, ts{nullptr, tstride};
    row_loop(
        {rdi, rsi}, {load ? ts : vs, load ? vs : ts},
        [&](bool masked) {
          vld(V(0), ptr[rsi + rax * 4], masked);
          vst(ptr[rdi + rax * 4], V(0), masked);
        },
        [&](int disp) {
          for (int u = 0; u < 4; ++u) vmovups(V(u), ptr[rsi + rax * 4 + (disp + u * LN) * 4]);
          for (int u = 0; u < 4; ++u) vmovups(ptr[rdi + rax * 4 + (disp + u * LN) * 4], V(u));
        });
    jmp(done, T_NEAR);
  };
  // 1- and 2-byte elements: each contiguous run (r9 elements) copied as
  // bytes, whole vectors then the tail (avx512: a byte-masked move; avx2:
  // pieces of 16, 8, 4, 2, 1 bytes), never touching a byte outside it.
  auto byte_copy = [&](const Reg64& vstride, int64_t tstride) {
    Label row, vec, tail, next;
    int vb = z() ? 64 : 32;
    mov(rdi, load ? r12 : rbx);
    mov(rsi, load ? rbx : r12);
    test(r8, r8);
    jle(done, T_NEAR);
    test(r9, r9);
    jle(done, T_NEAR);
    L(row);
    mov(rcx, r9);
    if (es == 2) add(rcx, rcx);
    mov(rdx, rdi);
    mov(rax, rsi);
    L(vec);
    cmp(rcx, vb);
    jb(tail, T_NEAR);
    if (z()) {
      vmovdqu8(zmm0, ptr[rax]);
      vmovdqu8(ptr[rdx], zmm0);
    } else {
      vmovdqu(ymm0, ptr[rax]);
      vmovdqu(ptr[rdx], ymm0);
    }
    add(rax, vb);
    add(rdx, vb);
    sub(rcx, vb);
    jmp(vec, T_NEAR);
    L(tail);
    if (z()) {
      mov(r13, -1);
      bzhi(r13, r13, rcx);
      kmovq(k3, r13);
      vmovdqu8(zmm0 | k3 | T_z, ptr[rax]);
      vmovdqu8(ptr[rdx] | k3, zmm0);
    } else {
      for (int part : {16, 8, 4, 2, 1}) {
        Label skip;
        test(cl, part);
        jz(skip, T_NEAR);
        if (part == 16) {
          vmovdqu(xmm0, ptr[rax]);
          vmovdqu(ptr[rdx], xmm0);
        } else {
          const Reg& t = part == 8 ? Reg(r13) : part == 4 ? Reg(r13d) : part == 2 ? Reg(r13w) : Reg(r13b);
          Address sa = part == 8 ? qword[rax] : part == 4 ? dword[rax] : part == 2 ? word[rax] : byte[rax];
          Address da = part == 8 ? qword[rdx] : part == 4 ? dword[rdx] : part == 2 ? word[rdx] : byte[rdx];
          mov(t, sa);
          mov(da, t);
        }
        add(rax, part);
        add(rdx, part);
        L(skip);
      }
    }
    if (load) {
      add(rdi, int(tstride));
      add(rsi, vstride);
    } else {
      add(rdi, vstride);
      add(rsi, int(tstride));
    }
    dec(r8);
    jnz(row, T_NEAR);
    jmp(done, T_NEAR);
  };
  auto copy = [&](const Reg64& vstride, int64_t tstride) {
    if (es == 4) vec_copy(vstride, tstride);
    else byte_copy(vstride, tstride);
  };
  if (g.rowvec) {
    Label no;
    cmp(r11, int(es));
    jne(no, T_NEAR);
    copy(r10, g.rs);
    L(no);
  }
  if (g.colvec && rank == 2) {
    Label no;
    cmp(r10, int(es));
    jne(no, T_NEAR);
    xchg(r8, r9);  // columns outer
    copy(r11, g.cs);
    L(no);
  }
  L(general);
  {
    Label row, col, end;
    test(r8, r8);
    jle(end, T_NEAR);
    test(r9, r9);
    jle(end, T_NEAR);
    L(row);
    mov(rcx, rbx);
    mov(rdx, r12);
    mov(rax, r9);
    L(col);
    const Reg& tmp = es == 4 ? Reg(esi) : es == 2 ? Reg(si) : Reg(sil);
    Address vm = es == 4 ? dword[rcx] : es == 2 ? word[rcx] : byte[rcx];
    Address tm = es == 4 ? dword[rdx] : es == 2 ? word[rdx] : byte[rdx];
    if (load) {
      mov(tmp, vm);
      mov(tm, tmp);
    } else {
      mov(tmp, tm);
      mov(vm, tmp);
    }
    add(rcx, r11);
    add(rdx, int(g.cs));
    dec(rax);
    jnz(col, T_NEAR);
    add(rbx, r10);
    add(r12, int(g.rs));
    dec(r8);
    jnz(row, T_NEAR);
    L(end);
  }
  L(done);
}

// tstore with relu and / or atomic add (plan_store_combine): element by
// element over the valid region capped by the view, the tile element found
// in any layout (elem_off). Relu is x > 0 ? x : 0 (vmaxss against +0 gives
// +0 for NaN and -0); the add is the interpreter's (tile value first, so a
// NaN there wins, quieted), one `lock cmpxchg` loop per f32 element, one
// `lock xadd` per integer.
void Gen::store_combined(const Inst& in, const StoreCombinePlan& p) {
  const ptoas::Type& tt = ty(p.tile);
  const bool fl = tt.elem == DType::F32, sgn = tt.elem == DType::I32;
  ValueId v = p.view;
  mov(r8, q(p.tile, 1));
  mov(r9, q(p.tile, 2));
  clamp(r8, tt.rows);
  clamp(r9, tt.cols);
  if (p.rank == 2) {
    cap_by_view(v);
    mov(r10, q(v, 3));
    shl(r10, 2);
    mov(r11, q(v, 4));
    shl(r11, 2);
  } else {
    clamp(r8, 1);
    mov(rcx, q(v, 1));
    cmp(r9, rcx);
    cmovg(r9, rcx);
    xor_(r10d, r10d);
    mov(r11, q(v, 2));
    shl(r11, 2);
  }
  mov(rbx, q(v, 0));
  tile_ptr(r12, p.tile);
  vxorps(xmm3, xmm3, xmm3);
  grid_loop([&]() -> bool {
    if (!elem_off(in, tt, r13, rsi)) return false;  // rax: the tile element's byte offset
    if (fl) {
      vmovss(xmm0, dword[r12 + rax]);
      if (p.relu) vmaxss(xmm0, xmm0, xmm3);
    } else {
      mov(edi, dword[r12 + rax]);
      if (p.relu && sgn) {
        xor_(edx, edx);
        test(edi, edi);
        cmovle(edi, edx);
      }
    }
    mov(rcx, r13);
    imul(rcx, r10);
    mov(rdx, rsi);
    imul(rdx, r11);
    add(rcx, rdx);
    add(rcx, rbx);
    if (!p.atomic) {
      if (fl) vmovss(dword[rcx], xmm0);
      else mov(dword[rcx], edi);
    } else if (!fl) {
      lock();
      xadd(dword[rcx], edi);
    } else {
      Label retry;
      mov(eax, dword[rcx]);
      L(retry);
      vmovd(xmm1, eax);
      vaddss(xmm2, xmm0, xmm1);
      vmovd(edx, xmm2);
      lock();
      cmpxchg(dword[rcx], edx);  // eax: what GM held when it failed
      jne(retry, T_NEAR);
    }
    return true;
  });
}

// ---- element ops ---------------------------------------------------------------------

void Gen::bin(Bin k, DType d) {
  Xmm x0 = V(0), x1 = V(1), x3 = V(3);
  bool f32 = dtype_is_float(d), u32 = d == DType::U32;
  switch (k) {
    case Bin::Add: f32 ? vaddps(x0, x0, x1) : vpaddd(x0, x0, x1); break;
    case Bin::Sub: f32 ? vsubps(x0, x0, x1) : vpsubd(x0, x0, x1); break;
    case Bin::Mul: f32 ? vmulps(x0, x0, x1) : vpmulld(x0, x0, x1); break;
    case Bin::Div:
      if (f32) vdivps(x0, x0, x1);
      else idiv_lanes();
      break;
    // Interpreter order (std::max / std::min): max(a, b) = (a < b) ? b : a,
    // min(a, b) = (b < a) ? b : a, a NaN on either side gives a. vmaxps
    // x, y = (x > y) ? x : y and vminps x, y = (x < y) ? x : y, so b goes
    // first. Passing an operand through quiets a signalling NaN as the
    // interpreter does (f32 -> double): + -0.0 changes no other value.
    // Narrow integers are sign- or zero-extended, so signed 32-bit max /
    // min order them right; u32 needs the unsigned forms.
    case Bin::Max:
      if (!f32) return u32 ? vpmaxud(x0, x0, x1) : vpmaxsd(x0, x0, x1);
      vmaxps(x0, x1, x0);
      vaddps(x0, x0, x3);
      break;
    case Bin::Min:
      if (!f32) return u32 ? vpminud(x0, x0, x1) : vpminsd(x0, x0, x1);
      vminps(x0, x1, x0);
      vaddps(x0, x0, x3);
      break;
    case Bin::And: case Bin::Or: case Bin::Xor: vlogic(k, x0, x0, x1); break;
    // Shift counts are taken as they are; the interpreter reports counts
    // outside 0..bits-1 as errors (here: 0, or all sign bits, for >= 32).
    case Bin::ExpDif:  // exp(a - b), a - b rounded to the element type first
      vsubps(x0, x0, x1);
      round_lane(d, x0);
      math(Op::TExp);
      break;
    case Bin::Pow:  // float lanes only; rounded to the element type by the store
      pow_ps();
      break;
    case Bin::Shl: vpsllvd(x0, x0, x1); break;
    case Bin::Shr: dtype_is_unsigned(d) ? vpsrlvd(x0, x0, x1) : vpsravd(x0, x0, x1); break;
  }
}

// Signed 32-bit V0 / V1, truncating, through double: both fit in its 53
// bits, so the quotient truncates to the integer one (MIN / -1 gives
// 2^31, which converts to the indefinite 0x80000000 = MIN, the wrap; x / 0
// is an error in the interpreter, any value here). V8-V11 scratch, as
// math().
void Gen::idiv_lanes() {
  Xmm x0 = V(0), x1 = V(1), x8 = V(8), x9 = V(9), x10 = V(10), x11 = V(11);
  vcvtdq2pd(x8, H(0));
  vcvtdq2pd(x10, H(1));
  vdivpd(x8, x8, x10);
  vcvttpd2dq(H(8), x8);
  extract_hi(H(9), x0);
  vcvtdq2pd(x9, H(9));
  extract_hi(H(11), x1);
  vcvtdq2pd(x11, H(11));
  vdivpd(x9, x9, x11);
  vcvttpd2dq(H(9), x9);
  insert_hi(x8, H(9));
  vmovaps(x0, x8);
}

// V0 = o(V0, V1) of an elementwise, tile-scalar or unary op in d's lane
// class (elementwise()'s loop body, also the fused regions' one): V2 is
// TExpandS's scalar, V3-V6 the LOOP_CONSTANTS, V7 scratch (tnot).
void Gen::elt_lanes(Op o, DType d) {
  Bin bk = Bin::Add;
  if (bin_of(o, bk)) return bin(bk, d);
  bool f32 = dtype_is_float(d);
  Xmm x0 = V(0), x2 = V(2), x3 = V(3), x4 = V(4), x5 = V(5), x6 = V(6);
  switch (o) {
    case Op::TExpandS: vmovaps(x0, x2); break;
    case Op::TNeg:
      if (f32) {
        vxorps(x0, x0, x3);
        vaddps(x0, x0, x3);  // quiet a signalling NaN (see bin)
      } else {
        vpsubd(x0, x6, x0);
      }
      break;
    case Op::TAbs:
      if (f32) {
        vandps(x0, x0, x4);
        vaddps(x0, x0, x3);
      } else if (d != DType::U32) {  // narrow unsigned values are non-negative
        vpabsd(x0, x0);
      }
      break;
    case Op::TNot:
      if (z()) {
        vpternlogd(x0, x0, x0, 0x55);
      } else {
        vpcmpeqd(ymm7, ymm7, ymm7);
        vpxor(x0, x0, ymm7);
      }
      break;
    case Op::TRelu:  // std::max(x, 0) = (x < 0) ? 0 : x: NaN and -0 kept
      if (f32) {
        vmaxps(x0, x6, x0);
        vaddps(x0, x0, x3);
      } else if (d != DType::U32) {
        vpmaxsd(x0, x0, x6);
      }
      break;
    case Op::TSqrt: vsqrtps(x0, x0); break;
    case Op::TRecip: vdivps(x0, x5, x0); break;
    case Op::TExp: case Op::TLog: case Op::TRsqrt: math(o); break;
    default: break;
  }
}

void Gen::elementwise(const Inst& in, const EltPlan& pl) {
  const auto& d = pl.d;
  const auto& dst = pl.dst;
  const auto& tiles = pl.tiles;
  const auto& scal = pl.scal;
  const auto& scalar_first = pl.scalar_first;
  unsigned es = dtype_bytes(d);
  Op o = in.op;
  std::vector<Reg64> ptrs;
  std::vector<Stride> strides;
  if (!elem_loop(in, dst, tiles, ptrs, strides)) return;
  // f32 bits, f16 / bf16 bits, or the integer's low 32 bits.
  if (scal != kNone) bcast_e(d, V(2), rbp + disp(sl(scal)));
  LOOP_CONSTANTS();
  Xmm x0 = V(0), x1 = V(1), x2 = V(2);
  row_loop(ptrs, strides, [&](bool masked) {
    if (tiles.size() >= 1) LD(x0, rsi);
    if (tiles.size() >= 2) LD(x1, rdx);
    if (scal != kNone) {
      if (scalar_first) {  // scalar op tile
        vmovaps(x1, x0);
        vmovaps(x0, x2);
      } else {
        vmovaps(x1, x2);
      }
    }
    elt_lanes(o, d);
    ST(rdi, x0);
  });
}

}  // namespace ptoas::cg::x86::gen
