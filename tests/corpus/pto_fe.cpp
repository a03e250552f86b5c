// pto_fe: the front end alone (parse, bind, verify, -O0 print) for fast work on
// the language: it links libptoas_asm only, so a change to the op table does
// not rebuild the optimizer and the backends. Same exit statuses and messages
// as `ptoas --emit=ir -O0`; understands --pto-arch=, --pto-level= and
// --enable-insert-sync, ignores every other option (the corpus's RUN lines).
// Usage: pto_fe [OPTIONS] FILE [-o OUT]
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "diag.h"
#include "frontend.h"
#include "ir.h"

int main(int argc, char** argv) {
  ptoas::FrontendOptions opts;
  std::string input, output;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "-o" && i + 1 < argc) output = argv[++i];
    else if (a.rfind("--pto-arch=", 0) == 0 || a.rfind("-pto-arch=", 0) == 0) {
      opts.arch_from_cli = true;
      opts.arch = a.substr(a.find('=') + 1) == "a5" ? ptoas::Arch::A5 : ptoas::Arch::A3;
    } else if (a.rfind("--pto-level=", 0) == 0 || a.rfind("-pto-level=", 0) == 0) {
      std::string_view l = a.substr(a.find('=') + 1);
      opts.level = l == "level1" ? ptoas::Level::Level1 : l == "level3" ? ptoas::Level::Level3 : ptoas::Level::Level2;
    } else if (a == "--enable-insert-sync") opts.enable_insert_sync = true;
    else if (!a.empty() && a[0] == '-') continue;
    else input = std::string(a);
  }
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
