#include "cli_compat.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>

namespace ptoas::cli {
namespace {

// Options of the official tool that select its passes, its VPTO backend's
// tuning, or debug dumps that have no counterpart here. They are accepted so
// that its command lines run; each says why it means nothing here.
struct Ignored {
  const char* name;
  bool takes_value;  // --name=VALUE; a flag also takes =true/=false
  const char* why;
};
constexpr Ignored kIgnored[] = {
    {"enable-tile-op-expand", false, "deprecated there too (tile ops are expanded by --pto-backend=vpto)"},
    {"enable-op-fusion", false, "ptoas fuses at -O2 on every target (docs/optimizer.md)"},
    {"enable-shape-inference", false, "the A5 fusion planner's solver; ptoas's fusion needs none"},
    {"enable-unroll-after-loop-fusion", false, "VPTO backend tuning"},
    {"enable-vexpdif-fusion", false, "VPTO backend tuning (vsub+vexp)"},
    {"enable-vfsim-costmodel-optimization", false, "the official fusion cost model"},
    {"dump-vfsim-unroll-test", false, "a debug dump of the official fusion cost model"},
    {"enable-vpto-soft-postupdate", false, "VPTO backend tuning"},
    {"vpto-print-ir", false, "the VPTO backend's IR (no VPTO backend here)"},
    {"dump-vpto-ir", false, "the VPTO backend's IR (no VPTO backend here)"},
    {"vpto-scheduler-trace", false, "the VPTO scheduler's trace"},
    {"pto-print-seam-ir", false, "the official pre-backend IR; use --emit=ir"},
    {"pto-seam-ir-file", true, "the official pre-backend IR; use --emit=ir -o FILE"},
    {"enable-graph-sync-solver", false, "ptoas has one sync insertion, --enable-insert-sync"},
    {"enable-bufid_sync", false, "A5 buffer-id sync; ptoas inserts flag sync (--enable-insert-sync)"},
    {"enable-bufid-sync-debug", false, "debug output of --enable-bufid_sync"},
    {"enable-inject-barrier-all-sync", false, "ptoas inserts pair sync (--enable-insert-sync)"},
    {"plan-memory-order-by-size", false, "the official planner's order; ptoas plans in its own way"},
    {"pto-insert-sync-debug", true, "debug output of the official sync pass"},
    {"disable-infer-layout", false, "ptoas infers no layouts"},
    {"emit-addptr-trace", false, "trace comments in the official C++"},
};

// Checked-value options: the official tool rejects other values, so ptoas does.
struct Checked {
  const char* name;
  std::string CompatFlags::*field;
  std::vector<std::string> values;  // empty: checked by its own rule
  const char* why;
};
const std::vector<Checked>& checked() {
  static const std::vector<Checked> k = {
      {"plan-memory-impl", &CompatFlags::plan_memory_impl, {"legacy", "modern"},
       "the official planner; ptoas plans tile memory its own way (docs/cce_backend.md)"},
      {"vpto-scheduler", &CompatFlags::vpto_scheduler, {"off", "analyze", "on"}, "VPTO backend tuning"},
      {"vpto-lowering-strategy", &CompatFlags::lowering_strategy, {"post-update", "no-post-update"},
       "VPTO backend tuning"},
      {"vpto-fix-vfsimt-size", &CompatFlags::fix_vfsimt_size, {"auto", "off", "verify"}, "VPTO objects"},
      {"cann-output-version", &CompatFlags::cann_version, {},
       "the CANN API version of the official C++ (X.Y.Z[-tag]); ptoas writes one API"},
  };
  return k;
}

bool valid_version(const std::string& v) {
  // 9.0.0, 9.0.0-beta.1
  size_t i = 0, parts = 0;
  while (parts < 3) {
    size_t b = i;
    while (i < v.size() && std::isdigit((unsigned char)v[i])) ++i;
    if (i == b) return false;
    ++parts;
    if (parts < 3) {
      if (i >= v.size() || v[i] != '.') return false;
      ++i;
    }
  }
  return i == v.size() || (v[i] == '-' && i + 1 < v.size());
}

}  // namespace

void add_compat_options(CLI::App& app, CompatFlags& f) {
  auto* m = app.add_option_group("Official ptoas options with a meaning here",
                                 "The PTOAS 0.60 spellings, mapped onto ptoas's own options");
  m->add_option("--pto-backend", f.backend,
                "emitc (default: the C++ of target cce) or vpto (the official A5 VPTO backend: the "
                "program is verified with that backend's checks, then refused as not supported yet; "
                "with --emit=ir the IR is printed)")
      ->check(CLI::IsMember({"emitc", "vpto"}));
  m->add_flag("--emit-pto-ir", f.ignored_flag, "Same as --emit=ir");
  m->add_flag("--emit-vpto", f.ignored_flag,
              "The official VPTO IR: needs the VPTO backend (--pto-backend=vpto or pto.backend = \"vpto\"); "
              "verified, then not supported yet (exit 1, no output); --emit=ir after it prints ptoas's IR");
  m->add_flag("--emit-vpto-llvm-ir", f.ignored_flag,
              "The official VPTO LLVM IR: as --emit-vpto, not supported yet (exit 1)");
  m->add_option("--mlir-print-ir-after", f.print_after,
                "Print the IR to stderr with MLIR's dump header; ptoas has none of the official passes, so "
                "it prints its IR after its optimizer and sync insertion, before code generation")
      ->allow_extra_args(false);
  m->add_option("--mlir-print-ir-before", f.print_before,
                "As --mlir-print-ir-after, with the IR as the front end verified it, before the optimizer")
      ->allow_extra_args(false);
  m->add_flag("--mlir-print-ir-after-all", f.print_after_all, "Same as --dump-after=all");
  m->add_option("--graph-sync-solver-event-id-max", f.event_id_max,
                "Checked (an integer, 1..64) and ignored: ptoas's sync insertion uses the 8 event ids per pipe "
                "pair of the hardware")
      ->check(CLI::Range(1, 64));
  m->add_flag("--help-hidden", f.ignored_flag, "Same as --help");

  auto* g = app.add_option_group("Compatibility (accepted and ignored)",
                                 "Options of the official ptoas that mean nothing here, and why");
  for (const Checked& c : checked()) {
    std::string vals;
    for (const std::string& v : c.values) vals += (vals.empty() ? "" : "|") + v;
    g->add_option("--" + std::string(c.name), f.*(c.field),
                  std::string(vals.empty() ? "" : vals + ": ") + "checked, then ignored: " + c.why);
  }
  for (const Ignored& o : kIgnored) {
    if (o.takes_value) g->add_option("--" + std::string(o.name), f.ignored_value, std::string("Ignored: ") + o.why);
    else g->add_flag("--" + std::string(o.name), f.ignored_flag, std::string("Ignored: ") + o.why);
  }
}

void rewrite_compat_args(std::vector<std::string>& args, CompatFlags& f) {
  for (std::string& a : args) {
    if (a == "--") break;
    if (a == "--emit-pto-ir") a = "--emit=ir";
    else if (a == "--emit-vpto") a = "--emit=vpto";
    else if (a == "--emit-vpto-llvm-ir") a = "--emit=vpto-llvm-ir";
    else if (a == "--help-hidden") a = "--help";
    if (a == "--emit=vpto" || a == "--emit=vpto-llvm-ir") f.vpto_emit = a.substr(7);
  }
}

void apply_compat_frontend(const CompatFlags& f, FrontendOptions& opts) { opts.vpto_emit = f.vpto_emit; }

bool is_vpto_emit(const std::string& emit) { return emit == "vpto" || emit == "vpto-llvm-ir"; }

bool check_compat_values(const char* prog, const CompatFlags& f) {
  for (const Checked& c : checked()) {
    const std::string& v = f.*(c.field);
    if (v.empty()) continue;
    bool ok = c.values.empty() ? valid_version(v) : false;
    for (const std::string& x : c.values) ok = ok || v == x;
    if (ok) continue;
    std::string want;
    for (size_t i = 0; i < c.values.size(); ++i)
      want += (i ? (i + 1 == c.values.size() ? " or '" : ", '") : "'") + c.values[i] + "'";
    if (want.empty()) want = "a version X.Y.Z[-tag], e.g. 9.0.0";
    std::fprintf(stderr, "%s: error: invalid --%s='%s', expected %s\nRun '%s --help' for usage.\n", prog, c.name,
                 v.c_str(), want.c_str(), prog);
    return false;
  }
  return true;
}

std::string ir_dump_header(const std::string& when, const std::string& pass, const char* where) {
  return "// -----// IR Dump " + when + " " + pass + " (ptoas: " + where + ") //----- //\n";
}

}  // namespace ptoas::cli
