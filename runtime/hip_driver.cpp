// The HIP runtime through dlopen (hip_driver.h). Compiled in every build so
// that it keeps compiling; without PTOAS_HIP_LOADER it never opens the
// library and says so.
#include "hip_driver.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <numeric>

#ifndef PTOAS_HIP_LOADER
#define PTOAS_HIP_LOADER 0
#endif

namespace ptoas::rt::hip {

namespace {

constexpr bool kBuilt = PTOAS_HIP_LOADER != 0;

// HIP's C ABI, declared here rather than included (no ROCm at build time).
// hipError_t is a C enum (int); hipDevice_t is int; the handles are opaque
// pointers.
using HipError = int;
struct HipModuleSt;
struct HipFunctionSt;
using HipModule = HipModuleSt*;
using HipFunction = HipFunctionSt*;

// Values checked against ROCm's public headers (ROCm/HIP on GitHub):
// include/hip/amd_detail/hip_runtime_api.h defines the launch-buffer markers
// HIP_LAUNCH_PARAM_BUFFER_POINTER, _BUFFER_SIZE and _END as the pointers 1,
// 2 and 3, and include/hip/driver_types.h numbers hipMemcpyKind with
// HostToDevice 1 and DeviceToHost 2. hipModuleLaunchKernel's `extra` takes
// them in that order (pointer, size, end), the size by address.
void* const kParamBufferPointer = reinterpret_cast<void*>(uintptr_t(1));
void* const kParamBufferSize = reinterpret_cast<void*>(uintptr_t(2));
void* const kParamEnd = reinterpret_cast<void*>(uintptr_t(3));
constexpr int kHostToDevice = 1, kDeviceToHost = 2;

struct Api {
  void* lib = nullptr;
  HipError (*hipInit)(unsigned) = nullptr;
  HipError (*hipGetDeviceCount)(int*) = nullptr;
  HipError (*hipSetDevice)(int) = nullptr;
  HipError (*hipDeviceGetName)(char*, int, int) = nullptr;
  HipError (*hipDeviceComputeCapability)(int*, int*, int) = nullptr;
  HipError (*hipRuntimeGetVersion)(int*) = nullptr;
  HipError (*hipModuleLoadData)(HipModule*, const void*) = nullptr;
  HipError (*hipModuleUnload)(HipModule) = nullptr;
  HipError (*hipModuleGetFunction)(HipFunction*, HipModule, const char*) = nullptr;
  HipError (*hipModuleLaunchKernel)(HipFunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    void*, void**, void**) = nullptr;
  HipError (*hipMalloc)(void**, size_t) = nullptr;
  HipError (*hipFree)(void*) = nullptr;
  HipError (*hipMemcpy)(void*, const void*, size_t, int) = nullptr;
  HipError (*hipDeviceSynchronize)() = nullptr;
  const char* (*hipGetErrorName)(HipError) = nullptr;
  const char* (*hipGetErrorString)(HipError) = nullptr;
  HipDevice dev;
  bool ok = false;
  std::string why;
};

Api g_api;
std::once_flag g_once;

// Resolves `name` into `fn`; a missing one is added to `missing`.
template <class F>
void sym(void* lib, const char* name, F& fn, std::string& missing) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(name);
}

std::string error_text(const Api& a, HipError r) {
  const char* name = a.hipGetErrorName ? a.hipGetErrorName(r) : nullptr;
  const char* str = a.hipGetErrorString ? a.hipGetErrorString(r) : nullptr;
  return std::string(name ? name : "HIP error " + std::to_string(r)) + (str ? std::string(" (") + str + ")" : "");
}

void load(Api& a) {
  // The unversioned name is what a ROCm install's ldconfig provides; the
  // versioned ones are what a runtime-only package may ship.
  std::string first;
  for (const char* name : {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"}) {
    a.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (a.lib) break;
    const char* e = dlerror();
    if (first.empty()) first = e ? e : name;
  }
  if (!a.lib) {
    a.why = "the HIP runtime is not installed: libamdhip64.so was not found (" + first + ")";
    return;
  }
  std::string missing;
  sym(a.lib, "hipInit", a.hipInit, missing);
  sym(a.lib, "hipGetDeviceCount", a.hipGetDeviceCount, missing);
  sym(a.lib, "hipSetDevice", a.hipSetDevice, missing);
  sym(a.lib, "hipDeviceGetName", a.hipDeviceGetName, missing);
  sym(a.lib, "hipDeviceComputeCapability", a.hipDeviceComputeCapability, missing);
  sym(a.lib, "hipRuntimeGetVersion", a.hipRuntimeGetVersion, missing);
  sym(a.lib, "hipModuleLoadData", a.hipModuleLoadData, missing);
  sym(a.lib, "hipModuleUnload", a.hipModuleUnload, missing);
  sym(a.lib, "hipModuleGetFunction", a.hipModuleGetFunction, missing);
  sym(a.lib, "hipModuleLaunchKernel", a.hipModuleLaunchKernel, missing);
  sym(a.lib, "hipMalloc", a.hipMalloc, missing);
  sym(a.lib, "hipFree", a.hipFree, missing);
  sym(a.lib, "hipMemcpy", a.hipMemcpy, missing);
  sym(a.lib, "hipDeviceSynchronize", a.hipDeviceSynchronize, missing);
  sym(a.lib, "hipGetErrorName", a.hipGetErrorName, missing);
  sym(a.lib, "hipGetErrorString", a.hipGetErrorString, missing);
  if (!missing.empty()) {
    a.why = "libamdhip64 lacks entry points this runner uses: " + missing;
    return;
  }
  HipError r = a.hipInit(0);
  if (r) {
    a.why = "hipInit failed: " + error_text(a, r);
    return;
  }
  int n = 0;
  if ((r = a.hipGetDeviceCount(&n)) || n == 0) {
    a.why = r ? "hipGetDeviceCount failed: " + error_text(a, r) : "no AMD GPU (hipGetDeviceCount: 0)";
    return;
  }
  char name[256] = {};
  if ((r = a.hipSetDevice(0)) || (r = a.hipDeviceGetName(name, sizeof name - 1, 0)) ||
      (r = a.hipDeviceComputeCapability(&a.dev.major, &a.dev.minor, 0))) {
    a.why = "querying device 0 failed: " + error_text(a, r);
    return;
  }
  a.hipRuntimeGetVersion(&a.dev.runtime_version);
  a.dev.name = name;
  a.ok = true;
}

// One device allocation per group of overlapping host buffers (the same
// array bound twice), so that writes through either pointer meet.
struct Region {
  uint8_t* host = nullptr;
  size_t bytes = 0;
  void* dev = nullptr;
};

std::vector<Region> regions_of(const std::vector<HostBuffer>& buffers, std::vector<size_t>& region_of) {
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return buffers[x].data < buffers[y].data; });
  std::vector<Region> regions;
  region_of.assign(buffers.size(), 0);
  for (size_t i : order) {
    const HostBuffer& b = buffers[i];
    Region* last = regions.empty() ? nullptr : &regions.back();
    if (last && b.data <= last->host + last->bytes) {
      last->bytes = std::max(last->bytes, size_t(b.data + b.bytes - last->host));
    } else {
      regions.push_back({b.data, b.bytes, nullptr});
    }
    region_of[i] = regions.size() - 1;
  }
  return regions;
}

}  // namespace

