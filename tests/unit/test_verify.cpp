// Verifier rules (asm/verify_*.cpp): each bad input is rejected with the
// expected message at the expected line; the good variants pass.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "diag.h"
#include "frontend.h"
#include "ir.h"

using namespace ptoas;

namespace {

struct Run {
  bool ok = false;
  std::string diags;
};

Run run(const std::string& text, Arch arch = Arch::A3, Level level = Level::Level2,
        bool insert_sync = false) {
  FrontendOptions o;
  o.arch = arch;
  o.arch_from_cli = true;
  o.level = level;
  o.enable_insert_sync = insert_sync;
  SourceFile src("t.pto", text);
  Diag d(&src);
  Module m;
  Run r;
  r.ok = run_frontend(src, o, m, d);
  r.diags = d.text();
  return r;
}

// True when some diagnostic line is `t.pto:LINE:COL: error: ...substr...`.
bool has_error(const Run& r, int line, const std::string& substr) {
  std::istringstream in(r.diags);
  std::string l;
  std::string prefix = "t.pto:" + std::to_string(line) + ":";
  while (std::getline(in, l))
    if (l.rfind(prefix, 0) == 0 && l.find("error:") != std::string::npos &&
        l.find(substr) != std::string::npos)
      return true;
  return false;
}

#define EXPECT_ERROR(r, line, substr)                 \
  do {                                                \
    INFO("diagnostics:\n" << (r).diags);              \
    CHECK_FALSE((r).ok);                              \
    CHECK(has_error((r), (line), (substr)));          \
  } while (0)

#define EXPECT_OK(r)                                  \
  do {                                                \
    INFO("diagnostics:\n" << (r).diags);              \
    CHECK((r).ok);                                    \
  } while (0)

std::string tb(const std::string& loc, const std::string& dtype, int rows, int cols,
               const std::string& extra = "") {
  return "!pto.tile_buf<loc=" + loc + ", dtype=" + dtype + ", rows=" + std::to_string(rows) +
         ", cols=" + std::to_string(cols) + ", v_row=" + std::to_string(rows) +
         ", v_col=" + std::to_string(cols) +
         (extra.empty() ? ", blayout=row_major, slayout=none_box, fractal=512, pad=0" : extra) +
         ">";
}

const std::string F32 = tb("vec", "f32", 16, 16);
const std::string F16 = tb("vec", "f16", 16, 16);
const std::string U8 = tb("vec", "ui8", 16, 32);

// A kernel body wrapped in a module with one function (line 1: module,
// line 2: func, body from line 3).
std::string kernel(const std::string& body, const std::string& params = "") {
  return "module {\n  func.func @k(" + params + ") {\n" + body + "    return\n  }\n}\n";
}

std::string binop(const std::string& op, const std::string& ty_a, const std::string& ty_b,
                  const std::string& ty_d) {
  return "    %a = pto.alloc_tile : " + ty_a + "\n" +    // line 3
         "    %b = pto.alloc_tile : " + ty_b + "\n" +    // line 4
         "    %d = pto.alloc_tile : " + ty_d + "\n" +    // line 5
         "    pto." + op + " ins(%a, %b : " + ty_a + ", " + ty_b + ") outs(%d : " + ty_d +
         ")\n";  // line 6
}

}  // namespace

TEST_CASE("verify: elementwise op on a legal dtype passes", "[verify]") {
  EXPECT_OK(run(kernel(binop("tadd", F32, F32, F32))));
  EXPECT_OK(run(kernel(binop("tadd", U8, U8, U8)), Arch::A5));
}

TEST_CASE("verify: dtype not in the arch's mask", "[verify]") {
  Run r = run(kernel(binop("tadd", U8, U8, U8)), Arch::A3);
  EXPECT_ERROR(r, 6, "'pto.tadd' does not support element type ui8 on a3");
}

TEST_CASE("verify: operand count against the signature", "[verify]") {
  std::string body = "    %a = pto.alloc_tile : " + F32 + "\n" + "    %d = pto.alloc_tile : " + F32 +
                     "\n" + "    pto.tadd ins(%a : " + F32 + ") outs(%d : " + F32 + ")\n";
  EXPECT_ERROR(run(kernel(body)), 5, "'pto.tadd' expects 2 ins operands, got 1");
}

TEST_CASE("verify: elementwise sources need dst's element type", "[verify]") {
  Run r = run(kernel(binop("tadd", F32, F32, F16)));
  EXPECT_ERROR(r, 6, "to have dst's element type f16, got f32");
}

