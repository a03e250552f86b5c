// x86-64 code generation for element offsets in boxed (fractal) tiles,
// ttri, and tmatmul's entry, helpers and element-loop fallback (the
// register-blocked kernels are in x86/gemm.cpp; see x86/gen.h and
// docs/x86_backend.md).
//
// Element loops: each element's byte offset is the interpreter's
// tile_elem_index (runtime/interp/exec.cpp) computed in registers.
#include "tile_layout.h"
#include "gen.h"

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
    fail(in, {RefusalCode::Shape, "a tile of dynamic shape or odd element size"});
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
      fail(in, {RefusalCode::Layout, "a boxed tile with a non-power-of-two inner box"});
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
void Gen::ttri(const Inst& in, ValueId d, bool upper) {
  const ptoas::Type& dt = ty(d);
  uint32_t one = dt.elem == DType::F32 ? 0x3f800000u : 1u;
  if (in.n_ins == 1) mov(rbx, q(op(in, 0)));
  else xor_(ebx, ebx);
  if (dt.slayout == SLayout::NoneBox && dt.blayout == BLayout::RowMajor && dt.rows > 0 && dt.cols > 0 &&
      dt.cols < (1 << 30)) {
    // A row's columns in vectors. Row i's threshold (lower: i + diag + 1,
    // upper: i + diag - 1; diag first clamped to +-2^40, so nothing
    // overflows), clamped to [-1, cols + 16]: that keeps every column's
    // answer. Lane j is one where j - threshold (lower) or threshold - j
    // (upper) is negative: its sign bit, spread, masks 1.
    std::vector<Reg64> ptrs;
    std::vector<Stride> strides;
    if (!elem_loop(in, d, {}, ptrs, strides)) return;
    ptrs.push_back(r12);  // i
    strides.push_back({nullptr, 1});
    xor_(r12d, r12d);
    mov(r10, -(int64_t(1) << 40));
    cmp(rbx, r10);
    cmovl(rbx, r10);
    neg(r10);
    cmp(rbx, r10);
    cmovg(rbx, r10);
    add(rbx, upper ? -1 : 1);
    mov(r10, -1);
    mov(r11d, uint32_t(dt.cols + 16));
    Xmm lim = V(1), col = V(2), ones = V(3), iota = V(4);
    mov(edx, one);
    vmovd(Xmm(ones.getIdx()), edx);
    vpbroadcastd(ones, Xmm(ones.getIdx()));
    vmovups(iota, ptr[r14 + kIota]);
    row_loop(ptrs, strides, [&](bool masked) {
      lea(rdx, ptr[r12 + rbx]);
      cmp(rdx, r10);
      cmovl(rdx, r10);
      cmp(rdx, r11);
      cmovg(rdx, r11);
      vmovd(Xmm(lim.getIdx()), edx);
      vpbroadcastd(lim, Xmm(lim.getIdx()));
      vmovd(Xmm(col.getIdx()), eax);
      vpbroadcastd(col, Xmm(col.getIdx()));
      vpaddd(col, col, iota);
      if (upper) vpsubd(col, lim, col);
      else vpsubd(col, col, lim);
      vpsrad(col, col, 31);
      vlogic(Bin::And, V(0), col, ones);
      vst(ptr[rdi + rax * 4], V(0), masked);
    });
    return;
  }
  valid_rc(d, dt.rows, dt.cols);
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

// tci ins(start) {descending}: d[0, j] = start + j (start - j), j < d's
// valid columns, wrapping; 2- and 4-byte integers, any layout.
void Gen::tci(const Inst& in, unsigned es, bool desc) {
  ValueId d = op(in, in.n_ins);
  const ptoas::Type& dt = ty(d);
  mov(rbx, q(op(in, 0)));
  mov(r8d, dt.rows > 0 ? 1 : 0);
  mov(r9, q(d, 2));
  clamp(r9, dt.cols);
  grid_loop([&]() -> bool {
    if (!elem_off(in, dt, r13, rsi)) return false;
    add(rax, r15);
    add(rax, q(d, 0));
    mov(rcx, rbx);
    if (desc) sub(rcx, rsi);
    else add(rcx, rsi);
    if (es == 4) mov(dword[rax], ecx);
    else mov(word[rax], cx);
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
void Gen::matmul(const Inst& in, const MatmulPlan& plan) {
  MatmulPlan pl = plan;
  if (auto f = mm_movs_.find(&in); f != mm_movs_.end())
    for (auto [t, src] : f->second) (pl.a == t ? pl.a : pl.b) = src;
  if (auto f = mm_c_.find(&in); f != mm_c_.end()) {
    // The tile's allocation may come between the tmatmul and its tmov:
    // its slot is set here first (setting it again there is harmless).
    pl.c = f->second;
    InstId def = m_.values[pl.c].def;
    lower_inst(m_.inst(def), def);
  }
  mov(r8, q(pl.a, 1));
  clamp(r8, pl.cap_m);
  mov(r10, q(pl.a, 2));
  clamp(r10, pl.cap_k);
  mov(r9, q(pl.b, 2));
  clamp(r9, pl.cap_n);
  MmOps o = mm_ops(pl);
  if (!matmul_blocked(in, o) && ok_) matmul_gather(in, o);
}

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
// part); with `start`, of row (column) start + i, start a scalar's slot.
// Clobbers rax, rdx, rdi, r11 (and rcx with start).
void Gen::mm_table(const Inst& in, const ptoas::Type& t, bool rows, const Reg64& count, int off, ValueId start,
                   int dyn_stride) {
  Label l, done;
  xor_(edi, edi);
  xor_(r11d, r11d);
  // Unboxed layouts: the offsets are i times a constant stride.
  bool plain = t.slayout == SLayout::NoneBox && t.rows > 0 && t.cols > 0;
  int64_t stride = (rows == (t.blayout == BLayout::RowMajor) ? (rows ? t.cols : t.rows) : 1) *
                   std::max<int64_t>(1, dtype_bytes(t.elem));
  bool dyn = dyn_stride >= 0 && rows && plain && t.blayout == BLayout::RowMajor;
  if (dyn_stride >= 0 && (!dyn || start != kNone))
    return fail(in, {RefusalCode::Layout, "internal: a run-time row stride for this table"});
  if (plain && start != kNone) {
    mov(rax, q(start, 0));
    imul(rax, rax, int(stride));
  } else if (plain) {
    xor_(eax, eax);
  }
  L(l);
  cmp(r11, count);
  jge(done, T_NEAR);
  if (!plain) {
    const Reg64* idx = &r11;
    if (start != kNone) {
      mov(rcx, q(start, 0));
      add(rcx, r11);
      idx = &rcx;
    }
    if (!elem_off(in, t, rows ? *idx : rdi, rows ? rdi : *idx)) return;
  }
  mov(dword[rsp + off + r11 * 4], eax);
  if (dyn) add(eax, dword[rsp + dyn_stride]);
  else if (plain) add(eax, uint32_t(stride));
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
  if (!col_part(idx, btt)) return fail(in, {RefusalCode::Layout, "a boxed tile with a non-power-of-two inner box"});
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
