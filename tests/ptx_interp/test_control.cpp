// Control flow: predicates, divergence and reconvergence, loops with
// per-lane trip counts, barriers in divergent code, special registers,
// 3-D blocks, exit and the step limit.
#include "harness.h"

using namespace ptxt;

namespace {

// A one-warp kernel writing one u32 per thread to %out; `body` computes %v.
std::string per_thread(const std::string& body, unsigned ntid = 32, const std::string& extra_regs = "") {
  return kernel(".param .u64 out", R"(
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b32 %v;
  .reg .b64 %rd<4>;
  )" + extra_regs + R"(
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %v, 0;
)" + body + R"(
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %v;
  ret;
)", ntid);
}

std::vector<uint32_t> run_per_thread(const std::string& body, unsigned ntid = 32) {
  std::vector<uint32_t> out(ntid, 0xdeadbeef);
  Result r = run(per_thread(body, ntid), {addr(out.data())}, {buf(out)});
  REQUIRE_RUN(r);
  return out;
}

}  // namespace

TEST_CASE("if/else diverges and the warp reconverges at the join for a full-mask shuffle") {
  auto out = run_per_thread(R"(
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra EVEN;
  mul.lo.u32 %v, %r1, 10;
  bra JOIN;
EVEN:
  add.u32 %v, %r1, 1000;
JOIN:
  shfl.sync.bfly.b32 %r3, %v, 1, 31, 0xffffffff;
  add.u32 %v, %v, %r3;
)");
  for (uint32_t t = 0; t < 32; ++t) {
    auto val = [](uint32_t x) { return x % 2 ? x * 10 : x + 1000; };
    REQUIRE(out[t] == val(t) + val(t ^ 1));
  }
}

TEST_CASE("loops with a different trip count per lane, then a converged vote") {
  auto out = run_per_thread(R"(
  rem.u32 %r2, %r1, 5;
  mov.u32 %r3, 0;
LOOP:
  setp.ge.u32 %p1, %r3, %r2;
  @%p1 bra DONE;
  add.u32 %v, %v, %r3;
  add.u32 %r3, %r3, 1;
  bra LOOP;
DONE:
  setp.gt.u32 %p2, %v, 3;
  vote.sync.ballot.b32 %r4, %p2, 0xffffffff;
  popc.b32 %r5, %r4;
  mad.lo.u32 %v, %r5, 100, %v;
)");
  uint32_t ballot = 0;
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t n = t % 5, s = n * (n - 1) / 2;
    if (s > 3) ballot |= 1u << t;
  }
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t n = t % 5, s = n * (n - 1) / 2;
    REQUIRE(out[t] == uint32_t(__builtin_popcount(ballot)) * 100 + s);
  }
}

TEST_CASE("nested divergence and predicated instructions") {
  auto out = run_per_thread(R"(
  setp.lt.u32 %p1, %r1, 16;
  and.b32 %r2, %r1, 3;
  setp.eq.u32 %p2, %r2, 0;
  @!%p1 bra HIGH;
  @%p2 bra LOW0;
  mov.u32 %v, 1;
  bra LOWJ;
LOW0:
  mov.u32 %v, 2;
LOWJ:
  add.u32 %v, %v, 10;
  bra END;
HIGH:
  @%p2 mov.u32 %v, 3;
  @!%p2 mov.u32 %v, 4;
END:
  activemask.b32 %r5;
  setp.ne.u32 %p3, %r5, 0xffffffff;
  @%p3 mov.u32 %v, 999;
)");
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t want = t < 16 ? ((t & 3) == 0 ? 12 : 11) : ((t & 3) == 0 ? 3 : 4);
    REQUIRE(out[t] == want);
  }
}

TEST_CASE("barriers in divergent code: every thread arrives, at different bar.sync instructions") {
  std::vector<uint32_t> out(64, 0);
  std::string ptx = kernel(".param .u64 out", R"(
  .reg .pred %p1;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 s[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r3, %r3, %r2;
  st.shared.u32 [%r3], %r1;
  and.b32 %r4, %r1, 1;
  setp.eq.u32 %p1, %r4, 0;
  @%p1 bra A;
  bar.sync 0;
  bra J;
A:
  bar.sync 0;
J:
  xor.b32 %r5, %r1, 63;
  shl.b32 %r5, %r5, 2;
  mov.u32 %r6, s;
  add.u32 %r6, %r6, %r5;
  ld.shared.u32 %r7, [%r6];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
)", 64);
  Result r = run(ptx, {addr(out.data())}, {buf(out)});
  REQUIRE_RUN(r);
  for (uint32_t t = 0; t < 64; ++t) REQUIRE(out[t] == (t ^ 63));
}

TEST_CASE("special registers in a 3-D block over a 2-D grid") {
  std::vector<uint32_t> out(2 * 3 * 64 * 4, 0);
  std::string ptx = R"(
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
.reqntid 8, 4, 2
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ctaid.y;
  mov.u32 %r6, %nctaid.x;
  mov.u32 %r7, %ntid.x;
  mov.u32 %r8, %ntid.y;
  mad.lo.u32 %r9, %r3, %r8, %r2;
  mad.lo.u32 %r9, %r9, %r7, %r1;
  mad.lo.u32 %r10, %r5, %r6, %r4;
  mad.lo.u32 %r11, %r10, 64, %r9;
  mov.u32 %r12, %laneid;
  mov.u32 %r13, %warpid;
  mov.u32 %r14, %lanemask_lt;
  mul.wide.u32 %rd2, %r11, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r9, %r12, %r13, %r14};
  ret;
}
)";
  std::string err;
  auto p = Program::parse(ptx, err);
  REQUIRE(p);
  LaunchOptions o;
  o.grid[0] = 2;
  o.grid[1] = 3;
  Fault f;
  INFO(f.message);
  REQUIRE(launch(*p, "k", {addr(out.data())}, {buf(out)}, o, f));
  for (uint32_t b = 0; b < 6; ++b)
    for (uint32_t t = 0; t < 64; ++t) {
      const uint32_t* q = &out[(b * 64 + t) * 4];
      REQUIRE(q[0] == t);
      REQUIRE(q[1] == t % 32);
      REQUIRE(q[2] == t / 32);
      REQUIRE(q[3] == (1u << (t % 32)) - 1);
    }
}

