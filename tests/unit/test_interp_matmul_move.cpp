// Interpreter: matmul, data movement (TMOV, TEXTRACT, TINSERT, TRESHAPE,
// TTRANS, TCONCAT, TFILLPAD, TGATHER, TSCATTER) against hand-computed values.
#include <catch2/catch.hpp>

#include <climits>
#include <cmath>
#include <limits>

#include "interp_harness.h"

using ih::bitsf;
using ih::fbits;

namespace {
const float kInf = std::numeric_limits<float>::infinity();

std::string mat(const std::string& dt, int r, int c) {
  return ih::tile("mat", r, c, dt, "valid=?x?, blayout=col_major, slayout=row_major");
}
std::string left(const std::string& dt, int r, int c) {
  return ih::tile("left", r, c, dt, "valid=?x?, slayout=row_major");
}
std::string right(const std::string& dt, int r, int c) {
  return ih::tile("right", r, c, dt, "valid=?x?, slayout=col_major");
}
std::string acc(const std::string& dt, int r, int c) {
  return ih::tile("acc", r, c, dt, "valid=?x?, blayout=col_major, slayout=row_major, fractal=1024");
}

// GM (m x k, k x n, row-major) -> Mat (NZ) -> Left/Right -> `op` -> Acc -> GM.
// `extra` adds ins after a and b (bias) or before (acc input: pre_acc).
template <class E>
ih::Kernel matmul_kernel(const std::string& dt, const std::string& cdt, int m, int kk, int n,
                         const std::vector<E>& a, const std::vector<E>& b, const std::string& op,
                         int& out) {
  ih::Kernel k;
  int P = 32;  // physical tile size (fits every box)
  int ia = k.buf(a, dt), ib = k.buf(b, dt);
  out = k.buf(std::vector<uint8_t>(size_t(m * n) * 4), cdt);
  k.alloc("%ma", mat(dt, P, P), m, kk);
  k.load_into("%ma", mat(dt, P, P), ia, m, kk);
  k.alloc("%mb", mat(dt, P, P), kk, n);
  k.load_into("%mb", mat(dt, P, P), ib, kk, n);
  k.alloc("%l", left(dt, P, P), m, kk);
  k.alloc("%r", right(dt, P, P), kk, n);
  k.op("pto.tmov ins(%ma : " + mat(dt, P, P) + ") outs(%l : " + left(dt, P, P) + ")");
  k.op("pto.tmov ins(%mb : " + mat(dt, P, P) + ") outs(%r : " + right(dt, P, P) + ")");
  k.alloc("%c", acc(cdt, P, P), m, n);
  if (!op.empty())
    k.op("pto.tmatmul ins(%l, %r : " + left(dt, P, P) + ", " + right(dt, P, P) + ") outs(%c : " +
         acc(cdt, P, P) + ")");
  return k;
}
}  // namespace

TEST_CASE("interp tmatmul f32 through Mat/Left/Right/Acc layouts", "[interp]") {
  // A 2x3, B 3x2.
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {7, 8, 9, 10, 11, 12};
  int out;
  ih::Kernel k = matmul_kernel<float>("f32", "f32", 2, 3, 2, a, b, "mm", out);
  k.store("%c", acc("f32", 32, 32), out, 2, 2);
  IH_RUN(k);
  auto c = k.get<float>(out);
  CHECK(c[0] == 58);
  CHECK(c[1] == 64);
  CHECK(c[2] == 139);
  CHECK(c[3] == 154);
}

TEST_CASE("interp tmatmul f32 accumulates with fma in float", "[interp]") {
  float e = 1.0f + std::ldexp(1.0f, -12);
  std::vector<float> a = {-1, e}, b = {1, e};  // 1x2 . 2x1
  int out;
  ih::Kernel k = matmul_kernel<float>("f32", "f32", 1, 2, 1, a, b, "mm", out);
  k.store("%c", acc("f32", 32, 32), out, 1, 1);
  IH_RUN(k);
  // fma(e, e, -1) = 2^-11 + 2^-24 exactly; a rounded product would give 2^-11.
  CHECK(fbits(k.get<float>(out)[0]) == 0x3A000400u);
}