TEST_CASE("verify: elementwise sources need dst's valid shape", "[verify]") {
  std::string small = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=8, "
                      "blayout=row_major, slayout=none_box, fractal=512, pad=0>";
  Run r = run(kernel(binop("tmul", F32, small, F32)));
  EXPECT_ERROR(r, 6, "to have dst's valid shape 16x16, got 16x8");
}

TEST_CASE("verify: tile-scalar operand has the tile element type's class", "[verify]") {
  std::string body = "    %s = arith.constant 1 : i32\n" + std::string("    %a = pto.alloc_tile : ") +
                     F32 + "\n    %d = pto.alloc_tile : " + F32 + "\n" +
                     "    pto.tadds ins(%a, %s : " + F32 + ", i32) outs(%d : " + F32 + ")\n";
  EXPECT_ERROR(run(kernel(body)), 6, "scalar operand #1 to have the tile element type f32 (or another float width), got i32");
  // Another width of the same class is what 0.60's files write (tlrelu, tshls).
  std::string narrow = "    %s = arith.constant 1.0 : f16\n" + std::string("    %a = pto.alloc_tile : ") +
                       F32 + "\n    %d = pto.alloc_tile : " + F32 + "\n" +
                       "    pto.tadds ins(%a, %s : " + F32 + ", f16) outs(%d : " + F32 + ")\n";
  CHECK(run(kernel(narrow)).ok);
  std::string good = "    %s = arith.constant 1.0 : f32\n" + std::string("    %a = pto.alloc_tile : ") +
                     F32 + "\n    %d = pto.alloc_tile : " + F32 + "\n" +
                     "    pto.tadds ins(%a, %s : " + F32 + ", f32) outs(%d : " + F32 + ")\n";
  EXPECT_OK(run(kernel(good)));
}

TEST_CASE("verify: tload needs a GM view as its source", "[verify]") {
  std::string body = "    %a = pto.alloc_tile : " + F32 + "\n    %d = pto.alloc_tile : " + F32 +
                     "\n    pto.tload ins(%a : " + F32 + ") outs(%d : " + F32 + ")\n";
  EXPECT_ERROR(run(kernel(body)), 5, "'pto.tload' ins operand #0 must be a GM view");
}

TEST_CASE("verify: tstore view/tile element counts", "[verify]") {
  std::string t = "!pto.tile_buf<loc=vec, dtype=f32, rows=64, cols=64, v_row=32, v_col=32, "
                  "blayout=row_major, slayout=none_box, fractal=512, pad=0>";
  std::string body = "    %t = pto.alloc_tile : " + t + "\n" + "    pto.tstore ins(%t : " + t +
                     ") outs(%p : !pto.partition_tensor_view<64x64xf32>)\n";
  Run r = run(kernel(body, "%p: !pto.partition_tensor_view<64x64xf32>"));
  EXPECT_ERROR(r, 4, "'pto.tstore' op expects dst static element count (4096)");
}

TEST_CASE("verify: tile valid extent beyond the physical shape", "[verify]") {
  std::string t = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=32, v_col=16, "
                  "blayout=row_major, slayout=none_box, fractal=512, pad=0>";
  EXPECT_ERROR(run(kernel("    %t = pto.alloc_tile : " + t + "\n")), 3,
               "valid rows 32 must be within 0..16");
}

TEST_CASE("verify: tile fractal size", "[verify]") {
  std::string t = tb("vec", "f32", 16, 16, ", blayout=row_major, slayout=none_box, fractal=64, pad=0");
  EXPECT_ERROR(run(kernel("    %t = pto.alloc_tile : " + t + "\n")), 3,
               "unsupported s_fractal_size: 64, must be one of {32, 512, 1024}");
}

TEST_CASE("verify: row_major none_box tiles need 32-byte rows", "[verify]") {
  std::string t = tb("vec", "f32", 16, 4);
  EXPECT_ERROR(run(kernel("    %t = pto.alloc_tile : " + t + "\n")), 3,
               "'pto.alloc_tile' op expects result row-major none_box tile row byte size "
               "(cols * sizeof(dtype)) to be 32-byte aligned, but got 16 bytes");
  // A 1-row vector is exempt (the 0.27 corpus has such tiles).
  EXPECT_OK(run(kernel("    %t = pto.alloc_tile : " + tb("vec", "f16", 1, 8) + "\n")));
  // Packed fp4 pairs need 16 bytes.
  EXPECT_OK(run(kernel("    %t = pto.alloc_tile : " + tb("vec", "!pto.f4E2M1x2", 16, 16) + "\n"),
                Arch::A5));
  // Only allocations: a parameter's type is not an allocation (0.60).
  EXPECT_OK(run(kernel("", "%t: " + t)));
}

