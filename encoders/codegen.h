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
#include "opt.h"

namespace ptoas::cg {

// Avx2: AVX2 + FMA + F16C + BMI2 (ymm, vmaskmov tails); Avx512: adds
// AVX-512 F/BW/DQ/VL (zmm, opmask tails). One lowering serves both
// (docs/x86_backend.md). Sve: AArch64 with SVE, vector-length agnostic
// (docs/sve_backend.md).
enum class Target : uint8_t { Avx2, Avx512, Sve };
inline bool is_x86(Target t) { return t != Target::Sve; }
bool parse_target(std::string_view name, Target& out);

// True when this CPU (and OS) can run code for t; host_target picks the
// widest such target (false when none).
bool cpu_can_run(Target t);
bool host_target(Target& out);
std::string_view target_name(Target t);

// What the optimizer may assume about code for t (opt/opt.h).
opt::TargetDesc opt_target(Target t);

inline constexpr uint32_t kNoFixup = ~0u;
inline constexpr size_t kMaxTileArenaBytes = size_t(1) << 20;  // 1 MiB of stack
// The most machine code one function may have (docs/x86_backend.md,
// "Limits"): past it the encoders stop with a located error instead of
// growing without bound. About 170,000 tile ops of avx2 code.
inline constexpr size_t kMaxFunctionCodeBytes = size_t(64) << 20;

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
  uint32_t rodata_fixup = kNoFixup;  // a rel32 field that must point at the rodata start
  std::vector<LineEntry> lines;
};

struct ModuleCode {
  Target target = Target::Avx2;
  std::vector<FuncCode> funcs;
  std::vector<uint8_t> rodata;  // the constants the functions address RIP-relative
};

// Compiles every function definition of `m`. Unsupported ops and types are
// reported through `diag` as `op X with dtype Y is not supported on avx2`
// (several per run); returns false if any error was reported.
bool compile_module(const Module& m, Target t, ModuleCode& out, Diag& diag);

// A relocatable ELF object (.text, .rodata, .note.GNU-stack, DWARF 5 line
// table and compile unit: docs/debug_info.md); false with a message on
// failure.
bool write_object(const Module& m, const ModuleCode& code, std::string& out, std::string& err);

// The Intel-syntax listing (Zydis) with the .pto line above each group.
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
bool build_jit_image(const Module& m, InstId fn, Target t, JitImage& out, Diag& diag);

}  // namespace ptoas::cg
