// Interpreter: elementwise tile-tile, unary, tile-scalar, fused, TPART*,
// compare and select ops, against hand-computed expectations.
#include <catch2/catch.hpp>

#include <cfloat>
#include <climits>
#include <cmath>
#include <limits>

#include "interp_harness.h"

using ih::bitsf;
using ih::fbits;
using ih::same;

namespace {
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
}  // namespace

TEST_CASE("interp tadd f32: IEEE specials - signed zeros - subnormals - overflow", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.tadd";
  std::vector<float> a = {1, -0.0f, 0.0f, kInf, FLT_MAX, bitsf(1), kNaN, -5};
  std::vector<float> b = {2, -0.0f, -0.0f, -kInf, FLT_MAX, bitsf(1), 1, 5};
  auto d = ih::run_op<float>(s, std::vector<std::vector<float>>{a, b});
  CHECK(d[0] == 3);
  CHECK(fbits(d[1]) == 0x80000000u);  // -0 + -0 = -0
  CHECK(fbits(d[2]) == 0);            // +0 + -0 = +0
  CHECK(std::isnan(d[3]));            // inf - inf
  CHECK(d[4] == kInf);                // overflow
  CHECK(fbits(d[5]) == 2);            // subnormal sum exact
  CHECK(std::isnan(d[6]));
  CHECK(fbits(d[7]) == 0);            // x + -x = +0
}

TEST_CASE("interp tadd ragged dst valid region leaves the rest untouched", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 4, 8, "f32");
  std::string D = ih::tile("vec", 4, 8, "f32", "valid=?x?");
  std::vector<float> a(32), b(32);
  for (int i = 0; i < 32; ++i) { a[size_t(i)] = float(i); b[size_t(i)] = 100.0f * float(i); }
  int ia = k.buf(a), ib = k.buf(b), io = k.buf(std::vector<float>(32, 7.0f));
  k.load("%a", T, ia, 4, 8);
  k.load("%b", T, ib, 4, 8);
  k.init_full("%d", D, io, 4, 8, 2, 3);
  k.op("pto.tadd ins(%a, %b : " + T + ", " + T + ") outs(%d : " + D + ")");
  k.store_full("%d", D, io, 4, 8);
  IH_RUN(k);
  auto d = k.get<float>(io);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) {
      float want = (r < 2 && c < 3) ? 101.0f * float(r * 8 + c) : 7.0f;
      INFO("r=" << r << " c=" << c);
      CHECK(d[size_t(r * 8 + c)] == want);
    }
}

TEST_CASE("interp tadd/tsub/tmul integer wrap-around (i32 - i16 - i8 - u8)", "[interp]") {
  {
    ih::OpSpec s;
    s.op = "pto.tadd";
    s.dt = "i32";
    std::vector<int32_t> a = {INT_MAX, INT_MIN, -1, 5, 0, 0, 0, 0}, b = {1, -1, 1, -7, 0, 0, 0, 0};
    auto d = ih::run_op<int32_t>(s, std::vector<std::vector<int32_t>>{a, b});
    CHECK(d[0] == INT_MIN);
    CHECK(d[1] == INT_MAX);
    CHECK(d[2] == 0);
    CHECK(d[3] == -2);
  }
  {
    ih::OpSpec s;
    s.op = "pto.tmul";
    s.dt = "i16";
    s.C = 16;
    std::vector<int16_t> a(16, 300), b(16, 300);
    a[1] = -32768; b[1] = -1;
    auto d = ih::run_op<int16_t>(s, std::vector<std::vector<int16_t>>{a, b});
    CHECK(d[0] == 24464);   // 90000 mod 2^16
    CHECK(d[1] == -32768);  // -INT16_MIN wraps
  }
  {
    ih::OpSpec s;
    s.op = "pto.tsub";
    s.dt = "ui8";
    s.C = 32;
    s.arch = "a5";
    std::vector<uint8_t> a(32, 0), b(32, 1);
    a[1] = 255; b[1] = 0;
    auto d = ih::run_op<uint8_t>(s, std::vector<std::vector<uint8_t>>{a, b});
    CHECK(d[0] == 255);  // 0 - 1 wraps
    CHECK(d[1] == 255);
  }
  {
    ih::OpSpec s;
    s.op = "pto.tadd";
    s.dt = "i8";
    s.C = 32;
    s.arch = "a5";
    std::vector<int8_t> a(32, 127), b(32, 1);
    a[1] = -128; b[1] = -1;
    auto d = ih::run_op<int8_t>(s, std::vector<std::vector<int8_t>>{a, b});
    CHECK(d[0] == -128);
    CHECK(d[1] == 127);
  }
}

TEST_CASE("interp f16 arithmetic rounds once to nearest even (exact bits)", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.tadd";
  s.dt = "f16";
  s.C = 16;
  std::vector<uint16_t> a(16, 0), b(16, 0);
  a[0] = 0x3C00; b[0] = 0x1000;  // 1 + 2^-11: tie -> 1.0
  a[1] = 0x3C01; b[1] = 0x1000;  // (1 + 2^-10) + 2^-11: tie -> even 0x3C02
  a[2] = 0x7BFF; b[2] = 0x4C00;  // 65504 + 16 = 65520: tie -> 65536 -> inf
  a[3] = 0x7BFF; b[3] = 0x4800;  // 65504 + 8 -> 65504
  a[4] = 0x0001; b[4] = 0x0001;  // subnormal 2^-24 + 2^-24 = 2^-23
  a[5] = 0x8000; b[5] = 0x8000;  // -0 + -0
  a[6] = 0x7C00; b[6] = 0xFC00;  // inf - inf = NaN
  auto d = ih::run_op<uint16_t>(s, std::vector<std::vector<uint16_t>>{a, b});
  CHECK(d[0] == 0x3C00);
  CHECK(d[1] == 0x3C02);
  CHECK(d[2] == 0x7C00);
  CHECK(d[3] == 0x7BFF);
  CHECK(d[4] == 0x0002);
  CHECK(d[5] == 0x8000);
  CHECK((d[6] & 0x7C00) == 0x7C00);
  CHECK((d[6] & 0x03FF) != 0);
}

