// Differential test of the x86 backends against the reference interpreter.
//
// The cases (target_diff_elt.cpp, target_diff_fused.cpp, target_diff_misc.cpp,
// target_diff_ops.cpp) are built first: every elementwise, tile-scalar, unary
// and row/column-expand op x element type (f32 f16 bf16 i32 u32 i16 u16 i8 u8) x shape class
// (full tile, ragged valid region, one row, one column, widths that are not
// a multiple of 8; column-major tiles too), `tload -> op -> tstore` kernels
// with inputs drawn from the special values of each type (NaN with
// payloads, +-Inf, +-0, subnormals, integer extremes) and random ones; the
// fused ops (taddc ... taxpy; dst starts from loaded data) and the row /
// column reductions over every element type the op table allows; then
// tcvt, tmatmul, ttri and the scalar arith ops / control flow; then
// (target_diff_ops.cpp) tcvt between every pair of lane types with each rmode
// and sat_mode, tcmp / tcmps + tsel / tsels (the mask tile stored too),
// tfillpad in its three forms and textract / tinsert at offsets. The output
// buffer is pre-filled with a sentinel and is one row larger than the view,
// so a store outside the valid region or the view shows up as a difference.
//
// Then the driver runs the cases, a batch at a time: the front end and the
// interpreter give the reference outputs, the target (a Target below)
// compiles and runs the same kernels on the same inputs, and the outputs
// must be bit-identical (f16 / bf16 texp, tlog, trsqrt: within 1 ULP of the
// element type; float tmatmul: within the summation bound, see add_matmul
// in target_diff_misc.cpp; DESIGN §6). A target that runs many kernels at once
// (an emulator) gets its whole batch in one execute() call.
//
// --target=avx512 runs the zmm code of the same cases: natively on a CPU
// with AVX-512 F/BW/DQ/VL, else (or with PTOAS_FORCE_BOCHS=1, which also
// applies to avx2) under the Bochs runner, a few thousand cases per boot;
// the whole suite takes about 10 s there. Bochs 2.7 breaks f16 rounding
// ties the wrong way; see tie_probe() for how that is told apart.
//
// --target=sve runs the AArch64 SVE code of the same cases: natively on
// an AArch64 CPU with SVE, else under qemu-aarch64 (runtime/qemu) at
// --sve-vl bits (default $SVE_VL, else 256), a whole batch per qemu run.
// Cases the SVE backend refuses ("... is not supported on sve") are
// counted and listed as refused; every case it compiles must match, bit
// for bit, with one allowance: a NaN the operation creates (0*Inf,
// Inf-Inf, 0/0, sqrt(-1)) is the CPU's default NaN, 0x7fc00000 on AArch64
// and 0xffc00000 on x86, whose arithmetic the interpreter uses; that sign
// difference on exactly the default payload is accepted, nothing else.
// qemu rounds f16 ties correctly, so no tie probe.
//
//   target_diff [--target=avx2|avx512|sve|ptx|amdgpu] [--sve-vl=BITS] [--gpu-arch=CHIP] [-O2] [--filter=SUBSTR] [-v] [--list]
// -O2 compiles each case as ptoas -O2 would encode it (the fast exp, the
// x86 list scheduler) without running the IR passes on it.
// -v prints each failing case's kernel text. Exit 0 when every case agrees,
// 1 on a failure, 77 (SKIP) when the target cannot run here.
#include <chrono>
#include <map>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bochs_runner.h"
#include "qemu_runner.h"
#include "diag.h"
#include "frontend.h"
#include "interp.h"
#include "ir.h"
#include "jit.h"
#include "amdgpu_run.h"
#include "ptx_run.h"
#include "target_diff_case.h"
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
  // Emulated targets, Case::f16_rounds_often: the buffers after the avx2
  // code of the kernel ran under the same emulator (see tie_probe()).
  std::vector<std::vector<uint8_t>> shadow;
  bool ok = false;                              // front end and interpreter ran
};

// What the target did with one case.
struct Outcome {
  bool compiled = false;  // the target accepted the kernel (and ran it)
  std::string error;      // else why not
};

