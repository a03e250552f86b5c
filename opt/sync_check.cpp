// The sync checker (sync.h verify_sync): the happens-before walk with every
// finding reported once, in source order.
#include <algorithm>
#include <cstdlib>
#include <set>
#include <tuple>

#include "ir_edit.h"
#include "sync.h"
#include "sync_check.h"

namespace ptoas::opt {

namespace {

std::string op_text(const Module& m, InstId id) { return std::string(op_name(m.inst(id).op)); }

}  // namespace

void SyncChecker::on_hazards(SyncState&, uint32_t c, const std::vector<uint32_t>& producers) {
  for (uint32_t p : producers) {
    if (!seen_.insert({sm_.events[c].inst, sm_.events[p].inst, "hazard"}).second) continue;
    ++errors;
    if (quiet) continue;
    const SyncEvent& ec = sm_.events[c];
    const SyncEvent& ep = sm_.events[p];
    std::string msg = op_text(sm_.m, ec.inst) + " on " + std::string(pipe_name(ec.pipe)) + ": " +
                      sm_.describe(p, c) + " with " + op_text(sm_.m, ep.inst) + " on " +
                      std::string(pipe_name(ep.pipe));
    if (ec.pipe == ep.pipe)
      msg += " needs pipe_barrier(" + std::string(pipe_name(ec.pipe)) + ") between them";
    else
      msg += " is not ordered by any set_flag/wait_flag chain or barrier";
    if (ec.inst == ep.inst) msg += " (across loop iterations)";
    found.push_back(Finding{sm_.m.inst(ec.inst).loc, sm_.m.inst(ep.inst).loc, msg,
                            "the conflicting " + op_text(sm_.m, ep.inst) + " is here"});
  }
}

void SyncChecker::on_sync_error(InstId at, InstId other, const std::string& msg) {
  if (!seen_.insert({at, other, msg}).second) return;
  ++errors;
  if (quiet) return;
  found.push_back(Finding{sm_.m.inst(at).loc, other == kNone ? kNone : sm_.m.inst(other).loc, msg,
                          other == kNone ? "" : "the related " + op_text(sm_.m, other) + " is here"});
}

void SyncChecker::on_warning(InstId at, InstId other, const std::string& msg) {
  if (!seen_.insert({at, other, "w:" + msg}).second || quiet) return;
  warnings.push_back(Finding{sm_.m.inst(at).loc, other == kNone ? kNone : sm_.m.inst(other).loc, msg, ""});
}

bool verify_function_sync(const Module& m, InstId fn, Diag& diag, std::string* warnings) {
  SyncModel sm(m, fn);
  SyncChecker ck(sm);
  ck.wide_ids = getenv("PTOAS_SYNC_WIDE") != nullptr;  // debugging the inserter's trials
  if (!ck.run()) {
    diag.error(m.inst(fn).loc, 0, "sync check gave up on this function (too large or no loop fixpoint)");
    return false;
  }
  std::stable_sort(ck.found.begin(), ck.found.end(),
                   [](const Finding& a, const Finding& b) { return a.at < b.at; });
  for (const Finding& f : ck.found) {
    diag.error(f.at, 0, "sync: " + f.msg);
    if (f.other != kNone && !f.note.empty()) diag.note(f.other, 0, f.note);
  }
  if (warnings && m.src)
    for (const Finding& w : ck.warnings) {
      LineCol lc = m.src->line_col(w.at);
      *warnings += m.src->name() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col) +
                   ": warning: sync: " + w.msg + "\n";
    }
  return ck.found.empty();
}

bool verify_sync(const Module& m, Diag& diag, std::string* warnings) {
  bool ok = true;
  for (InstId fn : function_defs(m)) ok = verify_function_sync(m, fn, diag, warnings) && ok;
  return ok;
}

}  // namespace ptoas::opt
