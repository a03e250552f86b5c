// The CUDA driver API, loaded at run time: dlopen("libcuda.so.1") and
// dlsym of the entry points (their versioned _v2 names), so that nothing
// of CUDA is needed to build the project. Runs a PTX module's entry on the
// first GPU: the device's primary context, cuModuleLoadDataEx with the JIT
// info and error logs, device buffers for the kernel's pointers (copied in
// before the launch and back after it), cuLaunchKernel, cuCtxSynchronize.
// notes/GPU_NOTES.md §5 has the sequence and the JIT-option pitfalls.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ptoas::rt::cuda {

// One kernel parameter: a pointer into a host buffer (its device copy is
// passed), or a value of `bytes` bytes.
struct Param {
  bool pointer = false;
  uint8_t* host = nullptr;  // pointer: the host buffer it points into
  uint64_t bits = 0;        // value
  unsigned bytes = 8;
};

// A host buffer the kernel may reach (pointer parameters point into these).
struct HostBuffer {
  uint8_t* data = nullptr;
  size_t bytes = 0;
};

struct Device {
  std::string name;
  int sm = 0;              // compute capability, e.g. 90
  int driver_version = 0;  // e.g. 12080
};

// True when the CUDA driver loads and has a device; `why` says what is
// missing otherwise ("libcuda.so.1: cannot open shared object file", "no
// CUDA device", a cuInit error). Cached after the first call.
bool available(Device* dev, std::string& why);

struct RunResult {
  std::string jit_info;   // the JIT's info log (registers, spills, ...)
  int regs = 0;           // cuFuncGetAttribute NUM_REGS
  int local_bytes = 0;    // LOCAL_SIZE_BYTES (spills)
  double seconds = 0;     // launch to synchronize
};

// Loads `ptx`, runs `entry` over grid x block with `params` and
// `dynamic_shared` bytes of dynamic shared memory (over 48 KiB: opted in
// with cuFuncSetAttribute), and copies every buffer back. False with `err`
// (the JIT error log for PTX the driver rejects; cuGetErrorName/String for
// the rest).
bool run(const std::string& ptx, const std::string& entry, const unsigned grid[3], const unsigned block[3],
         unsigned dynamic_shared, const std::vector<Param>& params, const std::vector<HostBuffer>& buffers,
         RunResult& res, std::string& err);

}  // namespace ptoas::rt::cuda