TEST_CASE("verify: boxed alloc_tile rows are whole inner boxes outside vec", "[verify]") {
  std::string mat = tb("mat", "f32", 8, 8, ", blayout=col_major, slayout=row_major, fractal=512, pad=0");
  EXPECT_ERROR(run(kernel("    %t = pto.alloc_tile : " + mat + "\n")), 3,
               "'pto.alloc_tile' op expects result boxed tile rows to be a multiple of innerRows (16), but got 8");
  std::string vec = tb("vec", "f32", 8, 8, ", blayout=col_major, slayout=row_major, fractal=512, pad=0");
  EXPECT_OK(run(kernel("    %t = pto.alloc_tile : " + vec + "\n")));
}

TEST_CASE("verify: tile bytes must fit the arch's buffer", "[verify]") {
  std::string t = tb("vec", "f32", 256, 256);  // 256 KiB
  EXPECT_ERROR(run(kernel("    %t = pto.alloc_tile : " + t + "\n"), Arch::A3), 3,
               "more than the 192 KiB of vec memory on a3");
  EXPECT_OK(run(kernel("    %t = pto.alloc_tile : " + t + "\n"), Arch::A5));
}

TEST_CASE("verify: entry function must return void", "[verify]") {
  std::string src =
      "module {\n"
      "  func.func @kernel(%arg0: i32) -> i32 attributes {pto.entry} {\n"
      "    return %arg0 : i32\n"
      "  }\n"
      "  func.func private @helper() {\n"
      "    return\n"
      "  }\n"
      "}\n";
  EXPECT_ERROR(run(src), 2, "PTO entry functions must return void");
  // 0.60: no implicit entry; a lone unmarked function may return a value.
  std::string single =
      "module {\n  func.func @kernel(%arg0: i32) -> i32 {\n    return %arg0 : i32\n  }\n}\n";
  EXPECT_OK(run(single));
  for (const char* attr : {"pto.kernel", "pto.aicore", "hacc.entry"}) {
    std::string marked = "module {\n  func.func @kernel(%arg0: i32) -> i32 attributes {" +
                         std::string(attr) + "} {\n    return %arg0 : i32\n  }\n}\n";
    EXPECT_ERROR(run(marked), 2, "PTO entry functions must return void");
  }
  EXPECT_ERROR(run("module {\n  func.func private @d() attributes {pto.entry}\n}\n"), 2,
               "only valid on function definitions");
}

TEST_CASE("verify: direct recursion", "[verify]") {
  std::string src =
      "module {\n"
      "  func.func @kernel(%arg0: i32) attributes {pto.entry} {\n"
      "    func.call @kernel(%arg0) : (i32) -> ()\n"
      "    return\n"
      "  }\n"
      "}\n";
  EXPECT_ERROR(run(src), 3, "recursive function calls are not supported");
}

TEST_CASE("verify: indirect recursion", "[verify]") {
  std::string src =
      "module {\n"
      "  func.func @a() {\n"
      "    func.call @b() : () -> ()\n"
      "    return\n"
      "  }\n"
      "  func.func @b() {\n"
      "    func.call @a() : () -> ()\n"
      "    return\n"
      "  }\n"
      "}\n";
  Run r = run(src);
  INFO(r.diags);
  CHECK_FALSE(r.ok);
  CHECK((has_error(r, 3, "recursive function calls") || has_error(r, 7, "recursive function calls")));
}

TEST_CASE("verify: call to an undefined function", "[verify]") {
  EXPECT_ERROR(run(kernel("    func.call @nope() : () -> ()\n")), 3,
               "references undefined function '@nope'");
}

TEST_CASE("verify: call arity", "[verify]") {
  std::string src =
      "module {\n"
      "  func.func @h(%x: i32) {\n"
      "    return\n"
      "  }\n"
      "  func.func @k(%x: i32) attributes {pto.entry} {\n"
      "    func.call @h(%x, %x) : (i32, i32) -> ()\n"
      "    return\n"
      "  }\n"
      "}\n";
  EXPECT_ERROR(run(src), 6, "passes 2 arguments, the function takes 1");
}