TEST_CASE("interp bf16 multiply rounds once to nearest even (exact bits)", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.tmul";
  s.dt = "bf16";
  s.C = 16;
  s.arch = "a5";
  std::vector<uint16_t> a(16, 0x3F80), b(16, 0x3F80);
  a[0] = 0x3F81; b[0] = 0x3F81;  // (1+2^-7)^2 = 1 + 2^-6 + 2^-14 -> 0x3F82
  a[1] = 0x3F81; b[1] = 0x3FC0;  // 1.5 + 2^-7 + 2^-8: tie -> even 0x3FC2
  a[2] = 0x7F7F; b[2] = 0x4000;  // max * 2 -> inf
  auto d = ih::run_op<uint16_t>(s, std::vector<std::vector<uint16_t>>{a, b});
  CHECK(d[0] == 0x3F82);
  CHECK(d[1] == 0x3FC2);
  CHECK(d[2] == 0x7F80);
  CHECK(d[3] == 0x3F80);
}

TEST_CASE("interp tdiv f32: x/0 gives signed infinity - 0/0 NaN", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.tdiv";
  std::vector<float> a = {1, -1, 0, 1, 7, 1, kInf, 1}, b = {0, 0, 0, -0.0f, 2, 3, kInf, kInf};
  auto d = ih::run_op<float>(s, std::vector<std::vector<float>>{a, b});
  CHECK(d[0] == kInf);
  CHECK(d[1] == -kInf);
  CHECK(std::isnan(d[2]));
  CHECK(d[3] == -kInf);
  CHECK(d[4] == 3.5f);
  CHECK(d[5] == 1.0f / 3.0f);
  CHECK(std::isnan(d[6]));
  CHECK(fbits(d[7]) == 0);
}

TEST_CASE("interp tdiv i32: truncation - INT_MIN/-1 wraps - division by zero is an error", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.tdiv";
  s.dt = "i32";
  s.arch = "a5";
  std::vector<int32_t> a = {-7, 7, INT_MIN, 9, 0, 0, 0, 0}, b = {2, -2, -1, 3, 1, 1, 1, 1};
  auto d = ih::run_op<int32_t>(s, std::vector<std::vector<int32_t>>{a, b});
  CHECK(d[0] == -3);
  CHECK(d[1] == -3);
  CHECK(d[2] == INT_MIN);
  CHECK(d[3] == 3);
  b[4] = 0;
  std::string err;
  auto e = ih::run_op<int32_t>(s, std::vector<std::vector<int32_t>>{a, b}, &err);
  CHECK(e.empty());
  CHECK(err.find("division by zero") != std::string::npos);
  CHECK(err.find("runtime error") != std::string::npos);
}

TEST_CASE("interp tmax/tmin follow std::max/std::min (NaN and zero order)", "[interp]") {
  std::vector<float> a = {kNaN, 1, 0.0f, -0.0f, -kInf, 3, 2, kNaN};
  std::vector<float> b = {1, kNaN, -0.0f, 0.0f, 5, kInf, 2, kNaN};
  ih::OpSpec s;
  s.op = "pto.tmax";
  auto mx = ih::run_op<float>(s, std::vector<std::vector<float>>{a, b});
  CHECK(std::isnan(mx[0]));            // first operand NaN -> NaN
  CHECK(mx[1] == 1);                   // second NaN -> first operand
  CHECK(fbits(mx[2]) == 0);            // max(+0, -0) = +0 (first)
  CHECK(fbits(mx[3]) == 0x80000000u);  // max(-0, +0) = -0 (first)
  CHECK(mx[4] == 5);
  CHECK(mx[5] == kInf);
  CHECK(std::isnan(mx[7]));
  s.op = "pto.tmin";
  auto mn = ih::run_op<float>(s, std::vector<std::vector<float>>{a, b});
  CHECK(std::isnan(mn[0]));
  CHECK(mn[1] == 1);
  CHECK(fbits(mn[2]) == 0);
  CHECK(fbits(mn[3]) == 0x80000000u);
  CHECK(mn[4] == -kInf);
  CHECK(mn[5] == 3);
}

TEST_CASE("interp tmax/tmin on unsigned and signed integers", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.tmax";
  s.dt = "ui32";
  s.arch = "a5";
  std::vector<uint32_t> a = {0xFFFFFFFFu, 1, 0, 5, 0, 0, 0, 0}, b = {1, 0x80000000u, 0, 4, 0, 0, 0, 0};
  auto d = ih::run_op<uint32_t>(s, std::vector<std::vector<uint32_t>>{a, b});
  CHECK(d[0] == 0xFFFFFFFFu);
  CHECK(d[1] == 0x80000000u);
  CHECK(d[3] == 5);
  s.op = "pto.tmin";
  s.dt = "i32";
  std::vector<int32_t> x = {-1, INT_MIN, 3, 0, 0, 0, 0, 0}, y = {1, INT_MAX, -3, 0, 0, 0, 0, 0};
  auto e = ih::run_op<int32_t>(s, std::vector<std::vector<int32_t>>{x, y});
  CHECK(e[0] == -1);
  CHECK(e[1] == INT_MIN);
  CHECK(e[2] == -3);
}

