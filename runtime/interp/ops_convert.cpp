// Interpreter: the convert op family (to be filled in).
#include "exec.h"

namespace ptoas::rt {

void register_convert_ops(HandlerTable&) {}

}  // namespace ptoas::rt
