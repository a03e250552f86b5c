// Tile memory planning (mem_plan.h).
//
// Each tile gets a live interval over the function's instructions numbered
// in program order (pre-order): from its first use to its last. A tile
// used inside a loop keeps its memory for the whole loop when its value can
// cross an iteration: allocated outside the loop, or not wholly rewritten
// before its first read in each iteration.
//
// A use of any tile that may name an allocation's storage (tile_alias.h: a
// treshape of it, a subset, a tile an scf.if yields) counts as a use of the
// allocation itself.
//
// A tile whose first use, in the allocation's own region, is a tload wholly
// overwrites its memory (a tload pads the whole tile, then copies the valid
// region) before anything can read it: it needs no zeroing, and only such a
// tile may take over the memory of tiles whose intervals ended before its
// own begins. Every other tile gets memory nothing else used, zeroed on
// entry, exactly what the interpreter gives it; but for one whose first use
// writes every byte of it without reading it (`overwrites`): it keeps its
// own memory, not zeroed.
#include "mem_plan.h"

#include <algorithm>

#include "ir_edit.h"
#include "tile_alias.h"
#include "tile_layout.h"

namespace ptoas::opt {

namespace {

struct Tile {
  InstId alloc;
  unsigned loc;
  uint64_t bytes;
  uint32_t first, last;
  bool fresh;  // wholly written by a tload before any read
  bool written;  // wholly written by its first use (overwrites), tload or not
};

struct Block {
  uint64_t off, size;
};

uint64_t round_up(uint64_t b, uint64_t a) { return (b + a - 1) & ~(a - 1); }

bool full(const Type& t) {
  return t.kind == TypeKind::TileBuf && t.rows > 0 && t.cols > 0 && t.vrow == t.rows && t.vcol == t.cols;
}

// Whether `in`, with a tile as operand i at its first use, writes every
// byte of its storage and reads none: the tile is its one output, its
// valid region is its whole static shape and covers its storage (no box
// padding), and the op writes the whole valid region of its output (the
// interpreter's domain: docs/semantics.md; a source not covering it is a
// run-time failure). tmatmul's domain is A's valid rows by
// B's valid columns instead: their static valid shapes must be C's, and no
// pto.set_validshape may change them (`reshaped`: the function has one).
bool overwrites(const Module& m, const Inst& in, unsigned i, bool reshaped) {
  // The walk meets the op's inputs first: as an input too, the tile's
  // first use is that input.
  if (in.n_outs != 1 || i != in.n_ins) return false;
  const Type& t = m.type_of(m.operand(in, i));
  if (!full(t) || tile_storage_bytes(t) != size_t(t.rows) * size_t(t.cols) * std::max(1u, dtype_bytes(t.elem)))
    return false;
  switch (in.op) {
    case Op::TAdd: case Op::TSub: case Op::TMul: case Op::TDiv: case Op::TMax: case Op::TMin:
    case Op::TAddS: case Op::TSubS: case Op::TMulS: case Op::TDivS: case Op::TMaxS: case Op::TMinS:
    case Op::TNeg: case Op::TAbs: case Op::TRelu: case Op::TSqrt: case Op::TRecip: case Op::TExp:
    case Op::TLog: case Op::TRsqrt: case Op::TExpandS: case Op::TTri: case Op::TMov:
    case Op::TRowExpand: case Op::TRowExpandAdd: case Op::TRowExpandSub: case Op::TRowExpandMul:
    case Op::TRowExpandDiv: case Op::TRowExpandMax: case Op::TRowExpandMin:
      return true;
    case Op::TMatmul: {
      if (reshaped || in.n_ins != 2) return false;
      const Type &a = m.type_of(m.operand(in, 0)), &b = m.type_of(m.operand(in, 1));
      return full(a) && full(b) && a.rows == t.rows && b.cols == t.cols;
    }
    default:
      return false;
  }
}

}  // namespace

PlanParams npu_plan_params(Arch arch) {
  PlanParams p{};
  for (unsigned l = 0; l < kLocCount; ++l) {
    Loc loc = Loc(l);
    p.align[l] = loc == Loc::Left || loc == Loc::Right || loc == Loc::Acc ? 4096 : 256;
    p.capacity[l] = tile_memory_bytes(arch, loc);
  }
  return p;
}

TilePlan plan_tiles(const Module& m, InstId fn, bool reuse, const PlanParams* params,
                    const std::vector<uint8_t>* no_memory) {
  TilePlan p;
  p.offset.assign(m.insts.size(), kNone);
  p.needs_zero.assign(m.insts.size(), 1);
  const Inst& f = m.insts[fn];
  if (!f.n_regions) return p;

  // Program order, each instruction's region, and each region op's extent.
  std::vector<uint32_t> index(m.insts.size(), kNone), end(m.insts.size(), 0);
  std::vector<RegionId> home(m.insts.size(), kNone);
  std::vector<InstId> order;
  std::vector<InstId> fuse_owner(m.regions.size(), kNone);
  walk(m, f.region, [&](InstId id, RegionId r) {
    index[id] = uint32_t(order.size());
    // A pto.fuse body runs exactly when the fuse does: its ops count as
    // being in the fuse's own region.
    home[id] = fuse_owner[r] != kNone ? home[fuse_owner[r]] : r;
    order.push_back(id);
    const Inst& in = m.insts[id];
    if (in.op == Op::Fuse)
      for (unsigned k = 0; k < in.n_regions; ++k) fuse_owner[in.region + k] = id;
  });
  for (size_t i = order.size(); i-- > 0;) {
    const Inst& in = m.insts[order[i]];
    end[order[i]] = uint32_t(i);
    if (in.n_regions) {
      // The last instruction of the subtree: the max over its regions' last
      // listed instructions' own extents.
      for (unsigned k = 0; k < in.n_regions; ++k) {
        const Region& r = m.regions[in.region + k];
        if (r.inst_count) {
          InstId last = m.region_insts[r.inst_begin + r.inst_count - 1];
          end[order[i]] = std::max(end[order[i]], end[last]);
        }
      }
    }
  }

  bool addressed = false;
  std::vector<Tile> tiles;
  const TileAliases alias(m, fn);
  std::vector<std::vector<size_t>> tiles_of_class(alias.classes());
  for (InstId id : order) {
    const Inst& in = m.insts[id];
    if (in.op != Op::AllocTile || in.n_res != 1) continue;
    if (no_memory && id < no_memory->size() && (*no_memory)[id]) continue;
    if (in.flags & kInstHasAddr) {
      addressed = true;
      continue;
    }
    const Type& t = m.type_of(in.res);
    if (size_t(t.loc) >= kLocCount || t.rows <= 0 || t.cols <= 0 || alias.cls(in.res) == kNone) continue;
    tiles_of_class[alias.cls(in.res)].push_back(tiles.size());
    tiles.push_back(Tile{id, unsigned(t.loc), round_up(tile_storage_bytes(t), params ? params->align[unsigned(t.loc)] : 64), index[id], index[id], false, false});
  }
  // First and last use of each tile, through any of its aliases. Only a
  // tile named by its allocation alone can be fresh: a write through an
  // alias may cover a part of it.
  std::vector<uint8_t> seen(tiles.size(), 0);
  bool reshaped = false;
  for (InstId id : order) reshaped |= m.insts[id].op == Op::SetValidShape;
  for (InstId id : order) {
    const Inst& in = m.insts[id];
    if (in.op == Op::Func) continue;
    for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) {
      ValueId v = m.operand(in, i);
      uint32_t c = alias.cls(v);
      if (c == kNone) continue;
      for (size_t ti : tiles_of_class[c]) {
        Tile& t = tiles[ti];
        if (!seen[ti]) {
          seen[ti] = 1;
          t.first = index[id];
          bool own = alias.single(c) && home[id] == home[t.alloc];
          t.fresh = own && in.op == Op::TLoad && in.n_ins == 1 && in.n_outs == 1 && i == 1;
          t.written = t.fresh || (own && overwrites(m, in, i, reshaped));
        }
        t.last = std::max(t.last, index[id]);
      }
    }
  }
  // Loops a tile's value may cross keep it whole.
  for (InstId id : order) {
    const Inst& l = m.insts[id];
    if (l.op != Op::For && l.op != Op::While) continue;
    uint32_t lo = index[id], hi = end[id];
    for (Tile& t : tiles) {
      bool used_inside = t.last >= lo && t.first <= hi;
      bool alloc_inside = index[t.alloc] > lo && index[t.alloc] <= hi;
      if (used_inside && (!alloc_inside || !t.fresh)) {
        t.first = std::min(t.first, lo);
        t.last = std::max(t.last, hi);
      }
    }
  }
  if (addressed) reuse = false;