// A target that may refuse ops (Target::refusal_marker()): the refusal in
// `error` ("op tsqrt with dtype f16 is not supported on sve"), or "".
std::string refusal(const std::string& error, const char* marker) {
  // A marker may name alternatives ("a|b"): the first found.
  size_t at = std::string::npos;
  if (marker)
    for (std::string_view rest = marker; at == std::string::npos && !rest.empty();) {
      size_t bar = rest.find('|');
      at = error.find(std::string(rest.substr(0, bar)));
      rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
    }
  // A target limit (shared memory of a block, ...) is a refusal too.
  if (at == std::string::npos && marker) at = error.find(" [limit]");
  if (at == std::string::npos) return "";
  size_t lo = error.rfind('\n', at);
  lo = lo == std::string::npos ? 0 : lo + 1;
  std::string line = error.substr(lo, at - lo);
  if (size_t e = line.find("error: "); e != std::string::npos) line = line.substr(e + 7);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  if (line.size() > 3 && line.compare(line.size() - 3, 3, " is") == 0) line.resize(line.size() - 3);
  if (line.size() > 4 && line.compare(line.size() - 4, 4, " are") == 0) line.resize(line.size() - 4);
  return line.empty() ? "(unnamed)" : line;
}

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

// A target compiles and runs a batch of prepared cases: natively one case
// at a time, or (JitTarget under Bochs) the whole batch as one list of
// runtime/bochs jobs, in as few emulator boots as the runner needs.
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
  // How it ran, for the last line (e.g. the emulator's boots and time).
  virtual std::string summary() const { return ""; }
  // Runs the code on an emulator (its arithmetic is probed, see tie_probe()).
  virtual bool emulated() const { return false; }
  // A backend that does not cover every op yet: a compile error containing
  // this text is a refusal (counted and listed), not a failure. nullptr: none.
  virtual const char* refusal_marker() const { return nullptr; }
  // Where this target creates a NaN (0*Inf, Inf-Inf, 0/0, sqrt(-1)), the bits
  // of its default NaN in f32 (0: the same as x86's, which the interpreter
  // gives). AArch64's has the sign clear, x86's set.
  virtual uint32_t default_nan_f32() const { return 0; }
  // Reduces rows and columns in a tree (not the interpreter's order): a NaN
  // result may be another NaN of the input (Case::reduction).
  virtual bool tree_reductions() const { return false; }
};

// JIT-compiles each case for `target` and runs it natively, one at a time.
void run_native(const char* target, std::vector<Prepared>& batch, std::vector<Outcome>& out) {
  for (size_t i = 0; i < batch.size(); ++i) {
    Prepared& p = batch[i];
    if (!p.ok) continue;
    rt::JitKernel jit;
    Diag jd(p.src.get());
    std::string err;
    if (!jit.load(*p.m, p.fn, target, jd, err)) {
      out[i].error = err + (jd.text().empty() ? "" : "\n" + jd.text());
      continue;
    }
    out[i].compiled = true;
    jit.run(bind_args(*p.c, p.got), 0, 1);
  }
}

// The jobs of one emulator run (runtime/emu/emu_job.h): one per case, and
// the JIT images they run.
struct EmuBatch {
  static constexpr size_t kShadow = ~size_t(0);  // job_case of a shadow run
  std::vector<std::unique_ptr<rt::JitKernel>> jits;
  std::vector<rt::EmuJob> jobs;
  std::vector<size_t> job_case;

