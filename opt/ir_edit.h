// Internal to opt/: reading and rewriting the flat IR in place.
//
// Instruction records are edited where they are; a region's instruction
// list is replaced by appending the new list to Module::region_insts and
// pointing the region at it (the old range becomes unreachable garbage, a
// few bytes per rewrite). Removed instructions simply stop being listed.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "int_eval.h"
#include "ir.h"

namespace ptoas::opt {

// The func.func definitions (with a body) of the module body.
std::vector<InstId> function_defs(const Module& m);

// Every region of function fn: its body first, then the nested ones in
// program order.
std::vector<RegionId> function_regions(const Module& m, InstId fn);

// Unlists the instructions marked in `drop` (by InstId) from `regions`.
void drop_listed(Module& m, const std::vector<RegionId>& regions, const std::vector<uint8_t>& drop);

// Does fn allocate a tile at an explicit address (addr=)? Such tiles may
// alias any other.
bool has_explicit_addresses(const Module& m, InstId fn);

std::vector<InstId> region_list(const Module& m, RegionId r);
void set_region_list(Module& m, RegionId r, const std::vector<InstId>& ids);

// How many times each value is used as an operand by an instruction that
// is still listed in some region of the module.
std::vector<uint32_t> use_counts(const Module& m);

// Pending value replacements for a pass that sweeps in pre-order (a
// definition before its uses): `rewrite` applies them to one
// instruction's operands as the sweep reaches it, `finish` to everything.
class Subst {
 public:
  explicit Subst(const Module& m) : to_(m.values.size(), kNone) {}
  void set(ValueId from, ValueId to) { to_[from] = to; any_ = true; }
  ValueId get(ValueId v) const {
    while (v < to_.size() && to_[v] != kNone) v = to_[v];
    return v;
  }
  void rewrite(Module& m, InstId id) const;
  void finish(Module& m) const;

 private:
  std::vector<ValueId> to_;
  bool any_ = false;
};

// Pure: no effect but its results, which depend only on its operands
// (and the block index, fixed for one run): arith (but division, which may
// trap in the interpreter), views, get_block_idx. Such an instruction may
// be removed when unused and merged with an identical one.
bool is_pure(const Module& m, const Inst& in);

// The float constant a scalar value is defined by, if it is one.
bool float_constant(const Module& m, ValueId v, double& out);

// Turns instruction `id` (one result, scalar integer / index / i1 type)
// into `arith.constant value`.
void make_int_constant(Module& m, InstId id, int64_t value);

// Tiles an instruction reads (DPS ins that are tiles) and writes (DPS outs
// that are tiles).
bool is_tile(const Module& m, ValueId v);

// Visits every listed instruction, pre-order, with the id of the region
// it is listed in.
template <class F>
void walk(const Module& m, RegionId r, F&& f) {
  const Region& reg = m.regions[r];
  for (unsigned i = 0; i < reg.inst_count; ++i) {
    InstId id = m.region_insts[reg.inst_begin + i];
    f(id, r);
    const Inst& in = m.insts[id];
    for (unsigned k = 0; k < in.n_regions; ++k) walk(m, in.region + k, f);
  }
}

}  // namespace ptoas::opt

namespace ptoas::opt {

// Tiles a and b are allocated with the same type and provably the same
// valid region (static, or the same SSA values for the dynamic extents),
// and nothing in the module changes either's valid shape.
bool same_tile_shape(const Module& m, ValueId a, ValueId b);

// The tile's valid region is its whole physical shape, statically.
bool full_static_tile(const Module& m, ValueId t);

// Ids of the DPS output operands of `in` (the values it writes).
inline bool writes(const Module& m, const Inst& in, ValueId v) {
  if (op_info(in.op).syn != Syn::Dps) return false;
  for (unsigned i = 0; i < in.n_outs; ++i)
    if (m.operand(in, in.n_ins + i) == v) return true;
  return false;
}

}  // namespace ptoas::opt
