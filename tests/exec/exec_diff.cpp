// exec_diff: the execution differential over real programs.
//
// Every kernel of every given .pto file (the samples, bench/kernels, the
// regression kernels of tests/exec/cases, the official corpora) that the
// reference interpreter can run is run on it at -O0 (the reference) and
// then on each target configuration asked for (interp -O2, avx2, avx512,
// sve at a vector length, cce, ptx; -O0 or -O2), from the same inputs, and every
// buffer the kernel gets is compared afterwards: bytes the reference wrote
// must match (exec_compare.h: by DESIGN §6's classes), bytes it left alone
// must still hold the input. Inputs are sized by the kernel's own views
// (the view probe, as ptorun sizes --out arrays), filled with random values
// of each element type (with NaN, infinities, -0 and subnormals in every
// other kernel), and scalars come from tests/exec/scalars.tsv or are
// inferred from what the kernel does with them (exec_inputs.h).
//
// Each run happens in a child process with a time limit, so a kernel that
// crashes or hangs on one target is reported as a difference, not the end
// of the test. A target that refuses a kernel (an op it does not lower, a
// limit) is listed with its reason: a refusal is never counted as agreement.
//
//   exec_diff [--targets=LIST] [--ref=CONFIG] [--scalars=FILE] [--timeout=S] [--max-mib=N] [--emu-max-mib=N]
//             [--jobs=N] [-v] PATH...
// PATH: a .pto file, a directory of them (searched recursively), or a
// corpus directory with a MANIFEST.tsv (its `accept` files, with the flags
// the manifest gives). LIST: comma-separated configurations NAME-OLEVEL or
// sve-OLEVEL@BITS or ptx-OLEVEL[:interp|:gpu] (where the PTX runs; default
// PTOAS_PTX_RUNNER) or an x86 one with :native (left out, not run under
// Bochs, on a CPU without it), default interp-O2,avx2-O2,sve-O2@256. --ref=CONFIG: the
// reference instead of interp-O0 (tests/gpu/run.sh compares ptx-O2:gpu
// with ptx-O2:interp). --max-mib: a kernel whose buffers pass N MiB
// (default 256) is not run at all (not runnable, with that reason).
// --emu-max-mib: a
// kernel whose buffers pass N MiB is not run under qemu or Bochs (a refusal
// with that reason; the fast CI subset sets it). --jobs=N: the files run
// on N forked workers (exec_pool.h), the report the same as one worker's
// (0: one per core). One summary line
// per PATH and one in total:
//   exec-diff: N files, N agree, N refused (reason: count, ...), N differ
// and the files that were not runnable (why). Exit 1 when any differ.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bochs_runner.h"
#include "cce_build.h"
#include "codegen.h"
#include "exec_compare.h"
#include "exec_inputs.h"
#include "exec_pool.h"
#include "jit.h"
#include "emu_job.h"
#include "launch.h"
#include "opt.h"
#include "ptort.hpp"
#include "amdgpu_run.h"
#include "ptx_run.h"
#include "qemu_runner.h"

namespace fs = std::filesystem;
using namespace ptoas;
using namespace execdiff;

namespace {

// cce runs on the CPU model of PTO-ISA (runtime/cce_build.h).
bool is_cce(const cg::Target& t) { return t.isa == cg::Isa::AscendNpu && t.compile; }
// ptx runs on a GPU when PTOAS_PTX_RUNNER says so (gpu, or auto with one
// present), else on the project's PTX interpreter (runtime/ptx_run.h).
bool is_ptx(const cg::Target& t) { return t.isa == cg::Isa::Nvptx; }
// amdgpu runs on the project's AMDGPU interpreter (runtime/amdgpu_run.h);
// amdgpu-O2:gfx1100 picks the chip (default gfx942).
bool is_amdgpu(const cg::Target& t) { return t.isa == cg::Isa::Amdgcn && t.compile; }

struct Config {
  std::string target;  // interp avx2 avx512 sve cce
  int olevel = 2;
  unsigned vl = 0;     // sve: bits
  std::string runner;  // ptx: "interp" or "gpu" (ptx-O2:gpu); empty: PTOAS_PTX_RUNNER; amdgpu: the chip
  std::string name() const {
    return target + "-O" + std::to_string(olevel) + (vl ? "@" + std::to_string(vl) : "") +
           (runner.empty() ? "" : ":" + runner);
  }
};

// Runs on this machine in-process: no emulator, no CPU feature needed.
bool in_process(const Config& c) {
  return c.target == "interp" || is_cce(cg::target(c.target)) || is_ptx(cg::target(c.target)) ||
         is_amdgpu(cg::target(c.target));
}

bool parse_configs(const std::string& list, std::vector<Config>& out, std::string& err) {
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    Config c;
    if (size_t colon = item.find(':'); colon != std::string::npos) {
      c.runner = item.substr(colon + 1);
      item = item.substr(0, colon);
      if (c.runner != "interp" && c.runner != "gpu" && c.runner != "native" && item.rfind("amdgpu-", 0) != 0) {
        err = "bad runner '" + c.runner + "' (ptx-O2:interp, ptx-O2:gpu or avx512-O2:native)";
        return false;
      }
    }
    size_t at = item.find('@');
    if (at != std::string::npos) {
      c.vl = unsigned(std::stoul(item.substr(at + 1)));
      item = item.substr(0, at);
    }
    size_t dash = item.rfind("-O");
    if (dash == std::string::npos || dash + 3 != item.size() || item[dash + 2] < '0' || item[dash + 2] > '2') {
      err = "bad configuration '" + item + "' (expected e.g. avx2-O2 or sve-O2@256)";
      return false;
    }
    c.target = item.substr(0, dash);
    c.olevel = item[dash + 2] - '0';
    const cg::Target* t = c.target == "interp" ? nullptr : cg::find_target(c.target);
    if (c.target != "interp" && (!t || (!t->packed_thunk && !is_cce(*t) && !is_ptx(*t) && !is_amdgpu(*t)))) {
      err = "unknown target '" + c.target + "' (interp or one ptorun runs: ptoas --print-targets marks them jit or model)";
      return false;
    }
    const bool native = c.runner == "native";
    if (native ? !(t && t->isa == cg::Isa::X86_64) : !c.runner.empty() && !(t && (is_ptx(*t) || is_amdgpu(*t)))) {
      err = "a runner is for ptx and amdgpu (:interp, :gpu; amdgpu: the chip), :native for x86 only: '" + item + "'";
      return false;
    }
    const bool a64 = t && t->isa == cg::Isa::AArch64;
    if (a64 && !c.vl) c.vl = 256;
    if (!a64 && c.vl) {
      err = "a vector length is for AArch64 targets only: '" + item + "'";
      return false;
    }
    out.push_back(c);
  }
  return true;
}

