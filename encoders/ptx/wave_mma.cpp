// f16 / bf16 tmatmul for the amdgpu backend (CodegenOptions::simt_wave_mma;
// docs/amdgpu_backend.md, "tmatmul"): each wave of the workgroup owns
// 16x16 blocks of C in turn and runs the wave-level matrix op
// `mma.sync.aligned.m16n16k16` (not PTX: the backend's v_mfma_f32_16x16x16
// on wave64, v_wmma_f32_16x16x16 on wave32) over k in steps of 16. The
// fragments are the instructions' own layouts, lane l of the wave:
//   wave64  A: row l%16, k 4(l/16)..+3 (2 regs); B: column l%16, same k;
//           C: row 4(l/16)+r, column l%16, r < 4
//   wave32  A: row l%16, k 0..15 (8 regs; lanes 16-31 repeat 0-15);
//           B: column l%16, k 0..15; C: row 2r + l/16, column l%16, r < 8
// Elements past k, or outside a tile's storage, are zeros. Every branch
// around the op depends only on the wave, so the whole wave runs it.
#include "gen.h"
#include "ops.h"
#include "tile_layout.h"

namespace ptoas::cg::ptx {

void Gen::matmul_wave(const Inst&, const MatmulPlan& p) {
  const unsigned W = o_.simt_wave_mma;
  const bool w64 = W == 64;
  const unsigned per_lane = w64 ? 4 : 16;  // A (and B) elements of a lane
  const unsigned nacc = w64 ? 4 : 8;       // C elements of a lane
  const Type &at = ty(p.a), &bt = ty(p.b);
  auto [m, k, n] = matmul_extent(p);
  const unsigned MT = unsigned(p.cap_m + 15) / 16, NT = unsigned(p.cap_n + 15) / 16;
  Reg wl = reg(RC::R), wave = reg(RC::R), l16 = reg(RC::R), lhi = reg(RC::R);
  I("and.b32", wl, tid_, W - 1);
  I("shr.u32", wave, tid_, w64 ? 6 : 5);
  I("and.b32", l16, wl, 15);
  I("shr.u32", lhi, wl, 4);
  std::string ab = p.ae == DType::BF16 ? "bf16" : "f16";
  std::string op = "mma.sync.aligned.m16n16k16.row.col.f32." + ab + "." + ab + ".f32";
  Reg item = reg(RC::R), pi = reg(RC::P);
  std::string top = new_label(), end = new_label(), next = new_label();
  I("mov.b32", item, wave);
  bind(top);
  I("setp.ge.u32", pi, item, MT * NT);
  bra_if(pi, false, end);
  Reg row0 = reg(RC::R), col0 = reg(RC::R);
  {
    Reg mt = reg(RC::R), nt = reg(RC::R), out = reg(RC::P);
    I("div.u32", mt, item, NT);
    I("rem.u32", nt, item, NT);
    I("mul.lo.s32", row0, mt, 16);
    I("mul.lo.s32", col0, nt, 16);
    I("setp.ge.s32", out, row0, m);
    I("setp.ge.or.s32", out, col0, n, out);
    bra_if(out, false, next);
  }
  std::vector<Reg> acc;
  for (unsigned i = 0; i < nacc; ++i) {
    acc.push_back(reg(RC::F));
    I("mov.f32", acc.back(), fimm(0.0f));
  }
  // One operand's fragment: `per_lane` halves packed two to a .b32, the
  // element of k index kk at (row0 + l16, kk) of A or (kk, col0 + l16) of B.
  auto fragment = [&](ValueId tile, const Type& tt, bool is_a, Reg k0) {
    std::vector<Reg> regs;
    Reg fixed = reg(RC::R);
    I("add.s32", fixed, is_a ? row0 : col0, l16);
    for (unsigned ri = 0; ri < per_lane / 2; ++ri) {
      Reg w = reg(RC::R);
      I("mov.b32", w, 0);
      for (unsigned e = 0; e < 2; ++e) {
        unsigned idx = 2 * ri + e;
        Reg kk = reg(RC::R);
        if (w64) I("mad.lo.s32", kk, lhi, 4, k0), I("add.s32", kk, kk, idx);
        else I("add.s32", kk, k0, idx);
        Reg rr = is_a ? fixed : kk, cc = is_a ? kk : fixed;
        Reg ok = reg(RC::P);
        I("setp.lt.s32", ok, kk, k);
        I("setp.lt.and.s32", ok, rr, tt.rows, ok);
        I("setp.lt.and.s32", ok, cc, tt.cols, ok);
        Reg x = reg(RC::H), x32 = reg(RC::R);
        I("mov.b16", x, 0);
        IP(ok, false, "ld.shared.b16", x, mem(elem_addr(tile, rr, cc)));
        I("cvt.u32.u16", x32, x);
        I("bfi.b32", w, x32, w, 16 * e, 16);
      }
      regs.push_back(w);
    }
    return regs;
  };
  Reg k0 = reg(RC::R), pk = reg(RC::P);
  std::string ktop = new_label(), kend = new_label();
  I("mov.b32", k0, 0);
  bind(ktop);
  I("setp.ge.s32", pk, k0, k);
  bra_if(pk, false, kend);
  std::vector<Reg> fa = fragment(p.a, at, true, k0), fb = fragment(p.b, bt, false, k0);
  I(op, vec(acc), vec(fa), vec(fb), vec(acc));
  I("add.s32", k0, k0, 16);
  bra(ktop);
  bind(kend);
  for (unsigned r = 0; r < nacc; ++r) {
    Reg row = reg(RC::R), col = reg(RC::R);
    if (w64) I("mad.lo.s32", row, lhi, 4, row0), I("add.s32", row, row, r);
    else I("add.s32", row, row0, lhi), I("add.s32", row, row, 2 * r);
    I("add.s32", col, col0, l16);
    matmul_store(p, row, col, m, n, acc[r]);
  }
  bind(next);
  I("add.s32", item, item, kThreads / W);
  bra(top);
  bind(end);
}

}  // namespace ptoas::cg::ptx
