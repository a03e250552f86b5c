// x86-64 code generation: copies and conversions between tiles: tfillpad,
// textract / tinsert, tcvt (x86/gen.h, docs/x86_backend.md).
#include <algorithm>
#include <cstring>

#include "gen.h"

namespace ptoas::cg::x86::gen {


// tfillpad / _inplace / _expand: the whole physical dst = src inside src's
// valid region (capped at dst's shape), dst's pad value elsewhere. The
// valid part is copied first (nothing to do in place), then the rest of
// each row and the rows below are filled with rep stos.
void Gen::tfillpad(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 1) return fail(in);
  ValueId src = op(in, 0), dst = op(in, in.n_ins);
  if (!tile_type_ok(in, src, true) || !tile_type_ok(in, dst, true)) return;
  DType d = bits_type(ty(dst).elem);
  if (ty(src).elem != ty(dst).elem) return fail(in, {RefusalCode::Type, "op " + std::string(op_name(in.op)) + " that converts"});
  if (geo(src).dn || geo(dst).dn) return fail(in, {RefusalCode::Layout, "op " + std::string(op_name(in.op)) + " on a column-major tile"});
  unsigned es = dtype_bytes(d);
  const ptoas::Type& dt = ty(dst);
  int64_t R = dt.rows, C = dt.cols;
  if (src != dst) {
    std::vector<Reg64> ptrs;
    std::vector<Stride> strides;
    if (!elem_loop(in, dst, {src}, ptrs, strides, src)) return;
    row_loop(ptrs, strides, [&](bool masked) {
      LD(V(0), rsi);
      ST(rdi, V(0));
    });
  }
  // r8 x r9 = the valid part (src's valid region capped at dst's shape).
  valid_rc(src, int32_t(R), int32_t(C));
  xor_(ecx, ecx);
  cmp(r8, 0);
  cmovl(r8, rcx);
  cmp(r9, 0);
  cmovl(r9, rcx);
  mov(eax, pad_bits(dt));
  tile_ptr(r10, dst);
  Label row, rest;
  xor_(r11d, r11d);                    // row
  L(row);
  cmp(r11, r8);
  jge(rest, T_NEAR);
  imul(rdi, r11, int(C));
  add(rdi, r9);
  lea(rdi, ptr[r10 + rdi * int(es)]);
  mov(rcx, int(C));
  sub(rcx, r9);
  rep();
  es == 4 ? stosd() : es == 2 ? stosw() : stosb();
  inc(r11);
  jmp(row, T_NEAR);
  L(rest);                             // rows r8 .. R-1 whole
  imul(rdi, r8, int(C * int64_t(es)));
  add(rdi, r10);
  mov(rcx, int(R));
  sub(rcx, r8);
  imul(rcx, rcx, int(C));
  rep();
  es == 4 ? stosd() : es == 2 ? stosw() : stosb();
}

// textract ins(s, row, col): d[i, j] = s[row + i, col + j] over d's valid
// region; tinsert ins(s, row, col) outs(d): d[row + i, col + j] = s[i, j]
// over s's valid region. Bits are copied; the window is capped at the
// other tile's shape (the interpreter reports a window past it, and a
// negative offset, as errors: nothing is copied then).
void Gen::twindow(const Inst& in, const WindowPlan& p) {
  if (p.boxed) return twindow_boxed(in, p);
  bool ext = p.ext;
  ValueId src = p.src, dst = p.dst, ro = p.row, co = p.col;
  DType d = bits_type(ty(dst).elem);
  unsigned es = dtype_bytes(d);
  ValueId win = ext ? src : dst;  // the tile the offsets index
  std::vector<Reg64> ptrs;
  std::vector<Stride> strides;
  if (!elem_loop(in, dst, {src}, ptrs, strides, ext ? dst : src)) return;
  // The loop may be rows- or columns-outer; r8 / r9 count outer / inner.
  bool colmajor = !(geo(dst).rowvec && geo(src).rowvec);
  TileGeo gw = geo(win);
  const Reg64& wp = ext ? rsi : rdi;
  mov(rax, q(ro, 0));
  mov(rcx, q(co, 0));
  // Cap the region at the window tile's shape minus the offsets.
  mov(r10, int64_t(ty(win).rows));
  sub(r10, rax);
  mov(r11, int64_t(ty(win).cols));
  sub(r11, rcx);
  const Reg64& rows = colmajor ? r9 : r8;
  const Reg64& cols = colmajor ? r8 : r9;
  cmp(rows, r10);
  cmovg(rows, r10);
  cmp(cols, r11);
  cmovg(cols, r11);
  {
    Label ok;
    or_(rax, rcx);
    jns(ok, T_NEAR);
    xor_(r8d, r8d);                    // a negative offset: nothing
    L(ok);
  }
  mov(rax, q(ro, 0));
  imul(rax, rax, int(gw.rs));
  add(wp, rax);
  mov(rax, q(co, 0));
  imul(rax, rax, int(gw.cs));
  add(wp, rax);
  row_loop(ptrs, strides, [&](bool masked) {
    LD(V(0), rsi);
    ST(rdi, V(0));
  });
}