// One input file, with the front-end flags its manifest gives.
struct Input {
  std::string path, shown;  // shown: relative to its PATH argument
  FrontendOptions fo;
};

void apply_flags(const std::string& flags, FrontendOptions& fo) {
  std::istringstream in(flags);
  for (std::string f; in >> f;) {
    if (f == "--pto-arch=a5" || f == "--pto-arch=A5") fo.arch = Arch::A5, fo.arch_from_cli = true;
    else if (f == "--pto-arch=a3" || f == "--pto-arch=A3") fo.arch = Arch::A3, fo.arch_from_cli = true;
    else if (f == "--pto-level=level1") fo.level = Level::Level1;
    else if (f == "--pto-level=level3") fo.level = Level::Level3;
    else if (f == "--enable-insert-sync") fo.enable_insert_sync = true;
  }
}

std::vector<Input> collect(const std::string& arg) {
  std::vector<Input> out;
  fs::path p(arg);
  if (fs::is_regular_file(p)) {
    out.push_back({arg, p.filename().string(), {}});
    return out;
  }
  if (!fs::is_directory(p)) return out;
  fs::path manifest = p / "MANIFEST.tsv";
  if (fs::exists(manifest)) {
    std::ifstream in(manifest);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::vector<std::string> col;
      std::istringstream ls(line);
      for (std::string c; std::getline(ls, c, '\t');) col.push_back(c);
      if (col.size() < 2 || col[1] != "accept") continue;
      Input i{(p / col[0]).string(), col[0], {}};
      if (col.size() > 2) apply_flags(col[2], i.fo);
      out.push_back(i);
    }
    return out;
  }
  for (const auto& e : fs::recursive_directory_iterator(p))
    if (e.is_regular_file() && e.path().extension() == ".pto")
      out.push_back({e.path().string(), fs::relative(e.path(), p).string(), {}});
  std::sort(out.begin(), out.end(), [](const Input& a, const Input& b) { return a.path < b.path; });
  return out;
}

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

// The first line of a message without its location prefix and compiler
// noise: what a refusal is grouped by.
std::string reason_of(const std::string& msg) {
  std::string line = msg.substr(0, msg.find('\n'));
  if (size_t e = line.find("error: "); e != std::string::npos) line = line.substr(e + 7);
  // Group "X is not supported on T [code]" by X and the code, whatever T.
  if (size_t k = line.find(" is not supported on "); k != std::string::npos) {
    size_t code = line.find(" [", k);
    line = line.substr(0, k) + (code == std::string::npos ? "" : line.substr(code));
  }
  return line.empty() ? "(no message)" : line;
}

// ---- running one configuration in a child process ----------------------------------

unsigned g_timeout = 120;
Config g_ref{"interp", 0, 0, {}};  // --ref

enum class RunStatus : int32_t { Ok = 0, Refused = 1, RunFailed = 2, FrontEnd = 3 };

struct SharedOut {
  int32_t status = -1;
  char message[8192] = {};
};

struct Kernel {
  const Input* in = nullptr;
  std::string text, fn_name;
  std::string variant;  // the table's scalars, when several rows give runs of one kernel
  std::vector<rt::ParamInfo> params;
  ScalarChoice scalars;
  std::vector<std::vector<uint8_t>> inputs;  // per parameter (empty for scalars)
  std::vector<int64_t> elems;                // per parameter: elements
  Tol tol = Tol::Exact;
  size_t total_bytes = 0;  // all buffers together
  std::vector<bool> index;  // per parameter: an integer buffer pto.load_scalar reads (index_buffers)
  std::vector<uint64_t> seeds;  // per parameter: its input's seed
  std::vector<bool> ro;         // per parameter: a buffer the kernel only reads (read_only_buffers)
};

