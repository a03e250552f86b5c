// The executor: launches, blocks, warps, control flow and barriers
// (exec.h has the model). The instruction families are in exec_*.cpp.
#include <algorithm>
#include <cstring>

#include "exec.h"

namespace ptoas::ptx {

const char* fault_kind_name(FaultKind k) {
  switch (k) {
    case FaultKind::None: return "none";
    case FaultKind::BadLaunch: return "bad launch";
    case FaultKind::GlobalOutOfBounds: return "global access out of bounds";
    case FaultKind::Misaligned: return "misaligned access";
    case FaultKind::SharedOutOfBounds: return "shared access out of bounds";
    case FaultKind::LocalOutOfBounds: return "local access out of bounds";
    case FaultKind::ParamOutOfBounds: return "parameter access out of bounds";
    case FaultKind::SharedRace: return "shared-memory race";
    case FaultKind::SharedUninit: return "read of uninitialised shared memory";
    case FaultKind::SharedWriteConflict: return "conflicting shared writes in one instruction";
    case FaultKind::CpAsyncPending: return "cp.async destination touched before its wait";
    case FaultKind::NotConverged: return "warp-synchronous instruction not converged";
    case FaultKind::BranchDivergent: return "bra.uni diverges";
    case FaultKind::BarrierDeadlock: return "barrier deadlock";
    case FaultKind::StepLimit: return "step limit";
    case FaultKind::TimeLimit: return "time limit";
    case FaultKind::Trap: return "trap";
    case FaultKind::Unsupported: return "unsupported";
  }
  return "?";
}

namespace {

std::string dim3(const unsigned v[3]) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + ")";
}

void finish_message(const Module& m, Fault& f) {
  f.message = m.name + ":" + std::to_string(f.line) + ":" + std::to_string(f.col) + ": fault: " +
              fault_kind_name(f.kind) + (f.detail.empty() ? "" : ": " + f.detail) + " (entry " + f.entry +
              ", block " + dim3(f.block) + ", thread " + dim3(f.thread) + (f.pto_loc.empty() ? "" : ", " + f.pto_loc) +
              ")";
}

}  // namespace

BlockRun::BlockRun(Launch& L_, const Entry& e_, const unsigned c[3]) : L(L_), e(e_) {
  for (int i = 0; i < 3; ++i) {
    ctaid[i] = c[i];
    ntid[i] = L.block[i];
  }
  nthreads = ntid[0] * ntid[1] * ntid[2];
  serial = L.next_serial++;
  epoch = L.next_epoch++;
  uint32_t nw = (nthreads + 31) / 32;
  warps.resize(nw);
  size_t nr = e.reg_bits.size();
  regs.assign(size_t(nw) * nr * 32, 0);
  preds.assign(size_t(nw) * std::max<uint32_t>(e.npreds, 1), 0);
  for (uint32_t i = 0; i < nw; ++i) {
    Warp& w = warps[i];
    w.id = i;
    uint32_t n = std::min<uint32_t>(32, nthreads - i * 32);
    w.lanes = n == 32 ? ~0u : (1u << n) - 1;
    w.live = w.lanes;
    w.R = regs.data() + size_t(i) * nr * 32;
    w.P = preds.data() + size_t(i) * std::max<uint32_t>(e.npreds, 1);
  }
  local.assign(size_t(nthreads) * e.local_bytes, 0);
  shared = L.shared.data();
  shadow = L.shadow.data();
  shared_size = e.shared_total();
  cp.resize(nthreads);
}

uint64_t BlockRun::special(const Warp& w, Sreg r, int l) const {
  uint32_t t = tid_of(w, l);
  switch (r) {
    case Sreg::TidX: return t % ntid[0];
    case Sreg::TidY: return (t / ntid[0]) % ntid[1];
    case Sreg::TidZ: return t / (ntid[0] * ntid[1]);
    case Sreg::NtidX: return ntid[0];
    case Sreg::NtidY: return ntid[1];
    case Sreg::NtidZ: return ntid[2];
    case Sreg::CtaidX: return ctaid[0];
    case Sreg::CtaidY: return ctaid[1];
    case Sreg::CtaidZ: return ctaid[2];
    case Sreg::NctaidX: return L.grid[0];
    case Sreg::NctaidY: return L.grid[1];
    case Sreg::NctaidZ: return L.grid[2];
    case Sreg::Laneid: return uint32_t(l);
    case Sreg::Warpid: return w.id;
    case Sreg::Nwarpid: return uint32_t(warps.size());
    case Sreg::LanemaskEq: return 1u << l;
    case Sreg::LanemaskLt: return (1u << l) - 1;
    case Sreg::LanemaskLe: return l == 31 ? ~0u : (2u << l) - 1;
    case Sreg::LanemaskGt: return l == 31 ? 0u : ~((2u << l) - 1);
    case Sreg::LanemaskGe: return ~((1u << l) - 1);
    case Sreg::Clock: return uint32_t(L.stats.warp_steps);
    case Sreg::Clock64: return L.stats.warp_steps;
    case Sreg::Smid: return 0;
    case Sreg::Gridid: return 0;
  }
  return 0;
}

