// The CCE CPU model (docs/cce_backend.md §5) through the runner: kernels in
// the form the emitter writes (kernels/*.cpp), compiled by g++ against the
// model's header, run block by block; their numbers compared with the
// reference interpreter on the equivalent .pto, their sync mistakes caught
// by the model's reports.
#include <catch2/catch.hpp>

#include <cstdlib>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cce_run.h"
#include "interp_harness.h"
#include "pto/model/scalar_types.hpp"

namespace {

using ptoas::Arch;
using ptoas::rt::Arg;

std::string read_file(const std::string& name) {
  std::ifstream f(std::string(PTOAS_SOURCE_DIR) + "/tests/cce_model/kernels/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The kernel with the lines tagged //@TAG dropped for each TAG in `drop`
// and the lines tagged //+TAG kept only for each TAG in `add`.
std::string variant(const std::string& text, const std::vector<std::string>& drop,
                    const std::vector<std::string>& add = {}) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    bool keep = true;
    for (auto& t : drop)
      if (line.find("//@" + t) != std::string::npos) keep = false;
    size_t plus = line.find("//+");
    if (plus != std::string::npos) {
      keep = false;
      for (auto& t : add)
        if (line.compare(plus + 3, std::string::npos, t) == 0) keep = true;
    }
    if (keep) out += line + "\n";
  }
  return out;
}

// The kernel as written (without its //+ lines).
std::string read_kernel(const std::string& name) { return variant(read_file(name), {}); }

Arg ptr(std::vector<float>& v) {
  Arg a;
  a.kind = Arg::Kind::Ptr;
  a.data = reinterpret_cast<uint8_t*>(v.data());
  a.bytes = v.size() * sizeof(float);
  return a;
}
Arg int_arg(int64_t i) {
  Arg a;
  a.kind = Arg::Kind::Int;
  a.i = i;
  return a;
}

std::vector<float> iota(size_t n, float scale, float bias) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(i % 97) * scale + bias;
  return v;
}

ptoas::rt::CceRunResult run(const std::string& cpp, const std::vector<Arg>& args, Arch arch) {
  ptoas::rt::CceRunOptions o;
  o.arch = arch;
  ptoas::rt::CceRunResult r = ptoas::rt::cce_run(cpp, args, o);
  if (!r.error.empty()) WARN("error: " << r.error);
  WARN("compile " << r.compile_s << " s, run " << r.run_s << " s");
  return r;
}

bool has_report(const ptoas::rt::CceRunResult& r, const std::string& a, const std::string& b = "",
                const std::string& c = "") {
  for (auto& s : r.reports)
    if (s.find(a) != std::string::npos && s.find(b) != std::string::npos &&
        s.find(c) != std::string::npos)
      return true;
  return false;
}

// The interpreter's vadd (the .pto the kernel stands for).
std::vector<float> interp_binary(const std::string& op, const std::vector<float>& x,
                                 const std::vector<float>& y, int R, int C) {
  ih::Kernel k;
  std::string T = ih::tile("vec", R, C, "f32");
  int a = k.buf(x), b = k.buf(y), o = k.buf(std::vector<float>(size_t(R * C)));
  k.load("%a", T, a, R, C);
  k.load("%b", T, b, R, C);
  k.alloc("%c", T);
  k.op(op + " ins(%a, %b : " + T + ", " + T + ") outs(%c : " + T + ")");
  if (op == "chain") {
  }
  k.store("%c", T, o, R, C);
  REQUIRE(k.run());
  return k.get<float>(o);
}

bool same_all(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!ih::same(a[i], b[i])) return false;
  return true;
}

}  // namespace

TEST_CASE("vadd with MTE2->V and V->MTE3 flags gives the interpreter's numbers", "[cce_model]") {
  auto x = iota(1024, 0.5f, -3), y = iota(1024, -0.25f, 7), out = std::vector<float>(1024);
  auto r = run(read_kernel("vadd.cpp"), {ptr(x), ptr(y), ptr(out)}, Arch::A3);
  REQUIRE(r.ok);
  CHECK(same_all(out, interp_binary("pto.tadd", x, y, 32, 32)));
}

TEST_CASE("vadd without the V->MTE3 wait: the store races the add", "[cce_model]") {
  auto x = iota(1024, 0.5f, -3), y = iota(1024, -0.25f, 7), out = std::vector<float>(1024, 0);
  auto r = run(variant(read_kernel("vadd.cpp"), {"WAIT_V_MTE3"}), {ptr(x), ptr(y), ptr(out)}, Arch::A3);
  REQUIRE_FALSE(r.ok);
  CHECK(has_report(r, "race: RAW on UB [8192, 12288): TSTORE (call #", "reads what TADD (call #"));
  CHECK(has_report(r, "flag: set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)", "pending"));
  // The adversarial scheduler ran the store first: the output is not the sum.
  CHECK_FALSE(same_all(out, interp_binary("pto.tadd", x, y, 32, 32)));
}

