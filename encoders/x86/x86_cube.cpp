// x86-64 code generation for boxed (fractal) tiles and the cube ops: tload /
// tstore of boxed tiles, tmov between any layouts, ttri and tmatmul (see
// x86_gen.h and docs/x86_backend.md).
//
// Element loops: each element's byte offset is the interpreter's
// tile_elem_index (runtime/interp/exec.cpp) computed in registers.
#include "tile_layout.h"
#include "x86_gen.h"

namespace ptoas::cg::x86::gen {

namespace {
int log2_exact(int64_t v) {
  if (v <= 0 || (v & (v - 1))) return -1;
  int l = 0;
  while ((int64_t(1) << l) < v) ++l;
  return l;
}
}  // namespace

// rax = byte offset of element (r, c) of a tile of type t; clobbers rdx.
bool Gen::elem_off(const Inst& in, const ptoas::Type& t, const Reg64& r, const Reg64& c) {
  int64_t es = std::max<int64_t>(1, dtype_bytes(t.elem));
  int les = log2_exact(es);
  if (t.rows <= 0 || t.cols <= 0 || les < 0) {
    fail(in, "a tile of dynamic shape or odd element size");
    return false;
  }
  if (t.slayout == SLayout::NoneBox) {
    bool rm = t.blayout == BLayout::RowMajor;
    mov(rax, rm ? r : c);
    imul(rax, rax, rm ? t.cols : t.rows);
    add(rax, rm ? c : r);
  } else {
    int64_t ir, ic;
    tile_inner_box(t, ir, ic);
    int lir = log2_exact(ir), lic = log2_exact(ic);
    if (lir < 0 || lic < 0) {
      fail(in, "a boxed tile with a non-power-of-two inner box");
      return false;
    }
    int64_t nbr = (t.rows + ir - 1) / ir, nbc = (t.cols + ic - 1) / ic;
    bool col_boxes = t.blayout == BLayout::ColMajor;
    bool col_inner = t.slayout == SLayout::ColMajor;
    mov(rax, r);
    shr(rax, lir);  // br
    mov(rdx, c);
    shr(rdx, lic);  // bc
    if (col_boxes) {
      imul(rdx, rdx, int(nbr));
      add(rax, rdx);
    } else {
      imul(rax, rax, int(nbc));
      add(rax, rdx);
    }
    imul(rax, rax, int(ir * ic));
    mov(rdx, col_inner ? c : r);
    and_(rdx, int(col_inner ? ic - 1 : ir - 1));
    imul(rdx, rdx, int(col_inner ? ir : ic));
    add(rax, rdx);
    mov(rdx, col_inner ? r : c);
    and_(rdx, int(col_inner ? ir - 1 : ic - 1));
    add(rax, rdx);
  }
  if (les) shl(rax, les);
  return true;
}

// r13 over [0, r8) outer, rsi over [0, r9) inner; `body` emits one
// element's code (false: an error was reported, stop).
void Gen::grid_loop(const std::function<bool()>& body) {
  Label row, col, nextrow, end;
  xor_(r13d, r13d);
  L(row);
  cmp(r13, r8);
  jge(end, T_NEAR);
  xor_(esi, esi);
  L(col);
  cmp(rsi, r9);
  jge(nextrow, T_NEAR);
  if (!body()) return;
  inc(rsi);
  jmp(col, T_NEAR);
  L(nextrow);
  inc(r13);
  jmp(row, T_NEAR);
  L(end);
}

// ttri ins(diag?) outs(dst): 1 where (lower) j <= i + diag, (upper)
// !(j < i + diag); 0 elsewhere; f32 and i32.
void Gen::ttri(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins > 1) return fail(in);
  ValueId d = op(in, in.n_ins);
  if (ty(d).kind != TypeKind::TileBuf) return fail(in);
  const ptoas::Type& dt = ty(d);
  if (dt.elem != DType::F32 && dt.elem != DType::I32) return fail(in);
  const Attr* a = m_.find_attr(in, "upperOrLower");
  bool upper = a && a->ival != 0;
  uint32_t one = dt.elem == DType::F32 ? 0x3f800000u : 1u;
  if (in.n_ins == 1) mov(rbx, q(op(in, 0)));
  else xor_(ebx, ebx);
  mov(r8, q(d, 1));
  mov(r9, q(d, 2));
  clamp(r8, dt.rows);
  clamp(r9, dt.cols);
  mov(r12d, one);
  grid_loop([&]() -> bool {
    if (!elem_off(in, dt, r13, rsi)) return false;
    add(rax, r15);
    add(rax, q(d, 0));
    mov(rcx, r13);
    add(rcx, rbx);  // i + diag
    xor_(edx, edx);
    cmp(rsi, rcx);
    if (upper) cmovge(edx, r12d);
    else cmovle(edx, r12d);
    mov(dword[rax], edx);
    return true;
  });
}