TEST_CASE("interp trem is floored (divisor's sign) - tfmod is C fmod", "[interp]") {
  std::vector<float> a = {-7, 7, 7, -6, 5.5f, -1, 1, 0}, b = {3, -3, 3, 3, 2, kInf, 0, 1};
  ih::OpSpec s;
  s.op = "pto.trem";
  auto r = ih::run_op<float>(s, std::vector<std::vector<float>>{a, b});
  CHECK(r[0] == 2);
  CHECK(r[1] == -2);
  CHECK(r[2] == 1);
  CHECK(fbits(r[3]) == 0x80000000u);  // fmod(-6, 3) = -0, no correction
  CHECK(r[4] == 1.5f);
  CHECK(r[5] == kInf);                // -1 + inf
  CHECK(std::isnan(r[6]));            // x rem 0 = NaN for floats
  s.op = "pto.tfmod";
  auto f = ih::run_op<float>(s, std::vector<std::vector<float>>{a, b});
  CHECK(f[0] == -1);
  CHECK(f[1] == 1);
  CHECK(f[2] == 1);
  CHECK(f[5] == -1);
  CHECK(std::isnan(f[6]));
}

TEST_CASE("interp trem i32: floored - remainder by zero is an error", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.trem";
  s.dt = "i32";
  std::vector<int32_t> a = {-7, 7, INT_MIN, -6, 0, 0, 0, 0}, b = {3, -3, -1, 3, 1, 1, 1, 1};
  auto d = ih::run_op<int32_t>(s, std::vector<std::vector<int32_t>>{a, b});
  CHECK(d[0] == 2);
  CHECK(d[1] == -2);
  CHECK(d[2] == 0);
  CHECK(d[3] == 0);
  b[7] = 0;
  std::string err;
  ih::run_op<int32_t>(s, std::vector<std::vector<int32_t>>{a, b}, &err);
  CHECK(err.find("division by zero") != std::string::npos);
}

TEST_CASE("interp tpow/tpows: double pow for floats - exact wrapping power for ints", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.tpow";
  std::vector<float> a = {2, -8, 0, 9, 1, 1, 1, 1}, b = {10, 1.0f / 3, -1, 0.5f, kNaN, 0, 0, 0};
  auto d = ih::run_op<float>(s, std::vector<std::vector<float>>{a, b});
  CHECK(d[0] == 1024);
  CHECK(std::isnan(d[1]));
  CHECK(d[2] == kInf);
  CHECK(d[3] == 3);
  CHECK(d[4] == 1);  // pow(1, NaN) = 1
  s.dt = "i32";
  std::vector<int32_t> x = {3, 2, 2, -2, 1, -1, 5, 0}, y = {4, 31, -1, 3, -5, -3, 0, 0};
  auto e = ih::run_op<int32_t>(s, std::vector<std::vector<int32_t>>{x, y});
  CHECK(e[0] == 81);
  CHECK(e[1] == INT_MIN);
  CHECK(e[2] == 0);
  CHECK(e[3] == -8);
  CHECK(e[4] == 1);
  CHECK(e[5] == -1);
  CHECK(e[6] == 1);
  CHECK(e[7] == 1);  // 0^0
  s.op = "pto.tpows";
  s.dt = "f32";
  s.lines = {"%e = arith.constant " + ih::hexf(2.0f) + " : f32"};
  s.extra_ins = "%e";
  s.extra_types = "f32";
  auto p = ih::run_op<float>(s, std::vector<std::vector<float>>{{3, -3, 0.5f, kInf, 0, 0, 0, 0}});
  CHECK(p[0] == 9);
  CHECK(p[1] == 9);
  CHECK(p[2] == 0.25f);
  CHECK(p[3] == kInf);
}

TEST_CASE("interp shifts: arithmetic for signed - logical for unsigned - wrap on the left", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.tshr";
  s.dt = "i16";
  s.C = 16;
  std::vector<int16_t> a(16, 0), b(16, 0);
  a[0] = -8; b[0] = 1;
  a[1] = -1; b[1] = 15;
  a[2] = 0x4000; b[2] = 14;
  auto d = ih::run_op<int16_t>(s, std::vector<std::vector<int16_t>>{a, b});
  CHECK(d[0] == -4);
  CHECK(d[1] == -1);
  CHECK(d[2] == 1);
  s.dt = "ui16";
  std::vector<uint16_t> ua(16, 0), ub(16, 0);
  ua[0] = 0x8000; ub[0] = 15;
  ua[1] = 0xFFFF; ub[1] = 4;
  auto u = ih::run_op<uint16_t>(s, std::vector<std::vector<uint16_t>>{ua, ub});
  CHECK(u[0] == 1);
  CHECK(u[1] == 0x0FFF);
  s.op = "pto.tshl";
  s.dt = "i8";
  s.C = 32;
  std::vector<int8_t> c(32, 0), e(32, 0);
  c[0] = 0x40; e[0] = 1;
  c[1] = 1; e[1] = 7;
  c[2] = -1; e[2] = 3;
  auto l = ih::run_op<int8_t>(s, std::vector<std::vector<int8_t>>{c, e});
  CHECK(l[0] == -128);
  CHECK(l[1] == -128);
  CHECK(l[2] == -8);
}

