// Interpreter: TCVT (round modes, saturation, float formats), TDEQUANT,
// generators (TCI, TTRI), sorting (TSORT32, TMRGSORT) and refused ops.
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

template <class O, class E>
std::vector<O> cvt(const std::string& sdt, const std::string& ddt, int C, const std::vector<E>& x,
                   const std::string& attrs = "", const std::string& arch = "a3") {
  ih::OpSpec s;
  s.op = "pto.tcvt";
  s.dt = sdt;
  s.dst_dt = ddt;
  s.C = C;
  s.attrs = attrs;
  s.arch = arch;
  return ih::run_op<O>(s, std::vector<std::vector<E>>{x});
}
std::string rm(const std::string& m, const std::string& sat = "") {
  return "{rmode = #pto<round_mode " + m + ">" +
         (sat.empty() ? "" : ", sat_mode = #pto<saturation_mode " + sat + ">") + "}";
}
}  // namespace

TEST_CASE("interp tcvt f32 -> i32 in every round mode", "[interp]") {
  std::vector<float> x = {2.5f, -2.5f, 3.5f, -0.5f, 1.7f, -1.7f, 0.5f, 7};
  struct Case {
    const char* mode;
    std::vector<int32_t> want;
  };
  std::vector<Case> cases = {
      {"RINT", {2, -2, 4, 0, 2, -2, 0, 7}},    {"ROUND", {3, -3, 4, -1, 2, -2, 1, 7}},
      {"FLOOR", {2, -3, 3, -1, 1, -2, 0, 7}},  {"CEIL", {3, -2, 4, 0, 2, -1, 1, 7}},
      {"TRUNC", {2, -2, 3, 0, 1, -1, 0, 7}},   {"ODD", {3, -3, 3, -1, 2, -2, 1, 7}},
      {"NONE", {2, -2, 3, 0, 1, -1, 0, 7}},
  };
  for (auto& c : cases) {
    INFO(c.mode);
    CHECK(cvt<int32_t>("f32", "i32", 8, x, rm(c.mode)) == c.want);
  }
  // Default mode is RINT.
  CHECK(cvt<int32_t>("f32", "i32", 8, x) == cases[0].want);
}

TEST_CASE("interp tcvt saturation: f32 -> i8 and i32 -> i16 - NaN -> 0", "[interp]") {
  std::vector<float> x(32, 0);
  x[0] = 300; x[1] = -300; x[2] = kNaN; x[3] = 127.5f; x[4] = -128.5f; x[5] = kInf; x[6] = -kInf;
  auto on = cvt<int8_t>("f32", "i8", 32, x, rm("RINT", "ON"), "a5");
  CHECK(on[0] == 127);
  CHECK(on[1] == -128);
  CHECK(on[2] == 0);
  CHECK(on[3] == 127);
  CHECK(on[4] == -128);
  CHECK(on[5] == 127);
  CHECK(on[6] == -128);
  auto off = cvt<int8_t>("f32", "i8", 32, x, rm("RINT", "OFF"), "a5");
  CHECK(off[0] == 44);    // 300 mod 256
  CHECK(off[1] == -44);   // -300 mod 256
  CHECK(off[2] == 0);
  CHECK(off[3] == -128);  // rint(127.5) = 128 wraps
  std::vector<int32_t> y = {70000, -70000, 32767, -32768, 0, 0, 0, 0};
  auto w = cvt<int16_t>("i32", "i16", 8, y, rm("RINT"));
  CHECK(w[0] == 4464);
  CHECK(w[1] == -4464);
  auto s = cvt<int16_t>("i32", "i16", 8, y, rm("RINT", "ON"));
  CHECK(s[0] == 32767);
  CHECK(s[1] == -32768);
  CHECK(s[2] == 32767);
}