TEST_CASE("a wait no set releases is a deadlock", "[cce_model]") {
  std::vector<float> x(256, 1), out(256, 0);
  auto r = run(read_kernel("nowait_set.cpp"), {ptr(x), ptr(out)}, Arch::A3);
  REQUIRE_FALSE(r.ok);
  CHECK(has_report(r, "deadlock: PIPE_V is stuck at wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1)",
                   "no set_flag releases it"));
}

TEST_CASE("a second set of a pending flag is reported with PTOAS_CCE_STRICT_FLAGS", "[cce_model]") {
  auto x = iota(1024, 1, 0), y = iota(1024, 1, 1), out = std::vector<float>(1024);
  std::string k = variant(read_file("vadd.cpp"), {}, {"DOUBLE_SET"});
  // By default a flag counts its sets (SYNC_NOTES §1): the run passes.
  CHECK(run(k, {ptr(x), ptr(y), ptr(out)}, Arch::A3).ok);
  setenv("PTOAS_CCE_STRICT_FLAGS", "1", 1);
  auto r = run(k, {ptr(x), ptr(y), ptr(out)}, Arch::A3);
  unsetenv("PTOAS_CCE_STRICT_FLAGS");
  REQUIRE_FALSE(r.ok);
  CHECK(has_report(r, "flag: set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)", "may set the flag again"));
}

TEST_CASE("a loop reusing its tiles: correct back-edge flags pass, a missing one fails",
          "[cce_model]") {
  std::string k = read_kernel("loop.cpp");
  auto x = iota(1024, 0.75f, -5);
  std::vector<float> want(1024);
  for (size_t i = 0; i < 1024; ++i) want[i] = x[i] * 2.0f + 1.0f;
  {
    std::vector<float> out(1024, 0);
    auto r = run(k, {ptr(x), ptr(out), int_arg(4)}, Arch::A3);
    REQUIRE(r.ok);
    CHECK(same_all(out, want));
  }
  {
    std::vector<float> out(1024, 0);
    auto r = run(variant(k, {"BACK_EDGE"}), {ptr(x), ptr(out), int_arg(4)}, Arch::A3);
    REQUIRE_FALSE(r.ok);
    // The next iteration's TLOAD overwrites the input tile the TMULS reads.
    CHECK(has_report(r, "race: WAR on UB [0, 1024)", "TLOAD", "TMULS"));
  }
}

TEST_CASE("matmul chain Mat -> Left/Right -> Acc -> GM with correct flags", "[cce_model]") {
  auto a = iota(256, 0.125f, -1), b = iota(256, -0.0625f, 2);
  std::vector<float> out(256, 0), want(256, 0);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      double s = 0;
      for (int kk = 0; kk < 16; ++kk) s += double(a[i * 16 + kk]) * double(b[kk * 16 + j]);
      want[i * 16 + j] = float(s);
    }
  std::string k = read_kernel("matmul.cpp");
  auto r = run(k, {ptr(a), ptr(b), ptr(out)}, Arch::A3);
  REQUIRE(r.ok);
  for (int i = 0; i < 256; ++i) CHECK(out[i] == Approx(want[i]).epsilon(1e-5));
  // Without MTE1->M the matmul reads the Left/Right tiles before the moves.
  std::vector<float> out2(256, 0);
  auto r2 = run(variant(k, {"MTE1_M"}), {ptr(a), ptr(b), ptr(out2)}, Arch::A3);
  REQUIRE_FALSE(r2.ok);
  CHECK(has_report(r2, "race: RAW on L0", "TMATMUL", "TMOV"));
}

TEST_CASE("dependent vector ops: ordered on A5's in-order PIPE_V, a race on A3 without a barrier",
          "[cce_model]") {
  std::string k = read_kernel("vchain.cpp");
  auto x = iota(256, 0.5f, -2), y = iota(256, 0.25f, 1);
  std::vector<float> want(256);
  for (size_t i = 0; i < 256; ++i) {
    float c = x[i] + y[i];
    want[i] = c * c;
  }
  std::string nobar = variant(k, {"BARRIER_V"});
  {
    std::vector<float> out(256, 0);
    auto r = run(nobar, {ptr(x), ptr(y), ptr(out)}, Arch::A5);
    REQUIRE(r.ok);
    CHECK(same_all(out, want));
  }
  {
    std::vector<float> out(256, 0);
    auto r = run(nobar, {ptr(x), ptr(y), ptr(out)}, Arch::A3);
    REQUIRE_FALSE(r.ok);
    CHECK(has_report(r, "race: RAW on UB [2048, 3072)", "TMUL", "TADD"));
  }
  {
    std::vector<float> out(256, 0);
    auto r = run(k, {ptr(x), ptr(y), ptr(out)}, Arch::A3);
    REQUIRE(r.ok);
    CHECK(same_all(out, want));
  }
}

