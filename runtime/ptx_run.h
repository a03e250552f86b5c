// Running a kernel's PTX (ptorun --target=ptx, the execution differential,
// samples/runop.sh -target=ptx): the PTX ptoas generates for the function
// (CodegenOptions: --gpu-arch) runs on an NVIDIA GPU through the CUDA
// driver when one is present (runtime/cuda_driver.h), else on the project's
// PTX interpreter (runtime/ptx, docs/ptx_interpreter.md). The launch is the
// kernel ABI of /work/PTX_CONTRACT.md: parameters in order, grid = blocks,
// the block size from the entry's .reqntid.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "codegen.h"
#include "diag.h"
#include "interp.h"
#include "ir.h"
#include "ptx/ptx.h"

namespace ptoas::rt {

enum class PtxRunner : uint8_t { Auto, Interp, Gpu };

// PTOAS_PTX_RUNNER: interp, gpu or auto (unset: auto). False with a
// message for any other value.
bool ptx_runner_from_env(PtxRunner& r, std::string& err);

struct PtxKernel {
  std::string text;                      // the PTX
  std::string name = "kernel.ptx";       // in the interpreter's messages
  std::string entry;                     // the function's name
  std::unique_ptr<ptx::Program> program;  // parsed (the block size comes from it on a GPU too)
  std::vector<DType> param_types;        // the function's parameters (scalars' encodings)
  bool on_gpu = false;
  std::string where;                     // "the PTX interpreter" / "NVIDIA H200 (sm_90)"
  double timeout_s = 0;                  // the interpreter's time limit (0: none)
  // After a run: the interpreter's counts, or the GPU's JIT report.
  ptx::LaunchStats stats;
  std::string gpu_report;
};

// Makes fn's PTX (or takes `ptx_text` when it is not null: ptorun --ptx),
// parses it and chooses where it runs (`runner`; Gpu fails without a GPU).
// `why_not_gpu` says why an Auto choice fell back to the interpreter.
// False with located diagnostics in `diag` (refusals) or a message in `err`.
bool ptx_build(Module& m, InstId fn, const cg::CodegenOptions& o, PtxRunner runner, PtxKernel& k, Diag& diag,
               std::string& err, const std::string* ptx_text = nullptr, std::string* why_not_gpu = nullptr);

// LaunchRequest::run_blocks for a PtxKernel (`ctx`): runs blocks 0..n-1.
bool ptx_run_blocks(void* ctx, const std::vector<Arg>& args, int64_t blocks, std::string& err);

}  // namespace ptoas::rt
