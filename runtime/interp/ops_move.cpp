// Interpreter: the move op family (to be filled in).
#include "exec.h"

namespace ptoas::rt {

void register_move_ops(HandlerTable&) {}

}  // namespace ptoas::rt