TEST_CASE("the runner returns g++'s errors and checks the argument count", "[cce_model]") {
  std::vector<float> x(16);
  auto r = run("#include \"pto/pto-inst.hpp\"\n__global__ AICORE void k(__gm__ float* p) { undefined_call(p); }\n",
               {ptr(x)}, Arch::A3);
  REQUIRE_FALSE(r.ok);
  CHECK(r.error.find("undefined_call") != std::string::npos);
  auto r2 = run("#include \"pto/pto-inst.hpp\"\n__global__ AICORE void k(__gm__ float* p) {}\n", {}, Arch::A3);
  REQUIRE_FALSE(r2.ok);
  CHECK(r2.error.find("takes 1 arguments, 0 given") != std::string::npos);
}

TEST_CASE("dynamic valid extents and a RoundMode attribute match the interpreter", "[cce_model]") {
  std::vector<float> x(256);
  for (size_t i = 0; i < 256; ++i) x[i] = float(int(i) - 128) * 0.37f;
  std::vector<int32_t> out(256, -7);
  Arg o;
  o.kind = Arg::Kind::Ptr;
  o.data = reinterpret_cast<uint8_t*>(out.data());
  o.bytes = out.size() * 4;
  auto r = run(read_kernel("dyn_cvt.cpp"), {ptr(x), o, int_arg(8), int_arg(12)}, Arch::A3);
  REQUIRE(r.ok);
  // The interpreter on the same op: an 8x12 window of rows of 16.
  ih::Kernel k;
  std::string F = ih::tile("vec", 16, 16, "f32", "valid=?x?"), I = ih::tile("vec", 16, 16, "i32", "valid=?x?");
  int a = k.buf(x), b = k.buf(std::vector<int32_t>(256, -7), "i32");
  k.load("%a", F, a, 8, 12, true, 16);
  k.alloc("%c", I, 8, 12);
  k.op("pto.tcvt ins(%a {rmode = #pto<round_mode FLOOR>} : " + F + ") outs(%c : " + I + ")");
  k.store("%c", I, b, 8, 12, 16);
  IH_RUN(k);
  CHECK(out == k.get<int32_t>(b));
  CHECK(out[0] == int32_t(std::floor(x[0])));
  CHECK(out[12] == -7);  // outside the valid columns: untouched
}

TEST_CASE("blocks: get_block_idx() selects each block's chunk; half tiles and scalars", "[cce_model]") {
  std::vector<uint16_t> in(1024), out(1024, 0);
  for (size_t i = 0; i < 1024; ++i) in[i] = pto::model::float_to_half_bits(float(i % 50) * 0.25f);
  Arg a, b;
  a.kind = b.kind = Arg::Kind::Ptr;
  a.data = reinterpret_cast<uint8_t*>(in.data());
  b.data = reinterpret_cast<uint8_t*>(out.data());
  a.bytes = b.bytes = 2048;
  ptoas::rt::CceRunOptions o;
  o.block_num = 4;
  auto r = ptoas::rt::cce_run(read_kernel("blocks.cpp"), {a, b}, o);
  INFO(r.error);
  REQUIRE(r.ok);
  for (size_t i = 0; i < 1024; ++i) CHECK(pto::model::half_bits_to_float(out[i]) == float(i % 50) * 0.25f + 0.5f);
}

TEST_CASE("the emitter's addc without sync: the model reports the missing flags", "[cce_model]") {
  std::vector<float> x(1024, 1), y(1024, 2), z(1024, 3), out(1024, 0);
  auto r = run(read_kernel("addc_nosync.cpp"), {ptr(x), ptr(y), ptr(z), ptr(out)}, Arch::A3);
  REQUIRE_FALSE(r.ok);
  CHECK(has_report(r, "race: RAW on UB [0, 4096): TADD (call #4, PIPE_V) reads what TLOAD (call #1, PIPE_MTE2)"));
  // taddc's two TADDs on one pipe with no pipe_barrier(PIPE_V) between them (A3).
  CHECK(has_report(r, "race: RAW on UB [12288, 16384): TADD (call #5, PIPE_V) reads what TADD (call #4, PIPE_V)"));
  CHECK(has_report(r, "TSTORE (call #6, PIPE_MTE3) reads what TADD (call #5, PIPE_V)"));
  // In program order the same kernel computes a + b + c, with the same reports.
  std::fill(out.begin(), out.end(), 0.0f);
  ptoas::rt::CceRunOptions o;
  o.schedule = ptoas::cce_model::Schedule::InOrder;
  auto r2 = ptoas::rt::cce_run(read_kernel("addc_nosync.cpp"), {ptr(x), ptr(y), ptr(z), ptr(out)}, o);
  auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  CHECK(sorted(r2.reports) == sorted(r.reports));
  CHECK(out == std::vector<float>(1024, 6.0f));
}

