// amdgpu's shape for ptoas's proxy (target.h, PluginShape).
#include "amdgpu/shape.h"

namespace ptoas::cg {

std::vector<PluginShape> amdgpu_shapes() { return {{&amdgpu::kShape, amdgpu::kHooks}}; }

}  // namespace ptoas::cg
