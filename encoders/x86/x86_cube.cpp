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

// tload / tstore of a boxed tile: the pad fill of the whole storage, then an
// element loop over the overlap of the valid region and the view.
void Gen::tcopy_boxed(const Inst& in, ValueId t, ValueId v, bool load) {
  const ptoas::Type& tt = ty(t);
  const ptoas::Type& vt = ty(v);
  unsigned rank = (p_.slots[v].count - 1u) / 2u;
  unsigned es = dtype_bytes(tt.elem);
  if (vt.kind == TypeKind::Ptr || rank != 2 || dtype_bytes(vt.elem) != es || vt.elem != tt.elem ||
      (es != 1 && es != 2 && es != 4) || tt.rows <= 0 || tt.cols <= 0)
    return fail(in, std::string(load ? "pto.tload into" : "pto.tstore from") +
                        " a boxed tile with this view or element type");
  if (load) {
    if (tt.pad != 0 && tt.pad != 1) return fail(in, "pto.tload into a boxed tile with a pad value");
    tile_ptr(rdi, t);
    mov(rcx, int64_t(tile_storage_bytes(tt)));
    xor_(eax, eax);
    rep();
    stosb();
  }
  mov(r8, q(t, 1));
  mov(r9, q(t, 2));
  clamp(r8, tt.rows);
  clamp(r9, tt.cols);
  mov(rcx, q(v, 1));
  cmp(r8, rcx);
  cmovg(r8, rcx);
  mov(rcx, q(v, 2));
  cmp(r9, rcx);
  cmovg(r9, rcx);
  mov(r10, q(v, 3));
  mov(r11, q(v, 4));
  if (es > 1) {
    shl(r10, es == 4 ? 2 : 1);
    shl(r11, es == 4 ? 2 : 1);
  }
  mov(rbx, q(v, 0));
  tile_ptr(r12, t);
  grid_loop([&]() -> bool {
    if (!elem_off(in, tt, r13, rsi)) return false;
    mov(rcx, r13);
    imul(rcx, r10);
    mov(rdx, rsi);
    imul(rdx, r11);
    add(rcx, rdx);
    add(rcx, rbx);
    add(rax, r12);
    const Reg& tmp = es == 4 ? Reg(edx) : es == 2 ? Reg(dx) : Reg(dl);
    auto at = [&](const Reg64& p) { return es == 4 ? dword[p] : es == 2 ? word[p] : byte[p]; };
    if (load) {
      mov(tmp, at(rcx));
      mov(at(rax), tmp);
    } else {
      mov(tmp, at(rax));
      mov(at(rcx), tmp);
    }
    return true;
  });
}

