// The CCE backend's entry points (target.cpp registers them): one
// function's C++ (cce_lower.cpp) and the file around the functions
// (cce_module.cpp).
#pragma once
#include "codegen.h"

namespace ptoas::cg::cce {

bool compile_function(const Module& m, InstId fn, const Target& t, const CodegenOptions& o, FuncCode& out,
                      Diag& diag);
bool build_output(const Module& m, const ModuleCode& code, Output& out, std::string& err);

// The kernel entry: the function with pto.entry (or hacc.entry), else the
// only definition of the module (the official tool's rule).
bool is_entry(const Module& m, InstId fn);
bool is_private(const Module& m, InstId fn);

}  // namespace ptoas::cg::cce
