// The CUDA driver through dlopen (cuda_driver.h).
#include "cuda_driver.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>

namespace ptoas::rt::cuda {

namespace {

// The driver API's types, as cuda.h declares them (ABI only).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUstream = CUstream_st*;

// cuda.h 13.0 enum values used here.
constexpr int kAttrCcMajor = 75, kAttrCcMinor = 76;          // CUdevice_attribute
constexpr int kFuncNumRegs = 4, kFuncLocalBytes = 3, kFuncMaxDynamicShared = 8;  // CUfunction_attribute
constexpr int kJitInfoLog = 3, kJitInfoLogSize = 4, kJitErrorLog = 5, kJitErrorLogSize = 6, kJitLogVerbose = 12,
              kJitLineInfo = 13;                              // CUjit_option

struct Api {
  void* lib = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuFuncGetAttribute)(int*, int, CUfunction) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                             void**, void**) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUcontext ctx = nullptr;
  Device dev;
  bool ok = false;
  std::string why;
};

Api g_api;
std::once_flag g_once;

template <class F>
bool sym(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

std::string error_text(const Api& a, CUresult r) {
  const char* name = nullptr;
  const char* str = nullptr;
  if (a.cuGetErrorName) a.cuGetErrorName(r, &name);
  if (a.cuGetErrorString) a.cuGetErrorString(r, &str);
  return std::string(name ? name : "CUDA error " + std::to_string(r)) + (str ? std::string(" (") + str + ")" : "");
}

void load(Api& a) {
  a.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!a.lib) {
    const char* e = dlerror();
    std::string first = e ? e : "libcuda.so.1 not found";
    a.lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!a.lib) {
      a.why = "the CUDA driver is not installed (" + first + ")";
      return;
    }
  }
  bool all = sym(a.lib, "cuInit", a.cuInit) && sym(a.lib, "cuDriverGetVersion", a.cuDriverGetVersion) &&
             sym(a.lib, "cuDeviceGetCount", a.cuDeviceGetCount) && sym(a.lib, "cuDeviceGet", a.cuDeviceGet) &&
             sym(a.lib, "cuDeviceGetName", a.cuDeviceGetName) &&
             sym(a.lib, "cuDeviceGetAttribute", a.cuDeviceGetAttribute) &&
             sym(a.lib, "cuDevicePrimaryCtxRetain", a.cuDevicePrimaryCtxRetain) &&
             sym(a.lib, "cuCtxSetCurrent", a.cuCtxSetCurrent) &&
             sym(a.lib, "cuModuleLoadDataEx", a.cuModuleLoadDataEx) &&
             sym(a.lib, "cuModuleUnload", a.cuModuleUnload) &&
             sym(a.lib, "cuModuleGetFunction", a.cuModuleGetFunction) &&
             sym(a.lib, "cuFuncGetAttribute", a.cuFuncGetAttribute) &&
             sym(a.lib, "cuFuncSetAttribute", a.cuFuncSetAttribute) && sym(a.lib, "cuMemAlloc_v2", a.cuMemAlloc) &&
             sym(a.lib, "cuMemFree_v2", a.cuMemFree) && sym(a.lib, "cuMemcpyHtoD_v2", a.cuMemcpyHtoD) &&
             sym(a.lib, "cuMemcpyDtoH_v2", a.cuMemcpyDtoH) && sym(a.lib, "cuLaunchKernel", a.cuLaunchKernel) &&
             sym(a.lib, "cuCtxSynchronize", a.cuCtxSynchronize) && sym(a.lib, "cuGetErrorName", a.cuGetErrorName) &&
             sym(a.lib, "cuGetErrorString", a.cuGetErrorString);
  if (!all) {
    a.why = "the CUDA driver lacks an entry point this runner uses (a driver older than CUDA 11?)";
    return;
  }
  CUresult r = a.cuInit(0);
  if (r) {
    a.why = "cuInit failed: " + error_text(a, r);
    return;
  }
  int n = 0;
  if ((r = a.cuDeviceGetCount(&n)) || n == 0) {
    a.why = r ? "cuDeviceGetCount failed: " + error_text(a, r) : "no CUDA device";
    return;
  }
  CUdevice d = 0;
  char name[256] = {};
  int major = 0, minor = 0;
  if ((r = a.cuDeviceGet(&d, 0)) || (r = a.cuDeviceGetName(name, sizeof name - 1, d)) ||
      (r = a.cuDeviceGetAttribute(&major, kAttrCcMajor, d)) || (r = a.cuDeviceGetAttribute(&minor, kAttrCcMinor, d))) {
    a.why = "querying device 0 failed: " + error_text(a, r);
    return;
  }
  // The primary context (what Triton uses): no cuCtxCreate, whose CUDA 13
  // signature differs from older drivers'.
  if ((r = a.cuDevicePrimaryCtxRetain(&a.ctx, d)) || (r = a.cuCtxSetCurrent(a.ctx))) {
    a.why = "the device's primary context: " + error_text(a, r);
    return;
  }
  a.cuDriverGetVersion(&a.dev.driver_version);
  a.dev.name = name;
  a.dev.sm = major * 10 + minor;
  a.ok = true;
}

}  // namespace

