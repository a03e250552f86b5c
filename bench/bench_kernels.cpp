// bench_kernels: each bench/kernels/*.pto kernel, assembled by ptoas at -O2
// for avx2 and JIT-loaded in-process (one block), against the same
// computation as plain C++ (bench/cxx/, g++ -O3 -march=native, and again with
// -ffast-math), against OpenBLAS for f32 GEMM, and against the machine's own
// limits (streaming add bandwidth, FMA peak) measured in the same run. Then
// the compile time of ptoas against g++ -O2 -c per kernel. Prints a table,
// `ratio <kernel> <metric>=<value>` lines and the floors.
// docs/bench.md explains every figure.
//
// usage: bench_kernels [--quick | --smoke] [--only NAME,...] [--no-compile] [--cpu N|none]
//   --smoke: tiny sizes, every kernel once, ptoas checked against C++; no
//            timing (the ctest `bench_smoke`). Exit 1 on any mismatch.
//   --cpu:   the CPU every one-thread measurement runs on (default: the
//            first this process may use; none: wherever the kernel puts it).
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <spawn.h>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_stats.h"
#include "cxx/bf16.h"
#include "codegen.h"
#include "frontend.h"
#include "interp.h"
#include "jit.h"
#include "launch.h"
#include "machine_limits.h"
#include "opt.h"
#include "target.h"

#define BENCH_CXX_NS cxx_o3
#include "cxx/kernels.h"
#undef BENCH_CXX_NS
#define BENCH_CXX_NS cxx_fast
#include "cxx/kernels.h"
#undef BENCH_CXX_NS
#define BENCH_CXX_NS cxx_fast_avx2
#include "cxx/kernels.h"
#undef BENCH_CXX_NS

#ifdef BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

// ---- buffers and data -------------------------------------------------------

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// A 64-byte aligned, zero-filled buffer. One of 2 MiB or more is 2 MiB
// aligned and asks for transparent huge pages before it is first touched:
// with 4 KiB pages a 64 MiB stream takes a TLB miss every 4 KiB, whose page
// walk competes with the stream itself, for every variant alike. Where THP
// is off the advice does nothing (docs/bench.md).
class Buf {
 public:
  static constexpr size_t kHuge = size_t(2) << 20;
  Buf() = default;
  explicit Buf(size_t bytes) : bytes_(bytes) {
    const size_t align = bytes >= kHuge ? kHuge : 64;
    size_t rounded = (bytes + align - 1) / align * align;
    p_.reset(std::aligned_alloc(align, rounded ? rounded : align));
    if (!p_) {
      std::fprintf(stderr, "bench_kernels: out of memory (%zu bytes)\n", bytes);
      std::exit(2);
    }
#ifdef MADV_HUGEPAGE
    if (align == kHuge) madvise(p_.get(), rounded, MADV_HUGEPAGE);  // advice only: failure is harmless
#endif
    std::memset(p_.get(), 0, rounded);
  }
  template <class T>
  T* as() const { return static_cast<T*>(p_.get()); }
  size_t bytes() const { return bytes_; }

 private:
  std::unique_ptr<void, FreeDeleter> p_;
  size_t bytes_ = 0;
};

// Deterministic pseudo-random floats in [lo, hi).
void fill(float* p, size_t n, uint64_t seed, float lo, float hi) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    float u = float(s >> 40) * (1.0f / 16777216.0f);
    p[i] = lo + (hi - lo) * u;
  }
}

void fill_bf16(uint16_t* p, size_t n, uint64_t seed, float lo, float hi) {
  std::vector<float> tmp(n);
  fill(tmp.data(), n, seed, lo, hi);
  for (size_t i = 0; i < n; ++i) p[i] = f32_to_bf16(tmp[i]);
}

// ---- result checks ----------------------------------------------------------

// |got - want| <= atol + rtol * |want| everywhere (NaN never matches).
// Returns an empty string, or what failed first and how many did.
std::string compare_f32(const float* got, const float* want, size_t n, double atol, double rtol) {
  size_t bad = 0, first = 0;
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double g = got[i], w = want[i], d = std::fabs(g - w);
    if (!(d <= atol + rtol * std::fabs(w))) {
      if (!bad) first = i;
      ++bad;
      if (!(d <= worst)) worst = d;
    }
  }
  if (!bad) return {};
  char b[256];
  std::snprintf(b, sizeof b, "%zu of %zu elements differ; first [%zu] got %.9g want %.9g; worst |d| %.3g",
                bad, n, first, double(got[first]), double(want[first]), worst);
  return b;
}

// bf16 results: within `ulps` units in the last place of bf16.
std::string compare_bf16(const uint16_t* got, const uint16_t* want, size_t n, int ulps) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; ++i) {
    auto key = [](uint16_t h) { return (h & 0x8000) ? -int(h & 0x7fff) : int(h); };
    if (std::abs(key(got[i]) - key(want[i])) > ulps) {
      if (!bad) first = i;
      ++bad;
    }
  }
  if (!bad) return {};
  char b[256];
  std::snprintf(b, sizeof b, "%zu of %zu bf16 elements differ by more than %d ulp; first [%zu] got %g want %g",
                bad, n, ulps, first, double(bf16_to_f32(got[first])), double(bf16_to_f32(want[first])));
  return b;
}

// ---- the ptoas side ---------------------------------------------------------

std::string src_dir() { return PTOAS_SOURCE_DIR; }

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string first_line(const std::string& s) {
  size_t e = s.find('\n');
  return e == std::string::npos ? s : s.substr(0, e);
}

// One kernel file: parsed, optimized at -O2 for a native target (avx2, or
// avx512 where this CPU has it), JIT-loaded.
struct PtoKernel {
  std::string target = "avx2";
  std::unique_ptr<ptoas::SourceFile> src;
  ptoas::Module module;
  std::unique_ptr<ptoas::rt::JitKernel> jit;
  ptoas::InstId fn = ptoas::kNone;
  std::string problem;       // why it is not loaded
  bool unsupported = false;  // ptoas refused it for the target (not a bench error)

  bool load(const std::string& file) {
    std::string path = src_dir() + "/bench/kernels/" + file;
    std::string text = read_text(path);
    if (text.empty()) {
      problem = "cannot read " + path;
      return false;
    }
    src = std::make_unique<ptoas::SourceFile>(path, std::move(text));
    ptoas::Diag diag(src.get());
    ptoas::FrontendOptions fo;
    if (!ptoas::run_frontend(*src, fo, module, diag)) {
      problem = "front end: " + first_line(diag.text());
      return false;
    }
    ptoas::opt::Options oo;
    oo.level = ptoas::opt::Level::O2;
    ptoas::opt::TargetDesc td = ptoas::cg::opt_target(ptoas::cg::target(target));
    if (!ptoas::opt::optimize(module, oo, td, diag)) {
      problem = "optimizer: " + first_line(diag.text());
      return false;
    }
    std::string err;
    ptoas::rt::Interpreter interp(module);
    fn = interp.find_function("", err);
    if (fn == ptoas::kNone) {
      problem = "no entry function: " + err;
      return false;
    }
    if (!ptoas::rt::cpu_supports(target)) {
      problem = "this CPU cannot run " + target + " code";
      unsupported = true;
      return false;
    }
    jit = std::make_unique<ptoas::rt::JitKernel>();
    if (!jit->load(module, fn, target, diag, err)) {
      problem = err.empty() ? first_line(diag.text()) : first_line(err);
      if (!err.empty() && !diag.text().empty()) problem += " (" + first_line(diag.text()) + ")";
      unsupported = true;
      jit.reset();
      return false;
    }
    return true;
  }
};

