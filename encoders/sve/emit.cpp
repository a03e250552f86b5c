// The AArch64 part of the CPU object (cpu_object.h): every code word is
// checked to decode as an instruction on the way out, a `$x` mapping symbol
// marks .text as code, padding is `nop`s. Also the listing's decoder.
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/MC/MCInst.h>

#include "cpu_object.h"
#include "sve.h"
#include "a64_mc.h"

namespace ptoas::cg::sve {

namespace {
uint32_t word_at(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
}  // namespace

bool build_output(const Module& m, const ModuleCode& code, Output& out, std::string& err) {
  const Mc* mc = a64_mc(&err);
  if (!mc) return false;
  ElfTarget et;
  et.machine = llvm::ELF::EM_AARCH64;
  et.r_abs64 = llvm::ELF::R_AARCH64_ABS64;
  et.r_abs32 = llvm::ELF::R_AARCH64_ABS32;
  et.r_pc32 = llvm::ELF::R_AARCH64_PREL32;
  et.pc32_addend = 0;
  et.code_mapping_symbol = "$x";  // all of .text is code
  et.check = [mc](const FuncCode& f, std::string& e) {
    if (f.code.size() % 4) {
      e = "AArch64 code that is not whole instructions";
      return false;
    }
    for (size_t i = 0; i < f.code.size(); i += 4) {
      llvm::MCInst mi;
      if (!mc->decode(word_at(f.code.data() + i), 0, mi)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "the SVE encoder made an invalid word 0x%08x", word_at(f.code.data() + i));
        e = buf;
        return false;
      }
    }
    return true;
  };
  et.pad = [](std::string& t, size_t n) {
    for (size_t i = 0; i + 4 <= n; i += 4) t.append("\x1f\x20\x03\xd5", 4);  // nop
  };
  return cpu_output(m, code, et, out, err);
}

std::vector<ListedInst> decode(const uint8_t* code, size_t n, uint64_t base) {
  std::vector<ListedInst> out;
  const Mc* mc = a64_mc();
  for (size_t i = 0; i + 4 <= n; i += 4) {
    llvm::MCInst mi;
    std::string text;
    if (mc && mc->decode(word_at(code + i), base + i, mi)) {
      text = mc->print(mi, base + i);
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, ".inst\t0x%08x", word_at(code + i));
      text = buf;
    }
    out.push_back({i, text});
  }
  return out;
}

}  // namespace ptoas::cg::sve