TEST_CASE("interp tmatmul bf16 -> f32 and tmatmul.acc adds Cin once", "[interp]") {
  // bf16 1.5 = 0x3FC0, 2 = 0x4000, -1 = 0xBF80, 0.5 = 0x3F00
  std::vector<uint16_t> a = {0x3FC0, 0x4000, 0xBF80, 0x3F00};  // 2x2
  std::vector<uint16_t> b = {0x4000, 0x3F00, 0x3FC0, 0xBF80};  // 2x2
  int out;
  ih::Kernel k = matmul_kernel<uint16_t>("bf16", "f32", 2, 2, 2, a, b, "mm", out);
  // C2 = C + A.B (accumulator input = C)
  std::string L = left("bf16", 32, 32), R = right("bf16", 32, 32), C = acc("f32", 32, 32);
  k.alloc("%c2", C, 2, 2);
  k.op("pto.tmatmul.acc ins(%c, %l, %r : " + C + ", " + L + ", " + R + ") outs(%c2 : " + C + ")");
  int out2 = k.buf(std::vector<float>(4));
  k.store("%c", C, out, 2, 2);
  k.store("%c2", C, out2, 2, 2);
  IH_RUN(k);
  auto c = k.get<float>(out), c2 = k.get<float>(out2);
  // [1.5 2; -1 .5] . [2 .5; 1.5 -1] = [3+3, .75-2; -2+.75, -.5-.5]
  CHECK(c[0] == 6);
  CHECK(c[1] == -1.25f);
  CHECK(c[2] == -1.25f);
  CHECK(c[3] == -1);
  CHECK(c2[0] == 12);
  CHECK(c2[3] == -2);
}

TEST_CASE("interp tmatmul i8 x i8 -> i32 with negative extremes - tmatmul.bias", "[interp]") {
  std::vector<int8_t> a = {-128, 127, 1, -1};  // 2x2
  std::vector<int8_t> b = {-128, 1, -128, 2};  // 2x2
  int out;
  ih::Kernel k = matmul_kernel<int8_t>("i8", "i32", 2, 2, 2, a, b, "mm", out);
  std::string L = left("i8", 32, 32), R = right("i8", 32, 32), C = acc("i32", 32, 32);
  std::string B = ih::tile("bias", 1, 8, "i32");
  int ib = k.buf(std::vector<int32_t>{1000, -1000, 0, 0, 0, 0, 0, 0}, "i32");
  k.alloc("%bm", ih::tile("mat", 1, 8, "i32"));
  k.load_into("%bm", ih::tile("mat", 1, 8, "i32"), ib, 1, 8);
  k.alloc("%bias", B);
  k.op("pto.tmov ins(%bm : " + ih::tile("mat", 1, 8, "i32") + ") outs(%bias : " + B + ")");
  k.alloc("%cb", C, 2, 2);
  k.op("pto.tmatmul.bias ins(%l, %r, %bias : " + L + ", " + R + ", " + B + ") outs(%cb : " + C + ")");
  int out2 = k.buf(std::vector<int32_t>(4), "i32");
  k.store("%c", C, out, 2, 2);
  k.store("%cb", C, out2, 2, 2);
  IH_RUN(k);
  auto c = k.get<int32_t>(out), cb = k.get<int32_t>(out2);
  CHECK(c[0] == 16384 - 16256);  // -128*-128 + 127*-128
  CHECK(c[1] == -128 + 254);
  CHECK(c[2] == -128 + 128);
  CHECK(c[3] == 1 - 2);
  CHECK(cb[0] == c[0] + 1000);
  CHECK(cb[1] == c[1] - 1000);
}