TEST_CASE("event ids outside 0..7 are reported", "[cce_model]") {
  auto r = run("#include \"pto/pto-inst.hpp\"\n__global__ AICORE void k(int32_t i) {\n"
               "  set_flag(PIPE_V, PIPE_MTE3, (event_t)(i));\n  wait_flag(PIPE_V, PIPE_MTE3, (event_t)(i));\n}\n",
               {int_arg(9)}, Arch::A3);
  REQUIRE_FALSE(r.ok);
  CHECK(has_report(r, "flag: set_flag (call #1): pipe or event id out of range", "id 9"));
}

TEST_CASE("a long loop runs in time linear in its trip count", "[cce_model]") {
  // 400 iterations x 11 calls: the one-op modules are parsed once, the
  // race history is pruned as the back-edge flags order it.
  std::string k = read_kernel("loop.cpp");
  const int n = 400;
  auto x = iota(size_t(n) * 256, 0.5f, 1);
  std::vector<float> out(x.size(), 0);
  auto r = run(k, {ptr(x), ptr(out), int_arg(n)}, Arch::A3);
  REQUIRE(r.ok);
  CHECK(r.run_s < 5.0);
  CHECK(out.back() == x.back() * 2.0f + 1.0f);
}

TEST_CASE("SetValidShape narrows what the next op sees", "[cce_model]") {
  auto x = iota(256, 1, 0);
  std::vector<float> out(256, -1);
  auto r = run(read_kernel("validshape.cpp"), {ptr(x), ptr(out), int_arg(5)}, Arch::A3);
  REQUIRE(r.ok);
  for (size_t i = 0; i < 256; ++i) CHECK(out[i] == (i < 5 * 16 ? x[i] : -1.0f));
}

namespace {
// A kernel body around `ops` on two 8x8 f32 vec tiles t (offset 0) and u
// (offset `u_off`), storing t to the only argument.
std::string small_kernel(const std::string& ops, int u_off) {
  return "#include \"pto/pto-inst.hpp\"\nusing namespace pto;\n"
         "__global__ AICORE void k(__gm__ float* p) {\n"
         "  using GT = GlobalTensor<float, pto::Shape<1, 1, 1, 8, 8>, pto::Stride<64, 64, 64, 8, 1>, pto::Layout::ND>;\n"
         "  GT g(p);\n"
         "  Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, 8, 8, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> t;\n"
         "  TASSIGN(t, 0);\n"
         "  Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor, 1, 64, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> u;\n"
         "  TASSIGN(u, " + std::to_string(u_off) + ");\n" + ops +
         "  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);\n  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);\n"
         "  TSTORE(g, t);\n}\n";
}
}  // namespace

TEST_CASE("TTRI(d, x) takes x for the diagonal operand, as the interpreter's pto.ttri ins(%x)", "[cce_model]") {
  std::vector<float> out(64, -1);
  auto r = run(small_kernel("  TTRI(t, int32_t(2));\n", 256), {ptr(out)}, Arch::A3);
  REQUIRE(r.ok);
  ih::Kernel k;
  std::string T = ih::tile("vec", 8, 8, "f32");
  int o = k.buf(std::vector<float>(64, -1));
  k.scalar("%d", "i32", "2");
  k.alloc("%t", T);
  k.op("pto.ttri ins(%d : i32) outs(%t : " + T + ")");
  k.store("%t", T, o, 8, 8);
  IH_RUN(k);
  CHECK(out == k.get<float>(o));
  CHECK(out[0 * 8 + 2] == 1.0f);  // j <= i + 2
  CHECK(out[0 * 8 + 3] == 0.0f);
}

TEST_CASE("TRESHAPE makes the destination name the source's memory (no data moves)", "[cce_model]") {
  // t is assigned offset 0, u 256; after TRESHAPE(t, u) t is u's storage:
  // the store of t reads what TEXPANDS wrote into u.
  std::vector<float> out(64, 0);
  auto r = run(small_kernel("  TEXPANDS(u, 1.0f);\n  pipe_barrier(PIPE_V);\n  TRESHAPE(t, u);\n", 256),
               {ptr(out)}, Arch::A3);
  REQUIRE(r.ok);
  CHECK(out == std::vector<float>(64, 1.0f));
}
