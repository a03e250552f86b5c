// Integer, bitwise, predicate and select instructions against plain C++
// on edge values and random ones, at 16, 32 and 64 bits.
#include "op_runner.h"

using namespace ptxt;

namespace {

uint64_t mask_of(unsigned bits) { return bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }
int64_t sx(uint64_t v, unsigned bits) { return bits == 64 ? int64_t(v) : int64_t(v << (64 - bits)) >> (64 - bits); }

struct IntCase {
  std::string body;
  unsigned in_bits, out_bits;
  std::function<uint64_t(uint64_t, uint64_t, uint64_t)> ref;
};

void check(const IntCase& c, size_t n = 256) {
  auto a = int_inputs(c.in_bits, n, 1), b = int_inputs(c.in_bits, n, 2), cc = int_inputs(c.in_bits, n, 3);
  OpSpec s;
  s.body = c.body;
  s.in_bits = c.in_bits;
  s.out_bits = c.out_bits;
  auto d = run_op(s, a, b, cc);
  for (size_t i = 0; i < n; ++i) {
    uint64_t want = c.ref(a[i], b[i], cc[i]) & mask_of(c.out_bits);
    INFO(c.body << "  a=" << a[i] << " b=" << b[i] << " c=" << cc[i]);
    REQUIRE(d[i] == want);
  }
}

}  // namespace

