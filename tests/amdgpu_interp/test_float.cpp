// Every float instruction of the backend's list against a host reference,
// over special values (NaN, sNaN, inf, -0, denormals, saturating and
// rounding-tie cases), with source modifiers and inline constants, on
// every chip.
#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>

#include "harness.h"

using namespace amdgpu_test;

namespace {

float F(uint64_t b) { return std::bit_cast<float>(uint32_t(b)); }
uint64_t B(float f) { return std::bit_cast<uint32_t>(f); }
double D(uint64_t b) { return std::bit_cast<double>(b); }
uint64_t B(double d) { return std::bit_cast<uint64_t>(d); }

bool snan32(uint32_t b) { return (b & 0x7f800000) == 0x7f800000 && (b & 0x7fffff) && !(b & 0x400000); }
bool denorm32(uint32_t b) { return (b & 0x7f800000) == 0 && (b & 0x7fffff); }

std::vector<uint64_t> f32_values() {
  std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1.5f, 2.5f, -2.5f, 3.7f, -3.7f, 1e-40f, -1e-40f,
                          FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, 100.25f, 1e10f, -1e10f,
                          3e9f, -5e9f, 0.1f, 7.0f, 65504.0f, 65520.0f, 6e-8f, 1e-3f, 3.14159265f, 123456789.0f,
                          -0.75f, 2.0f, 4.0f, -126.5f, 130.0f, 1e-45f, 5.9604645e-8f, 2.9802322e-8f, 16777217.0f};
  std::vector<uint64_t> out;
  for (float f : v) out.push_back(B(f));
  out.push_back(0x7fc00000);  // qNaN
  out.push_back(0xffc00001);  // -qNaN with payload
  out.push_back(0x7fa00000);  // sNaN
  out.push_back(0x00000001);  // smallest denormal
  uint32_t r = 12345;
  while (out.size() < 128) {
    r = r * 1103515245u + 12345u;
    out.push_back((r & 0x3fffffff) ^ (r & 0x80000000) ^ 0x20000000);
  }
  return out;
}

uint32_t ref_minmax(uint32_t a, uint32_t b, bool is_max) {
  if (snan32(a) || snan32(b)) return 0x7fc00000;
  float x = F(a), y = F(b);
  if (std::isnan(x)) return b;
  if (std::isnan(y)) return a;
  if (x == 0 && y == 0) return (std::signbit(x) != is_max) ? a : b;
  return B(is_max ? std::fmax(x, y) : std::fmin(x, y));
}

uint32_t ref_cvt_u32(float f) {
  if (std::isnan(f) || f <= 0) return 0;
  if (f >= 4294967296.0) return 0xffffffff;
  return uint32_t(f);
}

uint32_t ref_cvt_i32(float f) {
  if (std::isnan(f)) return 0;
  if (f >= 2147483648.0) return 0x7fffffff;
  if (f < -2147483648.0) return 0x80000000;
  return uint32_t(int32_t(f));
}

unsigned ref_class(float f) {
  uint32_t b = B(f);
  if (std::isnan(f)) return snan32(b) ? 0 : 1;
  bool n = std::signbit(f);
  if (std::isinf(f)) return n ? 2 : 9;
  if (f == 0) return n ? 5 : 6;
  if (denorm32(b)) return n ? 4 : 7;
  return n ? 3 : 8;
}

bool ref_fcmp(const std::string& op, float a, float b) {
  bool un = std::isnan(a) || std::isnan(b);
  if (op == "eq") return !un && a == b;
  if (op == "lg") return !un && a != b;
  if (op == "lt") return !un && a < b;
  if (op == "le") return !un && a <= b;
  if (op == "gt") return !un && a > b;
  if (op == "ge") return !un && a >= b;
  if (op == "o") return !un;
  if (op == "u") return un;
  return !ref_fcmp(op.substr(1) == "eq" ? "eq" : op.substr(1), a, b);  // neq, nlg, nlt, nle, ngt, nge
}

