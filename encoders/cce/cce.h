// The CCE backend's entry points (target.cpp registers them): one
// function's C++ (cce_lower.cpp) and the file around the functions
// (cce_module.cpp).
#pragma once
#include "codegen.h"

namespace ptoas::cg::cce {

bool compile_function(const Module& m, InstId fn, const Target& t, const CodegenOptions& o, FuncCode& out,
                      Diag& diag);
bool build_output(const Module& m, const ModuleCode& code, Output& out, std::string& err);

// The kernel entry: a function with an entry attribute (Module::
// has_entry_attr), else the only definition of the module (0.27's rule; C++
// needs a __global__ kernel).
bool is_entry(const Module& m, InstId fn);
bool is_private(const Module& m, InstId fn);

}  // namespace ptoas::cg::cce
