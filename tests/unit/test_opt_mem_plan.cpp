// opt/mem_plan.h: which tiles share memory and which must start zeroed.
#include <catch2/catch.hpp>

#include <string>

#include "frontend.h"
#include "ir.h"
#include "mem_plan.h"

using namespace ptoas;

namespace {

const char* kTile = "!pto.tile_buf<vec, 8x16xf32>";
const char* kView = "!pto.partition_tensor_view<8x16xf32>";
const char* kTv = "!pto.tensor_view<8x16xf32>";

std::string kernel(const std::string& body, const std::string& consts = "") {
  std::string head = R"(module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %n: index) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %xv = pto.make_tensor_view %x, shape = [%c8, %c16], strides = [%c16, %c1] : TV
    %yv = pto.make_tensor_view %y, shape = [%c8, %c16], strides = [%c16, %c1] : TV
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c16] : TV -> PV
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c16] : TV -> PV
)";
  std::string s = head + consts + body + "    return\n  }\n}\n";
  for (auto [from, to] : {std::pair<std::string, std::string>{"TV", kTv}, {"PV", kView}, {"T!", kTile}}) {
    for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
  }
  return s;
}

struct Planned {
  SourceFile src;
  Module m;
  opt::TilePlan plan;
  InstId fn = kNone;
  explicit Planned(const std::string& text) : src("t.pto", text) {
    Diag d(&src);
    REQUIRE(run_frontend(src, FrontendOptions{}, m, d));
    const Region& body = m.regions[m.body];
    fn = m.region_insts[body.inst_begin];
    plan = opt::plan_tiles(m, fn, true);
  }
  // The alloc_tile defining %name.
  InstId alloc(std::string_view name) const {
    for (size_t v = 0; v < m.values.size(); ++v)
      if (m.str(m.values[v].name) == name) return m.values[v].def;
    FAIL("no value %" << name);
    return kNone;
  }
};

}  // namespace