TEST_CASE("interp tcvt float -> float is RNE whatever the rmode - sat clamps overflow", "[interp]") {
  std::vector<float> x(16, 0);
  x[0] = 1 + std::ldexp(1.0f, -11);                            // tie -> 1.0
  x[1] = 1 + std::ldexp(1.0f, -10) + std::ldexp(1.0f, -11);    // tie -> 0x3C02
  x[2] = 70000;                                                // overflow
  x[3] = std::ldexp(1.0f, -25);                                // tie with 0 -> +0
  x[4] = 3 * std::ldexp(1.0f, -26);                            // -> 2^-24
  x[5] = -0.0f;
  x[6] = kNaN;
  x[7] = 65519;                                                // below the midpoint -> 65504
  auto h = cvt<uint16_t>("f32", "f16", 16, x, rm("TRUNC"));
  CHECK(h[0] == 0x3C00);
  CHECK(h[1] == 0x3C02);
  CHECK(h[2] == 0x7C00);
  CHECK(h[3] == 0x0000);
  CHECK(h[4] == 0x0001);
  CHECK(h[5] == 0x8000);
  CHECK((h[6] & 0x7C00) == 0x7C00);
  CHECK(h[7] == 0x7BFF);
  auto hs = cvt<uint16_t>("f32", "f16", 16, x, rm("RINT", "ON"));
  CHECK(hs[2] == 0x7BFF);  // clamped to 65504
  CHECK(hs[0] == 0x3C00);
  std::vector<float> b(16, 0);
  b[0] = 1 + std::ldexp(1.0f, -8);                           // tie -> 0x3F80
  b[1] = 1 + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -9);    // -> 0x3F81
  b[2] = 1 + 3 * std::ldexp(1.0f, -8);                       // tie -> even 0x3F82
  b[3] = kInf;
  auto bf = cvt<uint16_t>("f32", "bf16", 16, b, rm("FLOOR"));
  CHECK(bf[0] == 0x3F80);
  CHECK(bf[1] == 0x3F81);
  CHECK(bf[2] == 0x3F82);
  CHECK(bf[3] == 0x7F80);
  // f16 -> f32 and bf16 -> f32 are exact.
  std::vector<uint16_t> hx(16, 0);
  hx[0] = 0x0001; hx[1] = 0x7BFF; hx[2] = 0xFC00; hx[3] = 0x3555;
  auto f = cvt<float>("f16", "f32", 16, hx);
  CHECK(f[0] == std::ldexp(1.0f, -24));
  CHECK(f[1] == 65504);
  CHECK(f[2] == -kInf);
  CHECK(f[3] == 0.333251953125f);
  std::vector<uint16_t> bx(16, 0);
  bx[0] = 0x3F81; bx[1] = 0x0001;
  auto g = cvt<float>("bf16", "f32", 16, bx);
  CHECK(g[0] == 1 + std::ldexp(1.0f, -7));
  CHECK(fbits(g[1]) == 0x00010000u);
}

TEST_CASE("interp tcvt integer -> float rounds once (i32 -> f16 - i64 -> f32 - u8 -> f16)", "[interp]") {
  std::vector<int32_t> x(16, 0);
  x[0] = 2049; x[1] = 2051; x[2] = 70000; x[3] = -65520; x[4] = INT_MIN;
  auto h = cvt<uint16_t>("i32", "f16", 16, x, rm("RINT"));
  CHECK(h[0] == 0x6800);  // 2049: tie -> 2048
  CHECK(h[1] == 0x6802);  // 2051: tie -> 2052
  CHECK(h[2] == 0x7C00);
  CHECK(h[3] == 0xFC00);  // -65520 is the midpoint: rounds to even (-inf)
  auto hs = cvt<uint16_t>("i32", "f16", 16, x, rm("RINT", "ON"));
  CHECK(hs[2] == 0x7BFF);
  CHECK(hs[4] == 0xFBFF);
  std::vector<int64_t> y(8, 0);
  y[0] = (int64_t(1) << 60) + (int64_t(1) << 36) + 1;  // via double this would round to 2^60
  y[1] = -1;
  y[2] = INT64_MIN;
  auto f = cvt<float>("i64", "f32", 8, y, rm("RINT"), "a5");
  CHECK(fbits(f[0]) == 0x5D800001u);
  CHECK(f[1] == -1);
  CHECK(f[2] == -std::ldexp(1.0f, 63));
  std::vector<uint8_t> u(32, 0);
  u[0] = 255; u[1] = 128;
  auto uh = cvt<uint16_t>("ui8", "f16", 32, u);
  CHECK(uh[0] == 0x5BF8);
  CHECK(uh[1] == 0x5800);
}

TEST_CASE("interp tcvt f16 -> i8/u8 and u32 -> f32 (unsigned source)", "[interp]") {
  std::vector<uint16_t> x(32, 0);
  x[0] = 0x4D00;  // 20
  x[1] = 0xC900;  // -10
  x[2] = 0x5BF8;  // 255
  x[3] = 0x3800;  // 0.5
  auto u = cvt<uint8_t>("f16", "ui8", 32, x, rm("ROUND", "ON"));
  CHECK(u[0] == 20);
  CHECK(u[1] == 0);   // clamped
  CHECK(u[2] == 255);
  CHECK(u[3] == 1);   // ties away
  std::vector<uint32_t> y = {0xFFFFFFFFu, 0x80000000u, 1, 0, 0, 0, 0, 0};
  auto f = cvt<float>("ui32", "f32", 8, y);
  CHECK(f[0] == 4294967296.0f);
  CHECK(f[1] == 2147483648.0f);
}

