// Tile storage aliasing: which tile values of a function may name the same
// memory, and, where it is certain, which allocation a tile operand names.
//
// Tile values are not all allocations: `treshape ins(s) outs(d)` makes d
// name s's storage from then on, `subset` names part of its source, and the
// results and arguments of scf.if / scf.for / scf.while name whatever tile
// was yielded or passed in. Tiles at explicit addresses (level 3) may overlap
// each other. A pass that reasons about a tile's contents by its ValueId
// alone (dead writes, forwarding, copy propagation, memory planning, fused
// loops with static offsets) must ask here instead.
#pragma once
#include <cstdint>
#include <vector>

#include "ir.h"

namespace ptoas::opt {

// May-alias classes of one function's tile values (flow-insensitive, so
// conservative): two tile values in different classes never share a byte.
class TileAliases {
 public:
  TileAliases(const Module& m, InstId fn);
  // The class of tile value v; kNone for values that are not tiles of fn.
  uint32_t cls(ValueId v) const { return v < cls_.size() ? cls_[v] : kNone; }
  bool may_alias(ValueId a, ValueId b) const { return a == b || (cls(a) != kNone && cls(a) == cls(b)); }
  // The alloc_tile instructions whose storage a value of class c may name.
  const std::vector<InstId>& allocs(uint32_t c) const { return allocs_[c]; }
  // Class c holds one allocation's result and nothing else: the tile is
  // named by that value alone.
  bool single(uint32_t c) const { return single_[c] != 0; }
  uint32_t classes() const { return uint32_t(allocs_.size()); }
  // Does `in` write (as a DPS output) a tile that may alias v?
  bool writes_alias(const Module& m, const Inst& in, ValueId v) const;
  // Does `in` name (as any operand) a tile that may alias v?
  bool mentions_alias(const Module& m, const Inst& in, ValueId v) const;

 private:
  std::vector<uint32_t> cls_;  // by ValueId
  std::vector<std::vector<InstId>> allocs_;
  std::vector<uint8_t> single_;
};

// For every operand of every instruction of fn: the alloc_tile whose storage
// that tile operand names when the instruction runs, whenever that is the
// same allocation on every path and in every loop iteration (kNone when it
// is not, or for operands that are not tiles). A tile named through a
// treshape gets its source's allocation; values that merge different tiles
// at a join, loop-carried tiles and subsets are kNone.
class TileBindings {
 public:
  TileBindings(const Module& m, InstId fn);
  InstId at(const Module& m, const Inst& in, unsigned operand) const {
    size_t k = size_t(in.opnd) + operand;
    return k < by_operand_.size() ? by_operand_[k] : kNone;
  }

 private:
  std::vector<InstId> by_operand_;  // parallel to Module::operands
};

}  // namespace ptoas::opt
