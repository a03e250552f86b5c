// The 16x16x16 matrix ops the amdgpu backend emits for f16 / bf16 tmatmul:
// v_mfma_f32_16x16x16 (wave64: gfx90a, gfx942) and v_wmma_f32_16x16x16
// (wave32: gfx1100), with the lane layouts of GPU_NOTES AMDGPU §8:
//   MFMA  A[i][k]: lane i + 16(k/4), element k%4 (2 per VGPR, low half
//         first); B[k][j]: lane j + 16(k/4), element k%4;
//         D[i][j]: lane j + 16(i/4), VGPR i%4.
//   WMMA  A[i][k]: lane i (and i + 16), element k of 16 (8 VGPRs);
//         B[k][j]: lane j (and j + 16), element k; D[i][j]: lane j + 16(i%2),
//         VGPR i/2.
// D[i][j] = C[i][j], then for k = 0..15 in order D = fma(A[i][k], B[k][j], D)
// in f32: the products of f16 or bf16 are exact, so this is the reference's
// sum in its order. The hardware sums in its own order and precision; the
// two agree within DESIGN §6's bound for matmul, not bit for bit.
// The whole wave takes part: EXEC must be all ones, and a WMMA's lanes
// 16-31 must repeat lanes 0-15's A and B, else the result is undefined
// (both are faults here).
#include <bit>
#include <cmath>

#include "exec.h"

namespace ptoas::amdgpu_emu {

bool exec_matrix(Exec& x, Wave& w, const Inst& in) {
  const Opnd* o = in.ops;
  const unsigned W = x.W;
  const uint64_t full = W == 64 ? ~uint64_t(0) : 0xffffffffull;
  if (x.exec_mask(w) != full)
    return x.fault(w, -1, "a matrix op with EXEC not all ones (the whole wave takes part)");
  const bool bf16 = in.is_signed;
  auto elem = [&](const Opnd& op, unsigned lane, unsigned e) {
    uint16_t h = uint16_t(x.vr(w, op.reg + e / 2, lane) >> (16 * (e % 2)));
    return std::bit_cast<float>(bf16 ? uint32_t(h) << 16 : from_f16(h));
  };
  float A[16][16], B[16][16], C[16][16];
  if (W == 64) {
    for (unsigned l = 0; l < 64; ++l)
      for (unsigned e = 0; e < 4; ++e) {
        A[l % 16][4 * (l / 16) + e] = elem(o[1], l, e);
        B[4 * (l / 16) + e][l % 16] = elem(o[2], l, e);
        C[4 * (l / 16) + e][l % 16] = std::bit_cast<float>(x.vr(w, o[3].reg + e, l));
      }
  } else {
    for (unsigned l = 0; l < 16; ++l)
      for (unsigned r = 0; r < 8; ++r)
        if (x.vr(w, o[1].reg + r, l) != x.vr(w, o[1].reg + r, l + 16) ||
            x.vr(w, o[2].reg + r, l) != x.vr(w, o[2].reg + r, l + 16))
          return x.fault(w, int(l + 16), "WMMA: lanes 16-31 must repeat lanes 0-15's A and B");
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned e = 0; e < 16; ++e) {
        A[l % 16][e] = elem(o[1], l, e);
        B[e][l % 16] = elem(o[2], l, e);
      }
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned r = 0; r < 8; ++r) C[2 * r + l / 16][l % 16] = std::bit_cast<float>(x.vr(w, o[3].reg + r, l));
  }
  float D[16][16];
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned j = 0; j < 16; ++j) {
      float d = C[i][j];
      for (unsigned k = 0; k < 16; ++k) d = std::fma(A[i][k], B[k][j], d);
      D[i][j] = d;
    }
  for (unsigned l = 0; l < W; ++l)
    for (unsigned r = 0; r < (W == 64 ? 4u : 8u); ++r) {
      unsigned i = W == 64 ? 4 * (l / 16) + r : 2 * r + l / 16;
      x.vr(w, o[0].reg + r, l) = std::bit_cast<uint32_t>(D[i][l % 16]);
    }
  return true;
}

}  // namespace ptoas::amdgpu_emu
