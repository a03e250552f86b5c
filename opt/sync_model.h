// The access model of NPU sync (docs/cce_backend.md §4): per instruction of a
// function, the pipe it runs on and the memory it reads and writes there.
// One source of truth for the insertion pass (sync_insert.cpp) and the
// checker (sync_check.cpp), so the checker proves exactly the hazards the
// inserter ordered.
//
// An access event is one (instruction, pipe) step; most ops are one event,
// library macros with hidden pipes (tput / tget: an MTE2 read, then an MTE3
// write) are two. A footprint is a byte range in one memory: a tile's root
// allocation as planned (treshape / subset / scf aliases name their root,
// opt/tile_alias.h; an unknown address covers the whole memory), or a GM
// range of one pointer root (the whole root when not computable).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir.h"
#include "pipes.h"

namespace ptoas::opt {

class TileAliases;

inline constexpr unsigned kSyncPipes = kPipeCount;  // S .. FIX (Pipe::All is a barrier only)
inline constexpr uint8_t kSpaceGm = 7;     // spaces 0..6 are the tile Locs Vec .. Scaling

struct Footprint {
  uint8_t space;    // Loc of the tile memory, or kSpaceGm
  bool write;
  ValueId root;     // GM: the pointer root; tiles: kNone
  uint64_t lo, hi;  // bytes [lo, hi)
};

struct SyncEvent {
  InstId inst;
  Pipe pipe;
  uint32_t fp_begin, fp_count;  // in SyncModel::fps
};

// A sync instruction as the checker reads it.
struct SyncInst {
  SyncOp op;
  bool clobbers_hidden = false;  // tput / tget: their internal MTE2->MTE3 ids 0/1
};

class SyncModel {
 public:
  SyncModel(const Module& m, InstId fn);

  const Module& m;
  InstId fn;
  Arch arch;
  std::vector<SyncEvent> events;
  std::vector<Footprint> fps;
  // By InstId: the first event and the count (0: no memory access).
  std::vector<uint32_t> ev_begin;
  std::vector<uint8_t> ev_count;
  // By InstId: pre-order index in the function and the last pre-order
  // index of its subtree; the region it is listed in and its place there.
  std::vector<uint32_t> pre, end, index;
  std::vector<RegionId> home;
  std::vector<InstId> owner;  // by RegionId: the instruction owning it
  bool has_manual_sync = false;  // set/wait/record/wait_event anywhere

  bool conflict(uint32_t a, uint32_t b) const;  // events a (earlier) and b
  bool conflicting(uint32_t a, uint32_t b, const Footprint*& fa, const Footprint*& fb) const;
  // "reads UB [0, 4096)" for messages.
  std::string describe(uint32_t producer, uint32_t consumer) const;
  // Does the arch need pipe_barrier(p) between two of p's ops on one buffer?
  bool needs_barrier(Pipe p) const { return p != Pipe::S && !(arch == Arch::A5 && p == Pipe::V); }

 private:
  void add_inst(InstId id);
  void tile_fp(ValueId v, bool write);
  void gm_fp(ValueId v, bool write);
  std::vector<uint32_t> plan_offset_;
  const TileAliases* alias_ = nullptr;  // while building
};

std::string_view space_name(uint8_t space);

}  // namespace ptoas::opt
