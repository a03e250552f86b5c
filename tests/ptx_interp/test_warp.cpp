// Warp-level instructions: shfl.sync in every mode with clamps and
// segments, vote.sync, redux.sync, bar.warp.sync, activemask; and the
// convergence faults.
#include <random>

#include "harness.h"

using namespace ptxt;

namespace {

// Each lane: %a = a[lane], shfl with b = b[lane], c = c[lane], full mask;
// out[lane] = d, out[32 + lane] = p.
std::string shfl_kernel(const std::string& mode, const std::string& mask = "0xffffffff") {
  return kernel(".param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 po", R"(
  .reg .pred %p1;
  .reg .b32 %r<10>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [po];
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.u32 %r2, [%rd6];
  add.s64 %rd6, %rd2, %rd5;
  ld.global.u32 %r3, [%rd6];
  add.s64 %rd6, %rd3, %rd5;
  ld.global.u32 %r4, [%rd6];
  shfl.sync.)" + mode + R"(.b32 %r5|%p1, %r2, %r3, %r4, )" + mask + R"(;
  selp.u32 %r6, 1, 0, %p1;
  add.s64 %rd7, %rd4, %rd5;
  st.global.u32 [%rd7], %r5;
  st.global.u32 [%rd7+128], %r6;
  ret;
)");
}

// The ISA's shfl semantics, written out for the host.
void shfl_ref(int mode, const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d, uint32_t* p) {
  for (int l = 0; l < 32; ++l) {
    int bval = int(b[l] & 31), cval = int(c[l] & 31), seg = int((c[l] >> 8) & 31);
    int maxl = (l & seg) | (cval & ~seg), minl = l & seg;
    int j;
    bool ok;
    if (mode == 0) {
      j = l - bval;
      ok = j >= maxl;
    } else if (mode == 1) {
      j = l + bval;
      ok = j <= maxl;
    } else if (mode == 2) {
      j = l ^ bval;
      ok = j <= maxl;
    } else {
      j = minl | (bval & ~seg);
      ok = j <= maxl;
    }
    if (!ok) j = l;
    d[l] = a[j];
    p[l] = ok;
  }
}

}  // namespace

TEST_CASE("shfl.sync up/down/bfly/idx with clamps and segments match the ISA's semantics") {
  const char* modes[] = {"up", "down", "bfly", "idx"};
  std::mt19937 g(81);
  for (int mode = 0; mode < 4; ++mode)
    for (int trial = 0; trial < 24; ++trial) {
      std::vector<uint32_t> a(32), b(32), c(32), out(64);
      uint32_t bb = g() % 40;  // sometimes out of 0..31
      int width = 1 << (g() % 6);  // CUDA's width: segments of 1..32 lanes
      uint32_t cc = mode == 0 ? uint32_t((32 - width) << 8) : uint32_t(((32 - width) << 8) | 0x1f);
      if (trial % 5 == 4) cc = g() & 0x1f1f;  // arbitrary clamp/segment words
      for (int l = 0; l < 32; ++l) {
        a[l] = g();
        b[l] = trial % 3 == 2 ? g() : bb;  // per-lane sources too
        c[l] = cc;
      }
      Result r = run(shfl_kernel(modes[mode]), {addr(a.data()), addr(b.data()), addr(c.data()), addr(out.data())},
                     {buf(a), buf(b), buf(c), buf(out)});
      REQUIRE_RUN(r);
      uint32_t d[32], p[32];
      shfl_ref(mode, a.data(), b.data(), c.data(), d, p);
      for (int l = 0; l < 32; ++l) {
        INFO(modes[mode] << " lane " << l << " b=" << b[l] << " c=" << std::hex << c[l]);
        REQUIRE(out[l] == d[l]);
        REQUIRE(out[32 + l] == p[l]);
      }
    }
}

TEST_CASE("shfl.sync: a lane in the mask that does not execute it, or a lane outside it that does, is a fault") {
  std::vector<uint32_t> a(32), b(32, 1), c(32, 0x1f), out(64);
  // Lanes 16-31 execute with a mask of lanes 0-15 only.
  Result r = run(shfl_kernel("bfly", "0x0000ffff"), {addr(a.data()), addr(b.data()), addr(c.data()), addr(out.data())},
                 {buf(a), buf(b), buf(c), buf(out)});
  REQUIRE_FAULT(r, FaultKind::NotConverged);
  REQUIRE(r.fault.detail.find("lane 16 executes it but is not in the member mask 0x0000ffff") != std::string::npos);
  // Only lanes 0-15 execute (the others exited) with a full mask.
  std::string text = shfl_kernel("bfly");
  text.insert(text.find("  shfl.sync"), "  setp.ge.u32 %p1, %r1, 16;\n  @%p1 exit;\n");
  r = run(text, {addr(a.data()), addr(b.data()), addr(c.data()), addr(out.data())}, {buf(a), buf(b), buf(c), buf(out)});
  REQUIRE_FAULT(r, FaultKind::NotConverged);
  REQUIRE(r.fault.detail.find("lane 16 has exited") != std::string::npos);
  // Lanes 0-15 with mask 0xffff, reading a lane outside the mask (bfly 16).
  text = shfl_kernel("bfly", "0x0000ffff");
  text.insert(text.find("  shfl.sync"), "  setp.ge.u32 %p1, %r1, 16;\n  @%p1 exit;\n");
  std::vector<uint32_t> b16(32, 16);
  r = run(text, {addr(a.data()), addr(b16.data()), addr(c.data()), addr(out.data())}, {buf(a), buf(b16), buf(c), buf(out)});
  REQUIRE_FAULT(r, FaultKind::NotConverged);
  REQUIRE(r.fault.detail.find("reads lane 16, which does not take part") != std::string::npos);
  // The same with bfly 1 stays inside the half: fine.
  r = run(text, {addr(a.data()), addr(b.data()), addr(c.data()), addr(out.data())}, {buf(a), buf(b), buf(c), buf(out)});
  REQUIRE_RUN(r);
  for (int l = 0; l < 16; ++l) REQUIRE(out[l] == a[l ^ 1]);
}