bool hip_loader_built() { return kBuilt; }

bool hip_available(HipDevice* dev, std::string& why) {
  if (!kBuilt) {
    why = "this build has no HIP loader (configure with -DPTOAS_HIP_LOADER=ON)";
    return false;
  }
  std::call_once(g_once, [] { load(g_api); });
  if (!g_api.ok) {
    why = g_api.why;
    return false;
  }
  if (dev) *dev = g_api.dev;
  return true;
}

bool hip_run(const std::vector<uint8_t>& hsaco, const std::string& kernel, std::vector<uint8_t> kernarg,
             unsigned grid_x, unsigned block_x, const std::vector<HostBuffer>& buffers, RunResult& res,
             std::string& err) {
  if (!hip_available(nullptr, err)) return false;
  Api& a = g_api;
  HipError r = a.hipSetDevice(0);
  if (r) {
    err = "hipSetDevice(0): " + error_text(a, r);
    return false;
  }
  HipModule mod = nullptr;
  if ((r = a.hipModuleLoadData(&mod, hsaco.data()))) {
    err = "hipModuleLoadData: " + error_text(a, r);
    return false;
  }
  std::vector<size_t> region_of;
  std::vector<Region> regions = regions_of(buffers, region_of);
  // Errors after a failed kernel may poison these too: nothing to report.
  struct Cleanup {
    Api& a;
    HipModule mod;
    std::vector<Region>& regions;
    ~Cleanup() {
      for (Region& g : regions)
        if (g.dev) a.hipFree(g.dev);
      a.hipModuleUnload(mod);
    }
  } clean{a, mod, regions};
  HipFunction fn = nullptr;
  if ((r = a.hipModuleGetFunction(&fn, mod, kernel.c_str()))) {
    err = "hipModuleGetFunction(" + kernel + "): " + error_text(a, r);
    return false;
  }
  for (Region& g : regions) {
    // hipMalloc(0) may give a null pointer, which the kernel would see as
    // a null argument.
    if ((r = a.hipMalloc(&g.dev, std::max<size_t>(g.bytes, 1)))) {
      err = "hipMalloc(" + std::to_string(g.bytes) + " bytes): " + error_text(a, r);
      return false;
    }
    if (g.bytes && (r = a.hipMemcpy(g.dev, g.host, g.bytes, kHostToDevice))) {
      err = "hipMemcpy(host to device, " + std::to_string(g.bytes) + " bytes): " + error_text(a, r);
      return false;
    }
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    const HostBuffer& b = buffers[i];
    const Region& g = regions[region_of[i]];
    uint64_t host = 0;
    if (size_t(b.kernarg_offset) + 8 > kernarg.size()) {
      err = "a buffer's pointer at kernarg offset " + std::to_string(b.kernarg_offset) + " is past the " +
            std::to_string(kernarg.size()) + "-byte kernarg segment";
      return false;
    }
    std::memcpy(&host, kernarg.data() + b.kernarg_offset, 8);
    uint64_t lo = reinterpret_cast<uint64_t>(g.host);
    if (host < lo || host > lo + g.bytes) {
      err = "the pointer at kernarg offset " + std::to_string(b.kernarg_offset) + " is not in its buffer";
      return false;
    }
    uint64_t dev = reinterpret_cast<uint64_t>(g.dev) + (host - lo);
    std::memcpy(kernarg.data() + b.kernarg_offset, &dev, 8);
  }
  size_t kernarg_bytes = kernarg.size();
  void* extra[] = {kParamBufferPointer, kernarg.data(), kParamBufferSize, &kernarg_bytes, kParamEnd};
  auto t0 = std::chrono::steady_clock::now();
  if ((r = a.hipModuleLaunchKernel(fn, grid_x, 1, 1, block_x, 1, 1, 0, nullptr, nullptr, extra))) {
    err = "hipModuleLaunchKernel(" + kernel + ", " + std::to_string(grid_x) + " x " + std::to_string(block_x) +
          "): " + error_text(a, r);
    return false;
  }
  if ((r = a.hipDeviceSynchronize())) {
    err = "the kernel failed on the GPU (hipDeviceSynchronize): " + error_text(a, r);
    return false;
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const Region& g : regions)
    if (g.bytes && (r = a.hipMemcpy(g.host, g.dev, g.bytes, kDeviceToHost))) {
      err = "hipMemcpy(device to host, " + std::to_string(g.bytes) + " bytes): " + error_text(a, r);
      return false;
    }
  return true;
}

}  // namespace ptoas::rt::hip
