// tmatmul with tensor cores (matmul.cpp says when): mma.sync m16n8k16
// (f16, bf16 -> f32) and m16n8k32 (s8 -> s32). Fragment layouts are the
// PTX ISA's (notes/GPU_NOTES.md §3): groupID g = lane >> 2, t = lane & 3;
//   f16 A regs: {A[g][2t], A[g][2t+1]}, rows g+8, then columns + 8;
//   f16 B regs: {B[2t][g], B[2t+1][g]}, then rows + 8;
//   s8  A regs: A[g][4t..4t+3], rows g+8, then columns + 16; B likewise;
//   C: {C[g][2t], C[g][2t+1], C[g+8][2t], C[g+8][2t+1]}.
// A warp owns one 16-row strip and up to 4 8-column tiles of C at a time.
#include "gen.h"
#include "ops.h"
#include "tile_geometry.h"
#include "tile_layout.h"

namespace ptoas::cg::ptx {

// 8 (16 for bytes) elements along rows (along_cols false) or columns
// starting at a multiple of 8 (16) are 16 contiguous, 16-byte aligned
// bytes of tile t at static offset `off`.
bool run16(const Type& t, int64_t off, bool along_cols) {
  unsigned es = std::max(1u, dtype_bytes(t.elem));
  int64_t n = 16 / es;
  AxisMap run, other;
  if (!axis_map(t, !along_cols, run) || !axis_map(t, along_cols, other) || off < 0 || off % 16) return false;
  if (run.unit != 1) return false;
  if (run.shift < 63 && run.mask + 1 < n) return false;  // a run would cross an inner box
  if (((run.box << run.les) % 16) || ((other.box << other.les) % 16) || ((other.unit << other.les) % 16)) return false;
  return true;
}

bool Gen::mma_ok(const MatmulPlan& p) {
  const Type &a = ty(p.a), &b = ty(p.b), &c = ty(p.c);
  AxisMap x;
  for (const Type* t : {&a, &b, &c})
    if (!axis_map(*t, true, x) || !axis_map(*t, false, x)) return false;
  return p.cap_m > 0 && p.cap_n > 0 && p.cap_k > 0;
}

void Gen::matmul_mma(const Inst&, const MatmulPlan& p) {
  bool i8 = p.i32;
  unsigned KS = i8 ? 32 : 16;       // k per mma
  unsigned per = i8 ? 4 : 2;        // elements per .b32
  const Type &at = ty(p.a), &bt = ty(p.b);
  Val &a = val(p.a), &b = val(p.b);
  auto [m, k, n] = matmul_extent(p);
  unsigned MT = unsigned(p.cap_m + 15) / 16, NT = unsigned(p.cap_n + 7) / 8;
  unsigned NB = std::min(4u, NT), NG = (NT + NB - 1) / NB;
  // The fast paths (ldmatrix) need whole 16 x KS steps inside the tiles.
  bool fa_rows = at.rows % 16 == 0 && at.cols % int32_t(KS) == 0;
  bool fb = bt.cols % 8 == 0 && bt.rows % int32_t(KS) == 0;
  bool a_run_k = fa_rows && run16(at, a.off, true);            // A rows contiguous along k
  bool a_run_m = fa_rows && !i8 && run16(at, a.off, false);    // A columns contiguous along m (.trans)
  bool b_run_k = fb && run16(bt, b.off, false);                // B columns contiguous along k
  bool b_run_n = fb && !i8 && run16(bt, b.off, true);          // B rows contiguous along n (.trans)
  bool fast = (a_run_k || a_run_m) && (b_run_k || b_run_n);
  Reg g = reg(RC::R), t = reg(RC::R);
  I("shr.u32", g, lane_, 2);
  I("and.b32", t, lane_, 3);
  std::string ab = i8 ? ".s32.s8.s8.s32" : p.ae == DType::BF16 ? ".f32.bf16.bf16.f32" : ".f32.f16.f16.f32";
  std::string mma = std::string("mma.sync.aligned.") + (i8 ? "m16n8k32" : "m16n8k16") + ".row.col" + ab;
  // Work items: (strip, column group) pairs, round robin over the warps.
  Reg item = reg(RC::R), pi = reg(RC::P);
  std::string top = new_label(), end = new_label();
  I("mov.b32", item, warp_);
  bind(top);
  I("setp.ge.u32", pi, item, MT * NG);
  bra_if(pi, false, end);
  Reg mt = reg(RC::R), ng = reg(RC::R), row0 = reg(RC::R), col0 = reg(RC::R);
  I("div.u32", mt, item, NG);
  I("rem.u32", ng, item, NG);
  I("mul.lo.s32", row0, mt, 16);
  I("mul.lo.s32", col0, ng, 8 * NB);
  std::string next = new_label();
  {  // a strip or group wholly outside C's valid region: nothing to do
    Reg out = reg(RC::P);
    I("setp.ge.s32", out, row0, m);
    I("setp.ge.or.s32", out, col0, n, out);
    bra_if(out, false, next);
  }
  std::vector<std::vector<Reg>> acc(NB);
  for (auto& c : acc)
    for (unsigned i = 0; i < 4; ++i) {
      c.push_back(reg(i8 ? RC::R : RC::F));
      I(i8 ? "mov.b32" : "mov.f32", c.back(), i8 ? "0" : fimm(0.0f));
    }
  // Element fragments: .b32 regs of `per` elements each, zero outside
  // [0, kmax) along k and outside the tiles' physical extent.
  auto frag_elems = [&](ValueId tile, const Type& tt, Reg r0, Reg c0, bool is_a, Reg k0, Reg kmax) {
    std::vector<Reg> regs;
    unsigned nreg = is_a ? 4 : 2;
    for (unsigned ri = 0; ri < nreg; ++ri) {
      Reg w = reg(RC::R);
      I("mov.b32", w, 0);
      for (unsigned e = 0; e < per; ++e) {
        // (row, col) of the element in the tile.
        Reg rr = reg(RC::R), cc = reg(RC::R);
        if (is_a) {
          unsigned roff = (ri & 1) ? 8 : 0, coff = (ri & 2) ? (i8 ? 16 : 8) : 0;
          I("add.s32", rr, r0, g);
          I("add.s32", rr, rr, roff);
          I("mad.lo.s32", cc, t, per, k0);
          I("add.s32", cc, cc, coff + e);
        } else {
          unsigned koff = ri ? (i8 ? 16 : 8) : 0;
          I("mad.lo.s32", rr, t, per, k0);
          I("add.s32", rr, rr, koff + e);
          I("add.s32", cc, c0, g);
        }
        Reg kk = is_a ? cc : rr;
        Reg ok = reg(RC::P);
        I("setp.lt.s32", ok, kk, kmax);
        I("setp.lt.and.s32", ok, rr, tt.rows, ok);
        I("setp.lt.and.s32", ok, cc, tt.cols, ok);
        Reg x = reg(i8 ? RC::R : RC::H);
        I(i8 ? "mov.b32" : "mov.b16", x, 0);
        IP(ok, false, i8 ? "ld.shared.u8" : "ld.shared.b16", x, mem(elem_addr(tile, rr, cc)));
        if (i8) {
          I("bfi.b32", w, x, w, 8 * e, 8);
        } else {
          Reg x32 = reg(RC::R);
          I("cvt.u32.u16", x32, x);
          I("bfi.b32", w, x32, w, 16 * e, 16);
        }
      }
      regs.push_back(w);
    }
    return regs;
  };
  auto ldm = [&](unsigned count, bool trans, Reg addr) {
    std::vector<Reg> r;
    for (unsigned i = 0; i < count; ++i) r.push_back(reg(RC::R));
    I(std::string("ldmatrix.sync.aligned.m8n8.x") + std::to_string(count) + (trans ? ".trans" : "") + ".shared.b16", vec(r),
      mem(addr));
    return r;
  };
  auto step = [&](Reg k0, bool full) {
    std::vector<Reg> fa;
    if (full && fast) {
      Reg mi = reg(RC::R), rr = reg(RC::R), r = reg(RC::R), c = reg(RC::R);
      I("shr.u32", mi, lane_, 3);
      I("and.b32", rr, lane_, 7);
      Reg lo = reg(RC::R), hi = reg(RC::R);
      I("and.b32", lo, mi, 1);
      I("shr.u32", hi, mi, 1);
      if (a_run_k) {  // lane: row (mi & 1) * 8 + rr, column (mi >> 1) * (16 bytes)
        I("mad.lo.s32", r, lo, 8, row0);
        I("add.s32", r, r, rr);
        I("mad.lo.s32", c, hi, 16 / dtype_bytes(p.ae), k0);
        fa = ldm(4, false, elem_addr(p.a, r, c));
      } else {  // columns of A contiguous: the transposed 8x8 blocks
        I("mad.lo.s32", r, lo, 8, row0);
        I("mad.lo.s32", c, hi, 8, k0);
        I("add.s32", c, c, rr);
        fa = ldm(4, true, elem_addr(p.a, r, c));
      }
    } else {
      fa = frag_elems(p.a, at, row0, Reg{}, true, k0, k);
    }
    for (unsigned j = 0; j < NB; ++j) {
      Reg c0 = reg(RC::R);
      I("add.s32", c0, col0, 8 * j);
      std::string skip_j = new_label();
      if (j) {  // a tile past n (the last group may be partial)
        Reg pj = reg(RC::P);
        I("setp.ge.s32", pj, c0, n);
        bra_if(pj, false, skip_j);
      }
      std::vector<Reg> fbr;
      if (full && fast) {
        Reg l = reg(RC::R), mi = reg(RC::R), rr = reg(RC::R), r = reg(RC::R), c = reg(RC::R);
        I("and.b32", l, lane_, 15);
        I("shr.u32", mi, l, 3);
        I("and.b32", rr, l, 7);
        if (b_run_k) {  // lane: column rr, rows mi * (16 bytes)
          I("mad.lo.s32", r, mi, 16 / dtype_bytes(p.ae), k0);
          I("add.s32", c, c0, rr);
          fbr = ldm(2, false, elem_addr(p.b, r, c));
        } else {
          I("mad.lo.s32", r, mi, 8, k0);
          I("add.s32", r, r, rr);
          I("mov.b32", c, c0);
          fbr = ldm(2, true, elem_addr(p.b, r, c));
        }
      } else {
        fbr = frag_elems(p.b, bt, Reg{}, c0, false, k0, k);
      }
      I(mma, vec(acc[j]), vec(fa), vec(fbr), vec(acc[j]));
      if (j) bind(skip_j);
    }
  };
  // Full steps, then a ragged one (zero-filled past k).
  Reg k0 = reg(RC::R), kfull = reg(RC::R), pk = reg(RC::P);
  I("and.b32", kfull, k, ~(KS - 1));
  I("mov.b32", k0, 0);
  std::string ktop = new_label(), kend = new_label();
  bind(ktop);
  I("setp.ge.s32", pk, k0, kfull);
  bra_if(pk, false, kend);
  step(k0, true);
  I("add.s32", k0, k0, KS);
  bra(ktop);
  bind(kend);
  {
    std::string skip = new_label();
    Reg none = reg(RC::P);
    I("setp.ge.s32", none, kfull, k);
    bra_if(none, false, skip);
    step(kfull, false);
    bind(skip);
  }
  // C: (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1) of each tile.
  for (unsigned j = 0; j < NB; ++j)
    for (unsigned e = 0; e < 4; ++e) {
      Reg r = reg(RC::R), c = reg(RC::R);
      I("add.s32", r, row0, g);
      if (e >= 2) I("add.s32", r, r, 8);
      I("mad.lo.s32", c, t, 2, col0);
      I("add.s32", c, c, 8 * j + (e & 1));
      matmul_store(p, r, c, m, n, acc[j][e]);
    }
  bind(next);
  I("add.s32", item, item, kWarps);
  bra(top);
  bind(end);
}

// The valid m, k and n of a matmul, within the plan's caps.
std::array<Reg, 3> Gen::matmul_extent(const MatmulPlan& p) {
  Reg m = reg(RC::R), k = reg(RC::R), n = reg(RC::R);
  I("min.s32", m, val(p.a).r[1], p.cap_m);
  I("min.s32", k, val(p.a).r[2], p.cap_k);
  I("min.s32", n, val(p.b).r[2], p.cap_n);
  return {m, k, n};
}

// C[r][c] = acc (+ Cin[r][c]) (+ bias[c]) where r < m and c < n: the
// interpreter's order (the product, then Cin, then bias).
void Gen::matmul_store(const MatmulPlan& p, Reg r, Reg c, Reg m, Reg n, Reg v) {
  bool i8 = p.i32;
  DType cd = i8 ? DType::I32 : DType::F32;
  Reg ok = reg(RC::P);
  I("setp.lt.s32", ok, r, m);
  I("setp.lt.and.s32", ok, c, n, ok);
  auto add = [&](Reg x, Reg y) {
    if (!i8) return bin(Bin::Add, DType::F32, x, y);
    Reg s = reg(RC::R);
    I("add.s32", s, x, y);
    return s;
  };
  if (p.cin != kNone) v = add(ld_lane(cd, "shared", mem(elem_addr(p.cin, r, c)), ok, false, i8 ? imm32(0) : immf(0)), v);
  if (p.bias != kNone) v = add(v, ld_lane(cd, "shared", mem(elem_addr(p.bias, imm32(0), c)), ok, false, i8 ? imm32(0) : immf(0)));
  st_lane(cd, "shared", mem(elem_addr(p.c, r, c)), v, ok);
}

}  // namespace ptoas::cg::ptx
