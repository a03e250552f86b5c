// Every fault the interpreter reports, with its location: the PTX line,
// the entry, the block and thread, and the .pto line from .loc.
#include "harness.h"

using namespace ptxt;

namespace {

Result run1(const std::string& body, unsigned ntid = 32, unsigned grid = 1, size_t bytes = 256) {
  static std::vector<uint8_t> mem;
  mem.assign(bytes, 0);
  return run(kernel(".param .u64 pm", "  .reg .pred %p<4>;\n  .reg .b32 %r<12>;\n  .reg .f32 %f<4>;\n"
                                      "  .reg .b64 %rd<8>;\n  ld.param.u64 %rd1, [pm];\n  mov.u32 %r1, %tid.x;\n" +
                                          body + "\n  ret;",
                    ntid),
             {addr(mem.data())}, {Buffer{mem.data(), mem.size()}}, grid);
}

}  // namespace

TEST_CASE("global access out of bounds, with the faulting thread and block") {
  // Thread t of block b reads float t + 32 b: block 1 thread 31 is the
  // first past 256 bytes (64 floats) ... block 2 starts past the end.
  Result r = run1(R"(
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 32, %r1;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.f32 %f1, [%rd3];)",
                  32, 3);
  REQUIRE_FAULT(r, FaultKind::GlobalOutOfBounds);
  REQUIRE(r.fault.block[0] == 2);
  REQUIRE(r.fault.thread[0] == 0);
  REQUIRE(r.fault.line == 19);
  REQUIRE(r.fault.message.rfind("ptx:19:3: fault: global access out of bounds: read of 4 bytes at 0x", 0) == 0);
  REQUIRE(r.fault.message.find("(entry k, block (2,0,0), thread (0,0,0))") != std::string::npos);
  // An access that starts inside a buffer and runs past its end.
  r = run1("  ld.global.u32 %r2, [%rd1+248];", 32, 1, 250);
  REQUIRE_FAULT(r, FaultKind::GlobalOutOfBounds);
  REQUIRE(r.fault.detail.find("runs past its end") != std::string::npos);
}

TEST_CASE("misaligned vector access") {
  Result r = run1("  ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd1+4];");
  REQUIRE_FAULT(r, FaultKind::Misaligned);
  REQUIRE(r.fault.detail.find("16-byte access") != std::string::npos);
}

TEST_CASE("shared and local accesses out of bounds") {
  Result r = run1("  .shared .b32 s[8];\n  shl.b32 %r2, %r1, 2;\n  st.shared.u32 [%r2], %r1;");
  REQUIRE_FAULT(r, FaultKind::SharedOutOfBounds);
  REQUIRE(r.fault.thread[0] == 8);
  r = run1("  .local .b32 l[2];\n  st.local.u32 [l+8], %r1;");
  REQUIRE_FAULT(r, FaultKind::LocalOutOfBounds);
  r = run1("  cvta.to.shared.u64 %rd2, %rd1;");
  REQUIRE_FAULT(r, FaultKind::GlobalOutOfBounds);  // not a generic shared address
  r = run1("  mov.u64 %rd2, 0xfffe000000000000;\n  st.global.u32 [%rd2], %r1;");
  REQUIRE_FAULT(r, FaultKind::GlobalOutOfBounds);
  REQUIRE(r.fault.detail.find("generic shared/local address used as a global one") != std::string::npos);
}

TEST_CASE("shared-memory race between warps, in either order") {
  // Warp 1 writes what warp 0 read (read first), and the other way round.
  for (const char* who : {"0", "1"}) {
    Result r = run1(std::string(".shared .b32 s[4];\n  st.shared.u32 [s], 0;\n  bar.sync 0;\n"
                                "  mov.u32 %r5, %warpid;\n  setp.eq.u32 %p1, %r5, ") +
                        who + ";\n  @%p1 ld.shared.u32 %r3, [s];\n  bar.warp.sync 0xffffffff;\n"
                              "  @!%p1 st.shared.u32 [s], %r5;",
                    64);
    INFO(who);
    REQUIRE_FAULT(r, FaultKind::SharedRace);
    REQUIRE(r.fault.detail.find("with no barrier between them") != std::string::npos);
  }
  // Two warps writing the same byte.
  Result r = run1(".shared .b32 s[4];\n  mov.u32 %r5, %warpid;\n  st.shared.u32 [s], %r5;", 64);
  REQUIRE_FAULT(r, FaultKind::SharedRace);
  REQUIRE(r.fault.detail.find("(bar.sync orders warps)") != std::string::npos);
  // With a barrier between the phases there is none.
  r = run1(".shared .b32 s[4];\n  mov.u32 %r5, %warpid;\n  setp.eq.u32 %p1, %r5, 0;\n"
           "  @%p1 st.shared.u32 [s], 1;\n  bar.sync 0;\n  ld.shared.u32 %r3, [s];\n  bar.sync 0;\n"
           "  @!%p1 st.shared.u32 [s], %r3;",
           64);
  REQUIRE_RUN(r);  // the 32 lanes of warp 1 write one byte in one instruction, with the same value
}