std::vector<OpCase> f32_cases() {
  using R = std::function<uint64_t(uint64_t, uint64_t, uint64_t, unsigned)>;
  auto c = [](std::string name, std::string text, R ref, unsigned ulps = 0) {
    return OpCase{std::move(name), std::move(text), std::move(ref), ulps, 32};
  };
  std::vector<OpCase> v = {
      c("add", "  v_add_f32 %D%, %X%, %Y%", [](auto x, auto y, auto, unsigned) { return B(F(x) + F(y)); }),
      c("sub", "  v_sub_f32 %D%, %X%, %Y%", [](auto x, auto y, auto, unsigned) { return B(F(x) - F(y)); }),
      c("mul", "  v_mul_f32 %D%, %X%, %Y%", [](auto x, auto y, auto, unsigned) { return B(F(x) * F(y)); }),
      c("fma", "  v_fma_f32 %D%, %X%, %Y%, %Z%",
        [](auto x, auto y, auto z, unsigned) { return B(std::fma(F(x), F(y), F(z))); }),
      c("add_mods", "  v_add_f32_e64 %D%, -%X%, |%Y%|",
        [](auto x, auto y, auto, unsigned) { return B(-F(x) + std::fabs(F(y))); }),
      c("mul_negabs", "  v_mul_f32_e64 %D%, -|%X%|, %Y%",
        [](auto x, auto y, auto, unsigned) { return B(-std::fabs(F(x)) * F(y)); }),
      c("fma_consts", "  v_fma_f32 %D%, %X%, -4.0, 0.15915494",
        [](auto x, auto, auto, unsigned) { return B(std::fma(F(x), -4.0f, F(0x3e22f983))); }),
      c("mul_half", "  v_mul_f32 %D%, 0.5, %X%", [](auto x, auto, auto, unsigned) { return B(0.5f * F(x)); }),
      c("mul_literal", "  v_mul_f32 %D%, 0x40400000, %X%", [](auto x, auto, auto, unsigned) { return B(3.0f * F(x)); }),
      c("min", "  v_min_f32 %D%, %X%, %Y%", [](auto x, auto y, auto, unsigned) { return ref_minmax(x, y, false); }),
      c("max", "  v_max_f32 %D%, %X%, %Y%", [](auto x, auto y, auto, unsigned) { return ref_minmax(x, y, true); }),
      c("rcp", "  v_rcp_f32 %D%, %X%", [](auto x, auto, auto, unsigned) { return B(1.0f / F(x)); }, 1),
      c("rcp_iflag", "  v_rcp_iflag_f32 %D%, %X%", [](auto x, auto, auto, unsigned) { return B(1.0f / F(x)); }, 1),
      c("sqrt", "  v_sqrt_f32 %D%, %X%", [](auto x, auto, auto, unsigned) { return B(std::sqrt(F(x))); }),
      c("rsq", "  v_rsq_f32 %D%, %X%",
        [](auto x, auto, auto, unsigned) { return B(float(1.0 / std::sqrt(double(F(x))))); }, 1),
      c("exp", "  v_exp_f32 %D%, %X%",
        [](auto x, auto, auto, unsigned) {
          uint32_t r = uint32_t(B(float(std::exp2(double(F(x))))));
          return uint64_t(denorm32(r) ? 0 : r);
        },
        1),
      c("log", "  v_log_f32 %D%, %X%",
        [](auto x, auto, auto, unsigned) {
          float f = denorm32(uint32_t(x)) ? 0.0f : F(x);
          return B(f == 0 ? -INFINITY : float(std::log2(double(f))));
        },
        1),
      c("ldexp", "  v_cvt_i32_f32 v13, %Y%\n  v_max_i32 v13, -200, v13\n  v_min_i32 v13, 0x12c, v13\n  v_ldexp_f32 %D%, %X%, v13",
        [](auto x, auto y, auto, unsigned) {
          int e = int(int32_t(ref_cvt_i32(F(y))));
          e = std::min(300, std::max(-200, e));
          return B(std::ldexp(F(x), e));
        }),
      c("rndne", "  v_rndne_f32 %D%, %X%", [](auto x, auto, auto, unsigned) { return B(std::nearbyint(F(x))); }),
      c("trunc", "  v_trunc_f32 %D%, %X%", [](auto x, auto, auto, unsigned) { return B(std::trunc(F(x))); }),
      c("floor", "  v_floor_f32 %D%, %X%", [](auto x, auto, auto, unsigned) { return B(std::floor(F(x))); }),
      c("ceil", "  v_ceil_f32 %D%, %X%", [](auto x, auto, auto, unsigned) { return B(std::ceil(F(x))); }),
      c("cvt_f32_u32", "  v_cvt_f32_u32 %D%, %X%", [](auto x, auto, auto, unsigned) { return B(float(uint32_t(x))); }),
      c("cvt_f32_i32", "  v_cvt_f32_i32 %D%, %X%",
        [](auto x, auto, auto, unsigned) { return B(float(int32_t(uint32_t(x)))); }),
      c("cvt_f16_f32", "  v_cvt_f16_f32 %D%, %X%",
        [](auto x, auto, auto, unsigned) { return uint64_t(std::bit_cast<uint16_t>(_Float16(F(x)))); }),
      c("cvt_f32_f16", "  v_cvt_f32_f16 %D%, %X%",
        [](auto x, auto, auto, unsigned) { return B(float(std::bit_cast<_Float16>(uint16_t(x)))); }),
      c("cvt_f32_f16_const", "  v_cvt_f32_f16 %D%, -2.0", [](auto, auto, auto, unsigned) { return B(-2.0f); }),
  };
  // Integer results: compared exactly (no float tolerance).
  v.push_back({"cvt_u32_f32", "  v_cvt_u32_f32 %D%, %X%", [](auto x, auto, auto, unsigned) { return uint64_t(ref_cvt_u32(F(x))); }, 0, 0});
  v.push_back({"cvt_i32_f32", "  v_cvt_i32_f32 %D%, %X%", [](auto x, auto, auto, unsigned) { return uint64_t(ref_cvt_i32(F(x))); }, 0, 0});
  for (unsigned k = 0; k < 10; ++k) {
    std::string t = "  s_mov_b32 s30, " + std::to_string(1u << k) + "\n  v_cmp_class_f32_e64 %M4%, %X%, s30\n" +
                    "  v_cndmask_b32_e64 %D%, 0, 1, %M4%";
    v.push_back({"class_bit" + std::to_string(k), t,
                 [k](auto x, auto, auto, unsigned) { return uint64_t(ref_class(F(x)) == k); }, 0, 0});
  }
  v.push_back({"class_e32", "  v_mov_b32 v13, 0x3fc\n  v_cmp_class_f32 %VCC%, %X%, v13\n  v_cndmask_b32 %D%, 0, 1, %VCC%",
               [](auto x, auto, auto, unsigned) { return uint64_t(ref_class(F(x)) >= 2); }, 0, 0});
  for (std::string op : {"eq", "lg", "lt", "le", "gt", "ge", "o", "u", "neq", "nlg", "nlt", "nle", "ngt", "nge"}) {
    v.push_back({"cmp_" + op, "  v_cmp_" + op + "_f32_e64 %M4%, %X%, %Y%\n  v_cndmask_b32_e64 %D%, 0, 1, %M4%",
                 [op](auto x, auto y, auto, unsigned) { return uint64_t(ref_fcmp(op, F(x), F(y))); }, 0, 0});
  }
  v.push_back({"cmp_lt_e32", "  v_cmp_lt_f32 %VCC%, %X%, %Y%\n  v_cndmask_b32 %D%, %Z%, %X%, %VCC%",
               [](auto x, auto y, auto z, unsigned) { return ref_fcmp("lt", F(x), F(y)) ? x : z; }, 0, 0});
  return v;
}

