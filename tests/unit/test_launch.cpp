// The block launcher (runtime/launch.cpp): scalar parsing by parameter type,
// binding by name, the checks made before a run (missing/unknown arguments,
// dtype mismatches, buffers smaller than the views, unpassable parameter
// types), output sizing from the view probe, and multi-block runs on the
// thread pool with deterministic error reporting.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ptort.hpp"

using namespace ptoas;
using namespace ptoas::rt;

namespace {

struct Kernel {
  std::unique_ptr<SourceFile> src;
  std::unique_ptr<Module> m;
  InstId fn = kNone;
  std::string diags;
};

Kernel load(const std::string& text, const std::string& fname = "") {
  Kernel k;
  k.src = std::make_unique<SourceFile>("k.pto", text);
  k.m = std::make_unique<Module>();
  Diag d(k.src.get());
  bool ok = run_frontend(*k.src, FrontendOptions{}, *k.m, d);
  k.diags = d.text();
  INFO(k.diags);
  REQUIRE(ok);
  Interpreter in(*k.m);
  std::string err;
  k.fn = in.find_function(fname, err);
  INFO(err);
  REQUIRE(k.fn != kNone);
  return k;
}

// Copies n f32 elements from a to c, 64 per block (block b: [64b, 64b+64)),
// the last block ragged. `scalars` adds parameters; `count` is the SSA name
// (index) of the element count.
std::string copy_kernel(const std::string& extra_params = "", const std::string& prologue = "",
                        const std::string& count = "%n") {
  return "module {\n"
         "  func.func @vcopy(%a: !pto.ptr<f32>, %c: !pto.ptr<f32>" +
         extra_params +
         ") attributes {pto.entry} {\n"
         "    %c0 = arith.constant 0 : index\n"
         "    %c1 = arith.constant 1 : index\n"
         "    %c64 = arith.constant 64 : index\n" +
         prologue +
         "    %bid64 = pto.get_block_idx\n"
         "    %bid = arith.index_cast %bid64 : i64 to index\n"
         "    %off = arith.muli %bid, %c64 : index\n"
         "    %rest = arith.subi " + count + ", %off : index\n"
         "    %len = arith.minsi %rest, %c64 : index\n"
         "    %tva = pto.make_tensor_view %a, shape = [%c1, " + count + "], strides = [" + count +
         ", %c1] : !pto.tensor_view<?x?xf32>\n"
         "    %tvc = pto.make_tensor_view %c, shape = [%c1, " + count + "], strides = [" + count +
         ", %c1] : !pto.tensor_view<?x?xf32>\n"
         "    %pa = pto.partition_view %tva, offsets = [%c0, %off], sizes = [%c1, %len] : "
         "!pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x?xf32>\n"
         "    %pc = pto.partition_view %tvc, offsets = [%c0, %off], sizes = [%c1, %len] : "
         "!pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x?xf32>\n"
         "    %t = pto.alloc_tile valid_col = %len : !pto.tile_buf<vec, 1x64xf32, valid=1x?>\n"
         "    pto.tload ins(%pa : !pto.partition_tensor_view<1x?xf32>) outs(%t : "
         "!pto.tile_buf<vec, 1x64xf32, valid=1x?>)\n"
         "    pto.tstore ins(%t : !pto.tile_buf<vec, 1x64xf32, valid=1x?>) outs(%pc : "
         "!pto.partition_tensor_view<1x?xf32>)\n"
         "    return\n"
         "  }\n"
         "}\n";
}

NpyArray f32_iota(int64_t n, float base = 1.0f) {
  NpyArray a;
  a.dtype = DType::F32;
  a.shape = {n};
  a.data.resize(size_t(n) * 4);
  for (int64_t i = 0; i < n; ++i) {
    float v = base + float(i);
    std::memcpy(&a.data[size_t(i) * 4], &v, 4);
  }
  return a;
}

float f32_at(const NpyArray& a, int64_t i) {
  float v;
  std::memcpy(&v, &a.data[size_t(i) * 4], 4);
  return v;
}

LaunchRequest request(const Kernel& k, std::vector<KernelArg> args, int64_t blocks = 1) {
  LaunchRequest r;
  r.module = k.m.get();
  r.fn = k.fn;
  r.args = std::move(args);
  r.blocks = blocks;
  return r;
}

bool has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

}  // namespace

