// Runs one instruction (or a few) over many input triples, one thread per
// triple: the shape of the per-instruction tests.
#pragma once
#include <functional>
#include <random>

#include "harness.h"

namespace ptxt {

// Register type words for a width in bits.
inline std::string bty(unsigned bits) { return ".b" + std::to_string(bits); }

struct OpSpec {
  std::string body;       // uses %a %b %c (in_bits wide), writes %d (out_bits wide); %p %q are predicates
  unsigned in_bits = 32;
  unsigned out_bits = 32;
  std::string in_decl;    // register type of %a %b %c (default .b<in_bits>)
  std::string out_decl;   // register type of %d
};

// Outputs of `spec` for inputs a, b, c (same length, a multiple of 32).
inline std::vector<uint64_t> run_op(const OpSpec& spec, const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
                                    const std::vector<uint64_t>& c, std::string* fault = nullptr) {
  size_t n = a.size();
  REQUIRE(n % 32 == 0);
  unsigned ib = spec.in_bits / 8, ob = spec.out_bits / 8;
  std::vector<uint8_t> A(n * ib), B(n * ib), C(n * ib), D(n * ob, 0);
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(&A[i * ib], &a[i], ib);
    std::memcpy(&B[i * ib], &b[i], ib);
    std::memcpy(&C[i * ib], &c[i], ib);
  }
  std::string in_t = spec.in_decl.empty() ? bty(spec.in_bits) : spec.in_decl;
  std::string out_t = spec.out_decl.empty() ? bty(spec.out_bits) : spec.out_decl;
  std::string ldt = bty(spec.in_bits), stt = bty(spec.out_bits);
  std::string body = "  .reg .b32 %r<4>;\n  .reg .b64 %rd<12>;\n  .reg " + in_t + " %a, %b, %c;\n  .reg " + out_t +
                     " %d;\n  .reg .pred %p, %q;\n"
                     "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n  ld.param.u64 %rd3, [pc];\n"
                     "  ld.param.u64 %rd4, [pd];\n"
                     "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %tid.x;\n  mad.lo.s32 %r3, %r1, 32, %r2;\n"
                     "  mul.wide.u32 %rd5, %r3, " + std::to_string(ib) + ";\n"
                     "  add.s64 %rd6, %rd1, %rd5;\n  ld.global" + ldt + " %a, [%rd6];\n"
                     "  add.s64 %rd6, %rd2, %rd5;\n  ld.global" + ldt + " %b, [%rd6];\n"
                     "  add.s64 %rd6, %rd3, %rd5;\n  ld.global" + ldt + " %c, [%rd6];\n" +
                     spec.body + "\n" +
                     "  mul.wide.u32 %rd7, %r3, " + std::to_string(ob) + ";\n"
                     "  add.s64 %rd8, %rd4, %rd7;\n  st.global" + stt + " [%rd8], %d;\n  ret;\n";
  std::string text = kernel(".param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd", body);
  Result r = run(text, {addr(A.data()), addr(B.data()), addr(C.data()), addr(D.data())},
                 {Buffer{A.data(), A.size()}, Buffer{B.data(), B.size()}, Buffer{C.data(), C.size()},
                  Buffer{D.data(), D.size()}},
                 unsigned(n / 32));
  if (fault) *fault = r.parse_error + r.fault.message;
  INFO(spec.body);
  REQUIRE_RUN(r);
  std::vector<uint64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    std::memcpy(&v, &D[i * ob], ob);
    out[i] = v;
  }
  return out;
}

// Interesting integer inputs of a width, then random ones, n in all.
inline std::vector<uint64_t> int_inputs(unsigned bits, size_t n, uint32_t seed) {
  uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  uint64_t smin = uint64_t(1) << (bits - 1);
  std::vector<uint64_t> v = {0, 1, 2, 3, mask, mask - 1, smin, smin - 1, smin + 1, 7, 31, 32, 33, 63, 64, 65};
  std::mt19937_64 g(seed);
  while (v.size() < n) {
    uint64_t x = g();
    switch (g() % 4) {
      case 0: x &= 0xff; break;
      case 1: x &= 0xffff; break;
      default: break;
    }
    v.push_back(x & mask);
  }
  v.resize(n);
  std::shuffle(v.begin() + 16, v.end(), g);
  for (auto& x : v) x &= mask;
  return v;
}

}  // namespace ptxt
