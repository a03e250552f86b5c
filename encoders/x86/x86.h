// The x86-64 encoder (AVX2, AVX-512), internal to libptoas_codegen. Xbyak
// lives only in the files that include x86/gen.h, Zydis only behind
// x86/zydis_lib.h (the scheduler and the listing), no LLVM here
// (x86/emit.cpp uses only its ELF constants).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codegen.h"

namespace ptoas::cg::x86 {

// Machine code of one function (SysV ABI of codegen.h).
bool compile_function(const Module& m, InstId fn, const Target& t, const CodegenOptions& o, FuncCode& out,
                      Diag& diag);

// The constants every function addresses through its rodata fixup.
std::vector<uint8_t> rodata();

// The packed-argument thunk for `fn` (codegen.h JitImage), placed at byte
// `thunk_pos` of an image whose kernel starts at byte `kernel_pos`.
bool packed_thunk(const Module& m, InstId fn, size_t thunk_pos, size_t kernel_pos,
                  std::vector<uint8_t>& out, std::string& err);

// Intel-syntax text of each instruction in `code` (Zydis), with the offset
// of each; `base` is the address of code[0] used for branch targets.
std::vector<ListedInst> decode(const uint8_t* code, size_t n, uint64_t base);

// The object (x86/emit.cpp): cpu_object.h with x86-64 relocations and padding.
bool build_output(const Module& m, const ModuleCode& code, Output& out, std::string& err);

}  // namespace ptoas::cg::x86
