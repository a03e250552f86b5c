// Interpreter: reductions and row/column expands, against hand-computed
// expectations.
#include <catch2/catch.hpp>

#include <climits>
#include <cmath>
#include <limits>

#include "interp_harness.h"

using ih::bitsf;
using ih::fbits;

namespace {
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// Runs a row reduction of an R x C f32 tile into an R x 1 col-major f32 tile.
std::vector<float> row_reduce(const std::string& op, int R, int C, const std::vector<float>& x) {
  ih::Kernel k;
  std::string T = ih::tile("vec", R, C, "f32");
  std::string D = ih::tile("vec", R, 1, "f32", "blayout=col_major");
  int ix = k.buf(x), io = k.buf(std::vector<float>(size_t(R), -99.0f));
  k.load("%x", T, ix, R, C);
  k.alloc("%tmp", T);
  k.load("%d", D, io, R, 1);
  k.op(op + " ins(%x, %tmp : " + T + ", " + T + ") outs(%d : " + D + ")");
  k.store("%d", D, io, R, 1);
  IH_RUN(k);
  return k.get<float>(io);
}
}  // namespace

TEST_CASE("interp trowsum f32 sums sequentially left to right", "[interp]") {
  std::vector<float> x = {1e8f, 1, -1e8f, 1, 0, 0, 0, 0,   //
                          1, 2, 3, 4, 5, 6, 7, 8,          //
                          kInf, 1, 0, 0, 0, 0, 0, 0,       //
                          kInf, -kInf, 0, 0, 0, 0, 0, 0,   //
                          -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f,
                          0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  auto d = row_reduce("pto.trowsum", 8, 8, x);
  CHECK(d[0] == 1);  // (1e8 + 1) rounds to 1e8, - 1e8 = 0, + 1 = 1
  CHECK(d[1] == 36);
  CHECK(d[2] == kInf);
  CHECK(std::isnan(d[3]));
  CHECK(fbits(d[4]) == 0);  // 0 + (-0) ... starts at +0
}

TEST_CASE("interp trowsum f16 accumulates in f32 - tcolsum f16 accumulates in f16", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 16, 16, "f16");
  std::string R = ih::tile("vec", 16, 1, "f16", "blayout=col_major");
  std::string RF = ih::tile("vec", 16, 1, "f32", "blayout=col_major");
  std::string C = ih::tile("vec", 1, 16, "f16");
  std::vector<uint16_t> x(256, 0);
  x[0] = 0x6800; x[1] = 0x3C00; x[2] = 0x3C00;     // row 0: 2048, 1, 1
  x[16] = 0x3C00; x[32] = 0x3C00;                  // column 0: 2048, 1, 1
  x[17] = 0x7BFF; x[18] = 0x7BFF; x[19] = 0xFBFF;  // row 1: max + max - max (f32 acc: no overflow)
  int ix = k.buf(x, "f16"), ir = k.buf(std::vector<uint16_t>(16), "f16"),
      irf = k.buf(std::vector<float>(16)), ic = k.buf(std::vector<uint16_t>(16), "f16");
  k.load("%x", T, ix, 16, 16);
  k.alloc("%tmp", T);
  k.alloc("%r", R);
  k.alloc("%rf", RF);
  k.alloc("%c", C);
  k.op("pto.trowsum ins(%x, %tmp : " + T + ", " + T + ") outs(%r : " + R + ")");
  k.op("pto.trowsum ins(%x, %tmp : " + T + ", " + T + ") outs(%rf : " + RF + ")");
  k.op("pto.tcolsum ins(%x, %tmp : " + T + ", " + T + ") outs(%c : " + C + ")");
  k.store("%r", R, ir, 16, 1);
  k.store("%rf", RF, irf, 16, 1);
  k.store("%c", C, ic, 1, 16);
  IH_RUN(k);
  auto r = k.get<uint16_t>(ir);
  auto rf = k.get<float>(irf);
  auto c = k.get<uint16_t>(ic);
  CHECK(r[0] == 0x6801);   // 2050 (f32 accumulator), rounded once to f16
  CHECK(r[1] == 0x7BFF);   // 65504 + 65504 - 65504 in f32 = 65504
  CHECK(r[2] == 0x3C00);
  CHECK(rf[0] == 2050);
  CHECK(c[0] == 0x6800);   // 2048 + 1 + 1 with a half accumulator stays 2048
  CHECK(c[1] == 0x7BFF);   // 1 + 65504 rounds back to 65504 in half
  CHECK(c[3] == 0xFBFF);
}

