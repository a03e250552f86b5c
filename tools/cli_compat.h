// The official ptoas's command line (PTOAS 0.60, tools/ptoas): the options
// its test suite and its users' build scripts pass, so that a command line
// written for it runs here. One table (cli_compat.cpp) says, per option,
// whether ptoas gives it a meaning (mapped onto its own options) or accepts
// and ignores it; --help lists both groups from that table.
#pragma once
#include <string>
#include <vector>

#include "frontend.h"

namespace CLI {
class App;
}

namespace ptoas::cli {

struct CompatFlags {
  std::string backend;                      // --pto-backend=emitc|vpto; empty: not given
  std::string vpto_emit;                    // the last of --emit-vpto / --emit-vpto-llvm-ir given
  std::vector<std::string> print_after;     // --mlir-print-ir-after=PASS (repeatable)
  std::vector<std::string> print_before;    // --mlir-print-ir-before=PASS
  bool print_after_all = false;             // --mlir-print-ir-after-all
  // Values that are checked (a typo is an error, as in the official tool)
  // and then ignored.
  std::string plan_memory_impl, cann_version, vpto_scheduler, lowering_strategy, fix_vfsimt_size;
  int event_id_max = 8;
  // Accepted-and-ignored flags and values land here.
  std::string ignored_value;
  bool ignored_flag = false;
};

// Registers the options on `app`: the mapped ones in their own group, the
// ignored ones in "Compatibility (accepted and ignored)".
void add_compat_options(CLI::App& app, CompatFlags& f);

// Rewrites the official emit flags onto ptoas's --emit (the last one given
// wins, as --emit given twice): --emit-pto-ir -> --emit=ir, --emit-vpto ->
// --emit=vpto, --emit-vpto-llvm-ir -> --emit=vpto-llvm-ir; --help-hidden ->
// --help. `f.vpto_emit` records the VPTO output asked for even when a later
// --emit=ir wins: the official tool checks it against the backend.
void rewrite_compat_args(std::vector<std::string>& args, CompatFlags& f);

// The VPTO output asked for (FrontendOptions::vpto_emit): the verifier
// checks that the VPTO backend is in effect.
void apply_compat_frontend(const CompatFlags& f, FrontendOptions& opts);

// The emit kinds the official VPTO backend writes; ptoas answers them with
// "not supported yet" (exit 1).
bool is_vpto_emit(const std::string& emit);

// Checks the values the official tool checks. false after printing
// "ptoas: error: invalid --plan-memory-impl='typo', expected ..." (usage).
bool check_compat_values(const char* prog, const CompatFlags& f);

// The header MLIR prints before an IR dump, with where ptoas took it.
std::string ir_dump_header(const std::string& when, const std::string& pass, const char* where);

}  // namespace ptoas::cli
