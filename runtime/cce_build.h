// A module to a loaded CCE kernel on the CPU model (ptorun --target=cce,
// the execution differential): the sync pass (skipped where the program
// has its own flags), the CCE backend's C++, g++ against the model's
// headers (cce_run.h). One path, so both tools run the C++ ptoas writes.
#pragma once
#include <string>

#include "cce_run.h"
#include "diag.h"
#include "ir.h"

namespace ptoas::rt {

// Inserts sync into m (opt/sync.h) unless `insert_sync` is false, emits
// the C++ of m for -target=cce, and compiles and loads it as `fn`'s kernel
// (o.entry is set from fn). False with the located diagnostics in `diag`
// (refusals, sync errors) or a message in `err` (g++, loading).
bool cce_build(Module& m, InstId fn, bool insert_sync, CceRunOptions& o, CceKernel& k, Diag& diag,
               std::string& err, std::string* cpp_out = nullptr);

// LaunchRequest::run_blocks for a CceKernel: `ctx` is a CceLaunch.
struct CceLaunch {
  CceKernel* kernel = nullptr;
  CceRunOptions options;
};
bool cce_run_blocks(void* ctx, const std::vector<Arg>& args, int64_t blocks, std::string& err);

}  // namespace ptoas::rt