// tmatmul / tmatmul.acc / tmatmul.bias: m = a.vrow, k = a.vcol, n = b.vcol,
// capped by the tiles' shapes; f32 / f16 / bf16 -> f32 (fma in f32; the
// k order differs from the interpreter's, within DESIGN §6's summation
// bound), i8 x i8 -> i32 wrapping (exact). cin + acc / acc + bias[0, j]
// after the k-sum. Register-blocked micro-kernels (matmul_blocked) unless
// their scratch would not fit, then one vector of columns at a time
// (matmul_gather).
void Gen::matmul(const Inst& in) {
  MatmulPlan pl;
  std::string why;
  if (!plan_matmul(m_, in, pl, why)) return fail(in, why);
  ValueId a = pl.a, b = pl.b, c = pl.c, cin = pl.cin, bt = pl.bias;
  DType ae = pl.ae;
  bool i32 = pl.i32;
  mov(r8, q(a, 1));
  clamp(r8, pl.cap_m);
  mov(r10, q(a, 2));
  clamp(r10, pl.cap_k);
  mov(r9, q(b, 2));
  clamp(r9, pl.cap_n);
  MmOps o{a, b, c, cin, bt, ae, i32};
  if (!matmul_blocked(in, o) && ok_) matmul_gather(in, o);
}

namespace {
int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
}  // namespace

// Widens gathered dwords whose low bytes are the element (clobbers V14 on
// avx2 for f16).
void Gen::mm_widen(DType e, const Xmm& y) {
  if (e == DType::BF16) {
    vpslld(y, y, 16);
  } else if (e == DType::I8) {
    vpslld(y, y, 24);
    vpsrad(y, y, 24);
  } else if (e == DType::F16) {
    if (z()) {
      vpmovdw(Ymm(y.getIdx()), Zmm(y.getIdx()));
      vcvtph2ps(y, Ymm(y.getIdx()));
    } else {
      Xmm lo(y.getIdx());
      vpslld(y, y, 16);
      vpsrld(y, y, 16);
      vextracti128(xmm14, Ymm(y.getIdx()), 1);
      vpackusdw(lo, lo, xmm14);
      vcvtph2ps(y, lo);
    }
  }
}

// dword[rax + idx[lane]] = v[lane] for the tail mask's lanes (*count of
// them on avx2; null: all lanes); clobbers rcx, rdx, r11 (avx2), k2.
void Gen::mm_scatter(const Xmm& v, const Xmm& idx, const Reg64* count) {
  if (z()) {
    kmovw(k2, k1);
    vscatterdps(ptr[rax + Zmm(idx.getIdx()) * 1] | k2, v);
    return;
  }
  Label st;  // no scatter: through the red zone (the kernel calls nothing)
  vmovups(ptr[rsp - 64], v);
  vmovups(ptr[rsp - 32], Ymm(idx.getIdx()));
  xor_(r11d, r11d);
  L(st);
  mov(ecx, dword[rsp - 32 + r11 * 4]);
  mov(edx, dword[rsp - 64 + r11 * 4]);
  mov(dword[rax + rcx], edx);
  inc(r11);
  if (count) cmp(r11, *count);
  else cmp(r11, lanes());
  jl(st, T_NEAR);
}

// dword[rsp + off + 4 i] = byte offset of row i (rows) or column i of a
// tile of type t, i < count (tile_elem_index is a row part plus a column
// part). Clobbers rax, rdx, rdi, r11.
void Gen::mm_table(const Inst& in, const ptoas::Type& t, bool rows, const Reg64& count, int off) {
  Label l, done;
  xor_(edi, edi);
  xor_(r11d, r11d);
  // Unboxed layouts: the offsets are i times a constant stride.
  bool plain = t.slayout == SLayout::NoneBox && t.rows > 0 && t.cols > 0;
  int64_t stride = (rows == (t.blayout == BLayout::RowMajor) ? (rows ? t.cols : t.rows) : 1) *
                   std::max<int64_t>(1, dtype_bytes(t.elem));
  if (plain) xor_(eax, eax);
  L(l);
  cmp(r11, count);
  jge(done, T_NEAR);
  if (!plain && !elem_off(in, t, rows ? r11 : rdi, rows ? rdi : r11)) return;
  mov(dword[rsp + off + r11 * 4], eax);
  if (plain) add(eax, uint32_t(stride));
  inc(r11);
  jmp(l, T_NEAR);
  L(done);
}

