// encoders/loop_stride.h LoopStride: how a partition view's offsets
// move per iteration of a loop, from the offsets' arithmetic.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "frontend.h"
#include "ir.h"
#include "loop_stride.h"

using namespace ptoas;

namespace {

// A kernel with an outer loop %i and an inner loop %k (iter_arg %acc);
// `body` goes in the inner loop and may name %i, %k, %acc, %n and the
// view %tv (made before the loops).
struct Loops {
  SourceFile src;
  Module m;
  explicit Loops(const std::string& pre, const std::string& body)
      : src("t.pto", R"(module {
  func.func @k(%x: !pto.ptr<f32>, %n: index) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %tv = pto.make_tensor_view %x, shape = [%c64, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    scf.for %i = %c0 to %c4 step %c1 {
)" + pre + R"(      %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
)" + body + R"(        %nx = arith.addi %acc, %c16 : index
        scf.yield %nx : index
      }
    }
    return
  }
})") {
    Diag d(&src);
    REQUIRE(run_frontend(src, FrontendOptions{}, m, d));
  }
  ValueId value(std::string_view name) const {
    for (size_t v = 0; v < m.values.size(); ++v)
      if (m.str(m.values[v].name) == name) return ValueId(v);
    FAIL("no value %" << name);
    return kNone;
  }
  // The scf.for whose induction variable is %name.
  InstId loop(std::string_view name) const {
    for (size_t i = 0; i < m.insts.size(); ++i) {
      const Inst& in = m.insts[i];
      if (in.op == Op::For && m.region_arg(m.region(in, 0), 0) == value(name)) return InstId(i);
    }
    FAIL("no loop %" << name);
    return kNone;
  }
  bool coeffs(std::string_view view, std::string_view iv, std::vector<int64_t>& c) const {
    return cg::LoopStride(m, loop(iv)).view_coeffs(value(view), c);
  }
};

const std::string kPv = " : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>\n";

std::string part(const std::string& name, const std::string& r, const std::string& c) {
  return "        %" + name + " = pto.partition_view %tv, offsets = [%" + r + ", %" + c + "], sizes = [%c16, %c16]" + kPv;
}

}  // namespace

TEST_CASE("loop_stride: offsets that are constant multiples of the loop's variable", "[lower]") {
  Loops l("", R"(        %k16 = arith.muli %k, %c16 : index
        %i16 = arith.muli %c16, %i : index
        %k1 = arith.addi %k, %c1 : index
        %kk = arith.muli %k1, %c4 : index
        %d = arith.subi %kk, %k16 : index
        %kc = arith.index_cast %k16 : index to i64
        %kb = arith.index_cast %kc : i64 to index
)" + part("p", "k16", "i16") + part("q", "kk", "k") + part("s", "d", "c0") + part("t", "kb", "n"));
  std::vector<int64_t> c;
  REQUIRE(l.coeffs("p", "k", c));
  CHECK(c == std::vector<int64_t>{16, 0});  // %i does not change within %k's loop
  REQUIRE(l.coeffs("q", "k", c));
  CHECK(c == std::vector<int64_t>{4, 1});
  REQUIRE(l.coeffs("s", "k", c));
  CHECK(c == std::vector<int64_t>{-12, 0});
  REQUIRE(l.coeffs("t", "k", c));
  CHECK(c == std::vector<int64_t>{16, 0});
  // The outer loop: %k's values are not a function of %i.
  CHECK_FALSE(l.coeffs("p", "i", c));
}

TEST_CASE("loop_stride: what the loop's variable does not fix is refused", "[lower]") {
  Loops l("      %io = arith.muli %i, %c16 : index\n" + std::string("      %pre = pto.partition_view %tv, offsets = [%io, %c0], sizes = [%c16, %c16]") + kPv,
          R"(        %kd = arith.divui %k, %c4 : index
        %kn = arith.muli %k, %n : index
)" + part("div", "kd", "c0") + part("dyn", "kn", "c0") + part("carried", "acc", "c0") +
              part("fixed", "c16", "io"));
  std::vector<int64_t> c;
  CHECK_FALSE(l.coeffs("div", "k", c));      // a division
  CHECK_FALSE(l.coeffs("dyn", "k", c));      // a coefficient known only at run time
  CHECK_FALSE(l.coeffs("carried", "k", c));  // an iter_arg changes each iteration by what the body yields
  REQUIRE(l.coeffs("fixed", "k", c));        // made in the loop but from values it does not change
  CHECK(c == std::vector<int64_t>{0, 0});
  REQUIRE(l.coeffs("pre", "i", c));  // a view outside the inner loop, of the outer one
  CHECK(c == std::vector<int64_t>{16, 0});
  CHECK_FALSE(l.coeffs("tv", "k", c));  // not a partition view
  CHECK_FALSE(cg::LoopStride(l.m, kNone).view_coeffs(l.value("fixed"), c));  // no loop
  // One body gathered, asked about several views.
  cg::LoopStride k(l.m, l.loop("k"));
  CHECK(k.view_coeffs(l.value("fixed"), c));
  CHECK_FALSE(k.view_coeffs(l.value("div"), c));
  CHECK(c.empty());
}
