// The directory of the running program (/proc/self/exe), for what is found
// relative to it rather than at a path of the build machine: runtime data
// (runtime/data_dir.h) and ptoas's linker plugin (encoders/amdgpu).
#pragma once
#include <string>

namespace ptoas {

// "" when it cannot be read.
std::string program_dir();

}  // namespace ptoas
