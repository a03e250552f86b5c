// The Bochs runner (bochs_runner.h, docs/bochs_runner.md).
#include "bochs_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "hex_text.h"
#include "jit.h"
#include "payload_words.h"
#include "subprocess.h"

namespace ptoas::rt {

// The boot ROM (boot.S), generated at build time (bochs_rom.cpp).
extern const unsigned char kBochsRom[];
extern const size_t kBochsRomSize;

namespace {

// Guest memory map and payload header: mirrors boot.S.
constexpr uint64_t kPayloadBase = 0x01000000;
constexpr uint64_t kHeaderBytes = 4096;
constexpr uint64_t kMagic = 0x534843424f545021ull;  // "!PTOBCHS"
enum HeaderField : unsigned {
  H_MAGIC, H_NJOBS, H_JOBS, H_STATUS, H_JOB, H_BLOCK, H_VECTOR, H_ERROR, H_RIP, H_CR2, H_RSP,
  H_XCR0, H_DONE, H_SIZE
};
enum Status : uint64_t { S_LOADED, S_RUNNING, S_DONE, S_EXCEPTION, S_RESET, S_NO_PAYLOAD };
constexpr uint64_t kJobRecordBytes = 32;  // entry, n_blocks, slots, stride
constexpr uint64_t kAlign = 64;
constexpr uint64_t kRedZone = 256;      // pattern bytes around every buffer region
constexpr uint8_t kRedByte = 0xa5;

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

std::string mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1 << 20));
  return buf;
}

const char* vector_name(uint64_t v) {
  static const char* const names[] = {
      "#DE (divide error)", "#DB (debug)", "NMI", "#BP (breakpoint)", "#OF (overflow)",
      "#BR (bound range)", "#UD (invalid opcode)", "#NM (device not available)",
      "#DF (double fault)", "vector 9", "#TS (invalid TSS)", "#NP (segment not present)",
      "#SS (stack fault)", "#GP (general protection)", "#PF (page fault)", "vector 15",
      "#MF (x87 error)", "#AC (alignment check)", "#MC (machine check)",
      "#XM (SIMD floating-point exception)", "#VE (virtualization)", "#CP (control protection)"};
  return v < sizeof names / sizeof names[0] ? names[v] : "a reserved vector";
}

// The Bochs executable: $PTOAS_BOCHS, else bochs-bin on PATH (the Debian
// `bochs` wrapper only adds -q); "" with the reason in *why when missing.
std::string bochs_path(std::string* why = nullptr) {
  return emulator_program("PTOAS_BOCHS", "bochs-bin", "bochs", "bochs bochs-term", why);
}

// What the guest printed on port 0xE9 ("PTOBOCHS: ..." lines), the last
// tick count the debugger showed, and the first Bochs errors or panics.
struct Transcript {
  std::vector<std::string> guest;
  uint64_t ticks = 0;
  std::vector<std::string> bochs_errors;
};

Transcript read_transcript(const std::string& transcript, const std::string& log) {
  Transcript t;
  std::ifstream f(transcript);
  std::string line;
  while (std::getline(f, line)) {
    size_t g = line.find("PTOBOCHS: ");
    if (g != std::string::npos) t.guest.push_back(line.substr(g + 10));
    size_t n = line.find("Next at t=");
    if (n != std::string::npos) t.ticks = std::strtoull(line.c_str() + n + 10, nullptr, 10);
    // "00000012345p[CPU0 ] ..." (p: panic, e: error) or a fatal message.
    size_t d = 0;
    while (d < line.size() && line[d] >= '0' && line[d] <= '9') ++d;
    bool leveled = d >= 8 && d + 1 < line.size() && line[d + 1] == '[';
    if ((leveled && (line[d] == 'p' || line[d] == 'e')) || line.rfind("Bochs is exiting", 0) == 0 ||
        line.find("PANIC") != std::string::npos || line.find("cannot") != std::string::npos) {
      if (t.bochs_errors.size() < 3) t.bochs_errors.push_back(leveled ? line.substr(d + 1) : line);
    }
  }
  std::ifstream lf(log);
  while (std::getline(lf, line)) {
    size_t d = 0;
    while (d < line.size() && line[d] >= '0' && line[d] <= '9') ++d;
    if (d >= 8 && d + 1 < line.size() && line[d + 1] == '[' && (line[d] == 'p' || line[d] == 'e'))
      if (t.bochs_errors.size() < 3) t.bochs_errors.push_back(line.substr(d + 1));
  }
  return t;
}

