// x86-64 code generation: tcmp / tcmps into the canonical bit mask and tsel
// / tsels from it (docs/semantics.md §5).
#include <algorithm>

#include "tile_layout.h"
#include "gen.h"

namespace ptoas::cg::x86::gen {

// tcmp / tcmps: the mask tile's whole storage is zeroed, then for each row
// of a's valid region one bit per column, LSB first, in the row's bytes:
// for any mask element width B, bit c of mask[r, c / B] is bit c % 8 of
// byte c / 8 of the row (little-endian). Columns past mask.vcol * B are not
// written, as the interpreter caps the words.
void Gen::tcmp(const Inst& in, const CmpPlan& pl) {
  const auto& a = pl.a;
  const auto& rhs = pl.rhs;
  const auto& m = pl.mask;
  const auto& rhs_tile = pl.rhs_tile;
  const auto& mode = pl.mode;  // 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge
  const auto& mbits = pl.mask_bits;
  DType d = ty(a).elem;
  unsigned es = dtype_bytes(d);
  bool fl = dtype_is_float(d);
  // Zero the whole mask tile.
  tile_ptr(rdi, m);
  mov(ecx, uint32_t(tile_storage_bytes(ty(m))));
  xor_(eax, eax);
  rep();
  stosb();
  // r8 x r9: a's valid region, columns capped at mask.vcol * B.
  valid_rc(a, pl.cap_r, pl.cap_c);
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
void Gen::tsel(const Inst& in, const SelPlan& pl) {
  const auto& scalar = pl.scalar;
  const auto& mk = pl.mask;
  const auto& a = pl.a;
  const auto& b = pl.b;
  const auto& dst = pl.dst;
  unsigned es = dtype_bytes(ty(dst).elem);
  DType d = pl.bits;
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

}  // namespace ptoas::cg::x86::gen
