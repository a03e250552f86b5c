// Running a kernel's AMDGPU code (ptorun --target=amdgpu, the execution
// differential, samples/runop.sh -target=amdgpu): the code object ptoas
// writes for the function (CodegenOptions: --gpu-arch) runs on the
// project's AMDGPU interpreter (runtime/amdgpu, docs/amdgpu_interpreter.md),
// or on an AMD GPU through HIP in a build with PTOAS_HIP_LOADER
// (runtime/hip_driver.h; PTOAS_AMDGPU_RUNNER=interp|hip|auto chooses, unset:
// auto). No machine here has an AMD GPU; the launch is the kernel ABI of
// docs/amdgpu_backend.md: the kernarg segment holds the parameters at their
// PTX offsets and the hidden block count, the grid is blocks workgroups of
// the kernel's workgroup size.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "amdgpu/amdgpu_emu.h"
#include "codegen.h"
#include "diag.h"
#include "interp.h"
#include "ir.h"

namespace ptoas::rt {

struct AmdgpuKernel {
  std::string entry;
  std::string chip;
  std::vector<uint8_t> hsaco;
  std::unique_ptr<amdgpu_emu::Program> program;
  std::vector<DType> param_types;
  std::vector<uint32_t> offset, size;  // each parameter's place in the kernarg segment
  uint32_t block_count_off = 0, kernarg_bytes = 0;
  // Tiles past the LDS: a zeroed global buffer of this many bytes per
  // workgroup, its pointer at tile_scratch_off (0 bytes: none).
  uint32_t tile_scratch_off = 0, tile_scratch_bytes = 0;
  unsigned workgroup = 256;
  bool on_gpu = false;  // through HIP (the interpreter still loads the object: its chip, its check)
  std::string where = "the project's AMDGPU interpreter";
  double timeout_s = 0;
  amdgpu_emu::Stats stats;
};

// Compiles fn for amdgpu (its code object), loads it into the interpreter,
// and chooses where it runs (PTOAS_AMDGPU_RUNNER; hip without a device, or
// in a build without the loader, fails). False with located diagnostics in
// `diag` (refusals) or a message in `err`.
bool amdgpu_build(Module& m, InstId fn, const cg::CodegenOptions& o, AmdgpuKernel& k, Diag& diag, std::string& err);

// LaunchRequest::run_blocks for an AmdgpuKernel (`ctx`): runs blocks 0..n-1.
bool amdgpu_run_blocks(void* ctx, const std::vector<Arg>& args, int64_t blocks, std::string& err);

}  // namespace ptoas::rt