  // Assembles case p (batch index i) for `target` into a job on `bufs`;
  // false, with the reason in *o when given, if it does not assemble.
  bool add(Prepared& p, const std::string& target, std::vector<std::vector<uint8_t>>& bufs, size_t i, Outcome* o) {
    auto jit = std::make_unique<rt::JitKernel>();
    Diag jd(p.src.get());
    std::string err;
    if (!jit->load_for_emulator(*p.m, p.fn, target, jd, err)) {
      if (o) o->error = err + (jd.text().empty() ? "" : "\n" + jd.text());
      return false;
    }
    jobs.push_back(rt::emu_job(*p.m, p.fn, *jit->image(), bind_args(*p.c, bufs), 1));
    job_case.push_back(i);
    jits.push_back(std::move(jit));
    return true;
  }
  // The runner's per-job errors as the cases' outcomes (shadow runs are
  // compared where they are needed).
  void outcomes(const std::vector<std::string>& job_errors, const char* prefix, std::vector<Outcome>& out) const {
    for (size_t j = 0; j < jobs.size(); ++j) {
      if (job_case[j] == kShadow) continue;
      Outcome& o = out[job_case[j]];
      if (job_errors[j].empty()) o.compiled = true;
      else o.error = prefix + job_errors[j];
    }
  }
};

// avx2 / avx512: JIT-compiled and run natively, one case at a time, when
// this CPU has the features (avx512: AVX-512 F/BW/DQ/VL) and
// PTOAS_FORCE_BOCHS=1 is not set; else under the Bochs emulator, a whole
// batch of cases per boot.
class JitTarget : public Target {
 public:
  explicit JitTarget(std::string target)
      : target_(std::move(target)), native_(rt::cpu_supports(target_) && !rt::bochs_forced()),
        name_(native_ ? target_ : target_ + " (bochs)") {}
  const char* name() const override { return name_.c_str(); }
  std::string unavailable() const override {
    std::string why;
    if (native_ || rt::bochs_available(&why)) return "";
    return "this CPU cannot run " + target_ + " code" + (rt::bochs_forced() ? "" : " natively") + " and " + why;
  }
  // Under Bochs: a few thousand cases per boot (a boot costs ~0.1 s; the
  // runner splits a batch whose buffers pass its payload limit).
  size_t batch_size() const override { return native_ ? 64 : 4096; }
  void execute(std::vector<Prepared>& batch, std::vector<Outcome>& out) override {
    if (native_) return run_native(target_.c_str(), batch, out);
    EmuBatch eb;
    for (size_t i = 0; i < batch.size(); ++i) {
      Prepared& p = batch[i];
      if (!p.ok || !eb.add(p, target_, p.got, i, &out[i])) continue;
      if (shadowed(p)) {  // the avx2 code too, on a copy of the inputs
        p.shadow = p.got;
        eb.add(p, "avx2", p.shadow, EmuBatch::kShadow, nullptr);
      }
    }
    if (eb.jobs.empty()) return;
    rt::BochsResult res;
    std::string err;
    rt::bochs_run(eb.jobs, rt::BochsOptions{}, res, err);
    boots_ += res.boots;
    seconds_ += res.seconds;
    ticks_ += res.ticks;
    eb.outcomes(res.job_errors, "under Bochs: ", out);
  }
  bool emulated() const override { return !native_; }
  bool shadowed(const Prepared& p) const {
    if (target_ == "avx2" || !p.c->f16_rounds_often) return false;
    for (const Buffer& b : p.c->bufs)
      if (b.output && b.elem == DType::F16) return true;
    return false;
  }
  std::string summary() const override {
    if (native_) return "";
    char buf[128];
    std::snprintf(buf, sizeof buf, "bochs: %u boot(s), %.1f s, %.3g instructions", boots_, seconds_,
                  double(ticks_));
    return buf;
  }

 private:
  std::string target_;
  bool native_;
  std::string name_;
  unsigned boots_ = 0;
  double seconds_ = 0;
  uint64_t ticks_ = 0;
};

