// Interpreter: the elementwise op family (to be filled in).
#include "exec.h"

namespace ptoas::rt {

void register_elementwise_ops(HandlerTable&) {}

}  // namespace ptoas::rt
