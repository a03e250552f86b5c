// The AArch64 SVE encoder, internal to libptoas_codegen. LLVM MC is
// confined to the sve/ and mc/ files (mc/mc.h hides it from the rest).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codegen.h"

namespace ptoas::cg::sve {

// The sve descriptor (sve/target.cpp).
const Target& target();

// Machine code of one function (AAPCS64 version of the codegen.h ABI).
bool compile_function(const Module& m, InstId fn, const Target& t, const CodegenOptions& o, FuncCode& out,
                      Diag& diag);

// The packed-argument thunk for `fn` (codegen.h JitImage) at byte
// `thunk_pos` of an image whose kernel starts at byte `kernel_pos`.
bool packed_thunk(const Module& m, InstId fn, size_t thunk_pos, size_t kernel_pos, std::vector<uint8_t>& out,
                  std::string& err);

// LLVM's text of each instruction in `code` with its offset in `code`
// (`base`: the address of code[0], for branch targets); a word that is no
// instruction is `.inst`.
std::vector<ListedInst> decode(const uint8_t* code, size_t n, uint64_t base);

// The object (sve/emit.cpp): cpu_object.h with AArch64 relocations, the $x
// mapping symbol, nop padding, every word checked to decode.
bool build_output(const Module& m, const ModuleCode& code, Output& out, std::string& err);

}  // namespace ptoas::cg::sve