TEST_CASE("verify: return arity", "[verify]") {
  std::string src =
      "module {\n"
      "  func.func @h(%x: i32) -> i32 {\n"
      "    return\n"
      "  }\n"
      "  func.func @k() attributes {pto.entry} {\n"
      "    return\n"
      "  }\n"
      "}\n";
  EXPECT_ERROR(run(src), 3, "'func.return' returns 0 values");
}

TEST_CASE("verify: scf.for bounds must be index or integer", "[verify]") {
  std::string body =
      "    %c0 = arith.constant 0.0 : f32\n"
      "    %c1 = arith.constant 1 : index\n"
      "    scf.for %i = %c0 to %c1 step %c1 {\n"
      "    }\n";
  EXPECT_ERROR(run(kernel(body)), 5, "loop bounds and step to be index or integer");
}

TEST_CASE("verify: scf.if condition must be i1", "[verify]") {
  std::string body =
      "    %c = arith.constant 1 : i32\n"
      "    scf.if %c {\n"
      "    }\n";
  EXPECT_ERROR(run(kernel(body)), 4, "'scf.if' expects an i1 condition, got i32");
}

TEST_CASE("verify: scf.yield count matches the parent's results", "[verify]") {
  std::string body =
      "    %c = arith.constant true\n"
      "    %a = arith.constant 1 : i64\n"
      "    %r = scf.if %c -> (i64) {\n"
      "      scf.yield %a, %a : i64, i64\n"
      "    } else {\n"
      "      scf.yield %a : i64\n"
      "    }\n";
  EXPECT_ERROR(run(kernel(body)), 6, "'scf.yield' yields 2 values but 'scf.if' expects 1");
}

TEST_CASE("verify: level3 requires alloc_tile addr", "[verify]") {
  std::string body = "    %t = pto.alloc_tile : " + F16 + "\n";
  EXPECT_ERROR(run(kernel(body), Arch::A5, Level::Level3), 3,
               "'pto.alloc_tile' op requires 'addr' operand when --pto-level=level3");
  std::string with_addr = "    %a0 = arith.constant 0 : i64\n    %t = pto.alloc_tile addr = %a0 : " +
                          F16 + "\n";
  EXPECT_OK(run(kernel(with_addr), Arch::A5, Level::Level3));
  EXPECT_ERROR(run(kernel(with_addr), Arch::A5, Level::Level2), 4,
               "'addr' operand is only supported when --pto-level=level3");
}

TEST_CASE("verify: pto.tassign level and insert-sync gating", "[verify]") {
  std::string body = "    %a0 = arith.constant 0 : i64\n    %t = pto.alloc_tile addr = %a0 : " + F16 +
                     "\n    %t1 = pto.tassign %t, %a0 : " + F16 + " -> " + F16 + "\n";
  EXPECT_OK(run(kernel(body), Arch::A5, Level::Level3));
  EXPECT_ERROR(run(kernel(body), Arch::A5, Level::Level3, true), 5,
               "pto.tassign requires --enable-insert-sync to be disabled");
  std::string lv2 = "    %a0 = arith.constant 0 : i64\n    %t = pto.alloc_tile : " + F16 +
                    "\n    %t1 = pto.tassign %t, %a0 : " + F16 + " -> " + F16 + "\n";
  EXPECT_ERROR(run(kernel(lv2), Arch::A5, Level::Level2), 5,
               "pto.tassign is only supported when --pto-level=level3.");
}

TEST_CASE("verify: thistogram only on A5", "[verify]") {
  std::string s = tb("vec", "ui16", 8, 32), i = tb("vec", "ui8", 8, 1, ", blayout=col_major, slayout=none_box, fractal=512, pad=0"),
              d = tb("vec", "ui32", 8, 256);
  std::string body = "    %s = pto.alloc_tile : " + s + "\n    %i = pto.alloc_tile : " + i +
                     "\n    %d = pto.alloc_tile : " + d + "\n    pto.thistogram ins(%s, %i : " + s +
                     ", " + i + ") outs(%d : " + d + ")\n";
  EXPECT_ERROR(run(kernel(body), Arch::A3), 6, "'pto.thistogram' op thistogram is only supported on A5");
  EXPECT_OK(run(kernel(body), Arch::A5));
}

