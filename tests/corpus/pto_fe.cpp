// pto_fe: the front end alone (parse, bind, verify, -O0 print) for fast work on
// the language: it links libptoas_asm only, so a change to the op table does
// not rebuild the optimizer and the backends. Same exit statuses and messages
// as `ptoas --emit=ir -O0`; understands --pto-arch=, --pto-level= (read by
// tools/cli_common.cpp, as ptoas reads them), --pto-backend= and
// --enable-insert-sync, and ignores every other option (the corpus's RUN
// lines).
// Usage: pto_fe [OPTIONS] FILE [-o OUT]
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "cli_common.h"
#include "diag.h"
#include "frontend.h"
#include "ir.h"

int main(int argc, char** argv) {
  ptoas::FrontendOptions opts;
  ptoas::cli::FrontendFlags flags;
  std::string input, output;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value = [&](std::string_view key, std::string& to) {
      for (std::string_view dashes : {"--", "-"}) {
        std::string k = std::string(dashes) + std::string(key) + "=";
        if (a.rfind(k, 0) == 0) {
          to = std::string(a.substr(k.size()));
          return true;
        }
      }
      return false;
    };
    // The VPTO outputs need the VPTO backend (asm/verify_vpto_backend.cpp).
    if (a == "--emit-vpto" || a == "--emit-vpto-llvm-ir") {
      opts.vpto_emit = std::string(a.substr(7));
      continue;
    }
    if (a == "-o" && i + 1 < argc) output = argv[++i];
    else if (value("pto-arch", flags.arch) || value("pto-level", flags.level)) continue;
    else if (a == "--enable-insert-sync") opts.enable_insert_sync = true;
    else if (std::string b; value("pto-backend", b)) {
      opts.backend_from_cli = true;
      opts.backend_vpto = b == "vpto";
    }
    else if (!a.empty() && a[0] == '-') continue;
    else input = std::string(a);
  }
  // The same spellings and checks as ptoas (a3/a5, level1..3 or 1..3, any case).
  if (!ptoas::cli::apply_frontend_flags("pto_fe", flags, opts)) return 2;
  if (input.empty()) {
    std::fprintf(stderr, "usage: pto_fe [--pto-arch=a3|a5] [--pto-level=levelN] FILE [-o OUT]\n");
    return 2;
  }
  std::ifstream f(input, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "pto_fe: error: cannot read '%s'\n", input.c_str());
    return 1;
  }
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ptoas::SourceFile src(input, std::move(text));
  ptoas::Diag diag(&src);
  diag.set_echo(true);
  ptoas::Module m;
  if (!ptoas::run_frontend(src, opts, m, diag)) return 1;
  std::string out = ptoas::print_module(m);
  if (output.empty() || output == "-") {
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  }
  std::ofstream o(output, std::ios::binary);
  o << out;
  return o ? 0 : 1;
}