TEST_CASE("interp tdequant: (src - offset(r)) * scale(r)", "[interp]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 2, 16, "i16");
  std::string P = ih::tile("vec", 2, 8, "f32");
  std::string D = ih::tile("vec", 2, 16, "f32");
  std::vector<int16_t> x(32);
  for (int i = 0; i < 32; ++i) x[size_t(i)] = int16_t(i - 16);
  int ix = k.buf(x, "i16"), isc = k.buf(std::vector<float>{0.5f, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}),
      iof = k.buf(std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0, -3, 0, 0, 0, 0, 0, 0, 0}),
      io = k.buf(std::vector<float>(32));
  k.load("%x", S, ix, 2, 16);
  k.load("%s", P, isc, 2, 8);
  k.load("%o", P, iof, 2, 8);
  k.alloc("%d", D);
  k.op("pto.tdequant ins(%x, %s, %o : " + S + ", " + P + ", " + P + ") outs(%d : " + D + ")");
  k.store("%d", D, io, 2, 16);
  IH_RUN(k);
  auto d = k.get<float>(io);
  CHECK(d[0] == (-16 - 1) * 0.5f);
  CHECK(d[15] == (-1 - 1) * 0.5f);
  CHECK(d[16] == (0 + 3) * 2.0f);
  CHECK(d[31] == (15 + 3) * 2.0f);
}

TEST_CASE("interp ttri lower/upper with a diagonal offset (causal masks)", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 4, 8, "f32", "valid=?x?");
  std::string I = ih::tile("vec", 4, 8, "i32");
  int io = k.buf(std::vector<float>(32, 9)), ii = k.buf(std::vector<int32_t>(32, 9), "i32"),
      iu = k.buf(std::vector<int32_t>(32, 9), "i32");
  k.init_full("%t", T, io, 4, 8, 4, 4);
  k.scalar("%z", "i32", "0");
  k.scalar("%one", "i32", "1");
  k.op("pto.ttri ins(%z : i32) outs(%t : " + T + ")");
  k.store_full("%t", T, io, 4, 8);
  k.alloc("%l", I);
  k.alloc("%u", I);
  k.op("pto.ttri ins(%one : i32) outs(%l : " + I + ")");
  k.op("pto.ttri ins(%one {upperOrLower = 1 : i32} : i32) outs(%u : " + I + ")");
  k.store("%l", I, ii, 4, 8);
  k.store("%u", I, iu, 4, 8);
  IH_RUN(k);
  auto t = k.get<float>(io);
  std::vector<float> want = {1, 0, 0, 0, 9, 9, 9, 9, 1, 1, 0, 0, 9, 9, 9, 9,
                             1, 1, 1, 0, 9, 9, 9, 9, 1, 1, 1, 1, 9, 9, 9, 9};
  CHECK(t == want);
  auto l = k.get<int32_t>(ii), u = k.get<int32_t>(iu);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) {
      INFO("r=" << r << " c=" << c);
      CHECK(l[size_t(r * 8 + c)] == (c <= r + 1 ? 1 : 0));
      CHECK(u[size_t(r * 8 + c)] == (c < r + 1 ? 0 : 1));
    }
}

TEST_CASE("interp tci ascending and descending (i32 - i16 wrap)", "[interp]") {
  ih::Kernel k;
  std::string T = ih::tile("vec", 1, 8, "i32");
  std::string H = ih::tile("vec", 1, 16, "i16");
  int io = k.buf(std::vector<int32_t>(8), "i32"), id = k.buf(std::vector<int32_t>(8), "i32"),
      ih16 = k.buf(std::vector<int16_t>(16), "i16");
  k.alloc("%a", T);
  k.alloc("%b", T);
  k.alloc("%h", H);
  k.scalar("%s", "i32", "-3");
  k.scalar("%hs", "i16", "32760");
  k.op("pto.tci ins(%s : i32) outs(%a : " + T + ")");
  k.op("pto.tci ins(%s {descending = true} : i32) outs(%b : " + T + ")");
  k.op("pto.tci ins(%hs : i16) outs(%h : " + H + ")");
  k.store("%a", T, io, 1, 8);
  k.store("%b", T, id, 1, 8);
  k.store("%h", H, ih16, 1, 16);
  IH_RUN(k);
  CHECK(k.get<int32_t>(io) == std::vector<int32_t>{-3, -2, -1, 0, 1, 2, 3, 4});
  CHECK(k.get<int32_t>(id) == std::vector<int32_t>{-3, -4, -5, -6, -7, -8, -9, -10});
  auto h = k.get<int16_t>(ih16);
  CHECK(h[7] == 32767);
  CHECK(h[8] == -32768);
}

