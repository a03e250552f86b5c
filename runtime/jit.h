// The JIT loader: assembles a kernel for a native target through
// libptoas_codegen and maps it executable (W^X: the pages are mapped
// read-write, filled, then switched to read-execute; never both).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "diag.h"
#include "interp.h"
#include "ir.h"

namespace ptoas::rt {

class JitKernel {
 public:
  JitKernel() = default;
  JitKernel(const JitKernel&) = delete;
  JitKernel& operator=(const JitKernel&) = delete;
  ~JitKernel();

  // Assembles `fn` of `m` for `target` ("avx2"); errors (unsupported ops,
  // a CPU without the features) go to diag / err. Returns false on failure.
  bool load(const Module& m, InstId fn, const std::string& target, Diag& diag, std::string& err);

  // Runs one block. `args` are bound as the interpreter binds them
  // (Arg::Kind::Ptr / Int / Float), one per parameter.
  void run(const std::vector<Arg>& args, int64_t block_idx, int64_t block_num) const;

 private:
  void* mem_ = nullptr;
  size_t size_ = 0;
  void (*thunk_)(const uint64_t*) = nullptr;
  std::vector<DType> param_types_;   // Scalar params: the type; Ptr params: None
};

// True when this CPU can run code for `target` (avx2: AVX2 + FMA, OS-enabled
// YMM state).
bool cpu_supports(const std::string& target);

}  // namespace ptoas::rt