TEST_CASE("launch: scalars parse by parameter type", "[launch]") {
  Arg a;
  std::string err;
  auto ok = [&](DType t, const char* s) {
    INFO(dtype_name(t) << " '" << s << "'");
    err.clear();
    bool r = parse_scalar(t, s, a, err);
    INFO(err);
    CHECK(r);
    return r;
  };
  auto bad = [&](DType t, const char* s, const char* msg) {
    INFO(dtype_name(t) << " '" << s << "'");
    err.clear();
    CHECK_FALSE(parse_scalar(t, s, a, err));
    CHECK(has(err, msg));
  };
  if (ok(DType::Index, "1024")) CHECK((a.kind == Arg::Kind::Int && a.i == 1024));
  if (ok(DType::Index, "-5")) CHECK(a.i == -5);
  if (ok(DType::I64, "0x10")) CHECK(a.i == 16);
  if (ok(DType::I64, "-9223372036854775808")) CHECK(a.i == INT64_MIN);
  bad(DType::I64, "9223372036854775808", "out of range");
  bad(DType::I64, "99999999999999999999999", "out of range");
  if (ok(DType::I32, "2147483647")) CHECK(a.i == 2147483647);
  if (ok(DType::I32, "-2147483648")) CHECK(a.i == -2147483648LL);
  bad(DType::I32, "2147483648", "out of range for i32");
  if (ok(DType::I32, "0xffffffff")) CHECK(a.i == -1);  // hex spells the bit pattern
  if (ok(DType::I8, "-128")) CHECK(a.i == -128);
  bad(DType::I8, "128", "out of range for i8");
  if (ok(DType::U8, "255")) CHECK(a.i == 255);
  bad(DType::U8, "256", "out of range");
  bad(DType::U8, "-1", "out of range");
  if (ok(DType::U32, "4294967295")) CHECK(a.i == 4294967295LL);
  if (ok(DType::U64, "18446744073709551615")) CHECK(a.i == -1);
  if (ok(DType::I16, "-32768")) CHECK(a.i == -32768);
  bad(DType::I16, "40000", "out of range");
  bad(DType::I32, "1.5", "not an integer");
  bad(DType::I32, "12abc", "not an integer");
  bad(DType::Index, "", "empty");
  bad(DType::Index, "ten", "not an integer");
  bad(DType::Index, "0x", "not an integer");
  bad(DType::Index, "-", "not an integer");
  if (ok(DType::I1, "true")) CHECK(a.i == 1);
  if (ok(DType::I1, "0")) CHECK(a.i == 0);
  bad(DType::I1, "yes", "not an i1 value");
  bad(DType::I1, "2", "not an i1 value");
  if (ok(DType::F32, "1.5")) CHECK((a.kind == Arg::Kind::Float && a.f == 1.5));
  if (ok(DType::F32, "-0x1p-3")) CHECK(a.f == -0.125);
  if (ok(DType::F32, "inf")) CHECK(std::isinf(a.f));
  if (ok(DType::F32, "nan")) CHECK(std::isnan(a.f));
  if (ok(DType::F64, "1e300")) CHECK(a.f == 1e300);
  bad(DType::F32, "1e39", "out of range for f32");
  bad(DType::F16, "70000", "out of range for f16");
  if (ok(DType::F16, "65504")) CHECK(a.f == 65504);
  if (ok(DType::BF16, "2.5")) CHECK(a.f == 2.5);
  bad(DType::F64, "1e999", "out of range");
  bad(DType::F32, "1.5x", "not a f32 value");
  bad(DType::F32, " 1.5", "not a f32 value");
  bad(DType::F32, "", "empty");
}

TEST_CASE("launch: parameters as the launcher sees them", "[launch]") {
  Kernel k = load(copy_kernel(", %n: index, %alpha: f32"));
  std::vector<ParamInfo> p = kernel_params(*k.m, k.fn);
  REQUIRE(p.size() == 4);
  CHECK(p[0].name == "a");
  CHECK(p[0].kind == ParamInfo::Kind::Ptr);
  CHECK(p[0].elem == DType::F32);
  CHECK(p[0].type_text == "!pto.ptr<f32>");
  CHECK(p[2].name == "n");
  CHECK(p[2].kind == ParamInfo::Kind::Scalar);
  CHECK(p[2].elem == DType::Index);
  CHECK(p[3].elem == DType::F32);
}

