// The Bochs runner (runtime/bochs/bochs_runner.h) against the interpreter.
//
// 1. Real kernels (samples and tests/x86/kernels), JIT-compiled for avx2 and
//    for avx512, all blocks of all of them in one Bochs boot; every buffer
//    must come back bit-identical to the interpreter's. Output buffers are
//    pre-filled with a NaN sentinel and are larger than the kernel's views,
//    so a store outside the valid region shows up.
// 2. Negative control: the same ragged kernels compiled with
//    CodegenOptions::test_unmasked_tails (the code generator then stores ragged
//    tails unmasked) must be caught: a difference, or a write outside the
//    buffers.
// 3. The runner's own failure paths: a CPU exception and a write outside
//    the buffers are reported for their job (with the block), and the jobs
//    after them still run; a hang times out.
//
// Exit 0 on success, 1 on a failure, 77 (skip) when bochs is not installed.
// `bochs_test --timing` also prints the boot overhead.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bochs_runner.h"
#include "codegen.h"
#include "diag.h"
#include "frontend.h"
#include "interp.h"
#include "ir.h"
#include "jit.h"
#include "launch.h"

using namespace ptoas;

namespace {

int g_failures = 0;

void fail(const std::string& msg) {
  std::printf("FAIL %s\n", msg.c_str());
  ++g_failures;
}

uint64_t g_rng = 0x2545F4914F6CDD1Dull;
uint32_t rnd() {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return uint32_t(g_rng >> 16);
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// One argument: a buffer (`count` elements; an output is sentinel-filled and
// `extra` elements longer than the kernel's views) or a scalar as text.
struct ArgSpec {
  std::string name;
  size_t count = 0, extra = 0;
  bool output = false;
  std::string scalar;
};

// A kernel with its arguments, parsed, with the interpreter's result.
struct Kernel {
  std::string name;
  std::unique_ptr<SourceFile> src;
  std::unique_ptr<Module> m;
  InstId fn = kNone;
  int64_t blocks = 1;
  std::vector<std::vector<uint8_t>> init, ref;  // per parameter (empty for scalars)
  std::vector<rt::ParamInfo> params;
  std::vector<rt::Arg> scalars;                  // per parameter
  bool ok = false;
};

std::vector<rt::Arg> bind(Kernel& k, std::vector<std::vector<uint8_t>>& bufs) {
  std::vector<rt::Arg> args = k.scalars;
  for (size_t i = 0; i < args.size(); ++i)
    if (k.params[i].kind == rt::ParamInfo::Kind::Ptr) {
      args[i].kind = rt::Arg::Kind::Ptr;
      args[i].data = bufs[i].data();
      args[i].bytes = bufs[i].size();
    }
  return args;
}

std::unique_ptr<Kernel> make_kernel(const std::string& name, const std::string& path, Arch arch,
                                    int64_t blocks, const std::vector<ArgSpec>& specs) {
  auto k = std::make_unique<Kernel>();
  k->name = name;
  k->blocks = blocks;
  k->src = std::make_unique<SourceFile>(path, read_text(path));
  k->m = std::make_unique<Module>();
  Diag diag(k->src.get());
  FrontendOptions fo;
  fo.arch = arch;
  fo.arch_from_cli = true;
  if (!run_frontend(*k->src, fo, *k->m, diag)) {
    fail(name + ": front end: " + diag.text());
    return k;
  }
  rt::Interpreter interp(*k->m);
  std::string err;
  k->fn = interp.find_function("", err);
  if (k->fn == kNone) {
    fail(name + ": " + err);
    return k;
  }
  k->params = rt::kernel_params(*k->m, k->fn);
  k->init.resize(k->params.size());
  k->scalars.resize(k->params.size());
  for (size_t i = 0; i < k->params.size(); ++i) {
    const rt::ParamInfo& p = k->params[i];
    const ArgSpec* s = nullptr;
    for (const ArgSpec& a : specs)
      if (a.name == p.name) s = &a;
    if (!s) {
      fail(name + ": no argument for %" + p.name);
      return k;
    }
    if (p.kind == rt::ParamInfo::Kind::Ptr) {
      size_t esize = dtype_bytes(p.elem);
      std::vector<uint8_t>& b = k->init[i];
      b.resize((s->count + s->extra) * esize);
      for (size_t e = 0; e < s->count + s->extra; ++e) {
        uint32_t v;
        if (s->output) {
          v = 0x7fc0dead;  // a NaN sentinel
        } else if (p.elem == DType::F32) {
          float f = float(int32_t(rnd() % 20001) - 10000) / 2503.0f;
          std::memcpy(&v, &f, 4);
        } else {
          v = rnd();
        }
        std::memcpy(&b[e * esize], &v, esize);
      }
    } else if (!rt::parse_scalar(p.elem, s->scalar, k->scalars[i], err)) {
      fail(name + ": %" + p.name + ": " + err);
      return k;
    }
  }
  k->ref = k->init;
  std::vector<rt::Arg> args = bind(*k, k->ref);
  for (int64_t b = 0; b < blocks; ++b)
    if (!interp.run_block(k->fn, args, b, blocks, err)) {
      fail(name + ": interpreter: " + err);
      return k;
    }
  k->ok = true;
  return k;
}

// One Bochs job of a kernel: its image and a fresh copy of the inputs.
struct Run {
  const Kernel* k = nullptr;
  std::string label;
  cg::JitImage image;
  std::vector<std::vector<uint8_t>> bufs;
  bool compiled = false;
};

std::unique_ptr<Run> make_run(Kernel& k, const cg::Target& t, bool broken_tails) {
  auto r = std::make_unique<Run>();
  r->k = &k;
  r->label = k.name + " on " + std::string(t.name) + (broken_tails ? " with unmasked tails" : "");
  cg::CodegenOptions o;
  o.test_unmasked_tails = broken_tails;
  Diag diag(k.src.get());
  r->compiled = cg::build_jit_image(*k.m, k.fn, t, r->image, diag, o);
  if (!r->compiled) fail(r->label + ": cannot compile: " + diag.text());
  r->bufs = k.init;
  return r;
}

// The first difference from the interpreter, or "".
std::string difference(const Run& r) {
  for (size_t i = 0; i < r.bufs.size(); ++i) {
    const std::vector<uint8_t>& a = r.bufs[i];
    const std::vector<uint8_t>& b = r.k->ref[i];
    for (size_t e = 0; e < a.size(); ++e)
      if (a[e] != b[e]) {
        size_t es = dtype_bytes(r.k->params[i].elem);
        uint32_t got = 0, want = 0;
        std::memcpy(&got, &a[e / es * es], es);
        std::memcpy(&want, &b[e / es * es], es);
        char buf[160];
        std::snprintf(buf, sizeof buf, "%%%s element %zu: got 0x%08x, interpreter 0x%08x",
                      r.k->params[i].name.c_str(), e / es, got, want);
        return buf;
      }
  }
  return "";
}

// A hand-made image: `code` is both thunk and kernel; one pointer slot.
cg::JitImage raw_image(std::vector<uint8_t> code) {
  cg::JitImage img;
  img.bytes = std::move(code);
  img.n_slots = 3;
  return img;
}

rt::BochsJob raw_job(const cg::JitImage& img, std::vector<uint8_t>& buf) {
  rt::BochsJob j;
  j.image = &img;
  j.buffers.push_back({buf.data(), buf.size()});
  j.is_pointer = {true, false, false};
  j.blocks.push_back({uint64_t(reinterpret_cast<uintptr_t>(buf.data())), 0, 1});
  return j;
}

// mov rax, [rdi]; mov dword [rax], 0x600d; ret
const std::vector<uint8_t> kGood = {0x48, 0x8b, 0x07, 0xc7, 0x00, 0x0d, 0x60, 0x00, 0x00, 0xc3};
// ud2
const std::vector<uint8_t> kUd2 = {0x0f, 0x0b};
// mov rax, [rdi]; mov dword [rax + 64], 1; ret   (the buffer is 64 bytes)
const std::vector<uint8_t> kOverrun = {0x48, 0x8b, 0x07, 0xc7, 0x40, 0x40, 0x01, 0x00, 0x00, 0x00, 0xc3};
// jmp $
const std::vector<uint8_t> kHang = {0xeb, 0xfe};

void failure_paths() {
  cg::JitImage good = raw_image(kGood), ud2 = raw_image(kUd2), over = raw_image(kOverrun),
               hang = raw_image(kHang);
  std::vector<std::vector<uint8_t>> bufs(5, std::vector<uint8_t>(64, 0));
  std::vector<rt::BochsJob> jobs = {raw_job(good, bufs[0]), raw_job(ud2, bufs[1]), raw_job(good, bufs[2]),
                                    raw_job(over, bufs[3]), raw_job(good, bufs[4])};
  rt::BochsResult res;
  std::string err;
  bool ok = rt::bochs_run(jobs, {}, res, err);
  if (ok) fail("failure paths: bochs_run reported success");
  const char* want[] = {nullptr, "#UD", nullptr, "outside its buffers", nullptr};
  for (size_t i = 0; i < 5; ++i) {
    const std::string& e = res.job_errors[i];
    if (!want[i] ? !e.empty() : e.find(want[i]) == std::string::npos)
      fail("failure paths: job " + std::to_string(i) + ": expected " + (want[i] ? want[i] : "success") +
           ", got '" + e + "'");
    if (!want[i] && (bufs[i][0] != 0x0d || bufs[i][1] != 0x60))
      fail("failure paths: job " + std::to_string(i) + " did not write its buffer");
  }
  std::printf("failure paths: %u boots, job 1: %s\n", res.boots, res.job_errors[1].c_str());
  std::printf("failure paths: job 3: %s\n", res.job_errors[3].c_str());

  // A hang: the timeout, then the next job still runs.
  std::vector<rt::BochsJob> hjobs = {raw_job(hang, bufs[0]), raw_job(good, bufs[1])};
  bufs[1].assign(64, 0);
  rt::BochsOptions o;
  o.timeout_s = 1;
  ok = rt::bochs_run(hjobs, o, res, err);
  if (ok || res.job_errors[0].find("timed out") == std::string::npos || !res.job_errors[1].empty() ||
      bufs[1][0] != 0x0d)
    fail("timeout: job 0 '" + res.job_errors[0] + "', job 1 '" + res.job_errors[1] + "'");
  std::printf("timeout: %s\n", res.job_errors[0].c_str());
}

}  // namespace

int main(int argc, char** argv) {
  bool timing = argc > 1 && std::strcmp(argv[1], "--timing") == 0;
  std::string why;
  if (!rt::bochs_available(&why)) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  const std::string root = PTOAS_SOURCE_DIR;
  auto out = [](const char* n, size_t c, size_t extra) { return ArgSpec{n, c, extra, true, ""}; };
  auto in = [](const char* n, size_t c) { return ArgSpec{n, c, 0, false, ""}; };
  auto val = [](const char* n, const char* v) { return ArgSpec{n, 0, 0, false, v}; };
  std::vector<std::unique_ptr<Kernel>> kernels;
  kernels.push_back(make_kernel("axpy_relu", root + "/tests/x86/kernels/axpy_relu.pto", Arch::A3, 3,
                                {in("x", 1003), in("y", 1003), out("z", 1003, 64), val("alpha", "1.5"),
                                 val("n", "1003"), val("relu", "1")}));
  kernels.push_back(make_kernel("vadd", root + "/samples/vadd/vadd.pto", Arch::A5, 4,
                                {in("x", 2000), in("y", 2000), out("z", 2000, 64), val("n", "1999")}));
  kernels.push_back(make_kernel("fused_chain", root + "/samples/fused_chain/fused_chain.pto", Arch::A5, 3,
                                {in("x", 70 * 200), in("c", 70 * 200), out("y", 70 * 200, 256),
                                 val("a", "1.75"), val("b", "-0.25"), val("m", "70"), val("n", "200")}));
  kernels.push_back(make_kernel("softmax", root + "/samples/softmax/softmax.pto", Arch::A5, 2,
                                {in("x", 77 * 50), out("y", 77 * 50, 64), val("m", "77"), val("n", "50")}));

  // One boot: every kernel on both targets, and the broken-tail controls.
  std::vector<std::unique_ptr<Run>> runs;
  for (auto& k : kernels) {
    if (!k->ok) continue;
    runs.push_back(make_run(*k, cg::target("avx2"), false));
    runs.push_back(make_run(*k, cg::target("avx512"), false));
  }
  size_t n_good = runs.size();
  for (auto& k : kernels)
    if (k->ok && (k->name == "axpy_relu" || k->name == "vadd")) {
      runs.push_back(make_run(*k, cg::target("avx2"), true));
      runs.push_back(make_run(*k, cg::target("avx512"), true));
    }
  std::vector<rt::BochsJob> jobs;
  std::vector<size_t> job_run;
  for (size_t i = 0; i < runs.size(); ++i) {
    Run& r = *runs[i];
    if (!r.compiled) continue;
    jobs.push_back(rt::bochs_job(*r.k->m, r.k->fn, r.image, bind(const_cast<Kernel&>(*r.k), r.bufs),
                                 r.k->blocks));
    job_run.push_back(i);
  }
  rt::BochsResult res;
  std::string err;
  rt::bochs_run(jobs, {}, res, err);
  std::printf("%zu jobs in %u boot(s), %.2f s, %llu emulated instructions\n", jobs.size(), res.boots,
              res.seconds, (unsigned long long)res.ticks);
  for (size_t j = 0; j < jobs.size(); ++j) {
    Run& r = *runs[job_run[j]];
    std::string diff = difference(r);
    const std::string& e = res.job_errors[j];
    if (job_run[j] < n_good) {
      if (!e.empty()) fail(r.label + ": " + e);
      else if (!diff.empty()) fail(r.label + ": " + diff);
      else std::printf("ok   %s\n", r.label.c_str());
    } else {
      // The negative control must be caught.
      if (e.empty() && diff.empty()) fail(r.label + ": the broken kernel was not caught");
      else std::printf("ok   %s: caught (%s)\n", r.label.c_str(), (e.empty() ? diff : e).c_str());
    }
  }

  failure_paths();

  if (timing) {
    // The boot overhead: one job that does nothing much.
    cg::JitImage good = raw_image(kGood);
    std::vector<uint8_t> buf(64, 0);
    std::vector<rt::BochsJob> one = {raw_job(good, buf)};
    for (int i = 0; i < 3; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      rt::bochs_run(one, {}, res, err);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("timing: an empty boot takes %.3f s (bochs process %.3f s, %llu instructions)\n", s,
                  res.seconds, (unsigned long long)res.ticks);
    }
  }
  if (timing && !kernels.empty() && kernels[0]->ok) {
    // Throughput of a differential-suite-like batch: 200 small jobs, one
    // image, each with its own copy of the inputs.
    Kernel& k = *kernels[0];
    std::unique_ptr<Run> r = make_run(k, cg::target("avx512"), false);
    std::vector<std::vector<std::vector<uint8_t>>> copies(200, k.init);
    std::vector<rt::BochsJob> many;
    for (auto& c : copies) many.push_back(rt::bochs_job(*k.m, k.fn, r->image, bind(k, c), k.blocks));
    auto t0 = std::chrono::steady_clock::now();
    bool ok = rt::bochs_run(many, {}, res, err);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    size_t same = 0;
    for (auto& c : copies) same += c == k.ref;
    std::printf("timing: %zu jobs of %s (%lld blocks each) in %u boot(s): %.3f s, %llu instructions; "
                "%zu match the interpreter%s\n",
                many.size(), k.name.c_str(), (long long)k.blocks, res.boots, s,
                (unsigned long long)res.ticks, same, ok ? "" : (" (" + err + ")").c_str());
  }
  if (g_failures) {
    std::printf("%d failure(s)\n", g_failures);
    return 1;
  }
  std::printf("all passed\n");
  return 0;
}