std::vector<uint64_t> f64_values() {
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 1e-310, -1e-310, DBL_MIN, DBL_MAX, -DBL_MAX,
                           INFINITY, -INFINITY, 3.141592653589793, 1e300, -1e-300, 0.1, 7.0, 1.0 / 3.0,
                           4.9e-324, 123456789.123, -0.75, 2.0, 1e-45, 3.4e38};
  std::vector<uint64_t> out;
  for (double d : v) out.push_back(B(d));
  out.push_back(0x7ff8000000000000ull);
  out.push_back(0x7ff4000000000000ull);
  uint64_t r = 99;
  while (out.size() < 64) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    out.push_back((r & 0x3fffffffffffffffull) ^ 0x2000000000000000ull ^ (r & 0x8000000000000000ull));
  }
  return out;
}

std::vector<OpCase> f64_cases() {
  using R = std::function<uint64_t(uint64_t, uint64_t, uint64_t, unsigned)>;
  auto c = [](std::string name, std::string text, R ref, unsigned ulps = 0, int fp = 64) {
    return OpCase{std::move(name), std::move(text), std::move(ref), ulps, fp};
  };
  return {
      c("add", "  v_add_f64 %D%, %X%, %Y%", [](auto x, auto y, auto, unsigned) { return B(D(x) + D(y)); }),
      c("sub_mod", "  v_add_f64 %D%, %X%, -%Y%", [](auto x, auto y, auto, unsigned) { return B(D(x) - D(y)); }),
      c("mul", "  v_mul_f64 %D%, %X%, %Y%", [](auto x, auto y, auto, unsigned) { return B(D(x) * D(y)); }),
      c("mul_const", "  v_mul_f64 %D%, %X%, -4.0", [](auto x, auto, auto, unsigned) { return B(D(x) * -4.0); }),
      c("add_inv2pi", "  v_add_f64 %D%, %X%, 0x3fc45f306dc9c882",
        [](auto x, auto, auto, unsigned) { return B(D(x) + D(0x3fc45f306dc9c882ull)); }),
      c("fma", "  v_fma_f64 %D%, %X%, %Y%, %Z%",
        [](auto x, auto y, auto z, unsigned) { return B(std::fma(D(x), D(y), D(z))); }),
      c("rcp", "  v_rcp_f64 %D%, %X%", [](auto x, auto, auto, unsigned) { return B(1.0 / D(x)); }, 1),
      c("rsq", "  v_rsq_f64 %D%, %X%",
        [](auto x, auto, auto, unsigned) { return B(double(1.0L / std::sqrt((long double)D(x)))); }, 1),
      c("sqrt", "  v_sqrt_f64 %D%, %X%", [](auto x, auto, auto, unsigned) { return B(std::sqrt(D(x))); }),
      c("cvt_f64_f32", "  v_cvt_f64_f32 %D%, %XL%",
        [](auto x, auto, auto, unsigned) { return B(double(F(uint32_t(x)))); }),
      c("cvt_f32_f64", "  v_cvt_f32_f64 v20, %X%\n  v_mov_b32 v21, 0",
        [](auto x, auto, auto, unsigned) { return B(float(D(x))); }, 0, 32),
      c("cmp_lt", "  v_cmp_lt_f64_e64 %M4%, %X%, %Y%\n  v_cndmask_b32_e64 v20, 0, 1, %M4%\n  v_mov_b32 v21, 0",
        [](auto x, auto y, auto, unsigned) { return uint64_t(D(x) < D(y)); }, 0, 0),
      c("cmp_nge", "  v_cmp_nge_f64 %VCC%, %X%, %Y%\n  v_cndmask_b32_e64 v20, 0, 1, %VCC%\n  v_mov_b32 v21, 0",
        [](auto x, auto y, auto, unsigned) { return uint64_t(!(D(x) >= D(y))); }, 0, 0),
      c("cmp_u", "  v_cmp_u_f64 %VCC%, %X%, %Y%\n  v_cndmask_b32_e64 v20, 0, 1, %VCC%\n  v_mov_b32 v21, 0",
        [](auto x, auto y, auto, unsigned) { return uint64_t(std::isnan(D(x)) || std::isnan(D(y))); }, 0, 0),
  };
}

}  // namespace

TEST_CASE("float: every f32 instruction against the host", "[float]") {
  AMDGPU_REQUIRE_TOOLS();
  auto xs = f32_values();
  auto ys = rotate(xs, 7), zs = rotate(xs, 31);
  for (const auto& c : kChips) CHECK(run_table(c, f32_cases(), false, xs, ys, zs));
}

TEST_CASE("float: every f64 instruction against the host", "[float]") {
  AMDGPU_REQUIRE_TOOLS();
  auto xs = f64_values();
  auto ys = rotate(xs, 5), zs = rotate(xs, 17);
  for (const auto& c : kChips) CHECK(run_table(c, f64_cases(), true, xs, ys, zs));
}