TEST_CASE("shfl.sync in diverged halves, each with its own mask") {
  std::vector<uint32_t> out(32);
  std::string ptx = kernel(".param .u64 po", R"(
  .reg .pred %p1;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [po];
  mov.u32 %r1, %laneid;
  mul.lo.u32 %r2, %r1, 3;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra LOW;
  shfl.sync.idx.b32 %r3, %r2, 16, 0x1f, 0xffff0000;
  bra J;
LOW:
  shfl.sync.down.b32 %r3, %r2, 2, 0x0f, 0x0000ffff;
J:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
)");
  Result r = run(ptx, {addr(out.data())}, {buf(out)});
  REQUIRE_RUN(r);
  for (uint32_t l = 0; l < 32; ++l) REQUIRE(out[l] == (l < 16 ? (l + 2 <= 15 ? (l + 2) * 3 : l * 3) : 48));
}

TEST_CASE("vote.sync and redux.sync") {
  std::vector<uint32_t> out(32 * 8);
  std::string ptx = kernel(".param .u64 po", R"(
  .reg .pred %p<6>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [po];
  mov.u32 %r1, %laneid;
  mul.lo.u32 %r2, %r1, 7;
  rem.u32 %r2, %r2, 11;
  setp.gt.u32 %p1, %r2, 4;
  vote.sync.ballot.b32 %r3, %p1, 0xffffffff;
  vote.sync.any.pred %p2, %p1, 0xffffffff;
  vote.sync.all.pred %p3, %p1, 0xffffffff;
  setp.lt.u32 %p4, %r1, 40;
  vote.sync.uni.pred %p5, %p4, 0xffffffff;
  vote.sync.all.pred %p4, !%p4, 0xffffffff;
  selp.u32 %r4, 1, 0, %p2;
  selp.u32 %r5, 2, 0, %p3;
  selp.u32 %r6, 4, 0, %p5;
  selp.u32 %r7, 8, 0, %p4;
  or.b32 %r4, %r4, %r5;
  or.b32 %r4, %r4, %r6;
  or.b32 %r4, %r4, %r7;
  sub.s32 %r8, 5, %r2;
  redux.sync.add.u32 %r9, %r2, 0xffffffff;
  redux.sync.min.s32 %r10, %r8, 0xffffffff;
  redux.sync.max.u32 %r11, %r8, 0xffffffff;
  redux.sync.or.b32 %r12, %r2, 0xffffffff;
  redux.sync.xor.b32 %r13, %r1, 0xffffffff;
  redux.sync.and.b32 %r14, %r8, 0xffffffff;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r3, %r4, %r9, %r10};
  st.global.v4.u32 [%rd3+16], {%r11, %r12, %r13, %r14};
  ret;
)");
  Result r = run(ptx, {addr(out.data())}, {buf(out)});
  REQUIRE_RUN(r);
  uint32_t ballot = 0, sum = 0, orv = 0, xr = 0, andv = ~0u;
  int32_t mn = INT32_MAX;
  uint32_t mxu = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t v = l * 7 % 11;
    if (v > 4) ballot |= 1u << l;
    sum += v;
    orv |= v;
    xr ^= l;
    int32_t s = 5 - int32_t(v);
    mn = std::min(mn, s);
    mxu = std::max(mxu, uint32_t(s));
    andv &= uint32_t(s);
  }
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t* q = &out[8 * l];
    REQUIRE(q[0] == ballot);
    REQUIRE(q[1] == (1u | 0u | 4u | 0u));
    REQUIRE(q[2] == sum);
    REQUIRE(int32_t(q[3]) == mn);
    REQUIRE(q[4] == mxu);
    REQUIRE(q[5] == orv);
    REQUIRE(q[6] == xr);
    REQUIRE(q[7] == andv);
  }
}

TEST_CASE("bar.warp.sync orders lanes of a warp through shared memory, without it a lane-to-lane exchange races") {
  auto body = [](const std::string& sync) {
    return R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 sm[32];
  ld.param.u64 %rd1, [po];
  mov.u32 %r1, %laneid;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, sm;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
)" + sync + R"(
  xor.b32 %r5, %r2, 4;
  add.u32 %r6, %r3, %r5;
  ld.shared.u32 %r7, [%r6];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
)";
  };
  std::vector<uint32_t> out(32);
  Result ok = run(kernel(".param .u64 po", body("  bar.warp.sync 0xffffffff;")), {addr(out.data())}, {buf(out)});
  REQUIRE_RUN(ok);
  for (uint32_t l = 0; l < 32; ++l) REQUIRE(out[l] == (l ^ 1));
  Result bad = run(kernel(".param .u64 po", body("")), {addr(out.data())}, {buf(out)});
  REQUIRE_FAULT(bad, FaultKind::SharedRace);
  REQUIRE(bad.fault.detail.find("same warp: bar.warp.sync orders lanes") != std::string::npos);
  // bar.warp.sync against a mask the lanes do not match.
  Result part = run(kernel(".param .u64 po", body("  bar.warp.sync 0x0000ffff;")), {addr(out.data())}, {buf(out)});
  REQUIRE_FAULT(part, FaultKind::NotConverged);
}
