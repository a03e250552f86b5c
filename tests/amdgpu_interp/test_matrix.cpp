// The matrix ops the backend emits for f16 / bf16 tmatmul, on each chip:
// v_mfma_f32_16x16x16 (wave64) and v_wmma_f32_16x16x16 (wave32). The host
// packs A, B and C into each lane's registers by GPU_NOTES AMDGPU §8's
// layouts (written out here again, apart from the interpreter's), the
// kernel loads them, runs one op and stores D, and the host reads D back
// by the same layouts: D must be C + A B summed in k order with f32 fma.
// Also: EXEC not all ones, and a WMMA whose lanes 16-31 disagree, fault.
#include <bit>
#include <cmath>

#include "harness.h"

using namespace amdgpu_test;

namespace {

uint16_t to_half(float f, bool bf16) {
  uint32_t b = std::bit_cast<uint32_t>(f);
  if (bf16) return uint16_t(b >> 16);  // the values below are exact in both
  // f16 of a small integer or half-integer: exact
  int e = int((b >> 23) & 0xff) - 127 + 15;
  if ((b & 0x7fffffff) == 0) return uint16_t(b >> 16 & 0x8000);
  return uint16_t((b >> 16 & 0x8000) | (e << 10) | ((b >> 13) & 0x3ff));
}

struct Layout {
  unsigned W, nab, nc;
  // lane and element (of per-lane halves, or C registers) of each entry
  void a(unsigned i, unsigned k, unsigned& lane, unsigned& e, unsigned copy) const {
    if (W == 64) lane = i + 16 * (k / 4), e = k % 4;
    else lane = i + 16 * copy, e = k;
  }
  void b(unsigned k, unsigned j, unsigned& lane, unsigned& e, unsigned copy) const {
    if (W == 64) lane = j + 16 * (k / 4), e = k % 4;
    else lane = j + 16 * copy, e = k;
  }
  void c(unsigned i, unsigned j, unsigned& lane, unsigned& r) const {
    if (W == 64) lane = j + 16 * (i / 4), r = i % 4;
    else lane = j + 16 * (i % 2), r = i / 2;
  }
};

std::string mma_body(const ChipCase& c, bool bf16, unsigned nab, unsigned nc, bool break_exec) {
  std::ostringstream o;
  unsigned W = c.wave;
  const char* op = c.gfx11 ? (bf16 ? "v_wmma_f32_16x16x16_bf16" : "v_wmma_f32_16x16x16_f16")
                   : c.gfx940 ? (bf16 ? "v_mfma_f32_16x16x16_bf16" : "v_mfma_f32_16x16x16_f16")
                              : (bf16 ? "v_mfma_f32_16x16x16bf16_1k" : "v_mfma_f32_16x16x16f16");
  o << kPrologue << addr64(4, 4) << addr64(6, 10);
  // registers: A v[10..], B v[20..], C v[40..], D v[30..]; x holds the
  // dwords register-major: reg r of lane l at (r * W + l) * 4
  for (unsigned r = 0; r < nab; ++r) o << "  %LD% v" << 10 + r << ", v[4:5], off offset:" << r * W * 4 << "\n";
  for (unsigned r = 0; r < nab; ++r) o << "  %LD% v" << 20 + r << ", v[4:5], off offset:" << (nab + r) * W * 4 << "\n";
  for (unsigned r = 0; r < nc; ++r) o << "  %LD% v" << 40 + r << ", v[4:5], off offset:" << (2 * nab + r) * W * 4 << "\n";
  o << "  s_waitcnt vmcnt(0)\n  s_nop 4\n";
  if (break_exec) o << "  v_cmp_ne_u32 %VCC%, 5, v0\n  %SAVEEXEC% %M20%, %VCC%\n";
  o << "  " << op << " v[30:" << 30 + nc - 1 << "], v[10:" << 10 + nab - 1 << "], v[20:" << 20 + nab - 1 << "], v[40:"
    << 40 + nc - 1 << "]\n  s_nop 7\n  s_nop 7\n  s_nop 7\n";
  for (unsigned r = 0; r < nc; ++r) o << "  %ST% v[6:7], v" << 30 + r << ", off offset:" << r * W * 4 << "\n";
  o << "  s_endpgm\n";
  return o.str();
}

}  // namespace

