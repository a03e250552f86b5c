// ptodis: disassembly of the objects ptoas writes (x86-64 ELF for now), with
// the .pto source line of each instruction group (from the `.pto.lines`
// section, docs/x86_backend.md). Reads bytes only: never includes an encoder.
#pragma once
#include <string>

namespace ptoas::dis {

struct Options {
  bool source = true;        // print the .pto line above each group
  std::string function;      // only this function (empty: all)
};

// Disassembles the object image `data` (named `name` in messages) into
// `out`. Returns false with `err` set for a malformed, truncated or
// unsupported file, or an unknown --function; never crashes on bad input.
bool disassemble(const std::string& name, const std::string& data, const Options& opt,
                 std::string& out, std::string& err);

}  // namespace ptoas::dis
