// Decoding an instruction: the opcode's modifiers into Inst fields, the
// operands into the entry's pool with their literals read by type. Every
// form the executor runs is accepted here and nothing else: an unknown
// opcode or modifier is a located error, so a kernel never half-runs.
#include <algorithm>
#include <cmath>

#include "decoder.h"

namespace ptoas::ptx {

// Modifiers that change nothing the interpreter models: caching, memory
// ordering and scope (the interpreter is sequentially consistent between
// the points where it checks races), eviction hints.
bool ignorable_modifier(std::string_view w) {
  static const char* k[] = {"ca", "cs", "lu", "cv", "wb", "wt", "volatile", "relaxed", "acquire", "release",
                            "acq_rel", "weak", "sc", "mmio", "cta", "gpu", "sys", "cluster", "aligned", "sync",
                            "unified", "noftz"};
  for (const char* s : k)
    if (w == s) return true;
  return w.rfind("L1::", 0) == 0 || w.rfind("L2::", 0) == 0;
}

bool cmp_word(std::string_view w, Cmp& c) {
  static const std::pair<const char*, Cmp> k[] = {
      {"eq", Cmp::EQ},   {"ne", Cmp::NE},   {"lt", Cmp::LT},   {"le", Cmp::LE},   {"gt", Cmp::GT},
      {"ge", Cmp::GE},   {"lo", Cmp::LO},   {"ls", Cmp::LS},   {"hi", Cmp::HI},   {"hs", Cmp::HS},
      {"equ", Cmp::EQU}, {"neu", Cmp::NEU}, {"ltu", Cmp::LTU}, {"leu", Cmp::LEU}, {"gtu", Cmp::GTU},
      {"geu", Cmp::GEU}, {"num", Cmp::NUM}, {"nan", Cmp::NAN_},
  };
  for (auto& [n, v] : k)
    if (w == n) {
      c = v;
      return true;
    }
  return false;
}

bool Parser::decode(const Token& opc, std::vector<ParsedOpnd>& ops, Inst& in) {
  Decoder d(*this, opc, ops, in);
  std::string_view w = opc.text;
  size_t dot = w.find('.');
  d.base = w.substr(0, dot);
  while (dot != std::string_view::npos) {
    size_t nx = w.find('.', dot + 1);
    d.mods.push_back(w.substr(dot + 1, nx == std::string_view::npos ? nx : nx - dot - 1));
    dot = nx;
  }
  for (std::string_view m : d.mods)
    if (m.empty()) return d.fail("empty modifier in '" + std::string(w) + "'");
  if (!d.run()) return false;
  in.nops = uint8_t(d.out.size());
  in.op0 = uint32_t(e_->ops.size());
  e_->ops.insert(e_->ops.end(), d.out.begin(), d.out.end());
  if (d.label_at >= 0) add_fixup(in.op0 + uint32_t(d.label_at), d.label_sym, d.label_line, d.label_col);
  return true;
}

bool Decoder::run() {
  std::string_view b = base;
  if (b == "mov" || b == "ld" || b == "st" || b == "cvta" || b == "cp" || b == "atom" || b == "red" ||
      b == "prefetch" || b == "prefetchu")
    return memory();
  if (b == "bra" || b == "ret" || b == "exit" || b == "trap" || b == "brkpt" || b == "bar" || b == "barrier" ||
      b == "membar" || b == "fence" || b == "griddepcontrol" || b == "nanosleep")
    return control();
  if (b == "shfl" || b == "vote" || b == "redux" || b == "activemask" || b == "mma" || b == "ldmatrix")
    return warp();
  return arith();
}

bool Decoder::control() {
  if (base == "bra") {
    in.op = Op::Bra;
    flag("uni", F_UNI);
    return done() && count(1, 1) && label(0);
  }
  if (base == "ret" || base == "exit") {
    in.op = base == "ret" ? Op::Ret : Op::Exit;
    flag("uni", 0);
    return done() && count(0, 0);
  }
  if (base == "trap") {
    in.op = Op::Trap;
    return done() && count(0, 0);
  }
  if (base == "brkpt" || base == "membar" || base == "fence" || base == "griddepcontrol" || base == "nanosleep") {
    in.op = Op::Nop;
    // membar.gl, fence.sc.cta, fence.proxy.async...: ordering only.
    mods.clear();
    if (base == "nanosleep") return count(1, 1);
    return count(0, 0);
  }
  // bar.sync / bar.arrive / bar.warp.sync / barrier.sync[.aligned] / barrier.arrive
  if (base == "bar" && take("warp")) {
    if (!take("sync")) return fail("expected bar.warp.sync");
    in.op = Op::BarWarp;
    return done() && count(1, 1) && src(0, Ty::B32);
  }
  in.op = Op::Bar;
  if (take("arrive")) in.flags |= F_ARRIVE;
  else if (!take("sync")) {
    if (base == "bar" && mods.empty()) {
      // bar 0 (old spelling of bar.sync)
    } else if (take("red")) {
      return fail("bar.red is not supported by the PTX interpreter");
    } else {
      return fail("unsupported barrier form '" + std::string(opc.text) + "'");
    }
  }
  take("aligned");
  if (!done() || !count(1, 2)) return false;
  if (!src(0, Ty::U32)) return false;
  if (ops.size() == 2 && !src(1, Ty::U32)) return false;
  return true;
}

}  // namespace ptoas::ptx