TEST_CASE("interp trowsum ragged: iterates the src valid region - writes dst(r - 0) only", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 4, 8, "i32", "valid=?x?");
  std::string D = ih::tile("vec", 4, 8, "i32");
  std::vector<int32_t> x(32);
  for (int i = 0; i < 32; ++i) x[size_t(i)] = i;
  int ix = k.buf(x, "i32"), io = k.buf(std::vector<int32_t>(32, -1), "i32");
  k.init_full("%x", T, ix, 4, 8, 3, 5);
  k.load("%d", D, io, 4, 8);
  k.op("pto.trowsum ins(%x : " + T + ") outs(%d : " + D + ")");
  k.store("%d", D, io, 4, 8);
  IH_RUN(k);
  auto d = k.get<int32_t>(io);
  CHECK(d[0] == 0 + 1 + 2 + 3 + 4);
  CHECK(d[8] == 8 + 9 + 10 + 11 + 12);
  CHECK(d[16] == 16 + 17 + 18 + 19 + 20);
  CHECK(d[24] == -1);  // row 3 outside src valid rows
  CHECK(d[1] == -1);   // only column 0 written
}

TEST_CASE("interp trowmax/trowmin: a NaN anywhere gives NaN - zero sign of the first extreme", "[interp]") {
  std::vector<float> x(64, 0);
  float r0[8] = {1, kNaN, 3, 2, 0, 0, 0, 0};
  float r1[8] = {kNaN, 5, 6, 7, 1, 1, 1, 1};
  float r2[8] = {-0.0f, 0.0f, -1, -2, -3, -4, -5, -6};
  float r3[8] = {-kInf, -kInf, -kInf, -kInf, -kInf, -kInf, -kInf, -kInf};
  float r4[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  float* rows[5] = {r0, r1, r2, r3, r4};
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 8; ++c) x[size_t(r * 8 + c)] = rows[r][c];
  auto mx = row_reduce("pto.trowmax", 8, 8, x);
  CHECK(std::isnan(mx[0]));
  CHECK(std::isnan(mx[1]));
  CHECK(fbits(mx[2]) == 0x80000000u);  // -0 first, +0 not greater
  CHECK(mx[3] == -kInf);
  CHECK(mx[4] == 8);
  auto mn = row_reduce("pto.trowmin", 8, 8, x);
  CHECK(std::isnan(mn[0]));
  CHECK(mn[2] == -6);
  CHECK(mn[4] == 1);
  auto pr = row_reduce("pto.trowprod", 8, 8, x);
  CHECK(pr[4] == 40320);
  CHECK(std::isnan(pr[0]));
}