// An 8 x 8 transpose of 32-bit lanes: line l in Ymm(l), l < 8 (lines not
// loaded: whatever the registers hold); put(kk, y) receives lane kk of
// every line, line l in lane l, in Ymm8 (`even_in_9`: Ymm9 for even kk,
// so a pair of steps can be combined). Clobbers Ymm0-15.
void Gen::transpose8x8(bool even_in_9, const std::function<void(int, const Ymm&)>& put) {
  for (int p2 = 0; p2 < 4; ++p2) {
    vunpcklps(Ymm(8 + 2 * p2), Ymm(2 * p2), Ymm(2 * p2 + 1));
    vunpckhps(Ymm(9 + 2 * p2), Ymm(2 * p2), Ymm(2 * p2 + 1));
  }
  for (int h = 0; h < 2; ++h)  // lines 4h .. 4h + 3
    for (int p2 = 0; p2 < 2; ++p2) {
      vshufps(Ymm(4 * h + 2 * p2), Ymm(8 + 4 * h + p2), Ymm(10 + 4 * h + p2), 0x44);
      vshufps(Ymm(4 * h + 2 * p2 + 1), Ymm(8 + 4 * h + p2), Ymm(10 + 4 * h + p2), 0xee);
    }
  for (int kk = 0; kk < 8; ++kk) {  // lanes 0-3 from lines 0-3, 4-7 from lines 4-7
    Ymm y(even_in_9 && kk % 2 == 0 ? 9 : 8);
    vperm2f128(y, Ymm(kk & 3), Ymm(4 + (kk & 3)), kk < 4 ? 0x20 : 0x31);
    put(kk, y);
  }
}