TEST_CASE("interp tgemv: m = 1 - k and n from B", "[interp]") {
  std::vector<float> a = {1, 2, 3}, b = {1, 0, 0, 1, 1, 1};  // 1x3 . 3x2
  int out;
  ih::Kernel k = matmul_kernel<float>("f32", "f32", 1, 3, 2, a, b, "", out);
  k.op("pto.tgemv ins(%l, %r : " + left("f32", 32, 32) + ", " + right("f32", 32, 32) +
       ") outs(%c : " + acc("f32", 32, 32) + ")");
  k.store("%c", acc("f32", 32, 32), out, 1, 2);
  IH_RUN(k);
  auto c = k.get<float>(out);
  CHECK(c[0] == 4);
  CHECK(c[1] == 5);
}

TEST_CASE("interp tmov Acc f32 -> Vec f16 rounds to nearest even - relu variant", "[interp]") {
  std::vector<float> a = {1, 1, 1, -3}, b = {1, std::ldexp(1.0f, -11), 70000, 1};  // 1x4 . 4x1? use 2x2
  int out;
  // A = [1 1; 1 -3], B = [1 2^-11; 70000 1]
  ih::Kernel k = matmul_kernel<float>("f32", "f32", 2, 2, 2, a, b, "mm", out);
  std::string V = ih::tile("vec", 2, 16, "f16", "valid=?x?");
  k.alloc("%v", V, 2, 2);
  k.alloc("%vr", V, 2, 2);
  k.op("pto.tmov ins(%c : " + acc("f32", 32, 32) + ") outs(%v : " + V + ")");
  k.op("pto.tmov ins(%c : " + acc("f32", 32, 32) + ") outs(%vr : " + V +
       ") {reluPreMode = #pto<relu_pre_mode normal_relu>}");
  int o1 = k.buf(std::vector<uint16_t>(4), "f16"), o2 = k.buf(std::vector<uint16_t>(4), "f16");
  k.store("%v", V, o1, 2, 2);
  k.store("%vr", V, o2, 2, 2);
  IH_RUN(k);
  auto v = k.get<uint16_t>(o1), r = k.get<uint16_t>(o2);
  // C = [70001, 1 + 2^-11; 1 - 210000, 2^-11 - 3]
  CHECK(v[0] == 0x7C00);  // 70001 overflows f16
  CHECK(v[1] == 0x3C00);  // 1 + 2^-11: tie -> 1
  CHECK(v[2] == 0xFC00);
  CHECK(v[3] == 0xC200);  // -3 + 2^-11 -> -3 (f16 ulp at 2..4 is 2^-9)
  CHECK(r[2] == 0x0000);  // relu
  CHECK(r[3] == 0x0000);
  CHECK(r[1] == 0x3C00);
}

TEST_CASE("interp tmov between ND and DN vec tiles keeps logical positions", "[interp]") {
  ih::Kernel k;
  std::string ND = ih::tile("vec", 8, 8, "f32"), DN = ih::tile("vec", 8, 8, "f32", "blayout=col_major");
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[size_t(i)] = float(i);
  int ix = k.buf(x), io = k.buf(std::vector<float>(64));
  k.load("%x", ND, ix, 8, 8);
  k.alloc("%y", DN);
  k.alloc("%z", ND);
  k.op("pto.tmov ins(%x : " + ND + ") outs(%y : " + DN + ")");
  k.op("pto.tmov ins(%y : " + DN + ") outs(%z : " + ND + ")");
  k.store("%z", ND, io, 8, 8);
  IH_RUN(k);
  CHECK(k.get<float>(io) == x);
}

TEST_CASE("interp tmov with a quantization scalar is refused", "[interp]") {
  ih::Kernel k;
  std::string A = ih::tile("vec", 1, 8, "f32"), B = ih::tile("vec", 1, 32, "i8");
  int ix = k.buf(std::vector<float>(8, 1));
  k.load("%x", A, ix, 1, 8);
  k.alloc("%y", B);
  k.scalar("%q", "i64", "1065353216");
  k.op("pto.tmov ins(%x, %q : " + A + ", i64) outs(%y : " + B + ")");
  IH_FAILS(k, "quantization");
}