struct BootPlan {
  std::vector<size_t> jobs;  // indices into the batch
  std::vector<uint8_t> payload;
  std::vector<uint64_t> code_guest;  // per planned job: where its image starts
  std::vector<EmuRegion> regions;
  uint64_t buffers_guest = 0, buffers_bytes = 0;
};

struct JobPlacement {
  uint64_t code_off = 0, slots_off = 0;
};

uint64_t job_fixed_bytes(const BochsJob& j) {
  uint64_t code = align_up(j.image ? j.image->bytes.size() : 0, kAlign);
  uint64_t slots = align_up(uint64_t(j.blocks.size()) * (j.image ? j.image->n_slots : 0) * 8, kAlign);
  return code + slots + kJobRecordBytes;
}

uint64_t job_buffer_bytes(const BochsJob& j) {
  uint64_t n = 0;
  for (const BochsBuffer& b : j.buffers) n += align_up(b.bytes, kAlign) + kRedZone;
  return n;
}

// Checks a job on its own; "" when it can be planned.
std::string check_job(const BochsJob& j) {
  if (std::string e = check_emu_job(j); !e.empty()) return e;
  uint64_t need = kHeaderBytes + job_fixed_bytes(j) + job_buffer_bytes(j) + kRedZone;
  if (need > kBochsMaxJobBytes)
    return "its code, arguments and buffers need " + mib(need) +
           " of guest memory, over the Bochs runner's limit of " + mib(kBochsMaxJobBytes) +
           " per run (a CPU with AVX-512 has no such limit)";
  return "";
}