// One in-process compile of `text` for avx2, what `ptoas -target=avx2 K.pto
// -o K.o` does without the process: the front end, the optimizer at -O2,
// the code generator and the object (ELF, DWARF) in memory. Seconds, or
// -1 where a step fails.
double compile_in_process(const std::string& path, const std::string& text) {
  double t0 = now_s();
  ptoas::SourceFile src(path, std::string(text));
  ptoas::Diag diag(&src);
  ptoas::Module module;
  ptoas::FrontendOptions fo;
  if (!ptoas::run_frontend(src, fo, module, diag)) return -1;
  const ptoas::cg::Target& tg = ptoas::cg::target("avx2");
  ptoas::opt::Options oo;
  oo.level = ptoas::opt::Level::O2;
  if (!ptoas::opt::optimize(module, oo, ptoas::cg::opt_target(tg), diag)) return -1;
  ptoas::cg::ModuleCode code;
  if (!ptoas::cg::compile_module(module, tg, code, diag)) return -1;
  std::string obj, err;
  if (!ptoas::cg::write_object(module, code, obj, err)) return -1;
  return now_s() - t0;
}

// ptorun's path for a JIT-loaded kernel: the launcher (checks, the view
// probe, the thread pool) with `blocks` blocks on as many threads.
struct BlockLaunch {
  ptoas::rt::LaunchRequest req;
  std::string err;
};
std::shared_ptr<BlockLaunch> block_launch(const ptoas::Module& m, ptoas::InstId fn, const ptoas::rt::JitKernel& jit,
                                          const std::vector<ptoas::rt::Arg>& args, int64_t blocks) {
  auto bl = std::make_shared<BlockLaunch>();
  bl->req.module = &m;
  bl->req.fn = fn;
  bl->req.native = &jit;
  bl->req.blocks = blocks;
  bl->req.threads = unsigned(blocks);
  std::vector<ptoas::rt::ParamInfo> params = ptoas::rt::kernel_params(m, fn);
  for (size_t i = 0; i < params.size() && i < args.size(); ++i) {
    const ptoas::rt::Arg& a = args[i];
    if (a.kind == ptoas::rt::Arg::Kind::Ptr)
      bl->req.args.push_back(ptoas::rt::KernelArg::memory(params[i].name, params[i].elem, a.data, a.bytes));
    else if (a.kind == ptoas::rt::Arg::Kind::Int)
      bl->req.args.push_back(ptoas::rt::KernelArg::scalar(params[i].name, std::to_string(a.i)));
    else {
      char text[40];
      std::snprintf(text, sizeof text, "%.17g", a.f);
      bl->req.args.push_back(ptoas::rt::KernelArg::scalar(params[i].name, text));
    }
  }
  return bl;
}

ptoas::rt::Arg ptr_arg(const Buf& b) {
  ptoas::rt::Arg a;
  a.kind = ptoas::rt::Arg::Kind::Ptr;
  a.data = b.as<uint8_t>();
  a.bytes = b.bytes();
  return a;
}
ptoas::rt::Arg int_arg(int64_t v) {
  ptoas::rt::Arg a;
  a.kind = ptoas::rt::Arg::Kind::Int;
  a.i = v;
  return a;
}
ptoas::rt::Arg float_arg(double v) {
  ptoas::rt::Arg a;
  a.kind = ptoas::rt::Arg::Kind::Float;
  a.f = v;
  return a;
}

// ---- cases ------------------------------------------------------------------

enum class Bound { Memory, Compute, None };

// One benchmark: its buffers, the runs to time, and the check.
struct Case {
  std::string name;          // as in the ratio lines
  std::string pto_file;      // bench/kernels/<pto_file>
  std::string size;          // for the table
  Bound bound = Bound::None;
  double bytes = 0;          // Memory: bytes moved by one call
  double flops = 0;          // Compute: flops of one call
  std::vector<Buf> bufs;     // the kernel's pointer arguments, in order
  std::vector<ptoas::rt::Arg> args;  // the JIT kernel's arguments
  std::function<void()> cxx, fast, fast_avx2, blas;  // fast_avx2: fast-math without AVX-512
  std::function<void()> save_ref;       // runs cxx and keeps its outputs as the reference
  std::function<std::string()> check;   // the outputs against the reference: "" when they agree
};

struct Sizes {
  int64_t stream_m, stream_n;  // vadd, fused_chain
  int64_t rows;                // softmax, layernorm
  int64_t rms_rows;            // rmsnorm
  int64_t gemm_small, gemm_large;
};

// The plain C++ kernels of one build of bench/cxx/.
struct CxxKernels {
  decltype(&cxx_o3::vadd) vadd;
  decltype(&cxx_o3::fused_chain) fused_chain;
  decltype(&cxx_o3::softmax) softmax;
  decltype(&cxx_o3::rmsnorm) rmsnorm;
  decltype(&cxx_o3::layernorm) layernorm;
  decltype(&cxx_o3::gemm_f32) gemm_f32;
  decltype(&cxx_o3::gemm_bf16) gemm_bf16;
  decltype(&cxx_o3::attention) attention;
};
// A namespace cannot be a template argument: its kernels, in order.
#define BENCH_CXX_KERNELS(ns) \
  CxxKernels { ns::vadd, ns::fused_chain, ns::softmax, ns::rmsnorm, ns::layernorm, ns::gemm_f32, ns::gemm_bf16, ns::attention }
const CxxKernels kO3 = BENCH_CXX_KERNELS(cxx_o3);
const CxxKernels kFast = BENCH_CXX_KERNELS(cxx_fast);
const CxxKernels kFastAvx2 = BENCH_CXX_KERNELS(cxx_fast_avx2);
#undef BENCH_CXX_KERNELS

// An output buffer and how to compare it with the reference.
struct Output {
  std::string label;  // named in a mismatch message ("" when there is one output)
  const Buf* buf;
  std::function<std::string(const void* got, const void* want)> cmp;
};

Output f32_out(const Buf& b, double atol, double rtol, std::string label = {}) {
  size_t n = b.bytes() / 4;
  return {std::move(label), &b, [=](const void* g, const void* w) {
            return compare_f32(static_cast<const float*>(g), static_cast<const float*>(w), n, atol, rtol);
          }};
}

Output bf16_out(const Buf& b, int ulps) {
  size_t n = b.bytes() / 2;
  return {{}, &b, [=](const void* g, const void* w) {
            return compare_bf16(static_cast<const uint16_t*>(g), static_cast<const uint16_t*>(w), n, ulps);
          }};
}

Case new_case(const std::string& name, const std::string& file, std::string size, Bound bound, double amount) {
  Case c;
  c.name = name;
  c.pto_file = file;
  c.size = std::move(size);
  c.bound = bound;
  (bound == Bound::Compute ? c.flops : c.bytes) = amount;
  return c;
}