void BlockRun::fault(FaultKind k, const Warp& w, int lane, const Inst& in, const std::string& detail) {
  Fault& f = L.fault;
  f.kind = k;
  f.entry = e.name;
  f.line = in.line;
  f.col = in.col;
  f.detail = detail;
  for (int i = 0; i < 3; ++i) f.block[i] = ctaid[i];
  if (lane >= 0) {
    uint32_t t = tid_of(w, lane);
    f.thread[0] = t % ntid[0];
    f.thread[1] = (t / ntid[0]) % ntid[1];
    f.thread[2] = t / (ntid[0] * ntid[1]);
  }
  if (in.loc) {
    const Loc& loc = L.m.locs[in.loc - 1];
    std::string file = loc.file < L.m.files.size() && !L.m.files[loc.file].empty() ? L.m.files[loc.file] : "pto";
    f.pto_loc = file + ":" + std::to_string(loc.line);
  }
  finish_message(L.m, f);
  throw FaultStop{};
}

void BlockRun::regroup(Warp& w) {
  for_lanes(w.group, [&](int l) { w.pc[l] = w.gpc; });
  uint32_t run = w.live & ~w.waiting & ~w.syncwait;
  if (!run && w.syncwait) {
    // Every other lane has exited or waits at a barrier: the parked lanes
    // at the smallest pc execute their instruction now, and it reports the
    // lanes of its mask that never came.
    uint32_t minpc = ~0u;
    for_lanes(w.syncwait, [&](int l) { minpc = std::min(minpc, w.pc[l]); });
    uint32_t g = 0;
    for_lanes(w.syncwait, [&](int l) {
      if (w.pc[l] == minpc) g |= 1u << l;
    });
    w.syncwait &= ~g;
    w.group = g;
    w.gpc = minpc;
    w.next_other = ~0u;
    w.force_sync = true;
    w.dirty = false;
    return;
  }
  uint32_t minpc = ~0u;
  for_lanes(run, [&](int l) { minpc = std::min(minpc, w.pc[l]); });
  uint32_t g = 0, other = ~0u;
  for_lanes(run, [&](int l) {
    if (w.pc[l] == minpc) g |= 1u << l;
    else other = std::min(other, w.pc[l]);
  });
  w.group = g;
  w.gpc = minpc;
  w.next_other = other;
  w.dirty = false;
}

void BlockRun::run() {
  while (true) {
    bool ran = false;
    for (Warp& w : warps)
      if (w.live & ~w.waiting) {
        run_warp(w);
        ran = true;
      }
    bool released = release_barriers();
    bool any_live = false;
    for (const Warp& w : warps) any_live |= w.live != 0;
    if (!any_live) break;
    if (!ran && !released) deadlock();
  }
  // Copies still in flight when their threads exited land now (no later
  // reader in this block can see them).
}

bool BlockRun::release_barriers() {
  bool released = false;
  for (int b = 0; b < 16; ++b) {
    if (!bar_arrived[b] || bar_arrived[b] < bar_expected[b]) continue;
    for (Warp& w : warps) {
      uint32_t rel = 0;
      for_lanes(w.waiting, [&](int l) {
        if (w.bar_id[l] == b) rel |= 1u << l;
      });
      if (rel) {
        w.waiting &= ~rel;
        w.dirty = true;
      }
    }
    bar_arrived[b] = 0;
    bar_expected[b] = 0;
    epoch = L.next_epoch++;
    released = true;
  }
  return released;
}

