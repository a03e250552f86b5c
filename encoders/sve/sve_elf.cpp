// The AArch64 part of the ELF writer (elf_object.h): each code word is
// decoded back into its MCInst and emitted as an instruction, so the
// object carries `$x` mapping symbols (code, not data) and every word is
// checked to be a valid instruction on the way out; padding is `nop`s.
// Also the listing's decoder.
#include <llvm/MC/MCInst.h>

#include "elf_object.h"
#include "sve.h"
#include "sve_mc_impl.h"

namespace ptoas::cg::sve {

namespace {
uint32_t word_at(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
}  // namespace

bool write_elf(const Module& m, const ModuleCode& code, std::string& out, std::string& err) {
  const Mc* mc = Mc::get(&err);
  if (!mc) return false;
  ElfTarget et;
  et.target = mc->impl()->target;
  et.triple = kTriple;
  et.cpu = "generic";
  et.features = kFeatures;
  et.emit = [mc](llvm::MCStreamer& s, const llvm::MCSubtargetInfo& sti, const uint8_t* p, size_t n,
                 std::string& e) {
    if (n % 4) {
      e = "AArch64 code that is not whole instructions";
      return false;
    }
    for (size_t i = 0; i < n; i += 4) {
      llvm::MCInst mi;
      if (!mc->decode(word_at(p + i), 0, mi)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "the SVE encoder made an invalid word 0x%08x", word_at(p + i));
        e = buf;
        return false;
      }
      s.emitInstruction(mi, sti);
    }
    return true;
  };
  et.pad = [mc](llvm::MCStreamer& s, const llvm::MCSubtargetInfo& sti, size_t n) {
    llvm::MCInst nop;
    mc->decode(0xd503201fu, 0, nop);
    for (size_t i = 0; i + 4 <= n; i += 4) s.emitInstruction(nop, sti);
  };
  return write_elf_object(m, code, et, out, err);
}

std::vector<DecodedInst> decode(const uint8_t* code, size_t n, uint64_t base) {
  std::vector<DecodedInst> out;
  const Mc* mc = Mc::get();
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
