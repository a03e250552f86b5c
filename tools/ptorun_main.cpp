// ptorun: runs a kernel on this machine. Thin: options, reading the kernel
// and the .npy arguments, writing the outputs; the checks and the block
// launch are in libptort (runtime/launch.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "bochs_runner.h"
#include "cli_common.h"
#include "cli_target.h"
#include "codegen.h"
#include "file_output.h"
#include "opt.h"
#include "prepare.h"
#include "ptort.hpp"
#include "qemu_runner.h"

namespace {

constexpr int kExitBadInput = 1;
constexpr int kExitUsage = 2;

void error(const std::string& msg) {
  // One "ptorun: error:" line per message line.
  std::istringstream in(msg);
  std::string line;
  while (std::getline(in, line)) std::fprintf(stderr, "ptorun: error: %s\n", line.c_str());
}

// The launcher calls this from its watchdog thread when native code runs
// past --timeout: nothing can stop it in-process, so the process ends
// here, before any output is written.
void native_timeout(double seconds) {
  std::fprintf(stderr, "ptorun: error: the run exceeded the time limit of %g s (--timeout, PTORUN_TIMEOUT); "
               "stopped, no output written\n", seconds);
  std::fflush(stderr);
  std::_Exit(kExitBadInput);
}

struct Binding {
  enum Kind { Arg, Out, InOut } kind;
  std::string name, value;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "ptorun: runs a PTO kernel (.pto) on this machine.\n"
      "Every kernel parameter gets an argument by name: a .npy file for a !pto.ptr parameter\n"
      "(--arg to read it, --inout to read it and write it back, --out for an output that\n"
      "ptorun allocates zero-filled, shaped like the tensor view the kernel builds on it), a\n"
      "value for a scalar parameter (--arg n=1024, --arg alpha=1.5, --arg flag=true). bf16\n"
      "arrays travel as <u2 bit patterns. The blocks run on a thread pool; each sees its\n"
      "block_idx and block_num.",
      "ptorun"};
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.footer(
      "Before any kernel code runs, every buffer is checked against the views the kernel builds on it\n"
      "(a view that starts before its array, reaches past its end or whose offsets overflow is a\n"
      "located error, exit 1). Outputs are written only after the whole run succeeded, all together.\n"
      "Environment: PTORUN_TIMEOUT (seconds, default 600; --timeout wins), PTOAS_MAX_INPUT_BYTES\n"
      "(N[K|M|G]: the most bytes read from the kernel or an .npy file and the largest --out array;\n"
      "default 1G), SVE_VL, PTOAS_FORCE_BOCHS. See docs/security.md.");

  std::string input, target = "host", function;
  ptoas::cli::FrontendFlags fe_flags;
  std::vector<std::string> arg_opts, out_opts, inout_opts;
  int64_t blocks = 1;
  unsigned threads = 0;
  bool show_version = false, show_time = false;