// tmov between tiles of one element type (any layouts): dst[r, c] = src[r, c]
// over dst's valid region (capped by both tiles' shapes).
void Gen::tmov(const Inst& in) {
  if (in.n_ins != 1 || in.n_outs != 1) return fail(in, "pto.tmov with a quantization operand");
  if (m_.attr_word(in, "reluPreMode") == "normal_relu" || m_.find_attr(in, "relu"))
    return fail(in, "pto.tmov with relu");
  ValueId s = op(in, 0), d = op(in, 1);
  if (ty(s).kind != TypeKind::TileBuf || ty(d).kind != TypeKind::TileBuf) return fail(in);
  const ptoas::Type& st = ty(s);
  const ptoas::Type& dt = ty(d);
  unsigned es = dtype_bytes(dt.elem);
  if (st.elem != dt.elem)
    return fail(in, "pto.tmov that converts " + std::string(dtype_name(st.elem)) + " to " +
                        std::string(dtype_name(dt.elem)));
  if (es != 1 && es != 2 && es != 4) return fail(in);
  if (s == d) return;
  mov(r8, q(d, 1));
  mov(r9, q(d, 2));
  clamp(r8, std::min(st.rows, dt.rows));
  clamp(r9, std::min(st.cols, dt.cols));
  grid_loop([&]() -> bool {
    if (!elem_off(in, st, r13, rsi)) return false;
    mov(rcx, rax);
    add(rcx, r15);
    add(rcx, q(s, 0));
    if (!elem_off(in, dt, r13, rsi)) return false;
    add(rax, r15);
    add(rax, q(d, 0));
    const Reg& tmp = es == 4 ? Reg(edx) : es == 2 ? Reg(dx) : Reg(dl);
    auto at = [&](const Reg64& p) { return es == 4 ? dword[p] : es == 2 ? word[p] : byte[p]; };
    mov(tmp, at(rcx));
    mov(at(rax), tmp);
    return true;
  });
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

// tmatmul / tmatmul.acc / tmatmul.bias, one vector of output columns at a
// time: acc[j] = fma(a[i, k], b[k, j], acc[j]) for k ascending (the
// interpreter's order per element, so bit-exact; bf16 widened exactly,
// i8 x i8 -> i32 wrapping), then cin + acc / acc + bias[0, j]. m = a.vrow,
// k = a.vcol, n = b.vcol, capped by the tiles' shapes. Every layout's
// element index is row part + column part (tile_elem_index), so the
// columns of a row of b, cin, bias and c are gathered (scattered) through
// one vector of column offsets per chunk.
void Gen::matmul(const Inst& in) {
  bool acc_in = in.op == Op::TMatmulAcc, bias = in.op == Op::TMatmulBias;
  unsigned ia = acc_in ? 1 : 0;
  if (in.n_outs != 1 || in.n_ins != (acc_in || bias ? 3u : 2u)) return fail(in);
  ValueId a = op(in, ia), b = op(in, ia + 1), c = op(in, in.n_ins);
  ValueId cin = acc_in ? op(in, 0) : kNone, bt = bias ? op(in, 2) : kNone;
  for (ValueId v : {a, b, c, cin, bt})
    if (v != kNone && ty(v).kind != TypeKind::TileBuf) return fail(in);
  DType ae = ty(a).elem, ce = ty(c).elem;
  bool f32 = ce == DType::F32 && (ae == DType::F32 || ae == DType::BF16) && ty(b).elem == ae;
  bool i32 = ce == DType::I32 && ae == DType::I8 && ty(b).elem == ae;
  if (!f32 && !i32) return fail(in, "pto.tmatmul with these element types");
  if ((acc_in && ty(cin).elem != ce) || (bias && ty(bt).elem != ce)) return fail(in);
  if (c == a || c == b) return fail(in, "pto.tmatmul whose result is one of its operands");
  const ptoas::Type &at = ty(a), &btt = ty(b), &ct = ty(c);
  mov(r8, q(a, 1));
  clamp(r8, std::min(at.rows, ct.rows));
  mov(r10, q(a, 2));
  clamp(r10, std::min(at.cols, btt.rows));
  mov(r9, q(b, 2));
  clamp(r9, std::min(btt.cols, ct.cols));
  if (acc_in) {
    clamp(r8, ty(cin).rows);
    clamp(r9, ty(cin).cols);
  }
  if (bias) clamp(r9, ty(bt).cols);
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
  // Widens gathered dwords whose low bytes are the element.
  auto widen = [&](const Xmm& y) {
    if (ae == DType::BF16) {
      vpslld(y, y, 16);
    } else if (i32) {
      vpslld(y, y, 24);
      vpsrad(y, y, 24);
    }
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
  widen(bv);
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
  if (z()) {
    kmovw(k2, k1);
    vscatterdps(ptr[rax + Zmm(idx.getIdx()) * 1] | k2, acc);
  } else {  // no scatter: through the red zone (the kernel calls nothing)
    Label st;
    vmovups(ptr[rsp - 64], acc);
    vmovups(ptr[rsp - 32], Ymm(idx.getIdx()));
    xor_(r11d, r11d);
    L(st);
    mov(ecx, dword[rsp - 32 + r11 * 4]);
    mov(edx, dword[rsp - 64 + r11 * 4]);
    mov(dword[rax + rcx], edx);
    inc(r11);
    cmp(r11, rbx);
    jl(st, T_NEAR);
  }
  add(rsi, lanes());
  jmp(chunk, T_NEAR);
  L(nextrow);
  inc(r13);
  jmp(row, T_NEAR);
  L(end);
}

}  // namespace ptoas::cg::x86::gen