// Adds a buffer of n floats (filled from `seed` in [lo, hi) when seed != 0).
float* add_f32(Case& c, int64_t n, uint64_t seed = 0, float lo = -1, float hi = 1) {
  c.bufs.emplace_back(size_t(n) * 4);
  if (seed) fill(c.bufs.back().as<float>(), n, seed, lo, hi);
  return c.bufs.back().as<float>();
}

uint16_t* add_bf16(Case& c, int64_t n, uint64_t seed = 0, float lo = -1, float hi = 1) {
  c.bufs.emplace_back(size_t(n) * 2);
  if (seed) fill_bf16(c.bufs.back().as<uint16_t>(), n, seed, lo, hi);
  return c.bufs.back().as<uint16_t>();
}

// The JIT arguments (every buffer, then `scalars`), the C++ runs (`call`
// with the -O3 or the fast-math kernels) and the check of `outs` (buffer
// indices with their comparisons) against the -O3 result.
void finish(Case& c, std::vector<ptoas::rt::Arg> scalars, std::function<void(const CxxKernels&)> call,
            std::vector<Output> outs) {
  c.args.clear();
  for (const Buf& b : c.bufs) c.args.push_back(ptr_arg(b));
  c.args.insert(c.args.end(), scalars.begin(), scalars.end());
  c.cxx = [call] { call(kO3); };
  c.fast = [call] { call(kFast); };
  c.fast_avx2 = [call] { call(kFastAvx2); };
  auto refs = std::make_shared<std::vector<Buf>>();
  c.save_ref = [call, outs, refs] {
    call(kO3);
    refs->clear();
    for (const Output& o : outs) {
      refs->emplace_back(o.buf->bytes());
      std::memcpy(refs->back().as<void>(), o.buf->as<void>(), o.buf->bytes());
    }
  };
  c.check = [outs, refs]() -> std::string {
    for (size_t i = 0; i < outs.size(); ++i) {
      std::string e = outs[i].cmp(outs[i].buf->as<void>(), (*refs)[i].as<void>());
      if (!e.empty()) return outs[i].label.empty() ? e : outs[i].label + ": " + e;
    }
    return {};
  };
}

std::string dims(int64_t a, int64_t b) { return std::to_string(a) + "x" + std::to_string(b); }

// The cases `want` names; bufs are reserved up front so that Output's Buf
// pointers stay put.
std::vector<Case> make_cases(const Sizes& z, const std::function<bool(const std::string&)>& want) {
  std::vector<Case> cases;
  auto add = [&](Case&& c) { cases.push_back(std::move(c)); };
  if (want("vadd_64MiB")) {  // vadd: z = x + y
    int64_t m = z.stream_m, n = z.stream_n, e = m * n;
    Case c = new_case("vadd_64MiB", "vadd.pto", dims(m, n) + " f32", Bound::Memory, 12.0 * double(e));
    c.bufs.reserve(3);
    float *x = add_f32(c, e, 1), *y = add_f32(c, e, 2), *o = add_f32(c, e);
    finish(c, {int_arg(m), int_arg(n)}, [=](const CxxKernels& k) { k.vadd(x, y, o, e); },
           {f32_out(c.bufs[2], 0, 0)});
    add(std::move(c));
  }
  if (want("fused_chain")) {  // fused chain: y = relu(x * a + b) * c
    int64_t m = z.stream_m, n = z.stream_n, e = m * n;
    Case c = new_case("fused_chain", "fused_chain.pto", dims(m, n) + " f32", Bound::Memory, 12.0 * double(e));
    c.bufs.reserve(3);
    float *x = add_f32(c, e, 3), *cc = add_f32(c, e, 4, -2, 2), *o = add_f32(c, e);
    const float a = 1.75f, b = -0.25f;
    // g++ may contract x * a + b into one FMA; ptoas rounds twice.
    finish(c, {float_arg(a), float_arg(b), int_arg(m), int_arg(n)},
           [=](const CxxKernels& k) { k.fused_chain(x, cc, o, a, b, e); }, {f32_out(c.bufs[2], 1e-6, 1e-6)});
    add(std::move(c));
  }
  if (want("softmax")) {  // softmax over rows of 128
    int64_t m = z.rows, n = 128;
    Case c = new_case("softmax", "softmax.pto", dims(m, n) + " f32", Bound::Memory, 8.0 * double(m * n));
    c.bufs.reserve(2);
    float *x = add_f32(c, m * n, 5, -8, 8), *o = add_f32(c, m * n);
    finish(c, {int_arg(m)}, [=](const CxxKernels& k) { k.softmax(x, o, m, n); }, {f32_out(c.bufs[1], 1e-7, 2e-5)});
    add(std::move(c));
  }
  if (want("rmsnorm")) {  // RMSNorm, bf16 rows of 256
    int64_t m = z.rms_rows, d = 256;
    Case c = new_case("rmsnorm", "rmsnorm.pto", dims(m, d) + " bf16", Bound::Memory, 4.0 * double(m * d));
    c.bufs.reserve(3);
    uint16_t* x = add_bf16(c, m * d, 6, -3, 3);
    float* g = add_f32(c, d, 7, 0.5, 1.5);
    uint16_t* o = add_bf16(c, m * d);
    const float eps = 1e-5f;
    finish(c, {int_arg(m), float_arg(eps)}, [=](const CxxKernels& k) { k.rmsnorm(x, g, o, m, d, eps); },
           {bf16_out(c.bufs[2], 1)});
    add(std::move(c));
  }
  if (want("layernorm")) {  // LayerNorm, f32 rows of 128
    int64_t m = z.rows, d = 128;
    Case c = new_case("layernorm", "layernorm.pto", dims(m, d) + " f32", Bound::Memory, 8.0 * double(m * d));
    c.bufs.reserve(4);
    float *x = add_f32(c, m * d, 8, -2, 3), *g = add_f32(c, d, 9, 0.5, 1.5), *bt = add_f32(c, d, 10, -0.5, 0.5);
    float* o = add_f32(c, m * d);
    const float eps = 1e-5f;
    finish(c, {int_arg(m), float_arg(eps)}, [=](const CxxKernels& k) { k.layernorm(x, g, bt, o, m, d, eps); },
           {f32_out(c.bufs[3], 1e-4, 1e-4)});
    add(std::move(c));
  }
  // GEMMs: f32, bf16 inputs with f32 accumulation (ND tiles loaded straight
  // into left/right), and f32 the NPU way (gemm_nz_128: fractal mat tiles
  // moved into fractal left/right tiles: the boxed tload/tmov element loops).
  for (int variant = 0; variant < 3; ++variant)
    for (int large = 0; large < 2; ++large) {
      bool bf = variant == 1, nz = variant == 2;
      if (nz && large) continue;
      int64_t s = large ? z.gemm_large : z.gemm_small;
      std::string name = std::string(bf ? "gemm_bf16_" : nz ? "gemm_nz_" : "gemm_") + (large ? "1024" : "128");
      if (!want(name)) continue;
      Case c = new_case(name, bf ? "gemm_bf16.pto" : nz ? "gemm_f32_nz.pto" : "gemm_f32.pto",
                        std::to_string(s) + "^3 " + (bf ? "bf16->f32" : nz ? "f32 nz" : "f32"), Bound::Compute,
                        2.0 * double(s) * double(s) * double(s));
      c.bufs.reserve(3);
      std::function<void(const CxxKernels&)> call;
      float* o = nullptr;
      if (bf) {
        uint16_t *a = add_bf16(c, s * s, 11), *b = add_bf16(c, s * s, 12);
        o = add_f32(c, s * s);
        call = [=](const CxxKernels& k) { k.gemm_bf16(a, b, o, s, s, s); };
      } else {
        float *a = add_f32(c, s * s, 11), *b = add_f32(c, s * s, 12);
        o = add_f32(c, s * s);
        call = [=](const CxxKernels& k) { k.gemm_f32(a, b, o, s, s, s); };
#ifdef BENCH_HAVE_OPENBLAS
        c.blas = [=] {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(s), int(s), int(s), 1.0f, a, int(s), b,
                      int(s), 0.0f, o, int(s));
        };
#endif
      }
      // Sums of s products of numbers in [-1, 1) in another order.
      finish(c, {int_arg(s), int_arg(s), int_arg(s)}, call, {f32_out(c.bufs[2], 2e-6 * double(s), 1e-5)});
      add(std::move(c));
    }
  if (want("attention")) {  // attention tile: S = 128, head dim 32 (fixed by the kernel)
    const int64_t s = 128, d = 32;
    Case c = new_case("attention", "attention.pto", "S=128 d=32 causal f32", Bound::None, 0);
    c.bufs.reserve(5);
    float *q = add_f32(c, s * d, 13), *k = add_f32(c, s * d, 14), *v = add_f32(c, s * d, 15);
    float *o = add_f32(c, s * d), *p = add_f32(c, s * s);
    const float scale = 0.17677669529663687f;  // 1/sqrt(32)
    finish(c, {float_arg(scale)}, [=](const CxxKernels& kk) { kk.attention(q, k, v, o, p, s, d, scale); },
           {f32_out(c.bufs[4], 1e-6, 1e-4, "P"), f32_out(c.bufs[3], 1e-5, 1e-4, "O")});
    add(std::move(c));
  }
  return cases;
}

