// The JIT loader: assembles a kernel for a native target through
// libptoas_codegen and maps it executable (W^X: the pages are mapped
// read-write, filled, then switched to read-execute; never both).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen.h"
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

  // The codegen options of the next load (ptorun --no-sched, --code-limit).
  void set_codegen_options(const cg::CodegenOptions& o) { opts_ = o; }

  // Assembles `fn` of `m` for `target` (a registered name: "avx2"); errors
  // (unsupported ops, a CPU without the features) go to diag / err. Returns
  // false on failure.
  bool load(const Module& m, InstId fn, const std::string& target, Diag& diag, std::string& err);

  // Assembles `fn` for `target` without mapping it: the launcher runs the
  // image under an emulator, whatever this CPU has: avx2 / avx512 under
  // Bochs (runtime/bochs/bochs_runner.h), sve under qemu-aarch64
  // (runtime/qemu/qemu_runner.h). Returns false on failure.
  bool load_for_emulator(const Module& m, InstId fn, const std::string& target, Diag& diag,
                         std::string& err);
  bool load_for_bochs(const Module& m, InstId fn, const std::string& target, Diag& diag,
                      std::string& err) {
    return load_for_emulator(m, fn, target, diag, err);
  }

  // Runs one block natively. `args` are bound as the interpreter binds them
  // (Arg::Kind::Ptr / Int / Float), one per parameter. Not for a kernel
  // loaded for an emulator.
  void run(const std::vector<Arg>& args, int64_t block_idx, int64_t block_num) const;

  bool under_emulator() const { return bool(image_); }
  bool under_bochs() const { return image_ && !sve_; }
  bool under_qemu() const { return image_ && sve_; }
  const cg::JitImage* image() const { return image_.get(); }  // under_emulator() only

 private:
  bool assemble(const Module& m, InstId fn, const std::string& target, Diag& diag, std::string& err,
                cg::JitImage& img);

  void* mem_ = nullptr;
  size_t size_ = 0;
  void (*thunk_)(const uint64_t*) = nullptr;
  std::vector<DType> param_types_;   // Scalar params: the type; Ptr params: None
  std::unique_ptr<cg::JitImage> image_;  // load_for_emulator
  bool sve_ = false;                      // the image is AArch64 code
  cg::CodegenOptions opts_;
};

// True when this CPU can run code for `target` (its descriptor's
// cpu_can_run: avx2: AVX2 + FMA + F16C + BMI2, OS-enabled YMM state;
// avx512: also AVX-512 F/BW/DQ/VL with OS-enabled opmask and ZMM state,
// XCR0 bits 5-7; sve: an AArch64 CPU with SVE, HWCAP_SVE).
bool cpu_supports(const std::string& target);

// The thunk's view of `fn`'s parameters: a scalar's type, None for a pointer.
std::vector<DType> jit_param_types(const Module& m, InstId fn);

// The 64-bit argument slots the thunk takes for one block (DESIGN §5):
// pointers, integers sign/zero-extended, f32 bits in the low half, f64 bits;
// then block_idx, block_num.
std::vector<uint64_t> jit_slots(const std::vector<DType>& param_types, const std::vector<Arg>& args,
                                int64_t block_idx, int64_t block_num);

}  // namespace ptoas::rt
