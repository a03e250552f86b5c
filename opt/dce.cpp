// Pass `dce`: removes pure instructions whose results are unused (but the
// first tensor view of each pointer, which the runtime sizes buffers by), tile ops
// whose every output tile is never read, and tile allocations nothing
// uses. A tile counts as read when it appears anywhere but as a DPS output
// (an input, a view or subset of it, set_valid_shape, an opaque op), so a
// write is only dropped when no instruction could ever observe it, through
// the tile or any tile that may share its storage (tile_alias.h). Tiles
// placed at explicit addresses may alias each other: in a function with
// any, tile ops are kept.
#include <algorithm>

#include "ir_edit.h"
#include "passes.h"
#include "tile_alias.h"

namespace ptoas::opt {

namespace {

// `observed`: by alias class.
bool removable_tile_op(const Module& m, const Inst& in, const TileAliases& alias,
                       const std::vector<uint8_t>& observed) {
  if (op_info(in.op).syn != Syn::Dps || in.n_outs == 0 || in.n_res) return false;
  Sem s = op_info(in.op).sem;
  if (s == Sem::Sync || s == Sem::Npu || s == Sem::Other) return false;
  for (unsigned i = 0; i < in.n_outs; ++i) {
    ValueId v = m.operand(in, in.n_ins + i);
    if (!is_tile(m, v) || alias.cls(v) == kNone || observed[alias.cls(v)]) return false;
  }
  return true;
}

void sweep_function(Module& m, InstId fn) {
  bool addressed = has_explicit_addresses(m, fn);
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<uint32_t> uses = use_counts(m);
    const TileAliases alias(m, fn);
    std::vector<uint8_t> observed(alias.classes(), 0);
    walk(m, m.insts[fn].region, [&](InstId id, RegionId) {
      const Inst& in = m.insts[id];
      bool dps = op_info(in.op).syn == Syn::Dps;
      unsigned n = in.n_ins + (dps ? 0u : in.n_outs);
      for (unsigned i = 0; i < n; ++i)
        if (uint32_t c = alias.cls(m.operand(in, i)); c != kNone) observed[c] = 1;
    });
    // Reverse pre-order sees every use before its definition, so a dead
    // chain of pure instructions goes in one sweep.
    std::vector<std::pair<InstId, RegionId>> order;
    walk(m, m.insts[fn].region, [&](InstId id, RegionId r) { order.emplace_back(id, r); });
    std::vector<uint8_t> dead(m.insts.size(), 0);
    // A tensor view states the shape of the buffer behind a pointer: the
    // runtime sizes outputs and checks arguments by it. The first view of
    // each pointer parameter stays even when nothing uses it.
    std::vector<uint8_t> keep_view(m.insts.size(), 0);
    {
      std::vector<ValueId> seen_ptrs;
      for (auto& [id, r] : order) {
        const Inst& in = m.insts[id];
        if (in.op != Op::MakeTensorView || in.n_ins < 1) continue;
        ValueId p = m.operand(in, 0);
        if (std::find(seen_ptrs.begin(), seen_ptrs.end(), p) != seen_ptrs.end()) continue;
        seen_ptrs.push_back(p);
        keep_view[id] = 1;
      }
    }
    for (size_t i = order.size(); i-- > 0;) {
      InstId id = order[i].first;
      const Inst& in = m.insts[id];
      bool d = false;
      if (keep_view[id]) continue;
      if (is_pure(m, in) && uses[in.res] == 0) d = true;
      else if (in.op == Op::AllocTile && in.n_res == 1 && uses[in.res] == 0 && !addressed) d = true;
      else if (!addressed && removable_tile_op(m, in, alias, observed)) d = true;
      if (!d) continue;
      dead[id] = 1;
      changed = true;
      for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k) --uses[m.operand(in, k)];
    }
    if (!changed) break;
    drop_listed(m, function_regions(m, fn), dead);
  }
}

}  // namespace

bool pass_dce(Module& m, const PassContext&) {
  for (InstId f : function_defs(m)) sweep_function(m, f);
  return true;
}

}  // namespace ptoas::opt
