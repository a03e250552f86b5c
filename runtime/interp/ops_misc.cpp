// Interpreter: the misc op family (to be filled in).
#include "exec.h"

namespace ptoas::rt {

void register_misc_ops(HandlerTable&) {}

}  // namespace ptoas::rt
