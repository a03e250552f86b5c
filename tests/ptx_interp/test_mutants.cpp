// Mutants: kernels with the bugs a PTX backend makes, next to the correct
// kernel. Each mutant must be caught (a fault or a wrong result) while the
// correct kernel passes. (The wrong fragment layout is in test_mma.cpp.)
#include "harness.h"

using namespace ptxt;

namespace {

// A block sum of 128 values: a warp shuffle reduction, the warp sums through
// shared memory, thread 0 adds them. `mask` is the shuffles' member mask,
// `barrier` what separates the shared writes from thread 0's reads, `steps`
// the butterfly distances.
std::string block_sum(const std::string& mask, const std::string& barrier,
                      const std::vector<int>& steps = {16, 8, 4, 2, 1}) {
  std::string shfl;
  for (int s : steps)
    shfl += "  shfl.sync.bfly.b32 %r5, %r4, " + std::to_string(s) + ", 31, " + mask + ";\n  add.u32 %r4, %r4, %r5;\n";
  return kernel(".param .u64 pin, .param .u64 pout", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b32 partial[4];
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r4, [%rd4];
)" + shfl + R"(
  mov.u32 %r6, %laneid;
  mov.u32 %r7, %warpid;
  setp.eq.u32 %p1, %r6, 0;
  mov.u32 %r8, partial;
  shl.b32 %r9, %r7, 2;
  add.u32 %r9, %r8, %r9;
  @%p1 st.shared.u32 [%r9], %r4;
)" + barrier + R"(
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra DONE;
  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [partial];
  add.u32 %r10, %r10, %r11;
  add.u32 %r10, %r10, %r12;
  add.u32 %r10, %r10, %r13;
  st.global.u32 [%rd2], %r10;
DONE:
  ret;
)", 128);
}

struct Out {
  Result r;
  uint32_t sum;
};

Out run_sum(const std::string& ptx) {
  std::vector<uint32_t> in(128), out(1, 0);
  for (uint32_t i = 0; i < 128; ++i) in[i] = i * 3 + 1;
  Out o{run(ptx, {addr(in.data()), addr(out.data())}, {buf(in), buf(out)}), 0};
  o.sum = out[0];
  return o;
}

const uint32_t kWant = 3 * 127 * 128 / 2 + 128;

}  // namespace

TEST_CASE("the correct block reduction passes") {
  Out o = run_sum(block_sum("0xffffffff", "  bar.sync 0;"));
  REQUIRE_RUN(o.r);
  REQUIRE(o.sum == kWant);
}

TEST_CASE("mutant: a missing bar.sync between the shared writes and the reads is caught") {
  Out o = run_sum(block_sum("0xffffffff", ""));
  INFO(o.r.fault.message);
  REQUIRE(!o.r.ok);
  REQUIRE((o.r.fault.kind == FaultKind::SharedRace || o.r.fault.kind == FaultKind::SharedUninit));
  // With the partials zeroed first (so nothing is uninitialised) it is a race.
  std::string ptx = block_sum("0xffffffff", "");
  ptx.insert(ptx.find("  ld.param.u64 %rd1"),
             "  mov.u32 %r15, %tid.x;\n  setp.lt.u32 %p1, %r15, 4;\n  shl.b32 %r14, %r15, 2;\n"
             "  mov.u32 %r13, partial;\n  add.u32 %r13, %r13, %r14;\n  @%p1 st.shared.u32 [%r13], 0;\n"
             "  bar.sync 0;\n");
  o = run_sum(ptx);
  REQUIRE_FAULT(o.r, FaultKind::SharedRace);
  // bar.warp.sync is not enough: the partials come from other warps.
  o = run_sum(block_sum("0xffffffff", "  bar.warp.sync 0xffffffff;"));
  REQUIRE(!o.r.ok);
}

TEST_CASE("mutant: a wrong shuffle mask is caught") {
  Out o = run_sum(block_sum("0x0000ffff", "  bar.sync 0;"));
  REQUIRE_FAULT(o.r, FaultKind::NotConverged);
  o = run_sum(block_sum("0xfffffffe", "  bar.sync 0;"));
  REQUIRE_FAULT(o.r, FaultKind::NotConverged);
}

TEST_CASE("mutant: a butterfly that skips a step gives a wrong sum") {
  Out o = run_sum(block_sum("0xffffffff", "  bar.sync 0;", {8, 4, 2, 1}));
  REQUIRE_RUN(o.r);
  REQUIRE(o.sum != kWant);
}