// The ranges index buffers are drawn from, in turn: where the reference
// leaves its views with the inputs' usual [0, 64), [0, 2), then all 0.
constexpr uint64_t kIndexRanges[] = {64, 2, 1};

// A run's buffers after it, where the child left them (shared memory):
// those of `inputs` that `take` selects (all where it is empty), each on an
// `align`-byte boundary.
class SharedBuffers {
 public:
  explicit SharedBuffers(const std::vector<std::vector<uint8_t>>& inputs, const std::vector<bool>& take = {},
                         size_t align = 64) {
    // At least 64 bytes, as ptorun gives them (and cuMemAlloc): a kernel
    // may use 8- and 16-byte accesses. The read-only set is page-aligned,
    // so that a child can map it read-only.
    auto up = [&](size_t n) { return (n + align - 1) & ~(align - 1); };
    total_ = up(sizeof(SharedOut));
    for (size_t i = 0; i < inputs.size(); ++i) {
      at_.push_back(total_);
      if (take.empty() || take[i]) total_ += up(inputs[i].size());
    }
    mem_ = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem_ == MAP_FAILED) mem_ = nullptr;
    else new (mem_) SharedOut();
  }
  SharedBuffers(const SharedBuffers&) = delete;
  SharedBuffers& operator=(const SharedBuffers&) = delete;
  ~SharedBuffers() {
    if (mem_) munmap(mem_, total_);
  }
  bool ok() const { return mem_ != nullptr; }
  SharedOut& out() { return *static_cast<SharedOut*>(mem_); }
  uint8_t* buf(size_t i) { return static_cast<uint8_t*>(mem_) + at_[i]; }

 private:
  void* mem_ = nullptr;
  size_t total_ = 0;
  std::vector<size_t> at_;
};

struct RunResult {
  RunStatus status = RunStatus::RunFailed;
  std::string message;
};

size_t page_size() {
  static const size_t n = size_t(sysconf(_SC_PAGESIZE));
  return n;
}

// A run's buffers: `rw`, every buffer (the child fills them with the
// inputs), and `ro`, the read-only ones filled once for every run.
struct RunBuffers {
  SharedBuffers& rw;
  SharedBuffers& ro;
};

// A run on the buffers where they are, in this process (the interpreter, a
// JIT'ed kernel on this CPU), rather than on copies (an emulator, a GPU
// model): it can use the read-only buffers, mapped read-only.
bool runs_in_place(const Config& c) {
  if (c.target == "interp") return true;
  const cg::Target& ct = cg::target(c.target);
  return !is_cce(ct) && !is_ptx(ct) && !is_amdgpu(ct) && rt::cpu_supports(c.target);
}