// textract / tinsert with a boxed tile on either side: the same region
// and caps as twindow's, copied by copy_grid through both tiles' offset
// tables, the window tile's indexed from the offsets on.
void Gen::twindow_boxed(const Inst& in, const WindowPlan& p) {
  const ptoas::Type &st = ty(p.src), &dt = ty(p.dst), &wt = ty(p.win);
  int64_t rows = std::min(st.rows, dt.rows), cols = std::min(st.cols, dt.cols);
  valid_rc(p.region, rows, cols);
  mov(rax, q(p.row, 0));
  mov(rdx, int64_t(wt.rows));
  sub(rdx, rax);
  cmp(r8, rdx);
  cmovg(r8, rdx);
  mov(rax, q(p.col, 0));
  mov(rdx, int64_t(wt.cols));
  sub(rdx, rax);
  cmp(r9, rdx);
  cmovg(r9, rdx);
  {
    Label ok;
    mov(rax, q(p.row, 0));
    or_(rax, q(p.col, 0));
    jns(ok, T_NEAR);
    xor_(r8d, r8d);  // a negative offset: nothing
    L(ok);
  }
  CopySide s{p.src, false}, d{p.dst, false};
  CopySide& w = p.ext ? s : d;
  w.row0 = p.row;
  w.col0 = p.col;
  copy_grid(in, {s, d}, dtype_bytes(dt.elem), rows, cols);
}

// ---- tcvt --------------------------------------------------------------------------------

// ttrans ins(s, tmp?): d[c, r] = s[r, c] over s's valid region. Each row
// of d (a column of s) is one vector loop; its elements are gathered from
// s's rows (a dword at each element's address: narrow elements are its
// low bytes, and the bytes past the last one are still in the tile arena),
// stored as bits.
void Gen::ttrans(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 1) return fail(in);
  ValueId src = op(in, 0), dst = op(in, in.n_ins);
  if (!tile_type_ok(in, src, true) || !tile_type_ok(in, dst, true)) return;
  if (ty(src).elem != ty(dst).elem) return fail(in, {RefusalCode::Type, "pto.ttrans that converts"});
  if (src == dst) return fail(in, {RefusalCode::Operands, "pto.ttrans in place"});
  TileGeo gs = geo(src), gd = geo(dst);
  if (!gd.rowvec) return fail(in, {RefusalCode::Layout, "pto.ttrans into a column-major tile"});
  DType d = bits_type(ty(dst).elem);
  unsigned es = dtype_bytes(d);
  if (gs.rs > (1 << 24)) return fail(in);
  mov(r8, q(src, 2));  // rows of d: s's valid columns
  mov(r9, q(src, 1));  // columns of d: s's valid rows
  clamp(r8, std::min(ty(src).cols, ty(dst).rows));
  clamp(r9, std::min(ty(src).rows, ty(dst).cols));
  Xmm x = V(0), idx = V(7);
  vmovups(idx, ptr[r14 + kIota]);
  mov(eax, uint32_t(gs.rs));
  vmovd(xmm1, eax);
  vpbroadcastd(V(1), xmm1);
  vpmulld(idx, idx, V(1));             // byte offsets of consecutive rows of s
  tile_ptr(rdi, dst);
  tile_ptr(rsi, src);
  row_loop({rdi, rsi}, {{nullptr, gd.rs}, {nullptr, gs.cs}}, [&](bool masked) {
    imul(rdx, rax, int(gs.rs));
    add(rdx, rsi);
    if (masked) {
      gather_ps(x, rdx, idx, 1);
    } else {  // all lanes: the gather mask is the tail mask, so set it whole
      if (z()) {
        kxnorw(k2, k2, k2);
        vxorps(x, x, x);
        vgatherdps(x | k2, ptr[rdx + Zmm(idx.getIdx()) * 1]);
      } else {
        vpcmpeqd(ymm14, ymm14, ymm14);
        vxorps(x, x, x);
        vgatherdps(x, ptr[rdx + Ymm(idx.getIdx()) * 1], ymm14);
      }
    }
    ST(rdi, x);
  });
}