TEST_CASE("launch: copy over several blocks with a ragged last block", "[launch]") {
  Kernel k = load(copy_kernel(", %n: index"));
  for (unsigned threads : {0u, 1u, 3u}) {
    INFO("threads " << threads);
    NpyArray a = f32_iota(200), c;
    LaunchRequest r = request(k, {KernelArg::buffer("a", a), KernelArg::output("c", c),
                                  KernelArg::scalar("n", "200")},
                              4);
    r.threads = threads;
    std::string err;
    bool run_error = true;
    INFO(err);
    CHECK(launch(r, err, &run_error));
    INFO(err);
    REQUIRE(err.empty());
    CHECK_FALSE(run_error);
    // Sized from the view [1, n], zero-filled, f32.
    CHECK(c.dtype == DType::F32);
    CHECK(c.shape == std::vector<int64_t>{1, 200});
    REQUIRE(c.data.size() == 800);
    bool same = true;
    for (int64_t i = 0; i < 200; ++i) same &= f32_at(c, i) == float(i + 1);
    CHECK(same);
  }
}

TEST_CASE("launch: an existing buffer is updated in place and fewer blocks leave the rest", "[launch]") {
  Kernel k = load(copy_kernel(", %n: index"));
  NpyArray a = f32_iota(200), c = f32_iota(200, -1000.0f);
  std::string err;
  // Two blocks copy [0, 128) only.
  REQUIRE(launch(request(k, {KernelArg::buffer("a", a), KernelArg::buffer("c", c),
                             KernelArg::scalar("n", "200")},
                         2),
                 err));
  CHECK(f32_at(c, 0) == 1.0f);
  CHECK(f32_at(c, 127) == 128.0f);
  CHECK(f32_at(c, 128) == -1000.0f + 128);
  CHECK(f32_at(c, 199) == -1000.0f + 199);
}

TEST_CASE("launch: output sized by a shape that depends on scalars and the block count", "[launch]") {
  // The element count is rows * cols * block_num, rows an i32, cols an i64.
  std::string pro =
      "    %rows64 = arith.extsi %rows : i32 to i64\n"
      "    %rc64 = arith.muli %rows64, %cols : i64\n"
      "    %nb64 = pto.get_block_num\n"
      "    %tot64 = arith.muli %rc64, %nb64 : i64\n"
      "    %tot = arith.index_cast %tot64 : i64 to index\n";
  Kernel k = load(copy_kernel(", %rows: i32, %cols: i64", pro, "%tot"));
  NpyArray a = f32_iota(3 * 40 * 5), c;
  std::string err;
  REQUIRE(launch(request(k, {KernelArg::scalar("rows", "3"), KernelArg::scalar("cols", "40"),
                             KernelArg::buffer("a", a), KernelArg::output("c", c)},
                         5),
                 err));
  CHECK(c.shape == std::vector<int64_t>{1, 600});
  // Five blocks of 64 cover [0, 320); the rest stays zero.
  CHECK(f32_at(c, 319) == 320.0f);
  CHECK(f32_at(c, 320) == 0.0f);
  CHECK(f32_at(c, 599) == 0.0f);
}

