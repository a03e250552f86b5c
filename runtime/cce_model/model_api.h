// The CPU model's control API (docs/cce_backend.md §5), for the runner
// (runtime/cce_run.h) and the tests: what the kernel's calls do not say --
// the architecture, which block runs, the end of a block -- and the reports
// the model collected (races, deadlocks, flag misuse, op failures).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "frontend.h"

#if defined(__GNUC__)
#define PTO_MODEL_API __attribute__((visibility("default")))
#else
#define PTO_MODEL_API
#endif

namespace ptoas::cce_model {

struct Report {
  enum class Kind : uint8_t { Race, Deadlock, Flag, OpError } kind;
  std::string text;
};

// A fresh model: no queued calls, no reports, zeroed tile memories. The
// architecture picks the tile memory sizes and the pipe ordering rules
// (A5: PIPE_V runs its ops in order). Without a call the model starts as
// PTO_MODEL_ARCH says (a3 | a5; a3 when unset).
// The schedule: Adversarial (the default) runs, among the items the flags
// let run, the one issued latest; InOrder the one issued first, so that a
// kernel without sync (or with a sync bug) still computes its program-order
// numbers -- the races are reported the same in both.
enum class Schedule : uint8_t { Adversarial, InOrder };
PTO_MODEL_API void reset(Arch arch, Schedule schedule = Schedule::Adversarial);
// The block the kernel's next calls belong to (get_block_idx / num).
PTO_MODEL_API void begin_block(int64_t block_idx, int64_t block_num);
// Drains every pipe, then reports the flags still pending.
PTO_MODEL_API void end_block();
PTO_MODEL_API std::vector<Report> take_reports();
PTO_MODEL_API const char* report_kind_name(Report::Kind k);

struct Stats {
  uint64_t ops = 0;             // tile ops run
  uint64_t modules_built = 0;   // one-op modules parsed (cache misses)
};
PTO_MODEL_API Stats stats();

}  // namespace ptoas::cce_model
