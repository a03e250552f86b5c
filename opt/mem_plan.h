// Memory planning for tiles (docs/optimizer.md "Memory planning"): where
// each allocation of a function lives within its location's memory, and
// which tiles must start zeroed. Used by the CPU encoders' frame plan
// (encoders/plan.cpp) for modules optimized at -O1 and above, and by
// --stats.
#pragma once
#include <cstdint>
#include <vector>

#include "ir.h"

namespace ptoas::opt {

inline constexpr unsigned kLocCount = 7;  // Vec .. Scaling (Loc::Gm and None hold no tiles)

struct TilePlan {
  // By InstId of an alloc_tile without an explicit address: its byte offset
  // in its location (64-byte aligned); kNone for other instructions.
  std::vector<uint32_t> offset;
  // By InstId: the tile may be read before it is wholly written, so it must
  // start zeroed as the interpreter's tiles do.
  std::vector<uint8_t> needs_zero;
  uint64_t bytes[kLocCount] = {};        // the planned size of each location
  uint64_t unshared_bytes[kLocCount] = {};  // what one slot per allocation would need
  unsigned shared = 0;                   // allocations placed on a dead tile's memory
};

// Plans fn's tiles. `reuse`: let a tile take the memory of tiles whose last
// use is behind it. Never shares in a function with explicit tile
// addresses (addr=), which may alias anything.
TilePlan plan_tiles(const Module& m, InstId fn, bool reuse);

}  // namespace ptoas::opt
