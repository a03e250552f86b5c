// Memory: ld/st in every state space, generic addresses, cvta, cp.async
// with its groups, atomics; and the checks (bounds against the registered
// buffers, alignment, the shared-memory race and initialisation records).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "exec.h"
#include "hex_text.h"

namespace ptoas::ptx {

namespace {

std::string thread_name(const BlockRun& B, uint32_t tid) {
  return "thread " + std::to_string(tid) + " (warp " + std::to_string(tid / 32) + ", lane " + std::to_string(tid % 32) + ")";
}

}  // namespace

Space BlockRun::classify(uint64_t& addr) const {
  if (addr - kSharedWindow < kWindowSize) {
    addr -= kSharedWindow;
    return Space::Shared;
  }
  if (addr - kLocalWindow < kWindowSize) {
    addr -= kLocalWindow;
    return Space::Local;
  }
  return Space::Global;
}

uint8_t* BlockRun::global_ptr(Warp& w, const Inst& in, int l, uint64_t addr, unsigned bytes, bool write) {
  auto& bufs = L.buffers;
  auto fits = [&](size_t i) { return addr >= bufs[i].first && addr + bytes <= bufs[i].second && addr + bytes >= addr; };
  if (L.last_buffer < bufs.size() && fits(L.last_buffer)) return reinterpret_cast<uint8_t*>(addr);
  auto it = std::upper_bound(bufs.begin(), bufs.end(), std::make_pair(addr, ~uint64_t(0)));
  // Buffers may overlap (two parameters into one array): any that holds
  // the whole access will do.
  for (auto j = it; j != bufs.begin();) {
    --j;
    size_t i = size_t(j - bufs.begin());
    if (fits(i)) {
      L.last_buffer = i;
      return reinterpret_cast<uint8_t*>(addr);
    }
    if (bufs[i].second + (uint64_t(1) << 32) < addr) break;
  }
  std::string where;
  if (it != bufs.begin()) {
    auto j = it - 1;
    where = "; the nearest buffer below is [" + hex(j->first) + ", " + hex(j->second) + ")";
    if (addr >= j->first && addr < j->second) where += " and the access runs past its end";
  }
  if (addr - kSharedWindow < kWindowSize || addr - kLocalWindow < kWindowSize)
    where += "; this is a generic shared/local address used as a global one";
  fault(FaultKind::GlobalOutOfBounds, w, l, in,
        std::string(write ? "write" : "read") + " of " + std::to_string(bytes) + " bytes at " + hex(addr) +
            " is outside every buffer of the launch" + where);
}

uint8_t* BlockRun::local_ptr(Warp& w, const Inst& in, int l, uint64_t off, unsigned bytes) {
  if (off + bytes > e.local_bytes || off + bytes < off)
    fault(FaultKind::LocalOutOfBounds, w, l, in,
          "local offset " + hex(off) + " (" + std::to_string(bytes) + " bytes) is outside the thread's " +
              std::to_string(e.local_bytes) + " bytes");
  return local.data() + size_t(tid_of(w, l)) * e.local_bytes + off;
}

void BlockRun::shared_access(Warp& w, const Inst& in, int l, uint64_t off, unsigned bytes, bool write,
                             const uint8_t* data, uint8_t* out) {
  if (off + bytes > shared_size || off + bytes < off)
    fault(FaultKind::SharedOutOfBounds, w, l, in,
          std::string(write ? "write" : "read") + " of " + std::to_string(bytes) + " bytes at shared offset " + hex(off) +
              " is outside the block's " + std::to_string(shared_size) + " bytes of shared memory");
  const uint32_t tid = tid_of(w, l), wid = w.id, wep = w.wep, iss = issue;
  const bool races = L.opts.check_races;
  for (unsigned i = 0; i < bytes; ++i) {
    Shadow& s = shadow[off + i];
    uint64_t at = off + i;
    if (s.pending == serial)
      fault(FaultKind::CpAsyncPending, w, l, in,
            "shared byte " + hex(at) + " is the destination of a cp.async whose group has not been waited for");
    if (!write && L.opts.check_uninit && s.init != serial)
      fault(FaultKind::SharedUninit, w, l, in,
            "shared byte " + hex(at) + " is read before any thread of this block wrote it");
    if (races) {
      // Against the last write since the barrier.
      if (s.w_epoch == epoch && s.w_tid != tid) {
        bool same_warp = s.w_tid / 32 == wid;
        bool ordered = same_warp && s.w_wep != wep;
        if (!ordered) {
          if (same_warp && s.w_issue == iss) {
            if (write && shared[at] != data[i])
              fault(FaultKind::SharedWriteConflict, w, l, in,
                    "shared byte " + hex(at) + " is written with different values by " + thread_name(*this, s.w_tid) +
                        " and " + thread_name(*this, tid) + " in this one instruction");
          } else {
            fault(FaultKind::SharedRace, w, l, in,
                  "shared byte " + hex(at) + " is " + (write ? "written" : "read") + " by " + thread_name(*this, tid) +
                      " and written by " + thread_name(*this, s.w_tid) + " at line " + std::to_string(s.w_line) +
                      ", with no barrier between them" +
                      (same_warp ? " (same warp: bar.warp.sync orders lanes)" : " (bar.sync orders warps)"));
          }
        }
      }
      // A write against the reads since the barrier.
      if (write && s.r_epoch == epoch && s.r_tid != tid) {
        bool ordered = s.r_warp == wid && s.r_wep != wep;
        bool same_issue = s.r_warp == wid && s.r_wep == wep && s.r_issue == iss;
        if (!ordered && !same_issue)
          fault(FaultKind::SharedRace, w, l, in,
                "shared byte " + hex(at) + " is written by " + thread_name(*this, tid) + " and read by " +
                    (s.r_tid == kMany ? std::string("several threads") : thread_name(*this, s.r_tid)) + " (line " +
                    std::to_string(s.r_line) + "), with no barrier between them");
      }
    }
    if (write) {
      shared[at] = data[i];
      s.init = serial;
      s.w_epoch = epoch;
      s.w_tid = tid;
      s.w_wep = wep;
      s.w_issue = iss;
      s.w_line = in.line;
    } else {
      out[i] = shared[at];
      // A fresh record since the barrier, or since this warp's last
      // bar.warp.sync when only its lanes had read (those reads are ordered
      // before this one and before anything after it).
      if (s.r_epoch != epoch || (s.r_warp == wid && s.r_wep != wep)) {
        s.r_epoch = epoch;
        s.r_tid = tid;
        s.r_warp = wid;
        s.r_wep = wep;
        s.r_issue = iss;
      } else if (s.r_tid != tid) {
        s.r_tid = kMany;
        if (s.r_warp != wid) s.r_warp = kMany;
        if (s.r_wep != wep) s.r_issue = iss;
        else if (s.r_issue != iss) s.r_issue = 0;
        s.r_wep = wep;
      } else {
        s.r_wep = wep;
        s.r_issue = iss;
      }
      s.r_line = in.line;
    }
  }
}

void BlockRun::load(Warp& w, const Inst& in, int l, Space sp, uint64_t addr, unsigned bytes, uint8_t* out) {
  switch (sp) {
    case Space::Global: case Space::Const: case Space::Generic:
      std::memcpy(out, global_ptr(w, in, l, addr, bytes, false), bytes);
      return;
    case Space::Shared: shared_access(w, in, l, addr, bytes, false, nullptr, out); return;
    case Space::Local: std::memcpy(out, local_ptr(w, in, l, addr, bytes), bytes); return;
    case Space::Param:
      if (addr + bytes > L.params.size() || addr + bytes < addr)
        fault(FaultKind::ParamOutOfBounds, w, l, in, "parameter offset " + hex(addr) + " is past the parameters");
      std::memcpy(out, L.params.data() + addr, bytes);
      return;
  }
}

void BlockRun::store(Warp& w, const Inst& in, int l, Space sp, uint64_t addr, unsigned bytes, const uint8_t* data) {
  switch (sp) {
    case Space::Global: case Space::Generic: case Space::Const:
      std::memcpy(global_ptr(w, in, l, addr, bytes, true), data, bytes);
      return;
    case Space::Shared: shared_access(w, in, l, addr, bytes, true, data, nullptr); return;
    case Space::Local: std::memcpy(local_ptr(w, in, l, addr, bytes), data, bytes); return;
    case Space::Param: fault(FaultKind::Unsupported, w, l, in, "store to the parameter space");
  }
}

// Completes the lane's oldest committed groups until `keep` remain.
void BlockRun::cp_complete(Warp& w, const Inst& in, int l, size_t keep) {
  CpThread& c = cp[tid_of(w, l)];
  while (c.groups.size() > keep) {
    for (const CpCopy& cc : c.groups.front()) {
      uint8_t buf[16] = {};
      std::memcpy(buf, cc.data, cc.bytes);
      for (unsigned i = 0; i < cc.size; ++i) shadow[cc.dst + i].pending = 0;
      shared_access(w, in, l, cc.dst, cc.size, true, buf, nullptr);
    }
    c.groups.pop_front();
  }
}

void BlockRun::exec_mem(Warp& w, const Inst& in, uint32_t m) {
  const Opnd* o = ops(in);
  const Ty t = in.type;
  switch (in.op) {
    case Op::Ld: case Op::St: {
      const unsigned eb = ty_bytes(t), n = in.vec, bytes = eb * n;
      const bool ld = in.op == Op::Ld;
      const Opnd& a = o[ld ? 1 : 0];
      const Opnd& v = o[ld ? 0 : 1];
      for_lanes(m, [&](int l) {
        uint64_t addr = address(w, a, l);
        Space sp = in.space;
        if (sp == Space::Generic) sp = classify(addr);
        if (addr % bytes)
          fault(FaultKind::Misaligned, w, l, in,
                std::to_string(bytes) + "-byte access at " + hex(address(w, a, l)) + " is not " + std::to_string(bytes) +
                    "-byte aligned");
        uint8_t buf[16];
        if (ld) {
          load(w, in, l, sp, addr, bytes, buf);
          for (unsigned i = 0; i < n; ++i) {
            const Opnd& d = n > 1 ? vec_el(v, int(i)) : v;
            if (d.kind != Opnd::Reg) continue;
            uint64_t x = 0;
            std::memcpy(&x, buf + i * eb, eb);
            // A narrow load into a wider register extends by the load's type.
            unsigned rb = e.reg_bits[d.reg] / 8;
            if (rb > eb) x = ty_signed(t) ? uint64_t(sext(x, eb)) & width_mask(rb) : x;
            put(w, d, l, x);
          }
        } else {
          for (unsigned i = 0; i < n; ++i) {
            uint64_t x = get(w, n > 1 ? vec_el(v, int(i)) : v, l);
            std::memcpy(buf + i * eb, &x, eb);
          }
          store(w, in, l, sp, addr, bytes, buf);
        }
      });
      return;
    }
    case Op::Cvta: case Op::CvtaTo:
      for_lanes(m, [&](int l) {
        uint64_t a = get(w, o[1], l), r = a;
        uint64_t win = in.space == Space::Shared ? kSharedWindow : in.space == Space::Local ? kLocalWindow : 0;
        if (in.op == Op::Cvta) {
          r = a + win;
        } else if (win) {
          if (a - win >= kWindowSize)
            fault(FaultKind::GlobalOutOfBounds, w, l, in,
                  "cvta.to" + std::string(in.space == Space::Shared ? ".shared" : ".local") + " of " + hex(a) +
                      ", which is not a generic address of that space");
          r = a - win;
        }
        put(w, o[0], l, r & width_mask(ty_bytes(t)));
      });
      return;
    case Op::CpAsync:
      for_lanes(m, [&](int l) {
        uint64_t dst = address(w, o[0], l), src = address(w, o[1], l);
        unsigned size = unsigned(o[2].imm);
        uint64_t srcn = size;
        if (in.nops > 3) {
          if (in.mode == 1) srcn = (get(w, o[3], l) & 1) ? 0 : size;  // ignore-src
          else srcn = get(w, o[3], l) & 0xffffffffu;
        }
        if (srcn > size)
          fault(FaultKind::BadLaunch, w, l, in,
                "cp.async src-size " + std::to_string(srcn) + " is larger than the copy size " + std::to_string(size));
        if (dst % size || src % size)
          fault(FaultKind::Misaligned, w, l, in,
                "cp.async of " + std::to_string(size) + " bytes needs " + std::to_string(size) +
                    "-byte aligned addresses (shared " + hex(dst) + ", global " + hex(src) + ")");
        if (dst + size > shared_size)
          fault(FaultKind::SharedOutOfBounds, w, l, in,
                "cp.async destination " + hex(dst) + " (" + std::to_string(size) + " bytes) is outside shared memory");
        CpCopy c;
        c.dst = uint32_t(dst);
        c.size = uint8_t(size);
        c.bytes = uint8_t(srcn);
        if (srcn) std::memcpy(c.data, global_ptr(w, in, l, src, unsigned(srcn), false), srcn);
        for (unsigned i = 0; i < size; ++i) {
          Shadow& s = shadow[dst + i];
          if (s.pending == serial)
            fault(FaultKind::CpAsyncPending, w, l, in,
                  "cp.async to shared byte " + hex(dst + i) + ", the destination of another copy in flight");
          s.pending = serial;
        }
        cp[tid_of(w, l)].open.push_back(c);
      });
      return;
    case Op::CpCommit:
      for_lanes(m, [&](int l) {
        CpThread& c = cp[tid_of(w, l)];
        c.groups.push_back(std::move(c.open));
        c.open.clear();
      });
      return;
    case Op::CpWait:
      for_lanes(m, [&](int l) {
        CpThread& c = cp[tid_of(w, l)];
        if (in.flags & F_ALL) {
          if (!c.open.empty()) {
            c.groups.push_back(std::move(c.open));
            c.open.clear();
          }
          cp_complete(w, in, l, 0);
        } else {
          cp_complete(w, in, l, size_t(o[0].imm));
        }
      });
      return;
    case Op::Atom: {
      const unsigned eb = ty_bytes(t);
      for_lanes(m, [&](int l) {
        uint64_t addr = address(w, o[1], l);
        Space sp = in.space;
        if (sp == Space::Generic) sp = classify(addr);
        if (addr % eb) fault(FaultKind::Misaligned, w, l, in, "atomic at " + hex(addr) + " is not aligned");
        uint8_t* p;
        if (sp == Space::Shared) {
          if (addr + eb > shared_size)
            fault(FaultKind::SharedOutOfBounds, w, l, in, "atomic at shared offset " + hex(addr) + " is out of bounds");
          // Atomics do not race with each other; they count as writes for
          // the initialisation record only.
          for (unsigned i = 0; i < eb; ++i) {
            if (shadow[addr + i].pending == serial)
              fault(FaultKind::CpAsyncPending, w, l, in, "atomic on a cp.async destination in flight");
            shadow[addr + i].init = serial;
          }
          p = shared + addr;
        } else if (sp == Space::Global) {
          p = global_ptr(w, in, l, addr, eb, true);
        } else {
          fault(FaultKind::Unsupported, w, l, in, "atomic on local memory");
        }
        uint64_t old = 0, b = get(w, o[2], l), r = 0;
        std::memcpy(&old, p, eb);
        uint64_t mask = width_mask(eb);
        bool sg = ty_signed(t);
        switch (AtomOp(in.mode)) {
          case AtomOp::Add:
            if (t == Ty::F32) r = fp::bits(fp::f32(uint32_t(old)) + fp::f32(uint32_t(b)));
            else if (t == Ty::F64) r = fp::bits(fp::f64(old) + fp::f64(b));
            else r = (old + b) & mask;
            break;
          case AtomOp::Min: r = (sg ? sext(old, eb) < sext(b, eb) : (old & mask) < (b & mask)) ? old : b; break;
          case AtomOp::Max: r = (sg ? sext(old, eb) > sext(b, eb) : (old & mask) > (b & mask)) ? old : b; break;
          case AtomOp::Inc: r = (old & mask) >= (b & mask) ? 0 : old + 1; break;
          case AtomOp::Dec: r = ((old & mask) == 0 || (old & mask) > (b & mask)) ? b : old - 1; break;
          case AtomOp::And: r = old & b; break;
          case AtomOp::Or: r = old | b; break;
          case AtomOp::Xor: r = old ^ b; break;
          case AtomOp::Exch: r = b; break;
          case AtomOp::Cas: r = (old & mask) == (b & mask) ? get(w, o[3], l) : old; break;
        }
        r &= mask;
        std::memcpy(p, &r, eb);
        put(w, o[0], l, old & mask);
      });
      return;
    }
    default:
      fault(FaultKind::Unsupported, w, __builtin_ctz(m), in, "no memory form of this instruction");
  }
}

}  // namespace ptoas::ptx
