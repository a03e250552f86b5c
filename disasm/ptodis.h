// ptodis: disassembly of the objects ptoas writes (x86-64 and AArch64 ELF), with
// the .pto source line of each instruction group, from the object's DWARF
// line table (.debug_line; docs/debug_info.md). Reads bytes only: x86-64
// through Zydis, AArch64 through the LLVM MC disassembler and printer that
// the SVE encoder sets up (encoders/sve/a64_mc.h; none of its code
// generation); source text comes through Options::read_source. AMDGPU
// code objects (.hsaco) are listed per kernel through the AMDGPU
// interpreter's reader (runtime/amdgpu/code_object_reader.h).
#pragma once
#include <functional>
#include <string>
#include <string_view>

namespace ptoas::dis {

// Reads the source file `path` (as the line table names it) into `text`;
// false if it cannot.
using SourceReader = std::function<bool(const std::string& path, std::string& text)>;

// Where the listing goes, piece by piece.
using OutputSink = std::function<void(std::string_view)>;

struct Options {
  bool source = true;        // print the .pto line above each group
  std::string function;      // only this function (empty: all)
  SourceReader read_source;  // for the text of those lines (none: numbers only)
  OutputSink write;          // none: the whole listing goes to `out`
};

// What a crafted object cannot make ptodis spend (docs/security.md):
// names and source text are shown clipped to these many bytes (control
// characters escaped), paths longer than kMaxPath are not opened, and at
// most kMaxSourceFiles distinct sources (kMaxSourceBytes of text in all)
// are read. With the checks in disassemble() (sections do not overlap in
// the file, functions do not overlap in their section), time, memory and
// output grow linearly with the object's size.
inline constexpr size_t kMaxShownName = 256;
inline constexpr size_t kMaxShownSource = 1024;
inline constexpr size_t kMaxPath = 4096;
inline constexpr size_t kMaxSourceFiles = 64;
inline constexpr size_t kMaxSourceBytes = size_t(1) << 30;

// Disassembles the object image `data` (named `name` in messages) into
// `out` (or to `opt.write`, in pieces, when set: nothing is written before
// the object has been checked). Returns false with `err` set for a
// malformed, truncated or unsupported file (the line table included, when
// `source` is on), or an unknown --function; never crashes on bad input
// (running out of memory is an error too).
bool disassemble(const std::string& name, const std::string& data, const Options& opt,
                 std::string& out, std::string& err);

}  // namespace ptoas::dis