TEST_CASE("verify: tget_scale_addr dst in scaling", "[verify]") {
  std::string s = tb("left", "f8E4M3", 1, 128, ", blayout=col_major, slayout=row_major, fractal=512, pad=0");
  std::string d = tb("vec", "f16", 1, 128);
  std::string body = "    %s = pto.alloc_tile : " + s + "\n    %d = pto.alloc_tile : " + d +
                     "\n    pto.tget_scale_addr ins(%s : " + s + ") outs(%d : " + d + ")\n";
  EXPECT_ERROR(run(kernel(body), Arch::A5), 5,
               "'pto.tget_scale_addr' op expects dst to be in the scaling address space");
}

TEST_CASE("verify: tinsert A2/A3 element types and A5 loc pairs", "[verify]") {
  std::string acc = tb("acc", "f32", 32, 32, ", blayout=col_major, slayout=row_major, fractal=1024, pad=0");
  std::string mat32 = tb("mat", "f32", 32, 32, ", blayout=col_major, slayout=row_major, fractal=512, pad=0");
  std::string body = "    %c0 = arith.constant 0 : index\n    %s = pto.alloc_tile : " + acc +
                     "\n    %d = pto.alloc_tile : " + mat32 + "\n    pto.tinsert ins(%s, %c0, %c0 : " +
                     acc + ", index, index) outs(%d : " + mat32 + ")\n";
  EXPECT_ERROR(run(kernel(body), Arch::A3), 6,
               "expects A2/A3 tinsert element types to be src=f32, dst=f16/bf16");
  std::string vec = tb("vec", "f32", 32, 32);
  std::string bad = "    %c0 = arith.constant 0 : index\n    %s = pto.alloc_tile : " + vec +
                    "\n    %d = pto.alloc_tile : " + acc + "\n    pto.tinsert ins(%s, %c0, %c0 : " +
                    vec + ", index, index) outs(%d : " + acc + ")\n";
  EXPECT_ERROR(run(kernel(bad), Arch::A5), 6,
               "expects A5 tinsert to use a supported src/dst loc pair: acc->mat, acc->vec, vec->mat, "
               "or vec->vec (got vec->acc)");
  // PTOAS 0.60 added the A2/A3 vec->vec form (one dtype of i8/f16/bf16/f32)
  // and the A5 acc->vec form.
  std::string v16 = tb("vec", "f16", 32, 32);
  std::string vv = "    %c0 = arith.constant 0 : index\n    %s = pto.alloc_tile : " + v16 +
                   "\n    %d = pto.alloc_tile : " + v16 + "\n    pto.tinsert ins(%s, %c0, %c0 : " +
                   v16 + ", index, index) outs(%d : " + v16 + ")\n";
  EXPECT_OK(run(kernel(vv), Arch::A3));
  std::string av = "    %c0 = arith.constant 0 : index\n    %s = pto.alloc_tile : " + acc +
                   "\n    %d = pto.alloc_tile : " + v16 + "\n    pto.tinsert ins(%s, %c0, %c0 : " +
                   acc + ", index, index) outs(%d : " + v16 + ")\n";
  EXPECT_OK(run(kernel(av), Arch::A5));
}

TEST_CASE("verify: textract A5 vec->vec needs ND", "[verify]") {
  std::string s = tb("vec", "f16", 32, 32, ", blayout=col_major, slayout=row_major, fractal=512, pad=0");
  std::string d = tb("vec", "f16", 16, 16);
  std::string body = "    %c0 = arith.constant 0 : index\n    %s = pto.alloc_tile : " + s +
                     "\n    %d = pto.alloc_tile : " + d + "\n    pto.textract ins(%s, %c0, %c0 : " + s +
                     ", index, index) outs(%d : " + d + ")\n";
  EXPECT_ERROR(run(kernel(body), Arch::A5), 6, "expects A5 vec->vec textract src/dst to use ND layout");
}

