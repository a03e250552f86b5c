// A kernel made ready to launch on one target: what ptorun does between
// reading the .pto and binding the arguments, shared with the C API
// (capi/ptort.h). Native x86 or SVE code is JIT-loaded (or imaged for Bochs /
// qemu-aarch64 when this CPU lacks the extensions), cce is compiled with g++
// against the CPU model, ptx runs on a GPU or the PTX interpreter, amdgpu on
// the AMDGPU interpreter; interp needs nothing.
#pragma once
#include <string>
#include <vector>

#include "amdgpu_run.h"
#include "cce_build.h"
#include "codegen.h"
#include "diag.h"
#include "ir.h"
#include "jit.h"
#include "launch.h"
#include "ptx_run.h"

namespace ptoas::rt {

struct PrepareOptions {
  std::string target = "interp";  // "interp" or a registered target
  cg::CodegenOptions codegen;
  unsigned sve_vl_bits = 0;  // sve under qemu (0: $SVE_VL, else the default)
  double timeout_s = 0;      // the interpreters' limit (ptx, amdgpu); 0: none
  bool force_bochs = false;  // x86: run under Bochs even where this CPU could run it
  // ptx: run this PTX text instead of ptoas's (named ptx_name in messages).
  const std::string* ptx_text = nullptr;
  std::string ptx_name = "kernel.ptx";
};

// The runners' state; not copyable (the JIT's pages, the loaded objects).
// One PreparedKernel serves any number of launches.
struct PreparedKernel {
  const cg::Target* target = nullptr;  // null: the interpreter
  JitKernel jit;
  CceKernel cce;
  CceLaunch cce_launch;
  std::string cce_cpp;  // cce: the C++ the model runs
  PtxKernel ptx;
  AmdgpuKernel amdgpu;
  // Where the kernel runs, when it is not where the target name says (an
  // emulator, an interpreter standing in for a GPU): one line each, without
  // a program prefix, for the caller to print.
  std::vector<std::string> notes;

  PreparedKernel() = default;
  PreparedKernel(const PreparedKernel&) = delete;
  PreparedKernel& operator=(const PreparedKernel&) = delete;

  // Sets the request's runner (native, run_blocks) to this kernel's.
  void bind(LaunchRequest& req) const;
};

// Why prepare_kernel failed, for a caller that maps failures to exit codes.
enum class PrepareFailure : uint8_t {
  None,
  Usage,     // a bad option value (the environment's PTOAS_PTX_RUNNER)
  Program,   // the program or the target refused it (diag or err says why)
  Missing,   // a tool this needs is absent (Bochs, qemu-user, g++)
};

// Checks that `o.target` can run here, and builds `fn` of `m` for it
// (`m` already optimized for that target). On failure returns false with
// the located errors in `diag` and any others in `err` (one per line).
bool prepare_kernel(Module& m, InstId fn, const PrepareOptions& o, PreparedKernel& k, Diag& diag,
                    std::string& err, PrepareFailure* why = nullptr);

// The target that optimizes a module for `target_name` ("interp" optimizes
// as avx2 does, so that -O0 against -O2 there checks the IR x86 runs); null
// with a message when the name is unknown or ptorun cannot run that target.
const cg::Target* runnable_target(const std::string& target_name, bool have_ptx_text, std::string& err);

}  // namespace ptoas::rt
