// Warp-synchronous instructions: bar.warp.sync, shfl.sync, vote.sync,
// redux.sync, activemask, ldmatrix. Each checks that the lanes its member
// mask names are all executing it together (converged, guard true), and
// that every lane executing it is in the mask; otherwise it is a fault
// (on hardware: a hang or undefined results).
#include <cstdio>

#include "exec.h"

namespace ptoas::ptx {

namespace {

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

}  // namespace

// Why lane j of the mask is not executing this instruction with the others.
static std::string absent(const BlockRun& B, const Warp& w, int j, const Inst& in, uint32_t m) {
  if (!((w.lanes >> j) & 1)) return "lane " + std::to_string(j) + " does not exist (the block has fewer threads)";
  if (!((w.live >> j) & 1)) return "lane " + std::to_string(j) + " has exited";
  if ((w.waiting >> j) & 1) return "lane " + std::to_string(j) + " waits at a barrier";
  if ((w.group >> j) & 1) return "lane " + std::to_string(j) + " skips it (its guard predicate is false)";
  if ((w.syncwait >> j) & 1)
    return "lane " + std::to_string(j) + " waits at another warp-synchronous instruction (line " +
           std::to_string(w.pc[j] < B.e.code.size() ? B.e.code[w.pc[j]].line : 0) + ")";
  uint32_t pc = w.pc[j];
  uint32_t line = pc < B.e.code.size() ? B.e.code[pc].line : 0;
  return "lane " + std::to_string(j) + " is elsewhere (at line " + std::to_string(line) + "): the warp has diverged";
}

// Checks the convergence rule for an instruction with member mask `mask`
// executed by the lanes in m; returns the mask.
static uint32_t converged(BlockRun& B, Warp& w, const Inst& in, uint32_t m, const Opnd* mask_op, const char* what) {
  uint32_t mask = ~0u;
  if (mask_op) {
    int first = __builtin_ctz(m);
    mask = uint32_t(B.get(w, *mask_op, first));
    for_lanes(m, [&](int l) {
      uint32_t v = uint32_t(B.get(w, *mask_op, l));
      if (v != mask)
        B.fault(FaultKind::NotConverged, w, l, in,
                std::string(what) + ": lanes give different member masks (" + hex32(mask) + " and " + hex32(v) + ")");
    });
  }
  uint32_t outside = m & ~mask;
  if (outside)
    B.fault(FaultKind::NotConverged, w, __builtin_ctz(outside), in,
            std::string(what) + ": lane " + std::to_string(__builtin_ctz(outside)) +
                " executes it but is not in the member mask " + hex32(mask));
  uint32_t missing = mask & ~m;
  if (missing) {
    int j = __builtin_ctz(missing);
    B.fault(FaultKind::NotConverged, w, __builtin_ctz(m), in,
            std::string(what) + " with member mask " + hex32(mask) + ": " + absent(B, w, j, in, m));
  }
  return mask;
}

void BlockRun::exec_warp(Warp& w, const Inst& in, uint32_t m) {
  const Opnd* o = ops(in);
  if (in.op == Op::Mma || in.op == Op::Ldmatrix) {
    // .aligned: the whole warp, converged, guard true everywhere.
    if (!m) {
      if (w.group != w.lanes)
        fault(FaultKind::NotConverged, w, __builtin_ctz(w.group), in,
              std::string(in.op == Op::Mma ? "mma" : "ldmatrix") + " (.aligned) needs the whole warp: " +
                  absent(*this, w, __builtin_ctz(w.lanes & ~w.group), in, m));
      return;  // skipped by every lane alike
    }
    converged(*this, w, in, m, nullptr, in.op == Op::Mma ? "mma (.aligned)" : "ldmatrix (.aligned)");
    if (in.op == Op::Mma) exec_mma(w, in, m);
    else {
      // Lanes 8i..8i+7 give the row addresses of matrix i.
      uint16_t rows[4][8][8];
      for (int i = 0; i < in.vec; ++i)
        for (int r = 0; r < 8; ++r) {
          int l = 8 * i + r;
          uint64_t a = address(w, o[1], l);
          if (in.space == Space::Generic && classify(a) != Space::Shared)
            fault(FaultKind::SharedOutOfBounds, w, l, in, "ldmatrix row address is not a shared-memory address");
          if (a % 16) fault(FaultKind::Misaligned, w, l, in, "ldmatrix row address is not 16-byte aligned");
          uint8_t buf[16];
          shared_access(w, in, l, a, 16, false, nullptr, buf);
          for (int c = 0; c < 8; ++c) rows[i][r][c] = uint16_t(buf[2 * c] | (buf[2 * c + 1] << 8));
        }
      bool tr = in.flags & F_TRANS;
      for_lanes(m, [&](int l) {
        int g = l >> 2, t = l & 3;
        for (int i = 0; i < in.vec; ++i) {
          uint32_t lo = tr ? rows[i][2 * t][g] : rows[i][g][2 * t];
          uint32_t hi = tr ? rows[i][2 * t + 1][g] : rows[i][g][2 * t + 1];
          put(w, vec_el(o[0], i), l, lo | (hi << 16));
        }
      });
    }
    return;
  }
  if (!m) return;
  switch (in.op) {
    case Op::BarWarp:
      converged(*this, w, in, m, &o[0], "bar.warp.sync");
      ++w.wep;  // orders the lanes' shared accesses before it with those after it
      return;
    case Op::Activemask:
      for_lanes(m, [&](int l) { put(w, o[0], l, w.group); });
      return;
    case Op::Shfl: {
      converged(*this, w, in, m, &o[5], "shfl.sync");
      uint64_t a[32];
      for_lanes(m, [&](int l) { a[l] = get(w, o[2], l) & 0xffffffffu; });
      uint32_t res[32];
      bool pv[32];
      for_lanes(m, [&](int l) {
        uint32_t b = uint32_t(get(w, o[3], l)), c = uint32_t(get(w, o[4], l));
        int bval = int(b & 31), cval = int(c & 31), seg = int((c >> 8) & 31);
        int maxl = (l & seg) | (cval & ~seg), minl = l & seg;
        int j = l;
        bool p = false;
        switch (ShflMode(in.mode)) {
          case ShflMode::Up: j = l - bval; p = j >= maxl; break;
          case ShflMode::Down: j = l + bval; p = j <= maxl; break;
          case ShflMode::Bfly: j = l ^ bval; p = j <= maxl; break;
          case ShflMode::Idx: j = minl | (bval & ~seg); p = j <= maxl; break;
        }
        if (!p) j = l;
        if (!((m >> j) & 1))
          fault(FaultKind::NotConverged, w, l, in,
                "shfl.sync: lane " + std::to_string(l) + " reads lane " + std::to_string(j) +
                    ", which does not take part (member mask " + hex32(uint32_t(get(w, o[5], l))) + ")");
        res[l] = uint32_t(a[j]);
        pv[l] = p;
      });
      for_lanes(m, [&](int l) {
        put(w, o[0], l, res[l]);
        put_pred(w, o[1], l, pv[l]);
      });
      return;
    }
    case Op::Vote: {
      converged(*this, w, in, m, &o[2], "vote.sync");
      uint32_t ballot = 0;
      for_lanes(m, [&](int l) { ballot |= uint32_t(get(w, o[1], l) & 1) << l; });
      VoteMode vm = VoteMode(in.mode);
      bool all = (ballot & m) == m, any = (ballot & m) != 0;
      for_lanes(m, [&](int l) {
        if (vm == VoteMode::Ballot) put(w, o[0], l, ballot);
        else put_pred(w, o[0], l, vm == VoteMode::All ? all : vm == VoteMode::Any ? any : (all || !any));
      });
      return;
    }
    case Op::Redux: {
      converged(*this, w, in, m, &o[2], "redux.sync");
      bool sg = in.type == Ty::S32;
      AtomOp op = AtomOp(in.mode);
      uint32_t acc = 0;
      bool first = true;
      for_lanes(m, [&](int l) {
        uint32_t v = uint32_t(get(w, o[1], l));
        if (first) {
          acc = v;
          first = false;
          return;
        }
        switch (op) {
          case AtomOp::Add: acc += v; break;
          case AtomOp::Min: acc = sg ? uint32_t(std::min(int32_t(acc), int32_t(v))) : std::min(acc, v); break;
          case AtomOp::Max: acc = sg ? uint32_t(std::max(int32_t(acc), int32_t(v))) : std::max(acc, v); break;
          case AtomOp::And: acc &= v; break;
          case AtomOp::Or: acc |= v; break;
          case AtomOp::Xor: acc ^= v; break;
          default: break;
        }
      });
      for_lanes(m, [&](int l) { put(w, o[0], l, acc); });
      return;
    }
    default:
      fault(FaultKind::Unsupported, w, __builtin_ctz(m), in, "no warp form of this instruction");
  }
}

}  // namespace ptoas::ptx
