// The pass list and the driver loop: which passes run at which level, in
// what order, with --dump-after, --time-passes and --stats.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "frontend.h"
#include "opt.h"
#include "passes.h"

namespace ptoas::opt {

namespace {

struct PassEntry {
  std::string_view name;
  Level min_level;  // runs at this level and above
  bool (*run)(Module&, const PassContext&);
};

// ORDER MATTERS: folding feeds CSE, both leave dead code for dce; the
// tile rewrites (simplify, forward, copyprop: forwarding leaves tmovs for
// copyprop) need the cleaned scalars and leave dead tile ops for the
// second dce; fusion runs last, on the final
// list of tile ops.
constexpr PassEntry kPasses[] = {
    {"fold", Level::O1, pass_fold},
    {"cse", Level::O1, pass_cse},
    {"dce", Level::O1, pass_dce},
    {"simplify", Level::O1, pass_simplify},
    {"forward", Level::O1, pass_forward},
    {"copyprop", Level::O1, pass_copy_prop},
    {"dce", Level::O1, pass_dce},
    {"fuse", Level::O2, pass_fuse},
};

}  // namespace

std::vector<std::string_view> pass_names() {
  std::vector<std::string_view> out;
  for (const PassEntry& p : kPasses)
    if (std::find(out.begin(), out.end(), p.name) == out.end()) out.push_back(p.name);
  return out;
}

bool optimize(Module& m, const Options& o, const TargetDesc& t, Diag& diag, std::string* report) {
  PassContext ctx{o, t, diag};
  std::string log;
  if (o.stats) log += function_stats(m, "before optimization:");
  double total = 0;
  for (const PassEntry& p : kPasses) {
    if (o.level < p.min_level) continue;
    auto t0 = std::chrono::steady_clock::now();
    if (!p.run(m, ctx)) return false;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    total += ms;
    if (o.time_passes) {
      char line[96];
      std::snprintf(line, sizeof line, "ptoas: pass %-10s %9.3f ms\n", std::string(p.name).c_str(), ms);
      log += line;
    }
    if (o.dump_after == p.name || o.dump_after == "all") {
      log += "// ----- IR after " + std::string(p.name) + " -----\n";
      log += print_module(m);
    }
  }
  if (o.time_passes) {
    char line[96];
    std::snprintf(line, sizeof line, "ptoas: passes total %9.3f ms (-O%d)\n", total, int(o.level));
    log += line;
  }
  m.opt_level = uint8_t(o.level);
  if (o.stats) log += function_stats(m, "after optimization:");
  if (report) *report += log;
  return true;
}

}  // namespace ptoas::opt
