// Accuracy of the avx2 texp / tlog / trsqrt (f32) against the interpreter's
// definition, float(std::exp / std::log / 1 / std::sqrt of the double
// value): the maximum distance in f32 ULP and how many results are not
// bit-identical.
//
//   x86_ulp          2^20 inputs spread over all f32 bit patterns, plus
//                    the extremes (0, -0, subnormals, +-Inf, NaNs, the
//                    overflow / underflow thresholds) (ctest: x86_ulp)
//   x86_ulp --full   every one of the 2^32 f32 bit patterns (ctest:
//                    x86_ulp_full, label x86_slow)
//
// Bounds checked: exp and log <= 1 ULP, rsqrt bit-exact; NaN results must
// be bit-identical (same quieted payload). Exit 0 when within them, 77
// when the CPU lacks AVX2.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "diag.h"
#include "frontend.h"
#include "interp.h"
#include "ir.h"
#include "jit.h"

using namespace ptoas;

namespace {

constexpr int64_t kCols = 256;

std::string kernel(const char* op) {
  std::string t = "!pto.tile_buf<vec, 32x256xf32, valid=?x?>";
  std::string tv = "!pto.tensor_view<?x?xf32>", pv = "!pto.partition_tensor_view<?x?xf32>";
  std::string k = "func.func @u(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %rows: index) attributes {pto.entry} {\n";
  k += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n";
  k += "  %c32 = arith.constant 32 : index\n  %c256 = arith.constant 256 : index\n";
  k += "  %xv = pto.make_tensor_view %x, shape = [%rows, %c256], strides = [%c256, %c1] : " + tv + "\n";
  k += "  %yv = pto.make_tensor_view %y, shape = [%rows, %c256], strides = [%c256, %c1] : " + tv + "\n";
  k += "  scf.for %i = %c0 to %rows step %c32 {\n";
  k += "    %rest = arith.subi %rows, %i : index\n    %vr = arith.minui %rest, %c32 : index\n";
  k += "    %xp = pto.partition_view %xv, offsets = [%i, %c0], sizes = [%vr, %c256] : " + tv + " -> " + pv + "\n";
  k += "    %yp = pto.partition_view %yv, offsets = [%i, %c0], sizes = [%vr, %c256] : " + tv + " -> " + pv + "\n";
  k += "    %t = pto.alloc_tile valid_row = %vr valid_col = %c256 : " + t + "\n";
  k += "    pto.tload ins(%xp : " + pv + ") outs(%t : " + t + ")\n";
  k += "    pto." + std::string(op) + " ins(%t : " + t + ") outs(%t : " + t + ")\n";
  k += "    pto.tstore ins(%t : " + t + ") outs(%yp : " + pv + ")\n";
  k += "  }\n  return\n}\n";
  return k;
}

float ref(int op, float x) {
  double d = x;
  switch (op) {
    case 0: return float(std::exp(d));
    case 1: return float(std::log(d));
    default: return float(1.0 / std::sqrt(d));
  }
}

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

uint32_t ulp_dist(uint32_t a, uint32_t b) {
  auto is_nan = [](uint32_t v) { return (v & 0x7fffffffu) > 0x7f800000u; };
  if (a == b) return 0;
  if (is_nan(a) || is_nan(b)) return 0xffffffffu;
  auto ord = [](uint32_t v) { return v & 0x80000000u ? -int64_t(v & 0x7fffffffu) : int64_t(v); };
  int64_t d = ord(a) - ord(b);
  return uint32_t(d < 0 ? -d : d);
}

struct Stats {
  uint64_t n = 0, inexact = 0;
  uint32_t max_ulp = 0, worst_in = 0, worst_ref = 0, worst_got = 0;
};

void check(const rt::JitKernel& jit, int op, std::vector<uint32_t>& in, Stats& st) {
  size_t rows = (in.size() + kCols - 1) / kCols;
  in.resize(rows * kCols, 0);
  std::vector<uint32_t> out(in.size(), 0xDEADBEEFu);
  std::vector<rt::Arg> a(3);
  a[0].kind = a[1].kind = rt::Arg::Kind::Ptr;
  a[0].data = reinterpret_cast<uint8_t*>(in.data());
  a[0].bytes = in.size() * 4;
  a[1].data = reinterpret_cast<uint8_t*>(out.data());
  a[1].bytes = out.size() * 4;
  a[2].kind = rt::Arg::Kind::Int;
  a[2].i = int64_t(rows);
  jit.run(a, 0, 1);
  for (size_t i = 0; i < in.size(); ++i) {
    float x;
    std::memcpy(&x, &in[i], 4);
    uint32_t r = bits(ref(op, x)), d = ulp_dist(r, out[i]);
    ++st.n;
    if (d) ++st.inexact;
    if (d > st.max_ulp) {
      st.max_ulp = d;
      st.worst_in = in[i];
      st.worst_ref = r;
      st.worst_got = out[i];
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (!rt::cpu_supports("avx2")) {
    std::printf("SKIP: this CPU has no AVX2/FMA\n");
    return 77;
  }
  bool full = argc > 1 && std::string(argv[1]) == "--full";
  const char* ops[] = {"texp", "tlog", "trsqrt"};
  const uint32_t bound[] = {1, 1, 0};
  const uint32_t extremes[] = {
      0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu, 0x00800000u,
      0x80800000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7fa00001u, 0xff812345u,
      0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u,
      0x42b17217u, 0x42b17218u, 0x42b17219u,  // exp overflow threshold (88.7228..)
      0xc2aeac4fu, 0xc2aeac50u, 0xc2aeac51u,  // exp: smallest normal result (-87.336..)
      0xc2ce8ed0u, 0xc2ce8ed1u, 0xc2cff1b4u, 0xc2cff1b5u,  // exp underflow to 0 (-103.97..)
      0x3f7fffffu, 0x3f800001u, 0x33800000u, 0xb3800000u};
  bool ok = true;
  for (int op = 0; op < 3; ++op) {
    std::string text = kernel(ops[op]);
    SourceFile src(std::string(ops[op]) + "_ulp.pto", text);
    Diag diag(&src);
    Module m;
    FrontendOptions fo;
    if (!run_frontend(src, fo, m, diag)) {
      std::printf("FAIL %s: front end:\n%s\n", ops[op], diag.text().c_str());
      return 1;
    }
    rt::Interpreter interp(m);
    std::string err;
    InstId fn = interp.find_function("", err);
    rt::JitKernel jit;
    Diag jd(&src);
    if (!jit.load(m, fn, "avx2", jd, err)) {
      std::printf("FAIL %s: jit: %s\n%s", ops[op], err.c_str(), jd.text().c_str());
      return 1;
    }
    Stats st;
    std::vector<uint32_t> in(extremes, extremes + sizeof extremes / 4);
    check(jit, op, in, st);
    if (full) {
      const uint64_t chunk = 1u << 22;
      for (uint64_t base = 0; base < (uint64_t(1) << 32); base += chunk) {
        in.resize(chunk);
        for (uint64_t i = 0; i < chunk; ++i) in[i] = uint32_t(base + i);
        check(jit, op, in, st);
      }
    } else {
      in.resize(1u << 20);
      for (uint32_t i = 0; i < (1u << 20); ++i) in[i] = i * 4096u + ((i * 2654435761u) >> 20);
      check(jit, op, in, st);
      // Dense: consecutive patterns from 0.5 up, and a uniform grid over
      // [-104, 89] (the whole exp range).
      in.resize(1u << 20);
      for (uint32_t i = 0; i < (1u << 20); ++i) in[i] = bits(0.5f) + i;
      check(jit, op, in, st);
      in.resize(1u << 20);
      for (uint32_t i = 0; i < (1u << 20); ++i) in[i] = bits(-104.0f + 193.0f * float(i) / float(1u << 20));
      check(jit, op, in, st);
    }
    bool pass = st.max_ulp <= bound[op];
    ok &= pass;
    std::printf("%s %s: %llu inputs, max %u ULP, %llu not bit-identical (%.2e)%s", pass ? "OK  " : "FAIL",
                ops[op], (unsigned long long)st.n, st.max_ulp, (unsigned long long)st.inexact,
                double(st.inexact) / double(st.n), st.max_ulp ? "" : "\n");
    if (st.max_ulp)
      std::printf("; worst x=0x%08x ref 0x%08x avx2 0x%08x\n", st.worst_in, st.worst_ref, st.worst_got);
  }
  return ok ? 0 : 1;
}
