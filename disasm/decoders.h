// ptodis's instruction decoders, one per ELF machine (internal to
// libptoas_disasm). ptodis.cpp reads the object; these turn bytes into text.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace ptoas::dis {

// The little-endian 32-bit word at p (an AArch64 instruction).
inline uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// Decodes the instruction at `p` (n bytes available, n > 0; `pc` its
// address, for branch targets) into `text` and its length `len`. False if
// the bytes are no valid instruction; `len` and `text` are then unset.
using DecodeFn = std::function<bool(const uint8_t* p, uint64_t n, uint64_t pc, std::string& text, unsigned& len)>;

// x86-64, Intel syntax (Zydis 4).
DecodeFn x86_decoder();
// AArch64 with SVE, fp16, bf16, LLVM's syntax (the MC disassembler and
// printer the SVE encoder uses, so the text is the --emit=asm listing's);
// false with `err` when LLVM lacks the AArch64 target.
bool a64_decoder(DecodeFn& out, std::string& err);

}  // namespace ptoas::dis