// tconcat ins(s0, s1): each row r < d.vrow: s0's valid columns, then s1's
// (bits copied; ND tiles; capped at the tiles' shapes).
void Gen::tconcat(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins != 2) return fail(in, {RefusalCode::Operands, "pto.tconcat with index tiles"});
  ValueId a = op(in, 0), b = op(in, 1), dst = op(in, in.n_ins);
  for (ValueId v : {a, b, dst})
    if (!tile_type_ok(in, v, true)) return;
  if (ty(a).elem != ty(dst).elem || ty(b).elem != ty(dst).elem) return fail(in, {RefusalCode::Type, "pto.tconcat that converts"});
  if (!geo(a).rowvec || !geo(b).rowvec || !geo(dst).rowvec || geo(dst).dn)
    return fail(in, {RefusalCode::Layout, "pto.tconcat on column-major tiles"});
  DType d = bits_type(ty(dst).elem);
  unsigned es = dtype_bytes(d);
  for (int part = 0; part < 2; ++part) {
    ValueId s = part ? b : a;
    mov(r8, q(dst, 1));
    clamp(r8, std::min(ty(dst).rows, ty(s).rows));
    mov(r9, q(s, 2));
    clamp(r9, ty(s).cols);
    tile_ptr(rdi, dst);
    if (part) {  // after a's columns, within d's row
      mov(r11, q(a, 2));
      clamp(r11, ty(a).cols);
      mov(r10, int64_t(ty(dst).cols));
      sub(r10, r11);
      cmp(r9, r10);
      cmovg(r9, r10);
      imul(r11, r11, int(es));
      add(rdi, r11);
    } else {
      clamp(r9, ty(dst).cols);
    }
    tile_ptr(rsi, s);
    row_loop({rdi, rsi}, {{nullptr, geo(dst).rs}, {nullptr, geo(s).rs}}, [&](bool masked) {
      LD(V(0), rsi);
      ST(rdi, V(0));
    });
  }
}

// tgather's index form (tile_plan.h GatherPlan), element by element: an
// index is widened to 64 bits (sign or zero) so that one unsigned compare
// against src's element count also sends negative ones to 0.
void Gen::tgather(const Inst& in, const GatherPlan& p) {
  const ptoas::Type& dt = ty(p.dst);
  const ptoas::Type& it = ty(p.idx);
  valid_rc(p.dst, p.cap_r, p.cap_c);
  tile_ptr(rbx, p.src);
  grid_loop([&]() -> bool {
    if (!elem_off(in, dt, r13, rsi)) return false;
    lea(r10, ptr[rax + r15]);
    add(r10, q(p.dst, 0));
    if (!elem_off(in, it, r13, rsi)) return false;
    add(rax, r15);
    add(rax, q(p.idx, 0));
    if (p.idx_signed) movsxd(rcx, dword[rax]);
    else mov(ecx, dword[rax]);
    xor_(edx, edx);
    Label out;
    cmp(rcx, int(p.n));
    jae(out);
    mov(edx, dword[rbx + rcx * 4]);
    L(out);
    mov(dword[r10], edx);
    return true;
  });
}

