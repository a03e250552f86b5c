// MLIR's generic op form ("pto.X"(operands) <{props}> {attrs} : (types) ->
// results) for every op of the op table (asm/ops.def, through op_info): each
// op, spelled generically with a spread of operand lists, attributes, regions
// and results, is either accepted (and then prints and reads back to the same
// text) or refused with a located `t.pto:LINE:COL: error:`. Never a crash:
// issue 17 bug 3 was a SIGSEGV in the printer on "pto.subset"(...).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "diag.h"
#include "frontend.h"
#include "ir.h"
#include "ops.h"
#include "../located_diag.h"

using namespace ptoas;

namespace {

struct Outcome {
  bool ok = false;
  std::string ir, diags;
};

Outcome front(const std::string& text, const std::string& name = "t.pto") {
  SourceFile src(name, text);
  Diag d(&src);
  Module m;
  Outcome o;
  o.ok = run_frontend(src, FrontendOptions{}, m, d);
  o.diags = d.text();
  if (o.ok) o.ir = print_module(m);
  return o;
}

const std::string T = "!pto.tile_buf<vec, 4x32xf32>";
const std::string T1 = "!pto.tile_buf<vec, 1x32xf32>";
const std::string PV = "!pto.partition_tensor_view<4x32xf32>";

// A function with values of every kind in scope, then `stmt`.
std::string kernel(const std::string& stmt) {
  return "func.func @k(%n: index, %f: f32, %i: i32, %p: !pto.ptr<f32>) {\n"
         "  %c0 = arith.constant 0 : index\n"
         "  %c1 = arith.constant 1 : index\n"
         "  %c4 = arith.constant 4 : index\n"
         "  %c32 = arith.constant 32 : index\n"
         "  %t = pto.alloc_tile : " + T + "\n"
         "  %t1 = pto.alloc_tile : " + T1 + "\n"
         "  %tv = pto.make_tensor_view %p, shape = [%c4, %c32], strides = [%c32, %c1] : "
         "!pto.tensor_view<?x?xf32>\n"
         "  %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c4, %c32] : "
         "!pto.tensor_view<?x?xf32> -> " + PV + "\n"
         "  " + stmt + "\n"
         "  return\n"
         "}\n";
}

// Generic spellings of op `q` (quoted name): operand lists of every kind,
// properties, attributes, regions and results.
std::vector<std::string> generic_forms(const std::string& q) {
  return {
      q + "() : () -> ()",
      "%r = " + q + "() : () -> index",
      "%r = " + q + "() : () -> i64",
      q + "(%t, %t1) : (" + T + ", " + T1 + ") -> ()",
      q + "(%t, %t) <{operandSegmentSizes = array<i32: 1, 1>}> : (" + T + ", " + T + ") -> ()",
      q + "(%t, %t, %t) <{operandSegmentSizes = array<i32: 2, 1>}> : (" + T + ", " + T + ", " +
          T + ") -> ()",
      "%r = " + q + "(%t, %c0, %n) <{sizes = [1, 32]}> : (" + T + ", index, index) -> " + T1,
      "%r = " + q + "(%n, %n) : (index, index) -> index",
      "%r = " + q + "(%i, %i) {predicate = 2 : i64} : (i32, i32) -> i1",
      "%r = " + q + "(%f) : (f32) -> f32",
      "%r = " + q + "(%n) : (index) -> i32",
      q + "(%pv, %t) : (" + PV + ", " + T + ") -> ()",
      q + "(%t, %pv) : (" + T + ", " + PV + ") -> ()",
      "%r = " + q + "(%p, %n) : (!pto.ptr<f32>, index) -> !pto.ptr<f32>",
      "%r = " + q + "(%p, %c4, %c32, %c32, %c1) <{operandSegmentSizes = array<i32: 1, 2, 2>}> : "
          "(!pto.ptr<f32>, index, index, index, index) -> !pto.tensor_view<?x?xf32>",
      q + "(%c0, %c4, %c1) ({\n  ^bb0(%iv: index):\n    \"scf.yield\"() : () -> ()\n  }) : "
          "(index, index, index) -> ()",
      q + "(%f) ({\n  }) : (f32) -> ()",
      "%r:2 = " + q + "(%i) : (i32) -> (i32, i32)",
      q + "(%t) : (index) -> ()",             // operand type does not match its value
      q + "(%t, %t) : (" + T + ") -> ()",     // fewer types than operands
      q + "(%undefined) : (" + T + ") -> ()",  // an undefined value
  };
}

}  // namespace

TEST_CASE("generic form of every op: accepted and a print fixed point, or a located error",
          "[generic][frontend]") {
  size_t accepted = 0, refused = 0;
  for (unsigned i = 0; i < unsigned(Op::Count); ++i) {
    std::string q = "\"" + std::string(op_name(Op(i))) + "\"";
    for (const std::string& stmt : generic_forms(q)) {
      std::string text = kernel(stmt);
      INFO("input:\n" << text);
      Outcome a = front(text);
      INFO("diagnostics:\n" << a.diags);
      if (!a.ok) {
        ++refused;
        CHECK(ptoas_test::located_diag(a.diags, "t.pto", "error"));
        continue;
      }
      ++accepted;
      Outcome b = front(a.ir, "printed.pto");
      INFO("printed:\n" << a.ir << "\nre-parse diagnostics:\n" << b.diags);
      REQUIRE(b.ok);
      CHECK(b.ir == a.ir);
    }
  }
  // The loop must have exercised both outcomes (a table read wrongly would
  // refuse everything).
  CHECK(accepted > 0);
  CHECK(refused > 0);
}

TEST_CASE("generic pto.subset is refused with a located error (issue 17 bug 3)",
          "[generic][frontend]") {
  Outcome o = front(
      "func.func @sub(%n: index) {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %t = pto.alloc_tile : !pto.tile_buf<vec, 4x32xf32>\n"
      "  %s = \"pto.subset\"(%t, %c0, %n) <{sizes = [1, 32]}> : (!pto.tile_buf<vec, 4x32xf32>, "
      "index, index) -> !pto.tile_buf<vec, 1x32xf32>\n"
      "  return\n"
      "}\n");
  INFO(o.diags);
  CHECK_FALSE(o.ok);
  CHECK(o.diags.rfind("t.pto:4:8: error: the generic form of 'pto.subset' is not supported", 0) ==
        0);
}

TEST_CASE("generic form of a DPS op binds like its DPS spelling", "[generic][frontend]") {
  Outcome g = front(kernel("\"pto.tmov\"(%t, %t) <{operandSegmentSizes = array<i32: 1, 1>}> : (" +
                           T + ", " + T + ") -> ()"));
  Outcome d = front(kernel("pto.tmov ins(%t : " + T + ") outs(%t : " + T + ")"));
  INFO(g.diags << d.diags);
  REQUIRE(g.ok);
  REQUIRE(d.ok);
  CHECK(g.ir == d.ir);
}
