// Memory: shared exchange across warps, local arrays, generic addressing,
// module data, vector accesses, atomics, cp.async with its groups.
#include "harness.h"

using namespace ptxt;

TEST_CASE("shared memory exchange between warps through bar.sync") {
  std::vector<float> out(128);
  std::string ptx = kernel(".param .u64 out", R"(
  .reg .b32 %r<10>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  .shared .align 16 .f32 sm[128];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  mov.u32 %r2, sm;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.f32 [%r4], %f1;
  bar.sync 0;
  sub.u32 %r5, 127, %r1;
  shl.b32 %r6, %r5, 2;
  add.u32 %r7, %r2, %r6;
  ld.shared.f32 %f2, [%r7];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f2;
  ret;
)", 128);
  Result r = run(ptx, {addr(out.data())}, {buf(out)});
  REQUIRE_RUN(r);
  for (int t = 0; t < 128; ++t) REQUIRE(out[t] == float(127 - t));
}

TEST_CASE("local memory is per thread, generic addresses reach shared and local") {
  std::vector<uint32_t> out(64);
  std::string ptx = kernel(".param .u64 out", R"(
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  .local .align 4 .b32 arr[4];
  .shared .align 4 .b32 sm[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  st.local.u32 [arr], %r1;
  add.u32 %r2, %r1, 100;
  st.local.u32 [arr+4], %r2;
  cvta.local.u64 %rd2, arr;
  ld.u32 %r3, [%rd2+4];
  ld.local.u32 %r4, [arr];
  add.u32 %r5, %r3, %r4;
  cvta.shared.u64 %rd3, sm;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  st.u32 [%rd5], %r5;
  cvta.to.shared.u64 %rd6, %rd5;
  cvt.u32.u64 %r6, %rd6;
  ld.shared.u32 %r7, [%r6];
  add.s64 %rd7, %rd1, %rd4;
  st.global.u32 [%rd7], %r7;
  ret;
)", 64);
  Result r = run(ptx, {addr(out.data())}, {buf(out)});
  REQUIRE_RUN(r);
  for (uint32_t t = 0; t < 64; ++t) REQUIRE(out[t] == 2 * t + 100);
}

TEST_CASE("module-scope .global and .const data with initializers, vector loads and stores") {
  std::vector<uint32_t> out(32 * 4);
  std::string ptx = kernel(".param .u64 out", R"(
  .reg .b32 %r<10>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  mul.wide.u32 %rd2, %r2, 4;
  mov.u64 %rd3, table;
  add.s64 %rd4, %rd3, %rd2;
  ld.global.u32 %r3, [%rd4];
  ld.const.f32 %f1, [scale];
  cvt.rzi.u32.f32 %r4, %f1;
  ld.global.v2.u32 {%r5, %r6}, [table+8];
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd1, %rd5;
  st.global.v4.u32 [%rd6], {%r3, %r4, %r5, %r6};
  ret;
)", 32, "sm_80", ".global .align 16 .u32 table[4] = {10, 20, 30, 40};\n.const .align 4 .f32 scale = 0f40E00000;");
  Result r = run(ptx, {addr(out.data())}, {buf(out)});
  REQUIRE_RUN(r);
  for (uint32_t t = 0; t < 32; ++t) {
    REQUIRE(out[4 * t] == 10 * (t % 4 + 1));
    REQUIRE(out[4 * t + 1] == 7);
    REQUIRE(out[4 * t + 2] == 30);
    REQUIRE(out[4 * t + 3] == 40);
  }
}

TEST_CASE("atomics on global and shared memory") {
  std::vector<uint32_t> g(4, 0);
  std::string ptx = kernel(".param .u64 g", R"(
  .reg .b32 %r<10>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 cnt;
  ld.param.u64 %rd1, [g];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [cnt], 0;
  bar.sync 0;
  atom.shared.add.u32 %r2, [cnt], 1;
  atom.global.add.u32 %r3, [%rd1], %r1;
  atom.global.max.s32 %r4, [%rd1+4], %r1;
  cvt.rn.f32.u32 %f1, %r1;
  atom.global.add.f32 %f2, [%rd1+8], %f1;
  atom.global.cas.b32 %r5, [%rd1+12], %r1, 1000;
  bar.sync 0;
  @%p1 ld.shared.u32 %r6, [cnt];
  @%p1 st.global.u32 [%rd1+12], %r6;
  ret;
)", 64);
  ptx.insert(ptx.find(".reg .b32"), ".reg .pred %p1;\n  ");
  Result r = run(ptx, {addr(g.data())}, {buf(g)});
  REQUIRE_RUN(r);
  REQUIRE(g[0] == 63 * 64 / 2);
  REQUIRE(g[1] == 63);
  REQUIRE(bfloat(g[2]) == float(63 * 64 / 2));
  REQUIRE(g[3] == 64);
}

namespace {

// cp.async of 64 bytes per thread in two groups of 32, then a wait and the
// check of what was copied; `middle` goes between the waits.
std::string cp_kernel(const std::string& after_commit) {
  return kernel(".param .u64 src, .param .u64 out", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b8 buf[2048];
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.cg.shared.global [%r4], [%rd4], 16;
  cp.async.commit_group;
  add.u32 %r5, %r4, 512;
  add.s64 %rd5, %rd4, 512;
  cp.async.ca.shared.global [%r5], [%rd5], 8, 4;
  cp.async.commit_group;
)" + after_commit + R"(
  ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r4];
  ld.shared.v2.u32 {%r10, %r11}, [%r5];
  mul.wide.u32 %rd6, %r1, 24;
  add.s64 %rd7, %rd2, %rd6;
  st.global.v2.u32 [%rd7], {%r6, %r7};
  st.global.v2.u32 [%rd7+8], {%r8, %r9};
  st.global.v2.u32 [%rd7+16], {%r10, %r11};
  ret;
)");
}

}  // namespace

