// Intel-syntax listing of generated x86 code with Zydis 4 (--emit=asm).
#include <cstdio>

#include "x86.h"
#include "zydis_lib.h"

namespace ptoas::cg::x86 {

std::vector<ListedInst> decode(const uint8_t* code, size_t n, uint64_t base) {
  std::vector<ListedInst> out;
  // The compile checked that Zydis loads where a listing was asked for
  // (CodegenOptions::listing); else, should it not, every byte is listed
  // as data, which still assembles to the same code.
  std::string err;
  const ZydisLib* z = zydis_lib(err);
  ZydisDecoder dec;
  ZydisFormatter fmt;
  if (z) {
    z->decoder_init(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    z->formatter_init(&fmt, ZYDIS_FORMATTER_STYLE_INTEL);
    z->formatter_set_property(&fmt, ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE);
  }
  size_t off = 0;
  while (off < n) {
    ZydisDecodedInstruction ins;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    ListedInst d;
    d.offset = off;
    size_t length = 1;
    if (z && ZYAN_SUCCESS(z->decode_full(&dec, code + off, n - off, &ins, ops))) {
      char text[256];
      if (!ZYAN_SUCCESS(z->format_instruction(&fmt, &ins, ops, ins.operand_count_visible, text,
                                                         sizeof text, base + off, nullptr)))
        std::snprintf(text, sizeof text, "(unformattable)");
      length = ins.length;
      d.text = text;
    } else {
      char text[32];
      std::snprintf(text, sizeof text, ".byte 0x%02x", code[off]);
      d.text = text;
    }
    off += length;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace ptoas::cg::x86