TEST_CASE("interp tsort32: 32-element blocks - descending - ties by smaller index", "[interp]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 1, 64, "f32");
  std::string I = ih::tile("vec", 1, 64, "ui32");
  std::string D = ih::tile("vec", 1, 128, "f32");
  std::vector<float> x(64);
  std::vector<uint32_t> idx(64);
  for (int i = 0; i < 64; ++i) { x[size_t(i)] = float(i % 5); idx[size_t(i)] = uint32_t(100 + i); }
  x[40] = kNaN;
  int ix = k.buf(x), ii = k.buf(idx, "ui32"), io = k.buf(std::vector<float>(128));
  k.load("%x", S, ix, 1, 64);
  k.load("%i", I, ii, 1, 64);
  k.alloc("%d", D);
  k.op("pto.tsort32 ins(%x, %i : " + S + ", " + I + ") outs(%d : " + D + ")");
  k.store("%d", D, io, 1, 128);
  IH_RUN(k);
  auto d = k.get<uint32_t>(io);
  // Block 0: values 4 at positions 4, 9, 14, 19, 24, 29 -> indices 104, 109 ...
  CHECK(bitsf(d[0]) == 4);
  CHECK(d[1] == 104);
  CHECK(bitsf(d[2]) == 4);
  CHECK(d[3] == 109);
  CHECK(bitsf(d[62]) == 0);  // the last record of block 0 is the last 0 (position 30)
  CHECK(d[63] == 130);
  // Block 1 (positions 32..63): the NaN sorts first.
  CHECK(std::isnan(bitsf(d[64])));
  CHECK(d[65] == 140);
  CHECK(bitsf(d[66]) == 4);
  CHECK(d[67] == 134);
}

TEST_CASE("interp tmrgsort single-list form merges 4 sorted blocks", "[interp]") {
  ih::Kernel k;
  std::string S = ih::tile("vec", 1, 16, "f32");
  // 4 blocks of 2 records (blockLen = 4 elements); records = (value, index bits).
  std::vector<float> x = {9, bitsf(0), 1, bitsf(1),   //
                          8, bitsf(2), 7, bitsf(3),   //
                          10, bitsf(4), 0, bitsf(5),  //
                          9, bitsf(6), 2, bitsf(7)};
  int ix = k.buf(x), io = k.buf(std::vector<float>(16));
  k.load("%x", S, ix, 1, 16);
  k.alloc("%d", S);
  k.scalar("%bl", "i32", "4");
  k.op("pto.tmrgsort ins(%x, %bl : " + S + ", i32) outs(%d : " + S + ")");
  k.store("%d", S, io, 1, 16);
  IH_RUN(k);
  auto d = k.get<uint32_t>(io);
  std::vector<float> vals;
  std::vector<uint32_t> ids;
  for (int i = 0; i < 8; ++i) {
    vals.push_back(bitsf(d[size_t(2 * i)]));
    ids.push_back(d[size_t(2 * i + 1)]);
  }
  CHECK(vals == std::vector<float>{10, 9, 9, 8, 7, 2, 1, 0});
  CHECK(ids == std::vector<uint32_t>{4, 0, 6, 2, 3, 7, 1, 5});  // ties: the earlier block first
}

TEST_CASE("interp refuses ops it does not implement with a clear message", "[interp]") {
  ih::Kernel k;
  k.arch = "a5";
  std::string A = ih::tile("vec", 1, 16, "f32"), H = ih::tile("vec", 1, 16, "f16");
  k.alloc("%a", A);
  k.alloc("%b", A);
  k.alloc("%h", H);
  k.op("pto.taddreluconv ins(%a, %b : " + A + ", " + A + ") outs(%h : " + H + ")");
  IH_FAILS(k, "op pto.taddreluconv is not supported by the interpreter");
}