// Lays out `todo` (job indices, in order) into one payload, taking as many
// as fit under the cap (at least one). Removes the planned ones from todo.
BootPlan plan_boot(const std::vector<BochsJob>& jobs, std::vector<size_t>& todo) {
  BootPlan p;
  uint64_t fixed = kHeaderBytes, bufs = kRedZone;
  size_t take = 0;
  for (; take < todo.size(); ++take) {
    const BochsJob& j = jobs[todo[take]];
    uint64_t f = job_fixed_bytes(j), b = job_buffer_bytes(j);
    if (take > 0 && fixed + f + bufs + b > kBochsMaxPayloadBytes) break;
    fixed += f;
    bufs += b;
  }
  p.jobs.assign(todo.begin(), todo.begin() + long(take));
  todo.erase(todo.begin(), todo.begin() + long(take));

  p.regions = merge_regions(jobs, p.jobs);

  // Header, job table, then per job its code and slots, then the buffers.
  uint64_t off = kHeaderBytes;
  uint64_t table = off;
  off = align_up(off + kJobRecordBytes * p.jobs.size(), kAlign);
  std::vector<JobPlacement> place(p.jobs.size());
  for (size_t k = 0; k < p.jobs.size(); ++k) {
    const BochsJob& j = jobs[p.jobs[k]];
    place[k].code_off = off;
    off = align_up(off + j.image->bytes.size(), kAlign);
    place[k].slots_off = off;
    off = align_up(off + uint64_t(j.blocks.size()) * j.image->n_slots * 8, kAlign);
  }
  off += kRedZone;
  p.buffers_guest = kPayloadBase + off;
  for (EmuRegion& r : p.regions) {
    r.guest = kPayloadBase + off;
    off = align_up(off + r.bytes, kAlign) + kRedZone;
  }
  p.buffers_bytes = kPayloadBase + off - p.buffers_guest;

  p.payload.assign(off, 0);
  std::fill(p.payload.begin() + long(p.buffers_guest - kPayloadBase), p.payload.end(), kRedByte);
  put64(p.payload, H_MAGIC * 8, kMagic);
  put64(p.payload, H_NJOBS * 8, p.jobs.size());
  put64(p.payload, H_JOBS * 8, kPayloadBase + table);
  put64(p.payload, H_SIZE * 8, p.payload.size());
  auto guest_of = [&](uint64_t host) -> uint64_t {
    long r = region_of(p.regions, host);  // check_job rules out -1
    return r < 0 ? 0 : p.regions[size_t(r)].guest + (host - uint64_t(reinterpret_cast<uintptr_t>(p.regions[size_t(r)].host)));
  };

  for (size_t k = 0; k < p.jobs.size(); ++k) {
    const BochsJob& j = jobs[p.jobs[k]];
    const cg::JitImage& img = *j.image;
    std::memcpy(&p.payload[place[k].code_off], img.bytes.data(), img.bytes.size());
    p.code_guest.push_back(kPayloadBase + place[k].code_off);
    uint64_t rec = table + k * kJobRecordBytes;
    put64(p.payload, rec + 0, kPayloadBase + place[k].code_off + img.thunk_offset);
    put64(p.payload, rec + 8, j.blocks.size());
    put64(p.payload, rec + 16, kPayloadBase + place[k].slots_off);
    put64(p.payload, rec + 24, uint64_t(img.n_slots) * 8);
    for (size_t b = 0; b < j.blocks.size(); ++b)
      for (size_t s = 0; s < img.n_slots; ++s) {
        uint64_t v = j.blocks[b][s];
        if (j.is_pointer[s]) v = guest_of(v);
        put64(p.payload, place[k].slots_off + (b * img.n_slots + s) * 8, v);
      }
  }
  for (const EmuRegion& r : p.regions)
    if (r.bytes) std::memcpy(&p.payload[r.guest - kPayloadBase], r.host, r.bytes);
  return p;
}

std::string bochsrc_text(const TempDir& dir, uint64_t payload_bytes) {
  uint64_t megs = (kPayloadBase + payload_bytes + (uint64_t(1) << 20) - 1) >> 20;
  megs = std::max<uint64_t>(megs + 1, 32);
  std::ostringstream s;
  s << "# Written by the ptoas Bochs runner (docs/bochs_runner.md).\n"
    << "memory: guest=" << megs << ", host=" << megs << "\n"
    << "romimage: file=" << dir.file("rom.bin") << "\n"
    << "optramimage1: file=" << dir.file("payload.bin") << ", address=" << hex(kPayloadBase) << "\n"
    << "cpu: model=corei7_skylake_x, count=1, reset_on_triple_fault=1\n"
    << "display_library: term\n"
    << "sound: driver=dummy\n"
    << "speaker: enabled=0\n"
    << "magic_break: enabled=1\n"
    << "port_e9_hack: enabled=1\n"
    << "log: " << dir.file("bochs.log") << "\n"
    << "panic: action=fatal\n"
    << "error: action=report\n";
  return s.str();
}

std::string debug_script(const TempDir& dir, const BootPlan& p) {
  std::ostringstream s;
  s << "c\n"
    << "writemem \"" << dir.file("header.out") << "\" " << hex(kPayloadBase) << " " << kHeaderBytes << "\n";
  if (p.buffers_bytes)
    s << "writemem \"" << dir.file("buffers.out") << "\" " << hex(p.buffers_guest) << " "
      << p.buffers_bytes << "\n";
  s << "quit\n";
  return s.str();
}

}  // namespace

bool bochs_forced() {
  const char* f = std::getenv("PTOAS_FORCE_BOCHS");
  return f && *f && std::strcmp(f, "0") != 0;
}