// Parses, optimizes for `c`, compiles and runs kernel k on `bufs` (in the
// child process). The blocks run in order, as the emulators run them, on
// the buffers where they are: no launcher copy (these are up to hundreds of
// MiB) and no second check of their sizes (the view probe sized them).
RunStatus run_here(const Kernel& k, const Config& c, RunBuffers bufs, std::string& msg) {
  SourceFile src(k.in->path, std::string(k.text));
  Diag diag(&src);
  Module m;
  if (!run_frontend(src, k.in->fo, m, diag)) {
    msg = diag.text();
    return RunStatus::FrontEnd;
  }
  // interp optimizes as avx2 does (as ptorun)
  const cg::Target& ct = c.target == "interp" ? cg::target("avx2") : cg::target(c.target);
  opt::Options oo;
  oo.level = opt::Level(c.olevel);
  if (!opt::optimize(m, oo, cg::opt_target(ct), diag)) {
    msg = diag.text();
    return RunStatus::FrontEnd;
  }
  rt::Interpreter interp(m);
  std::string err;
  InstId fn = interp.find_function(k.fn_name, err);
  if (fn == kNone) {
    msg = err;
    return RunStatus::FrontEnd;
  }
  // In place, a write to a read-only buffer is a fault (the analysis that
  // chose them is wrong, or the code is).
  const bool in_place = runs_in_place(c);
  auto shared = [&](size_t i) { return in_place && k.ro[i]; };
  std::vector<rt::Arg> args(k.params.size());
  for (size_t i = 0; i < k.params.size(); ++i) {
    if (k.params[i].kind == rt::ParamInfo::Kind::Ptr) {
      args[i].kind = rt::Arg::Kind::Ptr;
      args[i].data = shared(i) ? bufs.ro.buf(i) : bufs.rw.buf(i);
      args[i].bytes = k.inputs[i].size();
    } else if (!rt::parse_scalar(k.params[i].elem, k.scalars.value[i], args[i], err)) {
      msg = err;
      return RunStatus::FrontEnd;
    }
  }
  const int64_t nb = k.scalars.blocks;
  // The inputs go in only once the kernel compiled (a refusal costs nothing).
  auto fill = [&] {
    for (size_t i = 0; i < k.inputs.size(); ++i) {
      if (k.inputs[i].empty()) continue;
      if (!shared(i)) {
        std::memcpy(bufs.rw.buf(i), k.inputs[i].data(), k.inputs[i].size());
      } else if (mprotect(bufs.ro.buf(i), (k.inputs[i].size() + page_size() - 1) & ~(page_size() - 1), PROT_READ)) {
        msg = std::string("cannot map a read-only buffer read-only: ") + std::strerror(errno);
        return false;
      }
    }
    return true;
  };
  if (c.target == "interp") {
    if (!fill()) return RunStatus::RunFailed;
    for (int64_t b = 0; b < nb; ++b)
      if (!interp.run_block(fn, args, b, nb, err)) {
        msg = err;
        return RunStatus::RunFailed;
      }
    return RunStatus::Ok;
  }
  if (is_cce(ct)) {
    // The C++ ptoas writes with the sync it inserts, on the CPU model.
    rt::CceRunOptions co;
    rt::CceKernel kernel;
    if (!rt::cce_build(m, fn, true, co, kernel, diag, err)) {
      // A refusal (an op or form cce does not emit, tiles that do not fit)
      // is not a difference; C++ that g++ rejects or a sync error is.
      msg = err.empty() ? diag.text() : err;
      bool refused = err.empty() && (msg.find(" [unsupported-") != std::string::npos ||
                                     msg.find(" [limit]") != std::string::npos || msg.find("do not fit") != std::string::npos);
      return refused ? RunStatus::Refused : RunStatus::RunFailed;
    }
    if (!fill()) return RunStatus::RunFailed;
    rt::CceLaunch cl{&kernel, co};
    if (!rt::cce_run_blocks(&cl, args, nb, err)) {
      msg = err;
      return RunStatus::RunFailed;
    }
    return RunStatus::Ok;
  }
  if (is_ptx(ct)) {
    // ptoas's PTX on the interpreter (or a GPU: PTOAS_PTX_RUNNER). A
    // backend refusal is not a difference; PTX the interpreter rejects, or
    // a fault in the run (race, out of bounds, ...) is.
    rt::PtxRunner runner;
    if (!rt::ptx_runner_from_env(runner, err)) {
      msg = err;
      return RunStatus::RunFailed;
    }
    if (!c.runner.empty()) runner = c.runner == "gpu" ? rt::PtxRunner::Gpu : rt::PtxRunner::Interp;
    rt::PtxKernel pk;
    pk.name = fs::path(k.in->path).stem().string() + ".ptx";
    pk.timeout_s = g_timeout;
    if (!rt::ptx_build(m, fn, cg::CodegenOptions{}, runner, pk, diag, err)) {
      msg = err.empty() ? diag.text() : err;
      bool refused = (err.empty() && (msg.find(" [unsupported-") != std::string::npos ||
                                      msg.find(" [limit]") != std::string::npos)) ||
                     err == "target ptx is not implemented yet";
      return refused ? RunStatus::Refused : RunStatus::RunFailed;
    }
    if (!fill()) return RunStatus::RunFailed;
    if (!rt::ptx_run_blocks(&pk, args, nb, err)) {
      msg = err;
      return RunStatus::RunFailed;
    }
    return RunStatus::Ok;
  }
  if (is_amdgpu(ct)) {
    // ptoas's code object on the AMDGPU interpreter. A backend refusal is
    // not a difference; an object the interpreter rejects, or a fault in
    // the run (race, a read before its s_waitcnt, out of bounds), is.
    rt::AmdgpuKernel ak;
    ak.timeout_s = g_timeout;
    cg::CodegenOptions co;
    co.gpu_arch = c.runner;
    if (!rt::amdgpu_build(m, fn, co, ak, diag, err)) {
      msg = err.empty() ? diag.text() : err;
      bool refused = err.empty() && (msg.find(" [unsupported-") != std::string::npos ||
                                     msg.find(" [limit]") != std::string::npos);
      return refused ? RunStatus::Refused : RunStatus::RunFailed;
    }
    if (!fill()) return RunStatus::RunFailed;
    if (!rt::amdgpu_run_blocks(&ak, args, nb, err)) {
      msg = err;
      return RunStatus::RunFailed;
    }
    return RunStatus::Ok;
  }
  rt::JitKernel jit;
  bool native = rt::cpu_supports(c.target);
  if (!(native ? jit.load(m, fn, c.target, diag, err) : jit.load_for_emulator(m, fn, c.target, diag, err))) {
    msg = diag.text().empty() ? err : diag.text();
    return RunStatus::Refused;
  }
  if (!fill()) return RunStatus::RunFailed;
  if (native) {
    for (int64_t b = 0; b < nb; ++b) jit.run(args, b, nb);
    return RunStatus::Ok;
  }
  std::vector<rt::EmuJob> jobs{rt::emu_job(m, fn, *jit.image(), args, nb)};
  bool ok;
  std::vector<std::string> job_errors;
  if (jit.under_qemu()) {
    rt::QemuOptions qo;
    qo.vl_bits = c.vl;
    rt::QemuResult res;
    ok = rt::qemu_run(jobs, qo, res, err);
    job_errors = res.job_errors;
  } else {
    rt::BochsResult res;
    ok = rt::bochs_run(jobs, rt::BochsOptions{}, res, err);
    job_errors = res.job_errors;
  }
  if (!ok) {
    msg = !job_errors.empty() && !job_errors[0].empty() ? job_errors[0] : err;
    return RunStatus::RunFailed;
  }
  return RunStatus::Ok;
}