TEST_CASE("interp shift counts outside 0..width-1 are runtime errors", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.tshl";
  s.dt = "i8";
  s.C = 32;
  std::vector<int8_t> a(32, 1), b(32, 0);
  b[5] = 8;
  std::string err;
  ih::run_op<int8_t>(s, std::vector<std::vector<int8_t>>{a, b}, &err);
  CHECK(err.find("shift amount 8 is out of range for i8") != std::string::npos);
  b[5] = -1;
  s.op = "pto.tshr";
  ih::run_op<int8_t>(s, std::vector<std::vector<int8_t>>{a, b}, &err);
  CHECK(err.find("shift amount -1") != std::string::npos);
  // Scalar form: 32 is out of range for i32.
  ih::OpSpec t;
  t.op = "pto.tshls";
  t.dt = "i32";
  t.lines = {"%k = arith.constant 32 : i32"};
  t.extra_ins = "%k";
  t.extra_types = "i32";
  ih::run_op<int32_t>(t, std::vector<std::vector<int32_t>>{std::vector<int32_t>(8, 1)}, &err);
  CHECK(err.find("shift amount 32 is out of range for i32") != std::string::npos);
  t.lines = {"%k = arith.constant 31 : i32"};
  auto d = ih::run_op<int32_t>(t, std::vector<std::vector<int32_t>>{std::vector<int32_t>(8, 1)});
  CHECK(d[0] == INT_MIN);
}

TEST_CASE("interp bitwise and/or/xor/not and their scalar forms", "[interp]") {
  std::vector<uint8_t> a(32, 0xF0), b(32, 0x3C);
  ih::OpSpec s;
  s.dt = "ui8";
  s.C = 32;
  s.op = "pto.tand";
  CHECK(ih::run_op<uint8_t>(s, std::vector<std::vector<uint8_t>>{a, b})[0] == 0x30);
  s.op = "pto.tor";
  CHECK(ih::run_op<uint8_t>(s, std::vector<std::vector<uint8_t>>{a, b})[0] == 0xFC);
  s.op = "pto.txor";
  CHECK(ih::run_op<uint8_t>(s, std::vector<std::vector<uint8_t>>{a, b})[0] == 0xCC);
  s.op = "pto.tnot";
  CHECK(ih::run_op<uint8_t>(s, std::vector<std::vector<uint8_t>>{a})[0] == 0x0F);
  ih::OpSpec t;
  t.dt = "i32";
  t.op = "pto.txors";
  t.lines = {"%m = arith.constant -1 : i32"};
  t.extra_ins = "%m";
  t.extra_types = "i32";
  auto d = ih::run_op<int32_t>(t, std::vector<std::vector<int32_t>>{{0, 5, INT_MIN, 0, 0, 0, 0, 0}});
  CHECK(d[0] == -1);
  CHECK(d[1] == ~5);
  CHECK(d[2] == INT_MAX);
  t.op = "pto.tands";
  t.lines = {"%m = arith.constant 6 : i32"};
  CHECK(ih::run_op<int32_t>(t, std::vector<std::vector<int32_t>>{{5, 0, 0, 0, 0, 0, 0, 0}})[0] == 4);
  t.op = "pto.tors";
  CHECK(ih::run_op<int32_t>(t, std::vector<std::vector<int32_t>>{{5, 0, 0, 0, 0, 0, 0, 0}})[0] == 7);
}

TEST_CASE("interp transcendental unary ops in f32 (double - rounded once)", "[interp]") {
  std::vector<float> x = {1, 0, -0.0f, -1, 4, kInf, 0.25f, kNaN};
  ih::OpSpec s;
  s.op = "pto.texp";
  auto e = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(fbits(e[0]) == 0x402DF854u);  // float(e)
  CHECK(e[1] == 1);
  CHECK(e[3] == float(std::exp(-1.0)));
  CHECK(e[5] == kInf);
  CHECK(std::isnan(e[7]));
  s.op = "pto.tlog";
  auto l = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(l[0] == 0);
  CHECK(l[1] == -kInf);
  CHECK(l[2] == -kInf);
  CHECK(std::isnan(l[3]));
  CHECK(l[4] == float(std::log(4.0)));
  CHECK(l[5] == kInf);
  s.op = "pto.tsqrt";
  auto q = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(fbits(q[2]) == 0x80000000u);  // sqrt(-0) = -0
  CHECK(std::isnan(q[3]));
  CHECK(q[4] == 2);
  CHECK(q[6] == 0.5f);
  s.op = "pto.trsqrt";
  auto r = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(r[0] == 1);
  CHECK(r[1] == kInf);
  CHECK(r[2] == -kInf);  // 1/sqrt(-0)
  CHECK(r[4] == 0.5f);
  CHECK(fbits(r[5]) == 0);
  CHECK(r[6] == 2);
  s.op = "pto.trecip";
  auto c = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(c[1] == kInf);
  CHECK(c[2] == -kInf);
  CHECK(c[4] == 0.25f);
  CHECK(c[3] == -1);
}

TEST_CASE("interp texp in f16 rounds the double result once (exact bits)", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.texp";
  s.dt = "f16";
  s.C = 16;
  std::vector<uint16_t> x(16, 0);
  x[0] = 0x3C00;  // 1 -> e = 2.71875 in f16
  x[1] = 0x4C00;  // 16 -> 8.9e6 overflows -> inf
  x[2] = 0xCC00;  // -16 -> 1.1e-7 -> f16 subnormal: 2^-24 * 1.88 -> 2 * 2^-24
  auto d = ih::run_op<uint16_t>(s, std::vector<std::vector<uint16_t>>{x});
  CHECK(d[0] == 0x4170);
  CHECK(d[1] == 0x7C00);
  CHECK(d[2] == 0x0002);
  CHECK(d[3] == 0x3C00);
}

