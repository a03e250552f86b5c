// sve's shape for ptoas's proxy (target.h, PluginShape).
#include "sve/shape.h"

namespace ptoas::cg {

std::vector<PluginShape> sve_shapes() { return {{&sve::kShape, sve::kHooks}}; }

}  // namespace ptoas::cg
