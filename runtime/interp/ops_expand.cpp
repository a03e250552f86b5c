// Interpreter: the expand op family (to be filled in).
#include "exec.h"

namespace ptoas::rt {

void register_expand_ops(HandlerTable&) {}

}  // namespace ptoas::rt