TEST_CASE("MFMA and WMMA 16x16x16: the lane layouts and k-ordered f32 sums", "[matrix]") {
  AMDGPU_REQUIRE_TOOLS();
  for (const auto& c : kChips) {
    for (bool bf16 : {false, true}) {
      const unsigned W = c.wave, nab = W == 64 ? 2 : 8, nc = W == 64 ? 4 : 8;
      Layout L{W, nab, nc};
      float A[16][16], B[16][16], C[16][16];
      for (unsigned i = 0; i < 16; ++i)
        for (unsigned j = 0; j < 16; ++j) {
          // small values (exact in f16 and bf16) that tell rows, columns
          // and k apart; C carries a fraction so that order matters
          A[i][j] = float(int((i * 7 + j * 3) % 11) - 5) * 0.5f;
          B[i][j] = float(int((i * 5 + j * 13) % 9) - 4);
          C[i][j] = 1.0f / float(1 + i + 16 * j) + float(i) * 1024.0f;
        }
      std::vector<uint32_t> x((2 * nab + nc) * W, 0), out(nc * W, 0xdeadbeef);
      for (unsigned copy = 0; copy < (W == 32 ? 2u : 1u); ++copy)
        for (unsigned i = 0; i < 16; ++i)
          for (unsigned k = 0; k < 16; ++k) {
            unsigned lane, e;
            L.a(i, k, lane, e, copy);
            x[(e / 2) * W + lane] |= uint32_t(to_half(A[i][k], bf16)) << (16 * (e % 2));
            L.b(k, i, lane, e, copy);  // B[k][j] with j = i
            x[(nab + e / 2) * W + lane] |= uint32_t(to_half(B[k][i], bf16)) << (16 * (e % 2));
          }
      for (unsigned i = 0; i < 16; ++i)
        for (unsigned j = 0; j < 16; ++j) {
          unsigned lane, r;
          L.c(i, j, lane, r);
          x[(2 * nab + r) * W + lane] = std::bit_cast<uint32_t>(C[i][j]);
        }
      auto prog = load_kernel(c, "mma", mma_body(c, bf16, nab, nc, false));
      emu::LaunchSpec ls;
      ls.kernel = "mma";
      ls.block_x = W;
      ls.kernarg = Kernarg().ptr(x.data()).ptr(nullptr).ptr(nullptr).ptr(out.data()).add(W).add(W).bytes;
      ls.buffers = {{x.data(), x.size() * 4}, {out.data(), out.size() * 4}};
      emu::Stats st;
      std::string err;
      INFO(c.name << (bf16 ? " bf16" : " f16") << ": " << err);
      REQUIRE(prog->launch(ls, st, err));
      for (unsigned i = 0; i < 16; ++i)
        for (unsigned j = 0; j < 16; ++j) {
          float want = C[i][j];
          for (unsigned k = 0; k < 16; ++k) want = std::fma(A[i][k], B[k][j], want);
          unsigned lane, r;
          L.c(i, j, lane, r);
          INFO("D[" << i << "][" << j << "]");
          CHECK(std::bit_cast<float>(out[r * W + lane]) == want);
        }
      // The whole wave takes part.
      auto bad = load_kernel(c, "mma", mma_body(c, bf16, nab, nc, true));
      CHECK_FALSE(bad->launch(ls, st, err));
      CHECK(err.find("EXEC not all ones") != std::string::npos);
      if (W == 32) {  // lanes 16-31 must repeat A and B
        x[0 * W + 20] ^= 1;
        CHECK_FALSE(prog->launch(ls, st, err));
        CHECK(err.find("lanes 16-31") != std::string::npos);
      }
    }
  }
}