size_t g_emu_max_bytes = 0;  // --emu-max-mib: 0 for no limit

// Runs under qemu or Bochs here (their payloads are copied several times).
bool emulated(const Config& c) {
  return !in_process(c) && !rt::cpu_supports(c.target);
}

// Runs kernel k for configuration c in a child process, on `bufs` (the
// child fills them with the inputs), within g_timeout seconds.
RunResult run_config(const Kernel& k, const Config& c, RunBuffers bufs) {
  RunResult r;
  SharedOut& so = bufs.rw.out();
  so.status = -1;
  so.message[0] = 0;
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(g_timeout);
    std::string msg;
    RunStatus st = run_here(k, c, bufs, msg);
    std::snprintf(so.message, sizeof so.message, "%s", msg.c_str());
    so.status = int32_t(st);
    _exit(0);
  }
  int ws = 0;
  waitpid(pid, &ws, 0);
  if (WIFSIGNALED(ws)) {
    int sig = WTERMSIG(ws);
    r.message = sig == SIGALRM ? "timed out after " + std::to_string(g_timeout) + " s"
                               : std::string("crashed: ") + strsignal(sig);
  } else if (so.status < 0) {
    r.message = "the run ended without a result (exit status " + std::to_string(WEXITSTATUS(ws)) + ")";
  } else {
    r.status = RunStatus(so.status);
    r.message = so.message;
  }
  return r;
}

// ---- one file -------------------------------------------------------------------------

struct Tally {
  size_t files = 0, agree = 0, refused = 0, differ = 0;
  std::map<std::string, size_t> refusals;      // reason -> files
  std::map<std::string, size_t> not_runnable;  // reason -> files
  std::vector<std::string> differing;
  void add(const Tally& o) {
    files += o.files, agree += o.agree, refused += o.refused, differ += o.differ;
    for (auto& [k, v] : o.refusals) refusals[k] += v;
    for (auto& [k, v] : o.not_runnable) not_runnable[k] += v;
    differing.insert(differing.end(), o.differing.begin(), o.differing.end());
  }
  // As bytes, for a worker's report (exec_pool.h): numbers in decimal, each
  // string after its length.
  std::string encode() const {
    std::string o;
    auto num = [&](size_t v) { o += std::to_string(v) + ' '; };
    auto str = [&](const std::string& x) { num(x.size()), o += x; };
    num(files), num(agree), num(refused), num(differ);
    for (const auto* m : {&refusals, &not_runnable}) {
      num(m->size());
      for (auto& [k, v] : *m) str(k), num(v);
    }
    num(differing.size());
    for (const std::string& d : differing) str(d);
    return o;
  }
  bool decode(const std::string& b) {
    size_t at = 0;
    bool ok = true;
    auto num = [&] {
      size_t sp = b.find(' ', at);
      if (sp == std::string::npos || sp == at) return ok = false, size_t(0);
      size_t v = std::stoull(b.substr(at, sp - at));
      at = sp + 1;
      return v;
    };
    auto str = [&] {
      size_t n = num();
      if (!ok || n > b.size() - at) return ok = false, std::string();
      std::string x = b.substr(at, n);
      at += n;
      return x;
    };
    files = num(), agree = num(), refused = num(), differ = num();
    for (auto* m : {&refusals, &not_runnable})
      for (size_t n = num(); ok && n--;) {
        std::string k = str();
        (*m)[k] += num();
      }
    for (size_t n = num(); ok && n--;) differing.push_back(str());
    return ok && at == b.size();
  }
};

bool g_verbose = false;
size_t g_max_bytes = size_t(256) << 20;  // per kernel, all buffers together

// Chooses the scalars of kernel k (`rows` of the table), sizes its buffers by
// the view probe and fills them; false with `why` when it cannot run.
bool size_kernel(const Input& in, const Module& m, const rt::Interpreter& interp, InstId fn,
                const std::vector<const ScalarTable::Row*>& rows, uint64_t seed, Kernel& k, std::string& why) {
  std::string err;
  k.scalars = choose_scalars(m, fn, rows);
  for (const std::string& h : k.scalars.how)
    if (h.find("(table)") != std::string::npos) k.variant += (k.variant.empty() ? "" : " ") + h.substr(0, h.find(' '));
  // Size the buffers by the views, as ptorun sizes --out arrays.
  std::vector<rt::Arg> args(k.params.size());
  bool bad = false;
  for (size_t i = 0; i < k.params.size(); ++i) {
    if (k.params[i].kind == rt::ParamInfo::Kind::Ptr) {
      args[i].kind = rt::Arg::Kind::Ptr;
      continue;
    }
    std::string e;
    if (!rt::parse_scalar(k.params[i].elem, k.scalars.value[i], args[i], e)) bad = true;
  }
  std::vector<rt::ViewExtent> ext;
  if (bad || !interp.probe_views(fn, args, k.scalars.blocks, ext, err)) {
    why = "the view probe fails with the chosen scalars: " + reason_of(err);
    return false;
  }
  size_t total = 0;
  std::vector<bool> index = index_buffers(m, fn);
  for (size_t i = 0; i < k.params.size(); ++i) {
    k.elems.push_back(0);
    k.inputs.emplace_back();
    if (k.params[i].kind != rt::ParamInfo::Kind::Ptr) continue;
    int64_t n = i < ext.size() && ext[i].seen ? std::max<int64_t>(ext[i].max_elems, 1) : 64;
    size_t bytes = size_t(n) * std::max(1u, dtype_bytes(k.params[i].elem));
    total += bytes;
    if (total > g_max_bytes) break;
    k.elems[i] = n;
    // Every other kernel of a run gets special values in its inputs.
    bool idx = i < index.size() && index[i];
    bool specials = ((hash64(in.shown + "/" + k.fn_name) ^ seed) & 1) && !idx;
    k.index.resize(k.params.size());
    k.seeds.resize(k.params.size());
    k.index[i] = idx;
    k.seeds[i] = hash64(in.shown + k.fn_name + std::to_string(i)) ^ seed;
    k.inputs[i] = input_bytes(k.params[i].elem, size_t(n), k.seeds[i], specials);
  }
  if (total > g_max_bytes) {
    why = "its views need more than " + std::to_string(g_max_bytes >> 20) + " MiB of buffers";
    return false;
  }
  k.total_bytes = total;
  return true;
}

