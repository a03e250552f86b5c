// The target registry (docs/architecture.md, docs/porting.md): one
// descriptor per target, looked up by name wherever a target is named
// (ptoas, ptorun, ptodis, the JIT, the test harnesses, `make samples`).
//
// A target folder (encoders/<folder>/) defines its descriptors in its
// target.cpp and lists them through `<folder>_targets()`; the folder is
// named once, in encoders/targets.def, which both this registry and CMake
// read. Nothing outside the folder and that line changes for a new target.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "diag.h"
#include "ir.h"
#include "opt.h"

namespace ptoas::cg {

struct FuncCode;
struct ModuleCode;
struct Output;

// What `--emit=obj` (or the target's default emit) writes.
enum class OutputKind : uint8_t {
  None,       // declared, no backend yet: only --emit=ir
  ElfObject,  // a relocatable ELF object (x86-64, AArch64)
  Text,       // source text another compiler takes (CCE C++, PTX)
  GpuObject,  // a GPU code object (AMDGPU)
};

// The machine the code runs on, for the runners: ptorun runs x86-64 code
// natively or under Bochs, AArch64 natively or under qemu-aarch64.
enum class Isa : uint8_t { None, X86_64, AArch64, Nvptx, Amdgcn, AscendNpu };

// Code generation settings that are not the optimization level; every
// tool sets them from its command line (ptoas --no-sched, --code-limit).
struct CodegenOptions {
  bool schedule = true;  // -O2: the list scheduler of x86 and SVE (--no-sched: program order)
  // The caller will list the code (--emit=asm): a target whose listing
  // needs a library it opens on demand (x86: Zydis) checks it before
  // compiling, so that a missing one is an error, not a listing of bytes.
  bool listing = false;
  // The most machine code one function may have; the tests lower it to
  // reach the limit with a small kernel (--code-limit).
  size_t code_limit = size_t(64) << 20;
  // Test hook: x86 tail stores write whole vectors, a deliberately broken
  // kernel the Bochs and differential suites must catch.
  bool test_unmasked_tails = false;
  // GPU targets: the architecture (--gpu-arch; empty: the target's default).
  // A view (the options stay a literal type): the tools keep the string.
  std::string_view gpu_arch = {};
  // The ptx generator as the amdgpu target's SIMT lowering: no out-of-line
  // blocks (cold code after the entry's ret), so that lanes leaving a
  // branch meet again in program order, and no NVIDIA-only instructions
  // (tmatmul by fma, not mma / ldmatrix) (docs/amdgpu_backend.md).
  bool portable_simt = false;
  // With portable_simt: the shared memory a block may have (0: the arch's)
  // and what has it, for the refusal ("a gfx942 workgroup").
  uint32_t simt_shared_limit = 0;
  std::string_view simt_block = {};
  // With portable_simt: the wave size (64 or 32) whose wave-level matrix op
  // (mma .m16n16k16: MFMA or WMMA) takes f16 / bf16 tmatmul; 0: none.
  unsigned simt_wave_mma = 0;
};

// One instruction of a listing: its offset in the function and its text.
struct ListedInst {
  uint64_t offset = 0;
  std::string text;
};

struct Target {
  std::string_view name = {};
  std::string_view aliases = {};  // other names it answers to, space-separated
  std::string_view summary = {};  // one line for --help
  Isa isa = Isa::None;
  OutputKind output = OutputKind::None;
  std::string_view default_emit = "ir";  // --emit when none is given
  std::string_view emits = "ir";         // the --emit kinds it answers, space-separated
  std::string_view extension = {};            // of the default output file (".o", ".cpp")
  std::string_view gpu_archs = {};  // GPU targets: the --gpu-arch values, space-separated (the first: the default)
  bool listed = true;                    // false: a test target (toy), not in --help
  unsigned variant = 0;                  // the backend's own (x86: 0 avx2, 1 avx512)

  // What the optimizer may assume (vector width, registers, which ops a
  // fused region may hold).
  opt::TargetDesc opt = {};

  // This CPU runs its code natively; nullptr: never. `cpu_needs` says
  // what it takes, for the error when it does not.
  bool (*cpu_can_run)() = nullptr;
  std::string_view cpu_needs = {};

