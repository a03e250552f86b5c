// End-to-end kernels in the shape ptoas and nvcc write them: parameters,
// cvta.to.global, special registers, a grid of blocks, predicated tails.
#include "harness.h"

using namespace ptxt;

TEST_CASE("vector add over a grid with a predicated tail") {
  std::string ptx = kernel(".param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra $L__done;
  mul.wide.u32 %rd7, %r5, 4;
  add.s64 %rd8, %rd4, %rd7;
  ld.global.f32 %f1, [%rd8];
  add.s64 %rd8, %rd5, %rd7;
  ld.global.nc.f32 %f2, [%rd8];
  add.rn.f32 %f3, %f1, %f2;
  add.s64 %rd9, %rd6, %rd7;
  st.global.f32 [%rd9], %f3;
$L__done:
  ret;
)", 64);
  const unsigned n = 100;
  std::vector<float> a(n), b(n), c(128, -1.0f);
  for (unsigned i = 0; i < n; ++i) {
    a[i] = float(i) * 0.5f;
    b[i] = 1.0f / float(i + 1);
  }
  Result r = run(ptx, {addr(a.data()), addr(b.data()), addr(c.data()), n}, {buf(a), buf(b), buf(c)}, 2);
  REQUIRE_RUN(r);
  for (unsigned i = 0; i < n; ++i) REQUIRE(c[i] == a[i] + b[i]);
  for (unsigned i = n; i < 128; ++i) REQUIRE(c[i] == -1.0f);
  REQUIRE(r.stats.warp_steps > 0);
}

TEST_CASE("entries, parameters and launch errors are reported") {
  std::string ptx = kernel(".param .u64 a, .param .f32 x", "ret;");
  std::string err;
  auto p = Program::parse(ptx, err);
  REQUIRE(p);
  const EntryInfo* e = p->entry("k");
  REQUIRE(e);
  REQUIRE(e->params.size() == 2);
  REQUIRE(e->params[0].name == "a");
  REQUIRE(e->params[0].bytes == 8);
  REQUIRE(e->params[1].is_float);
  REQUIRE(e->reqntid[0] == 32);
  REQUIRE(p->target() == "sm_80");
  Fault f;
  REQUIRE(!launch(*p, "k", {1}, {}, LaunchOptions(), f));
  REQUIRE(f.kind == FaultKind::BadLaunch);
  REQUIRE(f.message.find("takes 2 parameters, 1 given") != std::string::npos);
  REQUIRE(!launch(*p, "nope", {1, 2}, {}, LaunchOptions(), f));
  REQUIRE(f.message.find("no such entry (the module has: k)") != std::string::npos);
  REQUIRE(launch(*p, "k", {1, 2}, {}, LaunchOptions(), f));
}

TEST_CASE("an entry without .reqntid needs a block size") {
  std::string ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n";
  std::string err;
  auto p = Program::parse(ptx, err);
  REQUIRE(p);
  Fault f;
  REQUIRE(!launch(*p, "k", {}, {}, LaunchOptions(), f));
  REQUIRE(f.detail.find("no .reqntid") != std::string::npos);
  LaunchOptions o;
  o.block[0] = 64;
  REQUIRE(launch(*p, "k", {}, {}, o, f));
}
