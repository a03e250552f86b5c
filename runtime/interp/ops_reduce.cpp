// Interpreter: the reduce op family (to be filled in).
#include "exec.h"

namespace ptoas::rt {

void register_reduce_ops(HandlerTable&) {}

}  // namespace ptoas::rt
