// The C interface of libptoas_llvm.so (plugin_entry.cpp), which ptoas's
// proxy descriptors (plugin_proxy.cpp) call. The two sides pass C++
// objects (Module, Target, FuncCode, Diag, ...) to each other, so they must
// come from the same build: kPluginAbi, a fingerprint of the version and
// of those types' sizes, is compared before anything else is called.
#pragma once
#include <cstdint>
#include <string_view>

#include "codegen.h"
#include "object_file.h"

namespace ptoas::cg {

inline constexpr const char* kLlvmPlugin = "libptoas_llvm.so";

constexpr uint64_t plugin_abi() {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the version, then the sizes
  auto mix = [&h](uint64_t v) {
    h ^= v;
    h *= 1099511628211ull;
  };
  for (char c : std::string_view(PTOAS_VERSION)) mix(uint8_t(c));
  for (uint64_t s : {sizeof(Module), sizeof(Inst), sizeof(Diag), sizeof(SourceFile), sizeof(Target),
                     sizeof(CodegenOptions), sizeof(FuncCode), sizeof(ModuleCode), sizeof(Output),
                     sizeof(ListedInst), sizeof(std::string), sizeof(std::vector<uint8_t>)})
    mix(s);
  return h;
}

inline constexpr uint64_t kPluginAbi = plugin_abi();

}  // namespace ptoas::cg

extern "C" {
// The plugin's kPluginAbi.
using PtoasPluginAbi = uint64_t (*)();
// The plugin's descriptor of the target called `name`, or nullptr.
using PtoasPluginTarget = const ptoas::cg::Target* (*)(const char* name);
}