  // The backend; compile == nullptr: not implemented yet (only --emit=ir).
  // One function's code (machine code in FuncCode::code, or text in
  // FuncCode::text for Text targets).
  bool (*compile)(const Module& m, InstId fn, const Target& t, const CodegenOptions& o, FuncCode& out,
                  Diag& diag) = nullptr;
  // Module-wide read-only data every function addresses (x86's constants).
  std::vector<uint8_t> (*rodata)() = nullptr;
  // The output of compiled code (object_file.h): an ObjectFile for object
  // targets (written by the one ELF serializer, elf_writer.h), text for
  // Text targets; nullptr: the functions' FuncCode::text in order.
  bool (*build_output)(const Module& m, const ModuleCode& code, Output& out, std::string& err) = nullptr;
  // --emit=asm: the instructions of one function's code (`base`: its address).
  std::vector<ListedInst> (*decode)(const uint8_t* code, size_t n, uint64_t base) = nullptr;
  // --emit=asm for a target whose listing is not its decoded code or its
  // output text (amdgpu: the assembler text it assembles).
  std::string (*listing)(const Module& m, const ModuleCode& code) = nullptr;
  // --stats: what one function's code uses (amdgpu: registers, LDS,
  // occupancy); nullptr: nothing to say.
  std::string (*code_stats)(const FuncCode& f) = nullptr;
  std::string_view asm_comment = "#";  // the listing's comment leader
  std::string_view asm_preamble = {};       // its first directives
  // The JIT thunk (codegen.h JitImage); nullptr: no JIT.
  bool (*packed_thunk)(const Module& m, InstId fn, size_t thunk_pos, size_t kernel_pos, std::vector<uint8_t>& out,
                       std::string& err) = nullptr;
  uint8_t code_pad = 0;  // the byte between functions in a JIT image (x86: int3)

  bool answers_emit(std::string_view emit) const;
  bool has_backend() const { return compile != nullptr; }
};

// The backend's functions of a descriptor, as bits. A target whose backend
// lives in libptoas_llvm.so (a PTOAS_PLUGIN_TARGET_FOLDER of targets.def)
// states which it has in its shape (PluginShape): ptoas's proxy descriptor
// (plugin_proxy.cpp) forwards exactly those, and the folder's target.cpp
// checks at compile time that its descriptor has no other.
enum TargetHook : unsigned {
  kHookCompile = 1u << 0,
  kHookRodata = 1u << 1,
  kHookBuildOutput = 1u << 2,
  kHookDecode = 1u << 3,
  kHookListing = 1u << 4,
  kHookCodeStats = 1u << 5,
  kHookPackedThunk = 1u << 6,
};

constexpr unsigned hooks_of(const Target& t) {
  return (t.compile ? kHookCompile : 0u) | (t.rodata ? kHookRodata : 0u) | (t.build_output ? kHookBuildOutput : 0u) |
         (t.decode ? kHookDecode : 0u) | (t.listing ? kHookListing : 0u) | (t.code_stats ? kHookCodeStats : 0u) |
         (t.packed_thunk ? kHookPackedThunk : 0u);
}

// A plugin target as ptoas sees it before it loads the plugin: the
// descriptor without the backend's functions (names, emits, what the
// optimizer assumes, opt.fusable included, which must not need the
// plugin), and which of those functions the backend has. Each plugin
// folder lists its shapes in `<folder>_shapes()` (its shapes.cpp, which
// includes no LLVM).
struct PluginShape {
  const Target* shape;
  unsigned hooks;
};

// A plugin target's descriptor: its shape and the backend's functions of
// `fns` (its other fields are not read).
constexpr Target with_backend(const Target& shape, const Target& fns) {
  Target t = shape;
  t.compile = fns.compile;
  t.rodata = fns.rodata;
  t.build_output = fns.build_output;
  t.decode = fns.decode;
  t.listing = fns.listing;
  t.code_stats = fns.code_stats;
  t.packed_thunk = fns.packed_thunk;
  return t;
}

// Every registered target, in the order of targets.def and of each folder.
const std::vector<const Target*>& targets();
// By name or alias; nullptr when none.
const Target* find_target(std::string_view name);
// By name, for code that names a target it knows exists (tests, defaults):
// aborts on an unknown name, which is a bug in the caller.
const Target& target(std::string_view name);
// The widest target this CPU runs natively (nullptr: none).
const Target* host_target();
// opt::TargetDesc::fusable of a target with no fused-region lowering: the
// fuse pass forms no regions for it.
bool never_fusable(const Module& m, const Inst& in);
// The words of a space-separated descriptor list (aliases, emits).
std::vector<std::string_view> split_words(std::string_view list);
// Every --emit kind some target answers or will (its default: cce's cpp),
// "ir" first, each once.
std::vector<std::string> emit_kinds();
// "cce, avx2, ..." of the listed targets, for --help and errors.
std::string target_names(bool with_backend_only = false);

}  // namespace ptoas::cg