TEST_CASE("mem_plan: a tile loaded after another's last use takes its memory") {
  Planned p(kernel(R"(    %a = pto.alloc_tile : T!
    %b = pto.alloc_tile : T!
    pto.tload ins(%xp : PV) outs(%a : T!)
    pto.texp ins(%a : T!) outs(%a : T!)
    pto.tstore ins(%a : T!) outs(%yp : PV)
    pto.tload ins(%yp : PV) outs(%b : T!)
    pto.tstore ins(%b : T!) outs(%xp : PV)
)"));
  InstId a = p.alloc("a"), b = p.alloc("b");
  CHECK(p.plan.offset[a] == p.plan.offset[b]);
  CHECK(p.plan.shared == 1);
  CHECK(p.plan.bytes[0] == 512);
  CHECK(p.plan.unshared_bytes[0] == 1024);
  CHECK_FALSE(p.plan.needs_zero[a]);
  CHECK_FALSE(p.plan.needs_zero[b]);
}

TEST_CASE("mem_plan: a tile read before it is written keeps its own zeroed memory") {
  Planned p(kernel(R"(    %a = pto.alloc_tile : T!
    %b = pto.alloc_tile : T!
    pto.tload ins(%xp : PV) outs(%a : T!)
    pto.tstore ins(%a : T!) outs(%yp : PV)
    pto.texp ins(%b : T!) outs(%b : T!)
    pto.tstore ins(%b : T!) outs(%xp : PV)
)"));
  InstId a = p.alloc("a"), b = p.alloc("b");
  CHECK(p.plan.offset[a] != p.plan.offset[b]);
  CHECK(p.plan.needs_zero[b]);
  CHECK(p.plan.shared == 0);
}

TEST_CASE("mem_plan: a tile its first op wholly writes without reading it is not zeroed, and keeps its memory") {
  Planned p(kernel(R"(    %a = pto.alloc_tile : T!
    %b = pto.alloc_tile : T!
    %c = pto.alloc_tile : T!
    %d = pto.alloc_tile : T!
    pto.tload ins(%xp : PV) outs(%a : T!)
    pto.texp ins(%a : T!) outs(%b : T!)
    pto.tstore ins(%b : T!) outs(%yp : PV)
    pto.tmuls ins(%a, %f : T!, f32) outs(%c : T!)
    pto.tadd ins(%c, %d : T!, T!) outs(%d : T!)
    pto.tstore ins(%d : T!) outs(%xp : PV)
)", "    %f = arith.constant 2.0 : f32\n"));
  InstId a = p.alloc("a"), b = p.alloc("b"), c = p.alloc("c"), d = p.alloc("d");
  CHECK_FALSE(p.plan.needs_zero[b]);
  CHECK_FALSE(p.plan.needs_zero[c]);
  CHECK(p.plan.needs_zero[d]);  // tadd reads d before writing it
  // Only a tload's tile takes over dead tiles' memory: b's interval ends
  // before c's starts, yet c has memory of its own.
  CHECK(p.plan.offset[c] != p.plan.offset[b]);
  CHECK(p.plan.offset[b] != p.plan.offset[a]);
}

TEST_CASE("mem_plan: a partly valid tile, or a tmatmul whose operands a set_validshape may shrink, is zeroed") {
  const std::string L = "!pto.tile_buf<left, 16x16xf32, blayout=col_major, slayout=row_major>",
                    R = "!pto.tile_buf<right, 16x16xf32, blayout=row_major, slayout=col_major>",
                    A = "!pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, fractal=1024>";
  std::string mm = "    %ma = pto.alloc_tile : " + L + "\n    %mb = pto.alloc_tile : " + R +
                   "\n    %mc = pto.alloc_tile : " + A + "\n";
  std::string mul = "    pto.tmatmul ins(%ma, %mb : " + L + ", " + R + ") outs(%mc : " + A + ")\n";
  Planned p(kernel(R"(    %h = pto.alloc_tile : !pto.tile_buf<vec, 8x16xf32, valid=4x16>
    %b = pto.alloc_tile : !pto.tile_buf<vec, 8x16xf32, valid=4x16>
    pto.texp ins(%h : !pto.tile_buf<vec, 8x16xf32, valid=4x16>) outs(%b : !pto.tile_buf<vec, 8x16xf32, valid=4x16>)
)" + mm + "    pto.set_validshape %ma, %c8, %c16 : " + L + "\n" + mul));
  CHECK(p.plan.needs_zero[p.alloc("b")]);
  CHECK(p.plan.needs_zero[p.alloc("mc")]);
  Planned q(kernel(mm + mul));  // no set_validshape: C is all written
  CHECK_FALSE(q.plan.needs_zero[q.alloc("mc")]);
  CHECK(q.plan.needs_zero[q.alloc("ma")]);  // read first
}

TEST_CASE("mem_plan: overlapping tiles never share") {
  Planned p(kernel(R"(    %a = pto.alloc_tile : T!
    %b = pto.alloc_tile : T!
    pto.tload ins(%xp : PV) outs(%a : T!)
    pto.tload ins(%yp : PV) outs(%b : T!)
    pto.tadd ins(%a, %b : T!, T!) outs(%b : T!)
    pto.tstore ins(%b : T!) outs(%xp : PV)
)"));
  CHECK(p.plan.offset[p.alloc("a")] != p.plan.offset[p.alloc("b")]);
}

TEST_CASE("mem_plan: a tile allocated before a loop and used in it lives through the loop") {
  Planned p(kernel(R"(    %a = pto.alloc_tile : T!
    %b = pto.alloc_tile : T!
    pto.tload ins(%xp : PV) outs(%a : T!)
    scf.for %i = %c0 to %n step %c1 {
      pto.tadd ins(%a, %a : T!, T!) outs(%a : T!)
      %c = pto.alloc_tile : T!
      pto.tload ins(%yp : PV) outs(%c : T!)
      pto.tadd ins(%a, %c : T!, T!) outs(%a : T!)
    }
    pto.tstore ins(%a : T!) outs(%yp : PV)
    pto.tload ins(%xp : PV) outs(%b : T!)
    pto.tstore ins(%b : T!) outs(%yp : PV)
)"));
  InstId a = p.alloc("a"), b = p.alloc("b"), c = p.alloc("c");
  CHECK(p.plan.offset[a] != p.plan.offset[c]);
  // a and c are both dead when b is loaded: b takes one of their places.
  CHECK((p.plan.offset[b] == p.plan.offset[a] || p.plan.offset[b] == p.plan.offset[c]));
  CHECK(p.plan.shared == 1);
  CHECK(p.plan.needs_zero[a] == 0);
}

TEST_CASE("mem_plan: explicit addresses turn sharing off") {
  FrontendOptions o;
  o.level = Level::Level3;
  std::string text = kernel(R"(    %a0 = arith.constant 0 : i64
    %a = pto.alloc_tile addr = %a0 : T!
    %b = pto.alloc_tile addr = %a0 : T!
    %c = pto.alloc_tile addr = %a0 : T!
)");
  SourceFile src("t.pto", text);
  Module m;
  Diag d(&src);
  if (!run_frontend(src, o, m, d)) {
    WARN(d.text());
    return;
  }
  InstId fn = m.region_insts[m.regions[m.body].inst_begin];
  opt::TilePlan plan = opt::plan_tiles(m, fn, true);
  CHECK(plan.shared == 0);
}

TEST_CASE("mem_plan: NPU parameters align UB offsets to 256 bytes and report an overflow with the live tiles") {
  // 8x16 f32 = 512 bytes: consecutive offsets. Twenty live at once need
  // 10 KiB; with the capacity cut to eight tiles the ninth overflows.
  std::string body;
  for (int i = 0; i < 20; ++i) body += "    %t" + std::to_string(i) + " = pto.alloc_tile : T!\n";
  for (int i = 0; i < 20; ++i) body += "    pto.tload ins(%xp : PV) outs(%t" + std::to_string(i) + " : T!)\n";
  for (int i = 0; i < 20; ++i) body += "    pto.tstore ins(%t" + std::to_string(i) + " : T!) outs(%yp : PV)\n";
  Planned p(kernel(body));
  opt::PlanParams pp = opt::npu_plan_params(Arch::A3);
  CHECK(pp.capacity[unsigned(Loc::Vec)] == 192 * 1024);
  CHECK(pp.align[unsigned(Loc::Acc)] == 4096);
  opt::TilePlan ok = opt::plan_tiles(p.m, p.fn, true, &pp);
  CHECK(ok.over_loc == kNone);
  CHECK(ok.offset[p.alloc("t1")] == 512);
  pp.capacity[unsigned(Loc::Vec)] = 8 * 512;
  opt::TilePlan over = opt::plan_tiles(p.m, p.fn, true, &pp);
  CHECK(over.over_loc == unsigned(Loc::Vec));
  CHECK(over.over_tiles.size() == 9);
  CHECK(over.over_tiles.back() == p.alloc("t8"));
  CHECK(over.over_bytes == 20 * 512);
}
