// Differential test of the x86 backends against the reference interpreter.
//
// The cases (x86_diff_elt.cpp, x86_diff_fused.cpp, x86_diff_misc.cpp) are
// built first: every elementwise, tile-scalar, unary and row/column-expand
// op x element type (f32 f16 bf16 i32 u32 i16 u16 i8 u8) x shape class
// (full tile, ragged valid region, one row, one column, widths that are not
// a multiple of 8; column-major tiles too), `tload -> op -> tstore` kernels
// with inputs drawn from the special values of each type (NaN with
// payloads, +-Inf, +-0, subnormals, integer extremes) and random ones; the
// fused ops (taddc ... taxpy; dst starts from loaded data) and the row /
// column reductions over every element type the op table allows; then
// tcvt, tmatmul, ttri and the scalar arith ops / control flow. The output
// buffer is pre-filled with a sentinel and is one row larger than the view,
// so a store outside the valid region or the view shows up as a difference.
//
// Then the driver runs the cases, a batch at a time: the front end and the
// interpreter give the reference outputs, the target (a Target below)
// compiles and runs the same kernels on the same inputs, and the outputs
// must be bit-identical (f16 / bf16 texp, tlog, trsqrt: within 1 ULP of the
// element type, DESIGN §6). A target that runs many kernels at once (an
// emulator) gets its whole batch in one execute() call.
//
//   x86_diff [--target=avx2] [--filter=SUBSTR] [-v] [--list]
// -v prints each failing case's kernel text. Exit 0 when every case agrees,
// 1 on a failure, 77 (SKIP) when the target cannot run here.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "diag.h"
#include "frontend.h"
#include "interp.h"
#include "ir.h"
#include "jit.h"
#include "x86_diff_case.h"
#if __has_include("codegen.h")
#include "codegen.h"  // where jit.h holds a cg::JitImage by unique_ptr: complete for its destructor
#endif

using namespace ptoas;
using namespace x86diff;