TEST_CASE("lanes of one instruction writing one shared byte: same value allowed, different values a fault") {
  Result same = run1(".shared .b32 s[4];\n  st.shared.u32 [s], 7;\n  bar.sync 0;\n  ld.shared.u32 %r2, [s];");
  REQUIRE_RUN(same);
  Result diff = run1(".shared .b32 s[4];\n  st.shared.u32 [s], %r1;");
  REQUIRE_FAULT(diff, FaultKind::SharedWriteConflict);
}

TEST_CASE("read of shared memory never written in the block") {
  Result r = run1(".shared .b32 s[64];\n  shl.b32 %r2, %r1, 2;\n  mov.u32 %r3, s;\n  add.u32 %r3, %r3, %r2;\n"
                  "  setp.ne.u32 %p1, %r1, 5;\n  @%p1 st.shared.u32 [%r3], %r1;\n  bar.sync 0;\n"
                  "  ld.shared.u32 %r4, [%r3];");
  REQUIRE_FAULT(r, FaultKind::SharedUninit);
  REQUIRE(r.fault.thread[0] == 5);
  // A second block does not inherit the first block's writes.
  r = run1(".shared .b32 s[64];\n  mov.u32 %r5, %ctaid.x;\n  setp.eq.u32 %p1, %r5, 0;\n"
           "  @%p1 st.shared.u32 [s], 1;\n  bar.sync 0;\n  ld.shared.u32 %r4, [s];",
           32, 2);
  REQUIRE_FAULT(r, FaultKind::SharedUninit);
  REQUIRE(r.fault.block[0] == 1);
}

TEST_CASE("barrier deadlocks: a thread exits before the barrier, or warps wait at different barriers") {
  Result r = run1("  setp.eq.u32 %p1, %r1, 40;\n  @%p1 exit;\n  bar.sync 0;", 64);
  REQUIRE_FAULT(r, FaultKind::BarrierDeadlock);
  REQUIRE(r.fault.detail.find("63 of 64 threads arrived") != std::string::npos);
  REQUIRE(r.fault.detail.find("exited without reaching it") != std::string::npos);
  r = run1("  mov.u32 %r5, %warpid;\n  setp.eq.u32 %p1, %r5, 0;\n  @%p1 bar.sync 1;\n  @!%p1 bar.sync 2;", 64);
  REQUIRE_FAULT(r, FaultKind::BarrierDeadlock);
  REQUIRE(r.fault.detail.find("the others wait at another barrier") != std::string::npos);
  // A named barrier with a thread count: two warps of four.
  r = run1("  mov.u32 %r5, %warpid;\n  setp.lt.u32 %p1, %r5, 2;\n  @%p1 bar.sync 1, 64;\n  @!%p1 bar.sync 2, 64;", 128);
  REQUIRE_RUN(r);
  r = run1("  bar.sync 1, 48;", 64);
  REQUIRE_FAULT(r, FaultKind::BadLaunch);
}

TEST_CASE("a fault names the .pto line of the last .loc") {
  std::vector<uint32_t> mem(4);
  std::string ptx = R"(.version 7.0
.target sm_80
.address_size 64
.file 1 "kernels/softmax.pto"
.visible .entry k(.param .u64 p)
.reqntid 32
{
  .reg .b64 %rd<3>;
  .reg .b32 %r1;
  .loc 1 12 3
  ld.param.u64 %rd1, [p];
  .loc 1 17 5
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 64;
  add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";
  Result r = run(ptx, {addr(mem.data())}, {buf(mem)});
  REQUIRE_FAULT(r, FaultKind::GlobalOutOfBounds);
  REQUIRE(r.fault.pto_loc == "kernels/softmax.pto:17");
  REQUIRE(r.fault.message.find(", kernels/softmax.pto:17)") != std::string::npos);
  REQUIRE(r.fault.thread[0] == 1);
}
