// x86-64 instructions for ptodis (decoders.h), Zydis 4 in Intel syntax with
// RIP-relative operands shown relative (the object is not linked yet).
#include <Zydis/Zydis.h>

#include <cstdio>
#include <memory>

#include "decoders.h"

namespace ptoas::dis {

namespace {
struct Zydis {
  ZydisDecoder dec;
  ZydisFormatter fmt;
};
}  // namespace

DecodeFn x86_decoder() {
  auto z = std::make_shared<Zydis>();
  ZydisDecoderInit(&z->dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  ZydisFormatterInit(&z->fmt, ZYDIS_FORMATTER_STYLE_INTEL);
  ZydisFormatterSetProperty(&z->fmt, ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE);
  return [z](const uint8_t* p, uint64_t n, uint64_t pc, std::string& text, unsigned& len) {
    ZydisDecodedInstruction ins;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&z->dec, p, n, &ins, ops))) return false;
    char t[256];
    if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&z->fmt, &ins, ops, ins.operand_count_visible, t, sizeof t,
                                                       pc, nullptr)))
      std::snprintf(t, sizeof t, "(unformattable)");
    text = t;
    len = ins.length;
    return true;
  };
}

}  // namespace ptoas::dis
