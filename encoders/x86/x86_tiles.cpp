// x86-64 AVX2 code generation: tile data movement (tload / tstore) and tile
// ops (elementwise, row reductions, row / column expansion, exp / log /
// rsqrt). See x86_gen.h and docs/x86_backend.md.
//
// Tiles are ND (row-major) or DN (column-major) with 4-byte elements. A loop
// over a valid region runs rows-outer (every tile ND or one column wide:
// one vector of columns) or columns-outer (every tile DN or one row high:
// one vector of rows); the tail lanes are masked either way.
#include <algorithm>

#include "tile_layout.h"
#include "x86_gen.h"

namespace ptoas::cg::x86::gen {

bool Gen::tile_type_ok(const Inst& in, ValueId v, bool movement) {
  const ptoas::Type& t = ty(v);
  if (t.kind != TypeKind::TileBuf) return false;
  if (t.slayout != SLayout::NoneBox) {
    fail(in, "op " + std::string(op_name(in.op)) + " on a boxed (fractal) tile");
    return false;
  }
  if (t.rows <= 0 || t.cols <= 0) {
    fail(in, "a tile of dynamic shape");
    return false;
  }
  if (!lane_type(t.elem)) {
    fail(in);
    return false;
  }
  (void)movement;
  return true;
}

bool Gen::lane_type(DType d) {
  switch (d) {
    case DType::F32: case DType::F16: case DType::BF16: case DType::I32: case DType::U32:
    case DType::I16: case DType::U16: case DType::I8: case DType::U8:
      return true;
    default:
      return false;
  }
}

void Gen::vld_e(DType d, const Xmm& v, const RegExp& e, bool masked) {
  if (dtype_bytes(d) == 4) return vld(v, ptr[e], masked);
  Xmm t = masked && z() ? v | k1 | T_z : v;
  switch (d) {
    case DType::F16: vcvtph2ps(t, ptr[e]); break;
    case DType::BF16:
      vpmovzxwd(t, ptr[e]);
      vpslld(v, v, 16);
      break;
    case DType::I16: vpmovsxwd(t, ptr[e]); break;
    case DType::U16: vpmovzxwd(t, ptr[e]); break;
    case DType::I8: vpmovsxbd(t, ptr[e]); break;
    default: vpmovzxbd(t, ptr[e]); break;
  }
}

void Gen::vlogic(Bin k, const Xmm& d, const Xmm& a, const Operand& b) {
  if (z()) {
    if (k == Bin::And) vpandd(d, a, b);
    else if (k == Bin::Or) vpord(d, a, b);
    else vpxord(d, a, b);
  } else {
    if (k == Bin::And) vpand(d, a, b);
    else if (k == Bin::Or) vpor(d, a, b);
    else vpxor(d, a, b);
  }
}

void Gen::vst_e(DType d, const RegExp& e, const Xmm& v, bool masked, const Reg64* count) {
  unsigned es = dtype_bytes(d);
  if (es == 4) return vst(ptr[e], v, masked);
  if (d == DType::BF16) {
    bf16_bits(v);
    vpsrld(v, v, 16);
  }
  if (z()) {
    Address a = masked && !break_tails_ ? ptr[e] | k1 : ptr[e];
    if (d == DType::F16) vcvtps2ph(a, v, 0);  // round to nearest even
    else if (es == 2) vpmovdw(a, v);          // truncating
    else vpmovdb(a, v);
    return;
  }
  // avx2: pack the 8 lanes into the low bytes of xmm14.
  Ymm y(v.getIdx());
  if (d == DType::F16) {
    vcvtps2ph(xmm14, y, 0);
  } else {
    vpbroadcastd(ymm13, dword[r14 + (es == 2 ? kLow16 : kLow8)]);
    vpand(ymm14, y, ymm13);
    vextracti128(xmm13, ymm14, 1);
    vpackusdw(xmm14, xmm14, xmm13);
    if (es == 1) vpackuswb(xmm14, xmm14, xmm14);
  }
  if (!masked || break_tails_) {
    if (es == 2) vmovdqu(ptr[e], xmm14);
    else vmovq(ptr[e], xmm14);
    return;
  }
  // The tail, (r9 - rax) or *count elements, in pieces of 8, 4, 2, 1
  // bytes: nothing past the valid region is written.
  Label l4, l2, l1, end;
  lea(rbx, ptr[e]);
  if (count) {
    mov(rcx, *count);
  } else {
    mov(rcx, r9);
    sub(rcx, rax);
  }
  if (es == 2) add(rcx, rcx);
  if (count) {  // a whole vector is possible here (16 or 8 bytes)
    Label part;
    cmp(rcx, 8 * int(es));
    jb(part, T_NEAR);
    if (es == 2) vmovdqu(ptr[rbx], xmm14);
    else vmovq(qword[rbx], xmm14);
    jmp(end, T_NEAR);
    L(part);
  }
  if (es == 2) {
    test(cl, 8);
    jz(l4, T_NEAR);
    vmovq(qword[rbx], xmm14);
    vpsrldq(xmm14, xmm14, 8);
    add(rbx, 8);
  }
  L(l4);
  test(cl, 4);
  jz(l2, T_NEAR);
  vmovd(dword[rbx], xmm14);
  vpsrldq(xmm14, xmm14, 4);
  add(rbx, 4);
  L(l2);
  test(cl, 2);
  jz(l1, T_NEAR);
  vpextrw(word[rbx], xmm14, 0);
  vpsrldq(xmm14, xmm14, 2);
  add(rbx, 2);
  L(l1);
  if (es == 1) {
    test(cl, 1);
    jz(end, T_NEAR);
    vpextrb(byte[rbx], xmm14, 0);
  }
  L(end);
}

// Round to nearest even on the bits: x + 0x7fff + bit 16; a NaN keeps its
// top bits and is quieted (the interpreter's f32_to_bf16_bits).
void Gen::bf16_bits(const Xmm& v) {
  Xmm r = V(13), t = V(14), m = V(12);
  vpslld(r, v, 15);
  vpsrld(r, r, 31);
  vpbroadcastd(t, dword[r14 + kBf16Bias]);
  vpaddd(r, r, t);
  vpaddd(r, r, v);
  vpbroadcastd(t, dword[r14 + kBf16Quiet]);
  vlogic(Bin::Or, t, t, v);
  cmp_ps(m, v, v, 3);  // unordered
  blend_ps(v, r, t, m);
}

void Gen::round_lane(DType d, const Xmm& v) {
  if (d == DType::F16) {
    vcvtps2ph(H(13), v, 0);
    vcvtph2ps(v, H(13));
  } else if (d == DType::BF16) {
    bf16_bits(v);
    vpsrld(v, v, 16);
    vpslld(v, v, 16);
  }
}

// acc = isnan(acc) ? acc : (isnan(x) || x > acc [x < acc]) ? x : acc
void Gen::minmax_step(bool mx, const Xmm& acc, const Xmm& x) {
  Xmm t = V(2), m = V(4), o = V(5);
  if (mx) vmaxps(t, x, acc);
  else vminps(t, x, acc);
  cmp_ps(m, x, x, 3);      // unordered
  cmp_ps(o, acc, acc, 7);  // ordered
  vandps(m, m, o);
  blend_ps(acc, t, x, m);
}

void Gen::bcast_e(DType d, const Xmm& v, const RegExp& e) {
  switch (d) {
    case DType::F16:
      movzx(ecx, word[e]);
      vmovd(xmm13, ecx);
      vcvtph2ps(xmm13, xmm13);
      vbroadcastss(v, xmm13);
      return;
    case DType::BF16:
      movzx(ecx, word[e]);
      shl(ecx, 16);
      break;
    case DType::I16: movsx(ecx, word[e]); break;
    case DType::U16: movzx(ecx, word[e]); break;
    case DType::I8: movsx(ecx, byte[e]); break;
    case DType::U8: movzx(ecx, byte[e]); break;
    default: return vbroadcastss(v, dword[e]);
  }
  vmovd(xmm13, ecx);
  vpbroadcastd(v, xmm13);
}

Gen::Geo Gen::geo(ValueId v) const {
  const ptoas::Type& t = ty(v);
  int64_t es = std::max(1u, dtype_bytes(t.elem));
  bool dn = t.blayout == BLayout::ColMajor;
  Geo g;
  g.dn = dn;
  g.rs = dn ? es : int64_t(t.cols) * es;
  g.cs = dn ? int64_t(t.rows) * es : es;
  g.rowvec = !dn || t.cols == 1;
  g.colvec = dn || t.rows == 1;
  return g;
}

void Gen::row_loop(const std::vector<Reg64>& ptrs, const std::vector<Stride>& strides,
                   const std::function<void(bool)>& body) {
  Label done, row, vec, tail, next;
  test(r8, r8);
  jle(done, T_NEAR);
  test(r9, r9);
  jle(done, T_NEAR);
  mov(r13, r9);
  and_(r13, -lanes());
  mov(rcx, r9);
  and_(ecx, lanes() - 1);
  tail_mask_rcx();
  L(row);
  xor_(eax, eax);
  cmp(rax, r13);
  jge(tail, T_NEAR);
  L(vec);
  body(false);
  add(rax, lanes());
  cmp(rax, r13);
  jl(vec, T_NEAR);
  L(tail);
  cmp(rax, r9);
  jge(next, T_NEAR);
  body(true);
  L(next);
  for (size_t i = 0; i < ptrs.size(); ++i) {
    if (strides[i].reg) add(ptrs[i], *strides[i].reg);
    else add(ptrs[i], int(strides[i].imm));
  }
  dec(r8);
  jnz(row, T_NEAR);
  L(done);
}

// Loads / stores one vector of element type d (size es) at element rax of
// the row at p, masked in the tail.
#define LD(y, p) vld_e(d, y, p + rax * int(es), masked)
#define ST(p, y) vst_e(d, p + rax * int(es), y, masked)

// ---- tload / tstore ------------------------------------------------------------------

void Gen::tload(const Inst& in) { tcopy(in, op(in, in.n_ins), op(in, 0), true); }

void Gen::tstore(const Inst& in) {
  if (in.n_ins != 1) return fail(in, "pto.tstore with a scalar operand");
  std::string_view atomic = m_.attr_word(in, "atomicType");
  std::string_view relu = m_.attr_word(in, "reluPreMode");
  if ((!atomic.empty() && atomic != "atomic_none") || (!relu.empty() && relu != "no_relu"))
    return fail(in, "pto.tstore with atomic add or relu");
  tcopy(in, op(in, 0), op(in, in.n_ins), false);
}

// The pad value of tile type t as an element's bits: Null / Zero 0, Max
// +Inf or the type's maximum, Min -Inf or the type's minimum.
uint32_t Gen::pad_bits(const ptoas::Type& tt) const {
  unsigned es = dtype_bytes(tt.elem);
  uint32_t pad = 0;
  bool fl = dtype_is_float(tt.elem);
  bool uns = dtype_is_unsigned(tt.elem);
  if (es == 4) {
    if (tt.pad == 2) pad = fl ? 0x7f800000u : uns ? 0xffffffffu : 0x7fffffffu;
    if (tt.pad == 3) pad = fl ? 0xff800000u : uns ? 0u : 0x80000000u;
  } else if (es == 2) {
    uint32_t inf = tt.elem == DType::F16 ? 0x7c00u : 0x7f80u;
    if (tt.pad == 2) pad = fl ? inf : uns ? 0xffffu : 0x7fffu;
    if (tt.pad == 3) pad = fl ? inf | 0x8000u : uns ? 0u : 0x8000u;
  } else {
    if (tt.pad == 2) pad = uns ? 0xffu : 0x7fu;
    if (tt.pad == 3) pad = uns ? 0u : 0x80u;
  }
  return pad;
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
  if (vt.kind == TypeKind::Ptr || rank < 1 || rank > 2)
    return fail(in, std::string(what) + " a view of rank " + std::to_string(rank));
  unsigned es = dtype_bytes(tt.elem);
  DType d = tt.elem;
  if (dtype_bytes(vt.elem) != es) return fail(in);
  if (!load && vt.elem != tt.elem)
    return fail(in, "pto.tstore that converts " + std::string(dtype_name(tt.elem)) + " to " +
                        std::string(dtype_name(vt.elem)));
  Geo g = geo(t);
  if (load) {
    uint32_t pad = pad_bits(tt);
    tile_ptr(rdi, t);
    mov(ecx, uint32_t(tt.rows) * uint32_t(tt.cols));
    mov(eax, pad);
    rep();
    if (es == 4) stosd();
    else if (es == 2) stosw();
    else stosb();
  }
  // r8 x r9 = rows x cols of the overlap; r10 / r11 = the view's row /
  // column stride in bytes; rbx = the view base, r12 = the tile base.
  mov(r8, q(t, 1));
  mov(r9, q(t, 2));
  if (rank == 2) {
    mov(rcx, q(v, 1));
    cmp(r8, rcx);
    cmovg(r8, rcx);
    mov(rcx, q(v, 2));
    cmp(r9, rcx);
    cmovg(r9, rcx);
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
  mov(rbx, q(v, 0));
  tile_ptr(r12, t);
  Label general, done;
  auto vec_copy = [&](const Reg64& vstride, int64_t tstride) {
    if (load) {
      mov(rdi, r12);
      mov(rsi, rbx);
      row_loop({rdi, rsi}, {{nullptr, tstride}, {&vstride, 0}}, [&](bool masked) {
        LD(V(0), rsi);
        ST(rdi, V(0));
      });
    } else {
      mov(rdi, rbx);
      mov(rsi, r12);
      row_loop({rdi, rsi}, {{&vstride, 0}, {nullptr, tstride}}, [&](bool masked) {
        LD(V(0), rsi);
        ST(rdi, V(0));
      });
    }
    jmp(done, T_NEAR);
  };
  if (g.rowvec && es == 4) {
    Label no;
    cmp(r11, 4);
    jne(no, T_NEAR);
    vec_copy(r10, g.rs);
    L(no);
  }
  if (g.colvec && rank == 2 && es == 4) {
    Label no;
    cmp(r10, 4);
    jne(no, T_NEAR);
    xchg(r8, r9);  // columns outer
    vec_copy(r11, g.cs);
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

// ---- element ops ---------------------------------------------------------------------

void Gen::bin(Bin k, DType d) {
  Xmm x0 = V(0), x1 = V(1), x3 = V(3);
  bool f32 = dtype_is_float(d), u32 = d == DType::U32;
  switch (k) {
    case Bin::Add: f32 ? vaddps(x0, x0, x1) : vpaddd(x0, x0, x1); break;
    case Bin::Sub: f32 ? vsubps(x0, x0, x1) : vpsubd(x0, x0, x1); break;
    case Bin::Mul: f32 ? vmulps(x0, x0, x1) : vpmulld(x0, x0, x1); break;
    case Bin::Div: vdivps(x0, x0, x1); break;
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
    case Bin::Shl: vpsllvd(x0, x0, x1); break;
    case Bin::Shr: dtype_is_unsigned(d) ? vpsrlvd(x0, x0, x1) : vpsravd(x0, x0, x1); break;
  }
}

namespace {

bool bin_of(Op o, Bin& k) {
  using B = Bin;
  switch (o) {
    case Op::TAdd: case Op::TAddS: case Op::TRowExpandAdd: case Op::TColExpandAdd: k = B::Add; return true;
    case Op::TSub: case Op::TSubS: case Op::TRowExpandSub: case Op::TColExpandSub: k = B::Sub; return true;
    case Op::TMul: case Op::TMulS: case Op::TRowExpandMul: case Op::TColExpandMul: k = B::Mul; return true;
    case Op::TDiv: case Op::TDivS: case Op::TRowExpandDiv: case Op::TColExpandDiv: k = B::Div; return true;
    case Op::TMax: case Op::TMaxS: case Op::TRowExpandMax: case Op::TColExpandMax: k = B::Max; return true;
    case Op::TMin: case Op::TMinS: case Op::TRowExpandMin: case Op::TColExpandMin: k = B::Min; return true;
    case Op::TRowExpandExpDif: case Op::TColExpandExpDif: k = B::ExpDif; return true;
    case Op::TAnd: case Op::TAndS: k = B::And; return true;
    case Op::TOr: case Op::TOrS: k = B::Or; return true;
    case Op::TXor: case Op::TXorS: k = B::Xor; return true;
    case Op::TShl: case Op::TShlS: k = B::Shl; return true;
    case Op::TShr: case Op::TShrS: k = B::Shr; return true;
    default: return false;
  }
}

}  // namespace

void Gen::tile_op(const Inst& in) {
  switch (in.op) {
    case Op::TLoad: return tload(in);
    case Op::TStore: return tstore(in);
    case Op::TRowSum: case Op::TRowMax: case Op::TRowMin: case Op::TRowProd: return row_reduce(in);
    case Op::TFillPad: case Op::TFillPadInplace: case Op::TFillPadExpand: return tfillpad(in);
    case Op::TExtract: case Op::TInsert: return twindow(in);
    case Op::TColSum: case Op::TColMax: case Op::TColMin: case Op::TColProd: return col_reduce(in);
    case Op::TCmp: case Op::TCmpS: return tcmp(in);
    case Op::TSel: case Op::TSelS: return tsel(in);
    case Op::TAddC: case Op::TSubC: case Op::TAddSC: case Op::TSubSC: case Op::TMulAddDst:
    case Op::TFusedMulAdd: case Op::TFusedMulAddRelu: case Op::TSubRelu: case Op::TLRelu:
    case Op::TPrelu: case Op::TAxpy:
      return fused(in);
    case Op::TCvt: return tcvt(in);
    case Op::TMov: return tmov(in);
    case Op::TTri: return ttri(in);
    case Op::TMatmul: case Op::TMatmulAcc: case Op::TMatmulBias: return matmul(in);
    case Op::TRowExpand: case Op::TRowExpandAdd: case Op::TRowExpandSub: case Op::TRowExpandMul:
    case Op::TRowExpandDiv: case Op::TRowExpandMax: case Op::TRowExpandMin: case Op::TRowExpandExpDif:
      return row_expand(in);
    case Op::TColExpand: case Op::TColExpandAdd: case Op::TColExpandSub: case Op::TColExpandMul:
    case Op::TColExpandDiv: case Op::TColExpandMax: case Op::TColExpandMin: case Op::TColExpandExpDif:
      return col_expand(in);
    default: return elementwise(in);
  }
}

// Constants the element loops keep in registers: V3 -0.0, V4 abs mask,
// V5 1.0, V6 0.
#define LOOP_CONSTANTS()                          \
  do {                                            \
    vbroadcastss(V(3), dword[r14 + kSignF32]);    \
    vbroadcastss(V(4), dword[r14 + kAbsF32]);     \
    vbroadcastss(V(5), dword[r14 + kOneF32]);     \
    vxorps(V(6), V(6), V(6));                     \
  } while (0)

// Sets up a row_loop over dst's valid region for dst and the source tiles
// (pointers rdi, then rsi, rdx, r10, r11 in order). Loop order: columns
// outer when every tile is DN (or one row high) and one is DN; rows outer
// when every tile is ND (or one column wide); other mixes are refused. The
// region is capped at what every tile physically holds (the interpreter
// reports a source that is too small).
bool Gen::elem_loop(const Inst& in, ValueId dst, const std::vector<ValueId>& tiles, std::vector<Reg64>& ptrs,
                    std::vector<Stride>& strides, ValueId region) {
  if (region == kNone) region = dst;
  std::vector<ValueId> all{dst};
  all.insert(all.end(), tiles.begin(), tiles.end());
  bool all_row = true, all_col = true, any_dn = false;
  for (ValueId v : all) {
    Geo g = geo(v);
    all_row &= g.rowvec;
    all_col &= g.colvec;
    any_dn |= g.dn;
  }
  bool colmajor = all_col && (any_dn || !all_row);
  if (!colmajor && !all_row) {
    fail(in, "op " + std::string(op_name(in.op)) + " on tiles of mixed layouts");
    return false;
  }
  int32_t cap_r = ty(dst).rows, cap_c = ty(dst).cols;
  for (ValueId v : tiles) {
    cap_r = std::min(cap_r, ty(v).rows);
    cap_c = std::min(cap_c, ty(v).cols);
  }
  mov(r8, q(region, colmajor ? 2 : 1));
  mov(r9, q(region, colmajor ? 1 : 2));
  clamp(r8, colmajor ? cap_c : cap_r);
  clamp(r9, colmajor ? cap_r : cap_c);
  static const Reg64 regs[] = {rdi, rsi, rdx, r10, r11};
  for (size_t i = 0; i < all.size(); ++i) {
    tile_ptr(regs[i], all[i]);
    ptrs.push_back(regs[i]);
    Geo g = geo(all[i]);
    strides.push_back({nullptr, colmajor ? g.cs : g.rs});
  }
  return true;
}

void Gen::elementwise(const Inst& in) {
  const OpInfo& info = op_info(in.op);
  if (in.n_outs != 1) return fail(in);
  ValueId dst = op(in, in.n_ins);
  if (ty(dst).kind != TypeKind::TileBuf) return fail(in);
  DType d = ty(dst).elem;
  unsigned es = dtype_bytes(d);
  // f32: the lanes are f32 (f32, f16, bf16); otherwise i32 lanes.
  bool f32 = dtype_is_float(d), lanes_ok = lane_type(d), ints = lanes_ok && !f32;
  Op o = in.op;
  Bin bk = Bin::Add;
  bool is_bin = bin_of(o, bk);
  bool have = false;
  switch (o) {
    case Op::TAdd: case Op::TSub: case Op::TMul: case Op::TMax: case Op::TMin:
    case Op::TAddS: case Op::TSubS: case Op::TMulS: case Op::TMaxS: case Op::TMinS:
    case Op::TExpandS: case Op::TNeg: case Op::TRelu: case Op::TAbs:
      have = lanes_ok;
      break;
    case Op::TDiv: case Op::TDivS: case Op::TSqrt: case Op::TRecip:
    case Op::TExp: case Op::TLog: case Op::TRsqrt:
      have = lanes_ok && f32;
      break;
    case Op::TAnd: case Op::TOr: case Op::TXor: case Op::TShl: case Op::TShr: case Op::TNot:
    case Op::TAndS: case Op::TOrS: case Op::TXorS: case Op::TShlS: case Op::TShrS:
      have = ints;
      break;
    default: break;
  }
  if (!have) return fail(in);
  if (!tile_type_ok(in, dst, false)) return;
  size_t want_tiles = info.sem == Sem::EltBin ? 2 : info.sem == Sem::EltUnary ? 1 :
                      o == Op::TExpandS ? 0 : 1;
  std::vector<ValueId> tiles;  // tile inputs in order (a trailing tmp tile is not read)
  ValueId scal = kNone;
  bool scalar_first = false;
  for (unsigned i = 0; i < in.n_ins; ++i) {
    ValueId v = op(in, i);
    if (ty(v).kind == TypeKind::TileBuf) {
      if (tiles.size() == want_tiles) continue;
      if (!tile_type_ok(in, v, false)) return;
      if (ty(v).elem != d) return fail(in, "op " + std::string(info.name) + " with mixed element types");
      tiles.push_back(v);
    } else {
      if (scal != kNone || ty(v).kind != TypeKind::Scalar) return fail(in);
      if (ty(v).elem != d)
        return fail(in, "op " + std::string(info.name) + " with a " + std::string(dtype_name(ty(v).elem)) +
                            " scalar on a " + std::string(dtype_name(d)) + " tile");
      scal = v;
      scalar_first = i == 0;
    }
  }
  if (tiles.size() != want_tiles || (info.sem == Sem::EltScalar && scal == kNone))
    return fail(in, "this operand form of " + std::string(info.name));
  std::vector<Reg64> ptrs;
  std::vector<Stride> strides;
  if (!elem_loop(in, dst, tiles, ptrs, strides)) return;
  // f32 bits, f16 / bf16 bits, or the integer's low 32 bits.
  if (scal != kNone) bcast_e(d, V(2), rbp + disp(sl(scal)));
  LOOP_CONSTANTS();
  Xmm x0 = V(0), x1 = V(1), x2 = V(2), x3 = V(3), x4 = V(4), x5 = V(5), x6 = V(6);
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
    if (is_bin) {
      bin(bk, d);
    } else {
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
    ST(rdi, x0);
  });
}

// ---- row reductions -------------------------------------------------------------------

// dst[r, 0] = reduce(src[r, 0..vcol)) for r < src valid rows, in the
// interpreter's order: each vector lane is one row, the columns are
// gathered one after the other (sequential sum in f32 is exactly the
// interpreter's double sum rounded to f32 at each step, so bit-exact).
void Gen::row_reduce(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 1) return fail(in);
  ValueId src = op(in, 0), dst = op(in, in.n_ins);
  if (!tile_type_ok(in, src, false) || !tile_type_ok(in, dst, false)) return;
  DType d = ty(dst).elem;
  if (ty(src).elem != d) return fail(in, "op " + std::string(op_name(in.op)) + " with mixed element types");
  unsigned es = dtype_bytes(d);
  bool fl = dtype_is_float(d);
  Geo gs = geo(src), gd = geo(dst);
  if (gd.rs != int64_t(es))
    return fail(in, "op " + std::string(op_name(in.op)) + " into a tile whose column is not contiguous");
  if (gs.rs > (1 << 24)) return fail(in);
  mov(r8, q(src, 1));
  mov(r9, q(src, 2));
  clamp(r8, std::min(ty(src).rows, ty(dst).rows));
  clamp(r9, ty(src).cols);
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
void Gen::col_reduce(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 1) return fail(in);
  ValueId src = op(in, 0), dst = op(in, in.n_ins);
  if (!tile_type_ok(in, src, false) || !tile_type_ok(in, dst, false)) return;
  DType d = ty(dst).elem;
  if (ty(src).elem != d) return fail(in, "op " + std::string(op_name(in.op)) + " with mixed element types");
  Geo gs = geo(src), gd = geo(dst);
  if (!gs.rowvec || !gd.rowvec) return fail(in, "op " + std::string(op_name(in.op)) + " on a column-major tile");
  bool fl = dtype_is_float(d), sum = in.op == Op::TColSum, prod = in.op == Op::TColProd;
  bool mx = in.op == Op::TColMax;
  unsigned es = dtype_bytes(d);
  mov(r8, q(src, 1));
  mov(r9, q(src, 2));
  clamp(r8, ty(src).rows);
  clamp(r9, std::min(ty(src).cols, ty(dst).cols));
  Label done, vec, tail;
  test(r8, r8);
  jle(done, T_NEAR);
  test(r9, r9);
  jle(done, T_NEAR);
  mov(r13, r9);
  and_(r13, -lanes());
  mov(rcx, r9);
  and_(ecx, lanes() - 1);
  tail_mask_rcx();
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

// tcmp / tcmps: the mask tile's whole storage is zeroed, then for each row
// of a's valid region one bit per column, LSB first, in the row's bytes:
// for any mask element width B, bit c of mask[r, c / B] is bit c % 8 of
// byte c / 8 of the row (little-endian). Columns past mask.vcol * B are not
// written, as the interpreter caps the words.
void Gen::tcmp(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 2) return fail(in);
  ValueId a = op(in, 0), rhs = op(in, 1), m = op(in, in.n_ins);
  if (!tile_type_ok(in, a, false) || !tile_type_ok(in, m, true)) return;
  DType d = ty(a).elem, md = ty(m).elem;
  if (dtype_is_float(md)) return fail(in);
  bool rhs_tile = ty(rhs).kind == TypeKind::TileBuf;
  if (rhs_tile && (!tile_type_ok(in, rhs, false) || ty(rhs).elem != d))
    return fail(in, "op " + std::string(op_name(in.op)) + " with mixed element types");
  if (!rhs_tile && (ty(rhs).kind != TypeKind::Scalar || ty(rhs).elem != d)) return fail(in);
  if (geo(a).dn || geo(m).dn || (rhs_tile && geo(rhs).dn))
    return fail(in, "op " + std::string(op_name(in.op)) + " on a column-major tile");
  std::string_view w = m_.attr_word(in, "cmpMode");
  int mode;  // 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge
  if (w.empty() || w == "eq" || w == "EQ") mode = 0;
  else if (w == "ne" || w == "NE") mode = 1;
  else if (w == "lt" || w == "LT") mode = 2;
  else if (w == "le" || w == "LE") mode = 3;
  else if (w == "gt" || w == "GT") mode = 4;
  else if (w == "ge" || w == "GE") mode = 5;
  else return fail(in, "op " + std::string(op_name(in.op)) + " with cmpMode " + std::string(w));
  unsigned es = dtype_bytes(d);
  bool fl = dtype_is_float(d);
  unsigned mbits = 8 * dtype_bytes(md);
  // Zero the whole mask tile.
  tile_ptr(rdi, m);
  mov(ecx, uint32_t(tile_storage_bytes(ty(m))));
  xor_(eax, eax);
  rep();
  stosb();
  // r8 x r9: a's valid region, columns capped at mask.vcol * B.
  mov(r8, q(a, 1));
  mov(r9, q(a, 2));
  int32_t cap_r = std::min(ty(a).rows, ty(m).rows);
  if (rhs_tile) cap_r = std::min(cap_r, ty(rhs).rows);
  clamp(r8, cap_r);
  clamp(r9, rhs_tile ? std::min(ty(a).cols, ty(rhs).cols) : ty(a).cols);
  mov(rcx, q(m, 2));
  shl(rcx, __builtin_ctz(mbits));
  cmp(r9, rcx);
  cmovg(r9, rcx);
  tile_ptr(rsi, a);
  tile_ptr(rdi, m);  // rep stos moved it
  std::vector<Reg64> ptrs{rsi, rdi};
  std::vector<Stride> strides{{nullptr, geo(a).rs}, {nullptr, geo(m).rs}};
  if (rhs_tile) {
    tile_ptr(rdx, rhs);
    ptrs.push_back(rdx);
    strides.push_back({nullptr, geo(rhs).rs});
  } else {
    bcast_e(d, V(2), rbp + disp(sl(rhs)));
  }
  Xmm x0 = V(0), x1 = V(1), t = V(4);
  auto icmp = [&](const Xmm& r, const Xmm& p, const Xmm& q2, bool gt) {  // r = p > q2 / p == q2 (vector mask)
    if (z()) {
      gt ? vpcmpgtd(k7, p, q2) : vpcmpeqd(k7, p, q2);
      vpmovm2d(r, k7);
    } else {
      gt ? vpcmpgtd(r, p, q2) : vpcmpeqd(r, p, q2);
    }
  };
  auto vnot = [&](const Xmm& r) {
    if (z()) {
      vpternlogd(r, r, r, 0x55);
    } else {
      vpcmpeqd(ymm13, ymm13, ymm13);
      vpxor(r, r, ymm13);
    }
  };
  row_loop(ptrs, strides, [&](bool masked) {
    LD(x0, rsi);
    if (rhs_tile) LD(x1, rdx);
    else vmovaps(x1, V(2));
    if (fl) {
      static const uint8_t pred[] = {0x00, 0x04, 0x01, 0x02, 0x1E, 0x1D};  // EQ_OQ NEQ_UQ LT LE GT_OQ GE_OQ
      cmp_ps(t, x0, x1, pred[mode]);
    } else {
      if (d == DType::U32) {  // unsigned order through the sign flip
        vpbroadcastd(V(5), dword[r14 + kSignF32]);
        vlogic(Bin::Xor, x0, x0, V(5));
        vlogic(Bin::Xor, x1, x1, V(5));
      }
      switch (mode) {
        case 0: icmp(t, x0, x1, false); break;
        case 1: icmp(t, x0, x1, false); vnot(t); break;
        case 2: icmp(t, x1, x0, true); break;
        case 3: icmp(t, x0, x1, true); vnot(t); break;
        case 4: icmp(t, x0, x1, true); break;
        default: icmp(t, x1, x0, true); vnot(t); break;
      }
    }
    // The lanes' bits into r10d, only the valid ones.
    if (z()) {
      vpmovd2m(k7, t);
      kmovw(r10d, k7);
    } else {
      vmovmskps(r10d, Ymm(t.getIdx()));
    }
    mov(r11, rax);
    shr(r11, 3);
    if (masked) {
      mov(rcx, r9);
      sub(rcx, rax);
      bzhi(r10d, r10d, ecx);
      if (z()) {  // the second byte only when more than 8 columns remain
        Label one;
        mov(byte[rdi + r11], r10b);
        cmp(ecx, 8);
        jbe(one, T_NEAR);
        shr(r10d, 8);
        mov(byte[rdi + r11 + 1], r10b);
        L(one);
        return;
      }
    }
    if (z()) mov(word[rdi + r11], r10w);
    else mov(byte[rdi + r11], r10b);
  });
}

// tsel / tsels: d[r, c] = bit(mask, r, c) ? a[r, c] : b[r, c] (or the
// scalar), bits copied: 2-byte elements travel as zero-extended 16-bit
// lanes, so NaN payloads survive.
void Gen::tsel(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 3) return fail(in);
  bool scalar = in.op == Op::TSelS;
  ValueId mk = op(in, 0), a = op(in, 1), dst = op(in, in.n_ins);
  ValueId b = scalar ? op(in, in.n_ins - 1) : op(in, 2);
  if (!tile_type_ok(in, dst, true) || !tile_type_ok(in, a, true) || !tile_type_ok(in, mk, true)) return;
  DType dd = ty(dst).elem;
  unsigned es = dtype_bytes(dd);
  if (es == 1 || dtype_is_float(ty(mk).elem)) return fail(in);
  if (ty(a).elem != dd) return fail(in, "op " + std::string(op_name(in.op)) + " with mixed element types");
  if (scalar) {
    if (ty(b).kind != TypeKind::Scalar || ty(b).elem != dd) return fail(in);
  } else if (!tile_type_ok(in, b, true) || ty(b).elem != dd) {
    return fail(in, "op " + std::string(op_name(in.op)) + " with mixed element types");
  }
  if (geo(dst).dn || geo(a).dn || geo(mk).dn || (!scalar && geo(b).dn))
    return fail(in, "op " + std::string(op_name(in.op)) + " on a column-major tile");
  DType d = es == 2 ? DType::U16 : DType::U32;  // the bits
  std::vector<ValueId> tiles{a};
  if (!scalar) tiles.push_back(b);
  std::vector<Reg64> ptrs;
  std::vector<Stride> strides;
  if (!elem_loop(in, dst, tiles, ptrs, strides)) return;
  tile_ptr(r12, mk);
  ptrs.push_back(r12);
  strides.push_back({nullptr, geo(mk).rs});
  // The mask covers ceil(vcol / B) words per row at least (the interpreter
  // checks it): cap the rows at the mask's.
  clamp(r8, ty(mk).rows);
  if (scalar) bcast_e(d, V(2), rbp + disp(sl(b)));
  Xmm x0 = V(0), x1 = V(1), mv = V(7);
  row_loop(ptrs, strides, [&](bool masked) {
    LD(x0, rsi);
    if (scalar) vmovaps(x1, V(2));
    else LD(x1, rdx);
    mov(r11, rax);
    shr(r11, 3);
    if (z()) {
      movzx(ecx, word[r12 + r11]);  // the second byte may be past the row: inside the arena
      kmovw(k7, ecx);
      vpmovm2d(mv, k7);
    } else {
      movzx(ecx, byte[r12 + r11]);
      vmovd(xmm7, ecx);
      vpbroadcastd(ymm7, xmm7);
      vpand(ymm7, ymm7, ptr[r14 + kBitSel]);
      vpcmpeqd(ymm7, ymm7, ptr[r14 + kBitSel]);
    }
    blend_ps(x0, x1, x0, mv);
    ST(rdi, x0);
  });
}

// The bits of an element type as 32-bit lanes (copies never convert).
static DType bits_type(DType d) {
  unsigned es = dtype_bytes(d);
  return es == 4 ? DType::U32 : es == 2 ? DType::U16 : DType::U8;
}

// tfillpad / _inplace / _expand: the whole physical dst = src inside src's
// valid region (capped at dst's shape), dst's pad value elsewhere. The
// valid part is copied first (nothing to do in place), then the rest of
// each row and the rows below are filled with rep stos.
void Gen::tfillpad(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 1) return fail(in);
  ValueId src = op(in, 0), dst = op(in, in.n_ins);
  if (!tile_type_ok(in, src, true) || !tile_type_ok(in, dst, true)) return;
  DType d = bits_type(ty(dst).elem);
  if (ty(src).elem != ty(dst).elem) return fail(in, "op " + std::string(op_name(in.op)) + " that converts");
  if (geo(src).dn || geo(dst).dn) return fail(in, "op " + std::string(op_name(in.op)) + " on a column-major tile");
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
  mov(r8, q(src, 1));
  mov(r9, q(src, 2));
  clamp(r8, int32_t(R));
  clamp(r9, int32_t(C));
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
void Gen::twindow(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 3) return fail(in);
  bool ext = in.op == Op::TExtract;
  ValueId src = op(in, 0), dst = op(in, in.n_ins), ro = op(in, 1), co = op(in, 2);
  if (!tile_type_ok(in, src, true) || !tile_type_ok(in, dst, true)) return;
  if (ty(src).elem != ty(dst).elem) return fail(in, "op " + std::string(op_name(in.op)) + " that converts");
  std::string_view relu = m_.attr_word(in, "reluPreMode");
  if (!relu.empty() && relu != "no_relu") return fail(in, "op " + std::string(op_name(in.op)) + " with relu");
  DType d = bits_type(ty(dst).elem);
  unsigned es = dtype_bytes(d);
  ValueId win = ext ? src : dst;  // the tile the offsets index
  std::vector<Reg64> ptrs;
  std::vector<Stride> strides;
  if (!elem_loop(in, dst, {src}, ptrs, strides, ext ? dst : src)) return;
  // The loop may be rows- or columns-outer; r8 / r9 count outer / inner.
  bool colmajor = !(geo(dst).rowvec && geo(src).rowvec);
  Geo gw = geo(win);
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

// dst[r, c] = op(s0[r, c], s1[r, 0]) (or with s0 the column): the operand
// that is one column wide is broadcast per row. A full operand narrower than
// dst (the interpreter tiles it cyclically) is read as if it were as wide.
void Gen::row_expand(const Inst& in) {
  bool plain = in.op == Op::TRowExpand;
  unsigned nsrc = plain ? 1 : 2;
  if (in.n_outs != 1 || in.n_ins < nsrc) return fail(in);
  ValueId dst = op(in, in.n_ins);
  if (!tile_type_ok(in, dst, false)) return;
  DType d = ty(dst).elem;
  unsigned es = dtype_bytes(d);
  bool f32 = dtype_is_float(d);
  Bin bk = Bin::Add;
  if (!plain) bin_of(in.op, bk);
  if (!lane_type(d) || (!f32 && (bk == Bin::Div || bk == Bin::ExpDif))) return fail(in);
  ValueId s[2] = {op(in, 0), plain ? kNone : op(in, 1)};
  int colk = -1;  // which source is the column
  for (unsigned i = 0; i < nsrc; ++i) {
    if (!tile_type_ok(in, s[i], false)) return;
    if (ty(s[i]).elem != d) return fail(in, "op " + std::string(op_name(in.op)) + " with mixed element types");
  }
  if (plain) colk = 0;
  else if (ty(s[1]).cols == 1 || ty(s[1]).vcol == 1) colk = 1;
  else if (ty(s[0]).cols == 1 || ty(s[0]).vcol == 1) colk = 0;
  if (colk < 0) return fail(in, "op " + std::string(op_name(in.op)) + " without a one-column operand");
  Geo gd = geo(dst);
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
  row_loop(ptrs, strides, [&](bool masked) {
    if (plain) {
      bcast_e(d, V(0), rsi);
      if (f32) vaddps(V(0), V(0), V(3));  // quiets a signalling NaN, as the interpreter's copy
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
  if (in.n_outs != 1 || in.n_ins < nsrc) return fail(in);
  ValueId dst = op(in, in.n_ins);
  if (!tile_type_ok(in, dst, false)) return;
  DType d = ty(dst).elem;
  unsigned es = dtype_bytes(d);
  bool f32 = dtype_is_float(d);
  Bin bk = Bin::Add;
  if (!plain) bin_of(in.op, bk);
  if (!lane_type(d) || (!f32 && (bk == Bin::Div || bk == Bin::ExpDif))) return fail(in);
  ValueId s[2] = {op(in, 0), plain ? kNone : op(in, 1)};
  Geo gd = geo(dst);
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
  row_loop(ptrs, strides, [&](bool masked) {
    LD(V(0), rsi);
    if (!plain) {
      LD(V(1), rdx);
      bin(bk, d);
    } else if (f32) {
      vaddps(V(0), V(0), V(3));  // quiets a signalling NaN, as the interpreter's copy
    }
    ST(rdi, V(0));
  });
}

// ---- exp / log / rsqrt ---------------------------------------------------------------------
// Each half of V0 is widened to doubles (4 per ymm, 8 per zmm) and evaluated in double
// precision (relative error ~1e-16), then rounded to f32 once; the
// interpreter rounds the double std::exp / std::log / 1 / std::sqrt to f32
// the same way, so results differ only where the two double values straddle
// an f32 rounding boundary (at most 1 ULP; docs/x86_backend.md has the
// measured numbers). Special inputs are blended in afterwards.

// exp: n = round(x / ln2), r = x - n ln2 (|r| <= ln2 / 2), e^r by its
// Taylor polynomial to degree 12, times 2^n built in the exponent field.
// x is clamped to [-200, 200] first: e^200 rounds to +Inf and e^-200 to +0
// in f32, as the unclamped values do.
void Gen::exp_pd(const Xmm& x) {
  Xmm n = V(10), p = V(11);
  vminpd(x, x, dc(kDExpHi));
  vmaxpd(x, x, dc(kDExpLo));
  vmulpd(n, x, dc(kDLog2e));
  round_pd(n, n);                          // n, to nearest even, no exception
  vfnmadd231pd(x, n, dc(kDLn2Hi));         // r = x - n ln2_hi
  vfnmadd231pd(x, n, dc(kDLn2Lo));         //     - n ln2_lo
  vmovupd(p, dc(kDExpC));
  for (int i = 1; i < 13; ++i) vfmadd213pd(p, x, dc(kDExpC + i));  // p = p r + c
  vcvtpd2dq(H(10), n);
  vpmovsxdq(n, H(10));
  vpaddq(n, n, dc(kI64Bias));
  vpsllq(n, n, 52);                        // 2^n
  vmulpd(x, p, n);
}

// log: x = m 2^e with m in [sqrt(1/2), sqrt(2)); s = (m - 1) / (m + 1),
// log m = 2 atanh s = 2 s (1 + s^2/3 + .. + s^16/17) (|s| <= 0.172, the
// next term is below 1e-15 relative); log x = e ln2 + log m. Valid for
// positive finite normal doubles (every positive finite f32); zero,
// negative, Inf and NaN lanes are replaced by the caller.
void Gen::log_pd(const Xmm& x) {
  Xmm e = V(10), t = V(11), u = V(12), p = V(13);
  vpsrlq(e, x, 52);                        // biased exponent (x > 0)
  vlogic(Bin::Or, e, e, dc(kDMagic));
  vsubpd(e, e, dc(kDMagicBias));           // e, exactly
  vandpd(x, x, dc(kDMantMask));
  vorpd(x, x, dc(kDExpOne));               // m in [1, 2)
  cmp_pd(t, x, dc(kDSqrt2), 0x1E);         // m > sqrt 2 (GT_OQ)
  vmulpd(u, x, dc(kDHalf));
  blend_pd(x, x, u, t);
  vandpd(t, t, dc(kDOne));
  vaddpd(e, e, t);
  vsubpd(t, x, dc(kDOne));                 // f = m - 1 (exact)
  vaddpd(u, x, dc(kDOne));                 // m + 1
  vdivpd(t, t, u);                         // s
  vmulpd(u, t, t);                         // z = s^2
  vmovupd(p, dc(kDLogC));
  for (int i = 1; i < 9; ++i) vfmadd213pd(p, u, dc(kDLogC + i));
  vaddpd(t, t, t);
  vmulpd(t, t, p);                         // 2 s p
  vfmadd231pd(t, e, dc(kDLn2Lo));          // + e ln2_lo
  vfmadd231pd(t, e, dc(kDLn2Hi));          // + e ln2_hi (exact product)
  vmovapd(x, t);
}

void Gen::math(Op o) {
  auto half = [&](const Xmm& y) {
    if (o == Op::TExp) {
      exp_pd(y);
    } else if (o == Op::TLog) {
      log_pd(y);
    } else {  // 1 / sqrt(x) in double, exactly the interpreter's operations
      vsqrtpd(y, y);
      vmovupd(V(10), dc(kDOne));
      vdivpd(y, V(10), y);
    }
  };
  Xmm x0 = V(0), x6 = V(6), x8 = V(8), x10 = V(10), x11 = V(11), x12 = V(12);
  vcvtps2pd(x8, H(0));
  half(x8);
  vcvtpd2ps(H(8), x8);
  extract_hi(H(9), x0);
  vcvtps2pd(V(9), H(9));
  half(V(9));
  vcvtpd2ps(H(9), V(9));
  insert_hi(x8, H(9));
  if (o == Op::TRsqrt) {
    vmovaps(x0, x8);
    return;
  }
  if (o == Op::TLog) {
    // x == +-0: -Inf; x < 0: the default NaN (what std::log gives); +Inf:
    // +Inf.
    cmp_ps(x10, x0, x6, 0);                // EQ_OQ
    vbroadcastss(x11, dword[r14 + kNegInfF32]);
    blend_ps(x8, x8, x11, x10);
    cmp_ps(x10, x0, x6, 1);                // LT_OS
    vbroadcastss(x12, dword[r14 + kNegInfF32]);
    vmulps(x12, x12, x6);                  // -Inf * 0 = the default NaN
    blend_ps(x8, x8, x12, x10);
    vbroadcastss(x11, dword[r14 + kPosInfF32]);
    cmp_ps(x10, x0, x11, 0);
    blend_ps(x8, x8, x11, x10);
  }
  // NaN in: the same NaN, quieted.
  cmp_ps(x10, x0, x0, 3);                  // UNORD_Q
  vaddps(x11, x0, x0);
  blend_ps(x0, x8, x11, x10);
}

// ---- tcvt --------------------------------------------------------------------------------

// f32 <-> bf16 element by element over the source's valid region (any
// layouts). f32 -> bf16 rounds to nearest even (a NaN keeps its top bits and
// is quieted); bf16 -> f32 is exact, a NaN quieted (the interpreter widens
// through double).
void Gen::tcvt(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 1) return fail(in);
  ValueId src = op(in, 0), dst = op(in, in.n_ins);
  if (!tile_type_ok(in, src, true) || !tile_type_ok(in, dst, true)) return;
  DType sd = ty(src).elem, dd = ty(dst).elem;
  auto refuse = [&](const std::string& why) {
    fail(in, "pto.tcvt from " + std::string(dtype_name(sd)) + " to " + std::string(dtype_name(dd)) + why);
  };
  std::string_view sat_w = m_.attr_word(in, "sat_mode");
  if (sat_w.empty()) sat_w = m_.attr_word(in, "satMode");
  bool sat = !sat_w.empty() && sat_w != "OFF" && sat_w != "off";
  std::string_view rm = m_.attr_word(in, "rmode");
  // vroundps immediates (exceptions suppressed); -1: ties away from zero.
  int mode;
  if (rm.empty() || rm == "RINT" || rm == "CAST_RINT") mode = 8;
  else if (rm == "FLOOR" || rm == "CAST_FLOOR") mode = 9;
  else if (rm == "CEIL" || rm == "CAST_CEIL") mode = 10;
  else if (rm == "TRUNC" || rm == "CAST_TRUNC" || rm == "NONE" || rm == "CAST_NONE") mode = 11;
  else if (rm == "ROUND" || rm == "CAST_ROUND") mode = -1;
  else return refuse(" with rmode " + std::string(rm));
  bool sf = dtype_is_float(sd), df = dtype_is_float(dd);
  if (sat && !(sf && !df && dtype_bytes(dd) < 4) && !(sf && dd == DType::I32)) return refuse(" with sat_mode on");
  if (!sf && dd == DType::BF16 && dtype_bytes(sd) == 4)
    return refuse(" (i32 / u32 -> bf16 would round twice)");
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
        int64_t lo = dd == DType::I8 ? -128 : dd == DType::I16 ? -32768 : dd == DType::I32 ? -2147483648LL : 0;
        int64_t hi = dd == DType::I8 ? 127 : dd == DType::U8 ? 255 : dd == DType::I16 ? 32767 : 65535;
        float flo = float(lo), fhi = float(hi);
        uint32_t blo, bhi;
        std::memcpy(&blo, &flo, 4);
        std::memcpy(&bhi, &fhi, 4);
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
    // even (bf16 lanes still hold a signalling NaN as it was: + -0.0
    // quiets it as the interpreter's widening does); integer -> integer:
    // vst_e truncates (wraps).
    if (sd == DType::BF16 && df) {
      bimm(t, 0x80000000u);
      vaddps(x, x, t);
    }
    vst_e(dd, rdi + rax * int(des), x, masked);
  });
}

// f32 <-> bf16 element by element (tiles of different layouts).
void Gen::tcvt_elems(const Inst& in) {
  ValueId src = op(in, 0), dst = op(in, in.n_ins);
  DType sd = ty(src).elem, dd = ty(dst).elem;
  bool narrow = sd == DType::F32 && dd == DType::BF16;
  Geo gs = geo(src), gd = geo(dst);
  mov(r8, q(src, 1));
  mov(r9, q(src, 2));
  clamp(r8, std::min(ty(src).rows, ty(dst).rows));
  clamp(r9, std::min(ty(src).cols, ty(dst).cols));
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

#undef LD
#undef ST
#undef LOOP_CONSTANTS


}  // namespace ptoas::cg::x86::gen
