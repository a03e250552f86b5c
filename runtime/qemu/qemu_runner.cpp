// The qemu runner (qemu_runner.h, docs/qemu_runner.md).
#include "qemu_runner.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "data_dir.h"
#include "hex_text.h"
#include "payload_format.h"
#include "payload_words.h"
#include "subprocess.h"

// Written by runtime/CMakeLists.txt: why the build has no loader (when
// aarch64-linux-gnu-gcc was missing).
#if __has_include("sve_loader_config.h")
#include "sve_loader_config.h"
#endif
#ifndef PTOAS_SVE_LOADER_WHY
#define PTOAS_SVE_LOADER_WHY "this build has no SVE loader"
#endif

namespace ptoas::rt {

namespace {

// qemu-aarch64: $PTOAS_QEMU, else on PATH; "" with the reason in *why when missing.
std::string qemu_path(std::string* why = nullptr) {
  return emulator_program("PTOAS_QEMU", "qemu-aarch64", "qemu-aarch64", "qemu-user", why);
}

// The loader: $PTOAS_SVE_LOADER, else share/ptoas/sve_loader (data_dir.h);
// "" with where it was looked for in *where.
std::string loader_path(std::string* where = nullptr) {
  if (const char* e = std::getenv("PTOAS_SVE_LOADER"); e && *e) return e;
  return data_path("sve_loader", where);
}

// qemu's -cpu value for a vector length. sveN=on alone leaves user mode at
// its 512-bit default above 512 bits (notes/TOOLCHAIN.md §5), so the default
// length (in bytes) is always given too.
std::string cpu_option(unsigned bits) {
  return "max,sve" + std::to_string(bits) + "=on,sve-default-vector-length=" + std::to_string(bits / 8);
}

void put_bytes(std::vector<uint8_t>& b, const void* p, size_t n) {
  size_t at = b.size();
  b.resize(at + (n + 7) / 8 * 8, 0);
  if (n) std::memcpy(&b[at], p, n);
}

// The payload of the jobs jobs[which[k]] (payload_format.h).
std::vector<uint8_t> payload(const std::vector<QemuJob>& jobs, const std::vector<size_t>& which,
                             const std::vector<EmuRegion>& regions, unsigned vl_bits) {
  std::vector<uint8_t> p;
  append64(p, PQ_MAGIC);
  append64(p, PQ_VERSION);
  append64(p, which.size());
  append64(p, regions.size());
  append64(p, vl_bits / 8);
  for (const EmuRegion& r : regions) append64(p, r.bytes);
  for (size_t k : which) {
    const QemuJob& j = jobs[k];
    const cg::JitImage& img = *j.image;
    append64(p, img.bytes.size());
    append64(p, img.thunk_offset);
    append64(p, img.n_slots);
    append64(p, j.blocks.size());
    put_bytes(p, img.bytes.data(), img.bytes.size());
    // A pointer slot's region is that of its value in block 0 (a job's
    // blocks get the same buffers; check_emu_job found every value inside one).
    std::vector<long> region(img.n_slots, -1);
    for (size_t s = 0; s < img.n_slots; ++s) {
      if (j.is_pointer[s] && !j.blocks.empty()) region[s] = region_of(regions, j.blocks[0][s]);
      append64(p, region[s] < 0 ? 0 : uint64_t(region[s]) + 1);
    }
    for (const std::vector<uint64_t>& blk : j.blocks)
      for (size_t s = 0; s < img.n_slots; ++s) {
        uint64_t v = blk[s];
        if (region[s] >= 0) v -= uint64_t(reinterpret_cast<uintptr_t>(regions[size_t(region[s])].host));
        append64(p, v);
      }
  }
  for (const EmuRegion& r : regions) put_bytes(p, r.host, r.bytes);
  return p;
}

const char* signal_name(uint64_t s) {
  switch (s) {
    case SIGSEGV: return "SIGSEGV (segmentation fault)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGFPE: return "SIGFPE (arithmetic exception)";
    default: return "a signal";
  }
}

// What went wrong in one job, from its result record ("" when nothing).
std::string job_message(const QemuJob& j, const pq_job_result& r) {
  switch (r.status) {
    case PQ_OK: return "";
    case PQ_NOT_RUN: return "the loader did not run it";
    case PQ_FAULT: {
      std::string where = "an unknown pc";
      if (r.pc_offset != PQ_NO_PC)
        where = r.pc_offset >= j.image->kernel_offset ? "kernel+" + hex(r.pc_offset - j.image->kernel_offset)
                                                      : "image+" + hex(r.pc_offset);
      return "block " + std::to_string(r.block) + " of " + std::to_string(j.blocks.size()) + ": " +
             signal_name(r.signal) + " at " + where + ", address " + hex(r.fault_addr);
    }
    case PQ_RED_ZONE: {
      int64_t off = int64_t(r.zone_offset);
      std::string at = off < 0 ? std::to_string(-off) + " bytes before a buffer" : "past the end of a buffer";
      return "the kernel wrote outside its buffers (" + at + ")";
    }
    default: return "the loader reported status " + std::to_string(r.status);
  }
}

// The last "job N" line of the loader's log (the job it was in when it
// stopped), or -1; and the other lines (qemu's or the loader's complaints).
long last_job(const std::string& log, std::string& other) {
  std::ifstream f(log);
  std::string line;
  long job = -1;
  while (std::getline(f, line)) {
    if (line.rfind("job ", 0) == 0) job = std::strtol(line.c_str() + 4, nullptr, 10);
    else if (other.size() < 400) other += (other.empty() ? "" : "; ") + line;
  }
  return job;
}

}  // namespace

bool qemu_valid_vl_bits(unsigned bits) { return bits >= 128 && bits <= 2048 && bits % 128 == 0; }

bool qemu_parse_vl_bits(const char* text, unsigned& bits) {
  char* end = nullptr;
  unsigned long v = std::strtoul(text, &end, 10);
  if (end == text || *end != '\0' || v > 4096 || !qemu_valid_vl_bits(unsigned(v))) return false;
  bits = unsigned(v);
  return true;
}

unsigned qemu_default_vl_bits() {
  unsigned bits = 256;
  if (const char* e = std::getenv("SVE_VL"); e && *e) qemu_parse_vl_bits(e, bits);
  return bits;
}

bool qemu_available(std::string* why) {
  if (qemu_path(why).empty()) return false;
  std::string where;
  std::string l = loader_path(&where);
  if (l.empty()) {
    if (why) *why = std::string(PTOAS_SVE_LOADER_WHY).empty() ? "the SVE loader is not in " + where
                                                            : std::string(PTOAS_SVE_LOADER_WHY);
    return false;
  }
  if (::access(l.c_str(), R_OK) != 0) {
    if (why) *why = "the SVE loader " + l + " is missing (build the sve_loader target)";
    return false;
  }
  return true;
}

bool qemu_run(const std::vector<QemuJob>& jobs, const QemuOptions& opt, QemuResult& result, std::string& err) {
  err.clear();
  result = QemuResult{};
  result.job_errors.assign(jobs.size(), "");
  auto fail_all = [&](const std::string& msg) { return fail_all_jobs(result.job_errors, err, msg); };
  std::string why;
  if (!qemu_available(&why)) return fail_all(why);
  unsigned vl = opt.vl_bits ? opt.vl_bits : qemu_default_vl_bits();
  if (!qemu_valid_vl_bits(vl))
    return fail_all("SVE vector length " + std::to_string(vl) + " bits: expected a multiple of 128 from 128 to 2048");
  double timeout = seconds_setting(opt.timeout_s, "PTOAS_QEMU_TIMEOUT", 300);
  bool keep = opt.keep_temp || env_flag("PTOAS_QEMU_KEEP");
  std::vector<size_t> todo = runnable_jobs(jobs, check_emu_job, result.job_errors);

  std::string qemu = qemu_path(), loader = loader_path();
  while (!todo.empty()) {
    std::vector<size_t> which;
    which.swap(todo);
    std::vector<EmuRegion> regions = merge_regions(jobs, which);
    TempDir dir;
    if (!dir.create("ptoas-qemu", why)) return fail_all(why);
    if (keep) dir.keep();
    std::string where = keep ? " (files in " + dir.path() + ")" : "";
    std::vector<uint8_t> pl = payload(jobs, which, regions, vl);
    if (!write_file(dir.file("payload.bin"), pl.data(), pl.size()))
      return fail_all("cannot write the qemu run's payload to " + dir.path());
    pl = {};
    Proc pr = run_process({qemu, "-cpu", cpu_option(vl), loader, dir.file("payload.bin"), dir.file("result.bin")}, {},
                          dir.file("log.txt"), timeout, SIGKILL);
    if (!pr.started) return fail_all(pr.error);
    result.runs++;
    result.seconds += pr.seconds;

    std::vector<uint8_t> res;
    size_t n = which.size(), head = 32, recs = n * sizeof(pq_job_result);
    uint64_t region_bytes = 0;
    for (const EmuRegion& r : regions) region_bytes += r.bytes;
    bool have = !pr.timed_out && read_file(dir.file("result.bin"), res) && get64(res, 0) == PQ_RESULT_MAGIC &&
                get64(res, 16) == n && get64(res, 24) == regions.size() && res.size() == head + recs + region_bytes;
    if (!have) {
      // No results: a hang, or qemu itself died. The job the loader had
      // started takes the blame; the others run again from their inputs
      // (the buffers were not copied back).
      std::string other;
      long k = last_job(dir.file("log.txt"), other);
      std::string m = pr.timed_out ? "timed out after " + std::to_string(int(timeout)) +
                                         " s (set PTOAS_QEMU_TIMEOUT to allow more)"
                                   : "qemu-aarch64 ended without results (" + describe_status(pr.status) + ")";
      if (!other.empty()) m += ": " + other;
      if (k < 0 || size_t(k) >= n) {
        if (!keep) {
          dir.keep();
          where = " (files in " + dir.path() + ")";
        }
        return fail_all(m + where);
      }
      result.job_errors[which[size_t(k)]] = m + where;
      for (size_t i = 0; i < n; ++i)
        if (i != size_t(k)) todo.push_back(which[i]);
      continue;
    }
    result.vl_bits = unsigned(get64(res, 8) * 8);
    if (result.vl_bits != vl)
      return fail_all("qemu-aarch64 ran the loader at a " + std::to_string(result.vl_bits) +
                      "-bit SVE vector length, not the " + std::to_string(vl) + " bits asked for" + where);
    size_t at = head + recs;
    for (const EmuRegion& r : regions) {
      if (r.bytes) std::memcpy(r.host, &res[at], r.bytes);
      at += r.bytes;
    }
    for (size_t k = 0; k < n; ++k) {
      pq_job_result rec;
      std::memcpy(&rec, &res[head + k * sizeof rec], sizeof rec);
      std::string m = job_message(jobs[which[k]], rec);
      if (!m.empty()) result.job_errors[which[k]] = m + where;
    }
  }
  if (env_flag("PTOAS_QEMU_STATS"))
    std::fprintf(stderr, "qemu: %zu job(s), %u run(s), %.3f s, %u-bit SVE\n", jobs.size(), result.runs,
                 result.seconds, vl);
  return first_job_error(result.job_errors, err);
}

}  // namespace ptoas::rt
