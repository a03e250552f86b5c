// The HIP runtime, loaded at run time: dlopen("libamdhip64.so") and dlsym
// of the few entry points used, so that nothing of ROCm is needed to build
// the project. Runs an AMDGPU code object's kernel on the first AMD GPU:
// hipModuleLoadData, device copies of the host buffers (the pointers in the
// kernarg segment rewritten to them), hipModuleLaunchKernel with the whole
// kernarg segment as one buffer, hipDeviceSynchronize, copies back.
// Reachable only in a build configured with -DPTOAS_HIP_LOADER=ON; never run
// on AMD hardware (docs/amdgpu_backend.md, "The HIP loader").
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ptoas::rt::hip {

// A host buffer the kernel reaches through the pointer stored at
// `kernarg_offset` in the kernarg segment (8 bytes, little-endian, pointing
// into [data, data + bytes]).
struct HostBuffer {
  uint8_t* data = nullptr;
  size_t bytes = 0;
  uint32_t kernarg_offset = 0;
};

struct HipDevice {
  std::string name;          // hipDeviceGetName, e.g. "AMD Instinct MI300X"
  int major = 0, minor = 0;  // hipDeviceComputeCapability: the gfx IP version
  int runtime_version = 0;   // hipRuntimeGetVersion
};

struct RunResult {
  double seconds = 0;  // launch to synchronize
};

// Whether this build can reach HIP at all (PTOAS_HIP_LOADER).
bool hip_loader_built();

// True when libamdhip64 loads and has a device; `why` says what is missing
// otherwise (a build without the loader, the library not found, an
// hipInit error, no device). Cached after the first call. The device's gfx
// target (gcnArchName) is not read: only hipGetDeviceProperties has it,
// and its struct layout changes between ROCm releases.
bool hip_available(HipDevice* dev, std::string& why);

// Loads `hsaco`, runs `kernel` over grid_x workgroups of block_x
// work-items with `kernarg` (its buffer pointers rewritten to the device
// copies), and copies every buffer back. False with `err` naming the HIP
// call that failed and its error (hipGetErrorName / hipGetErrorString).
bool hip_run(const std::vector<uint8_t>& hsaco, const std::string& kernel, std::vector<uint8_t> kernarg,
             unsigned grid_x, unsigned block_x, const std::vector<HostBuffer>& buffers, RunResult& res,
             std::string& err);

}  // namespace ptoas::rt::hip