// GotoBLAS-style: A packed into MR-row panels (per k, MR values), B into
// NR-column panels (per k, NR values), both widened to 32-bit lanes, in
// scratch below rsp; then per NR-column panel, per MR-row panel, MR x NV
// accumulators over k (avx2 6 x 2 ymm, avx512 12 x 2 zmm). Rows and
// columns past m / n are computed from padding and never stored. Element
// offsets come from per-row / per-column tables (mm_table); operands whose
// columns are adjacent are moved as vectors, the others gathered (and C
// scattered).
bool Gen::matmul_blocked(const Inst& in, const MmOps& o) {
  const ptoas::Type &at = ty(o.a), &bt = ty(o.b), &ct = ty(o.c);
  const int LN = lanes(), MR = z() ? 12 : 6, NV = 2, NR = NV * LN, NACC = MR * NV;
  int64_t ms = std::min(at.rows, ct.rows), ks = std::min(at.cols, bt.rows), ns = std::min(bt.cols, ct.cols);
  if (o.cin != kNone) {
    ms = std::min<int64_t>(ms, ty(o.cin).rows);
    ns = std::min<int64_t>(ns, ty(o.cin).cols);
  }
  if (o.bias != kNone) ns = std::min<int64_t>(ns, ty(o.bias).cols);
  int64_t mp = round_up(ms, MR), np = round_up(ns, NR);
  int64_t size = 0;
  auto take = [&](int64_t bytes) {
    int64_t at_ = size;
    size += round_up(bytes, 64);
    return int(at_);
  };
  // Direct A (f32 none_box): the micro-kernels broadcast a[i0 + r, k] at
  // a + i0 si + r si + k sk; only a partial last row panel is packed.
  bool direct = at.elem == DType::F32 && at.slayout == SLayout::NoneBox;
  bool arm = at.blayout == BLayout::RowMajor;
  int64_t si = (arm ? at.cols : 1) * 4, sk = (arm ? 1 : at.rows) * 4;
  if (direct && si * MR + sk * 4 > (int64_t(1) << 30)) direct = false;
  // A's k values adjacent in runs of 8 (B's down a column): packed by
  // 8 x 8 transposes.
  bool tr = tile_runs(at, 8, false), trb = tile_runs(bt, 8, true);
  int oAp = take((direct ? MR : mp) * ks * 4 + 8 * MR * 4), oBp = take(np * ks * 4 + 8 * NR * 4);
  // i8: k in pairs, two i16 in a dword (vpmaddwd); the k tables get an
  // entry k repeating k - 1.
  const bool pair = o.i32;
  const int KS = pair ? 2 : 1;
  int oRA = take((mp + LN) * 4), oCA = take((ks + 1) * 4), oRB = take((ks + 1) * 4), oCB = take((np + LN) * 4);
  int oRC = take(ms * 4), oCC = take((np + LN) * 4), oRI = oRC, oCI = oCC, oCZ = 0;
  bool cin_own = o.cin != kNone && !same_layout(ty(o.cin), ct);
  if (cin_own) {
    oRI = take(ms * 4);
    oCI = take((np + LN) * 4);
  }
  if (o.bias != kNone) oCZ = take((np + LN) * 4);
  int oSp = take(64);  // tile base addresses: a, b, c, cin, bias; packed k steps
  int oRow = take(8 * std::max(MR, 8));  // line addresses (transposed packing)
  if (size_t(size) > kMaxTileArenaBytes) return false;
  stack_scratch(uint32_t(size));
  ValueId bases[5] = {o.a, o.b, o.c, o.cin, o.bias};
  for (int i = 0; i < 5; ++i)
    if (bases[i] != kNone) {
      tile_ptr(rax, bases[i]);
      mov(qword[rsp + oSp + 8 * i], rax);
    }
  auto base = [&](int i) { return qword[rsp + oSp + 8 * i]; };
  mm_table(in, at, true, r8, oRA);
  mm_table(in, at, false, r10, oCA);
  mm_table(in, bt, true, r10, oRB);
  mm_table(in, bt, false, r9, oCB);
  mm_table(in, ct, true, r8, oRC);
  mm_table(in, ct, false, r9, oCC);
  if (cin_own) {
    mm_table(in, ty(o.cin), true, r8, oRI);
    mm_table(in, ty(o.cin), false, r9, oCI);
  }
  if (o.bias != kNone) mm_table(in, ty(o.bias), false, r9, oCZ);
  if (!ok_) return true;
  if (pair)
    for (int t : {oCA, oRB}) {
      mov(eax, dword[rsp + t + r10 * 4 - 4]);
      mov(dword[rsp + t + r10 * 4], eax);
    }
  auto kp = [&]() { return qword[rsp + oSp + 40]; };
  lea(rax, ptr[r10 + KS - 1]);
  if (pair) shr(rax, 1);
  mov(kp(), rax);
  // lo = the i16 pair (lo, hi) of two sign-extended i32 lanes (i8: k, k + 1).
  auto pair_up = [&](const Xmm& lo, const Xmm& hi) {
    vpslld(lo, lo, 16);
    vpsrld(lo, lo, 16);
    vpslld(hi, hi, 16);
    vlogic(Bin::Or, lo, lo, hi);
  };
  Xmm v0 = V(0), idx = V(7);

  // Transposed packing: qword[rsp + oRow + 8 l] = base + table[min(r12 +
  // l, rdx)] for the panel's lines l (rows of A, columns of B); Ymm(l - g)
  // = 8 elements of line l at offset rcx; an 8 x 8 transpose of Ymm0-7
  // (Ymm8-15 scratch), handing out k step kk's vector.
  auto k_head = [&](Label& top, Label& done) {  // for r11 = 0 .. r10 - 1 (the packing loops over k)
    xor_(r11d, r11d);
    L(top);
    cmp(r11, r10);
    jge(done, T_NEAR);
  };
  auto line_addrs = [&](int table, int count) {
    for (int l = 0; l < count; ++l) {
      lea(rax, ptr[r12 + l]);
      cmp(rax, rdx);
      cmovg(rax, rdx);
      mov(eax, dword[rsp + table + rax * 4]);
      add(rax, rbx);
      mov(qword[rsp + oRow + 8 * l], rax);
    }
  };
  auto load8 = [&](int g, int count) {
    for (int l = 0; l < count; ++l) {
      mov(rax, qword[rsp + oRow + 8 * (g + l)]);
      vld_e(o.ae, Ymm(l), rax + rcx, false);
    }
  };
  auto transpose8 = [&](const std::function<void(int, const Ymm&)>& put) {
    transpose8x8(pair, [&](int kk, const Ymm& y) {
      if (!pair) {
        put(kk, y);
      } else if (kk % 2) {  // packed step kk / 2
        pair_up(Ymm(9), y);
        put(kk / 2, Ymm(9));
      }
    });
  };

  // ---- pack A: per MR-row panel, per k, the panel's MR values (direct
  // A: only the last, partial panel) ----
  {
    Label pa, pa_done, pk, pk_done;
    mov(rbx, base(0));
    lea(rsi, ptr[rsp + oAp]);
    if (direct) {
      mov(rax, r8);
      mov(ecx, MR);
      xor_(edx, edx);
      div(rcx);
      imul(r12, rax, MR);
    } else {
      xor_(r12d, r12d);
    }
    L(pa);
    cmp(r12, r8);
    jge(pa_done, T_NEAR);
    if (tr) {
      // Rows i0 + r (at most m - 1: the padding rows repeat a valid one)
      // as 8 k values each, transposed to 8 k steps of MR values, 8 rows
      // at a time.
      mov(rdi, rsi);
      lea(rdx, ptr[r8 - 1]);
      line_addrs(oRA, MR);
      k_head(pk, pk_done);
      mov(ecx, dword[rsp + oCA + r11 * 4]);
      for (int g = 0; g < MR; g += 8) {
        int rows = std::min(8, MR - g);
        load8(g, rows);
        transpose8([&](int kk, const Ymm& y) {
          // avx2 (one group of 6): 8 lanes, the 2 past MR overwritten by
          // the next k; avx512 (8 + 4): exact.
          if (rows == 4) vmovups(ptr[rsi + (kk * MR + g) * 4], Xmm(y.getIdx()));
          else vmovups(ptr[rsi + (kk * MR + g) * 4], y);
        });
      }
      add(rsi, 8 / KS * MR * 4);
      add(r11, 8);
      jmp(pk, T_NEAR);
      L(pk_done);
      mov(rax, kp());
      imul(rax, rax, MR * 4);
      lea(rsi, ptr[rdi + rax]);
    } else {
      mov(rcx, r8);
      sub(rcx, r12);
      clamp(rcx, MR);
      tail_mask_rcx();
      vmovups(idx, ptr[rsp + oRA + r12 * 4]);
      k_head(pk, pk_done);
      for (int h = 0; h < KS; ++h) {  // k (and k + 1)
        Xmm d = V(2 * h);
        mov(eax, dword[rsp + oCA + r11 * 4 + 4 * h]);
        add(rax, rbx);
        gather_ps(d, rax, idx, 1);
        mm_widen(o.ae, d);
      }
      if (pair) pair_up(v0, V(2));
      vmovups(ptr[rsi], v0);  // the lanes past MR are overwritten next
      add(rsi, MR * 4);
      add(r11, KS);
      jmp(pk, T_NEAR);
      L(pk_done);
    }
    add(r12, MR);
    jmp(pa, T_NEAR);
    L(pa_done);
  }
  // ---- pack B: per NR-column panel, per k, the panel's NR values ----
  {
    bool adj = tile_runs(bt, LN, false);
    Label pb, pb_done, pk, pk_done, same_panel;
    mov(rbx, base(1));
    lea(rsi, ptr[rsp + oBp]);
    mov(r13, kp());
    imul(r13, r13, NR * 4);  // panel bytes
    xor_(r12d, r12d);
    L(pb);
    cmp(r12, r9);
    jge(pb_done, T_NEAR);
    mov(rdi, r12);
    and_(rdi, NR - 1);
    lea(rdi, ptr[rsi + rdi * 4]);
    if (trb) {
      // Columns j0 .. j0 + 7 (at most n - 1) as 8 k values each,
      // transposed to 8 k steps of 8 columns.
      lea(rdx, ptr[r9 - 1]);
      line_addrs(oCB, 8);
      k_head(pk, pk_done);
      mov(ecx, dword[rsp + oRB + r11 * 4]);
      load8(0, 8);
      transpose8([&](int kk, const Ymm& y) { vmovups(ptr[rdi + kk * NR * 4], y); });
      add(rdi, 8 / KS * NR * 4);
      add(r11, 8);
    } else {
      mov(rcx, r9);
      sub(rcx, r12);
      clamp(rcx, LN);
      tail_mask_rcx();
      if (adj) {
        mov(edx, dword[rsp + oCB + r12 * 4]);
        add(rdx, rbx);
      } else {
        vmovups(idx, ptr[rsp + oCB + r12 * 4]);
      }
      k_head(pk, pk_done);
      for (int h = 0; h < KS; ++h) {  // k (and k + 1)
        Xmm d = V(2 * h);
        mov(eax, dword[rsp + oRB + r11 * 4 + 4 * h]);
        if (adj) {
          vld_e(o.ae, d, rdx + rax, true);
        } else {
          add(rax, rbx);
          gather_ps(d, rax, idx, 1);
          mm_widen(o.ae, d);
        }
      }
      if (pair) pair_up(v0, V(2));
      vmovups(ptr[rdi], v0);
      add(rdi, NR * 4);
      add(r11, KS);
    }
    jmp(pk, T_NEAR);
    L(pk_done);
    add(r12, trb ? 8 : LN);
    test(r12d, NR - 1);
    jnz(same_panel, T_NEAR);
    add(rsi, r13);
    L(same_panel);
    jmp(pb, T_NEAR);
    L(pb_done);
    if (pair) {  // odd k: B's k = k half of the last packed step is 0
      Label even, zl;
      test(r10b, 1);
      jz(even, T_NEAR);
      mov(rax, kp());
      dec(rax);
      imul(rax, rax, NR * 4);
      lea(rsi, ptr[rsp + oBp + rax]);
      xor_(r12d, r12d);
      L(zl);
      for (int v = 0; v < NV; ++v) {
        vmovups(v0, ptr[rsi + v * LN * 4]);
        vpslld(v0, v0, 16);
        vpsrld(v0, v0, 16);
        vmovups(ptr[rsi + v * LN * 4], v0);
      }
      add(rsi, r13);
      add(r12, NR);
      cmp(r12, r9);
      jl(zl, T_NEAR);
      L(even);
    }
  }

  // ---- micro-kernels ----
  // Registers: accumulators from AB, B vectors from BB, then the A
  // broadcast, the i8 vpmaddwd product; after the k loop tv / ix (loaded cin or
  // bias, an offset vector). avx512 keeps the accumulators in zmm8-31:
  // gather / scatter indices stay below 16 (Bochs faults on higher ones).
  const int AB = z() ? 8 : 0, BB = z() ? 0 : NACC;
  Xmm tv = V(BB), ix = V(BB + 1), av = V(BB + NV), pv = V(BB + NV + 1);
  auto accv = [&](int r, int v) { return V(AB + r * NV + v); };
  bool adjC = tile_runs(ct, LN, false), adjI = o.cin != kNone && tile_runs(ty(o.cin), LN, false),
       adjZ = o.bias != kNone && tile_runs(ty(o.bias), LN, false);
  // k step u of a 4-step group: A at rax (packed: u MR 4 + r 4; direct:
  // u sk + r si), B at rdx + u NR 4.
  auto step = [&](int u, bool packed) {
    for (int v = 0; v < NV; ++v) vmovups(V(BB + v), ptr[rdx + (u * NR + v * LN) * 4]);
    for (int r = 0; r < MR; ++r) {
      int64_t da = packed ? (u * MR + r) * 4 : u * sk + r * si;
      if (o.i32) vpbroadcastd(av, dword[rax + da]);
      else vbroadcastss(av, dword[rax + da]);
      for (int v = 0; v < NV; ++v) {
        Xmm acc = accv(r, v);
        if (o.i32) {
          vpmaddwd(pv, V(BB + v), av);  // two k steps
          vpaddd(acc, acc, pv);
        } else {
          vfmadd231ps(acc, V(BB + v), av);
        }
      }
    }
  };
  // Column offset (adjacent columns) or offset vector of columns r12 + jv
  // from the table at off: the address of row r13 + r of the tile whose
  // base is slot `bi` and row table is `roff` in rax.
  auto row_addr = [&](int bi, int roff, int r) {
    if (roff < 0) {
      mov(rax, base(bi));
    } else {
      mov(eax, dword[rsp + roff + r13 * 4 + r * 4]);
      add(rax, base(bi));
    }
  };
  auto load_in = [&](bool adj, int coff, int jv, bool masked) {
    if (adj) {
      mov(edx, dword[rsp + coff + r12 * 4 + jv * 4]);
      vld(tv, ptr[rax + rdx], masked);
    } else {
      vmovups(ix, ptr[rsp + coff + r12 * 4 + jv * 4]);
      gather_ps(tv, rax, ix, 1);
    }
  };
  // Output (r, v): cin + acc / acc + bias, stored (masked: the tail mask's
  // lanes, rbx of them).
  auto out_vec = [&](int r, int v, bool masked) {
    Xmm acc = accv(r, v);
    int jv = v * LN;
    if (o.cin != kNone) {
      row_addr(3, oRI, r);
      load_in(adjI, oCI, jv, masked);
      o.i32 ? vpaddd(acc, tv, acc) : vaddps(acc, tv, acc);
    }
    if (o.bias != kNone) {
      row_addr(4, -1, r);
      load_in(adjZ, oCZ, jv, masked);
      o.i32 ? vpaddd(acc, acc, tv) : vaddps(acc, acc, tv);
    }
    row_addr(2, oRC, r);
    if (adjC) {
      mov(edx, dword[rsp + oCC + r12 * 4 + jv * 4]);
      vst(ptr[rax + rdx], acc, masked);
      return;
    }
    vmovups(ix, ptr[rsp + oCC + r12 * 4 + jv * 4]);
    mm_scatter(acc, ix, masked ? &rbx : nullptr);
  };
  // Row panels outer (the A panel stays in L1), column panels inner.
  Label jp, ip_next, ip, done;
  lea(rdi, ptr[rsp + oAp]);
  xor_(r13d, r13d);  // i0
  L(ip);
  cmp(r13, r8);
  jge(done, T_NEAR);
  lea(rsi, ptr[rsp + oBp]);
  xor_(r12d, r12d);  // j0
  L(jp);
  cmp(r12, r9);
  jge(ip_next, T_NEAR);
  for (int i = 0; i < NACC; ++i) vxorps(V(AB + i), V(AB + i), V(AB + i));
  auto kloop = [&](bool packed) {
    Label l4, rem, l1, kd;
    int64_t ak = packed ? MR * 4 : sk;
    mov(rdx, rsi);
    mov(rcx, kp());
    cmp(rcx, 4);
    jl(rem, T_NEAR);
    L(l4);
    sched_range([&] {
      for (int u = 0; u < 4; ++u) step(u, packed);
    });
    add(rax, uint32_t(4 * ak));
    add(rdx, 4 * NR * 4);
    sub(rcx, 4);
    cmp(rcx, 4);
    jge(l4, T_NEAR);
    L(rem);
    test(rcx, rcx);
    jz(kd, T_NEAR);
    L(l1);
    step(0, packed);
    add(rax, uint32_t(ak));
    add(rdx, NR * 4);
    dec(rcx);
    jnz(l1, T_NEAR);
    L(kd);
  };
  if (direct) {
    Label part, kdone;
    mov(rax, r8);
    sub(rax, r13);
    cmp(rax, MR);
    jl(part, T_NEAR);
    imul(rax, r13, int(si));
    add(rax, base(0));
    kloop(false);
    jmp(kdone, T_NEAR);
    L(part);
    mov(rax, rdi);
    kloop(true);
    L(kdone);
  } else {
    mov(rax, rdi);
    kloop(true);
  }
  {
    Label part, stored;
    mov(rax, r8);
    sub(rax, r13);
    cmp(rax, MR);
    jl(part, T_NEAR);
    mov(rax, r9);
    sub(rax, r12);
    cmp(rax, NR);
    jl(part, T_NEAR);
    if (!adjC || (o.cin != kNone && !adjI) || (o.bias != kNone && !adjZ)) {
      mov(ecx, LN);
      tail_mask_rcx();
    }
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) out_vec(r, v, false);
    jmp(stored, T_NEAR);
    L(part);
    for (int r = 0; r < MR; ++r) {
      Label next;
      mov(rax, r13);
      add(rax, r);
      cmp(rax, r8);
      jge(stored, T_NEAR);
      for (int v = 0; v < NV; ++v) {
        mov(rcx, r9);
        sub(rcx, r12);
        if (v) {
          sub(rcx, v * LN);
          jle(next, T_NEAR);
        }
        clamp(rcx, LN);
        mov(rbx, rcx);
        tail_mask_rcx();
        out_vec(r, v, true);
      }
      L(next);
    }
    L(stored);
  }
  mov(rax, kp());
  imul(rax, rax, NR * 4);
  add(rsi, rax);  // the next B panel
  add(r12, NR);
  jmp(jp, T_NEAR);
  L(ip_next);
  if (!direct) {  // the next A panel (direct: only the last one is packed)
    mov(rax, kp());
    imul(rax, rax, MR * 4);
    add(rdi, rax);
  }
  add(r13, MR);
  jmp(ip, T_NEAR);
  L(done);
  add(rsp, uint32_t(size));
  return true;
}

