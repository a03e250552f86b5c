// Intel-syntax listing of generated x86 code with Zydis 4 (--emit=asm).
#include <Zydis/Zydis.h>

#include <cstdio>

#include "x86.h"

namespace ptoas::cg::x86 {

std::vector<ListedInst> decode(const uint8_t* code, size_t n, uint64_t base) {
  std::vector<ListedInst> out;
  ZydisDecoder dec;
  ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  ZydisFormatter fmt;
  ZydisFormatterInit(&fmt, ZYDIS_FORMATTER_STYLE_INTEL);
  ZydisFormatterSetProperty(&fmt, ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE);
  size_t off = 0;
  while (off < n) {
    ZydisDecodedInstruction ins;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    ListedInst d;
    d.offset = off;
    size_t length = 1;
    if (ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code + off, n - off, &ins, ops))) {
      char text[256];
      if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&fmt, &ins, ops, ins.operand_count_visible, text,
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
