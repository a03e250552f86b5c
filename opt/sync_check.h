// Internal to opt/: the sync checker as a walker (sync_check.cpp), also run
// quietly by the inserter to prove a pair redundant.
#pragma once
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sync_state.h"

namespace ptoas::opt {

struct Finding {
  uint32_t at, other;  // byte offsets (other: kNone when none)
  std::string msg, note;
};

class SyncChecker : public SyncWalker {
 public:
  explicit SyncChecker(const SyncModel& sm) : SyncWalker(sm) {}
  bool quiet = false;  // count only
  unsigned errors = 0;
  std::vector<Finding> found, warnings;

 protected:
  void on_hazards(SyncState& s, uint32_t c, const std::vector<uint32_t>& producers) override;
  void on_sync_error(InstId at, InstId other, const std::string& msg) override;
  void on_warning(InstId at, InstId other, const std::string& msg) override;

 private:
  std::set<std::tuple<InstId, InstId, std::string>> seen_;
};

}  // namespace ptoas::opt
