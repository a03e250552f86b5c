// Jobs and regions shared by the emulator runners (emu_job.h).
#include "emu_job.h"

#include <algorithm>
#include <functional>

#include "jit.h"

namespace ptoas::rt {

EmuJob emu_job(const Module& m, InstId fn, const cg::JitImage& image, const std::vector<Arg>& args,
               int64_t blocks) {
  EmuJob j;
  j.image = &image;
  std::vector<DType> types = jit_param_types(m, fn);
  for (const Arg& a : args)
    if (a.kind == Arg::Kind::Ptr) j.buffers.push_back({a.data, a.bytes});
  j.is_pointer.assign(image.n_slots, false);
  for (size_t i = 0; i < args.size() && i < j.is_pointer.size(); ++i)
    j.is_pointer[i] = args[i].kind == Arg::Kind::Ptr;
  for (int64_t b = 0; b < blocks; ++b) {
    std::vector<uint64_t> s = jit_slots(types, args, b, blocks);
    s.resize(image.n_slots, 0);
    j.blocks.push_back(std::move(s));
  }
  return j;
}

std::string check_emu_job(const EmuJob& j) {
  if (!j.image) return "no image";
  if (j.image->bytes.empty() || j.image->thunk_offset >= j.image->bytes.size())
    return "the image has no code";
  if (j.is_pointer.size() != j.image->n_slots)
    return "is_pointer has " + std::to_string(j.is_pointer.size()) + " entries, the image takes " +
           std::to_string(j.image->n_slots) + " slots";
  for (size_t b = 0; b < j.blocks.size(); ++b)
    if (j.blocks[b].size() != j.image->n_slots)
      return "block " + std::to_string(b) + " has " + std::to_string(j.blocks[b].size()) +
             " slots, the image takes " + std::to_string(j.image->n_slots);
  for (size_t b = 0; b < j.blocks.size(); ++b)
    for (size_t s = 0; s < j.blocks[b].size(); ++s) {
      if (!j.is_pointer[s]) continue;
      uint64_t p = j.blocks[b][s];
      bool in = false;
      for (const EmuBuffer& buf : j.buffers) {
        uint64_t lo = uint64_t(reinterpret_cast<uintptr_t>(buf.data));
        if (p >= lo && p <= lo + buf.bytes) in = true;
      }
      if (!in)
        return "block " + std::to_string(b) + ": pointer slot " + std::to_string(s) +
               " is not inside any of the job's buffers";
    }
  return "";
}

std::vector<size_t> runnable_jobs(const std::vector<EmuJob>& jobs,
                                  const std::function<std::string(const EmuJob&)>& check,
                                  std::vector<std::string>& job_errors) {
  job_errors.assign(jobs.size(), "");
  std::vector<size_t> todo;
  for (size_t i = 0; i < jobs.size(); ++i) {
    std::string e = check(jobs[i]);
    if (e.empty()) todo.push_back(i);
    else job_errors[i] = e;
  }
  return todo;
}

bool fail_all_jobs(std::vector<std::string>& job_errors, std::string& err, const std::string& msg) {
  err = msg;
  for (std::string& e : job_errors)
    if (e.empty()) e = msg;
  return false;
}

bool first_job_error(const std::vector<std::string>& job_errors, std::string& err) {
  for (size_t i = 0; i < job_errors.size(); ++i)
    if (!job_errors[i].empty()) {
      err = "job " + std::to_string(i) + ": " + job_errors[i];
      return false;
    }
  return true;
}

std::vector<EmuRegion> merge_regions(const std::vector<EmuJob>& jobs, const std::vector<size_t>& which) {
  struct Span {
    uint8_t* lo;
    uint64_t bytes;
    unsigned job;
  };
  std::vector<Span> spans;
  for (size_t k = 0; k < which.size(); ++k)
    for (const EmuBuffer& b : jobs[which[k]].buffers)
      spans.push_back({static_cast<uint8_t*>(b.data), b.bytes, unsigned(k)});
  std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return std::less<const uint8_t*>()(a.lo, b.lo);
  });
  std::vector<EmuRegion> regions;
  for (const Span& s : spans) {
    if (!regions.empty()) {
      EmuRegion& r = regions.back();
      uint8_t* end = r.host + r.bytes;
      if (s.lo == r.host || std::less<const uint8_t*>()(s.lo, end)) {
        r.bytes = std::max<uint64_t>(r.bytes, uint64_t(s.lo - r.host) + s.bytes);
        if (std::find(r.jobs.begin(), r.jobs.end(), s.job) == r.jobs.end()) r.jobs.push_back(s.job);
        continue;
      }
    }
    regions.push_back({s.lo, s.bytes, 0, {s.job}});
  }
  return regions;
}

long region_of(const std::vector<EmuRegion>& regions, uint64_t p) {
  // A region holding the byte at p first: one-past-the-end of a region may
  // be the first byte of the next.
  for (int end_too = 0; end_too < 2; ++end_too)
    for (size_t i = 0; i < regions.size(); ++i) {
      uint64_t lo = uint64_t(reinterpret_cast<uintptr_t>(regions[i].host));
      if (p >= lo && (p < lo + regions[i].bytes || (end_too && p == lo + regions[i].bytes))) return long(i);
    }
  return -1;
}

}  // namespace ptoas::rt