void BlockRun::deadlock() {
  // Name one waiting thread and what is missing.
  for (Warp& w : warps)
    if (w.waiting) {
      int l = __builtin_ctz(w.waiting);
      int b = w.bar_id[l];
      uint32_t exited = 0;
      for (const Warp& x : warps) exited += uint32_t(__builtin_popcount(x.lanes & ~x.live));
      std::string why = "barrier " + std::to_string(b) + ": " + std::to_string(bar_arrived[b]) + " of " +
                        std::to_string(bar_expected[b]) + " threads arrived";
      if (exited) why += "; " + std::to_string(exited) + " thread(s) of the block exited without reaching it";
      else why += "; the others wait at another barrier";
      const Inst& in = e.code[w.pc[l] ? w.pc[l] - 1 : 0];
      fault(FaultKind::BarrierDeadlock, w, l, in, why);
    }
  const Inst& in = e.code[0];
  fault(FaultKind::BarrierDeadlock, warps[0], -1, in, "no thread can make progress");
}

void BlockRun::run_warp(Warp& w) {
  const Inst* code = e.code.data();
  const uint64_t limit = L.opts.step_limit;
  while (true) {
    if (w.dirty) {
      regroup(w);
      if (!w.group) return;  // every lane waits or has exited
    }
    const Inst& in = code[w.gpc];
    if (++L.stats.warp_steps > limit)
      fault(FaultKind::StepLimit, w, __builtin_ctz(w.group), in,
            "more than " + std::to_string(limit) + " warp instructions (LaunchOptions::step_limit)");
    if ((L.stats.warp_steps & 0xFFFF) == 0 && L.has_deadline && std::chrono::steady_clock::now() > L.deadline)
      fault(FaultKind::TimeLimit, w, __builtin_ctz(w.group), in, "the launch ran past its time limit");
    issue = L.next_issue++;
    uint32_t m = w.group;
    if (in.guard >= 0) {
      uint32_t p = w.P[in.guard];
      m &= in.guard_neg ? ~p : p;
    }
    L.stats.thread_steps += uint32_t(__builtin_popcount(m));
    switch (in.op) {
      case Op::Bra: case Op::Ret: case Op::Exit: case Op::Trap: case Op::Bar:
        control(w, in, m);
        continue;
      case Op::Nop: break;
      case Op::Mov: case Op::Add: case Op::Sub: case Op::Mul: case Op::Mad: case Op::Div: case Op::Rem:
      case Op::Min: case Op::Max: case Op::Abs: case Op::Neg: case Op::And: case Op::Or: case Op::Xor:
      case Op::Not: case Op::Cnot: case Op::Shl: case Op::Shr: case Op::Shf: case Op::Bfe: case Op::Bfi:
      case Op::Popc: case Op::Clz: case Op::Brev: case Op::Prmt: case Op::Lop3: case Op::Setp: case Op::Selp:
      case Op::Slct:
        if (m) {
          // Arithmetic on a float type, and slct with an .f32 selector, are
          // float instructions; moves, selects and bitwise ops are not.
          bool flt = in.op == Op::Slct ? in.type2 == Ty::F32
                                       : ty_float(in.type) && in.op != Op::Mov && in.op != Op::Selp;
          if (flt) exec_float(w, in, m);
          else exec_int(w, in, m);
        }
        break;
      case Op::Fma: case Op::Rcp: case Op::Sqrt: case Op::Rsqrt: case Op::Ex2: case Op::Lg2: case Op::Sin:
      case Op::Cos: case Op::Tanh: case Op::Testp: case Op::Copysign:
        if (m) exec_float(w, in, m);
        break;
      case Op::Cvt:
        if (m) exec_cvt(w, in, m);
        break;
      case Op::Ld: case Op::St: case Op::Cvta: case Op::CvtaTo: case Op::CpAsync: case Op::CpCommit:
      case Op::CpWait: case Op::Atom:
        if (m) exec_mem(w, in, m);
        break;
      case Op::BarWarp: case Op::Shfl: case Op::Vote: case Op::Redux: case Op::Ldmatrix: case Op::Mma:
        if (park_for_sync(w, in, m)) continue;
        exec_warp(w, in, m);
        break;
      case Op::Activemask:
        exec_warp(w, in, m);
        break;
    }
    ++w.gpc;
    if (w.gpc >= w.next_other) w.dirty = true;
  }
}

