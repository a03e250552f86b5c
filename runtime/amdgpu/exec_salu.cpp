// Scalar ALU instructions: one result per wave, SCC as the ISA defines it
// for each (carry, borrow, result non-zero, the compare).
#include "exec.h"

namespace ptoas::amdgpu_emu {

bool exec_salu(Exec& x, Wave& w, const Inst& in) {
  const Opnd* o = in.ops;
  switch (in.op) {
    case Op::SMovB32: x.set_s(w, o[0], x.s32(w, o[1])); break;
    case Op::SMovB64: x.set_s(w, o[0], x.s64(w, o[1])); break;
    case Op::SAddU32: {
      uint64_t r = uint64_t(x.s32(w, o[1])) + x.s32(w, o[2]);
      x.set_s(w, o[0], uint32_t(r));
      w.scc = r >> 32;
      break;
    }
    case Op::SSubU32: {
      uint32_t a = x.s32(w, o[1]), b = x.s32(w, o[2]);
      x.set_s(w, o[0], a - b);
      w.scc = b > a;
      break;
    }
    case Op::SAndB32: case Op::SOrB32: case Op::SXorB32: case Op::SAndn2B32: {
      uint32_t a = x.s32(w, o[1]), b = x.s32(w, o[2]);
      uint32_t r = in.op == Op::SAndB32 ? a & b : in.op == Op::SOrB32 ? a | b : in.op == Op::SXorB32 ? a ^ b : a & ~b;
      x.set_s(w, o[0], r);
      w.scc = r != 0;
      break;
    }
    case Op::SAndB64: case Op::SOrB64: case Op::SXorB64: case Op::SAndn2B64: {
      uint64_t a = x.s64(w, o[1]), b = x.s64(w, o[2]);
      uint64_t r = in.op == Op::SAndB64 ? a & b : in.op == Op::SOrB64 ? a | b : in.op == Op::SXorB64 ? a ^ b : a & ~b;
      x.set_s(w, o[0], r);
      w.scc = r != 0;
      break;
    }
    case Op::SNotB32: {
      uint32_t r = ~x.s32(w, o[1]);
      x.set_s(w, o[0], r);
      w.scc = r != 0;
      break;
    }
    case Op::SNotB64: {
      uint64_t r = ~x.s64(w, o[1]);
      x.set_s(w, o[0], r);
      w.scc = r != 0;
      break;
    }
    case Op::SAndSaveexecB32: case Op::SAndSaveexecB64: {
      bool wide = in.op == Op::SAndSaveexecB64;
      uint64_t exec = wide ? (uint64_t(w.s[kExec + 1]) << 32 | w.s[kExec]) : w.s[kExec];
      uint64_t src = wide ? x.s64(w, o[1]) : x.s32(w, o[1]);
      x.set_s(w, o[0], exec);
      exec &= src;
      w.s[kExec] = uint32_t(exec);
      if (wide) w.s[kExec + 1] = uint32_t(exec >> 32);
      w.scc = exec != 0;
      break;
    }
    case Op::SCmpEqU32: w.scc = x.s32(w, o[0]) == x.s32(w, o[1]); break;
    case Op::SCmpLgU32: w.scc = x.s32(w, o[0]) != x.s32(w, o[1]); break;
    case Op::SCselectB32: x.set_s(w, o[0], w.scc ? x.s32(w, o[1]) : x.s32(w, o[2])); break;
    case Op::SLshlB32: {
      uint32_t r = x.s32(w, o[1]) << (x.s32(w, o[2]) & 31);
      x.set_s(w, o[0], r);
      w.scc = r != 0;
      break;
    }
    case Op::SMulI32: x.set_s(w, o[0], uint32_t(int64_t(int32_t(x.s32(w, o[1]))) * int32_t(x.s32(w, o[2])))); break;
    case Op::SMulHiU32: x.set_s(w, o[0], uint32_t((uint64_t(x.s32(w, o[1])) * x.s32(w, o[2])) >> 32)); break;
    case Op::SAddcU32: {
      uint64_t r = uint64_t(x.s32(w, o[1])) + x.s32(w, o[2]) + (w.scc ? 1 : 0);
      x.set_s(w, o[0], uint32_t(r));
      w.scc = r >> 32;
      break;
    }
    default: return x.fault(w, -1, "internal error: not a scalar ALU instruction");
  }
  return true;
}

}  // namespace ptoas::amdgpu_emu
