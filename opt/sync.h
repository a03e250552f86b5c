// NPU synchronisation for the CCE target (docs/cce_backend.md §4):
// automatic insertion of set_flag / wait_flag / pipe_barrier
// (--enable-insert-sync) and a checker that proves, on every path, that
// every hazard between pipes is ordered (--verify-sync). Both read one
// access model (sync_model.h) and one happens-before walk (sync_state.h).
#pragma once
#include <string>

#include "diag.h"
#include "ir.h"

namespace ptoas::opt {

struct SyncStats {
  unsigned functions = 0;       // functions given sync
  unsigned manual = 0;          // functions left alone: hand-written flags
  unsigned sets = 0, waits = 0;  // inserted set_flag / wait_flag
  unsigned barriers = 0;        // inserted pipe_barrier(P), P a single pipe
  unsigned pipe_all = 0;        // pairs that became pipe_barrier(PIPE_ALL)
  unsigned tails = 0;           // pipe_barrier(PIPE_ALL) before a return
  unsigned dropped = 0;         // pairs the checker proved redundant
};

// Inserts sync into every function of m that has no hand-written flags
// (set/wait_flag, record/wait_event), then checks every function. A
// function with hand-written flags is the program's own: its findings are
// located errors in diag. A finding in a function given sync here is a bug
// of the inserter: an internal error.
bool insert_sync(Module& m, Diag& diag, SyncStats* stats = nullptr);

// Checks every function's sync. Errors (at the consumer, with a note at
// the producer) go to diag; warnings are appended to *warnings rendered as
// `file:line:col: warning: ...` lines. true when there is no error.
bool verify_sync(const Module& m, Diag& diag, std::string* warnings = nullptr);
// The same for one function definition.
bool verify_function_sync(const Module& m, InstId fn, Diag& diag, std::string* warnings = nullptr);

// One --stats line per module.
std::string sync_stats_line(const SyncStats& s);

}  // namespace ptoas::opt
