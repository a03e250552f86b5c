// Instruction selection: the wave-level matrix op of the SIMT lowering
// (ptx mma .m16n16k16, encoders/ptx/wave_mma.cpp) as MFMA on gfx90a and
// gfx942 (wave64) and WMMA on gfx1100 (wave32). The PTX keeps each
// fragment register apart; the instruction takes tuples, so the fragments
// are copied into fresh tuples, C is accumulated in place (dst = srcC,
// the chain the hazard rules let run back to back) and copied out.
#include "isel.h"

namespace ptoas::cg::amdgpu {

using ptx::Opnd;

const char* Isel::matrix_op(bool bf16) const {
  if (chip_.gen >= 11) return bf16 ? "v_wmma_f32_16x16x16_bf16" : "v_wmma_f32_16x16x16_f16";
  if (chip_.gfx940) return bf16 ? "v_mfma_f32_16x16x16_bf16" : "v_mfma_f32_16x16x16_f16";
  return bf16 ? "v_mfma_f32_16x16x16bf16_1k" : "v_mfma_f32_16x16x16f16";
}

bool Isel::wave_mma(const ptx::Inst& in) {
  if (ptx::MmaShape(in.mode) != ptx::MmaShape::M16N16K16Wave) return false;
  const Opnd &d = opnd(in, 0), &a = opnd(in, 1), &b = opnd(in, 2), &c = opnd(in, 3);
  unsigned nacc = wave64_ ? 4 : 8, nab = wave64_ ? 2 : 8;
  if (d.count != nacc || c.count != nacc || a.count != nab || b.count != nab) {
    err_.msg = "a wave-level mma whose fragments do not fit a wave" + std::to_string(chip_.wave);
    return false;
  }
  auto tuple = [&](const Opnd& v, unsigned n) {
    uint32_t t = vnew(RegFile::V, n);
    for (unsigned k = 0; k < n; ++k) I("v_mov_b32", {D(t, uint8_t(k)), src32(e_.ops[v.reg + k])});
    return t;
  };
  uint32_t ta = tuple(a, nab), tb = tuple(b, nab), tc = tuple(c, nacc);
  I(matrix_op(in.type2 == ptx::Ty::BF16), {DU(tc), U(ta), U(tb), U(tc)});
  for (unsigned k = 0; k < nacc; ++k) I("v_mov_b32", {D(dst(e_.ops[d.reg + k])), U(tc, uint8_t(k))});
  return true;
}

}  // namespace ptoas::cg::amdgpu
