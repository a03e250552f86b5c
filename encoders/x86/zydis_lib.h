// Zydis, opened when an x86 compile first needs it (x86/zydis_lib.cpp): the
// list scheduler (-O2) and the listing (--emit=asm) decode with it. So
// every other compile (cce, the default; ptx; x86 at -O0 / -O1 to an
// object; the LLVM targets) and --help or --version never maps it:
// loading it cost every process 0.3-0.4 ms on this machine kind
// (docs/bench.md). Only the function types come from its headers.
#pragma once
#include <Zydis/Zydis.h>

#include <string>

namespace ptoas::cg::x86 {

struct ZydisLib {
  decltype(&ZydisDecoderInit) decoder_init;
  decltype(&ZydisDecoderDecodeFull) decode_full;
  decltype(&ZydisMnemonicGetString) mnemonic_string;
  decltype(&ZydisRegisterGetLargestEnclosing) largest_enclosing;
  decltype(&ZydisFormatterInit) formatter_init;
  decltype(&ZydisFormatterSetProperty) formatter_set_property;
  decltype(&ZydisFormatterFormatInstruction) format_instruction;
};

// The library, opened on the first call and never closed; nullptr with
// `err` saying why (each call says it again).
const ZydisLib* zydis_lib(std::string& err);

}  // namespace ptoas::cg::x86
