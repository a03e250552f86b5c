// A list scheduler for the SVE backend's straight-line code (sve/gen.h):
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
// instruction with unmodelled side effects counts as a store. The graph
// is built in time linear in the block (per unit: its last writer and its
// readers since). The order is
// deterministic: among ready instructions the longest remaining path goes
// first, then program order.
#include <llvm/MC/MCInst.h>

#include <algorithm>
#include <string_view>

#include "gen.h"
#include "mc/mc_llvm.h"

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
  const llvm::MCRegisterInfo& mri = mc_.reg_info();
  const llvm::MCInstrInfo& mii = mc_.instr_info();
  // Dependencies through the register units each instruction reads and
  // writes: an edge from a unit's last writer to its next reader and
  // writer, and from its readers since then to that writer; for memory,
  // from the last store to each load and store after it, and from the
  // loads since then to that store. That is fewer edges than comparing
  // every pair of the block (which this replaces: it was most of -target=sve
  // compile time) with the same transitive closure, so the same priorities
  // (a longest path is one through the edges kept) and the same order.
  SchedWork& w = sched_;
  w.first.assign(n + 1, 0);
  w.edges.clear();
  w.lat.resize(n);
  if (w.writer.empty()) {
    w.writer.assign(mri.getNumRegUnits(), -1);
    w.readers.assign(mri.getNumRegUnits(), {});
    w.lat_of.assign(mii.getNumOpcodes(), 0);
  }
  w.touched.clear();
  w.loads.clear();
  w.stamp.assign(n, -1);
  long last_store = -1;
  std::vector<std::pair<uint32_t, uint32_t>>& edges = w.edges;  // (from, to)
  auto edge = [&](long from, size_t to) {
    if (from < 0 || size_t(from) == to || w.stamp[size_t(from)] == long(to)) return;
    w.stamp[size_t(from)] = long(to);
    edges.push_back({uint32_t(from), uint32_t(to)});
  };
  auto touch = [&](unsigned u) {
    if (w.writer[u] == -1 && w.readers[u].empty()) w.touched.push_back(u);
  };
  for (size_t j = 0; j < n; ++j) {
    const llvm::MCInst& mi = block_[j];
    unsigned opc = mi.getOpcode();
    const llvm::MCInstrDesc& d = mii.get(opc);
    uint8_t& lat = w.lat_of[opc];
    if (lat == 0) lat = uint8_t(latency(std::string_view(mc_.opcode_name(opc))));
    w.lat[j] = lat;
    // Reads first (RAW), then writes (WAW, WAR).
    auto each_reg = [&](bool defs, auto&& f) {
      for (unsigned k = 0; k < mi.getNumOperands(); ++k) {
        const llvm::MCOperand& o = mi.getOperand(k);
        if (o.isReg() && o.getReg() != 0 && (k < d.getNumDefs()) == defs) f(o.getReg());
      }
      for (llvm::MCPhysReg r : defs ? d.implicit_defs() : d.implicit_uses()) f(r);
    };
    each_reg(false, [&](unsigned r) {
      mc::each_reg_unit(mri, r, [&](unsigned u) { edge(w.writer[u], j); });
    });
    each_reg(true, [&](unsigned r) {
      mc::each_reg_unit(mri, r, [&](unsigned u) {
        edge(w.writer[u], j);
        for (uint32_t rd : w.readers[u]) edge(long(rd), j);
      });
    });
    each_reg(false, [&](unsigned r) {
      mc::each_reg_unit(mri, r, [&](unsigned u) {
        touch(u);
        w.readers[u].push_back(uint32_t(j));
      });
    });
    each_reg(true, [&](unsigned r) {
      mc::each_reg_unit(mri, r, [&](unsigned u) {
        touch(u);
        w.writer[u] = long(j);
        w.readers[u].clear();
      });
    });
    bool load = d.mayLoad(), store = d.mayStore() || d.hasUnmodeledSideEffects();
    if (load || store) edge(last_store, j);
    if (store) {
      for (uint32_t l : w.loads) edge(long(l), j);
      w.loads.clear();
      last_store = long(j);
    } else if (load) {
      w.loads.push_back(uint32_t(j));
    }
  }
  for (unsigned u : w.touched) {
    w.writer[u] = -1;
    w.readers[u].clear();
  }
  // Successors by source (CSR), predecessor counts.
  w.npred.assign(n, 0);
  for (auto [from, to] : edges) {
    ++w.first[from + 1];
    ++w.npred[to];
  }
  for (size_t i = 0; i < n; ++i) w.first[i + 1] += w.first[i];
  w.succ.resize(edges.size());
  w.at.assign(w.first.begin(), w.first.end() - 1);
  for (auto [from, to] : edges) w.succ[w.at[from]++] = to;
  w.prio.assign(n, 0);
  for (size_t i = n; i-- > 0;) {  // longest path to the end of the block
    unsigned best = 0;
    for (uint32_t k = w.first[i]; k < w.first[i + 1]; ++k) best = std::max(best, w.prio[w.succ[k]]);
    w.prio[i] = best + w.lat[i];
  }
  std::vector<uint32_t>& ready = w.ready;
  ready.clear();
  for (size_t i = 0; i < n; ++i)
    if (!w.npred[i]) ready.push_back(uint32_t(i));
  for (size_t done = 0; done < n; ++done) {
    size_t pick = 0;
    for (size_t k = 1; k < ready.size(); ++k) {
      unsigned c = w.prio[ready[k]], p = w.prio[ready[pick]];
      if (c > p || (c == p && ready[k] < ready[pick])) pick = k;
    }
    uint32_t i = ready[pick];
    ready.erase(ready.begin() + long(pick));
    put(block_[i]);
    for (uint32_t k = w.first[i]; k < w.first[i + 1]; ++k)
      if (--w.npred[w.succ[k]] == 0) ready.push_back(w.succ[k]);
  }
  block_.clear();
}

}  // namespace ptoas::cg::sve::gen
