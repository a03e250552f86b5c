// The executor's internals, shared by exec*.cpp.
//
// A block runs as warps of 32 lanes. A warp executes one instruction for a
// group of lanes at a time: the lanes whose program counter is the warp's
// smallest (the "min-PC" rule), so divergent paths run one after the other
// and reconverge where their counters meet again (the join point of
// structured code). Registers are 64-bit slots, lane-major per register.
// Warps run one at a time until every lane is waiting at a barrier or has
// exited; then the barrier completes (or the block is deadlocked).
//
// Races on shared memory are found by epochs, not by interleaving: each
// shared byte remembers its last writer and reader(s) since the last
// barrier, so the verdict does not depend on the order warps run in.
#pragma once
#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "fp.h"
#include "ir.h"
#include "parse.h"
#include "ptx.h"

namespace ptoas::ptx {

inline uint64_t width_mask(unsigned bytes) { return bytes >= 8 ? ~uint64_t(0) : (uint64_t(1) << (bytes * 8)) - 1; }
inline int64_t sext(uint64_t v, unsigned bytes) {
  unsigned sh = 64 - bytes * 8;
  return bytes >= 8 ? int64_t(v) : int64_t(v << sh) >> sh;
}

// The float format of a type (a packed pair: of its halves).
inline fp::Fmt fmt_of(Ty t) {
  switch (t) {
    case Ty::F16: case Ty::F16x2: return fp::kF16;
    case Ty::BF16: case Ty::BF16x2: return fp::kBF16;
    case Ty::TF32: return fp::kTF32;
    case Ty::F64: return fp::kF64;
    default: return fp::kF32;
  }
}
// The rounding of a modifier (the integer-result ones by their direction).
inline fp::Mode mode_of(Rnd r) {
  switch (r) {
    case Rnd::RZ: case Rnd::RZI: return fp::Mode::RZ;
    case Rnd::RM: case Rnd::RMI: return fp::Mode::RM;
    case Rnd::RP: case Rnd::RPI: return fp::Mode::RP;
    case Rnd::RNA: return fp::Mode::RNA;
    default: return fp::Mode::RN;
  }
}

// Thrown (inside the executor only) to stop the launch at a fault.
struct FaultStop {};

// The per-byte record of shared memory (see the header comment).
struct Shadow {
  uint32_t init = 0;     // serial of the block that wrote the byte; 0: never
  uint32_t pending = 0;  // serial of the block with a cp.async in flight to it
  uint32_t w_epoch = 0, r_epoch = 0;
  uint32_t w_tid = 0, r_tid = 0;    // r_tid kMany: several threads
  uint32_t r_warp = 0;              // kMany: several warps
  uint32_t w_wep = 0, r_wep = 0;    // the warp's bar.warp.sync count at the access
  uint32_t w_issue = 0, r_issue = 0;
  uint32_t w_line = 0, r_line = 0;
};
inline constexpr uint32_t kMany = 0xFFFFFFFFu;

struct Warp {
  uint32_t id = 0;
  uint32_t lanes = 0;    // lanes that exist (a partial last warp has fewer)
  uint32_t live = 0;     // not exited
  uint32_t waiting = 0;  // at a barrier
  // Parked at a warp-synchronous instruction (pc[l]) for the lanes of its
  // member mask that are still elsewhere: they join it when they get there
  // (the ISA: .sync makes the executing thread wait for the mask's threads).
  uint32_t syncwait = 0;
  bool force_sync = false;  // the group was unparked because nothing else can run: execute
  uint32_t group = 0;    // the lanes executing at gpc
  uint32_t gpc = 0;
  uint32_t next_other = ~0u;  // smallest pc of a runnable lane outside the group
  bool dirty = true;
  uint32_t wep = 1;      // bar.warp.sync count
  uint32_t pc[32] = {};
  uint8_t bar_id[32] = {};
  uint64_t* R = nullptr;
  uint32_t* P = nullptr;
};

struct CpCopy {
  uint32_t dst;      // shared offset
  uint8_t bytes;     // copied (the rest of size is zero-filled)
  uint8_t size;
  uint8_t data[16];
};
struct CpThread {
  std::vector<CpCopy> open;                 // not committed yet
  std::deque<std::vector<CpCopy>> groups;   // committed, oldest first
};

struct Launch;  // exec.cpp

class BlockRun {
 public:
  BlockRun(Launch& L, const Entry& e, const unsigned ctaid[3]);
  void run();  // throws FaultStop

  // --- used by the instruction files ---
  Launch& L;
  const Entry& e;
  unsigned ctaid[3];
  unsigned ntid[3];
  uint32_t nthreads = 0;
  uint32_t serial = 0;   // this block's serial (shadow init/pending stamps)
  uint32_t epoch = 0;    // barrier epoch
  uint32_t issue = 0;    // the current warp instruction's issue id
  std::vector<Warp> warps;
  std::vector<uint64_t> regs;
  std::vector<uint32_t> preds;
  std::vector<uint8_t> local;   // nthreads * local_bytes
  std::vector<CpThread> cp;

