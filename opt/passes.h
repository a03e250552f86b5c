// Internal to opt/: what every pass gets, and each pass's entry point
// (one pass per file; the pass list is in pipeline.cpp).
#pragma once
#include <string>

#include "opt.h"

namespace ptoas::opt {

struct PassContext {
  const Options& opts;
  const TargetDesc& target;
  Diag& diag;
};

bool pass_fold(Module& m, const PassContext& c);       // fold.cpp
bool pass_cse(Module& m, const PassContext& c);        // cse.cpp
bool pass_dce(Module& m, const PassContext& c);        // dce.cpp
bool pass_simplify(Module& m, const PassContext& c);   // simplify.cpp
bool pass_copy_prop(Module& m, const PassContext& c);  // copy_prop.cpp
bool pass_forward(Module& m, const PassContext& c);    // forward.cpp
bool pass_fuse(Module& m, const PassContext& c);       // fuse.cpp

// The --stats lines for every function (stats.cpp).
std::string function_stats(const Module& m, const char* when);

}  // namespace ptoas::opt
