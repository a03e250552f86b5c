// Memory instructions: scalar loads from the kernarg segment, global
// loads, stores and atomics on the caller's buffers, and LDS. Every access
// is checked before it happens. The memory effect takes place at issue;
// the result registers stay "pending" until an s_waitcnt proves the
// operation complete (exec.cpp), which is what the check needs.
//
// LDS checks, per byte: written since the workgroup started (else a read
// is a fault), and which wave last wrote it and read it in which barrier
// interval, so that two waves touching one byte between the same two
// barriers, at least one of them writing, is reported as a race.
#include <cstring>

#include "exec.h"
#include "hex_text.h"

namespace ptoas::amdgpu_emu {

namespace {

bool lds_access(Exec& x, Wave& w, unsigned lane, uint32_t addr, unsigned n, bool write, const uint8_t* src,
                uint8_t* dst) {
  if (uint64_t(addr) + n > x.lds.size())
    return x.fault(w, int(lane), std::string("out-of-bounds LDS ") + (write ? "write" : "read") + " of " +
                                     std::to_string(n) + " bytes at " + hex(addr) + " (the kernel allocates " +
                                     std::to_string(x.lds.size()) + " bytes)");
  for (unsigned i = 0; i < n; ++i) {
    size_t b = size_t(addr) + i;
    if (!write && !x.lds_init[b])
      return x.fault(w, int(lane), "read of uninitialised LDS: byte " + hex(b) + " (" + std::to_string(n) +
                                       "-byte read at " + hex(addr) + "), which no lane wrote");
    if (!x.race_check(w, lane, x.lds_shadow, b, write, "LDS")) return false;
  }
  for (unsigned i = 0; i < n; ++i) {
    size_t b = size_t(addr) + i;
    if (write) {
      x.lds[b] = src[i];
      x.lds_init[b] = 1;
    } else {
      dst[i] = x.lds[b];
    }
  }
  return true;
}

// The dwords of a load result in registers (sub-dword loads extend).
void put_loaded(Exec& x, Wave& w, const Opnd& dst, unsigned lane, const uint8_t* p, unsigned n, bool sgn) {
  if (n >= 4) {
    for (unsigned i = 0; i < n / 4; ++i) std::memcpy(&x.vr(w, dst.reg + i, lane), p + 4 * i, 4);
    return;
  }
  uint32_t v = n == 1 ? (sgn ? uint32_t(int32_t(int8_t(p[0]))) : p[0])
                      : (sgn ? uint32_t(int32_t(int16_t(p[0] | p[1] << 8))) : uint32_t(p[0] | p[1] << 8));
  x.vr(w, dst.reg, lane) = v;
}

void get_data(Exec& x, Wave& w, const Opnd& src, unsigned lane, uint8_t* p, unsigned n) {
  uint32_t tmp[4] = {};
  for (unsigned i = 0; i < (n + 3) / 4; ++i) tmp[i] = x.vr(w, src.reg + i, lane);
  std::memcpy(p, tmp, n);
}

}  // namespace

bool Exec::race_check(Wave& w, unsigned lane, Shadow& sh, size_t b, bool write, const char* what) {
  uint8_t me = uint8_t(w.id + 1);
  uint32_t g = interval;
  std::string mem = what;
  if (write) {
    if (sh.writer[b] && sh.writer[b] != me && sh.wgen[b] == g)
      return fault(w, int(lane), mem + " race: byte " + hex(b) + " written by wave " + std::to_string(w.id) +
                                     " and by wave " + std::to_string(sh.writer[b] - 1) + " with no s_barrier between");
    if (sh.rgen[b] == g && (sh.readers[b] & ~(1u << (w.id & 31))))
      return fault(w, int(lane), mem + " race: byte " + hex(b) + " written by wave " + std::to_string(w.id) +
                                     " after another wave read it, with no s_barrier between");
    sh.writer[b] = me;
    sh.wgen[b] = g;
  } else {
    if (sh.writer[b] && sh.writer[b] != me && sh.wgen[b] == g)
      return fault(w, int(lane), mem + " race: byte " + hex(b) + " read by wave " + std::to_string(w.id) +
                                     " was written by wave " + std::to_string(sh.writer[b] - 1) +
                                     " with no s_barrier between");
    if (sh.rgen[b] != g) {
      sh.rgen[b] = g;
      sh.readers[b] = 0;
    }
    sh.readers[b] |= 1u << (w.id & 31);
  }
  return true;
}

bool exec_mem(Exec& x, Wave& w, const Inst& in) {
  const Opnd* o = in.ops;
  const uint64_t exec = x.exec_mask(w);
  const unsigned W = x.W;
  const bool gfx11 = x.gen >= 10;

  switch (in.op) {
    case Op::SLoad: {
      uint64_t addr = x.s64(w, o[1]) + x.s32(w, o[2]);
      const uint8_t* p = x.global(addr, in.bytes, true);
      if (!p)
        return x.fault(w, -1, "out-of-bounds scalar load of " + std::to_string(in.bytes) + " bytes at " + hex(addr) +
                                  " (neither the kernarg segment nor a registered buffer)");
      for (unsigned i = 0; i < in.bytes / 4u; ++i) std::memcpy(&w.s[o[0].reg + i], p + 4 * i, 4);
      x.issue(w, nullptr, true, &o[0]);
      return true;
    }
    case Op::GlobalLoad: case Op::GlobalStore: case Op::GlobalAtomicAdd: case Op::GlobalAtomicCmpswap: {
      bool load = in.op == Op::GlobalLoad, store = in.op == Op::GlobalStore;
      const Opnd& vaddr = load ? o[1] : store ? o[0] : o[1];
      for (unsigned l = 0; l < W; ++l) {
        if (!(exec >> l & 1)) continue;
        uint64_t addr = (in.saddr ? x.s64(w, o[2]) + x.vr(w, vaddr.reg, l) : x.src64(w, vaddr, l, false)) +
                        uint64_t(int64_t(in.offset));
        uint8_t* p = x.global(addr, in.bytes, false);
        if (!p) {
          const char* what = load ? "load" : store ? "store" : "atomic";
          return x.fault(w, int(l), std::string("out-of-bounds global ") + what + " of " + std::to_string(in.bytes) +
                                        " bytes at " + hex(addr));
        }
        if (x.wl_base && p >= x.wl_base && p < x.wl_base + x.wl_bytes)
          for (unsigned i = 0; i < in.bytes; ++i)
            if (!x.race_check(w, l, x.wl_shadow, size_t(p - x.wl_base) + i, !load, "workgroup memory"))
              return false;
        if (load) {
          put_loaded(x, w, o[0], l, p, in.bytes, in.is_signed);
        } else if (store) {
          uint8_t buf[16];
          get_data(x, w, o[1], l, buf, in.bytes);
          std::memcpy(p, buf, in.bytes);
        } else {
          uint32_t old = 0;
          std::memcpy(&old, p, 4);
          uint32_t data = x.vr(w, o[2].reg, l), nv = old + data;
          if (in.op == Op::GlobalAtomicCmpswap) nv = old == x.vr(w, o[2].reg + 1, l) ? data : old;
          std::memcpy(p, &nv, 4);
          if (in.glc) x.vr(w, o[0].reg, l) = old;
        }
      }
      // gfx10+ count stores and atomics without a result in vscnt.
      bool returns = load || (!store && in.glc);
      x.issue(w, (gfx11 && !returns) ? &w.vs : &w.vm, false, returns ? &o[0] : nullptr);
      return true;
    }
    case Op::DsRead: case Op::DsWrite:
      for (unsigned l = 0; l < W; ++l) {
        if (!(exec >> l & 1)) continue;
        bool rd = in.op == Op::DsRead;
        uint32_t addr = x.vr(w, (rd ? o[1] : o[0]).reg, l) + uint32_t(in.offset);
        uint8_t buf[16] = {};
        if (!rd) get_data(x, w, o[1], l, buf, in.bytes);
        if (!lds_access(x, w, l, addr, in.bytes, !rd, buf, buf)) return false;
        if (rd) put_loaded(x, w, o[0], l, buf, in.bytes, in.is_signed);
      }
      x.issue(w, &w.lds, false, in.op == Op::DsRead ? &o[0] : nullptr);
      return true;
    case Op::DsSwizzle: case Op::DsBpermute: {
      // Every lane reads the source as it was before the instruction.
      std::vector<uint32_t> src(W);
      const Opnd& data = in.op == Op::DsSwizzle ? o[1] : o[2];
      for (unsigned l = 0; l < W; ++l) src[l] = x.vr(w, data.reg, l);
      std::vector<uint32_t> res(W, 0);
      uint32_t pat = uint32_t(in.offset) & 0xffff;
      for (unsigned l = 0; l < W; ++l) {
        if (!(exec >> l & 1)) continue;
        unsigned from;
        if (in.op == Op::DsBpermute) {
          from = ((x.vr(w, o[1].reg, l) + uint32_t(in.offset)) / 4) % W;
        } else if (pat & 0x8000) {  // quad permute: lane i of each quad takes pattern[2i+1:2i]
          from = (l & ~3u) | ((pat >> (2 * (l & 3))) & 3);
        } else {                    // bit mask, within groups of 32 lanes
          unsigned and_m = pat & 31, or_m = (pat >> 5) & 31, xor_m = (pat >> 10) & 31;
          from = (l & ~31u) | ((((l & 31) & and_m) | or_m) ^ xor_m);
        }
        res[l] = (exec >> from & 1) ? src[from] : 0;
      }
      for (unsigned l = 0; l < W; ++l)
        if (exec >> l & 1) x.vr(w, o[0].reg, l) = res[l];
      x.issue(w, &w.lds, false, &o[0]);
      return true;
    }
    default: return x.fault(w, -1, "internal error: not a memory instruction");
  }
}

}  // namespace ptoas::amdgpu_emu
