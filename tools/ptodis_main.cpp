// ptodis: shows what ptoas emitted. Thin: options and file reading (the
// object, and the .pto sources its line table names); the work is in
// libptoas_disasm (disasm/ptodis.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "cli_common.h"
#include "file_output.h"
#include "ptodis.h"

int main(int argc, char** argv) {
  CLI::App app{
      "ptodis: disassembles an object written by ptoas (x86-64 ELF with Zydis, Intel syntax;\n"
      "AArch64 ELF with LLVM's disassembler, $x/$d mapping symbols respected): address, bytes,\n"
      "text, and the .pto source line above each instruction group; AMDGPU code objects (.hsaco,\n"
      "ptoas -target=amdgpu) kernel by kernel, with LLVM's disassembly for the object's chip and\n"
      "offsets from each kernel's entry; PTX text (ptoas -target=ptx) with the .pto line in place\n"
      "of each .loc directive.",
      "ptodis"};
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.footer("Environment: PTOAS_MAX_INPUT_BYTES=N[K|M|G] sets the input limit (default 1G) for the "
             "object and for each source file shown. Source lines come from the regular files the "
             "object's line table names; use --no-source for an object you do not trust. See "
             "docs/security.md.");
  std::string input, function;
  bool no_source = false, show_version = false;
  app.add_option("input", input, "Object file (.o), AMDGPU code object (.hsaco) or PTX text (.ptx), - for standard input")->required();
  app.add_flag("--no-source", no_source, "Do not show the .pto source lines");
  app.add_option("--function", function, "Disassemble only this function (PTX: this entry; .hsaco: this kernel)");
  app.add_flag("--version", show_version, "Print the version and exit");
  // LLVM-style single-dash long options (-no-source, -function=f).
  std::vector<std::string> args =
      ptoas::cli::rewrite_args(argc, argv, {"no-source", "function", "version", "help"});
  for (const std::string& a : args)
    if (a == "--version") {
      std::fputs(ptoas::cli::version_line("ptodis").c_str(), stdout);
      return 0;
    }
  std::reverse(args.begin(), args.end());  // CLI11 2.1 takes the vector reversed
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "ptodis: error: %s\nRun 'ptodis --help' for usage.\n", e.what());
    return 2;
  }
  std::string data, out, err;
  int read_rc = 0;
  if (!ptoas::cli::read_input(input, data, err, &read_rc)) {
    std::fprintf(stderr, "ptodis: error: cannot read '%s': %s\n", input.c_str(), err.c_str());
    return read_rc;
  }
  ptoas::dis::Options opt;
  opt.source = !no_source;
  opt.function = function;
  // The source text shown above each group: the .pto file the line table
  // names (made absolute with the compilation directory), if still there.
  // Regular files only, bounded like every input: a crafted name must not
  // make ptodis read a device or wait on a pipe.
  uint64_t limit = 0;
  if (!ptoas::max_input_bytes(limit, err)) {
    std::fprintf(stderr, "ptodis: error: %s\n", err.c_str());
    return 1;
  }
  opt.read_source = [limit](const std::string& path, std::string& text) {
    std::string why;
    return path != "-" && ptoas::read_file_bounded(path, limit, text, why, true) == ptoas::ReadStatus::Ok;
  };
  // The listing goes out in pieces, not held whole.
  bool write_failed = false;
  opt.write = [&](std::string_view piece) {
    if (std::fwrite(piece.data(), 1, piece.size(), stdout) != piece.size()) write_failed = true;
  };
  if (!ptoas::dis::disassemble(input, data, opt, out, err)) {
    std::fprintf(stderr, "ptodis: error: %s\n", err.c_str());
    return 1;
  }
  if (write_failed || std::fflush(stdout) != 0) {
    std::fprintf(stderr, "ptodis: error: cannot write the listing: %s\n", std::strerror(errno));
    return 1;
  }
  return 0;
}