TEST_CASE("launch: float and i1 scalars reach the kernel", "[launch]") {
  // n = fptosi(alpha) when flag, else nothing is copied.
  std::string k_text =
      "module {\n"
      "  func.func @k(%a: !pto.ptr<f32>, %c: !pto.ptr<f32>, %alpha: f32, %flag: i1, %h: f16) {\n"
      "    %c0 = arith.constant 0 : index\n"
      "    %c1 = arith.constant 1 : index\n"
      "    %n64 = arith.fptosi %alpha : f32 to i64\n"
      "    %n = arith.index_cast %n64 : i64 to index\n"
      "    %tva = pto.make_tensor_view %a, shape = [%c1, %n], strides = [%n, %c1] : !pto.tensor_view<?x?xf32>\n"
      "    %tvc = pto.make_tensor_view %c, shape = [%c1, %n], strides = [%n, %c1] : !pto.tensor_view<?x?xf32>\n"
      "    scf.if %flag {\n"
      "      %pa = pto.partition_view %tva, offsets = [%c0, %c0], sizes = [%c1, %n] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x?xf32>\n"
      "      %pc = pto.partition_view %tvc, offsets = [%c0, %c0], sizes = [%c1, %n] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x?xf32>\n"
      "      %t = pto.alloc_tile valid_col = %n : !pto.tile_buf<vec, 1x64xf32, valid=1x?>\n"
      "      pto.tload ins(%pa : !pto.partition_tensor_view<1x?xf32>) outs(%t : !pto.tile_buf<vec, 1x64xf32, valid=1x?>)\n"
      "      pto.tstore ins(%t : !pto.tile_buf<vec, 1x64xf32, valid=1x?>) outs(%pc : !pto.partition_tensor_view<1x?xf32>)\n"
      "    }\n"
      "    return\n"
      "  }\n"
      "}\n";
  Kernel k = load(k_text);
  for (const char* flag : {"true", "false"}) {
    NpyArray a = f32_iota(64), c;
    std::string err;
    INFO(flag);
    REQUIRE(launch(request(k, {KernelArg::buffer("a", a), KernelArg::output("c", c),
                               KernelArg::scalar("alpha", "10.75"), KernelArg::scalar("flag", flag),
                               KernelArg::scalar("h", "0.5")}),
                   err));
    CHECK(c.shape == std::vector<int64_t>{1, 10});
    CHECK(f32_at(c, 9) == (flag[0] == 't' ? 10.0f : 0.0f));
  }
}

TEST_CASE("launch: bad requests name the parameter", "[launch]") {
  Kernel k = load(copy_kernel(", %n: index"));
  NpyArray a = f32_iota(200), c;
  std::string err;
  bool run_error = true;

  // Missing argument.
  CHECK_FALSE(launch(request(k, {KernelArg::buffer("a", a), KernelArg::output("c", c)}), err, &run_error));
  CHECK(has(err, "missing argument for parameter %n (index)"));
  CHECK_FALSE(run_error);

  // Unknown argument (and the list of parameters).
  CHECK_FALSE(launch(request(k, {KernelArg::buffer("a", a), KernelArg::output("c", c),
                                 KernelArg::scalar("n", "200"), KernelArg::scalar("m", "1")}),
                     err));
  CHECK(has(err, "unknown argument 'm': @vcopy has parameters a, c, n"));

  // Given twice.
  CHECK_FALSE(launch(request(k, {KernelArg::buffer("a", a), KernelArg::output("c", c),
                                 KernelArg::scalar("n", "200"), KernelArg::scalar("n", "1")}),
                     err));
  CHECK(has(err, "parameter %n is given more than once"));

  // Dtype mismatch: i32 data for an f32 pointer.
  NpyArray ai = a;
  ai.dtype = DType::I32;
  CHECK_FALSE(launch(request(k, {KernelArg::buffer("a", ai), KernelArg::output("c", c),
                                 KernelArg::scalar("n", "200")}),
                     err));
  CHECK(has(err, "parameter %a is !pto.ptr<f32> but the array's dtype is '<i4' (i32); expected '<f4'"));

  // Too small for the views.
  CHECK_FALSE(launch(request(k, {KernelArg::buffer("a", a), KernelArg::output("c", c),
                                 KernelArg::scalar("n", "300")},
                         5),
                     err));
  CHECK(has(err, "the array for parameter %a is too small: the kernel's views reach 300 elements"));
  CHECK(has(err, "holds 200"));

  // A scalar that doesn't parse.
  CHECK_FALSE(launch(request(k, {KernelArg::buffer("a", a), KernelArg::output("c", c),
                                 KernelArg::scalar("n", "2x00")}),
                     err));
  CHECK(has(err, "parameter %n: '2x00' is not an integer"));

  // A value for a pointer, an array for a scalar.
  CHECK_FALSE(launch(request(k, {KernelArg::scalar("a", "1"), KernelArg::output("c", c),
                                 KernelArg::buffer("n", a)}),
                     err));
  CHECK(has(err, "parameter %a is a pointer (!pto.ptr<f32>): pass an array, not a value"));
  CHECK(has(err, "parameter %n is a scalar (index): pass a value, not an array"));
  // Several problems: one line each.
  CHECK(has(err, "\n"));

  // Zero blocks.
  CHECK_FALSE(launch(request(k, {KernelArg::buffer("a", a), KernelArg::output("c", c),
                                 KernelArg::scalar("n", "200")},
                         0),
                     err));
  CHECK(has(err, "block count"));

  // No module.
  LaunchRequest none;
  CHECK_FALSE(launch(none, err));
}