TEST_CASE("integer arithmetic at 32 bits") {
  const unsigned B = 32;
  auto S = [](uint64_t v) { return sx(v, 32); };
  std::vector<IntCase> cases = {
      {"add.s32 %d, %a, %b;", B, B, [](uint64_t a, uint64_t b, uint64_t) { return a + b; }},
      {"sub.u32 %d, %a, %b;", B, B, [](uint64_t a, uint64_t b, uint64_t) { return a - b; }},
      {"add.sat.s32 %d, %a, %b;", B, B,
       [&](uint64_t a, uint64_t b, uint64_t) {
         int64_t s = S(a) + S(b);
         return uint64_t(std::min<int64_t>(INT32_MAX, std::max<int64_t>(INT32_MIN, s)));
       }},
      {"sub.sat.s32 %d, %a, %b;", B, B,
       [&](uint64_t a, uint64_t b, uint64_t) {
         int64_t s = S(a) - S(b);
         return uint64_t(std::min<int64_t>(INT32_MAX, std::max<int64_t>(INT32_MIN, s)));
       }},
      {"mul.lo.s32 %d, %a, %b;", B, B, [](uint64_t a, uint64_t b, uint64_t) { return a * b; }},
      {"mul.hi.s32 %d, %a, %b;", B, B, [&](uint64_t a, uint64_t b, uint64_t) { return uint64_t((S(a) * S(b)) >> 32); }},
      {"mul.hi.u32 %d, %a, %b;", B, B, [](uint64_t a, uint64_t b, uint64_t) { return (a * b) >> 32; }},
      {"mad.lo.u32 %d, %a, %b, %c;", B, B, [](uint64_t a, uint64_t b, uint64_t c) { return a * b + c; }},
      {"mad.hi.s32 %d, %a, %b, %c;", B, B,
       [&](uint64_t a, uint64_t b, uint64_t c) { return uint64_t((S(a) * S(b)) >> 32) + c; }},
      {"div.u32 %d, %a, %b;", B, B, [](uint64_t a, uint64_t b, uint64_t) { return b ? a / b : 0xffffffffu; }},
      {"rem.u32 %d, %a, %b;", B, B, [](uint64_t a, uint64_t b, uint64_t) { return b ? a % b : a; }},
      {"div.s32 %d, %a, %b;", B, B,
       [&](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
         if (!b) return 0xffffffffu;
         if (S(b) == -1) return uint64_t(-S(a));
         return uint64_t(S(a) / S(b));
       }},
      {"rem.s32 %d, %a, %b;", B, B,
       [&](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
         if (!b) return a;
         if (S(b) == -1) return 0;
         return uint64_t(S(a) % S(b));
       }},
      {"min.s32 %d, %a, %b;", B, B, [&](uint64_t a, uint64_t b, uint64_t) { return S(a) < S(b) ? a : b; }},
      {"max.u32 %d, %a, %b;", B, B, [](uint64_t a, uint64_t b, uint64_t) { return a > b ? a : b; }},
      {"abs.s32 %d, %a;", B, B, [&](uint64_t a, uint64_t, uint64_t) { return S(a) < 0 ? uint64_t(-S(a)) : a; }},
      {"neg.s32 %d, %a;", B, B, [](uint64_t a, uint64_t, uint64_t) { return uint64_t(0) - a; }},
      {"and.b32 %d, %a, %b;", B, B, [](uint64_t a, uint64_t b, uint64_t) { return a & b; }},
      {"or.b32 %d, %a, %b;", B, B, [](uint64_t a, uint64_t b, uint64_t) { return a | b; }},
      {"xor.b32 %d, %a, %b;", B, B, [](uint64_t a, uint64_t b, uint64_t) { return a ^ b; }},
      {"not.b32 %d, %a;", B, B, [](uint64_t a, uint64_t, uint64_t) { return ~a; }},
      {"cnot.b32 %d, %a;", B, B, [](uint64_t a, uint64_t, uint64_t) { return uint64_t(a == 0); }},
      {"shl.b32 %d, %a, %b;", B, B, [](uint64_t a, uint64_t b, uint64_t) { return b >= 32 ? 0 : a << b; }},
      {"shr.u32 %d, %a, %b;", B, B, [](uint64_t a, uint64_t b, uint64_t) { return b >= 32 ? 0 : a >> b; }},
      {"shr.s32 %d, %a, %b;", B, B,
       [&](uint64_t a, uint64_t b, uint64_t) { return uint64_t(b >= 32 ? (S(a) < 0 ? -1 : 0) : S(a) >> b); }},
      {"shf.l.wrap.b32 %d, %a, %b, %c;", B, B,
       [](uint64_t a, uint64_t b, uint64_t c) { return ((b << 32 | a) << (c & 31)) >> 32; }},
      {"shf.r.clamp.b32 %d, %a, %b, %c;", B, B,
       [](uint64_t a, uint64_t b, uint64_t c) { return (b << 32 | a) >> std::min<uint64_t>(c, 32); }},
      {"popc.b32 %d, %a;", B, B, [](uint64_t a, uint64_t, uint64_t) { return uint64_t(__builtin_popcountll(a)); }},
      {"clz.b32 %d, %a;", B, B,
       [](uint64_t a, uint64_t, uint64_t) { return a ? uint64_t(__builtin_clz(uint32_t(a))) : 32; }},
      {"brev.b32 %d, %a;", B, B,
       [](uint64_t a, uint64_t, uint64_t) {
         uint64_t r = 0;
         for (int i = 0; i < 32; ++i) r |= ((a >> i) & 1) << (31 - i);
         return r;
       }},
      {"bfe.u32 %d, %a, %b, %c;", B, B,
       [](uint64_t a, uint64_t b, uint64_t c) {
         unsigned pos = b & 0xff, len = c & 0xff;
         uint64_t r = 0;
         for (unsigned i = 0; i < 32; ++i)
           if (i < len && pos + i < 32) r |= ((a >> (pos + i)) & 1) << i;
         return r;
       }},
      {"bfe.s32 %d, %a, %b, %c;", B, B,
       [](uint64_t a, uint64_t b, uint64_t c) {
         unsigned pos = b & 0xff, len = c & 0xff;
         uint64_t sbit = len ? (a >> std::min(pos + len - 1, 31u)) & 1 : 0;
         uint64_t r = 0;
         for (unsigned i = 0; i < 32; ++i) r |= ((i < len && pos + i < 32) ? (a >> (pos + i)) & 1 : sbit) << i;
         return r;
       }},
      {"prmt.b32 %d, %a, %b, %c;", B, B,
       [](uint64_t a, uint64_t b, uint64_t c) {
         uint8_t bytes[8];
         for (int i = 0; i < 4; ++i) {
           bytes[i] = uint8_t(a >> (8 * i));
           bytes[4 + i] = uint8_t(b >> (8 * i));
         }
         uint64_t r = 0;
         for (int i = 0; i < 4; ++i) {
           unsigned s = (c >> (4 * i)) & 15;
           uint8_t x = bytes[s & 7];
           if (s & 8) x = (x & 0x80) ? 0xff : 0;
           r |= uint64_t(x) << (8 * i);
         }
         return r;
       }},
      {"lop3.b32 %d, %a, %b, %c, 0x96;", B, B, [](uint64_t a, uint64_t b, uint64_t c) { return a ^ b ^ c; }},
      {"lop3.b32 %d, %a, %b, %c, 0xE8;", B, B,
       [](uint64_t a, uint64_t b, uint64_t c) { return (a & b) | (a & c) | (b & c); }},
      {"setp.lt.s32 %p, %a, %b;\n  selp.u32 %d, 1, 0, %p;", B, B,
       [&](uint64_t a, uint64_t b, uint64_t) { return uint64_t(S(a) < S(b)); }},
      {"setp.hi.u32 %p|%q, %a, %b;\n  selp.u32 %d, 1, 2, %q;", B, B,
       [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(a > b ? 2 : 1); }},
      {"setp.ne.u32 %q, %c, 0;\n  setp.ge.and.s32 %p, %a, %b, !%q;\n  selp.b32 %d, %a, %b, %p;", B, B,
       [&](uint64_t a, uint64_t b, uint64_t c) { return (S(a) >= S(b) && c == 0) ? a : b; }},
      {"setp.eq.or.u32 %p, %a, %b, %q;\n  setp.ls.u32 %q, %a, %c;\n  setp.eq.xor.u32 %p, %a, %b, %q;\n"
       "  selp.u32 %d, 5, 9, %p;",
       B, B, [](uint64_t a, uint64_t b, uint64_t c) { return uint64_t(((a == b) != (a <= c)) ? 5 : 9); }},
      {"slct.u32.s32 %d, %a, %b, %c;", B, B, [&](uint64_t a, uint64_t b, uint64_t c) { return S(c) >= 0 ? a : b; }},
      {"setp.gt.u32 %p, %a, 100;\n  setp.lt.u32 %q, %b, 100;\n  and.pred %p, %p, %q;\n  not.pred %q, %p;\n"
       "  or.pred %p, %q, %p;\n  xor.pred %q, %q, %p;\n  selp.u32 %d, 1, 0, %q;",
       B, B, [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(a > 100 && b < 100); }},
      {"mov.b32 %d, %a;\n  @%p mov.b32 %d, 0;", B, B, [](uint64_t a, uint64_t, uint64_t) { return a; }},
  };
  for (auto& c : cases) check(c);
}