TEST_CASE("interp tcolmax/tcolmin/tcolprod over i32 and i8 (a5) - one-row tiles", "[interp]") {
  ih::Kernel k;
  k.arch = "a5";
  std::string T = ih::tile("vec", 3, 8, "i32");
  std::string C = ih::tile("vec", 1, 8, "i32");
  std::vector<int32_t> x = {INT_MIN, 5, 1, 0, 0, 0, 0, 0,   //
                            -1, 5, 2, 0, 0, 0, 0, 0,        //
                            INT_MAX, -7, 65536, 0, 0, 0, 0, 0};
  int ix = k.buf(x, "i32"), imx = k.buf(std::vector<int32_t>(8), "i32"),
      imn = k.buf(std::vector<int32_t>(8), "i32"), ipr = k.buf(std::vector<int32_t>(8), "i32");
  k.load("%x", T, ix, 3, 8);
  k.alloc("%mx", C);
  k.alloc("%mn", C);
  k.alloc("%pr", C);
  k.op("pto.tcolmax ins(%x : " + T + ") outs(%mx : " + C + ")");
  k.op("pto.tcolmin ins(%x : " + T + ") outs(%mn : " + C + ")");
  k.op("pto.tcolprod ins(%x : " + T + ") outs(%pr : " + C + ")");
  k.store("%mx", C, imx, 1, 8);
  k.store("%mn", C, imn, 1, 8);
  k.store("%pr", C, ipr, 1, 8);
  // i8 row max, one-row tile.
  std::string B = ih::tile("vec", 1, 32, "i8");
  std::string BD = ih::tile("vec", 1, 32, "i8");
  std::vector<int8_t> y(32, -100);
  y[7] = -3;
  int iy = k.buf(y, "i8"), iyo = k.buf(std::vector<int8_t>(32), "i8");
  k.load("%y", B, iy, 1, 32);
  k.alloc("%ym", BD);
  k.op("pto.trowmax ins(%y : " + B + ") outs(%ym : " + BD + ")");
  k.store("%ym", BD, iyo, 1, 32);
  IH_RUN(k);
  auto mx = k.get<int32_t>(imx), mn = k.get<int32_t>(imn), pr = k.get<int32_t>(ipr);
  CHECK(mx[0] == INT_MAX);
  CHECK(mx[1] == 5);
  CHECK(mn[0] == INT_MIN);
  CHECK(mn[1] == -7);
  CHECK(pr[1] == -175);
  CHECK(pr[2] == 131072);
  CHECK(pr[0] == INT_MIN);  // INT_MIN * -1 * INT_MAX wraps
  CHECK(k.get<int8_t>(iyo)[0] == -3);
}

TEST_CASE("interp tcolsum ragged with one-column source", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 8, 8, "f32", "valid=?x?");
  std::string C = ih::tile("vec", 1, 8, "f32");
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[size_t(i)] = float(i);
  int ix = k.buf(x), io = k.buf(std::vector<float>(8, -1));
  k.init_full("%x", T, ix, 8, 8, 5, 1);
  k.load("%c", C, io, 1, 8);
  k.op("pto.tcolsum ins(%x : " + T + ") outs(%c : " + C + ")");
  k.store("%c", C, io, 1, 8);
  IH_RUN(k);
  auto c = k.get<float>(io);
  CHECK(c[0] == 0 + 8 + 16 + 24 + 32);
  CHECK(c[1] == -1);
}

TEST_CASE("interp trowargmax/trowargmin: first occurrence - NaN wins", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 8, 8, "f32");
  std::string I = ih::tile("vec", 8, 1, "ui32", "blayout=col_major");
  std::vector<float> x(64, 0);
  float r0[8] = {3, 7, 7, 1, 0, 0, 0, 0};
  float r1[8] = {1, kNaN, 9, kNaN, 0, 0, 0, 0};
  float r2[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  float r3[8] = {5, 4, 3, 2, 1, 0, -1, -1};
  float* rows[4] = {r0, r1, r2, r3};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) x[size_t(r * 8 + c)] = rows[r][c];
  int ix = k.buf(x), imx = k.buf(std::vector<uint32_t>(8), "ui32"),
      imn = k.buf(std::vector<uint32_t>(8), "ui32");
  k.load("%x", T, ix, 8, 8);
  k.alloc("%tmp", T);
  k.alloc("%amx", I);
  k.alloc("%amn", I);
  k.op("pto.trowargmax ins(%x, %tmp : " + T + ", " + T + ") outs(%amx : " + I + ")");
  k.op("pto.trowargmin ins(%x, %tmp : " + T + ", " + T + ") outs(%amn : " + I + ")");
  k.store("%amx", I, imx, 8, 1);
  k.store("%amn", I, imn, 8, 1);
  IH_RUN(k);
  auto a = k.get<uint32_t>(imx), b = k.get<uint32_t>(imn);
  CHECK(a[0] == 1);
  CHECK(a[1] == 1);
  CHECK(a[2] == 0);
  CHECK(a[3] == 0);
  CHECK(b[0] == 4);  // first of the zeros
  CHECK(b[1] == 1);
  CHECK(b[2] == 0);
  CHECK(b[3] == 6);
}