TEST_CASE("launch: bf16 and u16 pointers take u2 arrays but f16 does not", "[launch]") {
  auto text = [](const char* t) {
    return std::string("module {\n  func.func @k(%a: !pto.ptr<") + t + ">, %c: !pto.ptr<" + t +
           ">) {\n"
           "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n"
           "    %c16 = arith.constant 16 : index\n"
           "    %va = pto.make_tensor_view %a, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?x" + t + ">\n"
           "    %vc = pto.make_tensor_view %c, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?x" + t + ">\n"
           "    %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?x" + t + "> -> !pto.partition_tensor_view<1x16x" + t + ">\n"
           "    %pc = pto.partition_view %vc, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?x" + t + "> -> !pto.partition_tensor_view<1x16x" + t + ">\n"
           "    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16x" + t + ">\n"
           "    pto.tload ins(%pa : !pto.partition_tensor_view<1x16x" + t + ">) outs(%t : !pto.tile_buf<vec, 1x16x" + t + ">)\n"
           "    pto.tstore ins(%t : !pto.tile_buf<vec, 1x16x" + t + ">) outs(%pc : !pto.partition_tensor_view<1x16x" + t + ">)\n"
           "    return\n  }\n}\n";
  };
  NpyArray u2;
  u2.dtype = DType::U16;
  u2.shape = {16};
  for (int i = 0; i < 16; ++i) {
    u2.data.push_back(uint8_t(i));
    u2.data.push_back(uint8_t(0x3f + i));
  }
  std::string err;
  for (const char* t : {"bf16", "ui16"}) {
    INFO(t);
    Kernel k = load(text(t));
    NpyArray c;
    REQUIRE(launch(request(k, {KernelArg::buffer("a", u2), KernelArg::output("c", c)}), err));
    CHECK(c.data == u2.data);  // bits travel unchanged
    CHECK(c.dtype == (t[0] == 'b' ? DType::BF16 : DType::U16));
    CHECK(npy_descr(c.dtype) == "<u2");
  }
  Kernel k = load(text("f16"));
  NpyArray c;
  CHECK_FALSE(launch(request(k, {KernelArg::buffer("a", u2), KernelArg::output("c", c)}), err));
  CHECK(has(err, "expected '<f2'"));
}

TEST_CASE("launch: parameters that cannot be passed and outputs that cannot be sized", "[launch]") {
  std::string err;
  Kernel tk = load(
      "module {\n  func.func @k(%t: !pto.tile_buf<vec, 16x16xf32>) {\n    return\n  }\n}\n");
  CHECK_FALSE(launch(request(tk, {}), err));
  CHECK(has(err, "parameter %t has type !pto.tile_buf<vec, 16x16xf32>, which cannot be passed"));

  Kernel nv = load("module {\n  func.func @k(%p: !pto.ptr<f32>) {\n    return\n  }\n}\n");
  NpyArray c;
  CHECK_FALSE(launch(request(nv, {KernelArg::output("p", c)}), err));
  CHECK(has(err, "cannot size the output for parameter %p"));
  // An input the kernel never views needs no size.
  NpyArray a = f32_iota(1);
  CHECK(launch(request(nv, {KernelArg::buffer("p", a)}), err));
}

