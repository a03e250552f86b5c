// The bound of the PTX backend's exp and log (encoders/ptx/math.cpp), measured
// on the host model of the same IEEE operation sequence (encoders/ptx/ptx_math.h)
// against the interpreter's definition, float(exp(double(x))) and
// float(log(double(x))). The GPU computes the same bits (fma.rn, mul.rn,
// cvt.rni, f64 div.rn / fma.rn), so the bound holds on every GPU.
//   ptx_math_test [--full]    (default: every 61st input, all specials)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "ptx_math.h"

using namespace ptoas::cg::ptx;

namespace {
// Distance in representable floats (signs handled; +0 and -0 are one apart).
int64_t ulp_dist(float a, float b) {
  auto ord = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, 4);
    return i < 0 ? -int64_t(i & 0x7fffffff) : int64_t(i);
  };
  return std::llabs(ord(a) - ord(b));
}
}  // namespace

int main(int argc, char** argv) {
  bool full = argc > 1 && std::strcmp(argv[1], "--full") == 0;
  uint64_t step = full ? 1 : 61;
  int64_t worst_exp = 0, worst_log = 0;
  uint32_t at_exp = 0, at_log = 0;
  uint64_t n = 0, diff_exp = 0, bad_nan = 0;
  auto check = [&](uint32_t u) {
    float x = f32_of(u);
    float re = float(std::exp(double(x))), ge = ptx_exp_model(x);
    if (std::isnan(x)) {  // the same NaN, quieted
      bad_nan += bits_of(ge) != (u | 0x400000u) || bits_of(ptx_log_model(x)) != (u | 0x400000u);
      return;
    }
    ++n;
    int64_t d = ulp_dist(re, ge);
    diff_exp += d != 0;
    if (d > worst_exp) worst_exp = d, at_exp = u;
    float rl = float(std::log(double(x))), gl = ptx_log_model(x);
    int64_t dl = std::isnan(rl) ? (bits_of(gl) == 0xffc00000u ? 0 : 99) : ulp_dist(rl, gl);
    if (dl > worst_log) worst_log = dl, at_log = u;
  };
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += step) check(uint32_t(u));
  for (uint32_t u : {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x00000001u, 0x807fffffu, 0x42b17217u,
                     0x42b17218u, 0xc2cff1b5u, 0xc2cff1b4u, 0x3f800000u, 0x7fc00001u, 0x7f800001u})
    check(u);
  std::printf("ptx_math: %llu inputs; exp max %lld ULP (at 0x%08x), %llu not bit-identical; log max %lld ULP (at 0x%08x); "
              "%llu NaN mismatches\n",
              (unsigned long long)n, (long long)worst_exp, at_exp, (unsigned long long)diff_exp, (long long)worst_log,
              at_log, (unsigned long long)bad_nan);
  // DESIGN §6: exp and log within 2 ULP (measured: exp 1, log 0).
  return worst_exp <= 2 && worst_log <= 2 && bad_nan == 0 ? 0 : 1;
}