TEST_CASE("verify: matmul operand locs and dtype triples", "[verify]") {
  std::string l = tb("left", "f16", 16, 16, ", blayout=row_major, slayout=row_major, fractal=512, pad=0");
  std::string r = tb("right", "f16", 16, 16, ", blayout=row_major, slayout=col_major, fractal=512, pad=0");
  std::string acc = tb("acc", "f32", 16, 16, ", blayout=col_major, slayout=row_major, fractal=1024, pad=0");
  std::string acc16 = tb("acc", "f16", 16, 16, ", blayout=col_major, slayout=row_major, fractal=1024, pad=0");
  EXPECT_OK(run(kernel(binop("tmatmul", l, r, acc))));
  EXPECT_ERROR(run(kernel(binop("tmatmul", l, r, acc16))), 6,
               "'pto.tmatmul' does not support (dst, lhs, rhs) element types (f16, f16, f16)");
  // PTOAS 0.60 multiplies operands still in L1 (tilelang's tload_mat test);
  // a vec operand is refused.
  std::string m = tb("mat", "f16", 16, 16, ", blayout=col_major, slayout=row_major, fractal=512, pad=0");
  EXPECT_OK(run(kernel(binop("tmatmul", m, r, acc))));
  std::string v = tb("vec", "f16", 16, 16);
  EXPECT_ERROR(run(kernel(binop("tmatmul", v, r, acc))), 6,
               "expects the lhs tile in loc=left, got loc=vec");
}

TEST_CASE("verify: tquant INT8 rules", "[verify]") {
  std::string src =
      "func.func @q() {\n"
      "  %src = memref.alloc() : memref<16x16xf32, #pto.address_space<vec>>\n"
      "  %fp  = memref.alloc() : memref<16x16xf32, #pto.address_space<vec>>\n"
      "  %dst = memref.alloc() : memref<16x16xui8, #pto.address_space<vec>>\n"
      "  pto.tquant ins(%src, %fp : memref<16x16xf32, #pto.address_space<vec>>, memref<16x16xf32, #pto.address_space<vec>>) outs(%dst : memref<16x16xui8, #pto.address_space<vec>>) {quant_type = #pto<quant_type INT8_ASYM>}\n"
      "  return\n"
      "}\n";
  EXPECT_ERROR(run(src), 5, "INT8_ASYM quantization requires an offset operand");
}

TEST_CASE("verify: make_tensor_view shape operands must be index", "[verify]") {
  std::string body =
      "    %f = arith.constant 1.0 : f32\n"
      "    %c1 = arith.constant 1 : index\n"
      "    %tv = pto.make_tensor_view %p, shape = [%f, %c1], strides = [%c1, %c1] : !pto.tensor_view<?x?xf32>\n";
  EXPECT_ERROR(run(kernel(body, "%p: !pto.ptr<f32>")), 5, "shape and strides to be index or integer");
}

TEST_CASE("verify: tsel i8 is A5-only (official wording on A3)", "[verify]") {
  std::string t = tb("vec", "i8", 2, 128);
  std::string tmp = tb("vec", "i8", 1, 64);
  std::string body = "    %m = pto.alloc_tile : " + t + "\n    %a = pto.alloc_tile : " + t +
                     "\n    %b = pto.alloc_tile : " + t + "\n    %tmp = pto.alloc_tile : " + tmp +
                     "\n    %d = pto.alloc_tile : " + t + "\n    pto.tsel ins(%m, %a, %b, %tmp : " + t +
                     ", " + t + ", " + t + ", " + tmp + ") outs(%d : " + t + ")\n";
  EXPECT_ERROR(run(kernel(body), Arch::A3), 8,
               "'pto.tsel' op expects A2/A3 tsel src0, src1, and dst element type to be i16/i32/f16/f32");
  EXPECT_OK(run(kernel(body), Arch::A5));
}

TEST_CASE("verify: auto_sync_tail_hint values", "[verify]") {
  std::string good =
      "func.func @k() attributes {pto.auto_sync_tail_hint = \"mte3-to-s-event0\"} {\n  return\n}\n";
  EXPECT_OK(run(good));
  std::string bad =
      "func.func @k() attributes {pto.auto_sync_tail_hint = \"sometimes\"} {\n  return\n}\n";
  EXPECT_ERROR(run(bad), 1, "invalid pto.auto_sync_tail_hint");
}

