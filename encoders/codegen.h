// libptoas_codegen: the driver API of the code generators (DESIGN §2, §5).
//
// Target-neutral: ptoas (objects, listings, headers) and the JIT loader in
// runtime/ (ptorun --target=avx2) call the encoders only through this header.
// Nothing here includes Xbyak, Zydis or LLVM.
//
// Kernel ABI (DESIGN §5): extern "C" void name(<params in order>, int64_t
// block_idx, int64_t block_num). Tile memory lives on the kernel's own stack
// (docs/x86_backend.md): one 64-byte aligned arena per call, holding every
// alloc_tile slot (static per instruction, bump-allocated per location like
// the interpreter), zero-filled on entry; at most kMaxTileArenaBytes.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "diag.h"
#include "ir.h"
#include "object_file.h"
#include "opt.h"
#include "target.h"

namespace ptoas::cg {

// Targets are descriptors in the registry (target.h); the functions here
// dispatch through them.
inline opt::TargetDesc opt_target(const Target& t) { return t.opt; }

inline constexpr uint32_t kNoFixup = ~0u;
inline constexpr size_t kMaxTileArenaBytes = size_t(1) << 20;  // 1 MiB of stack
// The most machine code one function may have (docs/x86_backend.md,
// "Limits"): past it the encoders stop with a located error instead of
// growing without bound. About 170,000 tile ops of avx2 code.
inline constexpr size_t kMaxFunctionCodeBytes = CodegenOptions{}.code_limit;

// One line-table row: the code of the instruction at source byte offset
// `src_loc` starts at `offset` (bytes from the start of the function).
struct LineEntry {
  uint32_t offset;
  uint32_t src_loc;
};

struct FuncCode {
  std::string name;
  bool global = true;            // private functions are local symbols
  std::vector<uint8_t> code;     // position-independent machine code
  std::string text;              // Text targets: the function's source text
  std::string target_note;       // Text targets: what build_output needs of it (PTX: the .version)
  uint32_t rodata_fixup = kNoFixup;  // a rel32 field that must point at the rodata start
  std::vector<LineEntry> lines;
};

struct ModuleCode {
  const Target* target = nullptr;
  std::vector<FuncCode> funcs;
  std::vector<uint8_t> rodata;  // the constants the functions address RIP-relative
};

// The function definitions of m's body, in order (declarations left out).
std::vector<InstId> defined_functions(const Module& m);

// Compiles every function definition of `m`. Unsupported ops and types are
// reported through `diag` as `op X with dtype Y is not supported on avx2`
// (several per run); returns false if any error was reported.
bool compile_module(const Module& m, const Target& t, ModuleCode& out, Diag& diag, const CodegenOptions& o = {});

// The target's output (OutputKind, object_file.h): for CPU targets an
// ObjectFile (.text, .rodata, .note.GNU-stack, DWARF 5 line table and
// compile unit: cpu_object.h, docs/debug_info.md), for Text targets the
// text; false with a message on failure.
bool build_output(const Module& m, const ModuleCode& code, Output& out, std::string& err);

// build_output as bytes: an ObjectFile through the ELF serializer
// (elf_writer.h), text as it is.
bool write_object(const Module& m, const ModuleCode& code, std::string& out, std::string& err);

// The listing (--emit=asm: the target's decoder, e.g. Intel syntax from
// Zydis) with the .pto line above each group; Text targets: the text.
std::string asm_listing(const Module& m, const ModuleCode& code);

// C prototypes of the public functions; false (with diagnostics) when a
// parameter type has no C spelling.
bool c_header(const Module& m, std::string& out, Diag& diag);

// An executable image for the JIT: the kernel, a thunk
// `void thunk(const uint64_t* args)` taking every parameter (then block_idx,
// block_num) as a 64-bit slot (pointers, integers sign/zero-extended, f32
// bits in the low half), and the constants. `bytes` is position-independent.
struct JitImage {
  std::vector<uint8_t> bytes;
  size_t thunk_offset = 0;
  size_t kernel_offset = 0;
  unsigned n_slots = 0;  // parameters + 2
};
bool build_jit_image(const Module& m, InstId fn, const Target& t, JitImage& out, Diag& diag,
                     const CodegenOptions& o = {});

}  // namespace ptoas::cg
