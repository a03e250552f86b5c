// AArch64 instructions for ptodis (decoders.h). The MC instance is the SVE
// encoder's (encoders/sve/a64_mc.h, on the shared layer of encoders/mc/)
// rather than a second LLVM setup, so ptodis prints exactly what
// `ptoas --emit=asm -target=sve` lists, and the features it decodes
// (+sve,+fullfp16,+bf16) are the ones the encoder uses.
#include <llvm/MC/MCInst.h>

#include "decoders.h"
#include "sve/a64_mc.h"

namespace ptoas::dis {

bool a64_decoder(DecodeFn& out, std::string& err) {
  const cg::sve::Mc* mc = cg::sve::a64_mc(&err);
  if (!mc) return false;
  out = [mc](const uint8_t* p, uint64_t n, uint64_t pc, std::string& text, unsigned& len) {
    if (n < 4) return false;
    llvm::MCInst mi;
    if (!mc->decode(le32(p), pc, mi)) return false;
    text = mc->print(mi, pc);
    len = 4;
    return true;
  };
  return true;
}

}  // namespace ptoas::dis
