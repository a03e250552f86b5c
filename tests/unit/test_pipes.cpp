// asm/pipes.h: the pipe of each overload, and sync operands in every
// spelling the corpora use.
#include <catch2/catch.hpp>

#include <string>

#include "frontend.h"
#include "ir.h"
#include "pipes.h"

using namespace ptoas;

namespace {

struct Parsed {
  SourceFile src;
  Module m;
  explicit Parsed(const std::string& body)
      : src("t.pto", "module {\n  func.func @k(%x: !pto.ptr<f32>, %i: index) attributes {pto.entry} {\n"
                     "    %c0 = arith.constant 0 : index\n    %c16 = arith.constant 16 : index\n"
                     "    %c1 = arith.constant 1 : index\n"
                     "    %v = pto.make_tensor_view %x, shape = [%c16, %c16], strides = [%c16, %c1] : "
                     "!pto.tensor_view<16x16xf32>\n"
                     "    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c16] : "
                     "!pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<16x16xf32>\n" +
                         body + "    return\n  }\n}\n") {
    Diag d(&src);
    REQUIRE(run_frontend(src, FrontendOptions{}, m, d));
  }
  // The first instruction with op `op`.
  const Inst& first(Op op) const {
    for (const Inst& in : m.insts)
      if (in.op == op) return in;
    FAIL("no " << op_name(op));
    return m.insts[0];
  }
};

const char* kVec = "!pto.tile_buf<vec, 16x16xf32>";
const char* kAcc = "!pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, fractal=1024>";
const char* kMat = "!pto.tile_buf<mat, 16x16xf32, blayout=col_major, slayout=row_major>";
const char* kLeft = "!pto.tile_buf<left, 16x16xf32, blayout=row_major, slayout=row_major>";

std::string alloc(const char* name, const char* type) {
  return std::string("    %") + name + " = pto.alloc_tile : " + type + "\n";
}

}  // namespace

TEST_CASE("pipes: tstore runs on FIX from L0C and on MTE3 from UB") {
  Parsed vec(alloc("t", kVec) + "    pto.tstore ins(%t : " + kVec + ") outs(%p : !pto.partition_tensor_view<16x16xf32>)\n");
  CHECK(op_pipe(vec.m, vec.first(Op::TStore), Arch::A3) == Pipe::MTE3);
  Parsed acc(alloc("t", kAcc) + "    pto.tstore ins(%t : " + kAcc + ") outs(%p : !pto.partition_tensor_view<16x16xf32>)\n");
  CHECK(op_pipe(acc.m, acc.first(Op::TStore), Arch::A3) == Pipe::FIX);
}

TEST_CASE("pipes: tload is MTE2, vector ops V, tmov from L1 MTE1") {
  Parsed p(alloc("a", kVec) + alloc("b", kVec) + alloc("m", kMat) + alloc("l", kLeft) +
           "    pto.tload ins(%p : !pto.partition_tensor_view<16x16xf32>) outs(%a : " + kVec + ")\n" +
           "    pto.tadd ins(%a, %a : " + kVec + ", " + kVec + ") outs(%b : " + kVec + ")\n" +
           "    pto.tmov ins(%m : " + kMat + ") outs(%l : " + kLeft + ")\n");
  CHECK(op_pipe(p.m, p.first(Op::TLoad), Arch::A3) == Pipe::MTE2);
  CHECK(op_pipe(p.m, p.first(Op::TAdd), Arch::A5) == Pipe::V);
  CHECK(op_pipe(p.m, p.first(Op::TMov), Arch::A3) == Pipe::MTE1);
  CHECK(op_pipe(p.m, p.first(Op::Constant), Arch::A3) == Pipe::None);
}

TEST_CASE("pipes: sync operands in each spelling") {
  Parsed p("    pto.set_flag[\"PIPE_MTE2\", \"PIPE_V\", \"EVENT_ID3\"]\n"
           "    pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID3>]\n"
           "    pto.barrier #pto.pipe<PIPE_ALL>\n"
           "    pto.set_flag_dyn [#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %i]\n");
  SyncOp s;
  REQUIRE(decode_sync(p.m, p.first(Op::SetFlag), s));
  CHECK((s.kind == SyncOp::Kind::Set && s.src == Pipe::MTE2 && s.dst == Pipe::V && s.id == 3));
  REQUIRE(decode_sync(p.m, p.first(Op::WaitFlag), s));
  CHECK((s.kind == SyncOp::Kind::Wait && s.src == Pipe::MTE2 && s.dst == Pipe::V && s.id == 3));
  REQUIRE(decode_sync(p.m, p.first(Op::Barrier), s));
  CHECK((s.kind == SyncOp::Kind::Barrier && s.src == Pipe::All));
  REQUIRE(decode_sync(p.m, p.first(Op::SetFlagDyn), s));
  CHECK((s.id == -1 && s.dyn != kNone && s.dst == Pipe::MTE3));
  CHECK(pipe_name(Pipe::MTE1) == "PIPE_MTE1");
  CHECK(pipe_from_name("FIX") == Pipe::FIX);
}