// ---- timing -----------------------------------------------------------------

struct Variant {
  std::string label;
  std::function<void()> run;
  int inner = 1;
  std::vector<double> per_call;  // seconds, one per repeat
  Stats st;

  Variant(std::string l, std::function<void()> r) : label(std::move(l)), run(std::move(r)) {}
};

// Times every variant `repeats` times, interleaved (variant order rotates
// each repeat) so that a slow spell of the machine hits all of them. A
// sample runs as many calls as take about `target_s`. When a call of some
// variant takes longer than `slow_s`, `slow_repeats` samples are taken
// instead. Returns the wall time spent.
double measure(std::vector<Variant>& vs, int repeats, double target_s, double slow_s, int slow_repeats) {
  double start = now_s(), slowest = 0;
  for (Variant& v : vs) {
    v.per_call.clear();
    double t0 = now_s();
    v.run();  // warm-up, and a first estimate
    double t = now_s() - t0;
    if (t < target_s) {  // fast: estimate again now that it is warm
      t0 = now_s();
      v.run();
      t = now_s() - t0;
    }
    slowest = std::max(slowest, t);
    v.inner = std::max(1, int(std::ceil(target_s / std::max(t, 1e-7))));
  }
  if (slowest > slow_s) repeats = std::min(repeats, slow_repeats);
  for (int r = 0; r < repeats; ++r)
    for (size_t j = 0; j < vs.size(); ++j) {
      Variant& v = vs[(j + size_t(r)) % vs.size()];
      double t0 = now_s();
      for (int i = 0; i < v.inner; ++i) v.run();
      v.per_call.push_back((now_s() - t0) / v.inner);
    }
  for (Variant& v : vs) v.st = stats_of(v.per_call);
  return now_s() - start;
}

// Measures until no variant's cv exceeds `noisy_cv`, at most 1 + `retries`
// times, and not again once an attempt took longer than `retry_budget_s`.
// Prints a `noisy` line for each noisy attempt. When every attempt was
// noisy, the one with the smallest worst cv is kept (chosen by its noise,
// the same for all its variants, never by a time).
struct Timing {
  int repeats = 9, slow_repeats = 5, retries = 3;
  double target_s = 0.05, slow_s = 1.0, retry_budget_s = 20, noisy_cv = kNoisyCv;
  int cpu = -1;  // one-thread measurements run on this CPU (-1: unpinned)
};