TEST_CASE("cp.async copies land at their wait, src-size zero-fills") {
  std::vector<uint32_t> src(1024);
  for (uint32_t i = 0; i < 1024; ++i) src[i] = i * 3 + 1;
  std::vector<uint32_t> out(32 * 6);
  Result r = run(cp_kernel("  cp.async.wait_group 0;"), {addr(src.data()), addr(out.data())}, {buf(src), buf(out)});
  REQUIRE_RUN(r);
  for (uint32_t t = 0; t < 32; ++t) {
    for (int k = 0; k < 4; ++k) REQUIRE(out[6 * t + k] == src[4 * t + k]);
    REQUIRE(out[6 * t + 4] == src[128 + 4 * t]);  // 4 of 8 bytes copied
    REQUIRE(out[6 * t + 5] == 0);                 // the rest zero-filled
  }
  r = run(cp_kernel("  cp.async.wait_all;"), {addr(src.data()), addr(out.data())}, {buf(src), buf(out)});
  REQUIRE_RUN(r);
}

TEST_CASE("cp.async: reading a destination before the wait that covers its group is a fault") {
  std::vector<uint32_t> src(1024), out(32 * 6);
  // wait_group 1 completes only the first group; the second is still in flight.
  Result r = run(cp_kernel("  cp.async.wait_group 1;"), {addr(src.data()), addr(out.data())}, {buf(src), buf(out)});
  REQUIRE_FAULT(r, FaultKind::CpAsyncPending);
  REQUIRE(r.fault.line == 30);  // the ld.shared of the second group's bytes
  r = run(cp_kernel(""), {addr(src.data()), addr(out.data())}, {buf(src), buf(out)});
  REQUIRE_FAULT(r, FaultKind::CpAsyncPending);
}

TEST_CASE("cp.async data read by another thread needs the wait and then a barrier") {
  std::vector<uint32_t> src(64, 7), out(64);
  auto body = [](const std::string& sync) {
    return R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  .shared .align 16 .b8 buf[256];
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.ca.shared.global [%r4], [%rd4], 4;
  cp.async.wait_all;
)" + sync + R"(
  xor.b32 %r5, %r1, 32;
  shl.b32 %r5, %r5, 2;
  add.u32 %r6, %r3, %r5;
  ld.shared.u32 %r7, [%r6];
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd5, %rd2, %rd5;
  st.global.u32 [%rd5], %r7;
  ret;
)";
  };
  Result ok = run(kernel(".param .u64 src, .param .u64 out", body("  bar.sync 0;"), 64),
                  {addr(src.data()), addr(out.data())}, {buf(src), buf(out)});
  REQUIRE_RUN(ok);
  REQUIRE(out[5] == 7);
  Result bad = run(kernel(".param .u64 src, .param .u64 out", body(""), 64), {addr(src.data()), addr(out.data())},
                   {buf(src), buf(out)});
  // Warp 0 runs to its end before warp 1 starts: it finds the other
  // warp's bytes not yet written at all.
  INFO(bad.fault.message);
  REQUIRE(!bad.ok);
  REQUIRE((bad.fault.kind == FaultKind::SharedRace || bad.fault.kind == FaultKind::SharedUninit));
}

TEST_CASE("dynamic shared memory: .extern .shared name[] sized by // pto.dynamic_shared_bytes") {
  std::vector<uint32_t> out(256);
  std::string ptx = R"(.version 7.0
.target sm_80
.address_size 64
.extern .shared .align 128 .b8 pto_smem[];
.shared .align 4 .b32 stat[3];

// pto.dynamic_shared_bytes 65536
.visible .entry k(.param .u64 po)
.reqntid 256, 1, 1
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [po];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, pto_smem;
  shl.b32 %r3, %r1, 8;             // thread t: bytes 256 t .. 256 t + 255
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4+252], %r1;
  @%p0 st.shared.u32 [stat], %r1;
  bar.sync 0;
  xor.b32 %r5, %r1, 255;
  shl.b32 %r6, %r5, 8;
  add.u32 %r7, %r2, %r6;
  ld.shared.u32 %r8, [%r7+252];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
  ret;
}
)";
  ptx.insert(ptx.find("  .reg .b32"), "  .reg .pred %p0;\n");
  std::string err;
  auto p = Program::parse(ptx, err);
  INFO(err);
  REQUIRE(p);
  const EntryInfo* e = p->entry("k");
  REQUIRE(e->dynamic_shared_bytes == 65536);
  REQUIRE(e->shared_bytes == 128 + 65536);  // the static 12 bytes, aligned to 128, then the dynamic ones
  Fault f;
  LaunchOptions o;
  INFO(f.message);
  REQUIRE(launch(*p, "k", {addr(out.data())}, {buf(out)}, o, f));
  for (uint32_t t = 0; t < 256; ++t) REQUIRE(out[t] == (t ^ 255));
  // Announced too small: the accesses past it are out of bounds.
  std::string small = ptx;
  small.replace(small.find("65536"), 5, "32768");
  auto q = Program::parse(small, err);
  REQUIRE(q);
  REQUIRE(!launch(*q, "k", {addr(out.data())}, {buf(out)}, o, f));
  REQUIRE(f.kind == FaultKind::SharedOutOfBounds);
  // Only the extern shared variable may go without a size.
  REQUIRE(!Program::parse(kernel("", "  .shared .b8 x[];\n  ret;"), err));
  REQUIRE(err.find("only the dynamic shared memory") != std::string::npos);
}