TEST_CASE("interp tabs/tneg/trelu: zeros - NaN - INT_MIN", "[interp]") {
  std::vector<float> x = {-0.0f, 0.0f, -2, kNaN, -kInf, 3, -kNaN, 1};
  ih::OpSpec s;
  s.op = "pto.tabs";
  auto a = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(fbits(a[0]) == 0);  // |-0| = +0
  CHECK(a[2] == 2);
  CHECK(std::isnan(a[3]));
  CHECK(a[4] == kInf);
  CHECK((fbits(a[6]) & 0x80000000u) == 0);  // sign of NaN cleared
  s.op = "pto.tneg";
  auto n = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(fbits(n[0]) == 0);
  CHECK(fbits(n[1]) == 0x80000000u);
  CHECK(n[2] == 2);
  s.op = "pto.trelu";
  auto r = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(fbits(r[0]) == 0x80000000u);  // std::max(-0, 0) keeps -0
  CHECK(r[2] == 0);
  CHECK(std::isnan(r[3]));  // NaN passes through TRELU
  CHECK(r[4] == 0);
  CHECK(r[5] == 3);
  ih::OpSpec t;
  t.dt = "i32";
  t.op = "pto.tneg";
  std::vector<int32_t> y = {INT_MIN, 5, -5, 0, 0, 0, 0, 0};
  CHECK(ih::run_op<int32_t>(t, std::vector<std::vector<int32_t>>{y})[0] == INT_MIN);
  t.op = "pto.trelu";
  auto ri = ih::run_op<int32_t>(t, std::vector<std::vector<int32_t>>{y});
  CHECK(ri[0] == 0);
  CHECK(ri[1] == 5);
  CHECK(ri[2] == 0);
  t.op = "pto.tabs";
  t.arch = "a5";
  auto ai = ih::run_op<int32_t>(t, std::vector<std::vector<int32_t>>{y});
  CHECK(ai[0] == INT_MIN);  // wraps
  CHECK(ai[2] == 5);
}

TEST_CASE("interp trecip i32 truncates - 1/0 is a runtime error", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.trecip";
  s.dt = "i32";
  auto d = ih::run_op<int32_t>(s, std::vector<std::vector<int32_t>>{{1, -1, 2, 7, 1, 1, 1, 1}});
  CHECK(d[0] == 1);
  CHECK(d[1] == -1);
  CHECK(d[2] == 0);
  std::string err;
  ih::run_op<int32_t>(s, std::vector<std::vector<int32_t>>{{1, 0, 2, 7, 1, 1, 1, 1}}, &err);
  CHECK(err.find("division by zero") != std::string::npos);
}

TEST_CASE("interp tile-scalar arithmetic: tadds tsubs tmuls tmaxs tmins", "[interp]") {
  std::vector<float> x = {1, -2, kNaN, 0.5f, -0.0f, 0, 0, 0};
  ih::OpSpec s;
  s.lines = {"%v = arith.constant " + ih::hexf(0.25f) + " : f32"};
  s.extra_ins = "%v";
  s.extra_types = "f32";
  s.op = "pto.tadds";
  auto a = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(a[0] == 1.25f);
  CHECK(std::isnan(a[2]));
  s.op = "pto.tsubs";
  CHECK(ih::run_op<float>(s, std::vector<std::vector<float>>{x})[1] == -2.25f);
  s.op = "pto.tmuls";
  CHECK(ih::run_op<float>(s, std::vector<std::vector<float>>{x})[1] == -0.5f);
  s.op = "pto.tmaxs";
  auto m = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(m[0] == 1);
  CHECK(m[1] == 0.25f);
  CHECK(std::isnan(m[2]));  // max(NaN, s) = NaN (first operand)
  s.op = "pto.tmins";
  auto n = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(n[0] == 0.25f);
  CHECK(fbits(n[4]) == 0x80000000u);
  // NaN scalar: max(x, NaN) = x.
  s.op = "pto.tmaxs";
  s.lines = {"%v = arith.constant 0x7FC00000 : f32"};
  CHECK(ih::run_op<float>(s, std::vector<std::vector<float>>{x})[1] == -2);
  // Integer scalar with wrap.
  ih::OpSpec t;
  t.dt = "i16";
  t.C = 16;
  t.op = "pto.tmuls";
  t.lines = {"%v = arith.constant 300 : i16"};
  t.extra_ins = "%v";
  t.extra_types = "i16";
  std::vector<int16_t> y(16, 300);
  CHECK(ih::run_op<int16_t>(t, std::vector<std::vector<int16_t>>{y})[0] == 24464);
}

TEST_CASE("interp tdivs: tile/scalar and scalar/tile orders", "[interp]") {
  std::vector<float> x = {2, 0, -0.0f, 8, 1, 1, 1, 1};
  ih::OpSpec s;
  s.op = "pto.tdivs";
  s.lines = {"%v = arith.constant " + ih::hexf(1.0f) + " : f32"};
  s.extra_ins = "%v";
  s.extra_types = "f32";
  auto a = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(a[0] == 2);
  CHECK(a[3] == 8);
  // Scalar first: 1 / x.
  ih::Kernel k;
  std::string T = ih::tile("vec", 1, 8, "f32");
  int ix = k.buf(x), io = k.buf(std::vector<float>(8));
  k.load("%x", T, ix, 1, 8);
  k.scalar("%one", "f32", ih::hexf(1.0f));
  k.alloc("%d", T);
  k.op("pto.tdivs ins(%one, %x : f32, " + T + ") outs(%d : " + T + ")");
  k.store("%d", T, io, 1, 8);
  IH_RUN(k);
  auto d = k.get<float>(io);
  CHECK(d[0] == 0.5f);
  CHECK(d[1] == kInf);
  CHECK(d[2] == -kInf);
  CHECK(d[3] == 0.125f);
}

TEST_CASE("interp tdivs i32 by a zero scalar is a runtime error", "[interp]") {
  ih::OpSpec s;
  s.op = "pto.tdivs";
  s.dt = "i32";
  s.lines = {"%z = arith.constant 0 : i32"};
  s.extra_ins = "%z";
  s.extra_types = "i32";
  std::string err;
  auto d = ih::run_op<int32_t>(s, std::vector<std::vector<int32_t>>{std::vector<int32_t>(8, 3)}, &err);
  CHECK(d.empty());
  CHECK(err.find("integer division by zero") != std::string::npos);
}

