// libptocce_model: the model's state (the current block, the reports) and
// the C ABI the kernel's header calls (include/pto/model/abi.h).
#include <cstdlib>
#include <cstring>
#include <map>

#include "model_api.h"
#include "scheduler.h"

namespace ptoas::cce_model {

namespace {

struct State {
  Arch arch = Arch::A3;
  Schedule schedule = Schedule::Adversarial;
  std::map<int64_t, std::unique_ptr<Block>> blocks;
  Block* cur = nullptr;
  std::vector<Report> reports;
};

Arch env_arch() {
  const char* e = std::getenv("PTO_MODEL_ARCH");
  return e && std::strcmp(e, "a5") == 0 ? Arch::A5 : Arch::A3;
}

State& state() {
  static State s = [] {
    State x;
    x.arch = env_arch();
    return x;
  }();
  return s;
}

Block& cur() {
  State& s = state();
  if (!s.cur) begin_block(0, 1);
  return *s.cur;
}

}  // namespace

void reset(Arch arch, Schedule schedule) {
  State& s = state();
  s.blocks.clear();
  s.cur = nullptr;
  s.reports.clear();
  s.arch = arch;
  s.schedule = schedule;
}

void begin_block(int64_t idx, int64_t num) {
  State& s = state();
  auto& b = s.blocks[idx];
  if (!b) b = std::make_unique<Block>(s.arch, s.schedule == Schedule::InOrder, idx, num, s.reports);
  s.cur = b.get();
}

void end_block() {
  State& s = state();
  if (s.cur) s.cur->finish();
  s.cur = nullptr;
}

std::vector<Report> take_reports() {
  std::vector<Report> r;
  r.swap(state().reports);
  return r;
}

const char* report_kind_name(Report::Kind k) {
  switch (k) {
    case Report::Kind::Race: return "race";
    case Report::Kind::Deadlock: return "deadlock";
    case Report::Kind::Flag: return "flag";
    case Report::Kind::OpError: return "op error";
  }
  return "?";
}

Stats stats() {
  Stats st;
  for (auto& [i, b] : state().blocks) st.ops += b->ops_run();
  st.modules_built = modules_built();
  return st;
}

}  // namespace ptoas::cce_model

using namespace ptoas::cce_model;

extern "C" {

PTO_MODEL_API void pto_model_op(const char* ir_name, const char* cxx_name, const PtoModelArg* args,
                                int32_t n) {
  cur().op(ir_name, cxx_name, args, n);
}
PTO_MODEL_API void pto_model_set_flag(int32_t src, int32_t dst, int32_t id) { cur().set_flag(src, dst, id); }
PTO_MODEL_API void pto_model_wait_flag(int32_t src, int32_t dst, int32_t id) { cur().wait_flag(src, dst, id); }
PTO_MODEL_API void pto_model_pipe_barrier(int32_t pipe) { cur().barrier(pipe); }
PTO_MODEL_API int64_t pto_model_block_idx(void) { return cur().idx(); }
PTO_MODEL_API int64_t pto_model_block_num(void) { return cur().num(); }
PTO_MODEL_API void pto_model_drain(void) { cur().drain(); }
PTO_MODEL_API void* pto_model_tile_elem(int32_t loc, uint64_t offset, int64_t k, int32_t esize, int64_t count) {
  return cur().tile_elem(loc, offset, k, esize, count);
}

}
