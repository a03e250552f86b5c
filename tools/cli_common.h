// Command-line pieces shared by the program mains (ptoas, ptorun, ptodis).
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

namespace ptoas::cli {

// argv[1..] with LLVM-style single-dash long options (`-target=avx2`) in
// `long_names` rewritten to `--target=avx2` for CLI11; short options (-o,
// -O2) keep their meaning.
std::vector<std::string> rewrite_args(int argc, char** argv,
                                      std::initializer_list<const char*> long_names);

// Reads a whole file, or standard input for "-". A directory is refused
// (reading one yields no bytes, which would look like an empty kernel).
bool read_input(const std::string& path, std::string& text, std::string& err);

std::string lower_ascii(std::string s);

}  // namespace ptoas::cli
