// The qemu runner: runs AArch64 SVE JIT images (cg::JitImage for
// the sve target) on an x86 host, under qemu-aarch64 (user mode) at a chosen
// SVE vector length. How it works and its limits: docs/qemu_runner.md.
//
// A batch of jobs runs in one qemu process (startup costs about 35 ms): the
// SVE loader (runtime/qemu/sve_loader.c, a static AArch64 program built
// with aarch64-linux-gnu-gcc) reads the images, their argument slots and
// copies of the host buffers from a payload file, runs every block of every
// job in order, and writes the buffers back. A job whose kernel faults
// (a signal), writes into the red zone around a buffer or hangs (the
// timeout) is reported with its job and block; the other jobs still run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "emu_job.h"  // EmuJob, and the Module / JitImage / Arg it is made from

namespace ptoas::rt {

// A job and its buffers (runtime/emu/emu_job.h): pointer slots are
// rewritten to where the loader mapped each buffer.
using QemuBuffer = EmuBuffer;
using QemuJob = EmuJob;

struct QemuOptions {
  // The SVE vector length in bits: a multiple of 128 from 128 to 2048
  // (128, 256, 512 and 2048 are the ones tested). 0: $SVE_VL, else 256.
  unsigned vl_bits = 0;
  // Wall-clock limit of one qemu run, in seconds. 0: $PTOAS_QEMU_TIMEOUT, else 300.
  double timeout_s = 0;
  // Keep the temporary directory (payload, result, log) and name it in the
  // error messages. Also $PTOAS_QEMU_KEEP=1.
  bool keep_temp = false;
};

struct QemuResult {
  // Per job: empty when every block ran and it stayed within its buffers;
  // else why not, e.g. "block 3 of 8: SIGSEGV at kernel+0x1c4, address 0x0".
  std::vector<std::string> job_errors;
  unsigned runs = 0;     // qemu processes started
  double seconds = 0;    // their wall time, all together
  unsigned vl_bits = 0;  // the vector length the loader saw (prctl(PR_SVE_GET_VL))
};

// The default vector length in bits: $SVE_VL when it is set and valid, else 256.
unsigned qemu_default_vl_bits();
// True for a vector length qemu can be asked for (a multiple of 128, 128..2048).
bool qemu_valid_vl_bits(unsigned bits);
// Parses a vector length in bits ("256"); false unless it is a valid one.
bool qemu_parse_vl_bits(const char* text, unsigned& bits);

// True when qemu-aarch64 and the SVE loader (built when
// aarch64-linux-gnu-gcc was found at configure time) are both there; else
// false with the reason in `why`.
bool qemu_available(std::string* why = nullptr);

// Runs every job. Returns true when every job succeeded. On false, `err`
// says why: either the batch could not run at all (qemu or the loader
// missing, a wrong vector length; result.job_errors then all carry that
// message), or it names the first failing job, and result.job_errors has
// each job's own message. The buffers of every job that ran are copied back.
bool qemu_run(const std::vector<QemuJob>& jobs, const QemuOptions& opt, QemuResult& result, std::string& err);

// A job for `fn` of `m` from the launcher's argument binding (emu_job).
inline QemuJob qemu_job(const Module& m, InstId fn, const cg::JitImage& image, const std::vector<Arg>& args,
                        int64_t blocks) {
  return emu_job(m, fn, image, args, blocks);
}

}  // namespace ptoas::rt