TEST_CASE("verify: tput_async needs flat 1-D GM memrefs", "[verify]") {
  std::string src =
      "module {\n"
      "  func.func @bad(%dst: memref<4x32xf32, #pto.address_space<gm>>, %src: memref<4x32xf32, #pto.address_space<gm>>, %ws: memref<1024xi8, #pto.address_space<gm>>) {\n"
      "    %scratch = pto.alloc_tile : " + tb("vec", "i8", 1, 256) + "\n"
      "    %session = pto.build_async_session(%scratch, %ws : " + tb("vec", "i8", 1, 256) + ", memref<1024xi8, #pto.address_space<gm>>) -> !pto.async_session\n"
      "    %event = pto.tput_async(%dst, %src, %session : memref<4x32xf32, #pto.address_space<gm>>, memref<4x32xf32, #pto.address_space<gm>>, !pto.async_session) -> !pto.async_event\n"
      "    return\n"
      "  }\n"
      "}\n";
  EXPECT_ERROR(run(src), 5, "'pto.tput_async' op expects dst to be a static flat contiguous logical 1D GM memref");
}

TEST_CASE("verify: tcvt src and dst shapes agree", "[verify]") {
  auto cvt = [](const std::string& s, const std::string& d) {
    return "    %s = pto.alloc_tile : " + s + "\n    %d = pto.alloc_tile : " + d +
           "\n    pto.tcvt ins(%s {rmode = #pto<round_mode RINT>} : " + s + ") outs(%d : " + d + ")\n";
  };
  EXPECT_ERROR(run(kernel(cvt(tb("vec", "f32", 16, 16), tb("vec", "f16", 16, 32)))), 5,
               "'pto.tcvt' op expects src and dst to have compatible shapes");
  std::string half = "!pto.tile_buf<loc=vec, dtype=f16, rows=16, cols=16, v_row=16, v_col=8, "
                     "blayout=row_major, slayout=none_box, fractal=512, pad=0>";
  EXPECT_ERROR(run(kernel(cvt(tb("vec", "f32", 16, 16), half))), 5,
               "'pto.tcvt' op expects src and dst to have the same valid_shape");
  // A packed fp4 pair holds two values per column (0.60, A5).
  EXPECT_OK(run(kernel(cvt(tb("vec", "bf16", 16, 32), tb("vec", "!pto.f4E1M2x2", 16, 16))), Arch::A5));
}

// ---- arith operand and result types (issue 18 item 11) ----------------------------

namespace {
// One arith statement on line 5 of a kernel with values of every kind.
Run arith(const std::string& stmt) {
  return run(kernel("    %tv = pto.make_tensor_view %p, shape = [%n, %n], strides = [%n, %n] : "
                    "!pto.tensor_view<?x?xf32>\n"                                  // line 3
                    "    %t = pto.alloc_tile : " + F32 + "\n"                      // line 4
                    "    " + stmt + "\n",                                          // line 5
                    "%n: index, %f: f32, %h: f16, %i: i32, %j: i64, %b: i1, %p: !pto.ptr<f32>"));
}
}  // namespace

TEST_CASE("verify: arith integer ops take operands of their one integer type", "[verify][arith]") {
  EXPECT_ERROR(arith("%r = arith.addi %n, %n : i32"), 5,
               "'arith.addi' operand #0 has type index, but the op's type is i32");
  EXPECT_ERROR(arith("%r = arith.addi %f, %tv : f32"), 5,
               "'arith.addi' works on integers or index, not f32");
  EXPECT_ERROR(arith("%r = arith.addi %p, %n : index"), 5,
               "'arith.addi' operand #0 has type !pto.ptr<f32>");
  EXPECT_ERROR(arith("%r = arith.muli %i, %j : i32"), 5, "operand #1 has type i64");
  EXPECT_ERROR(arith("%r = arith.shli %f, %f : f32"), 5, "works on integers or index");
  EXPECT_OK(arith("%r = arith.addi %n, %n : index"));
  EXPECT_OK(arith("%r = arith.andi %b, %b : i1"));
  EXPECT_OK(arith("%r = arith.maxsi %j, %j : i64"));
}

TEST_CASE("verify: arith float ops take floats", "[verify][arith]") {
  EXPECT_ERROR(arith("%r = arith.addf %n, %n : index"), 5,
               "'arith.addf' works on floats (f16, bf16, f32, f64), not index");
  EXPECT_ERROR(arith("%r = arith.mulf %f, %h : f32"), 5, "operand #1 has type f16");
  EXPECT_ERROR(arith("%r = arith.negf %i : i32"), 5, "'arith.negf' works on floats");
  EXPECT_OK(arith("%r = arith.maximumf %h, %h : f16"));
  EXPECT_OK(arith("%r = arith.negf %f : f32"));
}

