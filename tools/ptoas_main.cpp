// ptoas: the assembler driver. Thin: options, reading input, writing output;
// the work is in libptoas_asm (asm/frontend.h) and, later, the encoders.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "codegen.h"
#include "cli_target.h"
#include "cli_common.h"
#include "cli_compat.h"
#include "diag.h"
#include "file_output.h"
#include "frontend.h"
#include "ir.h"
#include "opt.h"
#include "sync.h"
#include "verify.h"

namespace {

constexpr int kExitBadInput = 1;
constexpr int kExitUsage = 2;

bool write_output(const std::string& path, const std::string& data) {
  if (path.empty() || path == "-") {
    std::fwrite(data.data(), 1, data.size(), stdout);
    return std::fflush(stdout) == 0;
  }
  std::string err;
  if (ptoas::write_file_atomic(path, data, "ptoas", err)) return true;
  std::fprintf(stderr, "ptoas: error: %s\n", err.c_str());
  return false;
}

}  // namespace

namespace {

bool has_sync_ops(const ptoas::Module& m) {
  for (const ptoas::Inst& in : m.insts)
    if (ptoas::op_info(in.op).sem == ptoas::Sem::Sync) return true;
  return false;
}

}  // namespace

namespace {

int run(int argc, char** argv) {
  CLI::App app{
      "ptoas: a standalone assembler for PTO tile assembly (.pto).\n"
      "Reads all three PTO-AS spellings (DPS, SSA, assembly form), verifies the kernel and,\n"
      "with --emit=ir, prints its canonical IR. Single-dash long options (-target=avx2,\n"
      "-pto-arch=a5) are accepted as in the official tool.",
      "ptoas"};
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.footer("Environment: PTOAS_MAX_INPUT_BYTES=N[K|M|G] sets the input limit (default 1G; the front "
             "end reads at most 1 GiB of source whatever it says). See docs/security.md.");

  std::string input, output, emit;
  std::string target(ptoas::cg::targets().front()->name);  // cce, as the official tool
  ptoas::cg::CodegenOptions cg_opts;
  ptoas::cli::FrontendFlags fe_flags;
  bool insert_sync = false, syntax_only = false, show_version = false, stats = false;
  bool no_verify = false;
  int opt_level = 2;

  app.add_option("input", input, "Input .pto file, or - for standard input")->required();
  app.add_option("-o,--output", output,
                 "Output file, or - for standard output (text outputs default to stdout). Written "
                 "through a temporary file renamed over it; a run that fails on its input leaves no "
                 "output file, not even one that was there before");
  ptoas::cli::add_target_option(
      app, target,
      "Target: " + target + " is the default, as in the official tool; every target answers --emit=ir, "
      "ptoas --print-targets lists what else each writes.");
  app.add_option("--emit", emit,
                 "What to produce: ir (canonical IR after verification), or what the target writes "
                 "(default: its own; avx2, avx512 and sve: obj, a relocatable x86-64 or AArch64 ELF .o, "
                 "asm, the listing: Intel syntax for x86, LLVM's AArch64 syntax for sve, and header, "
                 "C prototypes)")
      ->check(CLI::IsMember([] {
        std::vector<std::string> v = ptoas::cg::emit_kinds();
        v.emplace_back("vpto");
        v.emplace_back("vpto-llvm-ir");
        return v;
      }()))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  bool print_targets = false;
  app.add_flag("--print-targets", print_targets,
               "List the targets (name, output, whether ptorun runs it, --emit kinds, summary) and exit");
  ptoas::cli::add_codegen_flags(app, cg_opts);
  ptoas::cli::add_frontend_flags(app, fe_flags);
  app.add_flag("--enable-insert-sync", insert_sync,
               "Target cce: insert set_flag/wait_flag/pipe_barrier between the pipes after the optimizer "
               "(functions with hand-written flags are left alone) and prove the result with the sync "
               "checker. Other targets: accepted, nothing to do (sync orders nothing on CPU/GPU)");
  bool verify_sync = false;
  app.add_flag("--verify-sync", verify_sync,
               "Prove the program's sync (hand-written or inserted): every hazard between pipes ordered "
               "on every path, flags balanced, ids in range. Errors at the consumer, exit 1, no output. "
               "Target cce checks hand-written sync this way on every compile to C++");
  app.add_flag("--syntax-only", syntax_only, "Stop after the statement-level parse");
  app.add_flag("--no-verify", no_verify, "Skip the verifier (binding errors are still reported)");
  app.add_flag("--stats", stats,
               "Print statistics to stderr: the front end's, and per function the instructions, "
               "tile ops, fused regions and tile memory before and after optimization; for amdgpu also each "
               "kernel's VGPRs, SGPRs, LDS and the waves per SIMD they allow");
  app.add_option("-O", opt_level,
                 "Optimization level: 0 (no passes), 1 (fold, cse, dce, simplify, forward, copyprop, "
                 "dce; on x86 tmatmul reads the views of the tloads feeding only it, and writes the view of the "
                 "tstore taking only its result, in place), 2 (default: also "
                 "fuse; on x86 the f32 exp within 2 ULP and the list scheduler). --emit=ir prints the IR after the "
                 "passes")
      ->check(CLI::Range(0, 2));
  std::string dump_after;
  bool time_passes = false;
  std::string pass_list;
  for (std::string_view p : ptoas::opt::pass_names()) pass_list += (pass_list.empty() ? "" : ", ") + std::string(p);
  app.add_option("--dump-after", dump_after,
                 "Print the IR to stderr after each run of pass PASS (" + pass_list + ") or after every pass (all)")
      ->check(CLI::IsMember([] {
        std::vector<std::string> v{"all"};
        for (std::string_view p : ptoas::opt::pass_names()) v.emplace_back(p);
        return v;
      }()));
  app.add_flag("--time-passes", time_passes, "Print the time each optimizer pass took to stderr");
  app.add_flag("--version", show_version, "Print the version and exit");
  // The official tool's options (cli_compat.cpp) are a seventh of a
  // small compile's instructions to register (docs/bench.md), so they are
  // registered only where an argument may be one of them: any option word
  // that is not one of ptoas's own (and --help, which lists them).
  ptoas::cli::CompatFlags compat;
  const bool with_compat = ptoas::cli::needs_other_options(app, argc, argv);
  if (with_compat) ptoas::cli::add_compat_options(app, compat);

  // Single-dash long options as the official tool takes them (-target=avx2).
  std::vector<std::string> args = ptoas::cli::rewrite_args(argc, argv, ptoas::cli::long_option_names(app));
  ptoas::cli::rewrite_compat_args(args, compat);
  for (const std::string& a : args) {
    if (a == "--version") {
      std::fputs(ptoas::cli::version_line("ptoas").c_str(), stdout);
      return 0;
    }
    if (a == "--print-targets") {
      std::fputs(ptoas::cli::print_targets().c_str(), stdout);
      return 0;
    }
  }
  std::reverse(args.begin(), args.end());  // CLI11 2.1 takes the vector reversed
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    std::cout << app.help() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "ptoas: error: %s\n", e.what());
    std::fprintf(stderr, "Run 'ptoas --help' for usage.\n");
    return kExitUsage;
  }

  if (app.count("-o") && output.empty()) {
    std::fprintf(stderr, "ptoas: error: empty value for -o\nRun 'ptoas --help' for usage.\n");
    return kExitUsage;
  }
  if (!ptoas::cli::check_compat_values("ptoas", compat)) return kExitUsage;
  if (compat.print_after_all && dump_after.empty()) dump_after = "all";
  ptoas::FrontendOptions opts;
  if (!ptoas::cli::apply_frontend_flags("ptoas", fe_flags, opts)) return kExitUsage;
  opts.enable_insert_sync = insert_sync;
  opts.backend_from_cli = with_compat && app.count("--pto-backend") > 0;
  opts.backend_vpto = compat.backend == "vpto";
  opts.syntax_only = syntax_only;
  opts.no_verify = no_verify;
  ptoas::cli::apply_compat_frontend(compat, opts);

  // The target's default output unless --emit names one; an emit kind
  // the target cannot produce is bad usage (DESIGN §1), a target without a
  // backend yet is "not supported" (exit 1).
  const ptoas::cg::Target* tg = ptoas::cli::resolve_target("ptoas", target);
  if (!tg) return kExitBadInput;
  // The official VPTO backend (A5 vector micro-instructions as LLVM IR):
  // nothing here writes it yet; the IR is the same with either backend. The
  // program is read and verified first (with that backend's own checks), so
  // that a wrong program gets its located error, as from the official tool.
  const bool vpto_refusal =
      ptoas::cli::is_vpto_emit(emit) || (compat.backend == "vpto" && emit != "ir" && !syntax_only);
  if (emit.empty()) emit = std::string(tg->default_emit);
  if (!vpto_refusal && !syntax_only && emit != "ir" && !tg->answers_emit(emit)) {
    if (!tg->has_backend()) {
      std::fprintf(stderr, "ptoas: error: target %s is not implemented yet (use --emit=ir)\n", target.c_str());
      return kExitBadInput;
    }
    std::fprintf(stderr, "ptoas: error: --emit=%s is not available for target %s (it answers %s)\n",
                 emit.c_str(), target.c_str(), std::string(tg->emits).c_str());
    return kExitUsage;
  }
  const bool binary = emit == "obj" && tg->output != ptoas::cg::OutputKind::Text;
  if (!syntax_only && binary) {
    // Binary output: never to a terminal; from stdin it needs -o.
    if (output.empty() && input == "-") {
      std::fprintf(stderr, "ptoas: error: an object from standard input needs -o FILE\n");
      return kExitUsage;
    }
    if (output == "-" && ::isatty(STDOUT_FILENO)) {
      std::fprintf(stderr, "ptoas: error: refusing to write an object file to a terminal\n");
      return kExitUsage;
    }
    if (output.empty()) {
      std::string base = input.substr(input.find_last_of('/') == std::string::npos
                                           ? 0 : input.find_last_of('/') + 1);
      size_t dot = base.find_last_of('.');
      if (dot != std::string::npos && dot > 0) base.resize(dot);
      output = base + std::string(tg->extension);
    }
  }

  // Reading the input over its output would lose it on a failed run (the
  // output is removed then), as gcc refuses.
  if (!output.empty() && output != "-" && input != "-" && ptoas::same_file(input, output)) {
    std::fprintf(stderr, "ptoas: error: input file '%s' is the same as output file\n", input.c_str());
    return kExitUsage;
  }
  // From here a failed run leaves no output file, even one that existed
  // before (gcc's rule; a usage error above leaves it alone).
  auto bad_input = [&]() {
    ptoas::remove_failed_output(output);
    return kExitBadInput;
  };
  std::string text, err;
  int read_rc = 0;
  if (!ptoas::cli::read_input(input, text, err, &read_rc)) {
    std::fprintf(stderr, "ptoas: error: cannot read '%s': %s\n", input.c_str(), err.c_str());
    return read_rc == kExitUsage ? kExitUsage : bad_input();
  }
  ptoas::SourceFile src(input == "-" ? "<stdin>" : input, std::move(text));
  ptoas::Diag diag(&src);
  diag.set_echo(true);
  ptoas::Module module;
  ptoas::FrontendStats st;
  bool ok = ptoas::run_frontend(src, opts, module, diag, &st);
  if (stats)
    std::fprintf(stderr, "ptoas: %zu tokens, %zu statements, %zu instructions, %zu IR bytes\n",
                 st.tokens, st.statements, st.instructions, st.ir_bytes);
  if (!ok) return bad_input();
  if (vpto_refusal) {
    std::fprintf(stderr,
                 "ptoas: error: the VPTO backend (%s) is not supported yet; ptoas writes the PTO-ISA C++ of "
                 "--pto-backend=emitc (target cce, the default), the other targets' code, or --emit=ir\n",
                 ptoas::cli::is_vpto_emit(emit) ? ("--emit-" + emit).c_str() : "--pto-backend=vpto");
    return bad_input();
  }
  if (syntax_only) return 0;
  // What the official tool checks in its passes rather than its verifiers
  // (reserved buffers, frontend pipe lowering, ...) applies to the code
  // generated for the NPU; --emit=ir prints the verified input as it is.
  if (emit != "ir" && tg->name == "cce" && !ptoas::verify_npu_pipeline(module, opts, diag))
    return bad_input();
  // --mlir-print-ir-before/after=PASS: the IR once per named pass, printed once.
  auto dump_ir = [&](const std::vector<std::string>& passes, const char* when, const char* where) {
    if (passes.empty()) return;
    const std::string ir = ptoas::print_module(module);
    for (const std::string& p : passes) {
      std::fputs(ptoas::cli::ir_dump_header(when, p, where).c_str(), stderr);
      std::fputs(ir.c_str(), stderr);
    }
  };
  dump_ir(compat.print_before, "Before", "the verified input, before the optimizer");
  ptoas::opt::Options oo;
  oo.level = ptoas::opt::Level(opt_level);
  oo.dump_after = dump_after;
  oo.time_passes = time_passes;
  oo.stats = stats;
  std::string report;
  bool opt_ok = ptoas::opt::optimize(module, oo, ptoas::cg::opt_target(*tg), diag, &report);
  std::fputs(report.c_str(), stderr);
  if (!opt_ok) return bad_input();
  if (insert_sync && tg->name == "cce") {
    ptoas::opt::SyncStats sst;
    if (!ptoas::opt::insert_sync(module, diag, &sst)) return bad_input();
    if (stats) std::fputs(ptoas::opt::sync_stats_line(sst).c_str(), stderr);
  }
  // cce: a program's own flags are part of what the verifier proves (the
  // inserted ones were proved when inserted).
  if (!verify_sync && tg->name == "cce" && emit != "ir" && has_sync_ops(module)) verify_sync = true;
  if (verify_sync) {
    std::string warnings;
    bool sync_ok = ptoas::opt::verify_sync(module, diag, &warnings);
    std::fputs(warnings.c_str(), stderr);
    if (!sync_ok) return bad_input();
  }
  dump_ir(compat.print_after, "After", "after the optimizer and sync, before code generation");
  if (emit == "ir") return write_output(output, ptoas::print_module(module)) ? 0 : bad_input();
  if (emit == "header") {
    std::string h;
    if (!ptoas::cg::c_header(module, h, diag)) return bad_input();
    return write_output(output, h) ? 0 : bad_input();
  }
  ptoas::cg::ModuleCode code;
  cg_opts.listing = emit == "asm";
  if (!ptoas::cg::compile_module(module, *tg, code, diag, cg_opts)) return bad_input();
  if (stats && tg->code_stats)
    for (const ptoas::cg::FuncCode& f : code.funcs) std::fputs(tg->code_stats(f).c_str(), stderr);
  if (emit == "asm") return write_output(output, ptoas::cg::asm_listing(module, code)) ? 0 : bad_input();
  std::string obj;
  if (!ptoas::cg::write_object(module, code, obj, err)) {
    std::fprintf(stderr, "ptoas: error: %s\n", err.c_str());
    return bad_input();
  }
  return write_output(output, obj) ? 0 : bad_input();
}

}  // namespace

// The process ends here without the static objects' destructors (LLVM's
// option registry, the op signatures, CLI11's tables): they would only free
// what the exit frees anyway, and touching their pages cost a softmax
// compile 7 of its 248 page faults (docs/bench.md). The output is
// written and closed by now; stdio is flushed. A sanitizer build keeps
// them: its leak check runs at exit.
int main(int argc, char** argv) {
  int rc = run(argc, argv);
#if defined(__SANITIZE_ADDRESS__)
  return rc;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return rc;
#endif
#endif
  std::fflush(nullptr);
  std::_Exit(rc);
}