// One vector of output columns at a time: acc[j] = fma(a[i, k], b[k, j],
// acc[j]) for k ascending. Every layout's element index is row part +
// column part (tile_elem_index), so the columns of a row of b, cin, bias
// and c are gathered (scattered) through one vector of column offsets per
// chunk.
void Gen::matmul_gather(const Inst& in, const MmOps& o) {
  ValueId a = o.a, b = o.b, c = o.c, cin = o.cin, bt = o.bias;
  bool acc_in = cin != kNone, bias = bt != kNone, i32 = o.i32;
  DType ae = o.ae;
  const ptoas::Type &at = ty(a), &btt = ty(b), &ct = ty(c);
  // Column offsets in bytes of columns j0 + lane: ((c >> lic) * K1 +
  // (c & (ic - 1)) * K2) * es, the column part of tile_elem_index.
  Xmm idx = V(7), tmp = V(6);
  auto bimm = [&](const Xmm& v, uint32_t imm) {
    mov(ecx, imm);
    vmovd(Xmm(v.getIdx()), ecx);
    vpbroadcastd(v, Xmm(v.getIdx()));
  };
  auto col_part = [&](const Xmm& dst, const ptoas::Type& t) -> bool {
    int64_t es = std::max<int64_t>(1, dtype_bytes(t.elem));
    int64_t k1, k2, ic;
    int lic;
    if (t.slayout == SLayout::NoneBox) {
      ic = int64_t(1) << 30;
      lic = 30;
      k1 = 0;
      k2 = t.blayout == BLayout::RowMajor ? 1 : t.rows;
    } else {
      int64_t ir;
      tile_inner_box(t, ir, ic);
      lic = log2_exact(ic);
      if (lic < 0) return false;
      int64_t nbr = (t.rows + ir - 1) / ir;
      bool col_boxes = t.blayout == BLayout::ColMajor, col_inner = t.slayout == SLayout::ColMajor;
      k1 = (col_boxes ? nbr : 1) * ir * ic;
      k2 = col_inner ? ir : 1;
    }
    vmovups(dst, ptr[r14 + kIota]);
    vmovd(Xmm(tmp.getIdx()), esi);
    vpbroadcastd(tmp, Xmm(tmp.getIdx()));
    vpaddd(dst, dst, tmp);                 // column numbers
    vpsrld(tmp, dst, uint8_t(lic));
    bimm(V(5), uint32_t(k1 * es));
    vpmulld(tmp, tmp, V(5));
    bimm(V(5), uint32_t(ic - 1));
    vlogic(Bin::And, dst, dst, V(5));
    bimm(V(5), uint32_t(k2 * es));
    vpmulld(dst, dst, V(5));
    vpaddd(dst, dst, tmp);
    return true;
  };
  Label row, chunk, nextrow, end, kl, kdone;
  xor_(r12d, r12d);                        // column 0 (row parts)
  xor_(r13d, r13d);                        // i
  L(row);
  cmp(r13, r8);
  jge(end, T_NEAR);
  xor_(esi, esi);                          // j0
  L(chunk);
  cmp(rsi, r9);
  jge(nextrow, T_NEAR);
  mov(rbx, r9);
  sub(rbx, rsi);
  clamp(rbx, lanes());                     // columns in this chunk
  mov(rcx, rbx);
  tail_mask_rcx();
  Xmm acc = V(0), bv = V(1), av = V(2);
  vxorps(acc, acc, acc);
  if (!col_part(idx, btt)) return fail(in, "a boxed tile with a non-power-of-two inner box");
  xor_(edi, edi);                          // k
  L(kl);
  cmp(rdi, r10);
  jge(kdone, T_NEAR);
  if (!elem_off(in, btt, rdi, r12)) return;  // row k of b
  add(rax, r15);
  add(rax, q(b, 0));
  gather_ps(bv, rax, idx, 1);
  mm_widen(ae, bv);
  if (!elem_off(in, at, r13, rdi)) return;   // a[i, k]
  add(rax, r15);
  add(rax, q(a, 0));
  if (ae == DType::F32) {
    vbroadcastss(av, dword[rax]);
  } else if (ae == DType::BF16) {
    movzx(ecx, word[rax]);
    shl(ecx, 16);
    vmovd(Xmm(av.getIdx()), ecx);
    vpbroadcastd(av, Xmm(av.getIdx()));
  } else if (ae == DType::F16) {
    movzx(ecx, word[rax]);
    vmovd(Xmm(av.getIdx()), ecx);
    vcvtph2ps(Xmm(av.getIdx()), Xmm(av.getIdx()));
    vbroadcastss(av, Xmm(av.getIdx()));
  } else {
    movsx(ecx, byte[rax]);
    vmovd(Xmm(av.getIdx()), ecx);
    vpbroadcastd(av, Xmm(av.getIdx()));
  }
  if (i32) {
    vpmulld(bv, av, bv);
    vpaddd(acc, acc, bv);
  } else {
    vfmadd231ps(acc, av, bv);              // fma(a, b, acc), as the scalar form
  }
  inc(rdi);
  jmp(kl, T_NEAR);
  L(kdone);
  if (acc_in) {  // cin + acc
    if (!col_part(idx, ty(cin))) return fail(in);
    if (!elem_off(in, ty(cin), r13, r12)) return;
    add(rax, r15);
    add(rax, q(cin, 0));
    gather_ps(bv, rax, idx, 1);
    i32 ? vpaddd(acc, bv, acc) : vaddps(acc, bv, acc);
  }
  if (bias) {    // acc + bias[0, j]
    if (!col_part(idx, ty(bt))) return fail(in);
    mov(rax, q(bt, 0));
    add(rax, r15);
    gather_ps(bv, rax, idx, 1);
    i32 ? vpaddd(acc, acc, bv) : vaddps(acc, acc, bv);
  }
  // c[i, j0 + lane] = acc (only the chunk's columns).
  if (!col_part(idx, ct)) return fail(in);
  if (!elem_off(in, ct, r13, r12)) return;
  add(rax, r15);
  add(rax, q(c, 0));
  mm_scatter(acc, idx, &rbx);
  add(rsi, lanes());
  jmp(chunk, T_NEAR);
  L(nextrow);
  inc(r13);
  jmp(row, T_NEAR);
  L(end);
}

}  // namespace ptoas::cg::x86::gen