TEST_CASE("interp textract / tinsert at offsets", "[interp]") {
  ih::Kernel k;
  k.arch = "a5";  // vec -> vec tinsert
  std::string S = ih::tile("vec", 8, 8, "f32");
  std::string D = ih::tile("vec", 2, 8, "f32", "valid=?x?");
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[size_t(i)] = float(i);
  int ix = k.buf(x), io = k.buf(std::vector<float>(16, -1)), ii = k.buf(std::vector<float>(64, 0));
  k.load("%x", S, ix, 8, 8);
  k.init_full("%d", D, io, 2, 8, 2, 3);
  k.op("pto.textract ins(%x, " + k.c(5) + ", " + k.c(4) + " : " + S + ", index, index) outs(%d : " + D + ")");
  k.load("%z", S, ii, 8, 8);
  k.op("pto.tinsert ins(%d, " + k.c(6) + ", " + k.c(1) + " : " + D + ", index, index) outs(%z : " + S + ")");
  k.store("%z", S, ii, 8, 8);
  k.store_full("%d", D, io, 2, 8);
  IH_RUN(k);
  auto d = k.get<float>(io);
  CHECK(d[0] == 44);  // src[5, 4]
  CHECK(d[2] == 46);
  CHECK(d[8] == 52);  // src[6, 4]
  CHECK(d[3] == -1);  // outside dst's valid 2x3
  auto z = k.get<float>(ii);
  CHECK(z[6 * 8 + 1] == 44);  // dst[6 + i, 1 + j] = d[i, j] over d's valid 2x3
  CHECK(z[7 * 8 + 3] == 54);
  CHECK(z[6 * 8 + 0] == 0);
  CHECK(z[6 * 8 + 4] == 0);
}

TEST_CASE("interp textract outside the source is a runtime error", "[interp]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 8, 8, "f32");
  std::string D = ih::tile("vec", 4, 8, "f32");
  int ix = k.buf(std::vector<float>(64));
  k.load("%x", S, ix, 8, 8);
  k.alloc("%d", D);
  k.op("pto.textract ins(%x, " + k.c(5) + ", " + k.c(0) + " : " + S + ", index, index) outs(%d : " + D + ")");
  IH_FAILS(k, "smaller than");
}

TEST_CASE("interp treshape aliases the source storage", "[interp]") {
  ih::Kernel k;
  std::string A = ih::tile("vec", 4, 8, "f32"), B = ih::tile("vec", 2, 16, "f32");
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[size_t(i)] = float(i);
  int ix = k.buf(x), io = k.buf(std::vector<float>(32)), io2 = k.buf(std::vector<float>(32));
  k.load("%a", A, ix, 4, 8);
  k.alloc("%b", B);
  k.op("pto.treshape ins(%a : " + A + ") outs(%b : " + B + ")");
  k.store("%b", B, io, 2, 16);
  // Writing through %b is visible through %a.
  k.scalar("%one", "f32", ih::hexf(1.0f));
  k.op("pto.tadds ins(%b, %one : " + B + ", f32) outs(%b : " + B + ")");
  k.store("%a", A, io2, 4, 8);
  IH_RUN(k);
  CHECK(k.get<float>(io) == x);
  auto y = k.get<float>(io2);
  CHECK(y[0] == 1);
  CHECK(y[31] == 32);
}

TEST_CASE("interp treshape with a different byte size is an error", "[interp]") {
  ih::Kernel k;
  std::string A = ih::tile("vec", 4, 8, "f32"), B = ih::tile("vec", 2, 8, "f32");
  k.alloc("%a", A);
  k.alloc("%b", B);
  k.op("pto.treshape ins(%a : " + A + ") outs(%b : " + B + ")");
  IH_FAILS(k, "bytes");
}

