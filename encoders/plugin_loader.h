// Opening ptoas's plugins (lib/ptoas/*.so): the LLVM backends
// (libptoas_llvm.so, plugin_proxy.cpp) and the AMDGPU linker
// (libptoas_lld.so, amdgpu/lld_loader.cpp). A plugin is looked for in
// lib/ptoas/ beside the program's directory (build/lib/ptoas in the build
// tree, where the programs are in build/) or above it (P/lib/ptoas of an
// install, the programs in P/bin): no path of the build machine is
// compiled in.
#pragma once
#include <string>

namespace ptoas::cg {

// The address of `symbol` in plugin `file` ("libptoas_llvm.so"), opened
// on first use and never closed; nullptr with `err` saying why (not
// installed: the paths tried; not loadable: the loader's message).
void* plugin_symbol(const char* file, const char* symbol, std::string& err);

}  // namespace ptoas::cg