TEST_CASE("verify: arith compares: one operand type of the right class, a known predicate",
          "[verify][arith]") {
  EXPECT_ERROR(arith("%r = arith.cmpi slt, %t, %t : " + F32), 5,
               "'arith.cmpi' works on integers or index, not !pto.tile_buf");
  EXPECT_ERROR(arith("%r = arith.cmpi eq, %n, %i : index"), 5,
               "'arith.cmpi' compares values of one type, got index and i32");
  EXPECT_ERROR(arith("%r = arith.cmpi olt, %n, %n : index"), 5, "has no predicate 'olt'");
  EXPECT_ERROR(arith("%r = arith.cmpf olt, %n, %n : index"), 5, "'arith.cmpf' works on floats");
  EXPECT_ERROR(arith("%r = arith.cmpf slt, %f, %f : f32"), 5, "has no predicate 'slt'");
  EXPECT_OK(arith("%r = arith.cmpi uge, %i, %i : i32"));
  EXPECT_OK(arith("%r = arith.cmpf une, %f, %f : f32"));
}

TEST_CASE("verify: arith.select: an i1 condition, values of the result type", "[verify][arith]") {
  EXPECT_ERROR(arith("%r = arith.select %n, %f, %f : f32"), 5,
               "'arith.select' expects an i1 condition, got index");
  EXPECT_ERROR(arith("%r = arith.select %b, %f, %h : f32"), 5, "operand #2 has type f16");
  EXPECT_OK(arith("%r = arith.select %b, %f, %f : f32"));
  EXPECT_OK(arith("%r = arith.select %b, %t, %t : " + F32));  // any type, tiles too
}

TEST_CASE("verify: arith casts: source and destination classes and widths", "[verify][arith]") {
  EXPECT_ERROR(arith("%r = arith.index_cast %f : f32 to index"), 5,
               "'arith.index_cast' casts index to an integer or an integer to index, not f32 to index");
  EXPECT_ERROR(arith("%r = arith.index_cast %n : index to index"), 5, "not index to index");
  EXPECT_ERROR(arith("%r = arith.extsi %j : i64 to i32"), 5,
               "'arith.extsi' casts an integer to a wider integer, not i64 to i32");
  EXPECT_ERROR(arith("%r = arith.trunci %i : i32 to i64"), 5, "to a narrower integer");
  EXPECT_ERROR(arith("%r = arith.trunci %n : index to i32"), 5, "to a narrower integer");
  EXPECT_ERROR(arith("%r = arith.sitofp %f : f32 to f32"), 5, "an integer to a float");
  EXPECT_ERROR(arith("%r = arith.fptosi %i : i32 to i32"), 5, "a float to an integer");
  EXPECT_ERROR(arith("%r = arith.extf %f : f32 to f16"), 5, "a float to a wider float");
  EXPECT_ERROR(arith("%r = arith.truncf %h : f16 to f32"), 5, "a float to a narrower float");
  EXPECT_ERROR(arith("%r = arith.bitcast %i : i32 to f16"), 5, "of one bit width");
  EXPECT_ERROR(arith("%r = arith.index_cast %t : " + F32 + " to index"), 5, "casts a scalar");
  // The stated source type is the operand's.
  EXPECT_ERROR(arith("%r = arith.index_cast %n : i32 to index"), 5, "'%n' has type index, not i32");
  EXPECT_OK(arith("%r = arith.index_cast %i : i32 to index"));
  EXPECT_OK(arith("%r = arith.index_castui %n : index to i64"));
  EXPECT_OK(arith("%r = arith.extui %b : i1 to i32"));
  EXPECT_OK(arith("%r = arith.trunci %j : i64 to i32"));
  EXPECT_OK(arith("%r = arith.uitofp %i : i32 to f32"));
  EXPECT_OK(arith("%r = arith.fptoui %h : f16 to i32"));
  EXPECT_OK(arith("%r = arith.extf %h : f16 to f32"));
  EXPECT_OK(arith("%r = arith.bitcast %f : f32 to i32"));
}

TEST_CASE("verify: the recursion error names no EmitC backend", "[verify]") {
  Run r = run(
      "module {\n"
      "  func.func @kernel(%arg0: i32) attributes {pto.entry} {\n"
      "    func.call @kernel(%arg0) : (i32) -> ()\n"
      "    return\n"
      "  }\n"
      "}\n");
  EXPECT_ERROR(r, 3, "recursive function calls are not supported ('@kernel' calls '@kernel'");
  CHECK(r.diags.find("EmitC") == std::string::npos);
}