// sve: JIT-compiled AArch64 SVE code; natively on an AArch64 CPU with SVE,
// else a whole batch of cases per qemu-aarch64 run at the --sve-vl vector
// length. Kernels with ops the backend refuses ("... is not supported on
// sve") are counted as refused; every kernel it compiles must match.
class SveTarget : public Target {
 public:
  explicit SveTarget(unsigned vl_bits)
      : native_(rt::cpu_supports("sve")), vl_(vl_bits),
        name_(native_ ? std::string("sve") : "sve (qemu, " + std::to_string(vl_bits) + "-bit)") {}
  const char* name() const override { return name_.c_str(); }
  std::string unavailable() const override {
    std::string why;
    if (native_ || rt::qemu_available(&why)) return "";
    return "this CPU cannot run sve code and " + why;
  }
  // One qemu run costs ~35 ms plus the loader's work: big batches.
  size_t batch_size() const override { return native_ ? 64 : 8192; }
  void execute(std::vector<Prepared>& batch, std::vector<Outcome>& out) override {
    if (native_) return run_native("sve", batch, out);
    EmuBatch eb;
    for (size_t i = 0; i < batch.size(); ++i)
      if (batch[i].ok) eb.add(batch[i], "sve", batch[i].got, i, &out[i]);
    if (eb.jobs.empty()) return;
    rt::QemuOptions qo;
    qo.vl_bits = vl_;
    rt::QemuResult res;
    std::string err;
    rt::qemu_run(eb.jobs, qo, res, err);
    runs_ += res.runs;
    seconds_ += res.seconds;
    if (res.vl_bits) seen_vl_ = res.vl_bits;
    eb.outcomes(res.job_errors, "under qemu-aarch64: ", out);
  }
  std::string summary() const override {
    if (native_) return "";
    char buf[160];
    std::snprintf(buf, sizeof buf, "qemu-aarch64: %u run(s), %.1f s, the loader saw a %u-bit vector length",
                  runs_, seconds_, seen_vl_);
    return buf;
  }
  // No refusal marker: the SVE backend covers every op x dtype the x86 one
  // does, so a refusal of anything else is a failure.
  uint32_t default_nan_f32() const override { return 0x7fc00000u; }

 private:
  bool native_;
  unsigned vl_;
  std::string name_;
  unsigned runs_ = 0, seen_vl_ = 0;
  double seconds_ = 0;
};

// The GPU targets' cases, one at a time and one block each: `build` makes
// kernel K from the case (false: refused or failed, with the backend's
// message), `run` runs it on the bound buffers.
template <class K, class Build, class Run>
void run_one_by_one(std::vector<Prepared>& batch, std::vector<Outcome>& out, const char* what, Build build, Run run) {
  for (size_t i = 0; i < batch.size(); ++i) {
    Prepared& p = batch[i];
    if (!p.ok) continue;
    K k;
    Diag d(p.src.get());
    std::string err;
    if (!build(p, k, d, err)) {
      out[i].error = err.empty() ? d.text() : err;
      continue;
    }
    out[i].compiled = run(k, bind_args(*p.c, p.got), err);
    if (!out[i].compiled) out[i].error = std::string("the ") + what + " run failed: " + err;
  }
}

// ptoas's PTX on the project's PTX interpreter (runtime/ptx_run.h), one
// case at a time, one block. A refusal is the backend's located message
// ("... is not supported on ptx"); PTX that the interpreter rejects, a race
// or a fault in the run is a failure. Created NaNs are x86's default NaN
// there too (docs/ptx_backend.md), so no allowance.
class PtxTarget : public Target {
 public:
  const char* name() const override { return "ptx (PTX interpreter)"; }
  std::string unavailable() const override { return ""; }
  size_t batch_size() const override { return 256; }
  void execute(std::vector<Prepared>& batch, std::vector<Outcome>& out) override {
    run_one_by_one<rt::PtxKernel>(
        batch, out, "PTX",
        [](Prepared& p, rt::PtxKernel& k, Diag& d, std::string& err) {
          k.name = "case.ptx";
          k.timeout_s = 60;
          return rt::ptx_build(*p.m, p.fn, cg::CodegenOptions{}, rt::PtxRunner::Interp, k, d, err);
        },
        [](rt::PtxKernel& k, const std::vector<rt::Arg>& args, std::string& err) {
          return rt::ptx_run_blocks(&k, args, 1, err);
        });
  }
  const char* refusal_marker() const override { return " is not supported on ptx"; }
  bool tree_reductions() const override { return true; }
};

