// ptodis: disassembly of the objects ptoas writes (x86-64 and AArch64 ELF), with
// the .pto source line of each instruction group, from the object's DWARF
// line table (.debug_line; docs/debug_info.md). Reads bytes only: x86-64
// through Zydis, AArch64 through the LLVM MC disassembler and printer that
// the SVE encoder sets up (encoders/sve/sve_mc.h; none of its code
// generation); source text comes through Options::read_source.
#pragma once
#include <functional>
#include <string>

namespace ptoas::dis {

// Reads the source file `path` (as the line table names it) into `text`;
// false if it cannot.
using SourceReader = std::function<bool(const std::string& path, std::string& text)>;

struct Options {
  bool source = true;        // print the .pto line above each group
  std::string function;      // only this function (empty: all)
  SourceReader read_source;  // for the text of those lines (none: numbers only)
};

// Disassembles the object image `data` (named `name` in messages) into
// `out`. Returns false with `err` set for a malformed, truncated or
// unsupported file (the line table included, when `source` is on), or an
// unknown --function; never crashes on bad input.
bool disassemble(const std::string& name, const std::string& data, const Options& opt,
                 std::string& out, std::string& err);

}  // namespace ptoas::dis
