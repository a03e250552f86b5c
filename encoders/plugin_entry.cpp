// The entry points of libptoas_llvm.so (plugin_abi.h): the whole of
// libptoas_codegen, LLVM's MC layers with it, loaded by ptoas's proxy
// descriptors (plugin_proxy.cpp) for the targets whose backends need LLVM.
#include "plugin_abi.h"
#include "target.h"

extern "C" {

__attribute__((visibility("default"))) uint64_t ptoas_plugin_abi() { return ptoas::cg::kPluginAbi; }

__attribute__((visibility("default"))) const ptoas::cg::Target* ptoas_plugin_target(const char* name) {
  return ptoas::cg::find_target(name);
}

}
