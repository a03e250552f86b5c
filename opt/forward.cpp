// Pass `forward`: store-to-load forwarding. `tstore t -> V` followed in the
// same region by `tload V -> t2` (the same view value), with no write to
// memory or to t in between, reads back exactly t's valid region, bit for
// bit (both moves copy bits); a write to any tile sharing t's storage
// (tile_alias.h) counts as a write to t. The tload becomes `tmov t -> t2`, or goes
// when t2 is t. Only when t2's valid region is its whole tile (a tload
// also pads the rest, a tmov would not) and the element types match.
#include "ir_edit.h"
#include "passes.h"
#include "tile_alias.h"

namespace ptoas::opt {

namespace {

bool plain_move(const Module& m, const Inst& in, Op op) {
  if (in.op != op || in.n_ins != 1 || in.n_outs != 1 || in.n_attrs) return false;
  ValueId t = op == Op::TStore ? m.operand(in, 0) : m.operand(in, 1);
  ValueId v = op == Op::TStore ? m.operand(in, 1) : m.operand(in, 0);
  return is_tile(m, t) && m.type_of(v).kind == TypeKind::PartitionView &&
         m.type_of(v).elem == m.type_of(t).elem;
}

// May `in` write memory that a tload could read (GM), or do anything this
// pass cannot see through?
bool may_write_memory(const Module& m, const Inst& in) {
  if (in.n_regions) return true;
  if (is_pure(m, in) || in.op == Op::AllocTile) return false;
  const OpInfo& info = op_info(in.op);
  if (info.syn != Syn::Dps) return true;
  if (info.sem == Sem::Sync) return false;
  for (unsigned i = 0; i < in.n_outs; ++i)
    if (!is_tile(m, m.operand(in, in.n_ins + i))) return true;
  return false;
}

// One region's tstore -> tload pairs (the rewrite happens in place; loads
// that go are marked in `drop`).
void forward_region(Module& m, RegionId r, const TileAliases& alias, std::vector<uint8_t>& drop) {
  std::vector<InstId> list = region_list(m, r);
  for (size_t i = 0; i < list.size(); ++i) {
    const Inst& st = m.insts[list[i]];
    if (!plain_move(m, st, Op::TStore)) continue;
    ValueId t = m.operand(st, 0), view = m.operand(st, 1);
    for (size_t j = i + 1; j < list.size(); ++j) {
      Inst& ld = m.insts[list[j]];
      if (plain_move(m, ld, Op::TLoad) && m.operand(ld, 0) == view) {
        // Neither rewrite writes memory or t: keep looking for more loads.
        ValueId t2 = m.operand(ld, 1);
        if (t2 == t && full_static_tile(m, t)) {
          drop[list[j]] = 1;
          continue;
        }
        if (!alias.may_alias(t2, t) && full_static_tile(m, t2) && same_tile_shape(m, t, t2)) {
          ld.op = Op::TMov;  // ins(t) outs(t2): the operands stay in place
          m.operands[ld.opnd] = t;
          continue;
        }
        break;
      }
      if (may_write_memory(m, ld) || alias.writes_alias(m, ld, t)) break;
    }
  }
}

}  // namespace

bool pass_forward(Module& m, const PassContext&) {
  std::vector<RegionId> all;
  std::vector<uint8_t> drop(m.insts.size(), 0);
  for (InstId fn : function_defs(m)) {
    const TileAliases alias(m, fn);
    std::vector<RegionId> regions = function_regions(m, fn);
    all.insert(all.end(), regions.begin(), regions.end());
    for (RegionId r : regions) forward_region(m, r, alias, drop);
  }
  drop_listed(m, all, drop);
  return true;
}

}  // namespace ptoas::opt