TEST_CASE("launch: a runtime error is located and names the lowest failing block", "[launch]") {
  // Each block copies 64 elements at 64*b from a view of n elements; with
  // n = 130 and 8 blocks, blocks 3.. start past the end. The probe catches
  // that before any block runs.
  Kernel k = load(copy_kernel(", %n: index"));
  NpyArray a = f32_iota(1000), c = f32_iota(1000);
  std::string err;
  bool run_error = false;
  CHECK_FALSE(launch(request(k, {KernelArg::buffer("a", a), KernelArg::buffer("c", c),
                                 KernelArg::scalar("n", "130")},
                         8),
                     err, &run_error));
  CHECK(run_error);
  CHECK(has(err, "k.pto:"));
  CHECK(has(err, "runtime error"));

  // The probe runs no tile op. With a tile of fixed valid shape 1x64, only
  // the ragged block 15 (40 elements) fails its tload; with a 1x32 tile
  // every block fails (the tload reads the 1x64 view's window, the tstore
  // cannot write a 1x32 region to it) and block 0 is the one reported. Same
  // message and block whatever the thread count.
  auto fixed_tile = [](const std::string& cols) {
    std::string t = copy_kernel(", %n: index");
    auto repl = [&](const std::string& from, const std::string& to) {
      for (size_t p = 0; (p = t.find(from, p)) != std::string::npos; p += to.size()) t.replace(p, from.size(), to);
    };
    repl("valid_col = %len ", "");
    repl(", valid=1x?>", ">");
    repl("1x64xf32", "1x" + cols + "xf32");
    return t;
  };
  struct Case {
    std::string cols, block, where;
  };
  for (const Case& cs : {Case{"64", "(block 15 of 16)", "k.pto:16:5: runtime error: tload"},
                         Case{"32", "(block 0 of 16)", "k.pto:17:5: runtime error: tstore"}}) {
    Kernel kn = load(fixed_tile(cs.cols));
    std::string first;
    for (unsigned threads : {1u, 4u, 8u, 4u, 8u}) {
      INFO("tile 1x" << cs.cols << ", threads " << threads);
      LaunchRequest r = request(kn, {KernelArg::buffer("a", a), KernelArg::buffer("c", c),
                                     KernelArg::scalar("n", "1000")},
                                16);
      r.threads = threads;
      run_error = false;
      REQUIRE_FALSE(launch(r, err, &run_error));
      CHECK(run_error);
      INFO(err);
      CHECK(has(err, cs.where));
      CHECK(has(err, cs.block));
      if (first.empty()) first = err;
      CHECK(err == first);
    }
  }
}

// The end of a probe test kernel: a 1 x 64 window of %a at column %off of
// a 1 x `width` view (%c0, %c1 and %c64 defined), then the return.
static std::string window_of_a(const std::string& width) {
  return "    %tva = pto.make_tensor_view %a, shape = [%c1, " + width + "], strides = [" + width +
         ", %c1] : !pto.tensor_view<?x?xf32>\n"
         "    %pa = pto.partition_view %tva, offsets = [%c0, %off], sizes = [%c1, %c64] : "
         "!pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x64xf32>\n"
         "    return\n"
         "  }\n"
         "}\n";
}

