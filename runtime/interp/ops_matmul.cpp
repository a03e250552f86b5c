// Interpreter: the matmul op family (to be filled in).
#include "exec.h"

namespace ptoas::rt {

void register_matmul_ops(HandlerTable&) {}

}  // namespace ptoas::rt