TEST_CASE("integer arithmetic at 16 and 64 bits, wide and high products") {
  auto S16 = [](uint64_t v) { return sx(v, 16); };
  auto S64 = [](uint64_t v) { return int64_t(v); };
  std::vector<IntCase> cases = {
      {"add.u16 %d, %a, %b;", 16, 16, [](uint64_t a, uint64_t b, uint64_t) { return a + b; }},
      {"mul.lo.s16 %d, %a, %b;", 16, 16, [](uint64_t a, uint64_t b, uint64_t) { return a * b; }},
      {"min.s16 %d, %a, %b;", 16, 16, [&](uint64_t a, uint64_t b, uint64_t) { return S16(a) < S16(b) ? a : b; }},
      {"shr.s16 %d, %a, %b;", 16, 16,
       [&](uint64_t a, uint64_t b, uint64_t) { return uint64_t(b >= 16 ? (S16(a) < 0 ? -1 : 0) : S16(a) >> b); }},
      {"add.s64 %d, %a, %b;", 64, 64, [](uint64_t a, uint64_t b, uint64_t) { return a + b; }},
      {"mul.lo.u64 %d, %a, %b;", 64, 64, [](uint64_t a, uint64_t b, uint64_t) { return a * b; }},
      {"mul.hi.u64 %d, %a, %b;", 64, 64,
       [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((static_cast<unsigned __int128>(a) * b) >> 64); }},
      {"mul.hi.s64 %d, %a, %b;", 64, 64,
       [&](uint64_t a, uint64_t b, uint64_t) { return uint64_t((__int128(S64(a)) * S64(b)) >> 64); }},
      {"div.s64 %d, %a, %b;", 64, 64,
       [&](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
         if (!b) return ~uint64_t(0);
         if (S64(b) == -1) return uint64_t(0) - a;
         return uint64_t(S64(a) / S64(b));
       }},
      {"shl.b64 %d, %a, %b;", 64, 64, [](uint64_t a, uint64_t b, uint64_t) { return (b & 0xffffffff) >= 64 ? 0 : a << (b & 63); }},
      {"popc.b64 %r1, %a;\n  cvt.u64.u32 %d, %r1;", 64, 64,
       [](uint64_t a, uint64_t, uint64_t) { return uint64_t(__builtin_popcountll(a)); }},
      {"clz.b64 %r1, %a;\n  cvt.u64.u32 %d, %r1;", 64, 64,
       [](uint64_t a, uint64_t, uint64_t) { return a ? uint64_t(__builtin_clzll(a)) : 64; }},
      {"bfi.b64 %d, %a, %b, %c, 13;", 64, 64,
       [](uint64_t a, uint64_t b, uint64_t c) {
         unsigned pos = c & 0xff;
         uint64_t r = b;
         for (unsigned i = 0; i < 13 && pos + i < 64; ++i) r = (r & ~(uint64_t(1) << (pos + i))) | (((a >> i) & 1) << (pos + i));
         return r;
       }},
  };
  for (auto& c : cases) check(c);
  // mul.wide / mad.wide: 32-bit inputs, 64-bit results.
  auto a = int_inputs(32, 256, 7), b = int_inputs(32, 256, 8), c = int_inputs(32, 256, 9);
  OpSpec s;
  s.body = "mul.wide.s32 %d, %a, %b;";
  s.out_bits = 64;
  auto d = run_op(s, a, b, c);
  for (size_t i = 0; i < a.size(); ++i) REQUIRE(d[i] == uint64_t(sx(a[i], 32) * sx(b[i], 32)));
  s.body = "cvt.u64.u32 %rd10, %c;\n  mad.wide.u32 %d, %a, %b, %rd10;";
  d = run_op(s, a, b, c);
  for (size_t i = 0; i < a.size(); ++i) REQUIRE(d[i] == a[i] * b[i] + c[i]);
}