// This thread on one CPU for its lifetime, then back on the CPUs it had.
// A ratio compares variants timed on the same CPU only: on the virtual
// machines this bench runs on, the two CPUs' memory bandwidth differed by
// up to 1.5x at the same time (memcpy of 64 MiB 21.5 against 14.4 GB/s;
// the avx2 softmax 3.3 against 5.6 ms; docs/bench.md), and an unpinned
// thread moved between them from one variant to the next. Threads started
// meanwhile would inherit the one CPU: no variant timed under it starts
// any (the blocks rows are timed unpinned, below).
class PinnedTo {
 public:
  explicit PinnedTo(int cpu) {
    if (cpu < 0 || sched_getaffinity(0, sizeof was_, &was_) != 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pinned_ = sched_setaffinity(0, sizeof one, &one) == 0;
  }
  ~PinnedTo() {
    if (pinned_) sched_setaffinity(0, sizeof was_, &was_);
  }
  PinnedTo(const PinnedTo&) = delete;
  PinnedTo& operator=(const PinnedTo&) = delete;

 private:
  cpu_set_t was_;
  bool pinned_ = false;
};

void measure_until_quiet(std::vector<Variant>& vs, const Timing& tm, const std::string& what) {
  PinnedTo pin(tm.cpu);
  std::vector<Variant> quietest;
  double quietest_cv = 0;
  for (int attempt = 0;; ++attempt) {
    double spent = measure(vs, tm.repeats, tm.target_s, tm.slow_s, tm.slow_repeats);
    double worst = 0;
    for (const Variant& v : vs) worst = std::max(worst, v.st.cv);
    if (worst <= tm.noisy_cv) return;
    if (quietest.empty() || worst < quietest_cv) {
      quietest = vs;
      quietest_cv = worst;
    }
    if (attempt >= tm.retries || spent > tm.retry_budget_s) {
      vs = quietest;
      std::printf("noisy %s cv=%.4f (the machine was too noisy; kept the quietest of %d attempt%s, cv=%.4f%s)\n",
                  what.c_str(), worst, attempt + 1, attempt ? "s" : "", quietest_cv,
                  attempt < tm.retries ? "; too slow to measure again" : "");
      return;
    }
    std::printf("noisy %s cv=%.4f (measuring again)\n", what.c_str(), worst);
  }
}

// ---- process wall time --------------------------------------------------------

// Runs argv as a process (stdout/stderr to /dev/null); the wall time in
// seconds, or a negative value when it failed.
double run_process(const std::vector<std::string>& argv) {
  std::vector<char*> av;
  for (const std::string& a : argv) av.push_back(const_cast<char*>(a.c_str()));
  av.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  double t0 = now_s();
  int rc = posix_spawn(&pid, av[0], &fa, nullptr, av.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  double t = now_s() - t0;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? t : -1;
}

// ---- output helpers -----------------------------------------------------------

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// Time per call in adaptive units.
std::string fmt_time(double s) {
  if (s >= 1) return fmt("%.3f s", s);
  if (s >= 1e-3) return fmt("%.3f ms", s * 1e3);
  return fmt("%.2f us", s * 1e6);
}

struct Options {
  bool quick = false, smoke = false, compile = true;
  std::vector<std::string> only;
  std::string cpu;  // --cpu: a CPU number, "none", or empty (the first allowed)
};

// The CPU of --cpu: the one named, or the first this process may use when
// none is named; -1 (unpinned) for "none" or when the process's CPUs
// cannot be read; -2 for a CPU it may not use (main refuses it).
int timing_cpu(const std::string& want) {
  cpu_set_t allowed;
  if (want == "none" || sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
  if (want.empty()) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) return c;
    return -1;
  }
  char* end = nullptr;
  long c = std::strtol(want.c_str(), &end, 10);
  if (end == want.c_str() || *end || c < 0 || c >= CPU_SETSIZE || !CPU_ISSET(int(c), &allowed)) return -2;
  return int(c);
}

// Every kernel, in the order of the table (the names of the ratio lines).
const char* const kKernels[] = {"vadd_64MiB", "fused_chain",   "softmax",        "rmsnorm",
                                "layernorm",  "gemm_128",      "gemm_1024",      "gemm_bf16_128",
                                "gemm_bf16_1024", "gemm_nz_128", "attention"};

bool wanted(const Options& o, const std::string& name) {
  return o.only.empty() || std::find(o.only.begin(), o.only.end(), name) != o.only.end();
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      opt.quick = true;
    } else if (a == "--smoke") {
      opt.smoke = true;
    } else if (a == "--no-compile") {
      opt.compile = false;
    } else if (a == "--cpu" && i + 1 < argc) {
      opt.cpu = argv[++i];
    } else if (a == "--only" && i + 1 < argc) {
      std::string l = argv[++i];
      for (size_t p = 0; p <= l.size();) {
        size_t e = l.find(',', p);
        if (e == std::string::npos) e = l.size();
        if (e > p) opt.only.push_back(l.substr(p, e - p));
        p = e + 1;
      }
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: bench_kernels [--quick | --smoke] [--only NAME,...] [--no-compile] [--cpu N|none]\n"
                  "See docs/bench.md.\n");
      return 0;
    } else {
      std::fprintf(stderr, "bench_kernels: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  for (const std::string& n : opt.only)
    if (std::find_if(std::begin(kKernels), std::end(kKernels), [&](const char* k) { return n == k; }) ==
        std::end(kKernels)) {
      std::fprintf(stderr, "bench_kernels: --only: no kernel named %s\n", n.c_str());
      return 2;
    }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
#ifdef BENCH_HAVE_OPENBLAS
  openblas_set_num_threads(1);
  const bool have_blas = true;
#else
  const bool have_blas = false;
#endif

  Sizes sz = opt.smoke ? Sizes{128, 128, 128, 64, 128, 256} : Sizes{4096, 4096, 65536, 65536, 128, 1024};
  Timing tm;
  if (opt.quick) {
    tm.repeats = 5;
    tm.slow_repeats = 3;
    tm.retries = 2;
    tm.target_s = 0.02;
    tm.slow_s = 0.5;
    tm.retry_budget_s = 4;
  }
  const int repeats = opt.smoke ? 0 : tm.repeats;
  bool failed = false;
  tm.cpu = timing_cpu(opt.cpu);
  if (tm.cpu == -2) {
    std::fprintf(stderr, "bench_kernels: --cpu %s: not a CPU this process may run on\n", opt.cpu.c_str());
    return 2;
  }
  if (!opt.smoke)
    std::printf(tm.cpu >= 0 ? "== one-thread timings on CPU %d (--cpu); the blocks rows on every CPU allowed\n\n"
                            : "== one-thread timings unpinned (--cpu none)\n\n",
                tm.cpu);

  // ---- limits ----
  // Measured here for the table, and again inside each memory-bound or GEMM
  // kernel's measurement (interleaved with its variants), which is what
  // of_limit / of_peak use: on a shared machine the limit moves too.
  const bool cpu_ok = bench::limits_cpu_ok();
  const size_t ln = size_t(64) << 20 >> 2;  // 64 MiB of f32 per array
  std::vector<Buf> lbuf;
  std::function<void()> nt_run, fma_run;  // empty without AVX2+FMA
  const double nt_bytes = 12.0 * double(ln);
  const uint64_t fma_iters = 1000000;
  const double fma_flops = 160.0 * double(fma_iters);
  volatile float sink = 0;
  if (!opt.smoke && cpu_ok) {
    for (int i = 0; i < 3; ++i) lbuf.emplace_back(ln * 4);
    fill(lbuf[0].as<float>(), ln, 21, -1, 1);
    fill(lbuf[1].as<float>(), ln, 22, -1, 1);
    const float *la = lbuf[0].as<float>(), *lb = lbuf[1].as<float>();
    float* lc = lbuf[2].as<float>();
    nt_run = [=] { bench::stream_add_nt(la, lb, lc, ln); };
    fma_run = [&sink, fma_iters] { sink = sink + bench::fma_chains(fma_iters); };
    std::printf("== machine limits (1 core, %d repeats; best / median)\n", repeats);
    std::vector<Variant> vs = {
        {"stream add, normal stores", [=] { bench::stream_add(la, lb, lc, ln); }},
        {"stream add, NT stores", nt_run},
        {"fma peak (10 ymm chains)", fma_run},
    };
    measure_until_quiet(vs, tm, "limits");
    for (int i = 0; i < 2; ++i) {
      const Stats& st = vs[i].st;
      std::printf("%-28s %7.3f / %7.3f ns/elem  %6.1f / %6.1f GB/s  cv %.1f %%\n", vs[i].label.c_str(),
                  st.min / double(ln) * 1e9, st.median / double(ln) * 1e9, nt_bytes / st.min / 1e9,
                  nt_bytes / st.median / 1e9, st.cv * 100);
    }
    const Stats& f = vs[2].st;
    std::printf("%-28s %7.1f / %7.1f GFLOP/s  cv %.1f %%\n\n", vs[2].label.c_str(), fma_flops / f.min / 1e9,
                fma_flops / f.median / 1e9, f.cv * 100);
  } else if (!opt.smoke) {
    std::printf("no AVX2+FMA on this CPU: limits not measured (of_limit, of_peak missing)\n\n");
  }

  // ---- kernels ----
  struct Row {
    std::string name, size, status;  // status: "" when measured
    Stats pto, cxx, fast, fast_avx2, blas, pto512, launch1, launch2;
    bool has_blocks = false;
    bool has_blas = false;
    std::string avx512;  // "": timed (pto512); else why not
    double limit_s = 0;  // the limit's time for one call; 0: none
    double cv = 0;       // the largest cv of its variants
    Bound bound = Bound::None;
  };
  std::vector<Row> rows;

  // AVX-512: the same kernels for -target=avx512, timed in the same
  // interleaved measurement as avx2 (the ratios of both come from one run).
  const bool have_avx512 = ptoas::rt::cpu_supports("avx512");
  std::printf("== kernels: ptoas -O2 avx2%s (JIT, 1 block) vs plain C++; time per call, min / median of %d%s\n",
              have_avx512 ? " and avx512" : "", repeats, opt.smoke ? " (smoke: checks only)" : "");
  if (!have_avx512) std::printf("no AVX-512 on this CPU: -target=avx512 is not timed (no _avx512 rows)\n");
  {
    // Each kernel file is loaded once per target (several cases share one).
    std::map<std::string, std::shared_ptr<PtoKernel>> loaded, loaded512;
    auto load_once = [](std::map<std::string, std::shared_ptr<PtoKernel>>& cache, const std::string& file,
                        const char* target) -> PtoKernel& {
      std::shared_ptr<PtoKernel>& k = cache[file];
      if (!k) {
        k = std::make_shared<PtoKernel>();
        k->target = target;
        k->load(file);
      }
      return *k;
    };
    for (const char* name : kKernels) {
      if (!wanted(opt, name)) continue;
      // One case at a time: its buffers exist only while it is measured.
      std::vector<Case> one = make_cases(sz, [&](const std::string& n) { return n == name; });
      Case& c = one.at(0);
      Row row;
      row.name = c.name;
      row.size = c.size;
      row.bound = c.bound;
      // A failed check: the row says MISMATCH, the run fails.
      auto mismatch = [&](const std::string& what) {
        row.status = "MISMATCH";
        failed = true;
        std::printf("%-15s %s\n", c.name.c_str(), what.c_str());
        rows.push_back(row);
      };
      PtoKernel& k = load_once(loaded, c.pto_file, "avx2");
      if (!k.jit) {
        row.status = (k.unsupported ? "unsupported: " : "ERROR: ") + k.problem;
        if (!k.unsupported) failed = true;
        std::printf("%-15s %s\n", c.name.c_str(), row.status.c_str());
        rows.push_back(row);
        continue;
      }
      const ptoas::rt::JitKernel* jit = k.jit.get();
      std::vector<ptoas::rt::Arg> args = c.args;
      auto pto_run = [jit, args] { jit->run(args, 0, 1); };
      std::function<void()> pto512_run;
      row.avx512 = "no AVX-512 on this CPU";
      if (have_avx512) {
        PtoKernel& k5 = load_once(loaded512, c.pto_file, "avx512");
        if (const ptoas::rt::JitKernel* j5 = k5.jit.get()) {
          pto512_run = [j5, args] { j5->run(args, 0, 1); };
          row.avx512.clear();
        } else {
          row.avx512 = (k5.unsupported ? "unsupported: " : "ERROR: ") + k5.problem;
          if (!k5.unsupported) failed = true;
        }
      }

      // The check: C++ -O3 is the reference; ptoas, fast-math and OpenBLAS
      // must each agree with it.
      c.save_ref();
      std::string bad;
      pto_run();
      if (std::string e = c.check(); !e.empty()) bad = "ptoas vs C++: " + e;
      if (bad.empty()) {
        c.fast();
        if (std::string e = c.check(); !e.empty()) bad = "C++ -ffast-math vs C++: " + e;
      }
      if (bad.empty() && have_avx512) {
        c.fast_avx2();
        if (std::string e = c.check(); !e.empty()) bad = "C++ -ffast-math -mno-avx512f vs C++: " + e;
      }
      if (bad.empty() && c.blas) {
        c.blas();
        if (std::string e = c.check(); !e.empty()) bad = "OpenBLAS vs C++: " + e;
      }
      if (bad.empty() && pto512_run) {
        pto512_run();
        if (std::string e = c.check(); !e.empty()) bad = "ptoas avx512 vs C++: " + e;
      }
      if (!bad.empty()) {
        mismatch("MISMATCH " + bad);
        std::fprintf(stderr, "bench_kernels: %s: MISMATCH %s\n", c.name.c_str(), bad.c_str());
        continue;
      }
      if (opt.smoke) {
        std::printf("%-15s %-24s ok (ptoas %s C++)\n", c.name.c_str(), c.size.c_str(),
                    pto512_run ? "avx2 and avx512 match" : "matches");
        continue;
      }

      std::vector<Variant> vs = {{"ptoas", pto_run}, {"cxx", c.cxx}, {"fast", c.fast}};
      if (c.blas) vs.push_back({"blas", c.blas});
      // On a CPU with AVX-512 the fast-math build above uses it; avx2's
      // like-for-like baseline is the same build without it.
      size_t fast_avx2_at = 0;
      if (have_avx512) {
        fast_avx2_at = vs.size();
        vs.push_back({"fast_avx2", c.fast_avx2});
      }
      size_t avx512_at = 0;
      if (pto512_run) {
        avx512_at = vs.size();
        vs.push_back({"ptoas512", pto512_run});
      }
      size_t limit_at = 0;  // the limit's variant, when there is one
      if (c.bound == Bound::Memory && nt_run) vs.push_back({"limit", nt_run});
      if (c.bound == Bound::Compute && fma_run) vs.push_back({"limit", fma_run});
      if (vs.back().label == "limit") limit_at = vs.size() - 1;
      measure_until_quiet(vs, tm, c.name);
      // The last run of each variant left its output: recheck ptoas once more.
      pto_run();
      if (std::string e = c.check(); !e.empty()) {
        mismatch("MISMATCH after timing: " + e);
        continue;
      }
      for (const Variant& v : vs) row.cv = std::max(row.cv, v.st.cv);
      // Many blocks: the launcher with 1 block against 2 blocks on 2
      // threads (a compute-bound and two memory-bound kernels), timed
      // against each other in one interleaved measurement.
      if (std::thread::hardware_concurrency() >= 2 &&
          (c.name == "gemm_bf16_1024" || c.name == "vadd_64MiB" || c.name == "softmax")) {
        auto one = block_launch(k.module, k.fn, *jit, args, 1), two = block_launch(k.module, k.fn, *jit, args, 2);
        bool ok = true;
        auto launcher = [&ok](BlockLaunch* bl) {
          return [bl, &ok] {
            if (!ptoas::rt::launch(bl->req, bl->err)) ok = false;
          };
        };
        std::vector<Variant> bv = {{"1 block", launcher(one.get())}, {"2 blocks", launcher(two.get())}};
        Timing unpinned = tm;  // the launcher's threads must be free to use every CPU
        unpinned.cpu = -1;
        measure_until_quiet(bv, unpinned, c.name + " blocks");
        std::string e = c.check();
        if (!ok || !e.empty()) {
          mismatch("launcher, 2 blocks: " + (ok ? e : one->err + two->err));
          continue;
        }
        row.launch1 = bv[0].st;
        row.launch2 = bv[1].st;
        row.has_blocks = true;
        std::printf("%-15s launcher: 1 block %s / %s  2 blocks on 2 threads %s / %s\n", c.name.c_str(),
                    fmt_time(row.launch1.min).c_str(), fmt_time(row.launch1.median).c_str(),
                    fmt_time(row.launch2.min).c_str(), fmt_time(row.launch2.median).c_str());
      }
      row.pto = vs[0].st;
      row.cxx = vs[1].st;
      row.fast = vs[2].st;
      if (c.blas) {
        row.blas = vs[3].st;
        row.has_blas = true;
      }
      if (fast_avx2_at) row.fast_avx2 = vs[fast_avx2_at].st;
      if (avx512_at) {
        row.pto512 = vs[avx512_at].st;
        // The last timed variant may have been avx512's: check its output too.
        pto512_run();
        if (std::string e = c.check(); !e.empty()) {
          mismatch("MISMATCH (avx512) after timing: " + e);
          continue;
        }
      }
      if (limit_at) {  // the limit's rate over this kernel's repeats, medians
        double t = vs[limit_at].st.median;
        row.limit_s = c.bound == Bound::Memory ? c.bytes * t / nt_bytes : c.flops * t / fma_flops;
      }
      std::printf("%-15s %-22s ptoas %s / %s  c++ %s / %s  fast-math %s / %s", c.name.c_str(), c.size.c_str(),
                  fmt_time(row.pto.min).c_str(), fmt_time(row.pto.median).c_str(),
                  fmt_time(row.cxx.min).c_str(), fmt_time(row.cxx.median).c_str(),
                  fmt_time(row.fast.min).c_str(), fmt_time(row.fast.median).c_str());
      if (row.has_blas)
        std::printf("  openblas %s / %s", fmt_time(row.blas.min).c_str(), fmt_time(row.blas.median).c_str());
      if (fast_avx2_at)
        std::printf("  fast-math without avx512 %s / %s", fmt_time(row.fast_avx2.min).c_str(),
                    fmt_time(row.fast_avx2.median).c_str());
      if (avx512_at)
        std::printf("  avx512 %s / %s", fmt_time(row.pto512.min).c_str(), fmt_time(row.pto512.median).c_str());
      if (limit_at)
        std::printf("  %s %s / %s", c.bound == Bound::Memory ? "nt-stream" : "fma-peak",
                    fmt_time(vs[limit_at].st.min).c_str(), fmt_time(vs[limit_at].st.median).c_str());
      std::printf("\n");
      rows.push_back(row);
    }
  }
  if (opt.smoke) {
    for (const Row& r : rows)
      if (!r.status.empty() && r.status.rfind("unsupported", 0) != 0) failed = true;
    std::printf(failed ? "bench smoke: FAILED\n" : "bench smoke: all supported kernels match\n");
    return failed ? 1 : 0;
  }

  // ---- compile time ----
  struct CompileRow {
    std::string kernel;
    double pto = -1, gxx = -1;
    double cce = -1, ptx = -1;  // ptoas -target=cce (the default) / ptx: C++ / PTX text
    double inproc = -1;         // the avx2 compile in this process (compile_in_process), warm
  };
  std::vector<CompileRow> crows;
  double empty_s = -1;  // /bin/true: an empty process's time on this machine, same rounds
  if (opt.compile) {
    PinnedTo pin(tm.cpu);  // ptoas, g++ and /bin/true alike (a child inherits it)
    const int reps = opt.quick ? 7 : 9;  // single ms-scale processes: the minimum needs several
    std::printf("\n== compile time per kernel: process wall time, best of %d rounds over the kernels\n", reps);
    std::printf("   ptoas -target=avx2 K.pto -o K.o   vs   %s -O2 -c K.cpp -o K.o\n", BENCH_CXX_COMPILER);
    std::printf("   and ptoas K.pto -o K.cpp (cce, the default), ptoas -target=ptx K.pto -o K.ptx (ptxas not included)\n");
    char tmpl[] = "/tmp/bench_compile.XXXXXX";
    const char* tmp = mkdtemp(tmpl);
    // Rounds over all kernels, each round one ptoas and one g++ run per
    // kernel: a slow spell of the machine (seconds here) then costs a
    // kernel one sample, not all of its runs back to back.
    for (const char* base :
         {"vadd", "fused_chain", "softmax", "rmsnorm", "layernorm", "gemm_f32", "gemm_bf16", "attention"}) {
      CompileRow cr;
      cr.kernel = base;
      crows.push_back(cr);
    }
    for (int r = 0; r < reps; ++r) {
      {
        double t = run_process({"/bin/true"});
        empty_s = r == 0 || t < 0 ? t : std::min(empty_s, t);
      }
      for (CompileRow& cr : crows) {
        // The best time so far; a failed run (negative) leaves the kernel out.
        auto sample = [&](double& best, const std::vector<std::string>& argv) {
          if (r > 0 && best < 0) return;
          double t = run_process(argv);
          best = r == 0 || t < 0 ? t : std::min(best, t);
        };
        std::string obj = std::string(tmp ? tmp : "/tmp") + "/" + cr.kernel + ".o";
        sample(cr.pto, {PTOAS_BIN, "-target=avx2", src_dir() + "/bench/kernels/" + cr.kernel + ".pto", "-o", obj});
        sample(cr.gxx, {BENCH_CXX_COMPILER, "-O2", "-c", src_dir() + "/bench/cxx/" + cr.kernel + ".cpp", "-o", obj});
        const std::string src = src_dir() + "/bench/kernels/" + cr.kernel + ".pto";
        sample(cr.cce, {PTOAS_BIN, src, "-o", obj + ".cpp"});
        sample(cr.ptx, {PTOAS_BIN, "-target=ptx", src, "-o", obj + ".ptx"});
      }
    }
    // The same compile in this process, warm: best of 20 (the first run
    // pays for the pages and caches a process would).
    for (CompileRow& cr : crows) {
      const std::string path = src_dir() + "/bench/kernels/" + cr.kernel + ".pto";
      const std::string text = read_text(path);
      for (int r = 0; r < 21 && !text.empty(); ++r) {
        double t = compile_in_process(path, text);
        if (t < 0) break;
        if (r > 0) cr.inproc = cr.inproc < 0 ? t : std::min(cr.inproc, t);
      }
    }
    auto ms = [](double t) { return t < 0 ? std::string("   refused") : fmt("%7.1f ms", t * 1e3); };
    if (empty_s > 0) std::printf("%-12s %8.2f ms (an empty process, the floor of every row)\n", "/bin/true", empty_s * 1e3);
    for (const CompileRow& cr : crows) {
      std::string other = "   cce " + ms(cr.cce) + "   ptx " + ms(cr.ptx) +
                          (cr.inproc > 0 ? fmt("   in-process %6.3f ms", cr.inproc * 1e3) : std::string("   in-process failed"));
      if (cr.pto < 0 || cr.gxx < 0)
        std::printf("%-12s %s%s\n", cr.kernel.c_str(),
                    cr.pto < 0 ? "ptoas failed (unsupported for avx2?): left out" : "g++ failed: left out", other.c_str());
      else
        std::printf("%-12s ptoas %8.1f ms   g++ %8.1f ms   g++/ptoas %6.1f%s\n", cr.kernel.c_str(), cr.pto * 1e3,
                    cr.gxx * 1e3, cr.gxx / cr.pto, other.c_str());
    }
    if (tmp) {
      for (auto& cr : crows)
        for (const char* ext : {".o", ".o.cpp", ".o.ptx"}) std::remove((std::string(tmp) + "/" + cr.kernel + ext).c_str());
      rmdir(tmp);
    }
  }

  // ---- the table ----
  std::printf("\n== summary (medians; speedup = baseline time / ptoas time; of_limit/of_peak = limit time / ptoas time)\n");
  std::printf("%-15s %-22s %11s %11s %8s %8s %8s %9s %6s\n", "kernel", "size", "ptoas med", "c++ med", "vs_cxx",
              "vs_fast", "vs_blas", "of_lim/pk", "cv%");
  std::map<std::string, double> fig;  // "kernel metric" -> value
  for (const Row& r : rows) {
    if (!r.status.empty()) {
      std::printf("%-15s %-22s %s\n", r.name.c_str(), r.size.c_str(), r.status.c_str());
      continue;
    }
    double vc = r.cxx.median / r.pto.median, vf = r.fast.median / r.pto.median;
    fig[r.name + " vs_cxx"] = vc;
    fig[r.name + " vs_cxx_fastmath"] = vf;
    if (r.fast_avx2.median > 0) fig[r.name + " vs_cxx_fastmath_avx2"] = r.fast_avx2.median / r.pto.median;
    std::string sb = "-", sl = "-";
    if (r.has_blas) {
      fig[r.name + " vs_openblas"] = r.blas.median / r.pto.median;
      sb = fmt("%.3f", r.blas.median / r.pto.median);
    }
    if (r.limit_s > 0) {
      double v = r.limit_s / r.pto.median;
      fig[r.name + (r.bound == Bound::Memory ? " of_limit" : " of_peak")] = v;
      sl = fmt("%.3f", v) + (r.bound == Bound::Memory ? " lim" : " pk");
    }
    std::printf("%-15s %-22s %11s %11s %8.3f %8.3f %8s %9s %6.1f\n", r.name.c_str(), r.size.c_str(),
                fmt_time(r.pto.median).c_str(), fmt_time(r.cxx.median).c_str(), vc, vf, sb.c_str(), sl.c_str(),
                r.cv * 100);
  }
  // The same figures for avx512, and avx512 against avx2.
  for (const Row& r : rows)
    if (r.status.empty() && r.has_blocks) fig[r.name + " blocks2"] = r.launch1.median / r.launch2.median;
  for (const Row& r : rows) {
    if (!r.status.empty() || !r.avx512.empty()) continue;
    const std::string n = r.name + "_avx512";
    const double t = r.pto512.median;
    fig[n + " vs_cxx"] = r.cxx.median / t;
    fig[n + " vs_cxx_fastmath"] = r.fast.median / t;
    fig[n + " vs_avx2"] = r.pto.median / t;
    std::string sb = "-", sl = "-";
    if (r.has_blas) {
      fig[n + " vs_openblas"] = r.blas.median / t;
      sb = fmt("%.3f", r.blas.median / t);
    }
    if (r.limit_s > 0) {
      // of_peak against the AVX2 FMA peak (ymm chains): AVX-512 may exceed 1.
      fig[n + (r.bound == Bound::Memory ? " of_limit" : " of_peak")] = r.limit_s / t;
      sl = fmt("%.3f", r.limit_s / t) + (r.bound == Bound::Memory ? " lim" : " pk");
    }
    std::printf("%-15s %-22s %11s %11s %8.3f %8.3f %8s %9s %6.1f\n", n.c_str(), r.size.c_str(),
                fmt_time(t).c_str(), fmt_time(r.cxx.median).c_str(), r.cxx.median / t, r.fast.median / t, sb.c_str(),
                sl.c_str(), r.pto512.cv * 100);
  }
  for (const Row& r : rows)
    if (r.status.empty() && !r.avx512.empty() && have_avx512)
      std::printf("%-15s %s\n", (r.name + "_avx512").c_str(), r.avx512.c_str());
  if (!have_blas) std::printf("OpenBLAS: not found when this bench was configured; vs_openblas missing\n");

  // ---- ratio lines ----
  std::printf("\n== ratios\n");
  const char* metrics[] = {"vs_cxx", "vs_cxx_fastmath", "vs_cxx_fastmath_avx2", "vs_openblas", "of_limit", "of_peak", "vs_avx2", "blocks2"};
  for (const Row& r : rows)
    for (const std::string& name : {r.name, r.name + "_avx512"})
      for (const char* m : metrics) {
        auto f = fig.find(name + " " + m);
        if (f != fig.end()) std::printf("ratio %s %s=%.4f\n", name.c_str(), m, f->second);
      }
  {
    double lsum = 0;
    int n = 0;
    for (const CompileRow& cr : crows)
      if (cr.pto > 0 && cr.gxx > 0) {
        lsum += std::log(cr.gxx / cr.pto);
        ++n;
      }
    if (n) {
      fig["compile vs_gxx"] = std::exp(lsum / n);
      std::printf("# compile vs_gxx: geometric mean over %d kernel sources of (g++ -O2 -c time / ptoas time)\n", n);
      std::printf("ratio compile vs_gxx=%.4f\n", fig["compile vs_gxx"]);
    }
    // ptoas's process time above an empty process's, the largest over the
    // kernels (avx2), in ms: what is not the exec of a process at all.
    double worst = -1;
    for (const CompileRow& cr : crows)
      if (cr.pto > 0 && empty_s > 0) worst = std::max(worst, (cr.pto - empty_s) * 1e3);
    if (worst >= 0) {
      std::printf("# compile over_empty_ms: max over the kernels of (ptoas -target=avx2 time - /bin/true time), ms\n");
      std::printf("ratio compile over_empty_ms=%.4f\n", worst);
    }
    double inproc = -1;
    for (const CompileRow& cr : crows) inproc = std::max(inproc, cr.inproc * 1e3);
    if (inproc > 0) {
      std::printf("# compile in_process_ms: max over the kernels of the avx2 compile in one process (front end to\n"
                  "# object in memory), warm, best of 20, ms\n");
      std::printf("ratio compile in_process_ms=%.4f\n", inproc);
    }
  }

  // ---- floors (issue 5) ----
  std::printf("\n== floors\n");
  struct Floor {
    const char* key;
    double min;
  };
  const Floor floors[] = {{"vadd_64MiB vs_cxx", 1.15},  {"vadd_64MiB of_limit", 0.85},
                          {"softmax vs_cxx", 5},        {"softmax vs_cxx_fastmath", 1.0},
                          {"rmsnorm vs_cxx", 2},        {"gemm_128 of_peak", 0.75},
                          {"gemm_128 vs_openblas", 0.9}, {"compile vs_gxx", 30}};
  for (const Floor& f : floors) {
    auto it = fig.find(f.key);
    const std::string kernel = std::string(f.key).substr(0, std::string(f.key).find(' '));
    const Row* row = nullptr;
    for (const Row& r : rows)
      if (r.name == kernel) row = &r;
    if (it == fig.end()) {
      std::string why = "missing";
      if (std::strstr(f.key, "openblas") && !have_blas) why = "missing: built without OpenBLAS";
      if (row && !row->status.empty()) why = "missing: " + row->status;
      std::printf("floor %s >= %g: NOT MET (%s)\n", f.key, f.min, why.c_str());
    } else {
      // A floor missed while the kernel's own timings were noisy says so:
      // the figure is then the machine's as much as the code's.
      std::string noisy;
      if (row && row->cv > tm.noisy_cv && it->second < f.min) noisy = fmt(", noisy: cv %.1f %%", row->cv * 100);
      std::printf("floor %s >= %g: %s (%.3f%s)\n", f.key, f.min, it->second >= f.min ? "met" : "NOT MET",
                  it->second, noisy.c_str());
    }
  }
  if (failed) std::printf("\nbench_kernels: FAILED (a mismatch or an error above)\n");
  return failed ? 1 : 0;
}
