// The block launcher: binds named arguments to a kernel's parameters, checks
// every buffer against the views the kernel declares on it, allocates the
// outputs it is asked to, and runs the blocks on a thread pool.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "interp.h"
#include "ir.h"
#include "jit.h"
#include "npy.h"

namespace ptoas::rt {

// One kernel parameter as the launcher sees it.
struct ParamInfo {
  enum class Kind : uint8_t { Ptr, Scalar, Other } kind = Kind::Other;
  std::string name;       // without '%'
  DType elem = DType::None;  // Ptr: the element type; Scalar: the type
  std::string type_text;  // the type's spelling (for messages)
};
std::vector<ParamInfo> kernel_params(const Module& m, InstId fn);

// An argument, by parameter name.
struct KernelArg {
  enum class Kind : uint8_t {
    Buffer,  // an existing array for a pointer parameter; the run updates it in place
    Output,  // an array the launcher allocates (zero-filled), shaped like the
             // kernel's view on the parameter; `array` receives it
    Scalar,  // a scalar parameter, as text (parsed by the parameter's type)
  } kind = Kind::Scalar;
  std::string name;
  NpyArray* array = nullptr;  // Buffer, Output
  std::string text;           // Scalar
  // A Buffer that is caller's memory rather than an NpyArray (array null):
  // `bytes` bytes of `elem` elements at `data` (an embedder's buffers, the
  // bounds tests' guarded pages).
  uint8_t* data = nullptr;
  size_t bytes = 0;
  DType elem = DType::None;

  static KernelArg buffer(std::string name, NpyArray& a) { return {Kind::Buffer, std::move(name), &a, {}}; }
  static KernelArg output(std::string name, NpyArray& a) { return {Kind::Output, std::move(name), &a, {}}; }
  static KernelArg scalar(std::string name, std::string text) {
    return {Kind::Scalar, std::move(name), nullptr, std::move(text)};
  }
  static KernelArg memory(std::string name, DType elem, uint8_t* data, size_t bytes) {
    return {Kind::Buffer, std::move(name), nullptr, {}, data, bytes, elem};
  }
  DType buffer_dtype() const { return array ? array->dtype : elem; }
  size_t buffer_bytes() const { return array ? array->data.size() : bytes; }
  uint8_t* buffer_data() const { return array ? array->data.data() : data; }
};

// The most blocks one launch runs (the probe and the run are per block, so
// the count bounds the work of a request that its kernel does not).
inline constexpr int64_t kMaxBlocks = int64_t(1) << 20;

struct LaunchRequest {
  const Module* module = nullptr;
  InstId fn = kNone;      // Interpreter::find_function
  std::vector<KernelArg> args;
  int64_t blocks = 1;
  unsigned threads = 0;   // worker threads; 0: hardware_concurrency (never more than blocks)
  // Run this JIT-compiled kernel instead of the interpreter. One loaded for
  // an emulator runs all blocks in one Bochs boot (x86) or one qemu-aarch64
  // run (sve), in order (threads is ignored).
  const JitKernel* native = nullptr;
  // A runner that runs every block itself, in order, after the launcher's
  // checks (the CCE model: runtime/cce_run.h); false with a message.
  bool (*run_blocks)(void* ctx, const std::vector<Arg>& args, int64_t blocks, std::string& err) = nullptr;
  void* run_ctx = nullptr;
  // sve under qemu: the vector length in bits (0: $SVE_VL, else 256).
  unsigned sve_vl_bits = 0;
  // A wall-clock limit in seconds for the view probe and the run (0: none).
  // The interpreter (probe, --target=interp) stops with a located runtime
  // error; an emulator is killed (its run fails). Native code cannot be
  // stopped in-process: at the deadline the launcher calls
  // on_native_timeout (from another thread), which must end the process
  // (ptorun prints its error and _exits); without one, a native run is
  // not limited.
  double timeout_s = 0;
  void (*on_native_timeout)(double timeout_s) = nullptr;
  // Stop after the checks and the outputs' allocation: no block runs.
  bool check_only = false;
};

// Parses `text` as a value of scalar type `t` into `out` (Int for integers,
// i1 and index; Float for floats). i1 takes true/false/1/0; integers take
// decimal or 0x hex and must fit the type; floats take anything strtod does
// (inf, nan, hex floats). Returns false with a message on a bad value.
bool parse_scalar(DType t, const std::string& text, Arg& out, std::string& err);

// Checks the request, sizes and allocates the outputs, runs every block
// (block_idx 0..blocks-1, block_num = blocks) and returns true when all
// succeeded. On failure `err` holds the messages, one per line, without a
// program prefix: for a bad request each names its parameter (every
// argument problem is reported, not only the first); for a failed run it is
// the interpreter's located runtime error of the lowest failing block
// (deterministic whatever the thread timing), followed by " (block B of N)".
// Output arrays are allocated before the run; after a failure they hold
// whatever the blocks wrote, and the caller should not write them out.
// `run_error` (optional) is set when the failure is a located runtime error
// (from a block, or from the scalar probe that sizes the views) rather than
// a problem with the request.
// After a timeout the message says so ("... the time limit of N s ...").
bool launch(const LaunchRequest& req, std::string& err, bool* run_error = nullptr);

}  // namespace ptoas::rt
