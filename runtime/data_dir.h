// Where ptoas finds its data files at run time: the SVE loader that qemu
// runs, the CPU model's headers that the CCE runner compiles against.
//
// No path of the build machine is compiled in: the files are looked for in
// share/ptoas/ under the nearest ancestor of the running program's
// directory that has one (bin/.. in an installed tree, build/ in the build
// tree, which the build lays out the same way), so an installed tree works
// from any prefix. $PTOAS_DATA_DIR, when set, is used instead.
#pragma once
#include <string>
#include <string_view>

namespace ptoas::rt {

// The path of `rel` under the data directory, or "" when no data
// directory holds it (`where`, if given, says where it was looked for).
std::string data_path(std::string_view rel, std::string* where = nullptr);

}  // namespace ptoas::rt