// ptoas's code objects on the project's AMDGPU interpreter
// (runtime/amdgpu_run.h), one case at a time, one workgroup, on one chip
// (--gpu-arch). A refusal is the backend's located message; an object the
// interpreter rejects or a fault in the run is a failure. The SIMT
// lowering is the ptx generator's, so the same ULP allowances apply.
class AmdgpuTarget : public Target {
 public:
  explicit AmdgpuTarget(std::string chip) : chip_(std::move(chip)), name_("amdgpu " + chip_ + " (AMDGPU interpreter)") {}
  const char* name() const override { return name_.c_str(); }
  std::string unavailable() const override { return ""; }
  size_t batch_size() const override { return 256; }
  void execute(std::vector<Prepared>& batch, std::vector<Outcome>& out) override {
    run_one_by_one<rt::AmdgpuKernel>(
        batch, out, "AMDGPU",
        [&](Prepared& p, rt::AmdgpuKernel& k, Diag& d, std::string& err) {
          k.timeout_s = 60;
          cg::CodegenOptions co;
          co.gpu_arch = chip_;
          return rt::amdgpu_build(*p.m, p.fn, co, k, d, err);
        },
        [](rt::AmdgpuKernel& k, const std::vector<rt::Arg>& args, std::string& err) {
          return rt::amdgpu_run_blocks(&k, args, 1, err);
        });
  }
  // Refused by the SIMT lowering, or an instruction it emits with no GCN
  // translation yet.
  const char* refusal_marker() const override { return " is not supported on amdgpu| on amdgpu [unsupported-"; }
  bool tree_reductions() const override { return true; }

 private:
  std::string chip_, name_;
};

struct Options {
  std::string gpu_arch = "gfx942";
  unsigned sve_vl = 0;
  std::string target = "avx2", filter;
  bool verbose = false, list = false;
};
bool g_o2 = false;  // -O2: the encoder's -O2 choices (fast exp, the x86 list scheduler) without IR passes