TEST_CASE("interp texpands fills the valid region (f16 - i32 - one column tile)", "[interp]") {
  ih::Kernel k;
  std::string H = ih::tile("vec", 2, 16, "f16", "valid=?x?");
  int io = k.buf(std::vector<uint16_t>(32, 0x1234), "f16");
  k.init_full("%d", H, io, 2, 16, 1, 5);
  k.scalar("%v", "f16", "0xBC00");
  k.op("pto.texpands ins(%v : f16) outs(%d : " + H + ")");
  k.store_full("%d", H, io, 2, 16);
  std::string I = ih::tile("vec", 8, 1, "i32", "blayout=col_major");
  int j = k.buf(std::vector<int32_t>(8, 0), "i32");
  k.alloc("%e", I);
  k.scalar("%w", "i32", "-7");
  k.op("pto.texpands ins(%w : i32) outs(%e : " + I + ")");
  k.store("%e", I, j, 8, 1);
  IH_RUN(k);
  auto d = k.get<uint16_t>(io);
  for (int i = 0; i < 32; ++i) CHECK(d[size_t(i)] == ((i < 5) ? 0xBC00 : 0x1234));
  for (int32_t v : k.get<int32_t>(j)) CHECK(v == -7);
}

TEST_CASE("interp tlrelu / tprelu: x > 0 ? x : x * slope", "[interp]") {
  std::vector<float> x = {-2, 3, -0.0f, kNaN, -kInf, 0, 0, 0};
  ih::OpSpec s;
  s.op = "pto.tlrelu";
  s.lines = {"%sl = arith.constant " + ih::hexf(0.5f) + " : f32"};
  s.extra_ins = "%sl";
  s.extra_types = "f32";
  auto d = ih::run_op<float>(s, std::vector<std::vector<float>>{x});
  CHECK(d[0] == -1);
  CHECK(d[1] == 3);
  CHECK(fbits(d[2]) == 0x80000000u);
  CHECK(std::isnan(d[3]));
  CHECK(d[4] == -kInf);
  ih::OpSpec t;
  t.op = "pto.tprelu";
  std::vector<float> slope = {0.25f, 9, 2, 2, 0, 1, 1, 1};
  auto p = ih::run_op<float>(t, std::vector<std::vector<float>>{x, slope});
  CHECK(p[0] == -0.5f);
  CHECK(p[1] == 3);
  CHECK(std::isnan(p[4]));  // -inf * 0
}

TEST_CASE("interp taxpy: dst = s*src + dst - mixed f16 src forms the product in half", "[interp]") {
  ih::Kernel k;
  std::string F = ih::tile("vec", 1, 16, "f32"), H = ih::tile("vec", 1, 16, "f16");
  std::vector<uint16_t> src(16, 0x3C01);  // 1 + 2^-10
  int is = k.buf(src, "f16"), id = k.buf(std::vector<float>(16, 0.0f));
  k.load("%s", H, is, 1, 16);
  k.load("%d", F, id, 1, 16);
  k.scalar("%a", "f16", "0x3C01");
  k.op("pto.taxpy ins(%s, %a : " + H + ", f16) outs(%d : " + F + ")");
  k.store("%d", F, id, 1, 16);
  IH_RUN(k);
  // (1+2^-10)^2 = 1 + 2^-9 + 2^-20 in half -> 1 + 2^-9, then + 0 in f32.
  CHECK(fbits(k.get<float>(id)[0]) == 0x3F804000u);

  ih::Kernel q;
  std::string T = ih::tile("vec", 1, 8, "f32");
  int a = q.buf(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}), o = q.buf(std::vector<float>(8, 10.0f));
  q.load("%x", T, a, 1, 8);
  q.load("%d", T, o, 1, 8);
  q.scalar("%s", "f32", ih::hexf(-2.0f));
  q.op("pto.taxpy ins(%x, %s : " + T + ", f32) outs(%d : " + T + ")");
  q.store("%d", T, o, 1, 8);
  IH_RUN(q);
  auto d = q.get<float>(o);
  CHECK(d[0] == 8);
  CHECK(d[4] == 0);
  CHECK(d[7] == -6);
}

TEST_CASE("interp 3-term ops round after each operation (taddc tsubc taddsc tsubsc)", "[interp]") {
  float t = std::ldexp(1.0f, -24);
  std::vector<float> a = {1, 5, 1, 0, 0, 0, 0, 0}, b = {t, 2, 2, 0, 0, 0, 0, 0}, c = {t, 1, -3, 0, 0, 0, 0, 0};
  ih::OpSpec s;
  s.op = "pto.taddc";
  auto d = ih::run_op<float>(s, std::vector<std::vector<float>>{a, b, c});
  CHECK(d[0] == 1.0f);  // (1 + 2^-24) rounds to 1 first; one rounding would give 1 + 2^-23
  CHECK(d[1] == 8);
  CHECK(d[2] == 0);
  s.op = "pto.tsubc";
  auto e = ih::run_op<float>(s, std::vector<std::vector<float>>{a, b, c});
  CHECK(e[1] == 4);
  CHECK(e[2] == -4);
  ih::Kernel k;
  std::string I = ih::tile("vec", 1, 8, "i32");
  int x = k.buf(std::vector<int32_t>{INT_MAX, 1, 2, 3, 4, 5, 6, 7}, "i32");
  int y = k.buf(std::vector<int32_t>{0, 10, 20, 30, 40, 50, 60, 70}, "i32");
  int o = k.buf(std::vector<int32_t>(8), "i32");
  k.load("%a", I, x, 1, 8);
  k.load("%b", I, y, 1, 8);
  k.scalar("%v", "i32", "1");
  k.alloc("%d", I);
  k.op("pto.taddsc ins(%a, %v, %b : " + I + ", i32, " + I + ") outs(%d : " + I + ")");
  k.store("%d", I, o, 1, 8);
  k.alloc("%e", I);
  int o2 = k.buf(std::vector<int32_t>(8), "i32");
  k.op("pto.tsubsc ins(%a, %v, %b : " + I + ", i32, " + I + ") outs(%e : " + I + ")");
  k.store("%e", I, o2, 1, 8);
  IH_RUN(k);
  auto r = k.get<int32_t>(o);
  CHECK(r[0] == INT_MIN);  // wraps
  CHECK(r[1] == 12);
  auto r2 = k.get<int32_t>(o2);
  CHECK(r2[0] == INT_MAX - 1);
  CHECK(r2[1] == 10);
}

