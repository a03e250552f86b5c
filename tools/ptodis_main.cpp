// ptodis: shows what ptoas emitted. Thin: options and file reading (the
// object, and the .pto sources its line table names); the work is in
// libptoas_disasm (disasm/ptodis.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <sys/stat.h>

#include "cli_common.h"
#include "ptodis.h"

int main(int argc, char** argv) {
  CLI::App app{
      "ptodis: disassembles an object written by ptoas (x86-64 ELF with Zydis, Intel syntax;\n"
      "AArch64 ELF with LLVM's disassembler, $x/$d mapping symbols respected): address, bytes,\n"
      "text, and the .pto source line above each instruction group.",
      "ptodis"};
  app.set_help_flag("-h,--help", "Print this help and exit");
  std::string input, function;
  bool no_source = false, show_version = false;
  app.add_option("input", input, "Object file (.o), - for standard input")->required();
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
  std::string data, out, err;
  if (!ptoas::cli::read_input(input, data, err)) {
    std::fprintf(stderr, "ptodis: error: cannot read '%s': %s\n", input.c_str(), err.c_str());
    return 2;
  }
  ptoas::dis::Options opt;
  opt.source = !no_source;
  opt.function = function;
  // The source text shown above each group: the .pto file the line table
  // names (made absolute with the compilation directory), if still there.
  // Regular files only: a crafted name must not make ptodis read a device.
  opt.read_source = [](const std::string& path, std::string& text) {
    struct stat st;
    std::string why;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ptoas::cli::read_input(path, text, why);
  };
  if (!ptoas::dis::disassemble(input, data, opt, out, err)) {
    std::fprintf(stderr, "ptodis: error: %s\n", err.c_str());
    return 1;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