// A warp-synchronous instruction whose member mask names lanes that are
// still running elsewhere (diverged paths, an out-of-line branch) parks the
// group here until they arrive; lanes parked at this instruction join the
// group. True when the group parked (nothing executed).
bool BlockRun::park_for_sync(Warp& w, const Inst& in, uint32_t& m) {
  uint32_t here = 0;
  for_lanes(w.syncwait, [&](int l) {
    if (w.pc[l] == w.gpc) here |= 1u << l;
  });
  if (here) {
    w.syncwait &= ~here;
    w.group |= here;
    m = w.group;
    if (in.guard >= 0) m &= in.guard_neg ? ~w.P[in.guard] : w.P[in.guard];
  }
  if (w.force_sync) {
    w.force_sync = false;
    return false;
  }
  if (!m) return false;
  uint32_t mask = w.lanes;
  if (in.op != Op::Mma && in.op != Op::Ldmatrix) {
    const Opnd& mo = ops(in)[in.op == Op::BarWarp ? 0 : in.op == Op::Shfl ? 5 : 2];
    mask = uint32_t(get(w, mo, __builtin_ctz(m)));
  }
  uint32_t elsewhere = mask & ~w.group & w.live & ~w.waiting & ~w.syncwait;
  if (!elsewhere) return false;
  for_lanes(w.group, [&](int l) { w.pc[l] = w.gpc; });
  w.syncwait |= w.group;
  w.group = 0;
  w.dirty = true;
  return true;
}

void BlockRun::control(Warp& w, const Inst& in, uint32_t m) {
  const Opnd* o = ops(in);
  switch (in.op) {
    case Op::Bra: {
      uint32_t target = uint32_t(o[0].imm);
      uint32_t stay = w.group & ~m;
      if (!stay) {
        w.gpc = target;
        if (w.gpc >= w.next_other) w.dirty = true;
      } else if (!m) {
        ++w.gpc;
        if (w.gpc >= w.next_other) w.dirty = true;
      } else {
        if (in.flags & F_UNI)
          fault(FaultKind::BranchDivergent, w, __builtin_ctz(stay), in,
                "lanes 0x" + [&] {
                  char b[16];
                  std::snprintf(b, sizeof b, "%08x", m);
                  return std::string(b);
                }() + " branch and the others of the group do not");
        for_lanes(m, [&](int l) { w.pc[l] = target; });
        for_lanes(stay, [&](int l) { w.pc[l] = w.gpc + 1; });
        w.group = 0;
        w.dirty = true;
      }
      return;
    }
    case Op::Trap:
      if (m) fault(FaultKind::Trap, w, __builtin_ctz(m), in, "the kernel executed trap");
      ++w.gpc;
      if (w.gpc >= w.next_other) w.dirty = true;
      return;
    case Op::Ret: case Op::Exit: {
      w.live &= ~m;
      uint32_t stay = w.group & ~m;
      for_lanes(stay, [&](int l) { w.pc[l] = w.gpc + 1; });
      for_lanes(m, [&](int l) {
        CpThread& c = cp[tid_of(w, l)];
        c.open.clear();
        c.groups.clear();
      });
      w.group = 0;
      w.dirty = true;
      return;
    }
    case Op::Bar: {
      uint32_t stay = w.group & ~m;
      for_lanes(stay, [&](int l) { w.pc[l] = w.gpc + 1; });
      for_lanes(m, [&](int l) {
        uint64_t id = get(w, o[0], l);
        uint64_t cnt = in.nops > 1 ? get(w, o[1], l) : nthreads;
        if (id >= 16) fault(FaultKind::BadLaunch, w, l, in, "barrier id " + std::to_string(id) + " is not 0..15");
        if (in.nops > 1 && (cnt == 0 || cnt % 32 || cnt > nthreads))
          fault(FaultKind::BadLaunch, w, l, in,
                "barrier thread count " + std::to_string(cnt) + " is not a multiple of 32 up to the block size");
        if (bar_arrived[id] && bar_expected[id] != cnt)
          fault(FaultKind::BarrierDeadlock, w, l, in,
                "barrier " + std::to_string(id) + " used with thread counts " + std::to_string(bar_expected[id]) +
                    " and " + std::to_string(cnt));
        bar_expected[id] = uint32_t(cnt);
        ++bar_arrived[id];
        w.bar_id[l] = uint8_t(id);
        w.pc[l] = w.gpc + 1;
        if (!(in.flags & F_ARRIVE)) w.waiting |= 1u << l;
      });
      w.group = 0;
      w.dirty = true;
      return;
    }
    default: return;
  }
}