TEST_CASE("interp tmuladddst / tfusedmuladd(relu) / tsubrelu", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 1, 8, "f32");
  int ia = k.buf(std::vector<float>{2, -1, kNaN, 3, 0, 0, 0, 0});
  int ib = k.buf(std::vector<float>{3, 1, 1, -0.0f, 0, 0, 0, 0});
  int o1 = k.buf(std::vector<float>{1, 1, 1, 1, 1, 1, 1, 1});
  int o2 = k.buf(std::vector<float>{1, 1, 1, 1, 1, 1, 1, 1});
  int o3 = k.buf(std::vector<float>{1, 5, 1, 1, 1, 1, 1, 1});
  int o4 = k.buf(std::vector<float>(8));
  k.load("%a", T, ia, 1, 8);
  k.load("%b", T, ib, 1, 8);
  k.load("%d1", T, o1, 1, 8);
  k.load("%d2", T, o2, 1, 8);
  k.load("%d3", T, o3, 1, 8);
  k.alloc("%d4", T);
  k.op("pto.tmuladddst ins(%a, %b : " + T + ", " + T + ") outs(%d1 : " + T + ")");
  k.op("pto.tfusedmuladd ins(%a, %b : " + T + ", " + T + ") outs(%d2 : " + T + ")");
  k.op("pto.tfusedmuladdrelu ins(%a, %b : " + T + ", " + T + ") outs(%d3 : " + T + ")");
  k.op("pto.tsubrelu ins(%a, %b : " + T + ", " + T + ") outs(%d4 : " + T + ")");
  k.store("%d1", T, o1, 1, 8);
  k.store("%d2", T, o2, 1, 8);
  k.store("%d3", T, o3, 1, 8);
  k.store("%d4", T, o4, 1, 8);
  IH_RUN(k);
  auto d1 = k.get<float>(o1), d2 = k.get<float>(o2), d3 = k.get<float>(o3), d4 = k.get<float>(o4);
  CHECK(d1[0] == 7);   // 2*3 + 1
  CHECK(d1[1] == 0);   // -1*1 + 1
  CHECK(d2[0] == 5);   // 2*1 + 3
  CHECK(d2[1] == 0);   // -1*1 + 1
  CHECK(d3[0] == 5);
  CHECK(d3[1] == 0);   // relu(-1*5 + 1) = 0
  CHECK(fbits(d3[2]) == 0);  // relu(NaN) = 0 (v > 0 ? v : 0)
  CHECK(d4[0] == 0);   // relu(2-3)
  CHECK(d4[3] == 3);
  CHECK(fbits(d4[2]) == 0);
  CHECK(fbits(d4[4]) == 0);  // relu(0 - 0) = +0
}

TEST_CASE("interp tpart*: op where both are valid - the valid one elsewhere - else 0", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 2, 8, "f32", "valid=?x?");
  std::vector<float> a(16), b(16);
  for (int i = 0; i < 16; ++i) { a[size_t(i)] = float(i); b[size_t(i)] = 100.0f + float(i); }
  int ia = k.buf(a), ib = k.buf(b), io = k.buf(std::vector<float>(16, -1.0f)),
      im = k.buf(std::vector<float>(16, -1.0f));
  k.init_full("%a", T, ia, 2, 8, 2, 4);
  k.init_full("%b", T, ib, 2, 8, 1, 6);
  k.init_full("%d", T, io, 2, 8, 2, 8);
  k.init_full("%m", T, im, 2, 8, 2, 7);
  k.op("pto.tpartadd ins(%a, %b : " + T + ", " + T + ") outs(%d : " + T + ")");
  k.op("pto.tpartmax ins(%a, %b : " + T + ", " + T + ") outs(%m : " + T + ")");
  k.store_full("%d", T, io, 2, 8);
  k.store_full("%m", T, im, 2, 8);
  IH_RUN(k);
  auto d = k.get<float>(io), m = k.get<float>(im);
  CHECK(d[0] == 100);        // both valid
  CHECK(d[3] == 106);
  CHECK(d[4] == 104);        // only b valid (row 0, cols 4-5)
  CHECK(d[6] == 0);          // neither
  CHECK(d[8] == 8);          // row 1: only a
  CHECK(d[12] == 0);
  CHECK(m[0] == 100);
  CHECK(m[6] == 0);
  CHECK(m[7] == -1);         // outside m's valid region: untouched
  CHECK(m[9] == 9);
}

