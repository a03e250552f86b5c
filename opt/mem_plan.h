// Memory planning for tiles (docs/optimizer.md "Memory planning"): where
// each allocation of a function lives within its location's memory, and
// which tiles must start zeroed. Used by the CPU encoders' frame plan
// (encoders/cpu_frame.cpp) for modules optimized at -O1 and above, by the CCE
// backend (encoders/cce/) and by --stats.
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
  // With PlanParams capacities: the first location that does not fit (kNone
  // when all do), the bytes it needs, and the tiles live when it overflowed
  // (alloc InstIds, the one that did not fit last).
  uint32_t over_loc = kNone;
  uint64_t over_bytes = 0;
  std::vector<InstId> over_tiles;
};

// What the target's memories are (an NPU's: npu_plan_params).
struct PlanParams {
  uint32_t align[kLocCount];     // offsets are multiples of this (a power of two)
  uint64_t capacity[kLocCount];  // 0: unbounded
};
// The Ascend memories of `arch` (tile_memory_bytes), 256-byte aligned in
// UB and L1 and 4096-byte in L0A/L0B/L0C as the official planner does.
PlanParams npu_plan_params(Arch arch);

// Plans fn's tiles. `reuse`: let a tile take the memory of tiles whose last
// use is behind it. Never shares in a function with explicit tile
// addresses (addr=), which may alias anything.
// `params` (optional) replace the CPU default of 64-byte alignment and
// memories without bound. `no_memory` (optional, by InstId): allocations
// that get no memory (a GPU target keeps them in registers).
TilePlan plan_tiles(const Module& m, InstId fn, bool reuse, const PlanParams* params = nullptr,
                    const std::vector<uint8_t>* no_memory = nullptr);

}  // namespace ptoas::opt