TEST_CASE("launch: the view probe runs the blocks in parallel with a serial probe's result", "[launch]") {
  // Block b views %c as rows(b) x 64 when b mod 3 = 2, else as 1 x 64
  // rows(b), rows(b) = (7b mod 5) + 1 (1, 3, 5, 2, 4, ...): the largest,
  // 5 x 64, first met at block 2 (blocks 7 and 12 reach as far, as 1 x 320:
  // merged in another order the shape could be 1 x 320).
  // And a 64-element window of
  // %a at max(64 (3 - b), %lo): with %lo = -1000, blocks 4 .. 15 fail
  // (their window starts before the view), and block 4 is reported.
  const std::string text =
      "module {\n"
      "  func.func @probe(%a: !pto.ptr<f32>, %c: !pto.ptr<f32>, %lo: index) attributes {pto.entry} {\n"
      "    %c0 = arith.constant 0 : index\n"
      "    %c1 = arith.constant 1 : index\n"
      "    %c3 = arith.constant 3 : index\n"
      "    %c5 = arith.constant 5 : index\n"
      "    %c7 = arith.constant 7 : index\n"
      "    %c64 = arith.constant 64 : index\n"
      "    %c4096 = arith.constant 4096 : index\n"
      "    %bid64 = pto.get_block_idx\n"
      "    %b = arith.index_cast %bid64 : i64 to index\n"
      "    %b7 = arith.muli %b, %c7 : index\n"
      "    %m = arith.remui %b7, %c5 : index\n"
      "    %rows = arith.addi %m, %c1 : index\n"
      "    %b3 = arith.remui %b, %c3 : index\n"
      "    %two = arith.constant 2 : index\n"
      "    %tall = arith.cmpi eq, %b3, %two : index\n"
      "    %flat = arith.muli %rows, %c64 : index\n"
      "    %r = arith.select %tall, %rows, %c1 : index\n"
      "    %w = arith.select %tall, %c64, %flat : index\n"
      "    %tvc = pto.make_tensor_view %c, shape = [%r, %w], strides = [%w, %c1] : !pto.tensor_view<?x?xf32>\n"
      "    %pc = pto.partition_view %tvc, offsets = [%c0, %c0], sizes = [%c1, %c64] : "
      "!pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x64xf32>\n"
      "    %d = arith.subi %c3, %b : index\n"
      "    %d64 = arith.muli %d, %c64 : index\n"
      "    %off = arith.maxsi %d64, %lo : index\n" +
      window_of_a("%c4096");
  Kernel k = load(text);
  Interpreter in(*k.m);
  auto args = [](int64_t lo) {
    std::vector<Arg> a(3);
    a[0].kind = a[1].kind = Arg::Kind::Ptr;
    a[2].i = lo;
    return a;
  };
  std::vector<ViewExtent> first;
  for (unsigned threads : {1u, 2u, 8u, 16u, 0u}) {
    INFO("threads " << threads);
    std::vector<ViewExtent> ext;
    std::string err;
    // %lo = 0: every block's %a view starts at or after element 0.
    REQUIRE(in.probe_views(k.fn, args(0), 16, ext, err, threads));
    REQUIRE(ext.size() == 3);
    CHECK(ext[1].seen);
    CHECK(ext[1].max_elems == 5 * 64);
    CHECK(ext[1].shape == std::vector<int64_t>{5, 64});
    CHECK(ext[0].max_elems == 4096);
    if (first.empty()) first = ext;
    for (size_t p = 0; p < ext.size(); ++p) {
      CHECK(ext[p].seen == first[p].seen);
      CHECK(ext[p].max_elems == first[p].max_elems);
      CHECK(ext[p].shape == first[p].shape);
      CHECK(ext[p].elem == first[p].elem);
    }
    ext.clear();
    CHECK_FALSE(in.probe_views(k.fn, args(-1000), 16, ext, err, threads));
    INFO(err);
    CHECK(has(err, "k.pto:27:"));
    CHECK(has(err, "runtime error: partition [-64, 0) exceeds dimension 1 of size 4096 (block 4 of 16)"));
  }
}

TEST_CASE("launch: a probe block after the failing one stops, as a serial probe never ran it", "[launch]") {
  // Block 4 fails (a window before the view) after a loop of 20000 steps;
  // blocks 5 .. 7 loop 2^60 times. With no time limit the probe still ends,
  // with block 4's error.
  const std::string text =
      "module {\n"
      "  func.func @spin(%a: !pto.ptr<f32>) attributes {pto.entry} {\n"
      "    %c0 = arith.constant 0 : index\n"
      "    %c1 = arith.constant 1 : index\n"
      "    %c4 = arith.constant 4 : index\n"
      "    %c64 = arith.constant 64 : index\n"
      "    %big = arith.constant 1152921504606846976 : index\n"
      "    %bid64 = pto.get_block_idx\n"
      "    %b = arith.index_cast %bid64 : i64 to index\n"
      "    %late = arith.cmpi ugt, %b, %c4 : index\n"
      "    %some = arith.constant 20000 : index\n"
      "    %n = arith.select %late, %big, %some : index\n"
      "    scf.for %i = %c0 to %n step %c1 {\n"
      "      %x = arith.addi %i, %c1 : index\n"
      "    }\n"
      "    %is4 = arith.cmpi eq, %b, %c4 : index\n"
      "    %neg = arith.constant -64 : index\n"
      "    %off = arith.select %is4, %neg, %c0 : index\n" +
      window_of_a("%c64");
  Kernel k = load(text);
  Interpreter in(*k.m);
  std::vector<Arg> args(1);
  args[0].kind = Arg::Kind::Ptr;
  for (unsigned threads : {1u, 4u, 8u}) {
    INFO("threads " << threads);
    std::vector<ViewExtent> ext;
    std::string err;
    CHECK_FALSE(in.probe_views(k.fn, args, 8, ext, err, threads));
    CHECK(has(err, "k.pto:20:"));
    CHECK(has(err, "(block 4 of 8)"));
  }
}
