// Every integer and lane instruction of the backend's list against a host
// reference, on every chip: 32-bit ALU, carries, compares, bit-field ops,
// mbcnt/readfirstlane, and the 64-bit ones (mad, shifts, compares).
#include <bit>

#include "harness.h"

using namespace amdgpu_test;

namespace {

std::vector<uint64_t> u32_values() {
  std::vector<uint64_t> v = {0, 1, 2, 31, 32, 33, 63, 64, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe,
                             0x12345678, 0x0000ff00, 0x00010000, 5, 10, 0x80000001, 0x55555555, 0xaaaaaaaa};
  uint32_t r = 777;
  while (v.size() < 128) {
    r = r * 1664525u + 1013904223u;
    v.push_back(v.size() % 3 ? r : (r & 0x3f));  // small values too, for shifts and field widths
  }
  return v;
}

template <class T>
bool icmp(const std::string& op, T a, T b) {
  if (op == "eq") return a == b;
  if (op == "ne") return a != b;
  if (op == "lt") return a < b;
  if (op == "le") return a <= b;
  if (op == "gt") return a > b;
  return a >= b;
}

uint32_t bfe(uint32_t v, uint32_t off, uint32_t w, bool sgn) {
  off &= 31, w &= 31;
  if (!w) return 0;
  uint64_t f = (uint64_t(v) >> off) & ((1ull << w) - 1);
  if (sgn && (f >> (w - 1) & 1)) f |= ~((1ull << w) - 1);
  return uint32_t(f);
}

std::vector<OpCase> u32_cases(unsigned wave, const std::vector<uint64_t>& xs) {
  using X = uint64_t;
  auto c = [](std::string n, std::string t, std::function<uint64_t(X, X, X, unsigned)> r) {
    return OpCase{std::move(n), std::move(t), std::move(r), 0, 0};
  };
  auto u = [](X v) { return uint32_t(v); };
  auto s = [](X v) { return int32_t(uint32_t(v)); };
  std::vector<OpCase> v = {
      c("mov", "  v_mov_b32 %D%, %X%", [=](X x, X, X, unsigned) { return u(x); }),
      c("mov_const", "  v_mov_b32 %D%, -16", [=](X, X, X, unsigned) { return uint64_t(0xfffffff0u); }),
      c("add", "  %VADD% %D%, %X%, %Y%", [=](X x, X y, X, unsigned) { return u(x) + u(y); }),
      c("add_e64_const", "  %VADD%_e64 %D%, %X%, 64", [=](X x, X, X, unsigned) { return u(x) + 64u; }),
      c("sub", "  %VSUB% %D%, %X%, %Y%", [=](X x, X y, X, unsigned) { return u(x) - u(y); }),
      c("add_co_carry", "  %ADDCO% v13, %VCC%, %X%, %Y%\n  v_cndmask_b32_e64 %D%, 0, 1, %VCC%",
        [=](X x, X y, X, unsigned) { return uint64_t((uint64_t(u(x)) + u(y)) >> 32); }),
      c("addc", "  %ADDCO% v13, %VCC%, %X%, %Y%\n  %ADDC% %D%, %VCC%, -1, %Z%, %VCC%",
        [=](X x, X y, X z, unsigned) { return uint32_t(u(z) - 1 + ((uint64_t(u(x)) + u(y)) >> 32)); }),
      c("addc_e64_carry", "  %ADDCO% v13, %M4%, %X%, %Y%\n  %ADDC%_e64 v14, %M22%, %Z%, %X%, %M4%\n"
        "  v_cndmask_b32_e64 %D%, 0, 1, %M22%",
        [=](X x, X y, X z, unsigned) {
          uint64_t c1 = (uint64_t(u(x)) + u(y)) >> 32;
          return (uint64_t(u(z)) + u(x) + c1) >> 32;
        }),
      c("sub_co_borrow", "  %SUBCO% v13, %VCC%, %X%, %Y%\n  v_cndmask_b32_e64 %D%, 0, 1, %VCC%",
        [=](X x, X y, X, unsigned) { return uint64_t(u(y) > u(x)); }),
      c("subb", "  v_mov_b32 v13, 3\n  %SUBCO% v14, %VCC%, %X%, %Y%\n  %SUBB% %D%, %VCC%, %Z%, v13, %VCC%",
        [=](X x, X y, X z, unsigned) { return uint32_t(u(z) - 3 - (u(y) > u(x))); }),
      c("mul_lo", "  v_mul_lo_u32 %D%, %X%, %Y%", [=](X x, X y, X, unsigned) { return u(x) * u(y); }),
      c("mul_hi_u32", "  v_mul_hi_u32 %D%, %X%, %Y%",
        [=](X x, X y, X, unsigned) { return uint32_t((uint64_t(u(x)) * u(y)) >> 32); }),
      c("mul_hi_i32", "  v_mul_hi_i32 %D%, %X%, %Y%",
        [=](X x, X y, X, unsigned) { return uint32_t(uint64_t(int64_t(s(x)) * s(y)) >> 32); }),
      c("and", "  v_and_b32 %D%, %X%, %Y%", [=](X x, X y, X, unsigned) { return u(x) & u(y); }),
      c("or", "  v_or_b32 %D%, %X%, %Y%", [=](X x, X y, X, unsigned) { return u(x) | u(y); }),
      c("xor", "  v_xor_b32 %D%, %X%, %Y%", [=](X x, X y, X, unsigned) { return u(x) ^ u(y); }),
      c("not", "  v_not_b32 %D%, %X%", [=](X x, X, X, unsigned) { return ~u(x); }),
      c("lshlrev", "  v_lshlrev_b32 %D%, %Y%, %X%", [=](X x, X y, X, unsigned) { return u(x) << (u(y) & 31); }),
      c("lshrrev", "  v_lshrrev_b32 %D%, %Y%, %X%", [=](X x, X y, X, unsigned) { return u(x) >> (u(y) & 31); }),
      c("ashrrev", "  v_ashrrev_i32 %D%, %Y%, %X%",
        [=](X x, X y, X, unsigned) { return uint32_t(s(x) >> (u(y) & 31)); }),
      c("bfe_u32", "  v_bfe_u32 %D%, %X%, %Y%, %Z%", [=](X x, X y, X z, unsigned) { return bfe(u(x), u(y), u(z), false); }),
      c("bfe_i32", "  v_bfe_i32 %D%, %X%, %Y%, %Z%", [=](X x, X y, X z, unsigned) { return bfe(u(x), u(y), u(z), true); }),
      c("bfe_const", "  v_bfe_u32 %D%, %X%, 10, 10", [=](X x, X, X, unsigned) { return bfe(u(x), 10, 10, false); }),
      c("bfi", "  v_bfi_b32 %D%, %X%, %Y%, %Z%",
        [=](X x, X y, X z, unsigned) { return (u(x) & u(y)) | (~u(x) & u(z)); }),
      c("min_i32", "  v_min_i32 %D%, %X%, %Y%", [=](X x, X y, X, unsigned) { return uint32_t(std::min(s(x), s(y))); }),
      c("min_u32", "  v_min_u32 %D%, %X%, %Y%", [=](X x, X y, X, unsigned) { return std::min(u(x), u(y)); }),
      c("max_i32", "  v_max_i32 %D%, %X%, %Y%", [=](X x, X y, X, unsigned) { return uint32_t(std::max(s(x), s(y))); }),
      c("max_u32", "  v_max_u32 %D%, %X%, %Y%", [=](X x, X y, X, unsigned) { return std::max(u(x), u(y)); }),
      c("bcnt", "  v_bcnt_u32_b32 %D%, %X%, %Y%",
        [=](X x, X y, X, unsigned) { return uint32_t(std::popcount(u(x))) + u(y); }),
      c("ffbh", "  %FFBH% %D%, %X%",
        [=](X x, X, X, unsigned) { return u(x) ? uint32_t(std::countl_zero(u(x))) : 0xffffffffu; }),
      c("bfrev", "  v_bfrev_b32 %D%, %X%", [=](X x, X, X, unsigned) {
        uint32_t r = 0;
        for (int i = 0; i < 32; ++i) r |= (u(x) >> i & 1) << (31 - i);
        return r;
      }),
      c("mbcnt", wave == 64 ? "  v_mbcnt_lo_u32_b32 %D%, -1, 0\n  v_mbcnt_hi_u32_b32 %D%, -1, %D%"
                            : "  v_mbcnt_lo_u32_b32 %D%, -1, 0",
        [=](X, X, X, unsigned i) { return uint64_t(i % wave); }),
      c("mbcnt_mask", wave == 64 ? "  v_mbcnt_lo_u32_b32 %D%, %Y%, 7\n  v_mbcnt_hi_u32_b32 %D%, %Z%, %D%"
                                 : "  v_mbcnt_lo_u32_b32 %D%, %Y%, 7",
        [=](X, X y, X z, unsigned i) {
          unsigned l = i % wave;
          uint64_t m = wave == 64 ? (uint64_t(u(z)) << 32 | u(y)) : u(y);
          return uint64_t(std::popcount(m & ((1ull << l) - 1)) + 7);
        }),
      c("readfirstlane", "  v_readfirstlane_b32 s30, %X%\n  v_mov_b32 %D%, s30",
        [=](X, X, X, unsigned i) { return xs[i - i % wave]; }),
      c("cndmask_e64_sgpr", "  v_cmp_lt_u32_e64 %M4%, %X%, %Y%\n  v_cndmask_b32_e64 %D%, %X%, %Y%, %M4%",
        [=](X x, X y, X, unsigned) { return u(x) < u(y) ? u(y) : u(x); }),
  };
  for (std::string op : {"eq", "ne", "lt", "le", "gt", "ge"})
    for (std::string ty : {"i32", "u32"}) {
      bool sg = ty == "i32";
      v.push_back(c("cmp_" + op + "_" + ty,
                    "  v_cmp_" + op + "_" + ty + "_e64 %M4%, %X%, %Y%\n  v_cndmask_b32_e64 %D%, 0, 1, %M4%",
                    [=](X x, X y, X, unsigned) {
                      return uint64_t(sg ? icmp(op, s(x), s(y)) : icmp(op, u(x), u(y)));
                    }));
    }
  v.push_back(c("cmp_e32_const", "  v_cmp_gt_i32 %VCC%, 5, %X%\n  v_cndmask_b32 %D%, 0, %Y%, %VCC%",
                [=](X x, X y, X, unsigned) { return 5 > s(x) ? u(y) : 0u; }));
  return v;
}

std::vector<OpCase> u64_cases() {
  using X = uint64_t;
  auto c = [](std::string n, std::string t, std::function<uint64_t(X, X, X, unsigned)> r) {
    return OpCase{std::move(n), std::move(t), std::move(r), 0, 0};
  };
  std::vector<OpCase> v = {
      c("mad_u64_u32", "  v_mad_u64_u32 %D%, %M4%, %XL%, %YL%, %Z%",
        [](X x, X y, X z, unsigned) { return uint64_t(uint32_t(x)) * uint32_t(y) + z; }),
      c("mad_u64_u32_carry", "  v_mad_u64_u32 v[22:23], %M4%, %XL%, %YL%, %Z%\n  v_cndmask_b32_e64 v20, 0, 1, %M4%\n"
        "  v_mov_b32 v21, 0",
        [](X x, X y, X z, unsigned) {
          unsigned __int128 r = (unsigned __int128)(uint64_t(uint32_t(x)) * uint32_t(y)) + z;
          return uint64_t(r >> 64 ? 1 : 0);
        }),
      c("mad_i64_i32", "  v_mad_i64_i32 %D%, %M4%, %XL%, %YL%, %Z%",
        [](X x, X y, X z, unsigned) { return uint64_t(int64_t(int32_t(x)) * int32_t(y) + int64_t(z)); }),
      c("lshlrev_b64", "  v_lshlrev_b64 %D%, %YL%, %X%", [](X x, X y, X, unsigned) { return x << (y & 63); }),
      c("lshrrev_b64", "  v_lshrrev_b64 %D%, %YL%, %X%", [](X x, X y, X, unsigned) { return x >> (y & 63); }),
      c("ashrrev_i64", "  v_ashrrev_i64 %D%, %YL%, %X%",
        [](X x, X y, X, unsigned) { return uint64_t(int64_t(x) >> (y & 63)); }),
      c("lshlrev_b64_const", "  v_lshlrev_b64 %D%, 3, %X%", [](X x, X, X, unsigned) { return x << 3; }),
  };
  for (std::string op : {"eq", "ne", "lt", "le", "gt", "ge"})
    for (std::string ty : {"i64", "u64"}) {
      bool sg = ty == "i64";
      v.push_back(c("cmp_" + op + "_" + ty,
                    "  v_cmp_" + op + "_" + ty + "_e64 %M4%, %X%, %Y%\n  v_cndmask_b32_e64 v20, 0, 1, %M4%\n"
                    "  v_mov_b32 v21, 0",
                    [=](X x, X y, X, unsigned) {
                      return uint64_t(sg ? icmp(op, int64_t(x), int64_t(y)) : icmp(op, x, y));
                    }));
    }
  return v;
}

}  // namespace

TEST_CASE("integer: every 32-bit integer and lane instruction against the host", "[int]") {
  AMDGPU_REQUIRE_TOOLS();
  auto xs = u32_values();
  auto ys = rotate(xs, 3), zs = rotate(xs, 11);
  for (const auto& c : kChips) CHECK(run_table(c, u32_cases(c.wave, xs), false, xs, ys, zs));
}

TEST_CASE("integer: the 64-bit instructions against the host", "[int]") {
  AMDGPU_REQUIRE_TOOLS();
  std::vector<uint64_t> xs;
  uint64_t r = 5;
  for (unsigned i = 0; i < 64; ++i) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    xs.push_back(i < 8 ? (uint64_t[]){0, 1, ~0ull, 1ull << 63, 0xffffffffull, 1ull << 32, 63, 64}[i]
                       : (i % 4 == 0 ? (r & 0x7f) : r));
  }
  auto ys = rotate(xs, 1), zs = rotate(xs, 9);
  for (const auto& c : kChips) CHECK(run_table(c, u64_cases(), true, xs, ys, zs));
}
