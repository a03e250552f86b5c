// The pass list and the driver loop: which passes run at which level, in
// what order, with --dump-after, --time-passes and --stats.
#include <chrono>
#include <cstdio>

#include "opt.h"
#include "passes.h"

namespace ptoas::opt {

namespace {

struct PassEntry {
  std::string_view name;
  Level min_level;  // runs at this level and above
  bool (*run)(Module&, const PassContext&);
};

// ORDER MATTERS: later passes clean up after earlier ones.
constexpr PassEntry kPasses[] = {
    {"noop", Level::O1, nullptr},
};

}  // namespace

std::vector<std::string_view> pass_names() {
  std::vector<std::string_view> out;
  for (const PassEntry& p : kPasses) out.push_back(p.name);
  return out;
}

bool optimize(Module& m, const Options& o, const TargetDesc& t, Diag& diag, std::string* report) {
  PassContext ctx{o, t, diag};
  std::string log;
  for (const PassEntry& p : kPasses) {
    if (o.level < p.min_level || !p.run) continue;
    auto t0 = std::chrono::steady_clock::now();
    if (!p.run(m, ctx)) return false;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (o.time_passes) {
      char line[96];
      std::snprintf(line, sizeof line, "%-20s %9.3f ms\n", std::string(p.name).c_str(), ms);
      log += line;
    }
  }
  if (report) *report += log;
  return true;
}

}  // namespace ptoas::opt