TEST_CASE("a block that is not a multiple of 32 threads has a partial last warp") {
  auto out = run_per_thread("  mov.u32 %v, %laneid;\n  add.u32 %v, %v, 7;", 40);
  for (uint32_t t = 0; t < 40; ++t) REQUIRE(out[t] == t % 32 + 7);
}

TEST_CASE("exit of some threads, the others go on") {
  auto out = run_per_thread(R"(
  setp.lt.u32 %p1, %r1, 8;
  @%p1 exit;
  mov.u32 %v, 5;
)");
  for (uint32_t t = 0; t < 32; ++t) REQUIRE(out[t] == (t < 8 ? 0xdeadbeef : 5u));
}

TEST_CASE("bra.uni that diverges is a fault") {
  std::vector<uint32_t> out(32);
  Result r = run(per_thread("  setp.lt.u32 %p1, %r1, 3;\n  @%p1 bra.uni L;\nL:\n  mov.u32 %v, 1;"), {addr(out.data())},
                 {buf(out)});
  REQUIRE_FAULT(r, FaultKind::BranchDivergent);
}

TEST_CASE("an endless loop stops at the step limit with a located fault") {
  std::vector<uint32_t> out(32);
  LaunchOptions o;
  o.step_limit = 10000;
  Result r = run(per_thread("L:\n  add.u32 %v, %v, 1;\n  bra L;"), {addr(out.data())}, {buf(out)}, 1, "k", o);
  REQUIRE_FAULT(r, FaultKind::StepLimit);
  REQUIRE(r.fault.message.find("more than 10000 warp instructions") != std::string::npos);
  o.step_limit = uint64_t(1) << 40;
  o.time_limit_s = 0.2;
  r = run(per_thread("L:\n  add.u32 %v, %v, 1;\n  bra L;"), {addr(out.data())}, {buf(out)}, 1, "k", o);
  REQUIRE_FAULT(r, FaultKind::TimeLimit);
}

TEST_CASE("trap is a fault") {
  std::vector<uint32_t> out(32);
  Result r = run(per_thread("  setp.eq.u32 %p1, %r1, 5;\n  @%p1 trap;"), {addr(out.data())}, {buf(out)});
  REQUIRE_FAULT(r, FaultKind::Trap);
  REQUIRE(r.fault.thread[0] == 5);
}

TEST_CASE("a warp-synchronous instruction waits for the lanes of its mask on an out-of-line path") {
  // Odd lanes fix their value in cold code after the ret and come back (the
  // backend's NaN fix has this shape); the even lanes reach the shuffle
  // first and wait there for them.
  auto out = run_per_thread(R"(
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 1;
  mov.u32 %v, %r1;
  @%p1 bra COLD;
BACK:
  shfl.sync.bfly.b32 %r3, %v, 1, 31, 0xffffffff;
  add.u32 %v, %v, %r3;
  bra END;
COLD:
  add.u32 %v, %v, 100;
  bra BACK;
END:
)");
  for (uint32_t t = 0; t < 32; ++t) {
    auto val = [](uint32_t x) { return x % 2 ? x + 100 : x; };
    REQUIRE(out[t] == val(t) + val(t ^ 1));
  }
}

TEST_CASE("lanes waiting at a shuffle for a lane that waits at another one is a fault") {
  std::vector<uint32_t> out(32);
  std::string body = R"(
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra A;
  shfl.sync.bfly.b32 %r3, %r1, 1, 31, 0xffffffff;
  bra END;
A:
  shfl.sync.bfly.b32 %r3, %r1, 1, 31, 0xffffffff;
END:
)";
  Result r = run(per_thread(body), {addr(out.data())}, {buf(out)});
  REQUIRE_FAULT(r, FaultKind::NotConverged);
  REQUIRE(r.fault.detail.find("waits at another warp-synchronous instruction") != std::string::npos);
}