// Prepares the kernels of one file on the reference module; "" on success,
// else why the file is not runnable.
std::string prepare(const Input& in, const ScalarTable& table, std::vector<Kernel>& out, uint64_t seed) {
  std::string text;
  if (!read_file(in.path, text)) return "cannot read";
  SourceFile src(in.path, std::string(text));
  Diag diag(&src);
  Module m;
  if (!run_frontend(src, in.fo, m, diag)) return "not accepted by the front end";
  rt::Interpreter interp(m);
  std::vector<InstId> fns;
  std::string err;
  if (InstId e = interp.find_function("", err); e != kNone) {
    fns.push_back(e);
  } else if (m.body != kNone) {
    const Region& body = m.regions[m.body];
    for (unsigned i = 0; i < body.inst_count; ++i) {
      InstId id = m.region_inst(body, i);
      const Inst& f = m.inst(id);
      if (f.op == Op::Func && f.n_regions && m.attr_word(f, "sym_visibility") != "private") fns.push_back(id);
    }
  }
  std::string why = "no function with a !pto.ptr parameter";
  for (InstId fn : fns) {
    Kernel k;
    k.in = &in;
    k.text = text;
    k.fn_name = std::string(m.attr_word(m.inst(fn), "sym_name"));
    k.params = rt::kernel_params(m, fn);
    bool has_ptr = false, other = false;
    for (const auto& p : k.params) {
      has_ptr |= p.kind == rt::ParamInfo::Kind::Ptr;
      other |= p.kind == rt::ParamInfo::Kind::Other;
    }
    if (!has_ptr) continue;
    if (other) {
      why = "a parameter that is neither a pointer nor a scalar (tile, memref)";
      continue;
    }
    // Several table rows for one kernel: one run each (say, both arms of
    // a branch on a flag).
    std::vector<const ScalarTable::Row*> rows = table.find(in.path, k.fn_name);
    std::vector<std::vector<const ScalarTable::Row*>> variants;
    for (const ScalarTable::Row* r : rows) variants.push_back({r});
    if (variants.empty()) variants.emplace_back();
    k.tol = kernel_tolerance(m, fn);
    k.ro = read_only_buffers(m, fn);
    for (const auto& variant : variants) {
      Kernel kv = k;
      if (size_kernel(in, m, interp, fn, variant, seed, kv, why)) out.push_back(std::move(kv));
    }
  }
  return out.empty() ? why : "";
}