bool available(Device* dev, std::string& why) {
  std::call_once(g_once, [] { load(g_api); });
  if (!g_api.ok) {
    why = g_api.why;
    return false;
  }
  if (dev) *dev = g_api.dev;
  return true;
}

bool run(const std::string& ptx, const std::string& entry, const unsigned grid[3], const unsigned block[3],
         unsigned dynamic_shared, const std::vector<Param>& params, const std::vector<HostBuffer>& buffers,
         RunResult& res, std::string& err) {
  if (!available(nullptr, err)) return false;
  Api& a = g_api;
  a.cuCtxSetCurrent(a.ctx);
  // The JIT's logs: the size options are unsigned values in the void* slot
  // (the driver writes the filled size back there), not pointers.
  std::vector<char> info(1 << 16, 0), error(1 << 16, 0);
  int opts[] = {kJitInfoLog, kJitInfoLogSize, kJitErrorLog, kJitErrorLogSize, kJitLogVerbose, kJitLineInfo};
  void* vals[] = {info.data(), reinterpret_cast<void*>(uintptr_t(info.size() - 1)), error.data(),
                  reinterpret_cast<void*>(uintptr_t(error.size() - 1)), reinterpret_cast<void*>(uintptr_t(1)),
                  reinterpret_cast<void*>(uintptr_t(1))};
  CUmodule mod = nullptr;
  CUresult r = a.cuModuleLoadDataEx(&mod, ptx.c_str(), 6, opts, vals);
  res.jit_info = info.data();
  if (r) {
    err = "cuModuleLoadDataEx: " + error_text(a, r) + (error[0] ? std::string("\n") + error.data() : "");
    return false;
  }
  struct Cleanup {
    Api& a;
    CUmodule mod;
    std::vector<CUdeviceptr> mem;
    ~Cleanup() {
      for (CUdeviceptr p : mem) a.cuMemFree(p);
      a.cuModuleUnload(mod);
    }
  } clean{a, mod, {}};
  CUfunction fn = nullptr;
  if ((r = a.cuModuleGetFunction(&fn, mod, entry.c_str()))) {
    err = "cuModuleGetFunction(" + entry + "): " + error_text(a, r);
    return false;
  }
  if (dynamic_shared > 48 * 1024 &&
      (r = a.cuFuncSetAttribute(fn, kFuncMaxDynamicShared, int(dynamic_shared)))) {
    err = "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, " + std::to_string(dynamic_shared) + "): " + error_text(a, r);
    return false;
  }
  a.cuFuncGetAttribute(&res.regs, kFuncNumRegs, fn);
  a.cuFuncGetAttribute(&res.local_bytes, kFuncLocalBytes, fn);
  // Device copies of the buffers; overlapping host buffers share one
  // region, so pointers into either keep their distance.
  std::vector<HostBuffer> regions = buffers;
  std::sort(regions.begin(), regions.end(), [](const HostBuffer& x, const HostBuffer& y) { return x.data < y.data; });
  std::vector<HostBuffer> merged;
  for (const HostBuffer& b : regions) {
    if (!b.bytes) continue;
    if (!merged.empty() && b.data <= merged.back().data + merged.back().bytes)
      merged.back().bytes = std::max<size_t>(merged.back().bytes, size_t(b.data + b.bytes - merged.back().data));
    else
      merged.push_back(b);
  }
  std::vector<CUdeviceptr> dev(merged.size());
  for (size_t i = 0; i < merged.size(); ++i) {
    if ((r = a.cuMemAlloc(&dev[i], merged[i].bytes))) {
      err = "cuMemAlloc(" + std::to_string(merged[i].bytes) + "): " + error_text(a, r);
      return false;
    }
    clean.mem.push_back(dev[i]);
    if ((r = a.cuMemcpyHtoD(dev[i], merged[i].data, merged[i].bytes))) {
      err = "cuMemcpyHtoD: " + error_text(a, r);
      return false;
    }
  }
  std::vector<uint64_t> values(params.size());
  std::vector<void*> ptrs(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    values[i] = params[i].bits;
    if (params[i].pointer) {
      values[i] = 0;
      for (size_t k = 0; k < merged.size(); ++k)
        if (params[i].host >= merged[k].data && params[i].host <= merged[k].data + merged[k].bytes)
          values[i] = dev[k] + uint64_t(params[i].host - merged[k].data);
    }
    ptrs[i] = &values[i];  // little-endian: the low bytes are the value of a narrower parameter
  }
  auto t0 = std::chrono::steady_clock::now();
  r = a.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], dynamic_shared, nullptr, ptrs.data(),
                       nullptr);
  if (r) {
    err = "cuLaunchKernel: " + error_text(a, r);
    return false;
  }
  if ((r = a.cuCtxSynchronize())) {
    err = "the kernel failed on the GPU: " + error_text(a, r);
    return false;
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (size_t i = 0; i < merged.size(); ++i)
    if ((r = a.cuMemcpyDtoH(merged[i].data, dev[i], merged[i].bytes))) {
      err = "cuMemcpyDtoH: " + error_text(a, r);
      return false;
    }
  return true;
}

}  // namespace ptoas::rt::cuda