bool bochs_available(std::string* why) {
  if (bochs_path(why).empty()) return false;
  if (kBochsRomSize != 65536) {
    if (why) *why = "this build has no Bochs boot ROM (it is assembled on x86-64 hosts only)";
    return false;
  }
  return true;
}

bool bochs_run(const std::vector<BochsJob>& jobs, const BochsOptions& opt, BochsResult& result,
               std::string& err) {
  err.clear();
  result = BochsResult{};
  result.job_errors.assign(jobs.size(), "");
  auto fail_all = [&](const std::string& msg) { return fail_all_jobs(result.job_errors, err, msg); };
  std::string why;
  if (!bochs_available(&why)) return fail_all(why);
  double timeout = seconds_setting(opt.timeout_s, "PTOAS_BOCHS_TIMEOUT", 300);
  bool keep = opt.keep_temp || env_flag("PTOAS_BOCHS_KEEP");
  std::vector<size_t> todo = runnable_jobs(jobs, check_job, result.job_errors);

  std::string bochs = bochs_path();
  while (!todo.empty()) {
    BootPlan plan = plan_boot(jobs, todo);
    TempDir dir;
    if (!dir.create("ptoas-bochs", why)) return fail_all(why);
    if (keep) dir.keep();
    std::string where = keep ? " (files in " + dir.path() + ")" : "";
    if (!write_file(dir.file("rom.bin"), kBochsRom, kBochsRomSize) ||
        !write_file(dir.file("payload.bin"), plan.payload.data(), plan.payload.size()) ||
        !write_file(dir.file("bochsrc"), bochsrc_text(dir, plan.payload.size()).data(),
                    bochsrc_text(dir, plan.payload.size()).size())) {
      return fail_all("cannot write the Bochs run's files to " + dir.path());
    }
    std::string rc = debug_script(dir, plan);
    if (!write_file(dir.file("debug.rc"), rc.data(), rc.size()))
      return fail_all("cannot write the Bochs run's files to " + dir.path());

    // TERM=dumb: Bochs' term display needs a terminal type, not a terminal.
    // On timeout, SIGINT drops Bochs into its debugger, which then runs the
    // rest of the debugger script (the result dumps) and quits.
    Proc pr = run_process({bochs, "-q", "-f", dir.file("bochsrc"), "-rc", dir.file("debug.rc")}, {"TERM=dumb"},
                          dir.file("transcript.txt"), timeout, SIGINT);
    if (!pr.started) return fail_all(pr.error);
    result.boots++;
    result.seconds += pr.seconds;
    Transcript tr = read_transcript(dir.file("transcript.txt"), dir.file("bochs.log"));
    result.ticks += tr.ticks;

    std::vector<uint8_t> hdr, bufs;
    bool have_hdr = read_file(dir.file("header.out"), hdr) && hdr.size() == kHeaderBytes &&
                    get64(hdr, H_MAGIC * 8) == kMagic;
    if (!have_hdr) {
      std::string m = "bochs exited without results";
      m += " (" + describe_status(pr.status) + ")";
      if (pr.timed_out) m += " after the " + std::to_string(int(timeout)) + " s timeout";
      for (const std::string& e : tr.bochs_errors) m += "; " + e;
      if (!keep) {
        dir.keep();
        where = " (files in " + dir.path() + ")";
      }
      return fail_all(m + where);
    }
    uint64_t status = get64(hdr, H_STATUS * 8);
    uint64_t njobs = plan.jobs.size();
    uint64_t job = std::min<uint64_t>(get64(hdr, H_JOB * 8), njobs);
    uint64_t block = get64(hdr, H_BLOCK * 8);
    bool have_bufs = plan.buffers_bytes == 0 ||
                     (read_file(dir.file("buffers.out"), bufs) && bufs.size() == plan.buffers_bytes);
    if (!have_bufs) return fail_all("bochs did not return the buffers" + where);

    // Copy back, then check the red zones between regions.
    uint64_t zone_lo = plan.buffers_guest;
    auto check_zone = [&](uint64_t lo, uint64_t hi, const EmuRegion* before, const EmuRegion* after) {
      for (uint64_t a = lo; a < hi; ++a)
        if (bufs[a - plan.buffers_guest] != kRedByte) {
          uint64_t past = before ? a - (before->guest + before->bytes) : 0;
          std::string m = "the kernel wrote outside its buffers (guest " + hex(a) + ", " +
                          (!before    ? std::to_string(after->guest - a) + " bytes before a buffer"
                           : past == 0 ? "the first byte past the end of a buffer"
                                       : std::to_string(past) + " bytes past the end of a buffer") +
                          ")";
          const EmuRegion* r = before ? before : after;
          for (unsigned k : r->jobs)
            if (result.job_errors[plan.jobs[k]].empty()) result.job_errors[plan.jobs[k]] = m;
          return;
        }
    };
    for (size_t i = 0; i < plan.regions.size(); ++i) {
      const EmuRegion& r = plan.regions[i];
      if (r.bytes) std::memcpy(r.host, &bufs[r.guest - plan.buffers_guest], r.bytes);
      check_zone(zone_lo, r.guest, i ? &plan.regions[i - 1] : nullptr, &r);
      zone_lo = r.guest + r.bytes;
    }
    if (!plan.regions.empty())
      check_zone(zone_lo, plan.buffers_guest + plan.buffers_bytes, &plan.regions.back(), nullptr);

    if (status == S_DONE) continue;
    // The guest stopped in job `job`: the ones before it ran; the ones
    // after it go to the next boot.
    std::string what;
    const BochsJob* j = job < njobs ? &jobs[plan.jobs[job]] : nullptr;
    std::string blk = j ? "block " + std::to_string(block) + " of " + std::to_string(j->blocks.size()) + ": "
                        : "";
    auto where_rip = [&](uint64_t rip) {
      if (j) {
        uint64_t code = plan.code_guest[job];
        if (rip >= code && rip < code + j->image->bytes.size()) {
          uint64_t o = rip - code;
          return o >= j->image->kernel_offset ? "kernel+" + hex(o - j->image->kernel_offset)
                                              : "image+" + hex(o);
        }
      }
      return "rip " + hex(rip);
    };
    if (pr.timed_out) {
      what = "timed out after " + std::to_string(int(timeout)) + " s (set PTOAS_BOCHS_TIMEOUT to allow more)";
    } else if (status == S_EXCEPTION) {
      uint64_t v = get64(hdr, H_VECTOR * 8);
      what = std::string("CPU exception ") + vector_name(v) + " at " + where_rip(get64(hdr, H_RIP * 8)) +
             ", error code " + hex(get64(hdr, H_ERROR * 8));
      if (v == 14) what += ", address " + hex(get64(hdr, H_CR2 * 8));
    } else if (status == S_RESET) {
      what = "the CPU was reset (a triple fault)";
    } else if (status == S_NO_PAYLOAD) {
      return fail_all("the guest found no payload in memory (a runner bug)" + where);
    } else {
      what = "bochs stopped before the jobs finished (status " + std::to_string(status) + ")";
      for (const std::string& e : tr.bochs_errors) what += "; " + e;
    }
    if (job >= njobs) return fail_all(what + where);
    result.job_errors[plan.jobs[job]] = blk + what + where;
    // Rerun the jobs after the failing one.
    todo.insert(todo.begin(), plan.jobs.begin() + long(job) + 1, plan.jobs.end());
  }
  if (env_flag("PTOAS_BOCHS_STATS"))
    std::fprintf(stderr, "bochs: %zu job(s), %u boot(s), %.3f s, %llu instructions\n", jobs.size(),
                 result.boots, result.seconds, (unsigned long long)result.ticks);
  return first_job_error(result.job_errors, err);
}

}  // namespace ptoas::rt
