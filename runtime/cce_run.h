// Runs an emitted CCE kernel (docs/cce_backend.md §1) on the CPU model
// (§5): g++ compiles the C++ against the model's header set into a temporary
// shared object with a generated entry thunk, the runner loads it and runs
// every block, then collects the model's reports (races, deadlocks, flag
// misuse, op failures). Any report fails the run.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frontend.h"
#include "interp.h"
#include "model_api.h"

namespace ptoas::rt {

struct CceRunOptions {
  Arch arch = Arch::A3;
  int64_t block_num = 1;
  // Adversarial: the latest runnable item first (sync bugs give wrong
  // numbers); InOrder: program order (the numbers of an unsynced kernel).
  // The reports are the same.
  cce_model::Schedule schedule = cce_model::Schedule::Adversarial;
  // The __global__ function to run; empty: the only one in the text.
  std::string entry;
  // The model's include dir; empty: $PTOAS_CCE_MODEL_INCLUDE, else the
  // source tree's runtime/cce_model/include.
  std::string include_dir;
  std::string cxx = "g++";
  // The kernel is compiled for both core kinds at once (the model has one
  // core per block): its `#if defined(__DAV_CUBE__)` and `__DAV_VEC__`
  // sections are all in.
  std::vector<std::string> defines = {"__DAV_CUBE__", "__DAV_VEC__"};
  std::vector<std::string> extra_flags;  // appended to the g++ command
};

struct CceRunResult {
  bool ok = false;
  // Why it failed: g++'s messages, a load error, an argument mismatch, or
  // the reports, one a line.
  std::string error;
  std::vector<std::string> reports;  // "race: ...", "deadlock: ...", ...
  double compile_s = 0, run_s = 0;
};

// A compiled kernel, loaded; unloads on destruction (its files are gone
// once it is loaded).
class CceKernel {
 public:
  CceKernel() = default;
  CceKernel(const CceKernel&) = delete;
  CceKernel& operator=(const CceKernel&) = delete;
  ~CceKernel();
  bool loaded() const { return handle_ != nullptr; }
  int param_count() const { return nparams_; }

 private:
  friend bool cce_compile(std::string_view, const CceRunOptions&, CceKernel&, std::string&, double*);
  friend bool cce_launch(CceKernel&, const std::vector<Arg>&, const CceRunOptions&, CceRunResult&);
  void* handle_ = nullptr;
  void (*entry_)(const void*) = nullptr;
  int nparams_ = 0;
};

// Compiles and loads `cpp`. False with g++'s messages (or why the entry was
// not found) in `err`.
bool cce_compile(std::string_view cpp, const CceRunOptions& o, CceKernel& k, std::string& err,
                 double* seconds = nullptr);
// Runs blocks 0..block_num-1 on a fresh model (o.arch); GM buffers are
// written in place. Fills r (ok, reports, error, run_s).
bool cce_launch(CceKernel& k, const std::vector<Arg>& args, const CceRunOptions& o, CceRunResult& r);
// Both.
CceRunResult cce_run(std::string_view cpp, const std::vector<Arg>& args, const CceRunOptions& o);

// The name of the kernel's entry: `want` if the text defines it as a
// __global__ function, else the only __global__ function; empty with err.
std::string cce_entry_name(std::string_view cpp, const std::string& want, std::string& err);

}  // namespace ptoas::rt
