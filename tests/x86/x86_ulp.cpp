// Accuracy of texp / tlog / trsqrt (f32) of the avx2 or avx512 JIT code
// against the interpreter's definition, float(std::exp / std::log / 1 /
// std::sqrt of the double value): the maximum distance in f32 ULP and how
// many results are not bit-identical.
//
//   x86_ulp            3 x 2^20 inputs (spread over all f32 bit patterns,
//                      consecutive patterns from 0.5 up, a grid over the
//                      exp range) plus the extremes (0, -0, subnormals,
//                      +-Inf, NaNs, FLT_MAX, the exp overflow / underflow
//                      thresholds) (ctest: x86_ulp)
//   --inputs N         about N sample inputs instead (N / 3 of each kind)
//   --full             every one of the 2^32 f32 bit patterns (ctest:
//                      x86_ulp_full, label x86_slow)
//   --target=avx512    the zmm code: natively on a CPU with AVX-512
//                      F/BW/DQ/VL, else (or with PTOAS_FORCE_BOCHS=1) under
//                      the Bochs runner, 2^20 inputs a job, about 16 MiB of
//                      buffers a boot (ctest: x86_ulp_avx512, the default
//                      sample, about 8 s under Bochs)
//
//   -O2                the code of a module optimized at -O2, whose texp
//                      is the f32 exp (x86/math.cpp exp_ps_fast), bound
//                      2 ULP (ctest: x86_ulp_O2, x86_ulp_O2_avx512)
//
// Bounds checked: exp and log <= 1 ULP, rsqrt bit-exact; NaN results must
// be bit-identical (same quieted payload). Exit 0 when within them, 77
// when the target can run neither natively nor under Bochs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bochs_runner.h"
#include "diag.h"
#include "frontend.h"
#include "interp.h"
#include "ir.h"
#include "jit.h"

using namespace ptoas;

