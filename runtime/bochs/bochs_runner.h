// The Bochs runner: runs JIT images (cg::JitImage) on an emulated x86-64 CPU
// with AVX-512 (Bochs 2.7, CPU model corei7_skylake_x), bare metal, for
// machines without AVX-512. How it works, the guest memory map and the
// limits: docs/bochs_runner.md.
//
// A batch of jobs runs in one Bochs boot (a boot costs about 0.1 s): every
// block of every job, in order, one block at a time. The host buffers the
// kernels use are copied into guest memory before the boot and back after
// it. A job whose kernel faults (a CPU exception), hangs (the timeout) or
// writes outside its buffers is reported with its job and block; the jobs
// after it run in a fresh boot, so one bad job does not hide the others.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen.h"
#include "emu_job.h"
#include "interp.h"
#include "ir.h"

namespace ptoas::rt {

// A job and its buffers (runtime/emu/emu_job.h): pointer slots are
// rewritten to guest addresses.
using BochsBuffer = EmuBuffer;
using BochsJob = EmuJob;

struct BochsOptions {
  // Wall-clock limit of one boot, in seconds. 0: $PTOAS_BOCHS_TIMEOUT, else 300.
  double timeout_s = 0;
  // Keep the temporary directory (payload, bochsrc, transcript) and name it
  // in the error messages. Also $PTOAS_BOCHS_KEEP=1.
  bool keep_temp = false;
};

struct BochsResult {
  // Per job: empty when every block ran and it stayed within its buffers;
  // else why not, e.g. "block 3 of 8: CPU exception #PF (page fault) at
  // kernel+0x1c4 ...".
  std::vector<std::string> job_errors;
  unsigned boots = 0;     // Bochs processes started
  double seconds = 0;     // their wall time, all together
  uint64_t ticks = 0;     // emulated instructions, all boots (BIOS-less boot included)
};

// The most guest memory one boot's payload (job table, code, slots,
// buffers) may take when it batches several jobs: a larger batch is split.
inline constexpr size_t kBochsMaxPayloadBytes = size_t(64) << 20;
// The most one job may take, alone in its boot: what the boot ROM maps
// (1 GiB, identity) above the payload base (16 MiB). A larger job is refused.
inline constexpr size_t kBochsMaxJobBytes = (size_t(1) << 30) - (size_t(32) << 20);

// True when a Bochs that can run the runner is installed; else false with
// the reason in `why` (e.g. "bochs is not installed (install bochs
// bochs-term; scripts/install-deps.sh does)").
bool bochs_available(std::string* why = nullptr);

// True when $PTOAS_FORCE_BOCHS is set to anything but "" or "0": x86 code
// runs under Bochs even where this CPU could run it (the runner's tests).
bool bochs_forced();

// Runs every job. Returns true when every job succeeded. On false, `err`
// says why: either the batch could not run at all (Bochs missing or failing
// to start; result.job_errors then all carry that message), or it names the
// first failing job, and result.job_errors has each job's own message. The
// buffers are copied back after each boot that ran to the end, whatever the
// jobs did (after a timeout: as far as the jobs got).
bool bochs_run(const std::vector<BochsJob>& jobs, const BochsOptions& opt, BochsResult& result,
               std::string& err);

// A job for `fn` of `m` from the launcher's argument binding (emu_job).
inline BochsJob bochs_job(const Module& m, InstId fn, const cg::JitImage& image, const std::vector<Arg>& args,
                          int64_t blocks) {
  return emu_job(m, fn, image, args, blocks);
}

}  // namespace ptoas::rt
