// The row programs of the PTX backend (row.cpp, docs/ptx_backend.md "Tile
// to thread mapping"): a sequence of row-wise tile ops (one op, or the body
// of a pto.fuse region) run row by row. Each row of the tiles belongs to
// one group of G warps (rows r = g, g + W/G, ...); within a row, thread q
// of the group holds the chunks of V consecutive columns starting at
// V * (q + 32 G k), k = 0 .. K-1, in registers. Every op of the program
// runs on the row's registers in program order; a row reduction is a
// per-thread partial, a butterfly shfl.sync across the warp and, with
// G > 1, shared memory across the group's warps.
#pragma once
#include <map>
#include <vector>

#include "gen.h"
#include "tile_alias.h"

namespace ptoas::cg::ptx {

enum class RK : uint8_t { Load, Store, Elt, Fused, Cvt, Red, RowExp, ColExp, Sel };
enum class Cls : uint8_t { Elem, Col, Row };

struct RStep {
  const Inst* in = nullptr;
  RK k = RK::Elt;
  ValueId dst = kNone;  // the tile written (kNone: a store)
  ValueId src = kNone;  // load: -; store, cvt, red: the tile read
  ValueId view = kNone;
  ValueId dom = kNone;  // the tile whose valid region is the op's domain
  bool col = false;     // an elementwise op on one-column tiles: one value per row
  EltPlan elt;
  FusedPlan fus;
  ExpandPlan exp;
  CvtPlan cvt;
  SelPlan sel;
  Bin red = Bin::Add;  // Red: sum (Add), max, min, prod (Mul)
  std::vector<ValueId> reads;  // the tiles the op reads (not the mask)
};

struct RPlan {
  std::vector<RStep> steps;
  std::map<ValueId, Cls> cls;
  std::vector<ValueId> tiles;  // every tile but masks, in first-use order
  std::vector<ValueId> priv;   // tiles private to a fused region (registers only)
  std::vector<ValueId> masks;  // tsel masks (read from memory)
  std::vector<ValueId> ignored;  // scratch operands no op reads or writes (tmp tiles)
  std::vector<ValueId> views;
  unsigned V = 1, G = 1, K = 1;  // chunk width, warps per row, chunks per thread
  bool cross = false;            // a reduction across warps (G > 1)
  bool seq = false;              // rows one at a time, in order (a write in place over another geometry)
  int32_t max_rows = 0;          // the most physical rows of a tile
  bool is_priv(ValueId t) const;
};

// Analyses `ops` (the body of `region`, or one op: region == nullptr);
// false with `why` when they are not one row program.
bool plan_rows(const Gen& g, const opt::TileAliases& alias, const std::vector<const Inst*>& ops, const Inst* region,
               RPlan& p, Refusal& why);

}  // namespace ptoas::cg::ptx