  app.add_option("input", input, "Kernel .pto file, or - for standard input")->required();
  ptoas::cg::CodegenOptions cg_opts;
  ptoas::cli::add_target_option(
      app, target,
      "Where to run: interp (the reference interpreter), or a target ptorun runs (--print-targets of ptoas "
      "marks them jit, model, gpu or emu). ptx: on this machine's NVIDIA GPU through the CUDA driver, else on the "
      "project's PTX interpreter (ptorun says which; PTOAS_PTX_RUNNER=interp|gpu|auto chooses). amdgpu: the code "
      "object ptoas writes for --gpu-arch (default gfx942) on the project's AMDGPU interpreter (no AMD GPU is "
      "used). cce: the C++ ptoas writes (sync inserted unless the program has its own), "
      "compiled with g++ against the project's CPU model of PTO-ISA, which runs the blocks and fails the run "
      "on a race, deadlock or flag misuse. JIT-compiled: x86-64 targets natively, or all blocks in one run of the Bochs "
      "emulator when this CPU lacks their extensions (Bochs must be installed; PTOAS_FORCE_BOCHS=1 uses it "
      "anyway); AArch64 targets natively on a CPU with SVE, otherwise all blocks in one run of qemu-aarch64 "
      "at the --sve-vl vector length (needs qemu-user and a build that found aarch64-linux-gnu-gcc). "
      "Default host. The targets:",
      "interp");
  ptoas::cli::add_codegen_flags(app, cg_opts);
  unsigned sve_vl = 0;
  app.add_option("--sve-vl", sve_vl,
                 "--target=sve under qemu: the SVE vector length in bits, a multiple of 128 from "
                 "128 to 2048 (default: $SVE_VL, else 256). A CPU with SVE runs at its own length")
      ->check(CLI::Range(1u, 65536u));
  app.add_option("--arg", arg_opts, "NAME=VALUE or NAME=file.npy: an argument for parameter NAME")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--out", out_opts,
                 "NAME=file.npy: an output ptorun allocates (zero-filled) and writes after a "
                 "successful run")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--inout", inout_opts,
                 "NAME=file.npy: an existing array the kernel updates; written back after a "
                 "successful run")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--blocks", blocks,
                 "Number of blocks to launch (default 1, at most 1048576 = 2^20: the view probe and "
                 "the run are per block)")
      ->check(CLI::Range(int64_t(1), ptoas::rt::kMaxBlocks));
  double timeout_s = -1;
  app.add_option("--timeout", timeout_s,
                 "Wall-clock limit in seconds for the view probe and the run, on every target "
                 "(default: $PTORUN_TIMEOUT, else 600; 0: none). Past it the run fails (exit 1) "
                 "and no output is written")
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--threads", threads,
                 "Worker threads (default: the number of hardware threads, at most --blocks)")
      ->check(CLI::Range(0u, 4096u));
  ptoas::cli::add_frontend_flags(app, fe_flags);
  app.add_option("--function", function,
                 "The function to run (default: the one with pto.entry, else the only one)");
  app.add_flag("--time", show_time,
               "Print the wall time of the launch (argument checks and every block; not the "
               "parse, the JIT assembly or the .npy I/O) to stderr");
  int opt_level = 2;
  app.add_option("-O", opt_level,
                 "Optimization level 0-2 as in ptoas (default 2). The interpreter runs the "
                 "optimized IR too, so -O0 against -O2 on any target tests the optimizer")
      ->check(CLI::Range(0, 2));
  app.add_flag("--version", show_version, "Print the version and exit");
  std::string ptx_file;
  app.add_option("--ptx", ptx_file,
                 "--target=ptx: run this PTX file (its entry named like the function) instead of the PTX ptoas "
                 "generates for the kernel; the launch, the arguments and the checks are the same (hand-edited PTX, "
                 "the runner's tests)")
      ->type_name("FILE");

  // Single-dash long options as ptoas takes them (-target=interp).
  std::vector<std::string> args = ptoas::cli::rewrite_args(
      argc, argv,
      {"target", "arg", "out", "inout", "blocks", "threads", "pto-arch", "pto-level", "function",
       "sve-vl", "timeout", "version", "help", "no-sched", "code-limit", "test-unmasked-tails", "gpu-arch", "ptx"});
  for (const std::string& a : args)
    if (a == "--version") {
      std::fputs(ptoas::cli::version_line("ptorun").c_str(), stdout);
      return 0;
    }
  std::reverse(args.begin(), args.end());  // CLI11 2.1 takes the vector reversed
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    std::cout << app.help() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "ptorun: error: %s\n", e.what());
    std::fprintf(stderr, "Run 'ptorun --help' for usage.\n");
    return kExitUsage;
  }

  ptoas::FrontendOptions opts;
  if (!ptoas::cli::apply_frontend_flags("ptorun", fe_flags, opts)) return kExitUsage;
  if (timeout_s < 0) {
    timeout_s = 600;
    if (const char* e = std::getenv("PTORUN_TIMEOUT"); e && *e) {
      char* end = nullptr;
      errno = 0;
      double v = std::strtod(e, &end);
      if (end == e || *end || errno || !(v >= 0) || v > 1e9) {
        std::fprintf(stderr, "ptorun: error: PTORUN_TIMEOUT=%s: expected seconds from 0 (no limit) to 1e9\n", e);
        return kExitUsage;
      }
      timeout_s = v;
    }
  }

  // NAME=VALUE pairs.
  std::vector<Binding> binds;
  auto split = [&](const std::vector<std::string>& v, Binding::Kind k, const char* opt) {
    for (const std::string& s : v) {
      size_t eq = s.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::fprintf(stderr, "ptorun: error: %s expects NAME=%s, got '%s'\n", opt,
                     k == Binding::Arg ? "VALUE" : "file.npy", s.c_str());
        return false;
      }
      if (k != Binding::Arg && eq + 1 == s.size()) {
        std::fprintf(stderr, "ptorun: error: %s %s: missing file name\n", opt, s.c_str());
        return false;
      }
      binds.push_back({k, s.substr(0, eq), s.substr(eq + 1)});
    }
    return true;
  };
  if (!split(arg_opts, Binding::Arg, "--arg") || !split(out_opts, Binding::Out, "--out") ||
      !split(inout_opts, Binding::InOut, "--inout"))
    return kExitUsage;

  if (sve_vl && !ptoas::rt::qemu_valid_vl_bits(sve_vl)) {
    std::fprintf(stderr, "ptorun: error: --sve-vl=%u: expected a multiple of 128 from 128 to 2048\n", sve_vl);
    return kExitUsage;
  }
  std::string err;
  const ptoas::cg::Target* tg = nullptr;
  if (target != "interp") {
    tg = ptoas::cli::resolve_target("ptorun", target);
    if (!tg) return kExitBadInput;
    if (!ptoas::rt::runnable_target(target, !ptx_file.empty(), err)) {
      error(err);
      return kExitBadInput;
    }
  }
  if (const char* e = std::getenv("SVE_VL"); !sve_vl && tg && tg->isa == ptoas::cg::Isa::AArch64 && e && *e) {
    unsigned bits;
    if (!ptoas::rt::qemu_parse_vl_bits(e, bits)) {
      std::fprintf(stderr, "ptorun: error: SVE_VL=%s: expected a multiple of 128 from 128 to 2048 (bits)\n", e);
      return kExitUsage;
    }
  }
  // The kernel.
  std::string text;
  int read_rc = 0;
  if (!ptoas::cli::read_input(input, text, err, &read_rc)) {
    // Missing or unreadable: usage (2); over the input limit or a read
    // error: bad input (1).
    std::fprintf(stderr, "ptorun: error: cannot read '%s': %s\n", input.c_str(), err.c_str());
    return read_rc;
  }
  ptoas::SourceFile src(input == "-" ? "<stdin>" : input, std::move(text));
  ptoas::Diag diag(&src);
  diag.set_echo(true);
  ptoas::Module module;
  if (!ptoas::run_frontend(src, opts, module, diag)) return kExitBadInput;
  {
    ptoas::opt::Options oo;
    oo.level = ptoas::opt::Level(opt_level);
    // interp optimizes as avx2 does, so that -O0 against -O2 there checks
    // the IR the x86 code runs.
    const ptoas::cg::Target& ot = tg ? *tg : ptoas::cg::target("avx2");
    if (!ptoas::opt::optimize(module, oo, ptoas::cg::opt_target(ot), diag)) return kExitBadInput;
  }
  ptoas::rt::Interpreter interp(module);
  ptoas::InstId fn = interp.find_function(function, err);
  if (fn == ptoas::kNone) {
    error(err);
    return kExitBadInput;
  }
  // Ready the kernel on its target (runtime/prepare.h): JIT-assembled
  // natively or imaged for Bochs / qemu, compiled against the CCE model,
  // or loaded into a GPU or the project's interpreters.
  ptoas::rt::PrepareOptions po;
  po.target = target;
  po.codegen = cg_opts;
  po.sve_vl_bits = sve_vl;
  po.timeout_s = timeout_s;
  po.force_bochs = ptoas::rt::bochs_forced();
  std::string ptx_text;
  if (!ptx_file.empty()) {
    int rc = 0;
    if (!ptoas::cli::read_input(ptx_file, ptx_text, err, &rc)) {
      std::fprintf(stderr, "ptorun: error: cannot read '%s': %s\n", ptx_file.c_str(), err.c_str());
      return rc;
    }
    po.ptx_text = &ptx_text;
    po.ptx_name = ptx_file;
  } else {
    std::string base = input == "-" ? "stdin" : input.substr(input.find_last_of('/') + 1);
    if (base.size() > 4 && base.compare(base.size() - 4, 4, ".pto") == 0) base.resize(base.size() - 4);
    po.ptx_name = base + ".ptx";
  }
  ptoas::rt::PreparedKernel kernel;
  ptoas::rt::PrepareFailure why;
  bool prepared = ptoas::rt::prepare_kernel(module, fn, po, kernel, diag, err, &why);
  for (const std::string& n : kernel.notes) std::fprintf(stderr, "ptorun: %s\n", n.c_str());
  if (!prepared) {
    if (!err.empty()) error(err);
    return why == ptoas::rt::PrepareFailure::Usage ? kExitUsage : kExitBadInput;
  }
  std::vector<ptoas::rt::ParamInfo> params = ptoas::rt::kernel_params(module, fn);
  auto param = [&](const std::string& name) -> const ptoas::rt::ParamInfo* {
    std::string n = !name.empty() && name[0] == '%' ? name.substr(1) : name;
    for (const auto& p : params)
      if (p.name == n) return &p;
    return nullptr;
  };

  // The arguments: arrays are read here (a missing file is a usage error);
  // the launcher checks names, kinds, dtypes and sizes.
  std::deque<ptoas::rt::NpyArray> arrays;  // stable addresses
  ptoas::rt::LaunchRequest req;
  req.module = &module;
  req.fn = fn;
  req.blocks = blocks;
  req.threads = threads;
  kernel.bind(req);
  req.sve_vl_bits = sve_vl;
  req.timeout_s = timeout_s;
  req.on_native_timeout = native_timeout;
  bool missing_file = false, bad_file = false;
  struct Writeback {
    std::string path;
    ptoas::rt::NpyArray* array;
  };
  std::vector<Writeback> writes;
  for (const Binding& b : binds) {
    const ptoas::rt::ParamInfo* p = param(b.name);
    bool ptr = p && p->kind == ptoas::rt::ParamInfo::Kind::Ptr;
    if (b.kind == Binding::Arg && !ptr) {
      req.args.push_back(ptoas::rt::KernelArg::scalar(b.name, b.value));
      continue;
    }
    ptoas::rt::NpyArray& a = arrays.emplace_back();
    if (b.kind == Binding::Out) {
      req.args.push_back(ptoas::rt::KernelArg::output(b.name, a));
      writes.push_back({b.value, &a});
      continue;
    }
    if (ptr) {
      bool missing = false;
      std::string e;
      if (!ptoas::rt::npy_read(b.value, a, e, &missing)) {
        error("parameter %" + p->name + " (" + p->type_text + "): " + e);
        (missing ? missing_file : bad_file) = true;
        continue;
      }
    }
    req.args.push_back(ptoas::rt::KernelArg::buffer(b.name, a));
    if (b.kind == Binding::InOut) writes.push_back({b.value, &a});
  }
  if (missing_file) return kExitUsage;
  if (bad_file) return kExitBadInput;

  bool run_error = false;
  auto t0 = std::chrono::steady_clock::now();
  if (!ptoas::rt::launch(req, err, &run_error)) {
    if (run_error) std::fprintf(stderr, "%s\n", err.c_str());
    else error(err);
    return kExitBadInput;
  }
  if (show_time) {
    std::fprintf(stderr, "ptorun: time %.3f ms (%lld block%s on %s)\n",
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                 (long long)blocks, blocks == 1 ? "" : "s", target.c_str());
    const ptoas::rt::PtxKernel& ptx = kernel.ptx;
    if (ptx.program)
      std::fprintf(stderr, "ptorun: %s: %s\n", ptx.where.c_str(),
                   ptx.on_gpu ? ptx.gpu_report.c_str()
                              : (std::to_string(ptx.stats.warp_steps) + " warp instructions, " +
                                 std::to_string(ptx.stats.thread_steps) + " thread instructions")
                                    .c_str());
    const ptoas::rt::AmdgpuKernel& amd = kernel.amdgpu;
    if (amd.program)
      std::fprintf(stderr, "ptorun: %s: %llu wave instructions, %llu waves\n", amd.where.c_str(),
                   (unsigned long long)amd.stats.instructions, (unsigned long long)amd.stats.waves);
  }
  // Every output or none: each goes to a temporary file, and they are
  // renamed into place only when all were written (asm/file_output.h).
  ptoas::OutputBatch batch;
  for (const Writeback& w : writes) {
    std::string img;
    if (!ptoas::rt::npy_serialize(*w.array, img, err)) {
      error("cannot write '" + w.path + "': " + err);
      return kExitBadInput;
    }
    if (!batch.add(w.path, img, "ptorun", err)) {
      error(err);
      return kExitBadInput;
    }
  }
  if (!batch.commit(err)) {
    error(err);
    return kExitBadInput;
  }
  return 0;
}
