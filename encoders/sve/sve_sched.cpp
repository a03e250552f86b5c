// A list scheduler for the SVE backend's straight-line code (sve_gen.h):
// the instructions of one block (between labels, branches and .pto line
// boundaries) are reordered by critical path, with a latency table of an
// SVE core (Neoverse V1-like numbers: loads 6 cycles, gathers 9, FP
// arithmetic 4, divides 10-15, integer and predicate operations 1-2).
//
// Dependencies come from LLVM's instruction descriptors: the explicit
// register operands (defs first), implicit defs and uses (NZCV), register
// overlap through the register units (an S or D register is part of its Z
// register, a W register of its X register); a store is ordered after
// every earlier load and store, a load after every earlier store; an
// instruction with unmodelled side effects ends the block. The order is
// deterministic: among ready instructions the longest remaining path goes
// first, then program order.
#include <llvm/MC/MCInst.h>

#include <algorithm>
#include <string_view>

#include "sve_gen.h"
#include "sve_mc_impl.h"

namespace ptoas::cg::sve::gen {

namespace {

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

unsigned latency(std::string_view n) {
  if (starts(n, "GLD1")) return 9;
  if (starts(n, "LD1") || starts(n, "LDR") || starts(n, "LDP")) return 6;
  if (starts(n, "FDIV") || starts(n, "FSQRT")) return n.find("_D") != std::string_view::npos ? 15 : 10;
  if (starts(n, "SDIV") || starts(n, "UDIV")) return 12;
  if (starts(n, "ST") || starts(n, "SST1")) return 1;
  if (starts(n, "FADD") || starts(n, "FSUB") || starts(n, "FMUL") || starts(n, "FMLA") || starts(n, "FMAD") ||
      starts(n, "FMLS") || starts(n, "FCVT") || starts(n, "FRINT") || starts(n, "SCVTF") || starts(n, "UCVTF") ||
      starts(n, "FMIN") || starts(n, "FMAX") || starts(n, "FABS") || starts(n, "FNEG"))
    return 4;
  if (starts(n, "MUL_Z") || starts(n, "MLA_Z") || starts(n, "MADD") || starts(n, "MSUB")) return 4;
  if (n.find("_Z") != std::string_view::npos || n.find("_P") != std::string_view::npos ||
      starts(n, "WHILE") || starts(n, "PTRUE"))
    return 2;
  return 1;
}

}  // namespace

void Gen::schedule_block() {
  const size_t n = block_.size();
  if (n < 3 || n > 2000 || !schedule_) {
    for (const llvm::MCInst& mi : block_) put(mi);
    block_.clear();
    return;
  }
  const McImpl& mc = *mc_.impl();
  struct Node {
    std::vector<unsigned> defs, uses;
    bool load = false, store = false;
    unsigned lat = 1, prio = 0, npred = 0;
    std::vector<uint32_t> succ;
  };
  std::vector<Node> nodes(n);
  for (size_t i = 0; i < n; ++i) {
    const llvm::MCInst& mi = block_[i];
    const llvm::MCInstrDesc& d = mc.mii->get(mi.getOpcode());
    Node& nd = nodes[i];
    for (unsigned k = 0; k < mi.getNumOperands(); ++k) {
      const llvm::MCOperand& o = mi.getOperand(k);
      if (!o.isReg() || o.getReg() == 0) continue;
      (k < d.getNumDefs() ? nd.defs : nd.uses).push_back(o.getReg());
    }
    for (llvm::MCPhysReg r : d.implicit_defs()) nd.defs.push_back(r);
    for (llvm::MCPhysReg r : d.implicit_uses()) nd.uses.push_back(r);
    nd.load = d.mayLoad();
    nd.store = d.mayStore() || d.hasUnmodeledSideEffects();
    nd.lat = latency(std::string_view(mc_.opcode_name(mi.getOpcode())));
  }
  auto overlap = [&](const std::vector<unsigned>& a, const std::vector<unsigned>& b) {
    for (unsigned x : a)
      for (unsigned y : b)
        if (mc.mri->regsOverlap(x, y)) return true;
    return false;
  };
  for (size_t j = 0; j < n; ++j)
    for (size_t i = 0; i < j; ++i) {
      const Node &a = nodes[i], &b = nodes[j];
      bool dep = overlap(a.defs, b.uses) || overlap(a.uses, b.defs) || overlap(a.defs, b.defs) ||
                 (a.store && (b.load || b.store)) || (a.load && b.store);
      if (dep) {
        nodes[i].succ.push_back(uint32_t(j));
        ++nodes[j].npred;
      }
    }
  for (size_t i = n; i-- > 0;) {  // longest path to the end of the block
    unsigned best = 0;
    for (uint32_t s : nodes[i].succ) best = std::max(best, nodes[s].prio);
    nodes[i].prio = best + nodes[i].lat;
  }
  std::vector<uint32_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (!nodes[i].npred) ready.push_back(uint32_t(i));
  for (size_t done = 0; done < n; ++done) {
    size_t pick = 0;
    for (size_t k = 1; k < ready.size(); ++k) {
      const Node &c = nodes[ready[k]], &p = nodes[ready[pick]];
      if (c.prio > p.prio || (c.prio == p.prio && ready[k] < ready[pick])) pick = k;
    }
    uint32_t i = ready[pick];
    ready.erase(ready.begin() + long(pick));
    put(block_[i]);
    for (uint32_t s : nodes[i].succ)
      if (--nodes[s].npred == 0) ready.push_back(s);
  }
  block_.clear();
}

}  // namespace ptoas::cg::sve::gen
