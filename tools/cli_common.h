// Command-line pieces shared by the program mains (ptoas, ptorun, ptodis).
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "frontend.h"

namespace CLI {
class App;
}

namespace ptoas::cli {

// The front-end options every tool that reads a kernel takes, with one
// spelling and one meaning: --pto-arch (a3 or a5, case-insensitive;
// overrides the module's pto.target_arch) and --pto-level (level1, level2
// or level3: explicit tile addresses).
struct FrontendFlags {
  std::string arch;             // "" : the module's, else a3
  std::string level = "level2";
};
void add_frontend_flags(CLI::App& app, FrontendFlags& f);
// Applies parsed flags to `opts`. false (after printing
// "<prog>: error: invalid --pto-arch=..." to stderr) on a bad --pto-arch:
// the caller exits with status 2.
bool apply_frontend_flags(const char* prog, const FrontendFlags& f, FrontendOptions& opts);

// argv[1..] with LLVM-style single-dash long options (`-target=avx2`) in
// `long_names` rewritten to `--target=avx2` for CLI11; short options (-o,
// -O2) keep their meaning, and nothing after `--` is touched.
// An option with an empty `=value` (`--pto-arch=`, `-target=`) is a usage
// error: CLI11 would take the next argument (the input file) as its value,
// so this prints `<program>: error: empty value for --pto-arch` and exits
// with status 2.
std::vector<std::string> rewrite_args(int argc, char** argv, const std::vector<std::string>& long_names);

// Every long option name (without dashes) registered on `app` and its option
// groups: what rewrite_args takes with one dash, so that no list of names is
// kept beside the options themselves.
std::vector<std::string> long_option_names(const CLI::App& app);
// Whether argv holds --help (-h) or an option word (up to its '=') that
// names none of app's options in either dash spelling (a short option with
// its value attached, -O2, names one): an option app has not registered
// yet, or a typo. Words after "--" are operands.
bool needs_other_options(const CLI::App& app, int argc, char** argv);

// Reads a whole file, or standard input for "-", through the bounded reader
// (asm/file_output.h: at most the input limit, 1 GiB or
// $PTOAS_MAX_INPUT_BYTES). false: `err` says why (without the path), and
// `exit_code`, when given, is 2 for a file that cannot be opened (missing,
// unreadable, a directory: bad usage) and 1 for one over the limit or that
// fails to read (bad input).
bool read_input(const std::string& path, std::string& text, std::string& err, int* exit_code = nullptr);

std::string lower_ascii(std::string s);

// `--version` of every tool: "<tool> <version> (standalone; PTOAS X.Y
// compatible)\n", X.Y the newest official language read in full (both
// official corpora are; docs/testing.md). PTOAS_VERSION comes from CMake.
std::string version_line(const char* tool);

}  // namespace ptoas::cli