bool launch(Program& prog, std::string_view entry, const std::vector<uint64_t>& args,
            const std::vector<Buffer>& buffers, const LaunchOptions& opts, Fault& fault, LaunchStats* stats) {
  fault = Fault();
  Module& m = prog.module();
  auto bad = [&](const std::string& why) {
    fault.kind = FaultKind::BadLaunch;
    fault.entry = std::string(entry);
    fault.detail = why;
    fault.message = m.name + ": fault: bad launch of '" + std::string(entry) + "': " + why;
    return false;
  };
  auto it = m.entry_index.find(std::string(entry));
  if (it == m.entry_index.end()) {
    std::string names;
    for (const Entry& e : m.entries) names += (names.empty() ? "" : ", ") + e.name;
    return bad("no such entry (the module has: " + (names.empty() ? std::string("none") : names) + ")");
  }
  const Entry& e = m.entries[it->second];
  if (args.size() != e.param_offset.size())
    return bad("it takes " + std::to_string(e.param_offset.size()) + " parameters, " + std::to_string(args.size()) +
               " given");
  Launch L(m, opts, fault);
  for (int i = 0; i < 3; ++i) {
    L.grid[i] = opts.grid[i];
    L.block[i] = opts.block[0] ? (opts.block[i] ? opts.block[i] : 1) : e.reqntid[i];
  }
  if (!L.block[0]) return bad("the entry has no .reqntid and the launch gives no block size");
  for (int i = 0; i < 3; ++i)
    if (!L.grid[i] || !L.block[i]) return bad("a grid or block dimension is 0");
  uint64_t nthreads = uint64_t(L.block[0]) * L.block[1] * L.block[2];
  if (nthreads > 1024) return bad("more than 1024 threads per block");
  if (e.reqntid[0] && opts.block[0] &&
      (L.block[0] != e.reqntid[0] || L.block[1] != e.reqntid[1] || L.block[2] != e.reqntid[2]))
    return bad("the block size differs from the entry's .reqntid");
  const uint64_t shared_total = e.shared_total();
  if (shared_total > 228 * 1024) return bad("more than 228 KiB of shared memory");
  for (const Inst& in : e.code)
    if (in.op == Op::Mma && MmaShape(in.mode) == MmaShape::M16N16K16Wave)
      return bad("mma .m16n16k16 is the amdgpu backend's wave-level matrix op, not PTX: this interpreter does not run it");
  if (e.local_bytes > 512 * 1024) return bad("more than 512 KiB of local memory per thread");
  if (((nthreads + 31) / 32) * e.reg_bits.size() * 32 * 8 > (uint64_t(512) << 20))
    return bad("the register file of a block would exceed 512 MiB (" + std::to_string(e.reg_bits.size()) +
               " registers per thread)");
  if (uint64_t(L.grid[0]) * L.grid[1] * L.grid[2] > (uint64_t(1) << 31)) return bad("grid too large");
  L.params.assign(e.param_buffer_bytes, 0);
  for (size_t i = 0; i < args.size(); ++i) {
    unsigned n = std::min<unsigned>(e.param_bytes[i], 8);
    std::memcpy(L.params.data() + e.param_offset[i], &args[i], n);
  }
  for (const Buffer& b : buffers)
    if (b.bytes) {
      uint64_t a = reinterpret_cast<uint64_t>(b.data);
      L.buffers.push_back({a, a + b.bytes});
    }
  for (const auto& d : m.data) {
    uint64_t a = reinterpret_cast<uint64_t>(d.data());
    L.buffers.push_back({a, a + d.size()});
  }
  std::sort(L.buffers.begin(), L.buffers.end());
  L.shared.assign(shared_total, 0);
  L.shadow.assign(shared_total, Shadow());
  if (opts.time_limit_s > 0) {
    L.has_deadline = true;
    L.deadline = std::chrono::steady_clock::now() +
                 std::chrono::microseconds(int64_t(std::min(opts.time_limit_s, 1e9) * 1e6));
  }
  auto t0 = std::chrono::steady_clock::now();
  bool ok = true;
  try {
    unsigned c[3];
    for (c[2] = 0; c[2] < L.grid[2]; ++c[2])
      for (c[1] = 0; c[1] < L.grid[1]; ++c[1])
        for (c[0] = 0; c[0] < L.grid[0]; ++c[0]) {
          BlockRun b(L, e, c);
          b.run();
        }
  } catch (const FaultStop&) {
    ok = false;
  }
  L.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (stats) *stats = L.stats;
  return ok;
}

}  // namespace ptoas::ptx