TEST_CASE("interp ttrans over the src valid region (i16) and tconcat", "[interp]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 16, 16, "i16", "valid=?x?");
  std::string D = ih::tile("vec", 16, 16, "i16");
  std::vector<int16_t> x(256);
  for (int i = 0; i < 256; ++i) x[size_t(i)] = int16_t(i);
  int ix = k.buf(x, "i16"), io = k.buf(std::vector<int16_t>(256, -1), "i16");
  k.init_full("%x", S, ix, 16, 16, 2, 3);
  k.load("%d", D, io, 16, 16);
  k.op("pto.ttrans ins(%x : " + S + ") outs(%d : " + D + ")");
  k.store("%d", D, io, 16, 16);
  // concat: 2 valid cols of a then 3 of b.
  std::string A = ih::tile("vec", 2, 8, "f32", "valid=?x?"), C = ih::tile("vec", 2, 8, "f32", "valid=?x?");
  int ia = k.buf(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  int ib = k.buf(std::vector<float>{-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16});
  int ic = k.buf(std::vector<float>(16, 0));
  k.init_full("%a", A, ia, 2, 8, 2, 2);
  k.init_full("%b", A, ib, 2, 8, 2, 3);
  k.init_full("%c", C, ic, 2, 8, 2, 5);
  k.op("pto.tconcat ins(%a, %b : " + A + ", " + A + ") outs(%c : " + C + ")");
  k.store_full("%c", C, ic, 2, 8);
  IH_RUN(k);
  auto d = k.get<int16_t>(io);
  CHECK(d[0] == 0);
  CHECK(d[1] == 16);
  CHECK(d[16] == 1);
  CHECK(d[32 + 1] == 18);
  CHECK(d[2] == -1);
  CHECK(d[48] == -1);
  auto c = k.get<float>(ic);
  std::vector<float> want = {1, 2, -1, -2, -3, 0, 0, 0, 9, 10, -9, -10, -11, 0, 0, 0};
  CHECK(c == want);
}

TEST_CASE("interp tfillpad: whole physical dst - pad by dst's pad value (f32 - f16 - i16)", "[interp]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 4, 8, "f32", "valid=?x?");
  std::string D = ih::tile("vec", 4, 8, "f32", "pad=3");
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[size_t(i)] = float(i);
  int ix = k.buf(x), io = k.buf(std::vector<float>(32, 5));
  k.init_full("%x", S, ix, 4, 8, 2, 3);
  k.alloc("%d", D);
  k.op("pto.tfillpad ins(%x : " + S + ") outs(%d : " + D + ")");
  k.store("%d", D, io, 4, 8);
  std::string HS = ih::tile("vec", 2, 16, "f16", "valid=?x?");
  std::string HD = ih::tile("vec", 2, 16, "f16", "pad=2");
  int ih16 = k.buf(std::vector<uint16_t>(32, 0x3C00), "f16"), ioh = k.buf(std::vector<uint16_t>(32), "f16");
  k.init_full("%h", HS, ih16, 2, 16, 1, 1);
  k.alloc("%hd", HD);
  k.op("pto.tfillpad ins(%h : " + HS + ") outs(%hd : " + HD + ")");
  k.store("%hd", HD, ioh, 2, 16);
  std::string IS = ih::tile("vec", 2, 16, "i16", "valid=?x?, pad=3");
  int ii = k.buf(std::vector<int16_t>(32, 7), "i16");
  k.init_full("%i", IS, ii, 2, 16, 2, 15);
  k.op("pto.tfillpad_inplace ins(%i : " + IS + ") outs(%i : " + IS + ")");
  k.store_full("%i", IS, ii, 2, 16);
  IH_RUN(k);
  auto d = k.get<float>(io);
  CHECK(d[0] == 0);
  CHECK(d[10] == 10);
  CHECK(d[3] == -kInf);
  CHECK(d[16] == -kInf);
  CHECK(d[31] == -kInf);
  auto h = k.get<uint16_t>(ioh);
  CHECK(h[0] == 0x3C00);
  CHECK(h[1] == 0x7C00);  // pad Max for f16 is +Inf (the g++12 simulator writes 0)
  CHECK(h[31] == 0x7C00);
  auto i = k.get<int16_t>(ii);
  CHECK(i[14] == 7);
  CHECK(i[15] == -32768);
  CHECK(i[31] == -32768);
}

TEST_CASE("interp tgather index form (flat physical index - OOB -> 0) and mask form", "[interp]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 2, 8, "f32");
  std::string I = ih::tile("vec", 1, 8, "i32");
  std::string D = ih::tile("vec", 1, 8, "f32");
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[size_t(i)] = float(i) * 10;
  int ix = k.buf(x), ii = k.buf(std::vector<int32_t>{15, 0, 8, -1, 16, 3, 3, 9}, "i32"),
      io = k.buf(std::vector<float>(8, 1));
  k.load("%x", S, ix, 2, 8);
  k.load("%i", I, ii, 1, 8);
  k.alloc("%tmp", I);
  k.alloc("%d", D);
  k.op("pto.tgather ins(%x, %i, %tmp : " + S + ", " + I + ", " + I + ") outs(%d : " + D + ")");
  k.store("%d", D, io, 1, 8);
  std::string M = ih::tile("vec", 1, 8, "f32");
  int im = k.buf(std::vector<float>(8, -1));
  k.load("%m", M, im, 1, 8);
  k.op("pto.tgather ins(%x, {maskPattern = #pto.mask_pattern<P0101>} : " + S + ") outs(%m : " + M + ")");
  k.store("%m", M, im, 1, 8);
  IH_RUN(k);
  std::vector<float> want = {150, 0, 80, 0, 0, 30, 30, 90};
  CHECK(k.get<float>(io) == want);
  std::vector<float> even = {0, 20, 40, 60, 80, 100, 120, 140};
  CHECK(k.get<float>(im) == even);
}

TEST_CASE("interp tgather mask form with PTOAS 0.60's axis: col picks rows", "[interp]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 4, 16, "f32");
  std::string D = ih::tile("vec", 1, 16, "f32");
  std::string R = ih::tile("vec", 4, 8, "f32");
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[size_t(i)] = float(i);
  int ix = k.buf(x), io = k.buf(std::vector<float>(16, -1)), ir = k.buf(std::vector<float>(32, -1));
  k.load("%x", S, ix, 4, 16);
  k.alloc("%d", D);
  k.op("pto.tgather ins(%x, {maskPattern = #pto.mask_pattern<P0010>} : " + S + ", \"col\") outs(%d : " + D + ")");
  k.store("%d", D, io, 1, 16);
  k.alloc("%r", R);
  k.op("pto.tgather ins(%x, {maskPattern = #pto.mask_pattern<P0101>} : " + S + ", \"row\") outs(%r : " + R + ")");
  k.store("%r", R, ir, 4, 8);
  IH_RUN(k);
  std::vector<float> row1(16), even(32);
  for (int i = 0; i < 16; ++i) row1[size_t(i)] = float(16 + i);
  for (int i = 0; i < 32; ++i) even[size_t(i)] = float(2 * i);
  CHECK(k.get<float>(io) == row1);
  CHECK(k.get<float>(ir) == even);
}

TEST_CASE("interp tscatter: dst(idx(r -c) - c) = src(r -c) - bad index is an error", "[interp]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 2, 8, "f32");
  std::string I = ih::tile("vec", 2, 8, "i32");
  std::string D = ih::tile("vec", 4, 8, "f32");
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  std::vector<int32_t> idx = {3, 0, 1, 2, 3, 0, 1, 2, 3, 1, 1, 2, 0, 0, 0, 0};
  int ix = k.buf(x), ii = k.buf(idx, "i32"), io = k.buf(std::vector<float>(32, 0));
  k.load("%x", S, ix, 2, 8);
  k.load("%i", I, ii, 2, 8);
  k.load("%d", D, io, 4, 8);
  k.op("pto.tscatter ins(%x, %i : " + S + ", " + I + ") outs(%d : " + D + ")");
  k.store("%d", D, io, 4, 8);
  IH_RUN(k);
  auto d = k.get<float>(io);
  CHECK(d[3 * 8 + 0] == 9);   // last writer wins (row 1 overwrote row 0)
  CHECK(d[0 * 8 + 1] == 2);
  CHECK(d[1 * 8 + 1] == 10);
  CHECK(d[1 * 8 + 2] == 11);
  CHECK(d[0 * 8 + 4] == 13);
  ih::Kernel e;
  int jx = e.buf(x), ji = e.buf(std::vector<int32_t>(16, 4), "i32");
  e.load("%x", S, jx, 2, 8);
  e.load("%i", I, ji, 2, 8);
  e.alloc("%d", D);
  e.op("pto.tscatter ins(%x, %i : " + S + ", " + I + ") outs(%d : " + D + ")");
  IH_FAILS(e, "row index 4");
}

TEST_CASE("interp tgemv.acc and tgemv.bias", "[interp]") {
  std::vector<float> a = {1, 2}, b = {3, 4, 5, 6};  // 1x2 . 2x2 = [13 16]
  int out;
  ih::Kernel k = matmul_kernel<float>("f32", "f32", 1, 2, 2, a, b, "", out);
  std::string L = left("f32", 32, 32), R = right("f32", 32, 32), C = acc("f32", 32, 32);
  k.op("pto.tgemv ins(%l, %r : " + L + ", " + R + ") outs(%c : " + C + ")");
  k.alloc("%c2", C, 1, 2);
  k.op("pto.tgemv.acc ins(%c, %l, %r : " + C + ", " + L + ", " + R + ") outs(%c2 : " + C + ")");
  std::string B = ih::tile("bias", 1, 8, "f32");
  int ib = k.buf(std::vector<float>{0.5f, -16, 0, 0, 0, 0, 0, 0});
  k.alloc("%bm", ih::tile("mat", 1, 8, "f32"));
  k.load_into("%bm", ih::tile("mat", 1, 8, "f32"), ib, 1, 8);
  k.alloc("%bias", B);
  k.op("pto.tmov ins(%bm : " + ih::tile("mat", 1, 8, "f32") + ") outs(%bias : " + B + ")");
  k.alloc("%c3", C, 1, 2);
  k.op("pto.tgemv.bias ins(%l, %r, %bias : " + L + ", " + R + ", " + B + ") outs(%c3 : " + C + ")");
  int o2 = k.buf(std::vector<float>(2)), o3 = k.buf(std::vector<float>(2));
  k.store("%c2", C, o2, 1, 2);
  k.store("%c3", C, o3, 1, 2);
  IH_RUN(k);
  CHECK(k.get<float>(o2) == std::vector<float>{26, 32});
  CHECK(k.get<float>(o3) == std::vector<float>{13.5f, 0});
}

TEST_CASE("interp tfillpad_expand into a larger tile - tgatherb by byte offsets", "[interp]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 2, 8, "i32");
  std::string D = ih::tile("vec", 4, 16, "i32", "pad=2");
  std::vector<int32_t> x(16);
  for (int i = 0; i < 16; ++i) x[size_t(i)] = i;
  int ix = k.buf(x, "i32"), io = k.buf(std::vector<int32_t>(64), "i32");
  k.load("%x", S, ix, 2, 8);
  k.alloc("%d", D);
  k.op("pto.tfillpad_expand ins(%x : " + S + ") outs(%d : " + D + ")");
  k.store("%d", D, io, 4, 16);
  std::string O = ih::tile("vec", 1, 8, "ui32"), G = ih::tile("vec", 1, 8, "i32");
  int ioff = k.buf(std::vector<uint32_t>{0, 4, 60, 32, 8, 8, 12, 36}, "ui32"),
      ig = k.buf(std::vector<int32_t>(8), "i32");
  k.load("%off", O, ioff, 1, 8);
  k.alloc("%g", G);
  k.op("pto.tgatherb ins(%x, %off : " + S + ", " + O + ") outs(%g : " + G + ")");
  k.store("%g", G, ig, 1, 8);
  IH_RUN(k);
  auto d = k.get<int32_t>(io);
  CHECK(d[0] == 0);
  CHECK(d[7] == 7);
  CHECK(d[8] == INT_MAX);   // pad Max
  CHECK(d[16] == 8);
  CHECK(d[23] == 15);
  CHECK(d[63] == INT_MAX);
  CHECK(k.get<int32_t>(ig) == std::vector<int32_t>{0, 1, 15, 8, 2, 2, 3, 9});
}
