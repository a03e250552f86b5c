// Printable token-kind names for messages and for the Bison checker.
#include "token.h"

namespace ptoas {

const char* tok_name(Tok t) {
  // ORDER TOK
  static const char* const kNames[] = {
      "end of file", "invalid character", "value definition", "induction variable",
      "value", "operation name", "generic operation", "identifier", "attribute",
      "type", "symbol", "block label", "block reference", "integer", "float", "hex literal", "string",
      "shape", "'('", "')'", "'['", "']'", "'{'", "'}'", "'<'", "'>'", "','", "':'",
      "'='", "'->'", "'?'"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == size_t(Tok::Count));
  return t < Tok::Count ? kNames[size_t(t)] : "?";
}

}  // namespace ptoas