// tcvt between lane types over the source's valid region (docs/semantics.md
// §10, docs/x86_backend.md): float -> float rounds to nearest even, integer
// -> integer wraps, integer -> float rounds once, float -> integer rounds by
// rmode and keeps the low bits of out-of-range values.
void Gen::tcvt(const Inst& in, const CvtPlan& pl) {
  const auto& src = pl.src;
  const auto& dst = pl.dst;
  const auto& sd = pl.sd;
  const auto& dd = pl.dd;
  const auto& sat = pl.sat;
  auto refuse = [&](const std::string& r) {
    fail(in, {RefusalCode::Type, "pto.tcvt from " + std::string(dtype_name(sd)) + " to " + std::string(dtype_name(dd)) + r});
  };
  // vroundps immediates (exceptions suppressed); -1: ties away from zero.
  int mode = pl.rmode == Rounding::NearestEven ? 8 : pl.rmode == Rounding::Floor ? 9
             : pl.rmode == Rounding::Ceil ? 10 : pl.rmode == Rounding::Trunc ? 11 : -1;
  bool sf = dtype_is_float(sd), df = dtype_is_float(dd);
  // Vector loop over src's valid region when the layouts allow one.
  bool all_row = geo(src).rowvec && geo(dst).rowvec, all_col = geo(src).colvec && geo(dst).colvec;
  if (!all_row && !all_col) {
    if ((sd == DType::F32 && dd == DType::BF16) || (sd == DType::BF16 && dd == DType::F32)) return tcvt_elems(in);
    return refuse(" between these layouts");
  }
  std::vector<Reg64> ptrs;
  std::vector<Stride> strides;
  if (!elem_loop(in, dst, {src}, ptrs, strides, src)) return;
  unsigned ses = dtype_bytes(sd), des = dtype_bytes(dd);
  Xmm x = V(0), t = V(9), u = V(10), w = V(11), e = V(12);
  auto bimm = [&](const Xmm& v, uint32_t imm) {
    mov(ecx, imm);
    vmovd(Xmm(v.getIdx()), ecx);
    vpbroadcastd(v, Xmm(v.getIdx()));
  };
  auto igt = [&](const Xmm& r, const Xmm& p, const Xmm& q2) {  // r = p > q2, signed 32-bit, vector mask
    if (z()) {
      vpcmpgtd(k7, p, q2);
      vpmovm2d(r, k7);
    } else {
      vpcmpgtd(r, p, q2);
    }
  };
  auto andn = [&](const Xmm& r, const Xmm& p, const Xmm& q2) {  // r = ~p & q2
    z() ? vpandnd(r, p, q2) : vpandn(r, p, q2);
  };
  row_loop(ptrs, strides, [&](bool masked) {
    vld_e(sd, x, rsi + rax * int(ses), masked);
    if (sf && !df) {
      cmp_ps(V(8), x, x, 7);  // ordered: a NaN gives 0 (the clamp below would hide it)
      // Round to an integral float by rmode.
      if (mode >= 0) {
        z() ? vrndscaleps(t, x, uint8_t(mode)) : vroundps(t, x, uint8_t(mode));
      } else {  // ties away: trunc(x) + sign(x) where |x - trunc(x)| >= 0.5
        z() ? vrndscaleps(t, x, 11) : vroundps(t, x, 11);
        vsubps(u, x, t);
        bimm(w, 0x7fffffffu);
        vandps(u, u, w);
        bimm(w, 0x3f000000u);           // 0.5
        cmp_ps(u, u, w, 0x1D);          // GE_OQ
        bimm(w, 0x80000000u);
        vandps(w, w, x);
        bimm(e, 0x3f800000u);           // 1.0
        vorps(w, w, e);                 // copysign(1, x)
        vandps(w, w, u);
        vaddps(t, t, w);
      }
      if (sat) {  // clamp to the destination's range (exact bounds below 2^24)
        uint32_t blo, bhi;
        sat_bounds_f32(dd, blo, bhi);
        bimm(w, blo);
        vmaxps(t, t, w);  // a NaN lane stays NaN (second operand)
        if (dd != DType::I32) {
          bimm(w, bhi);
          vminps(t, t, w);
        }
      }
      // t is integral: its int32 value, or for |t| >= 2^31 the low 32 bits
      // of the value saturated to 64 bits (m << (e - 150), negated for a
      // negative t; +2^64 and above: all ones). NaN: 0.
      vcvttps2dq(u, t);
      vpsrld(e, t, 23);
      bimm(w, 0xff);
      vlogic(Bin::And, e, e, w);        // biased exponent
      bimm(w, 0x007fffffu);
      vlogic(Bin::And, w, w, t);
      bimm(x, 0x00800000u);
      vlogic(Bin::Or, w, w, x);         // m
      bimm(x, 150);
      vpsubd(x, e, x);
      vpsllvd(w, w, x);                 // m << (e - 150)
      vpsrad(x, t, 31);                 // sign
      vlogic(Bin::Xor, w, w, x);
      vpsubd(w, w, x);                  // negated when t < 0
      bimm(V(13), 190);
      igt(V(13), e, V(13));             // t >= 2^64 (or Inf, NaN)
      andn(V(13), x, V(13));            //   and positive: all ones
      vlogic(Bin::Or, w, w, V(13));
      if (sat && dd == DType::I32) {    // t >= 2^31: INT32_MAX
        bimm(V(13), 157);
        igt(V(13), e, V(13));
        andn(V(13), x, V(13));
        bimm(V(14), 0x7fffffffu);
        vlogic(Bin::And, V(14), V(14), V(13));
        blend_ps(u, u, V(14), V(13));
      } else {
        bimm(V(13), 157);
        igt(V(13), e, V(13));           // |t| >= 2^31
        blend_ps(u, u, w, V(13));
      }
      vlogic(Bin::And, x, u, V(8));
    } else if (!sf && df) {
      if (sd == DType::U32) {  // hi * 65536 + lo, each exact: one rounding
        vpsrld(t, x, 16);
        vcvtdq2ps(t, t);
        bimm(u, 0x47800000u);  // 65536.0
        vmulps(t, t, u);
        vpslld(x, x, 16);
        vpsrld(x, x, 16);
        vcvtdq2ps(x, x);
        vaddps(x, t, x);
      } else {
        vcvtdq2ps(x, x);
      }
    }
    // float -> float: the lanes are f32 already, vst_e rounds to nearest
    // even (bf16 and f32 lanes still hold a signalling NaN as it was:
    // + -0.0 quiets it as the interpreter's widening does; f16's vcvtph2ps
    // quiets already); integer -> integer:
    // vst_e truncates (wraps).
    if ((sd == DType::BF16 || sd == DType::F32) && df) {
      bimm(t, 0x80000000u);
      vaddps(x, x, t);
    }
    vst_e(dd, rdi + rax * int(des), x, masked);
  });
}