void run_file(const Input& in, const ScalarTable& table, const std::vector<Config>& configs, uint64_t seed,
              Tally& t) {
  std::vector<Kernel> kernels;
  std::string why = prepare(in, table, kernels, seed);
  if (!why.empty()) {
    ++t.not_runnable[why];
    if (g_verbose) std::printf("  not runnable: %s: %s\n", in.shown.c_str(), why.c_str());
    return;
  }
  bool differ = false, refused = false, ran = false;
  std::string refusal, not_run;
  for (Kernel& k : kernels) {
    // The read-only buffers, filled once for every run in place (the
    // reference's copy of a weight matrix of hundreds of MiB is most of a
    // model kernel's time otherwise); the reference's other buffers; and
    // one set every configuration reuses.
    std::vector<bool> written(k.ro.size());
    for (size_t i = 0; i < k.ro.size(); ++i) written[i] = !k.ro[i];
    const bool ref_in_place = runs_in_place(g_ref);
    SharedBuffers ro(k.inputs, k.ro, page_size()), ref_bufs(k.inputs, ref_in_place ? written : std::vector<bool>{}),
        bufs(k.inputs);
    if (!ro.ok() || !ref_bufs.ok() || !bufs.ok()) {
      not_run = "cannot map the buffers";
      continue;
    }
    auto load_ro = [&] {
      for (size_t i = 0; i < k.inputs.size(); ++i)
        if (k.ro[i] && !k.inputs[i].empty()) std::memcpy(ro.buf(i), k.inputs[i].data(), k.inputs[i].size());
    };
    load_ro();
    RunResult r0 = run_config(k, g_ref, {ref_bufs, ro});
    // Indices read from GM that send the reference out of its views (a
    // partition past a dimension, a scalar access past a buffer): smaller
    // ones, as long as the kernel has index buffers.
    bool has_index = std::find(k.index.begin(), k.index.end(), true) != k.index.end();
    for (size_t step = 1; has_index && step < std::size(kIndexRanges) && r0.status != RunStatus::Ok; ++step) {
      std::string msg = reason_of(r0.message);
      if (msg.find("exceeds dimension") == std::string::npos && msg.find("outside the buffer") == std::string::npos)
        break;
      for (size_t i = 0; i < k.params.size(); ++i)
        if (k.index[i]) k.inputs[i] = input_bytes(k.params[i].elem, size_t(k.elems[i]), k.seeds[i], false, kIndexRanges[step]);
      load_ro();
      r0 = run_config(k, g_ref, {ref_bufs, ro});
    }
    if (r0.status != RunStatus::Ok && r0.message.rfind("crashed: ", 0) == 0) {
      // The interpreter crashed, or wrote to a buffer read_only_buffers
      // took for read-only: a bug either way, not a file to pass over.
      differ = true;
      t.differing.push_back(in.shown + " @" + k.fn_name + " [" + g_ref.name() + ", the reference]: " + r0.message);
      continue;
    }
    if (r0.status != RunStatus::Ok) {
      std::string reason = reason_of(r0.message);
      not_run = reason.find("not supported by the interpreter") != std::string::npos
                    ? "an op the interpreter does not run"
                    : "the reference run fails: " + reason;
      if (g_verbose) {
        std::printf("  reference %s @%s: %s\n", in.shown.c_str(), k.fn_name.c_str(), r0.message.c_str());
        for (const std::string& h : k.scalars.how)
          if (!h.empty()) std::printf("    %s\n", h.c_str());
      }
      continue;
    }
    ran = true;
    for (const Config& c : configs) {
      if (g_emu_max_bytes && emulated(c) && k.total_bytes > g_emu_max_bytes) {
        refused = true;
        refusal = "an emulated run of more than " + std::to_string(g_emu_max_bytes >> 20) +
                  " MiB of buffers (--emu-max-mib)";
        continue;
      }
      auto t0 = std::chrono::steady_clock::now();
      RunResult r = run_config(k, c, {bufs, ro});
      if (g_verbose)
        std::printf("  %s @%s [%s]: %.2f s\n", in.shown.c_str(), k.fn_name.c_str(), c.name().c_str(),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      std::string where = in.shown + " @" + k.fn_name + (k.variant.empty() ? "" : " (" + k.variant + ")") + " [" + c.name() + "]";
      if (r.status == RunStatus::Refused) {
        refused = true;
        refusal = reason_of(r.message);
        if (g_verbose) std::printf("  refused: %s: %s\n", where.c_str(), refusal.c_str());
        continue;
      }
      if (r.status != RunStatus::Ok) {
        differ = true;
        t.differing.push_back(where + ": " + reason_of(r.message));
        continue;
      }
      const bool c_in_place = runs_in_place(c);
      for (size_t i = 0; i < k.inputs.size(); ++i) {
        // A read-only buffer a run used in place is unchanged (the child mapped it read-only).
        if (k.inputs[i].empty() || (k.ro[i] && c_in_place)) continue;
        const uint8_t* want = k.ro[i] && ref_in_place ? ro.buf(i) : ref_bufs.buf(i);
        std::vector<Mismatch> first;
        size_t bad = compare_buffers(k.params[i].elem, k.tol, want, bufs.buf(i), k.inputs[i].size(), first);
        if (!bad) continue;
        differ = true;
        std::string d = where + ": %" + k.params[i].name + ": " + std::to_string(bad) + " of " +
                        std::to_string(k.elems[i]) + " elements differ (" + tol_name(k.tol) + ")";
        for (const Mismatch& x : first)
          d += "\n      [" + std::to_string(x.index) + "] ref " + element_text(k.params[i].elem, x.ref) + " got " +
               element_text(k.params[i].elem, x.got);
        t.differing.push_back(d);
      }
    }
  }
  if (!ran && !differ) {
    ++t.not_runnable[not_run];
    return;
  }
  ++t.files;
  if (differ) ++t.differ;
  else if (refused) ++t.refused, ++t.refusals[refusal];
  else ++t.agree;
}

void print_tally(const std::string& label, const Tally& t) {
  std::printf("exec-diff%s: %zu files, %zu agree, %zu refused", label.c_str(), t.files, t.agree, t.refused);
  if (!t.refusals.empty()) {
    std::printf(" (");
    bool first = true;
    for (auto& [k, v] : t.refusals) std::printf("%s%s: %zu", first ? "" : "; ", k.c_str(), v), first = false;
    std::printf(")");
  }
  std::printf(", %zu differ\n", t.differ);
  size_t nr = 0;
  for (auto& [k, v] : t.not_runnable) nr += v;
  if (nr) {
    std::printf("  not runnable: %zu files (", nr);
    bool first = true;
    for (auto& [k, v] : t.not_runnable) std::printf("%s%s: %zu", first ? "" : "; ", k.c_str(), v), first = false;
    std::printf(")\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string targets = "interp-O2,avx2-O2,sve-O2@256", scalars_path, ref_text;
  std::vector<std::string> paths;
  uint64_t seed = 0;
  unsigned jobs = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char* key) -> const char* {
      size_t n = std::strlen(key);
      return a.compare(0, n, key) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = val("--targets=")) targets = v;
    else if (const char* v = val("--scalars=")) scalars_path = v;
    else if (const char* v = val("--timeout=")) g_timeout = unsigned(std::stoul(v));
    else if (const char* v = val("--emu-max-mib=")) g_emu_max_bytes = size_t(std::stoull(v)) << 20;
    else if (const char* v = val("--max-mib=")) g_max_bytes = size_t(std::stoull(v)) << 20;
    else if (const char* v = val("--seed=")) seed = std::stoull(v);
    else if (const char* v = val("--jobs=")) jobs = unsigned(std::stoul(v));
    else if (const char* v = val("--ref=")) ref_text = v;
    else if (a == "-v") g_verbose = true;
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "exec_diff: unknown option %s\n", a.c_str());
      return 2;
    } else {
      paths.push_back(a);
    }
  }
  std::vector<Config> configs;
  std::string err;
  if (!parse_configs(targets, configs, err)) {
    std::fprintf(stderr, "exec_diff: %s\n", err.c_str());
    return 2;
  }
  if (!ref_text.empty()) {
    std::vector<Config> r;
    if (!parse_configs(ref_text, r, err) || r.size() != 1) {
      std::fprintf(stderr, "exec_diff: --ref=%s: %s\n", ref_text.c_str(), err.empty() ? "one configuration" : err.c_str());
      return 2;
    }
    g_ref = r[0];
  }
  // :native: left out, not emulated, where this CPU does not run it (the
  // avx512 corpus run in every make test would take Bochs hours).
  for (size_t i = 0; i < configs.size();) {
    if (configs[i].runner != "native" || rt::cpu_supports(configs[i].target)) {
      ++i;
      continue;
    }
    std::printf("exec-diff: %s left out: this CPU does not run %s\n", configs[i].name().c_str(), configs[i].target.c_str());
    configs.erase(configs.begin() + std::ptrdiff_t(i));
  }
  for (const Config& c : configs) {
    // A target this CPU does not run needs its ISA's emulator.
    if (in_process(c) || rt::cpu_supports(c.target)) continue;
    cg::Isa isa = cg::target(c.target).isa;
    if (isa == cg::Isa::AArch64 && !rt::qemu_available(nullptr)) {
      std::fprintf(stderr, "exec_diff: %s needs qemu-aarch64 here; SKIP\n", c.target.c_str());
      return 77;
    }
    if (isa == cg::Isa::X86_64 && !rt::bochs_available(nullptr)) {
      std::fprintf(stderr, "exec_diff: %s needs a CPU that runs it or Bochs here; SKIP\n", c.target.c_str());
      return 77;
    }
  }
  ScalarTable table;
  if (!scalars_path.empty() && !table.load(scalars_path, err)) {
    std::fprintf(stderr, "exec_diff: %s\n", err.c_str());
    return 2;
  }
  std::printf("exec-diff: reference %s; configurations:", g_ref.name().c_str());
  for (const Config& c : configs) std::printf(" %s", c.name().c_str());
  std::printf("\n");
  // Every file of every PATH, run on the workers; the tallies are added up
  // per PATH in file order.
  std::vector<std::vector<Input>> per_path;
  std::vector<const Input*> all_inputs;
  for (const std::string& p : paths) {
    per_path.push_back(collect(p));
    for (const Input& in : per_path.back()) all_inputs.push_back(&in);
  }
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> reports;
  bool pool_ok = run_forked(all_inputs.size(), jobs, [&](size_t i) {
    const Input& in = *all_inputs[i];
    Tally t;
    auto t0 = std::chrono::steady_clock::now();
    run_file(in, table, configs, seed, t);
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (g_verbose && sec > 1.0) std::printf("  slow: %s took %.1f s\n", in.shown.c_str(), sec);
    return t.encode();
  }, reports, err);
  if (!pool_ok) {
    std::fprintf(stderr, "exec_diff: %s\n", err.c_str());
    return 1;
  }
  Tally all;
  size_t next = 0;
  for (size_t pi = 0; pi < paths.size(); ++pi) {
    const std::string& p = paths[pi];
    if (per_path[pi].empty()) {
      std::printf("exec-diff [%s]: no .pto files (skipped)\n", p.c_str());
      continue;
    }
    Tally t;
    for (size_t f = 0; f < per_path[pi].size(); ++f, ++next) {
      Tally one;
      if (!one.decode(reports[next])) {
        std::fprintf(stderr, "exec_diff: the report of %s is damaged\n", per_path[pi][f].shown.c_str());
        return 1;
      }
      t.add(one);
    }
    for (const std::string& d : t.differing) std::printf("  DIFFER %s\n", d.c_str());
    print_tally(" [" + p + "]", t);
    all.add(t);
  }
  print_tally("", all);
  return all.differ ? 1 : 0;
}