TEST_CASE("interp tcolargmax with value and index outputs", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 4, 8, "i32");
  std::string V = ih::tile("vec", 1, 8, "i32");
  std::string I = ih::tile("vec", 1, 8, "i32");
  std::vector<int32_t> x = {1, 9, -5, 0, 0, 0, 0, 0,   //
                            4, 9, -5, 0, 0, 0, 0, 0,   //
                            4, 2, -6, 0, 0, 0, 0, 0,   //
                            3, 1, -4, 1, 0, 0, 0, 0};
  int ix = k.buf(x, "i32"), iv = k.buf(std::vector<int32_t>(8), "i32"),
      ii = k.buf(std::vector<int32_t>(8), "i32");
  k.load("%x", T, ix, 4, 8);
  k.alloc("%tmp", T);
  k.alloc("%v", V);
  k.alloc("%i", I);
  k.op("pto.tcolargmax ins(%x, %tmp : " + T + ", " + T + ") outs(%v, %i : " + V + ", " + I + ")");
  k.store("%v", V, iv, 1, 8);
  k.store("%i", I, ii, 1, 8);
  IH_RUN(k);
  auto v = k.get<int32_t>(iv), i = k.get<int32_t>(ii);
  CHECK(v[0] == 4);
  CHECK(i[0] == 1);
  CHECK(v[1] == 9);
  CHECK(i[1] == 0);
  CHECK(v[2] == -4);
  CHECK(i[2] == 3);
  CHECK(i[3] == 3);
  CHECK(i[4] == 0);
}

// ---- expands ------------------------------------------------------------------------------

TEST_CASE("interp trowexpand / tcolexpand broadcast column 0 / row 0", "[interp]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 8, 1, "f32", "blayout=col_major");
  std::string R = ih::tile("vec", 1, 8, "f32");
  std::string D = ih::tile("vec", 8, 8, "f32", "valid=?x?");
  int is = k.buf(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}), ir = k.buf(std::vector<float>{10, 20, 30, 40, 50, 60, 70, 80}),
      io = k.buf(std::vector<float>(64, -1)), ic = k.buf(std::vector<float>(64, -1));
  k.load("%s", S, is, 8, 1);
  k.load("%r", R, ir, 1, 8);
  k.init_full("%d", D, io, 8, 8, 3, 5);
  k.init_full("%e", D, ic, 8, 8, 8, 8);
  k.op("pto.trowexpand ins(%s : " + S + ") outs(%d : " + D + ")");
  k.op("pto.tcolexpand ins(%r : " + R + ") outs(%e : " + D + ")");
  k.store_full("%d", D, io, 8, 8);
  k.store_full("%e", D, ic, 8, 8);
  IH_RUN(k);
  auto d = k.get<float>(io), e = k.get<float>(ic);
  CHECK(d[0] == 1);
  CHECK(d[4] == 1);
  CHECK(d[5] == -1);
  CHECK(d[8 + 2] == 2);
  CHECK(d[16 + 4] == 3);
  CHECK(d[24] == -1);
  CHECK(e[7] == 80);
  CHECK(e[63] == 80);
  CHECK(e[56] == 10);
}

