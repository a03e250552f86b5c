// x86-64 code generation: the lane layer of the tile ops (x86/gen.h): which
// tiles the vector loops take, loads and stores of every element type as
// 32-bit lanes (widening, rounding or truncating narrow types), broadcasts,
// and the loops over a tile's valid region (rows-outer for ND tiles,
// columns-outer for DN ones; the tail lanes masked either way).
#include <algorithm>

#include "gen.h"

namespace ptoas::cg::x86::gen {

bool Gen::tile_type_ok(const Inst& in, ValueId v, bool movement) {
  (void)movement;
  Refusal why;
  if (lane_tile(m_, in, v, why)) return true;
  fail(in, why);
  return false;
}

void Gen::vld_e(DType d, const Xmm& v, const RegExp& e, bool masked, bool few_loads) {
  if (dtype_bytes(d) == 4) return vld(v, ptr[e], masked);
  Xmm t = masked && z() ? v | k1 | T_z : v;
  switch (d) {
    case DType::F16: vcvtph2ps(t, ptr[e]); break;
    case DType::BF16:
      // avx2: the 8 values in both halves, each to the top of its lane by
      // one shuffle. vpmovzxwd + vpslld is two ops for the two vector
      // shuffle / shift pipes of Zen cores, which bf16 kernels keep
      // busiest (rmsnorm widens its input twice and packs its output).
      if (!z() && v.isYMM() && !few_loads) {
        vbroadcasti128(Ymm(v.getIdx()), ptr[e]);
        vpshufb(v, v, fc(kFWidenBf16));
        break;
      }
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

void Gen::varith(Bin k, const Xmm& d, const Xmm& a, const Operand& b) {
  if (k == Bin::Add) vaddps(d, a, b);
  else if (k == Bin::Sub) vsubps(d, a, b);
  else if (k == Bin::Mul) vmulps(d, a, b);
  else vdivps(d, a, b);
}

void Gen::vst_e(DType d, const RegExp& e, const Xmm& v, bool masked, const Reg64* count, bool exact, bool nt) {
  unsigned es = dtype_bytes(d);
  nt &= !masked;
  if (es == 4) return nt ? vmovntps(ptr[e], v) : vst(ptr[e], v, masked);
  Xmm s = v;  // the lanes to narrow
  if (d == DType::BF16) {
    Xmm b = exact ? v : bf16_bits(v);
    if (z()) {  // avx512 narrows the high halves shifted down; avx2 picks them below
      vpsrld(V(14), b, 16);
      s = V(14);
    }
  }
  if (z() && nt && es == 2) {  // packed in ymm14, then one streaming store
    if (d == DType::F16) vcvtps2ph(ymm14, s, 0);
    else vpmovdw(ymm14, s);
    vmovntdq(ptr[e], ymm14);
    return;
  }
  if (z()) {
    Address a = masked && !break_tails_ ? ptr[e] | k1 : ptr[e];
    if (d == DType::F16) vcvtps2ph(a, s, 0);  // round to nearest even
    else if (es == 2) vpmovdw(a, s);          // truncating
    else vpmovdb(a, s);
    return;
  }
  // avx2: pack the 8 lanes into the low bytes of xmm14.
  Ymm y(s.getIdx());
  if (d == DType::F16) {
    vcvtps2ph(xmm14, y, 0);
  } else if (es == 2) {  // each lane's low (bf16: high) 16 bits, then the two halves' 8 bytes together
    vpshufb(ymm14, y, fc(d == DType::BF16 ? kFPickHigh16 : kFPickLow16));
    vpermq(ymm14, ymm14, 0x08);
  } else {  // bytes: masked to their low 8 bits for the unsigned saturating packs
    vpand(ymm14, y, fc(kFLow8));
    vextracti128(xmm13, ymm14, 1);
    vpackusdw(xmm14, xmm14, xmm13);
    vpackuswb(xmm14, xmm14, xmm14);
  }
  if (!masked || break_tails_) {
    if (es == 2 && nt) vmovntdq(ptr[e], xmm14);
    else if (es == 2) vmovdqu(ptr[e], xmm14);
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
Xmm Gen::bf16_bits(const Xmm& v) {
  Xmm r = V(13), t = V(14), m = V(12);
  if (z()) {  // the NaN lanes merged in under an opmask: no mask vector, no blend
    vcmpps(k7, v, v, 3);  // unordered
    vpslld(r, v, 15);
    vpsrld(r, r, 31);
    vpaddd(r, r, fk(kFBf16Bias));
    vpaddd(r, r, v);
    FConstOperand q = fk(kFBf16Quiet);  // from a register: a merge-masked load can be 60x slower on Zen 4 (tests/x86/forms)
    if (!q.held) vmovups(t, q.mem);
    vpord(r | k7, v, q.held ? q.reg : t);
    return r;
  }
  vpslld(r, v, 15);
  vpsrld(r, r, 31);
  vpaddd(r, r, fc(kFBf16Bias));
  vpaddd(r, r, v);
  vlogic(Bin::Or, t, v, fc(kFBf16Quiet));
  cmp_ps(m, v, v, 3);  // unordered
  blend_ps(v, r, t, m);
  return v;
}

void Gen::round_lane(DType d, const Xmm& v, bool exact) {
  if (d == DType::F16) {
    vcvtps2ph(H(13), v, 0);
    vcvtph2ps(v, H(13));
  } else if (d == DType::BF16) {
    Xmm b = bf16_bits(v);
    if (exact) vlogic(Bin::And, v, b, fk(kFHigh16));
    else if (b.getIdx() != v.getIdx()) vmovaps(v, b);
  }
}

// acc = isnan(acc) ? acc : (isnan(x) || x > acc [x < acc]) ? x : acc
void Gen::minmax_step(bool mx, const Xmm& acc, const Xmm& x, int ti, int mi, int oi) {
  Xmm t = V(ti), m = V(mi), o = V(oi);
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

// Jumps to `done` when r8 or r9 is 0 or less; else r13 = r9 rounded down
// to whole vectors and the tail mask = the r9 % lanes() lanes.
void Gen::vec_bounds(Label& done) {
  test(r8, r8);
  jle(done, T_NEAR);
  test(r9, r9);
  jle(done, T_NEAR);
  mov(r13, r9);
  and_(r13, -lanes());
  mov(rcx, r9);
  and_(ecx, lanes() - 1);
  tail_mask_rcx();
}

void Gen::vec_loop(const std::function<void(bool)>& body, const std::function<void(int disp)>& body4) {
  Label vec, tail, next;
  xor_(eax, eax);
  if (body4) {
    // rax runs four vectors ahead, so that the test needs no register
    // beside it: the step's vectors are at rax - 4 lanes.
    Label step, rest;
    L(step);
    add(rax, 4 * lanes());
    cmp(rax, r13);
    jg(rest, T_NEAR);
    sched_range([&] { body4(-4 * lanes()); });
    jmp(step, T_NEAR);
    L(rest);
    sub(rax, 4 * lanes());
  }
  cmp(rax, r13);
  jge(tail, T_NEAR);
  L(vec);
  sched_range([&] { body(false); });
  add(rax, lanes());
  cmp(rax, r13);
  jl(vec, T_NEAR);
  L(tail);
  cmp(rax, r9);
  jge(next, T_NEAR);
  body(true);
  L(next);
}

void Gen::row_loop(const std::vector<Reg64>& ptrs, const std::vector<Stride>& strides,
                   const std::function<void(bool)>& body, const std::function<void(int disp)>& body4) {
  Label done, row;
  vec_bounds(done);
  L(row);
  vec_loop(body, body4);
  for (size_t i = 0; i < ptrs.size(); ++i) {
    if (strides[i].reg) add(ptrs[i], *strides[i].reg);
    else add(ptrs[i], int(strides[i].imm));
  }
  dec(r8);
  jnz(row, T_NEAR);
  L(done);
}

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
  bool colmajor;
  int32_t cap_r, cap_c;
  if (!loop_order(m_, dst, tiles.data(), unsigned(tiles.size()), colmajor, cap_r, cap_c)) {
    fail(in, {RefusalCode::Layout, "op " + std::string(op_name(in.op)) + " on tiles of mixed layouts"});
    return false;
  }
  mov(r8, q(region, colmajor ? 2 : 1));
  mov(r9, q(region, colmajor ? 1 : 2));
  clamp(r8, colmajor ? cap_c : cap_r);
  clamp(r9, colmajor ? cap_r : cap_c);
  static const Reg64 regs[] = {rdi, rsi, rdx, r10, r11};
  for (size_t i = 0; i < all.size(); ++i) {
    tile_ptr(regs[i], all[i]);
    ptrs.push_back(regs[i]);
    TileGeo g = geo(all[i]);
    strides.push_back({nullptr, colmajor ? g.cs : g.rs});
  }
  return true;
}

}  // namespace ptoas::cg::x86::gen