namespace {

// One case after the front end and the interpreter.
struct Prepared {
  Case* c = nullptr;
  std::unique_ptr<SourceFile> src;
  std::unique_ptr<Module> m;
  InstId fn{};
  std::vector<std::vector<uint8_t>> ref, got;  // buffers after the interpreter / for the target
  bool ok = false;                              // front end and interpreter ran
};

// What the target did with one case.
struct Outcome {
  bool compiled = false;  // the target accepted the kernel (and ran it)
  std::string error;      // else why not
};

// The kernel arguments of `c` with its buffers bound to `bufs`.
std::vector<rt::Arg> bind_args(const Case& c, std::vector<std::vector<uint8_t>>& bufs) {
  std::vector<rt::Arg> v;
  for (const Param& p : c.params) {
    if (p.buf < 0) {
      v.push_back(p.scalar);
      continue;
    }
    rt::Arg a;
    a.kind = rt::Arg::Kind::Ptr;
    a.data = bufs[size_t(p.buf)].data();
    a.bytes = bufs[size_t(p.buf)].size();
    v.push_back(a);
  }
  return v;
}

// A target compiles and runs a batch of prepared cases. A batch target (the
// avx512 one under Bochs, runtime/bochs/bochs_runner.h) would, in
// execute(): JitKernel::load_for_bochs each case, make one rt::bochs_job
// per case from bind_args(*p.c, p.got), run them all with one
// rt::bochs_run, and turn result.job_errors into Outcome::error; with
// batch_size() covering every case, one emulator boot runs the whole suite.
class Target {
 public:
  virtual ~Target() = default;
  virtual const char* name() const = 0;
  // Why this target cannot run on this machine (empty: it can).
  virtual std::string unavailable() const = 0;
  // Cases per execute() call.
  virtual size_t batch_size() const = 0;
  // Compiles every prepared case (p.ok) and runs it on p.got; out[i] says
  // whether case i compiled, else why not.
  virtual void execute(std::vector<Prepared>& batch, std::vector<Outcome>& out) = 0;
};

// avx2: JIT-compiled and run natively, one case at a time.
class Avx2Target : public Target {
 public:
  const char* name() const override { return "avx2"; }
  std::string unavailable() const override {
    return rt::cpu_supports("avx2") ? "" : "this CPU has no AVX2/FMA";
  }
  size_t batch_size() const override { return 64; }
  void execute(std::vector<Prepared>& batch, std::vector<Outcome>& out) override {
    for (size_t i = 0; i < batch.size(); ++i) {
      Prepared& p = batch[i];
      if (!p.ok) continue;
      rt::JitKernel jit;
      Diag jd(p.src.get());
      std::string err;
      if (!jit.load(*p.m, p.fn, "avx2", jd, err)) {
        out[i].error = err + (jd.text().empty() ? "" : "\n" + jd.text());
        continue;
      }
      out[i].compiled = true;
      jit.run(bind_args(*p.c, p.got), 0, 1);
    }
  }
};

struct Options {
  std::string target = "avx2", filter;
  bool verbose = false, list = false;
};

struct Stats {
  // within_ulp: != but within ulp_tol; tolerated: != but allowed by Case::tolerate
  size_t cases = 0, elems = 0, failed = 0, refused = 0, within_ulp = 0, tolerated = 0;
  double t_prepare = 0, t_target = 0;
};

// Front end + interpreter: fills p.ref and p.got (both from the initial buffers).
void prepare(Case& c, Prepared& p, Stats& st) {
  p.c = &c;
  p.src = std::make_unique<SourceFile>(c.name + ".pto", c.text);
  p.m = std::make_unique<Module>();
  Diag diag(p.src.get());
  FrontendOptions fo;
  fo.arch = c.arch;
  fo.arch_from_cli = true;
  if (!run_frontend(*p.src, fo, *p.m, diag)) {
    std::printf("FAIL %s: front end:\n%s\n%s", c.name.c_str(), diag.text().c_str(), c.text.c_str());
    ++st.failed;
    return;
  }
  rt::Interpreter interp(*p.m);
  std::string err;
  p.fn = interp.find_function("", err);
  for (const Buffer& b : c.bufs) p.ref.push_back(b.data);
  p.got = p.ref;
  if (!interp.run_block(p.fn, bind_args(c, p.ref), 0, 1, err)) {
    std::printf("FAIL %s: interpreter: %s\n%s", c.name.c_str(), err.c_str(), c.text.c_str());
    ++st.failed;
    return;
  }
  p.ok = true;
}

bool is_float_fmt(DType d) { return d == DType::F32 || d == DType::F16 || d == DType::BF16; }

// Distance in units in the last place of `d` (NaN: 0 only for identical bits).
uint64_t ulp_dist(DType d, uint64_t a, uint64_t b) {
  if (a == b) return 0;
  unsigned bits = 8 * dtype_bytes(d), man = d == DType::F32 ? 23 : d == DType::F16 ? 10 : 7;
  uint64_t sign = uint64_t(1) << (bits - 1), mag = sign - 1, inf = mag & ~((uint64_t(1) << man) - 1);
  if ((a & mag) > inf || (b & mag) > inf) return ~uint64_t(0);
  auto ord = [&](uint64_t v) { return v & sign ? -int64_t(v & mag) : int64_t(v); };
  int64_t diff = ord(a) - ord(b);
  return uint64_t(diff < 0 ? -diff : diff);
}

std::string hex(uint64_t v, DType d) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", int(2 * dtype_bytes(d)), (unsigned long long)v);
  return buf;
}

// Compares every output buffer; prints the first difference of a failing case.
bool compare(const Prepared& p, const char* target, Stats& st, bool verbose) {
  const Case& c = *p.c;
  for (size_t b = 0; b < c.bufs.size(); ++b) {
    const Buffer& buf = c.bufs[b];
    if (!buf.output) continue;
    DType d = buf.elem;
    size_t n = buf.data.size() / dtype_bytes(d), first = n, count = 0;
    st.elems += n;
    for (size_t i = 0; i < n; ++i) {
      uint64_t r = load_elem(p.ref[b], d, i), g = load_elem(p.got[b], d, i);
      if (r == g) continue;
      if (is_float_fmt(d) && c.ulp_tol && ulp_dist(d, r, g) <= c.ulp_tol) {
        ++st.within_ulp;
        continue;
      }
      if (c.tolerate && c.tolerate(b, i, r, g)) {
        ++st.tolerated;
        continue;
      }
      if (first == n) first = i;
      ++count;
    }
    if (count == 0) continue;
    uint64_t r = load_elem(p.ref[b], d, first), g = load_elem(p.got[b], d, first);
    std::string at = c.where ? c.where(b, first)
                             : buf.ld ? "buffer row " + std::to_string(first / buf.ld) + " col " +
                                            std::to_string(first % buf.ld)
                                      : "";
    std::string ins;
    for (size_t k = 0; k < c.bufs.size(); ++k) {
      const Buffer& in = c.bufs[k];
      if (first >= in.data.size() / dtype_bytes(in.elem)) continue;
      uint64_t v = load_elem(in.data, in.elem, first);
      if (in.output && v == load_elem(make_buffer("", in.elem, 1, 0, true).data, in.elem, 0)) continue;  // sentinel
      ins += (ins.empty() ? "" : " ") + in.name + (in.output ? "(before)" : "") + " " + hex(v, in.elem);
    }
    std::printf("FAIL %s: %s[%zu] (%s): interpreter %s, %s %s%s%s%s; %zu of %zu elements differ\n",
                c.name.c_str(), buf.name.c_str(), first, at.c_str(), hex(r, d).c_str(), target, hex(g, d).c_str(),
                ins.empty() ? "" : " (inputs at that index: ", ins.c_str(), ins.empty() ? "" : ")", count, n);
    if (verbose) std::printf("%s", c.text.c_str());
    return false;
  }
  return true;
}