TEST_CASE("interp trowexpandsub mode 1 (R x 1 column) - operand order preserved", "[interp]") {
  ih::Kernel k;
  std::string F = ih::tile("vec", 8, 8, "f32");
  std::string S = ih::tile("vec", 8, 1, "f32", "blayout=col_major");
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[size_t(i)] = float(i);
  int ix = k.buf(x), is = k.buf(std::vector<float>{0.5f, 1, 2, 3, 4, 5, 6, 7}),
      o1 = k.buf(std::vector<float>(64)), o2 = k.buf(std::vector<float>(64));
  k.load("%x", F, ix, 8, 8);
  k.load("%s", S, is, 8, 1);
  k.alloc("%d1", F);
  k.alloc("%d2", F);
  k.op("pto.trowexpandsub ins(%x, %s : " + F + ", " + S + ") outs(%d1 : " + F + ")");
  k.op("pto.trowexpandsub ins(%s, %x : " + S + ", " + F + ") outs(%d2 : " + F + ")");
  k.store("%d1", F, o1, 8, 8);
  k.store("%d2", F, o2, 8, 8);
  IH_RUN(k);
  auto d1 = k.get<float>(o1), d2 = k.get<float>(o2);
  CHECK(d1[0] == -0.5f);
  CHECK(d1[7] == 6.5f);
  CHECK(d1[9] == 8);     // 9 - 1
  CHECK(d2[0] == 0.5f);  // s_0 - x
  CHECK(d2[9] == -8);
  CHECK(d2[63] == 7 - 63);
}

TEST_CASE("interp trowexpanddiv mode 2 tiles the 32-byte block cyclically", "[interp]") {
  ih::Kernel k;
  std::string F = ih::tile("vec", 2, 16, "f32");
  std::string N = ih::tile("vec", 2, 8, "f32");
  std::vector<float> x(32, 24.0f), s(16);
  for (int i = 0; i < 16; ++i) s[size_t(i)] = float(i % 8 + 1);
  s[8] = 0;  // row 1, col 0 -> division by zero gives inf
  int ix = k.buf(x), is = k.buf(s), io = k.buf(std::vector<float>(32));
  k.load("%x", F, ix, 2, 16);
  k.load("%s", N, is, 2, 8);
  k.alloc("%d", F);
  k.op("pto.trowexpanddiv ins(%x, %s : " + F + ", " + N + ") outs(%d : " + F + ")");
  k.store("%d", F, io, 2, 16);
  IH_RUN(k);
  auto d = k.get<float>(io);
  CHECK(d[0] == 24);
  CHECK(d[1] == 12);
  CHECK(d[7] == 3);
  CHECK(d[8] == 24);   // column 8 -> s[0, 0]
  CHECK(d[11] == 6);   // column 11 -> s[0, 3] = 4
  CHECK(d[16] == kInf);
  CHECK(d[24] == kInf);
  CHECK(d[17] == 12);
}

TEST_CASE("interp trowexpand{add -mul -max -min -expdif}", "[interp]") {
  std::string F = ih::tile("vec", 8, 8, "f32");
  std::string S = ih::tile("vec", 8, 1, "f32", "blayout=col_major");
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[size_t(i)] = float(i % 8) - 3;
  std::vector<float> s = {0, 1, 2, -1, kNaN, 0, 0, 0};
  auto run = [&](const std::string& op) {
    ih::Kernel k;
    int ix = k.buf(x), is = k.buf(s), io = k.buf(std::vector<float>(64));
    k.load("%x", F, ix, 8, 8);
    k.load("%s", S, is, 8, 1);
    k.alloc("%d", F);
    k.op(op + " ins(%x, %s : " + F + ", " + S + ") outs(%d : " + F + ")");
    k.store("%d", F, io, 8, 8);
    IH_RUN(k);
    return k.get<float>(io);
  };
  auto a = run("pto.trowexpandadd");
  CHECK(a[8] == -2);
  CHECK(std::isnan(a[32]));
  auto m = run("pto.trowexpandmul");
  CHECK(m[16] == -6);
  auto mx = run("pto.trowexpandmax");
  CHECK(mx[8] == 1);       // max(-3, 1)
  CHECK(mx[15] == 4);
  CHECK(mx[32] == -3);     // max(x, NaN) = x (first operand)
  auto mn = run("pto.trowexpandmin");
  CHECK(mn[8] == -3);
  CHECK(mn[15] == 1);
  auto e = run("pto.trowexpandexpdif");
  CHECK(e[3] == 1);                          // exp(0 - 0)
  CHECK(e[11] == float(std::exp(-1.0)));     // exp(1 - 2)... row 1: x=0, s=1
  CHECK(std::isnan(e[32]));
}

