// Shared memory and barriers of a PTX function (gen.h).
//
// Tiles live in one static `.shared` array per entry, each location (vec,
// mat, left, ...) after the other, placed by opt/mem_plan.h (at -O1 and
// up, tiles share memory by liveness); the private tiles of the fused
// regions taken as row programs get none (they are registers). The array
// is zeroed on entry (the interpreter's tiles start zeroed).
//
// Barriers: every tile op records the bytes it touches since the last
// barrier with the signature of which warp touches which byte (row.cpp:
// a row belongs to one group of warps); an access that conflicts with a
// pending one (overlapping bytes, one of them a write) from another warp
// mapping gets a bar.sync before it, one from the same warps but other
// lanes a bar.warp.sync. Control flow edges flush (bar.sync when anything
// is pending), so a barrier never sits in divergent code: scalars, and so
// branches, are the same in every thread.
#include <algorithm>

#include "cpu_frame.h"
#include "int_eval.h"
#include "gen.h"
#include "mem_plan.h"
#include "row.h"
#include "tile_layout.h"

namespace ptoas::cg::ptx {

Geo Gen::geo(ValueId t) const {
  const Type& tt = ty(t);
  Geo g;
  g.es = std::max(1u, dtype_bytes(tt.elem));
  g.rows = tt.rows;
  g.cols = tt.cols;
  if (tt.blayout == BLayout::ColMajor) g.rs = g.es, g.cs = int64_t(tt.rows) * g.es;
  else g.rs = int64_t(tt.cols) * g.es, g.cs = g.es;
  return g;
}

std::pair<int64_t, int64_t> Gen::span(ValueId t) const {
  int64_t off = vals_[t].off;
  if (off < 0) return {0, INT64_MAX};
  return {off, off + int64_t(tile_storage_bytes(ty(t)))};
}

Access Gen::tile_access(ValueId t, bool write, uint64_t sig, unsigned lanes) {
  Access a;
  val(t);
  auto [lo, hi] = span(t);
  a.lo = lo, a.hi = hi;
  a.write = write;
  if (sig && vals_[t].off >= 0) {
    Geo g = geo(t);
    for (int64_t x : {vals_[t].off, g.rs, g.cs, int64_t(g.es), int64_t(g.rows), int64_t(g.cols)})
      sig = (sig ^ uint64_t(x)) * 0x100000001b3ull;
    a.sig = sig;
    a.lanes = lanes;
  }
  return a;
}

void Gen::access(const std::vector<Access>& acc) {
  bool full = false, warp = false;
  for (const Access& a : acc)
    for (const Access& b : pending_) {
      if (a.space != b.space || a.hi <= b.lo || b.hi <= a.lo || !(a.write || b.write)) continue;
      if (a.sig && a.sig == b.sig) warp |= a.lanes != b.lanes;
      else full = true;
    }
  if (full) {
    I("bar.sync", 0);
    pending_.clear();
  } else if (warp) {
    I("bar.warp.sync", "0xffffffff");
  }
  pending_.insert(pending_.end(), acc.begin(), acc.end());
}

void Gen::flush() {
  if (pending_.empty()) return;
  I("bar.sync", 0);
  pending_.clear();
}

// ---- the plan ---------------------------------------------------------------------

bool plan_smem(Gen& g, SmemPlan& plan) {
  const Module& m = g.m_;
  const Inst& f = m.inst(g.fn_);
  std::vector<uint8_t> skip(m.insts.size(), 0);
  bool reductions = false;
  walk_region(m, m.region(f, 0), [&](InstId id, const Inst& in) {
    Op o = in.op;
    reductions |= o == Op::TRowSum || o == Op::TRowMax || o == Op::TRowMin || o == Op::TRowProd;
    if (o != Op::Fuse) return;
    std::vector<const Inst*> ops;
    const Region& body = m.region(in, 0);
    for (unsigned i = 0; i < body.inst_count; ++i) {
      const Inst& b = m.inst(m.region_inst(body, i));
      if (b.op == Op::Yield && i + 1 == body.inst_count) break;
      ops.push_back(&b);
    }
    RPlan p;
    Refusal why;
    if (!plan_rows(g, *g.alias_, ops, &in, p, why)) return;
    g.regs_only_[id] = 1;
    for (ValueId t : p.priv)
      if (m.values[t].def != kNone) skip[m.values[t].def] = 1;
  });
  opt::PlanParams params;
  for (unsigned l = 0; l < opt::kLocCount; ++l) {
    params.align[l] = l == unsigned(Loc::Vec) ? 16 : 128;
    params.capacity[l] = 0;
  }
  opt::TilePlan tp = opt::plan_tiles(m, g.fn_, m.opt_level >= 1, &params, &skip);
  plan.off.assign(m.insts.size(), kNone);
  // Explicit addresses extend their location.
  uint64_t loc_bytes[opt::kLocCount] = {};
  for (unsigned l = 0; l < opt::kLocCount; ++l) loc_bytes[l] = tp.bytes[l];
  bool ok = true;
  walk_region(m, m.region(f, 0), [&](InstId id, const Inst& in) {
    if (in.op != Op::AllocTile || skip[id]) return;
    const Type& t = m.type_of(in.res);
    if (size_t(t.loc) >= opt::kLocCount || t.rows <= 0 || t.cols <= 0) return;
    if (in.flags & kInstHasAddr) {
      int64_t a;
      if (!int_constant(m, m.operand(in, 0), a) || a < 0 || a % 16) {
        unsupported(m, in, g.d_, g.t_, {RefusalCode::Operands, "pto.alloc_tile at an address that is not a 16-byte aligned constant"});
        ok = false;
        return;
      }
      loc_bytes[size_t(t.loc)] = std::max<uint64_t>(loc_bytes[size_t(t.loc)], uint64_t(a) + tile_storage_bytes(t));
    }
  });
  if (!ok) return false;
  uint64_t base[opt::kLocCount];
  uint64_t top = reductions ? 16 * kWarps * 4 : 0;  // cross-warp reduction scratch first
  plan.red_off = 0;
  plan.red_bytes = uint32_t(top);
  for (unsigned l = 0; l < opt::kLocCount; ++l) {
    top = (top + 127) & ~uint64_t(127);
    base[l] = top;
    top += loc_bytes[l];
  }
  const Inst* over = nullptr;
  uint64_t over_end = 0;
  // Subview windows that are not whole rows (lowering.h): a copy each,
  // after every location's tiles.
  walk_region(m, m.region(f, 0), [&](InstId id, const Inst& in) {
    if (WindowPlan wp; !subview_window(m, in, wp)) return;
    top = (top + 15) & ~uint64_t(15);
    plan.off[id] = uint32_t(std::min<uint64_t>(top, UINT32_MAX - 1));
    top += tile_storage_bytes(m.type_of(in.res));
    if (top > g.arch_.max_smem && !over) over = &in, over_end = top;
  });
  walk_region(m, m.region(f, 0), [&](InstId id, const Inst& in) {
    if (in.op != Op::AllocTile || skip[id]) return;
    const Type& t = m.type_of(in.res);
    if (size_t(t.loc) >= opt::kLocCount || t.rows <= 0 || t.cols <= 0) return;
    uint64_t off;
    if (in.flags & kInstHasAddr) {
      int64_t a = 0;
      int_constant(m, m.operand(in, 0), a);
      off = base[size_t(t.loc)] + uint64_t(a);
    } else {
      if (tp.offset[id] == kNone) return;
      off = base[size_t(t.loc)] + tp.offset[id];
    }
    uint64_t end = off + tile_storage_bytes(t);
    if (end > g.arch_.max_smem && !over) over = &in, over_end = end;
    plan.off[id] = uint32_t(off);
  });
  if (over) {
    g.d_.error(over->loc, 0,
               std::string(over->op == Op::Subview ? "pto.subview" : "pto.alloc_tile") + ": the tiles of this kernel need " + std::to_string(top) + " bytes of shared memory (this one ends at " +
                   std::to_string(over_end) + "); " +
                   (g.o_.simt_block.empty() ? "a " + std::string(g.arch_.name) + " block" : std::string(g.o_.simt_block)) +
                   " has at most " + std::to_string(g.arch_.max_smem) + " [limit]");
    return false;
  }
  plan.bytes = uint32_t((top + 15) & ~uint64_t(15));
  return true;
}

}  // namespace ptoas::cg::ptx
