// Target options of ptoas and ptorun (cli_target.h).
#include "cli_target.h"

#include <CLI/CLI.hpp>

#include <cstdio>

namespace ptoas::cli {

namespace {

std::string_view output_name(cg::OutputKind k) {
  switch (k) {
    case cg::OutputKind::ElfObject: return "elf-object";
    case cg::OutputKind::Text: return "text";
    case cg::OutputKind::GpuObject: return "gpu-object";
    case cg::OutputKind::None: break;
  }
  return "none";
}

}  // namespace

void add_target_option(CLI::App& app, std::string& target, const std::string& what, const std::string& extra) {
  std::string help = what;
  for (const cg::Target* t : cg::targets()) {
    if (!t->listed) continue;
    help += "\n  " + std::string(t->name) + ": " + std::string(t->summary);
  }
  help += "\n  host: the widest of these this CPU runs";
  app.add_option("--target", target, help)
      ->type_name("TARGET")
      ->check(CLI::Validator(
          [extra](std::string& s) -> std::string {
            if (s == "host" || cg::find_target(s)) return {};
            for (std::string_view w : cg::split_words(extra))
              if (w == s) return {};
            return "unknown target '" + s + "' (targets: " + cg::target_names() + ", host" +
                   (extra.empty() ? "" : ", " + extra) + ")";
          },
          "", "target"));
}

void add_codegen_flags(CLI::App& app, cg::CodegenOptions& o) {
  auto* g = app.add_option_group("Code generation");
  g->add_flag_function(
      "--no-sched", [&o](int64_t) { o.schedule = false; },
      "Keep instructions in program order (no list scheduling on x86 and sve): the test of the scheduler, "
      "same results without it");
  g->add_option("--code-limit", o.code_limit,
                "The most bytes of machine code one function may have (default and maximum 64 MiB); past it "
                "the kernel is refused with a located error. The tests lower it to reach the limit with a small kernel")
      ->check(CLI::Range(size_t(1), cg::CodegenOptions{}.code_limit));
  std::string archs;
  for (const cg::Target* t : cg::targets())
    if (!t->gpu_archs.empty()) archs += (archs.empty() ? "" : "; ") + std::string(t->name) + ": " + std::string(t->gpu_archs);
  g->add_option_function<std::string>(
       "--gpu-arch",
       [&o](const std::string& s) {
         static std::string kept;  // the options hold a view of it
         kept = s;
         o.gpu_arch = kept;
       },
                "GPU targets: the architecture to generate for (" + archs + "; the first of each is its default)")
      ->type_name("ARCH")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            for (const cg::Target* t : cg::targets())
              for (std::string_view w : cg::split_words(t->gpu_archs))
                if (w == s) return {};
            return "unknown GPU architecture '" + s + "'";
          },
          "", "gpu-arch"));
  g->add_flag("--test-unmasked-tails", o.test_unmasked_tails,
              "Test hook: x86 tail stores write whole vectors (a deliberately broken kernel the differential "
              "suites must catch)");
}

std::string print_targets() {
  std::string o;
  for (const cg::Target* t : cg::targets()) {
    std::string emits;  // comma-separated: one column, so the fields stay in place for awk
    for (std::string_view k : cg::split_words(t->emits)) emits += (emits.empty() ? "" : ",") + std::string(k);
    char line[256];
    const char* runs = t->packed_thunk                               ? "jit"
                       : t->isa == cg::Isa::AscendNpu && t->compile ? "model"
                       : t->isa == cg::Isa::Nvptx && t->compile     ? "gpu"
                       : t->isa == cg::Isa::Amdgcn && t->compile    ? "emu"
                                                                    : "-";
    std::snprintf(line, sizeof line, "%-8s %-10s %-5s %-18s %.*s\n", std::string(t->name).c_str(),
                  std::string(output_name(t->has_backend() ? t->output : cg::OutputKind::None)).c_str(), runs,
                  emits.c_str(), int(t->summary.size()), t->summary.data());
    o += line;
  }
  return o;
}

const cg::Target* resolve_target(const char* prog, std::string& name) {
  if (name == "host") {
    const cg::Target* h = cg::host_target();
    if (!h) {
      std::fprintf(stderr, "%s: error: --target=host: this CPU runs none of the native targets (%s)\n", prog,
                   cg::target_names(true).c_str());
      return nullptr;
    }
    name = std::string(h->name);
    return h;
  }
  const cg::Target* t = cg::find_target(name);
  if (t) name = std::string(t->name);  // an alias to the name
  return t;
}

}  // namespace ptoas::cli