int run(std::vector<Case>& cases, Target& t, const Options& o) {
  Stats st;
  using clk = std::chrono::steady_clock;
  for (size_t base = 0; base < cases.size(); base += t.batch_size()) {
    size_t end = std::min(cases.size(), base + t.batch_size());
    std::vector<Prepared> batch(end - base);
    std::vector<Outcome> out(batch.size());
    auto t0 = clk::now();
    for (size_t i = base; i < end; ++i) prepare(cases[i], batch[i - base], st);
    auto t1 = clk::now();
    t.execute(batch, out);
    auto t2 = clk::now();
    st.t_prepare += std::chrono::duration<double>(t1 - t0).count();
    st.t_target += std::chrono::duration<double>(t2 - t1).count();
    for (size_t i = 0; i < batch.size(); ++i) {
      const Prepared& p = batch[i];
      if (!p.ok) continue;
      ++st.cases;
      const Case& c = *p.c;
      if (c.expect_refused) {
        if (out[i].compiled) {
          std::printf("FAIL %s: %s compiled it; it was expected to refuse it (e.g. an f16/bf16 scalar)\n",
                      c.name.c_str(), t.name());
          ++st.failed;
        } else if (out[i].error.find("scalar") == std::string::npos) {
          std::printf("FAIL %s: %s refused it, but the message does not name the scalar: %s\n", c.name.c_str(),
                      t.name(), out[i].error.c_str());
          ++st.failed;
        } else {
          ++st.refused;
          if (o.verbose) std::printf("refused as expected: %s: %s\n", c.name.c_str(), out[i].error.c_str());
        }
        continue;
      }
      if (!out[i].compiled) {
        std::printf("FAIL %s: %s: %s\n", c.name.c_str(), t.name(), out[i].error.c_str());
        if (o.verbose) std::printf("%s", c.text.c_str());
        ++st.failed;
        continue;
      }
      if (!compare(p, t.name(), st, o.verbose)) ++st.failed;
    }
  }
  const std::vector<std::string>& sk = skipped_pairs();
  if (!sk.empty()) {
    std::printf("x86_diff: skipped (the op table allows neither on a3 nor on a5):");
    for (const std::string& s : sk) std::printf(" %s;", s.c_str());
    std::printf("\n");
  }
  std::printf("x86_diff [%s]: %zu cases (%zu refused as expected), %zu elements compared (%zu within the "
              "1-ULP tolerance, %zu NaNs of open payload; not equal), %zu failed; front end + interpreter %.1f s, "
              "%s %.1f s\n",
              t.name(), st.cases, st.refused, st.elems, st.within_ulp, st.tolerated, st.failed, st.t_prepare,
              t.name(), st.t_target);
  return st.failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--target=", 0) == 0) o.target = a.substr(9);
    else if (a.rfind("--filter=", 0) == 0) o.filter = a.substr(9);
    else if (a == "-v") o.verbose = true;
    else if (a == "--list") o.list = true;
    else {
      std::fprintf(stderr, "usage: x86_diff [--target=avx2] [--filter=SUBSTR] [-v] [--list]\n");
      return 2;
    }
  }
  std::unique_ptr<Target> t;
  if (o.target == "avx2") t = std::make_unique<Avx2Target>();
  else {
    std::fprintf(stderr, "x86_diff: unknown target '%s' (avx2)\n", o.target.c_str());
    return 2;
  }
  std::vector<Case> cases;
  elementwise_cases(cases);
  fused_cases(cases);
  reduce_cases(cases);
  misc_cases(cases);
  if (!o.filter.empty()) {
    std::vector<Case> keep;
    for (Case& c : cases)
      if (c.name.find(o.filter) != std::string::npos) keep.push_back(std::move(c));
    cases.swap(keep);
  }
  if (o.list) {
    for (const Case& c : cases) std::printf("%s\n", c.name.c_str());
    return 0;
  }
  std::string why = t->unavailable();
  if (!why.empty()) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  return run(cases, *t, o);
}
