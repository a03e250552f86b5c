// A fused row softmax over a 1024 x 1024 f32 matrix, written as the PTX
// backend lowers it (GPU_NOTES §4: one warp per row, ld.global.v4, warp
// shuffles, ex2.approx, a loop over the row): correct against the host,
// and interpreted in seconds (the interpreter's speed budget).
#include <chrono>
#include <cmath>
#include <random>

#include "harness.h"

using namespace ptxt;

TEST_CASE("1024x1024 row softmax: right values, and in seconds") {
  const unsigned rows = 1024, cols = 1024;
  std::string ptx = kernel(".param .u64 pin, .param .u64 pout, .param .u32 ncols", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<16>;
  .reg .f32 %f<24>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r1, [ncols];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %warpid;
  mad.lo.u32 %r4, %r2, 4, %r3;        // row
  mov.u32 %r5, %laneid;
  mul.wide.u32 %rd3, %r4, %r1;
  shl.b64 %rd3, %rd3, 2;
  add.s64 %rd4, %rd1, %rd3;            // row start (in)
  add.s64 %rd5, %rd2, %rd3;            // row start (out)
  shl.b32 %r6, %r5, 4;                 // lane * 16 bytes
  // Pass 1: the row maximum.
  mov.f32 %f1, 0fFF800000;
  mov.u32 %r7, %r6;
  shl.b32 %r8, %r1, 2;                 // row bytes
MAX_LOOP:
  setp.ge.u32 %p1, %r7, %r8;
  @%p1 bra MAX_DONE;
  cvt.u64.u32 %rd6, %r7;
  add.s64 %rd7, %rd4, %rd6;
  ld.global.nc.v4.f32 {%f2, %f3, %f4, %f5}, [%rd7];
  max.f32 %f1, %f1, %f2;
  max.f32 %f1, %f1, %f3;
  max.f32 %f1, %f1, %f4;
  max.f32 %f1, %f1, %f5;
  add.u32 %r7, %r7, 512;
  bra MAX_LOOP;
MAX_DONE:
  shfl.sync.bfly.b32 %f6, %f1, 16, 31, 0xffffffff;
  max.f32 %f1, %f1, %f6;
  shfl.sync.bfly.b32 %f6, %f1, 8, 31, 0xffffffff;
  max.f32 %f1, %f1, %f6;
  shfl.sync.bfly.b32 %f6, %f1, 4, 31, 0xffffffff;
  max.f32 %f1, %f1, %f6;
  shfl.sync.bfly.b32 %f6, %f1, 2, 31, 0xffffffff;
  max.f32 %f1, %f1, %f6;
  shfl.sync.bfly.b32 %f6, %f1, 1, 31, 0xffffffff;
  max.f32 %f1, %f1, %f6;
  // Pass 2: exp(x - max) = ex2(x*log2e - max*log2e), stored, and summed.
  mul.f32 %f7, %f1, 0f3FB8AA3B;
  neg.f32 %f7, %f7;
  mov.f32 %f8, 0f00000000;
  mov.u32 %r7, %r6;
EXP_LOOP:
  setp.ge.u32 %p1, %r7, %r8;
  @%p1 bra EXP_DONE;
  cvt.u64.u32 %rd6, %r7;
  add.s64 %rd7, %rd4, %rd6;
  ld.global.nc.v4.f32 {%f2, %f3, %f4, %f5}, [%rd7];
  fma.rn.f32 %f2, %f2, 0f3FB8AA3B, %f7;
  fma.rn.f32 %f3, %f3, 0f3FB8AA3B, %f7;
  fma.rn.f32 %f4, %f4, 0f3FB8AA3B, %f7;
  fma.rn.f32 %f5, %f5, 0f3FB8AA3B, %f7;
  ex2.approx.f32 %f2, %f2;
  ex2.approx.f32 %f3, %f3;
  ex2.approx.f32 %f4, %f4;
  ex2.approx.f32 %f5, %f5;
  add.f32 %f8, %f8, %f2;
  add.f32 %f8, %f8, %f3;
  add.f32 %f8, %f8, %f4;
  add.f32 %f8, %f8, %f5;
  add.s64 %rd8, %rd5, %rd6;
  st.global.v4.f32 [%rd8], {%f2, %f3, %f4, %f5};
  add.u32 %r7, %r7, 512;
  bra EXP_LOOP;
EXP_DONE:
  shfl.sync.bfly.b32 %f6, %f8, 16, 31, 0xffffffff;
  add.f32 %f8, %f8, %f6;
  shfl.sync.bfly.b32 %f6, %f8, 8, 31, 0xffffffff;
  add.f32 %f8, %f8, %f6;
  shfl.sync.bfly.b32 %f6, %f8, 4, 31, 0xffffffff;
  add.f32 %f8, %f8, %f6;
  shfl.sync.bfly.b32 %f6, %f8, 2, 31, 0xffffffff;
  add.f32 %f8, %f8, %f6;
  shfl.sync.bfly.b32 %f6, %f8, 1, 31, 0xffffffff;
  add.f32 %f8, %f8, %f6;
  rcp.rn.f32 %f9, %f8;
  // Pass 3: scale.
  mov.u32 %r7, %r6;
SCALE_LOOP:
  setp.ge.u32 %p1, %r7, %r8;
  @%p1 bra SCALE_DONE;
  cvt.u64.u32 %rd6, %r7;
  add.s64 %rd8, %rd5, %rd6;
  ld.global.v4.f32 {%f2, %f3, %f4, %f5}, [%rd8];
  mul.f32 %f2, %f2, %f9;
  mul.f32 %f3, %f3, %f9;
  mul.f32 %f4, %f4, %f9;
  mul.f32 %f5, %f5, %f9;
  st.global.v4.f32 [%rd8], {%f2, %f3, %f4, %f5};
  add.u32 %r7, %r7, 512;
  bra SCALE_LOOP;
SCALE_DONE:
  ret;
)", 128);
  std::vector<float> in(size_t(rows) * cols), out(in.size());
  std::mt19937 g(3);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  for (float& x : in) x = u(g);
  auto t0 = std::chrono::steady_clock::now();
  Result r = run(ptx, {addr(in.data()), addr(out.data()), cols}, {buf(in), buf(out)}, rows / 4);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE_RUN(r);
  WARN("softmax 1024x1024: " << secs << " s, " << r.stats.warp_steps << " warp instructions, "
                             << r.stats.thread_steps << " thread instructions");
  REQUIRE(secs < 20.0);
  for (unsigned row = 0; row < rows; row += 97) {
    double m = -INFINITY, s = 0;
    for (unsigned c = 0; c < cols; ++c) m = std::max(m, double(in[row * cols + c]));
    for (unsigned c = 0; c < cols; ++c) s += std::exp(double(in[row * cols + c]) - m);
    for (unsigned c = 0; c < cols; ++c) {
      double want = std::exp(double(in[row * cols + c]) - m) / s;
      REQUIRE(std::fabs(out[row * cols + c] - want) <= 1e-5 * want + 1e-9);
    }
  }
}
