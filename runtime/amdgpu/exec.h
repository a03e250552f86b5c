// The executor's state (exec*.cpp): one workgroup's waves, their register
// files and memory-counter bookkeeping, the workgroup's LDS with the
// per-byte facts the checks need, and the operand access every family of
// instructions shares.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "amdgpu_emu.h"
#include "ir.h"

namespace ptoas::amdgpu_emu {

// A register waiting for its memory operation (`serial` 0: not pending).
struct Pending {
  uint32_t serial = 0;
  uint32_t inst = 0;  // the instruction that will write it
};

// An outstanding memory operation: the registers it writes when it is done.
struct MemOp {
  uint32_t serial = 0;
  bool vgpr = false;
  uint16_t first = 0;
  uint8_t count = 0;  // 0: writes no register (a store)
};

struct Wave {
  unsigned id = 0;            // within the workgroup
  unsigned lanes = 0;         // lanes that exist (a last partial wave has fewer)
  std::vector<uint32_t> v;    // VGPR r of lane l at v[r * wave + l]
  uint32_t s[kScalarRegs] = {};
  bool scc = false;
  uint32_t pc = 0;
  bool done = false, at_barrier = false;
  Pending vpend[256], spend[kScalarRegs];
  std::deque<MemOp> vm, vs, lds;  // retire in order
  std::vector<MemOp> smem;        // retire only at lgkmcnt(0)
  uint32_t serial = 0;
};

class Exec {
 public:
  Exec(const Module& m, const Kernel& k, const LaunchSpec& spec, Stats& stats);
  bool run(std::string& err);

  // --- used by the instruction families ---
  const Kernel& k;
  const unsigned W;  // lanes per wave
  const unsigned gen;

  uint64_t exec_mask(const Wave& w) const {
    return W == 64 ? (uint64_t(w.s[kExec + 1]) << 32 | w.s[kExec]) : w.s[kExec];
  }
  uint32_t& vr(Wave& w, unsigned r, unsigned lane) { return w.v[size_t(r) * W + lane]; }
  // f(lane) for each lane EXEC has on (a VALU instruction's lanes).
  template <class F>
  void for_exec_lanes(const Wave& w, F&& f) const {
    uint64_t exec = exec_mask(w);
    for (unsigned l = 0; l < W; ++l)
      if (exec >> l & 1) f(l);
  }

  // Source operands (inline constants, literals, modifiers) in the
  // operand's width; `f` says whether a 64-bit operand is a double (a
  // literal is then its high half) and whether neg/abs apply.
  uint32_t src32(const Wave& w, const Opnd& o, unsigned lane) const;
  uint64_t src64(const Wave& w, const Opnd& o, unsigned lane, bool is_f64) const;
  uint16_t src16(const Wave& w, const Opnd& o, unsigned lane) const;
  // A lane mask operand (vcc, s[4:5], vcc_lo, s4).
  uint64_t mask(const Wave& w, const Opnd& o) const;
  void set_mask(Wave& w, const Opnd& o, uint64_t m);
  // Scalar operands.
  uint32_t s32(const Wave& w, const Opnd& o) const;
  uint64_t s64(const Wave& w, const Opnd& o) const;
  void set_s(Wave& w, const Opnd& o, uint64_t v);

  // A located fault; returns false so callers can `return fault(...)`.
  bool fault(const Wave& w, int lane, const std::string& detail);

  // Memory: a host pointer to `n` bytes at `addr` inside one registered
  // buffer (or the kernarg segment, when `kernarg_ok`), else null.
  uint8_t* global(uint64_t addr, size_t n, bool kernarg_ok) const;
  // The outstanding-operation bookkeeping of an issued memory instruction.
  void issue(Wave& w, std::deque<MemOp>* queue, bool smem, const Opnd* dst);

  // What the race check knows of each byte of memory one workgroup owns:
  // its last writer (wave id + 1; 0: none since the workgroup started) and
  // the barrier interval of that write; the waves that read it in the
  // interval `rgen`.
  struct Shadow {
    std::vector<uint8_t> writer;
    std::vector<uint32_t> wgen, readers, rgen;
    void reset(size_t n) {
      writer.assign(n, 0);
      wgen.assign(n, 0);
      readers.assign(n, 0);
      rgen.assign(n, 0);
    }
  };
  // Two waves touching byte b of `sh` between the same two barriers, one of
  // them writing: a fault ("race"), with `what` naming the memory.
  bool race_check(Wave& w, unsigned lane, Shadow& sh, size_t b, bool write, const char* what);

  // The LDS of the workgroup and what the checks know of each byte.
  std::vector<uint8_t> lds, lds_init;
  Shadow lds_shadow;
  // A buffer each workgroup uses as its own (Buffer::workgroup_local: the
  // tiles of a kernel past the LDS), checked for races as the LDS is.
  const uint8_t* wl_base = nullptr;
  size_t wl_bytes = 0;
  Shadow wl_shadow;
  // The barrier interval, numbered across the launch (each workgroup's
  // start opens a new one too), so that a shadow of memory that outlives
  // workgroups holds no history that matches a later one's and is cleared
  // only once a launch.
  uint32_t interval = 0;
  unsigned group = 0;

 private:
  bool step(Wave& w);
  bool check_uses(Wave& w, const Inst& in);
  void wait(Wave& w, const Inst& in);
  void retire(Wave& w, const MemOp& op);
  bool run_group(unsigned g);

  const Module& m_;
  const LaunchSpec& spec_;
  Stats& stats_;
  std::vector<uint8_t> kernarg_;
  std::vector<Wave> waves_;
  std::string err_;
  double deadline_ = 0;
};

// The instruction families; each returns false after reporting a fault.
bool exec_salu(Exec& x, Wave& w, const Inst& in);
bool exec_valu_int(Exec& x, Wave& w, const Inst& in);
bool exec_valu_float(Exec& x, Wave& w, const Inst& in);
bool exec_mem(Exec& x, Wave& w, const Inst& in);
bool exec_matrix(Exec& x, Wave& w, const Inst& in);  // MFMA, WMMA

uint32_t from_f16(uint16_t h);  // f16 bits -> f32 bits (exact)

std::string reg_name(bool vgpr, unsigned r);

}  // namespace ptoas::amdgpu_emu