namespace {

constexpr int64_t kCols = 256;
const char* const kOps[] = {"texp", "tlog", "trsqrt"};

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

// Compares the first n results with the definition.
void compare(int op, const std::vector<uint32_t>& in, const std::vector<uint32_t>& out, size_t n, Stats& st) {
  for (size_t i = 0; i < n; ++i) {
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

// One op's kernel for the target, run on chunks of inputs: natively one
// chunk at a time, or under Bochs a batch of chunks (up to kBatchBytes of
// buffers) per boot.
class Runner {
 public:
  static constexpr size_t kBatchBytes = size_t(16) << 20;
  Runner(const std::string& target, bool native, int op, Stats& st)
      : target_(target), native_(native), op_(op), st_(st) {}

  bool load(const Module& m, InstId fn, const SourceFile& src) {
    m_ = &m;
    fn_ = fn;
    Diag jd(&src);
    std::string err;
    bool ok = native_ ? jit_.load(m, fn, target_, jd, err) : jit_.load_for_bochs(m, fn, target_, jd, err);
    if (!ok) std::printf("FAIL %s: jit (%s): %s\n%s", kOps[op_], target_.c_str(), err.c_str(), jd.text().c_str());
    return ok;
  }

  // Runs the kernel on `in` (padded to whole rows with zeros) and compares
  // its first in.size() results, now or at the next flush().
  bool submit(std::vector<uint32_t> in) {
    Chunk c;
    c.n = in.size();
    size_t rows = (in.size() + kCols - 1) / kCols;
    in.resize(rows * kCols, 0);
    c.in = std::move(in);
    c.out.assign(c.in.size(), 0xDEADBEEFu);
    pending_.push_back(std::move(c));
    pending_bytes_ += 8 * pending_.back().in.size();
    return native_ || pending_bytes_ >= kBatchBytes ? flush() : true;
  }

  // Runs the pending chunks and compares their results.
  bool flush() {
    if (pending_.empty()) return true;
    bool ok = true;
    if (native_) {
      for (Chunk& c : pending_) jit_.run(args(c), 0, 1);
    } else {
      std::vector<rt::BochsJob> jobs;
      for (Chunk& c : pending_) jobs.push_back(rt::bochs_job(*m_, fn_, *jit_.image(), args(c), 1));
      rt::BochsResult res;
      std::string err;
      if (!rt::bochs_run(jobs, rt::BochsOptions{}, res, err)) {
        std::printf("FAIL %s: under Bochs: %s\n", kOps[op_], err.c_str());
        ok = false;
      }
      boots += res.boots;
      bochs_s += res.seconds;
    }
    for (Chunk& c : pending_) compare(op_, c.in, c.out, c.n, st_);
    pending_.clear();
    pending_bytes_ = 0;
    return ok;
  }

  unsigned boots = 0;   // Bochs boots, all flushes
  double bochs_s = 0;   // their wall time

 private:
  struct Chunk {
    std::vector<uint32_t> in, out;
    size_t n = 0;
  };

  std::vector<rt::Arg> args(Chunk& c) {
    std::vector<rt::Arg> a(3);
    a[0].kind = a[1].kind = rt::Arg::Kind::Ptr;
    a[0].data = reinterpret_cast<uint8_t*>(c.in.data());
    a[0].bytes = c.in.size() * 4;
    a[1].data = reinterpret_cast<uint8_t*>(c.out.data());
    a[1].bytes = c.out.size() * 4;
    a[2].kind = rt::Arg::Kind::Int;
    a[2].i = int64_t(c.in.size() / kCols);
    return a;
  }

  std::string target_;
  bool native_;
  int op_;
  Stats& st_;
  const Module* m_ = nullptr;
  InstId fn_{};
  rt::JitKernel jit_;
  std::vector<Chunk> pending_;
  size_t pending_bytes_ = 0;
};

// The sample: `per` inputs of each of three kinds. i-th input of `kind`.
uint32_t sample_input(int kind, uint64_t i, uint64_t per) {
  switch (kind) {
    case 0: {  // spread over all bit patterns, jittered within each step
      uint64_t step = (uint64_t(1) << 32) / per;
      return uint32_t(((i << 32) / per) + (uint32_t(uint32_t(i) * 2654435761u) >> 20) % (step ? step : 1));
    }
    case 1: return bits(0.5f) + uint32_t(i);  // consecutive patterns from 0.5 up
    default: return bits(-104.0f + 193.0f * float(double(i) / double(per)));  // a grid over [-104, 89]
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool full = false;
  std::string target = "avx2";
  uint64_t inputs = 3u << 20;
  bool o2 = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--full") full = true;
    else if (a == "-O2") o2 = true;
    else if (a.rfind("--target=", 0) == 0) target = a.substr(9);
    else if (a == "--inputs" && i + 1 < argc) inputs = std::strtoull(argv[++i], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: x86_ulp [--target=avx2|avx512] [-O2] [--inputs N | --full]\n");
      return 2;
    }
  }
  if (target != "avx2" && target != "avx512") {
    std::fprintf(stderr, "x86_ulp: unknown target '%s' (avx2, avx512)\n", target.c_str());
    return 2;
  }
  bool native = rt::cpu_supports(target) && !rt::bochs_forced();
  std::string why;
  if (!native && !rt::bochs_available(&why)) {
    std::printf("SKIP: this CPU cannot run %s code%s and %s\n", target.c_str(), rt::bochs_forced() ? "" : " natively",
                why.c_str());
    return 77;
  }
  std::string tname = (native ? target : target + " (bochs)") + (o2 ? " -O2" : "");
  const uint32_t bound[] = {o2 ? 2u : 1u, 1, 0};
  const uint32_t extremes[] = {
      0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu, 0x00800000u,
      0x80800000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7fa00001u, 0xff812345u,
      0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u,
      0x42b17217u, 0x42b17218u, 0x42b17219u,  // exp overflow threshold (88.7228..)
      0xc2aeac4fu, 0xc2aeac50u, 0xc2aeac51u,  // exp: smallest normal result (-87.336..)
      0xc2ce8ed0u, 0xc2ce8ed1u, 0xc2cff1b4u, 0xc2cff1b5u,  // exp underflow to 0 (-103.97..)
      0x3f7fffffu, 0x3f800001u, 0x33800000u, 0xb3800000u};
  const uint64_t chunk = 1u << 20;
  uint64_t per = (inputs + 2) / 3;
  bool ok = true;
  auto t0 = std::chrono::steady_clock::now();
  unsigned boots = 0;
  double bochs_s = 0;
  for (int op = 0; op < 3; ++op) {
    std::string text = kernel(kOps[op]);
    SourceFile src(std::string(kOps[op]) + "_ulp.pto", text);
    Diag diag(&src);
    Module m;
    FrontendOptions fo;
    if (!run_frontend(src, fo, m, diag)) {
      std::printf("FAIL %s: front end:\n%s\n", kOps[op], diag.text().c_str());
      return 1;
    }
    if (o2) m.opt_level = 2;  // what opt::optimize at -O2 records: the encoder's -O2 choices
    rt::Interpreter interp(m);
    std::string err;
    InstId fn = interp.find_function("", err);
    Stats st;
    Runner r(target, native, op, st);
    if (!r.load(m, fn, src)) return 1;
    bool ran = r.submit(std::vector<uint32_t>(extremes, extremes + sizeof extremes / 4));
    std::vector<uint32_t> in;
    if (full) {
      for (uint64_t base = 0; base < (uint64_t(1) << 32); base += chunk) {
        in.resize(chunk);
        for (uint64_t i = 0; i < chunk; ++i) in[i] = uint32_t(base + i);
        ran &= r.submit(std::move(in));
      }
    } else {
      for (int kind = 0; kind < 3; ++kind)
        for (uint64_t base = 0; base < per; base += chunk) {
          in.resize(std::min(chunk, per - base));
          for (uint64_t i = 0; i < in.size(); ++i) in[i] = sample_input(kind, base + i, per);
          ran &= r.submit(std::move(in));
        }
    }
    ran &= r.flush();
    boots += r.boots;
    bochs_s += r.bochs_s;
    bool pass = ran && st.max_ulp <= bound[op];
    ok &= pass;
    std::printf("%s %s [%s]: %llu inputs, max %u ULP, %llu not bit-identical (%.2e)%s", pass ? "OK  " : "FAIL",
                kOps[op], tname.c_str(), (unsigned long long)st.n, st.max_ulp, (unsigned long long)st.inexact,
                double(st.inexact) / double(st.n ? st.n : 1), st.max_ulp ? "" : "\n");
    if (st.max_ulp)
      std::printf("; worst x=0x%08x ref 0x%08x %s 0x%08x\n", st.worst_in, st.worst_ref, target.c_str(),
                  st.worst_got);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("x86_ulp [%s]: %.1f s", tname.c_str(), secs);
  if (!native) std::printf(" (bochs: %u boot(s), %.1f s)", boots, bochs_s);
  std::printf("\n");
  return ok ? 0 : 1;
}