struct Stats {
  // within_ulp: != but within ulp_tol; tolerated: != but allowed by Case::tolerate;
  // f16_ties: != because of the emulator's f16 tie rounding (ties_away)
  size_t cases = 0, elems = 0, failed = 0, refused = 0, within_ulp = 0, tolerated = 0, f16_ties = 0;
  // Target::refusal_marker(): cases the target refused, by reason; created
  // NaNs equal to the interpreter's but for the default NaN's sign.
  size_t target_refused = 0, default_nans = 0;
  std::map<std::string, size_t> refusals;
  uint64_t f16_ties_max_ulp = 0;
  bool ties_away = false;  // the tie probe found f16 ties rounded away from zero
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
  if (g_o2) p.m->opt_level = 2;
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

bool f16_nan(uint64_t v) { return (v & 0x7fff) > 0x7c00; }

// A NaN of float type d (f32, f16, bf16, f64) by its bits.
bool float_nan(DType d, uint64_t v) {
  switch (d) {
    case DType::F16: return f16_nan(v);
    case DType::BF16: return (v & 0x7fff) > 0x7f80;
    case DType::F64: return (v & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
    default: return (v & 0x7fffffffu) > 0x7f800000u;
  }
}

// x86's default NaN of a float type: quiet, payload zero, sign set.
uint64_t x86_default_nan(DType d) {
  return d == DType::F32 ? 0xffc00000u : d == DType::F16 ? 0xfe00u : 0xffc0u;
}

// True when `got` is the target's default NaN where the interpreter (x86
// arithmetic) gives x86's: a NaN the operation created. Only that sign
// difference, on exactly the default payload, is accepted.
bool default_nan_sign_only(DType d, uint64_t ref, uint64_t got, uint32_t target_dnan_f32) {
  if (!target_dnan_f32 || !is_float_fmt(d) || (target_dnan_f32 >> 31)) return false;
  uint64_t x = x86_default_nan(d), sign = uint64_t(1) << (8 * dtype_bytes(d) - 1);
  return ref == x && got == (x & ~sign);
}

// Compares every output buffer; prints the first difference of a failing case.
bool compare(const Prepared& p, const char* target, uint32_t dnan, Stats& st, bool verbose,
             const char* label = "FAIL", bool tree = false) {
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
      if (default_nan_sign_only(d, r, g, dnan)) {
        ++st.default_nans;
        continue;
      }
      if (is_float_fmt(d) && c.ulp_tol && ulp_dist(d, r, g) <= c.ulp_tol) {
        ++st.within_ulp;
        continue;
      }
      if (st.ties_away && d == DType::F16) {
        // One rounding: a tie rounded away from zero gives the neighbour of
        // the even result with the larger magnitude. Several: the result of
        // the avx2 code under the same emulator, bit for bit.
        bool tie = !f16_nan(r) && g == r + 1 && !(r & 1);
        if (tie || (c.f16_rounds_often && !p.shadow.empty() && g == load_elem(p.shadow[b], d, i))) {
          ++st.f16_ties;
          st.f16_ties_max_ulp = std::max(st.f16_ties_max_ulp, ulp_dist(d, r, g));
          continue;
        }
      }
      if (c.tolerate && c.tolerate(b, i, r, g)) {
        ++st.tolerated;
        continue;
      }
      if (c.reduction && tree && is_float_fmt(d) &&
          ((float_nan(d, r) && float_nan(d, g)) || (c.tree_tolerate && c.tree_tolerate(b, i, r, g)))) {
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
    std::printf("%s %s: %s[%zu] (%s): interpreter %s, %s %s%s%s%s; %zu of %zu elements differ\n", label,
                c.name.c_str(), buf.name.c_str(), first, at.c_str(), hex(r, d).c_str(), target, hex(g, d).c_str(),
                ins.empty() ? "" : " (inputs at that index: ", ins.c_str(), ins.empty() ? "" : ")", count, n);
    if (verbose) std::printf("%s", c.text.c_str());
    return false;
  }
  return true;
}

// Bochs 2.7 rounds f16 ties away from zero in VCVTPS2PH (imm8 0, which is
// round to nearest even): 32 + 3.140625 = 35.140625, halfway between the
// f16 values 35.125 (0x5064, even) and 35.15625 (0x5065), comes out as
// 0x5065. An emulated target first runs this probe; when it shows the
// wrong rounding, f16 results that differ from the interpreter only by
// such a tie are counted apart (Stats::f16_ties), not failed. Results
// rounded several times (Case::f16_rounds_often: a wrong tie moves the
// next steps, by many ULP after a cancellation) must then equal, bit for
// bit, those of the kernel's avx2 code run under the same emulator
// (Prepared::shadow; the avx2 code is checked natively against the
// interpreter, and both widths share one lowering).
const char* const kTieProbe = "probe: f16 tie 32 + 3.140625 (tadd f16 1x16)";

Case tie_probe() {
  const std::string dt = "f16", T = tile_ty(1, 16, dt, false);
  std::string k = "func.func @k(%a: !pto.ptr<f16>, %b: !pto.ptr<f16>, %c: !pto.ptr<f16>, %s: f32) attributes "
                  "{pto.entry} {\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
                  "  %C = arith.constant 16 : index\n";
  for (const char* p : {"a", "b", "c"}) k += view(p, p, "%c1, %C", "%C, %c1", dt);
  k += load("a", "ta", T, dt, "%c1", "%C") + load("b", "tb", T, dt, "%c1", "%C");
  k += "  %tc = pto.alloc_tile valid_row = %c1 valid_col = %C : " + T + "\n";
  k += "  pto.tadd ins(%ta, %tb : " + T + ", " + T + ") outs(%tc : " + T + ")\n";
  k += "  pto.tstore ins(%tc : " + T + ") outs(%cp : !pto.partition_tensor_view<?x?xf16>)\n  return\n}\n";
  Case c = abc_case(kTieProbe, k, DType::F16, DType::F16, 32, 16, DType::F32, 0);
  for (size_t i = 0; i < 32; ++i) {
    store_elem(c.bufs[0].data, DType::F16, i, 0x5000);
    store_elem(c.bufs[1].data, DType::F16, i, 0x4248);
  }
  return c;
}

int run(std::vector<Case>& cases, Target& t, const Options& o) {
  Stats st;
  using clk = std::chrono::steady_clock;
  if (t.emulated()) cases.insert(cases.begin(), tie_probe());
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
      if (!p.ok || !out[i].compiled || p.c->name != kTieProbe) continue;
      uint64_t r = load_elem(p.ref[2], DType::F16, 0), g = load_elem(p.got[2], DType::F16, 0);
      st.ties_away = g == r + 1;
      if (st.ties_away)
        std::printf("NOTE: %s rounds f16 ties away from zero (32 + 3.140625: 0x%04llx, not 0x%04llx); f16 "
                    "results off by such ties only are counted apart, not failed\n",
                    t.name(), (unsigned long long)g, (unsigned long long)r);
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      const Prepared& p = batch[i];
      if (!p.ok) continue;
      ++st.cases;
      const Case& c = *p.c;
      if (st.ties_away && c.name == kTieProbe) continue;
      std::string refused = out[i].compiled ? "" : refusal(out[i].error, t.refusal_marker());
      // A target that may refuse may also cover what x86 refuses: then it
      // is compared; when it refuses, its own message counts.
      if (c.expect_refused && !(t.refusal_marker() && out[i].compiled)) {
        if (out[i].compiled) {
          std::printf("FAIL %s: %s compiled it; it was expected to refuse it (naming '%s')\n", c.name.c_str(),
                      t.name(), c.refuse_word.c_str());
          ++st.failed;
        } else if (out[i].error.find(c.refuse_word) == std::string::npos && refused.empty()) {
          std::printf("FAIL %s: %s refused it, but the message does not say '%s': %s\n", c.name.c_str(), t.name(),
                      c.refuse_word.c_str(), out[i].error.c_str());
          ++st.failed;
        } else {
          ++st.refused;
          if (o.verbose) std::printf("refused as expected: %s: %s\n", c.name.c_str(), out[i].error.c_str());
        }
        continue;
      }
      if (!refused.empty()) {  // a backend that does not cover this op yet
        ++st.target_refused;
        ++st.refusals[refused];
        if (o.verbose) std::printf("refused by %s: %s: %s\n", t.name(), c.name.c_str(), refused.c_str());
        continue;
      }
      if (!out[i].compiled) {
        std::printf("FAIL %s: %s: %s\n", c.name.c_str(), t.name(), out[i].error.c_str());
        if (o.verbose) std::printf("%s", c.text.c_str());
        ++st.failed;
        continue;
      }
      if (!compare(p, t.name(), t.default_nan_f32(), st, o.verbose, "FAIL", t.tree_reductions())) ++st.failed;
    }
  }
  const std::vector<std::string>& sk = skipped_pairs();
  if (!sk.empty()) {
    std::printf("target_diff: skipped (the op table allows neither on a3 nor on a5):");
    for (const std::string& s : sk) std::printf(" %s;", s.c_str());
    std::printf("\n");
  }
  std::printf("target_diff [%s]: %zu cases (%zu refused as expected), %zu elements compared (%zu within the "
              "ULP tolerance (1; 2 for exp at -O2), %zu NaNs of open payload or matmul sums within their bound; not equal), "
              "%zu failed; front end + interpreter %.1f s, "
              "%s %.1f s\n",
              t.name(), st.cases, st.refused, st.elems, st.within_ulp, st.tolerated, st.failed, st.t_prepare,
              t.name(), st.t_target);
  if (st.f16_ties)
    std::printf("target_diff [%s]: %zu f16 elements differ by the emulator's tie rounding only (at most %llu ULP; "
                "results of several roundings equal to the avx2 code's under the emulator)\n",
                t.name(), st.f16_ties, (unsigned long long)st.f16_ties_max_ulp);
  if (st.default_nans)
    std::printf("target_diff [%s]: %zu elements are the target's default NaN 0x%08x (and its f16/bf16 forms) where "
                "the interpreter gives x86's 0xffc00000: a NaN the operation created, equal but for the sign\n",
                t.name(), st.default_nans, t.default_nan_f32());
  if (t.refusal_marker()) {
    // "op X with dtype D" grouped by op: "op X with dtype f16 f32 (26)".
    std::map<std::string, std::pair<std::string, size_t>> grouped;
    for (const auto& [why, n] : st.refusals) {
      size_t w = why.find(" with dtype ");
      std::string key = w == std::string::npos ? why : why.substr(0, w + 11);
      auto& g = grouped[key];
      if (w != std::string::npos) g.first += " " + why.substr(w + 12);
      g.second += n;
    }
    std::printf("target_diff [%s]: %zu cases refused by the target (%zu op/dtype pairs):", t.name(), st.target_refused,
                st.refusals.size());
    for (const auto& [key, g] : grouped) std::printf(" %s%s (%zu);", key.c_str(), g.first.c_str(), g.second);
    std::printf("\n");
  }
  std::string sum = t.summary();
  if (!sum.empty()) std::printf("target_diff [%s]: %s\n", t.name(), sum.c_str());
  return st.failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--target=", 0) == 0) o.target = a.substr(9);
    else if (a.rfind("--sve-vl=", 0) == 0) o.sve_vl = unsigned(std::strtoul(a.c_str() + 9, nullptr, 10));
    else if (a.rfind("--gpu-arch=", 0) == 0) o.gpu_arch = a.substr(11);
    else if (a.rfind("--filter=", 0) == 0) o.filter = a.substr(9);
    else if (a == "-v") o.verbose = true;
    else if (a == "--list") o.list = true;
    else if (a == "-O2") g_o2 = true;
    else {
      std::fprintf(stderr,
                   "usage: target_diff [--target=NAME (default avx2)] [--sve-vl=BITS] [--gpu-arch=CHIP] [-O2] "
                   "[--filter=SUBSTR] [-v] [--list]\n");
      return 2;
    }
  }
  // The registry says how a target runs: x86-64 JIT code natively (or
  // under Bochs), AArch64 under qemu-aarch64 at a vector length.
  const cg::Target* rt_target = cg::find_target(o.target);
  std::unique_ptr<Target> t;
  if (rt_target && rt_target->packed_thunk && rt_target->isa == cg::Isa::X86_64) {
    t = std::make_unique<JitTarget>(std::string(rt_target->name));
  } else if (rt_target && rt_target->packed_thunk && rt_target->isa == cg::Isa::AArch64) {
    unsigned vl = o.sve_vl ? o.sve_vl : rt::qemu_default_vl_bits();
    if (!rt::qemu_valid_vl_bits(vl)) {
      std::fprintf(stderr, "target_diff: --sve-vl=%u: expected a multiple of 128 from 128 to 2048\n", vl);
      return 2;
    }
    t = std::make_unique<SveTarget>(vl);
  } else if (rt_target && rt_target->isa == cg::Isa::Nvptx) {
    t = std::make_unique<PtxTarget>();
  } else if (rt_target && rt_target->isa == cg::Isa::Amdgcn) {
    t = std::make_unique<AmdgpuTarget>(o.gpu_arch);
  } else {
    std::fprintf(stderr, "target_diff: target '%s' has no JIT here (ptoas --print-targets marks those that do)\n",
                 o.target.c_str());
    return 2;
  }
  std::vector<Case> cases;
  elementwise_cases(cases);
  fused_cases(cases);
  reduce_cases(cases);
  misc_cases(cases);
  ops_cases(cases);
  view_cases(cases);
  subview_gather_cases(cases);
  // -O2 computes f32 exp in f32 arithmetic: DESIGN §6's exp class, 2 ULP.
  // ptx's exp is its own polynomial, within 1 ULP (docs/ptx_backend.md).
  if (g_o2 || o.target == "ptx" || o.target == "amdgpu")
    for (Case& c : cases)
      if (c.name.rfind("texp ", 0) == 0 || c.name.find("expandexpdif") != std::string::npos)
        c.ulp_tol = std::max<uint32_t>(c.ulp_tol, g_o2 ? 2 : 1);
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
