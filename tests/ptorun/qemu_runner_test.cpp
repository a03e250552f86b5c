// The qemu runner (runtime/qemu/qemu_runner.h) on hand-assembled AArch64
// images: one run holding a job that stores each block's slots, one that
// reads the vector length (rdvl), a null store (SIGSEGV), udf (SIGILL), a
// store one past a buffer (the red zone) and jobs after them that must
// still run; a hang in a run of its own (the timeout); a bad vector length.
//   qemu_runner_test [--sve-vl=BITS]   exit 0 ok, 1 failure, 77 no qemu
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "codegen.h"
#include "qemu_runner.h"

using namespace ptoas;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAIL: %s\n", what.c_str());
    ++failures;
  }
}

// An image from instruction words; the thunk is the whole image (x0: slots).
cg::JitImage image(const std::vector<uint32_t>& words, unsigned n_slots) {
  cg::JitImage img;
  for (uint32_t w : words)
    for (int b = 0; b < 4; ++b) img.bytes.push_back(uint8_t(w >> (8 * b)));
  img.n_slots = n_slots;
  return img;
}

constexpr uint32_t kLdrX1Slot0 = 0xf9400001;  // ldr x1, [x0]
constexpr uint32_t kLdrX2Slot1 = 0xf9400402;  // ldr x2, [x0, #8]
constexpr uint32_t kStrX2X1 = 0xf9000022;     // str x2, [x1]
constexpr uint32_t kRet = 0xd65f03c0;         // ret
constexpr uint32_t kMovX1Zero = 0xd2800001;   // mov x1, #0
constexpr uint32_t kStrX1X1 = 0xf9000021;     // str x1, [x1]
constexpr uint32_t kStrX1X1At16 = 0xf9000821; // str x1, [x1, #16]
constexpr uint32_t kUdf = 0x00000000;         // udf #0
constexpr uint32_t kBranchSelf = 0x14000000;  // b .
constexpr uint32_t kRdvlX2 = 0x04bf5022;      // rdvl x2, #1

rt::QemuJob job(const cg::JitImage& img, uint64_t* buf, size_t bytes, std::vector<std::vector<uint64_t>> blocks) {
  rt::QemuJob j;
  j.image = &img;
  j.buffers.push_back({buf, bytes});
  j.is_pointer.assign(img.n_slots, false);
  j.is_pointer[0] = true;
  j.blocks = std::move(blocks);
  return j;
}

uint64_t addr(const void* p) { return uint64_t(reinterpret_cast<uintptr_t>(p)); }

}  // namespace

int main(int argc, char** argv) {
  unsigned vl = 256;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--sve-vl=", 9) == 0) vl = unsigned(std::atoi(argv[i] + 9));
  std::string why;
  if (!rt::qemu_available(&why)) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  // Block b stores slot 1 (b * 10 + 7) at slot 0 (&out[b]).
  cg::JitImage store = image({kLdrX1Slot0, kLdrX2Slot1, kStrX2X1, kRet}, 2);
  cg::JitImage rdvl = image({kLdrX1Slot0, kRdvlX2, kStrX2X1, kRet}, 1);
  cg::JitImage segv = image({kMovX1Zero, kStrX1X1, kRet}, 1);
  cg::JitImage sigill = image({kRet, kUdf}, 1);
  sigill.thunk_offset = 4;
  sigill.kernel_offset = 4;
  cg::JitImage overrun = image({kLdrX1Slot0, kStrX1X1At16, kRet}, 1);
  cg::JitImage hang = image({kBranchSelf}, 1);

  uint64_t out[4] = {}, vlbuf[1] = {}, seg[1] = {}, ill[1] = {}, over[2] = {}, after[4] = {};
  std::vector<rt::QemuJob> jobs;
  std::vector<std::vector<uint64_t>> blocks;
  for (uint64_t b = 0; b < 4; ++b) blocks.push_back({addr(&out[b]), b * 10 + 7});
  jobs.push_back(job(store, out, sizeof out, blocks));
  jobs.push_back(job(rdvl, vlbuf, sizeof vlbuf, {{addr(vlbuf)}}));
  jobs.push_back(job(segv, seg, sizeof seg, {{addr(seg)}, {addr(seg)}}));
  jobs.push_back(job(sigill, ill, sizeof ill, {{addr(ill)}}));
  jobs.push_back(job(overrun, over, sizeof over, {{addr(over)}}));
  blocks.clear();
  for (uint64_t b = 0; b < 4; ++b) blocks.push_back({addr(&after[b]), b + 100});
  jobs.push_back(job(store, after, sizeof after, blocks));

  rt::QemuOptions opt;
  opt.vl_bits = vl;
  rt::QemuResult res;
  std::string err;
  bool ok = rt::qemu_run(jobs, opt, res, err);
  check(!ok, "a batch with failing jobs reports failure");
  check(res.runs == 1, "one qemu run for a batch whose failures are all caught (" + std::to_string(res.runs) + ")");
  check(res.vl_bits == vl, "the loader ran at " + std::to_string(res.vl_bits) + " bits");
  check(res.job_errors[0].empty(), "store job: " + res.job_errors[0]);
  for (uint64_t b = 0; b < 4; ++b) check(out[b] == b * 10 + 7, "store job, block " + std::to_string(b));
  check(res.job_errors[1].empty() && vlbuf[0] == vl / 8,
        "rdvl: " + std::to_string(vlbuf[0]) + " bytes, " + res.job_errors[1]);
  check(res.job_errors[2].find("block 0 of 2: SIGSEGV") != std::string::npos &&
            res.job_errors[2].find("kernel+0x4, address 0x0") != std::string::npos,
        "null store: '" + res.job_errors[2] + "'");
  check(res.job_errors[3].find("block 0 of 1: SIGILL") != std::string::npos &&
            res.job_errors[3].find("kernel+0x0") != std::string::npos,
        "udf: '" + res.job_errors[3] + "'");
  check(res.job_errors[4].find("outside its buffers (past the end") != std::string::npos,
        "store past the end: '" + res.job_errors[4] + "'");
  check(res.job_errors[5].empty(), "the job after the failures: " + res.job_errors[5]);
  for (uint64_t b = 0; b < 4; ++b) check(after[b] == b + 100, "the job after the failures, block " + std::to_string(b));
  check(err.rfind("job 2: ", 0) == 0, "err names the first failing job: '" + err + "'");

  // A hang: the timeout names the job; the job before it still ran.
  uint64_t first[1] = {}, stuck[1] = {};
  std::vector<rt::QemuJob> hj;
  hj.push_back(job(store, first, sizeof first, {{addr(first), 42}}));
  hj.push_back(job(hang, stuck, sizeof stuck, {{addr(stuck)}}));
  opt.timeout_s = 2;
  ok = rt::qemu_run(hj, opt, res, err);
  check(!ok && res.job_errors[1].find("timed out after 2 s") != std::string::npos,
        "hang: '" + res.job_errors[1] + "'");
  check(res.job_errors[0].empty() && first[0] == 42, "the job before the hang: '" + res.job_errors[0] + "'");

  // A vector length qemu cannot be asked for.
  opt.vl_bits = 200;
  ok = rt::qemu_run(hj, opt, res, err);
  check(!ok && err.find("multiple of 128") != std::string::npos, "vl 200: '" + err + "'");

  std::printf("qemu_runner_test (%u-bit): %d failure(s)\n", vl, failures);
  return failures ? 1 : 0;
}
