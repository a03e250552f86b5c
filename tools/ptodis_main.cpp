// ptodis: shows what ptoas emitted. Thin: options and file reading; the
// work is in libptoas_disasm (disasm/ptodis.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/stat.h>

#include "ptodis.h"

int main(int argc, char** argv) {
  CLI::App app{
      "ptodis: disassembles an object written by ptoas (x86-64 ELF) with Zydis: address, bytes,\n"
      "Intel syntax, and the .pto source line above each instruction group.",
      "ptodis"};
  app.set_help_flag("-h,--help", "Print this help and exit");
  std::string input, function;
  bool no_source = false, show_version = false;
  app.add_option("input", input, "Object file (.o)")->required();
  app.add_flag("--no-source", no_source, "Do not show the .pto source lines");
  app.add_option("--function", function, "Disassemble only this function");
  app.add_flag("--version", show_version, "Print the version and exit");
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-no-source" || a.rfind("-function", 0) == 0) a = "-" + a;  // LLVM-style single dash
    if (a == "--version") {
      std::printf("ptodis %s (standalone; PTOAS 0.27 compatible)\n", PTOAS_VERSION);
      return 0;
    }
    args.push_back(a);
  }
  std::reverse(args.begin(), args.end());  // CLI11 2.1 takes the vector reversed
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "ptodis: error: %s\nRun 'ptodis --help' for usage.\n", e.what());
    return 2;
  }
  struct stat st;
  if (::stat(input.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "ptodis: error: cannot read '%s': %s\n", input.c_str(), std::strerror(EISDIR));
    return 2;
  }
  std::ifstream f(input, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "ptodis: error: cannot read '%s': %s\n", input.c_str(), std::strerror(errno));
    return 2;
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  std::string data = ss.str(), out, err;
  ptoas::dis::Options opt;
  opt.source = !no_source;
  opt.function = function;
  if (!ptoas::dis::disassemble(input, data, opt, out, err)) {
    std::fprintf(stderr, "ptodis: error: %s\n", err.c_str());
    return 1;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