TEST_CASE("interp tcmp: row-aligned LSB-first u8 mask - dst zeroed first - NaN compares", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 2, 16, "f32", "valid=?x?");
  std::string M = ih::tile("vec", 2, 32, "ui8");
  std::vector<float> a(32, 0), b(32, 0);
  for (int i = 0; i < 32; ++i) { a[size_t(i)] = float(i % 16); b[size_t(i)] = 5; }
  a[3] = kNaN;
  int ia = k.buf(a), ib = k.buf(b), io = k.buf(std::vector<uint8_t>(64, 0xEE), "ui8"),
      in = k.buf(std::vector<uint8_t>(64, 0xEE), "ui8");
  k.init_full("%a", T, ia, 2, 16, 2, 10);
  k.init_full("%b", T, ib, 2, 16, 2, 10);
  k.load("%m", M, io, 2, 32);
  k.load("%n", M, in, 2, 32);
  k.op("pto.tcmp ins(%a, %b {cmpMode = #pto<cmp lt>} : " + T + ", " + T + ") outs(%m : " + M + ")");
  k.op("pto.tcmp ins(%a, %b {cmpMode = #pto<cmp ne>} : " + T + ", " + T + ") outs(%n : " + M + ")");
  k.store("%m", M, io, 2, 32);
  k.store("%n", M, in, 2, 32);
  IH_RUN(k);
  auto m = k.get<uint8_t>(io), n = k.get<uint8_t>(in);
  // Row 0: cols 0..9 valid; x < 5 for 0,1,2,4 (3 is NaN).
  CHECK(m[0] == 0x17);
  CHECK(m[1] == 0x00);
  CHECK(m[2] == 0x00);  // rest of the mask tile zeroed
  CHECK(m[32] == 0x1F);  // row 1 starts at byte 32: 0..4 < 5
  CHECK(m[33] == 0);
  // ne: all but col 5; NaN != 5 is true. Cols 8, 9 in byte 1.
  CHECK(n[0] == 0xDF);
  CHECK(n[1] == 0x03);
  CHECK(n[32] == 0xDF);
}

TEST_CASE("interp tcmps: exact equality (not the simulator's |a-b| < 1e-9) - u32 mask words", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 1, 64, "f32");
  std::string M = ih::tile("vec", 1, 8, "ui32");
  std::vector<float> a(64, 2e-12f);
  a[0] = 1e-12f;
  a[33] = 1e-12f;
  int ia = k.buf(a), io = k.buf(std::vector<uint32_t>(8, 0xDEADBEEF), "ui32");
  k.load("%a", T, ia, 1, 64);
  k.load("%m", M, io, 1, 8);
  k.scalar("%s", "f32", ih::hexf(1e-12f));
  k.op("pto.tcmps ins(%a, %s {cmpMode = #pto<cmp eq>} : " + T + ", f32) outs(%m : " + M + ")");
  k.store("%m", M, io, 1, 8);
  IH_RUN(k);
  auto m = k.get<uint32_t>(io);
  CHECK(m[0] == 1u);        // only column 0 equals exactly
  CHECK(m[1] == 2u);        // column 33 -> word 1 bit 1
  CHECK(m[2] == 0u);        // zeroed
  // gt on integers against a scalar, u8 mask.
  ih::OpSpec s;
  s.op = "pto.tcmps";
  s.dt = "i32";
  s.dst_dt = "ui8";
  s.C = 32;
  s.attrs = "{cmpMode = #pto<cmp ge>}";
  s.lines = {"%v = arith.constant -1 : i32"};
  s.extra_ins = "%v";
  s.extra_types = "i32";
  std::vector<int32_t> x(32, -5);
  x[0] = -1; x[9] = INT_MAX; x[31] = 0;
  auto d = ih::run_op<uint8_t>(s, std::vector<std::vector<int32_t>>{x});
  CHECK(d[0] == 0x01);
  CHECK(d[1] == 0x02);
  CHECK(d[2] == 0x00);
  CHECK(d[3] == 0x80);
}

TEST_CASE("interp tsel / tsels read the canonical row-aligned mask", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 2, 16, "f32", "valid=?x?");
  std::string M = ih::tile("vec", 2, 32, "ui8");
  std::vector<uint8_t> mask(64, 0);
  mask[0] = 0x05;   // row 0: cols 0, 2
  mask[1] = 0x02;   // row 0: col 9
  mask[32] = 0xFF;  // row 1: cols 0..7
  std::vector<float> a(32), b(32);
  for (int i = 0; i < 32; ++i) { a[size_t(i)] = float(i); b[size_t(i)] = -float(i) - 1; }
  int imk = k.buf(mask, "ui8"), ia = k.buf(a), ib = k.buf(b), io = k.buf(std::vector<float>(32, 42)),
      is = k.buf(std::vector<float>(32, 42));
  k.load("%mk", M, imk, 2, 32);
  k.init_full("%a", T, ia, 2, 16, 2, 10);
  k.init_full("%b", T, ib, 2, 16, 2, 10);
  k.init_full("%d", T, io, 2, 16, 2, 10);
  k.init_full("%e", T, is, 2, 16, 2, 10);
  k.op("pto.tsel ins(%mk, %a, %b : " + M + ", " + T + ", " + T + ") outs(%d : " + T + ")");
  k.scalar("%z", "f32", ih::hexf(0.5f));
  k.op("pto.tsels ins(%mk, %a, %z : " + M + ", " + T + ", f32) outs(%e : " + T + ")");
  k.store_full("%d", T, io, 2, 16);
  k.store_full("%e", T, is, 2, 16);
  IH_RUN(k);
  auto d = k.get<float>(io), e = k.get<float>(is);
  CHECK(d[0] == 0);
  CHECK(d[1] == -2);
  CHECK(d[2] == 2);
  CHECK(d[9] == 9);
  CHECK(d[8] == -9);
  CHECK(d[10] == 42);  // outside the valid region
  CHECK(d[16] == 16);  // row 1 col 0 selected
  CHECK(d[24] == -25); // row 1 col 8: mask byte 33 = 0
  CHECK(e[0] == 0);
  CHECK(e[1] == 0.5f);
  CHECK(e[9] == 9);
  CHECK(e[25] == 0.5f);
}