  uint64_t get(const Warp& w, const Opnd& o, int l) const {
    switch (o.kind) {
      case Opnd::Reg: return w.R[size_t(o.reg) * 32 + l];
      case Opnd::Imm: return uint64_t(o.imm);
      case Opnd::Pred: return ((w.P[o.reg] >> l) & 1) ^ uint32_t(o.neg);
      case Opnd::Special: return special(w, o.sreg, l);
      default: return 0;
    }
  }
  void put(Warp& w, const Opnd& o, int l, uint64_t v) {
    if (o.kind == Opnd::Reg) w.R[size_t(o.reg) * 32 + l] = v;
  }
  void put_pred(Warp& w, const Opnd& o, int l, bool v) {
    if (o.kind == Opnd::Pred) w.P[o.reg] = (w.P[o.reg] & ~(1u << l)) | (uint32_t(v) << l);
  }
  uint64_t special(const Warp& w, Sreg r, int l) const;
  uint32_t tid_of(const Warp& w, int l) const { return w.id * 32 + uint32_t(l); }

  [[noreturn]] void fault(FaultKind k, const Warp& w, int lane, const Inst& in, const std::string& detail);

  // Memory (exec_mem.cpp).
  void load(Warp& w, const Inst& in, int l, Space sp, uint64_t addr, unsigned bytes, uint8_t* out);
  void store(Warp& w, const Inst& in, int l, Space sp, uint64_t addr, unsigned bytes, const uint8_t* in_bytes);
  // Resolves a generic address to (space, address in it).
  Space classify(uint64_t& addr) const;
  uint8_t* global_ptr(Warp& w, const Inst& in, int l, uint64_t addr, unsigned bytes, bool write);
  void shared_access(Warp& w, const Inst& in, int l, uint64_t off, unsigned bytes, bool write, const uint8_t* data,
                     uint8_t* out);
  uint8_t* local_ptr(Warp& w, const Inst& in, int l, uint64_t off, unsigned bytes);
  uint64_t address(const Warp& w, const Opnd& o, int l) const {
    return (o.has_base ? w.R[size_t(o.reg) * 32 + l] : 0) + uint64_t(o.imm);
  }
  void cp_complete(Warp& w, const Inst& in, int l, size_t keep);

  // The instruction families; each executes `in` for the lanes in m.
  void exec_int(Warp& w, const Inst& in, uint32_t m);
  void exec_float(Warp& w, const Inst& in, uint32_t m);
  void exec_cvt(Warp& w, const Inst& in, uint32_t m);
  void exec_mem(Warp& w, const Inst& in, uint32_t m);
  void exec_warp(Warp& w, const Inst& in, uint32_t m);
  void exec_mma(Warp& w, const Inst& in, uint32_t m);

  const Opnd* ops(const Inst& in) const { return e.ops.data() + in.op0; }
  const Opnd& vec_el(const Opnd& v, int i) const { return e.ops[v.reg + uint32_t(i)]; }

  // Shared memory and its shadow live in the Launch (reused by every
  // block; stale records are told apart by serial and epoch stamps).
  uint8_t* shared = nullptr;
  Shadow* shadow = nullptr;
  uint64_t shared_size = 0;

 private:
  void run_warp(Warp& w);
  bool park_for_sync(Warp& w, const Inst& in, uint32_t& m);
  void regroup(Warp& w);
  void control(Warp& w, const Inst& in, uint32_t m);
  bool release_barriers();
  [[noreturn]] void deadlock();
  // Barriers: arrivals and the expected count per id (0..15).
  uint32_t bar_arrived[16] = {};
  uint32_t bar_expected[16] = {};
};

// Launch-wide state.
struct Launch {
  Launch(Module& m_, const LaunchOptions& o, Fault& f) : m(m_), opts(o), fault(f) {}
  Module& m;
  const LaunchOptions& opts;
  Fault& fault;
  LaunchStats stats;
  std::vector<std::pair<uint64_t, uint64_t>> buffers;  // [begin, end), sorted
  size_t last_buffer = 0;
  std::vector<uint8_t> params;
  std::vector<uint8_t> shared;
  std::vector<Shadow> shadow;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  uint32_t next_serial = 1;
  uint32_t next_epoch = 1;
  uint32_t next_issue = 1;
  std::chrono::steady_clock::time_point deadline;
  bool has_deadline = false;
  uint64_t clock = 0;
};

// Iterates the set bits of m (lanes).
template <class F>
inline void for_lanes(uint32_t m, F&& f) {
  while (m) {
    int l = __builtin_ctz(m);
    m &= m - 1;
    f(l);
  }
}

}  // namespace ptoas::ptx