// f32 <-> bf16 element by element (tiles of different layouts). f32 ->
// bf16 rounds to nearest even (a NaN keeps its top bits and is quieted);
// bf16 -> f32 is exact, a NaN quieted (the interpreter widens through
// double).
void Gen::tcvt_elems(const Inst& in) {
  ValueId src = op(in, 0), dst = op(in, in.n_ins);
  DType sd = ty(src).elem, dd = ty(dst).elem;
  bool narrow = sd == DType::F32 && dd == DType::BF16;
  TileGeo gs = geo(src), gd = geo(dst);
  valid_rc(src, std::min(ty(src).rows, ty(dst).rows), std::min(ty(src).cols, ty(dst).cols));
  Label row, col, end;
  test(r8, r8);
  jle(end, T_NEAR);
  test(r9, r9);
  jle(end, T_NEAR);
  tile_ptr(rsi, src);
  tile_ptr(rdi, dst);
  vmovss(xmm3, dword[r14 + kSignF32]);
  L(row);
  mov(r10, rsi);
  mov(r11, rdi);
  mov(rcx, r9);
  L(col);
  if (narrow) {
    Label nan, st;
    mov(eax, dword[r10]);
    mov(edx, eax);
    and_(edx, 0x7fffffff);
    cmp(edx, 0x7f800000);
    ja(nan, T_NEAR);
    mov(edx, eax);
    shr(edx, 16);
    and_(edx, 1);
    lea(eax, ptr[rax + rdx + 0x7fff]);
    shr(eax, 16);
    jmp(st, T_NEAR);
    L(nan);
    shr(eax, 16);
    or_(eax, 0x40);
    L(st);
    mov(word[r11], ax);
  } else {
    movzx(eax, word[r10]);
    shl(eax, 16);
    vmovd(xmm0, eax);
    vaddss(xmm0, xmm0, xmm3);  // quiets a signalling NaN
    vmovss(dword[r11], xmm0);
  }
  add(r10, int(gs.cs));
  add(r11, int(gd.cs));
  dec(rcx);
  jnz(col, T_NEAR);
  add(rsi, int(gs.rs));
  add(rdi, int(gd.rs));
  dec(r8);
  jnz(row, T_NEAR);
  L(end);
}

}  // namespace ptoas::cg::x86::gen
