// What the emulator runners (runtime/bochs: AVX-512 under Bochs;
// runtime/qemu: SVE under qemu-aarch64) share about a job: JIT images
// (cg::JitImage) to run block by block on host buffers the emulated side
// gets a copy of, which it then copies back.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "codegen.h"
#include "interp.h"
#include "ir.h"

namespace ptoas::rt {

// Host memory a kernel may read and write. Buffers of one batch may be
// shared between jobs or overlap: overlapping ones become one region.
struct EmuBuffer {
  void* data = nullptr;
  size_t bytes = 0;
};

// One kernel launch: the image, the buffers, and each block's argument
// slots (image->n_slots each: the parameters, then block_idx, block_num).
// A slot marked in `is_pointer` holds a host address inside (or one past
// the end of) one of `buffers`; the runner rewrites it to where the
// emulated side sees that byte.
struct EmuJob {
  const cg::JitImage* image = nullptr;  // must outlive the run
  std::vector<EmuBuffer> buffers;
  std::vector<bool> is_pointer;                // n_slots entries
  std::vector<std::vector<uint64_t>> blocks;  // one slot vector per block
};

// A job for `fn` of `m` from the launcher's argument binding (Arg::Kind::Ptr
// arguments become buffers; scalars are packed as the JIT thunk expects),
// blocks 0..blocks-1 of `blocks`.
EmuJob emu_job(const Module& m, InstId fn, const cg::JitImage& image, const std::vector<Arg>& args,
               int64_t blocks);

// Checks a job's shape (image, slot counts, pointer slots inside its
// buffers); "" when it is well formed, else what is wrong.
std::string check_emu_job(const EmuJob& j);

// The start of a run: job_errors gets one entry per job, the reason for
// each job `check` refuses (check_emu_job and the runner's own limits);
// returns the indices of the others, in order.
std::vector<size_t> runnable_jobs(const std::vector<EmuJob>& jobs,
                                  const std::function<std::string(const EmuJob&)>& check,
                                  std::vector<std::string>& job_errors);

// The whole batch cannot run: `msg` for every job without an error yet and
// in `err`; returns false.
bool fail_all_jobs(std::vector<std::string>& job_errors, std::string& err, const std::string& msg);

// The end of a run: true when no job failed, else false with `err` naming
// the first failing job ("job 3: ...").
bool first_job_error(const std::vector<std::string>& job_errors, std::string& err);

// One region of emulated memory: the union of overlapping host buffers.
struct EmuRegion {
  uint8_t* host = nullptr;
  uint64_t bytes = 0;
  uint64_t guest = 0;          // where the runner puts it (its own meaning)
  std::vector<unsigned> jobs;  // positions in `which` of the jobs that use it
};

// The regions of the jobs jobs[which[k]], sorted by host address.
std::vector<EmuRegion> merge_regions(const std::vector<EmuJob>& jobs, const std::vector<size_t>& which);

// The region holding host address p (its end included), or -1.
long region_of(const std::vector<EmuRegion>& regions, uint64_t p);

}  // namespace ptoas::rt