TEST_CASE("integer conversions: extension, truncation, saturation") {
  struct Cv {
    std::string body;
    unsigned in_bits, out_bits;
    std::function<uint64_t(uint64_t)> ref;
  };
  std::vector<Cv> cases = {
      {"cvt.s64.s32 %d, %a;", 32, 64, [](uint64_t a) { return uint64_t(sx(a, 32)); }},
      {"cvt.u64.u32 %d, %a;", 32, 64, [](uint64_t a) { return a; }},
      {"cvt.u32.u64 %d, %a;", 64, 32, [](uint64_t a) { return a & 0xffffffff; }},
      {"cvt.sat.s32.s64 %d, %a;", 64, 32,
       [](uint64_t a) { return uint64_t(std::min<int64_t>(INT32_MAX, std::max<int64_t>(INT32_MIN, int64_t(a)))); }},
      {"cvt.sat.u32.s64 %d, %a;", 64, 32,
       [](uint64_t a) { return int64_t(a) < 0 ? 0 : a > 0xffffffffu ? 0xffffffffu : a; }},
      {"cvt.sat.s32.u64 %d, %a;", 64, 32, [](uint64_t a) { return a > uint64_t(INT32_MAX) ? uint64_t(INT32_MAX) : a; }},
      {"cvt.s32.s16 %d, %a;", 16, 32, [](uint64_t a) { return uint64_t(sx(a, 16)); }},
      {"cvt.u16.u32 %d, %a;", 32, 16, [](uint64_t a) { return a & 0xffff; }},
      {"cvt.sat.u8.s32 %r1, %a;\n  cvt.u16.u32 %d, %r1;", 32, 16,
       [](uint64_t a) { return sx(a, 32) < 0 ? 0 : sx(a, 32) > 255 ? 255 : a; }},
      {"cvt.s8.s32 %r1, %a;\n  cvt.u16.u32 %d, %r1;", 32, 16, [](uint64_t a) { return uint64_t(sx(a & 0xff, 8)) & 0xffff; }},
  };
  for (auto& c : cases) {
    auto a = int_inputs(c.in_bits, 256, 5);
    OpSpec s;
    s.body = c.body;
    s.in_bits = c.in_bits;
    s.out_bits = c.out_bits;
    auto d = run_op(s, a, a, a);
    for (size_t i = 0; i < a.size(); ++i) {
      INFO(c.body << " a=" << a[i]);
      REQUIRE(d[i] == (c.ref(a[i]) & mask_of(c.out_bits)));
    }
  }
}

TEST_CASE("narrow loads extend into wider registers by the load's type") {
  std::vector<int8_t> in = {-1, 5, -128, 127};
  in.resize(32, 3);
  std::vector<uint32_t> out(64);
  std::string ptx = kernel(".param .u64 pi, .param .u64 po", R"(
  .reg .b32 %r<6>;
  .reg .s32 %s<2>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pi];
  ld.param.u64 %rd2, [po];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd3, %r1;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.s8 %s1, [%rd4];
  ld.global.u8 %r2, [%rd4];
  mul.wide.u32 %rd5, %r1, 8;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v2.u32 [%rd6], {%s1, %r2};
  ret;
)");
  Result r = run(ptx, {addr(in.data()), addr(out.data())}, {buf(in), buf(out)});
  REQUIRE_RUN(r);
  for (int i = 0; i < 32; ++i) {
    REQUIRE(out[2 * i] == uint32_t(int32_t(in[i])));
    REQUIRE(out[2 * i + 1] == uint32_t(uint8_t(in[i])));
  }
}