TEST_CASE("interp tcolexpand{mul -add -sub -div -max -min -expdif} broadcast row 0 of src1", "[interp]") {
  std::string F = ih::tile("vec", 4, 8, "f32");
  std::string R = ih::tile("vec", 1, 8, "f32");
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[size_t(i)] = float(i);
  std::vector<float> g = {1, 2, 0.5f, -1, 0, 10, 100, 1000};
  auto run = [&](const std::string& op) {
    ih::Kernel k;
    int ix = k.buf(x), ig = k.buf(g), io = k.buf(std::vector<float>(32));
    k.load("%x", F, ix, 4, 8);
    k.load("%g", R, ig, 1, 8);
    k.alloc("%d", F);
    k.op(op + " ins(%x, %g : " + F + ", " + R + ") outs(%d : " + F + ")");
    k.store("%d", F, io, 4, 8);
    IH_RUN(k);
    return k.get<float>(io);
  };
  auto m = run("pto.tcolexpandmul");
  CHECK(m[9] == 18);
  CHECK(m[26] == 13);
  CHECK(fbits(m[4]) == 0);
  auto a = run("pto.tcolexpandadd");
  CHECK(a[31] == 1031);
  auto s = run("pto.tcolexpandsub");
  CHECK(s[8] == 7);
  auto d = run("pto.tcolexpanddiv");
  CHECK(d[12] == kInf);  // 12 / 0
  CHECK(d[4] == kInf);
  CHECK(d[10] == 20);
  auto mx = run("pto.tcolexpandmax");
  CHECK(mx[7] == 1000);
  CHECK(mx[31] == 1000);
  auto mn = run("pto.tcolexpandmin");
  CHECK(mn[11] == -1);
  auto e = run("pto.tcolexpandexpdif");
  CHECK(e[0] == float(std::exp(-1.0)));
  CHECK(e[1] == float(std::exp(-1.0)));
}

TEST_CASE("interp trowexpanddiv i32 by zero is a runtime error (a5)", "[interp]") {
  ih::Kernel k;
  k.arch = "a5";
  std::string F = ih::tile("vec", 8, 8, "i32");
  std::string S = ih::tile("vec", 8, 1, "i32", "blayout=col_major");
  std::vector<int32_t> s = {1, 2, 3, 0, 5, 6, 7, 8};
  int ix = k.buf(std::vector<int32_t>(64, 12), "i32"), is = k.buf(s, "i32"), io = k.buf(std::vector<int32_t>(64), "i32");
  k.load("%x", F, ix, 8, 8);
  k.load("%s", S, is, 8, 1);
  k.alloc("%d", F);
  k.op("pto.trowexpanddiv ins(%x, %s : " + F + ", " + S + ") outs(%d : " + F + ")");
  k.store("%d", F, io, 8, 8);
  IH_FAILS(k, "integer division by zero");
}

TEST_CASE("interp tpairreducesum adds neighbouring pairs - zero-fills the rest", "[interp]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 2, 8, "f32", "valid=?x?");
  std::string D = ih::tile("vec", 2, 8, "f32");
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 30, 40, 50, 60, 70, 80};
  int ix = k.buf(x), io = k.buf(std::vector<float>(16, -1));
  k.init_full("%x", S, ix, 2, 8, 2, 5);
  k.load("%d", D, io, 2, 8);
  k.op("pto.tpairreducesum ins(%x : " + S + ") outs(%d : " + D + ")");
  k.store("%d", D, io, 2, 8);
  IH_RUN(k);
  std::vector<float> want = {3, 7, 5, 0, 0, 0, 0, 0, 30, 70, 50, 0, 0, 0, 0, 0};
  CHECK(k.get<float>(io) == want);
}