  // Linear scan per location, in order of interval start.
  std::vector<size_t> by_start(tiles.size());
  for (size_t i = 0; i < tiles.size(); ++i) by_start[i] = i;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](size_t a, size_t b) { return tiles[a].first < tiles[b].first; });
  std::vector<Block> free_blocks[kLocCount];
  std::vector<size_t> active[kLocCount];
  uint64_t bump[kLocCount] = {};
  for (size_t ti : by_start) {
    Tile& t = tiles[ti];
    unsigned L = t.loc;
    p.unshared_bytes[L] += t.bytes;
    p.needs_zero[t.alloc] = !t.written;
    // Retire the tiles whose intervals are over.
    auto& act = active[L];
    for (size_t k = 0; k < act.size();) {
      const Tile& o = tiles[act[k]];
      if (o.last < t.first) {
        free_blocks[L].push_back(Block{p.offset[o.alloc], o.bytes});
        act[k] = act.back();
        act.pop_back();
      } else {
        ++k;
      }
    }
    uint64_t off = ~uint64_t(0);
    if (reuse && t.fresh) {
      auto& fb = free_blocks[L];
      std::sort(fb.begin(), fb.end(), [](const Block& a, const Block& b) { return a.off < b.off; });
      for (size_t k = 0; k + 1 < fb.size();) {  // merge neighbours
        if (fb[k].off + fb[k].size == fb[k + 1].off) {
          fb[k].size += fb[k + 1].size;
          fb.erase(fb.begin() + long(k) + 1);
        } else {
          ++k;
        }
      }
      for (Block& b : fb)
        if (b.size >= t.bytes) {
          off = b.off;
          b.off += t.bytes;
          b.size -= t.bytes;
          ++p.shared;
          break;
        }
    }
    if (off == ~uint64_t(0)) {
      off = bump[L];
      bump[L] += t.bytes;
      if (params && params->capacity[L] && bump[L] > params->capacity[L] && p.over_loc == kNone) {
        p.over_loc = L;
        for (size_t k : act) p.over_tiles.push_back(tiles[k].alloc);
        p.over_tiles.push_back(t.alloc);
      }
    }
    p.offset[t.alloc] = uint32_t(off);
    act.push_back(ti);
  }
  for (unsigned L = 0; L < kLocCount; ++L) p.bytes[L] = bump[L];
  if (p.over_loc != kNone) p.over_bytes = bump[p.over_loc];
  return p;
}

}  // namespace ptoas::opt
