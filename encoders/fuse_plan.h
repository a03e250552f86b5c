// The plan of a pto.fuse region (opt/fuse.cpp), shared by the CPU targets
// that lower a region as one loop nest per row (x86/fuse.cpp,
// sve/fuse.cpp): which body ops and tiles are taken, the class of each
// tile (element, one-column, one-row), the stages of a row, the tiles
// private to the region, the skew decision and the streams (row pointers).
// Register assignment is each target's: it fills the fields marked so
// below and decides the dead stores from them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "cpu_frame.h"
#include "tile_alias.h"

namespace ptoas::cg {

enum class FK : uint8_t { Load, Store, Cvt, Elt, ColOp, RowExp, ColExp, Red };

inline bool is_math(Op o) { return o == Op::TExp || o == Op::TLog || o == Op::TRsqrt; }
inline bool narrow_float(DType d) { return d == DType::F16 || d == DType::BF16; }

// The elementwise, tile-scalar and unary ops the column loop computes.
bool fused_elt_op(Op o);
// A tcvt the loop computes: between f32, f16 and bf16, without sat_mode,
// with an rmode the op-by-op tcvt takes.
bool fused_cvt(const Module& m, const Inst& in);
// Per op, what plan_fuse requires of it (the region-wide conditions are
// checked there only): the x86 and sve descriptors' opt.fusable.
bool fuse_op_ok(const Module& m, const Inst& in);

struct FusePlan {
  enum Cls : uint8_t { Elem, Col, Row };
  struct FOp {
    FK k;
    const Inst* in;
    Op op;
    ValueId dst = kNone, a = kNone, b = kNone;  // tile operands, in order
    ValueId view = kNone, scal = kNone;
    bool scalar_first = false;
    // Filled by the target's register assignment:
    bool store = true;          // the dst chunk goes to its tile (false: overwritten later in the stage)
    int acc = -1, flag = -1;    // Red: the accumulator and (max / min) NaN-flag registers
    int acc2 = -1;              // Red: the odd vectors' accumulator (an unrolled stage)
    // Red (a row sum of x * x): x, whose row the sequential recomputation
    // of a NaN sum squares, so that the source's chunks need not be stored.
    ValueId square = kNone;
    // Red: the ops (remat_chain) that write the source's row back to its
    // tile before that recomputation, its chunks not having been stored.
    std::vector<size_t> mat = {};
  };
  struct Stage {
    std::vector<size_t> col;     // one-column ops, once per row before the column loop
    std::vector<size_t> elt;     // the ops of the column loop
    // Filled by the target's register assignment:
    std::map<ValueId, int> reg;  // tiles whose chunk stays in a register (one-column: the row's value)
    bool unroll = false;         // two vectors per iteration (a second accumulator per reduction)
    // Tiles an earlier stage wrote whose chunks this stage recomputes
    // (remat_chain) at the start of each chunk rather than reading them
    // back: their chunks need not be stored. Each goes into its register,
    // or (in_v0) is left where the chain computed it for the stage's first
    // op, its only reader.
    struct Remat {
      ValueId t;
      std::vector<size_t> chain;
      bool in_v0 = false;
    };
    std::vector<Remat> remat;
  };
  std::vector<FOp> ops;
  std::vector<Stage> stages;
  std::map<ValueId, Cls> cls;
  std::map<ValueId, int32_t> off;       // arena offsets
  std::vector<ValueId> lviews, sviews;  // tload sources, tstore destinations
  std::vector<ValueId> pads;            // tiles a tload fills first (the pad outside R x C)
  // Streams: one per distinct tile row stride, one per view and lag (a
  // view stream points at one row; set_skew and add_view_stream add one
  // for each further lag its users run at); the target maps each to a
  // row-pointer register.
  std::vector<int64_t> sstride;         // per stream: a tile row stride (views: 0)
  std::vector<ValueId> sview;           // per stream: its view (tile streams: kNone)
  std::map<ValueId, size_t> stream;     // tile (Elem, Col) or view -> its (first) stream
  size_t base_streams = 0;              // the streams before any per-lag view stream
  size_t max_streams = 0;               // the target's row-pointer registers
  ValueId e0 = kNone;                   // an Elem tile: its valid region is R x C
  // Tiles nothing outside the region reads (their alloc_tile in the
  // region's block, every other use in the body, written before read
  // there, no alloc_tile at an explicit address in the function): their
  // chunks are stored only for reads from memory later in the row.
  std::vector<ValueId> priv;
  // Skewed by K (set_skew): the last K stages run behind the stage before
  // them (the lead, stages.size() - 1 - K), all in the lead's column loop,
  // so that a row's dependent chain (its reduction, the one-column ops on
  // the result, the stage that reads them) overlaps the work of the rows
  // after it. A lagging stage without one-column ops runs a row behind the
  // stage before it. One with them runs them two rows behind it, and its
  // column work a row later still (col_lag, stage_lag): between a
  // reduction's end and the scalar ops on its result (a norm's mean, +
  // eps, 1/sqrt) lies a whole row of the loop, and another between those
  // and the column work that broadcasts the result. One row behind, the
  // scalar chain came straight after the horizontal sum it reads, and the
  // whole chain (accumulators, hsum, mean, + eps, 1/sqrt) stood in the
  // loop's way: LayerNorm in cache 0.030 -> 0.023 ms per 1024 rows on
  // avx2 (0.020 with no 1/sqrt at all). `lag`, per stream: a view
  // stream used by one stage that lags, that stage's lag (it points at
  // that stage's row); else 0. A lagging part reaches the tile streams'
  // rows `lag` row strides back.
  size_t skew = 0;
  std::vector<int> lag;

  bool writes(const FOp& o, ValueId t) const { return o.k != FK::Store && o.dst == t; }
  bool touches(const FOp& o, ValueId t) const { return o.dst == t || o.a == t || o.b == t; }
  bool reads(const FOp& o, ValueId t) const { return o.a == t || o.b == t; }
  bool is_priv(ValueId t) const { return std::find(priv.begin(), priv.end(), t) != priv.end(); }
  // Whether a later op of the region, after op `last`, first touches t by reading it.
  bool read_after(size_t last, ValueId t) const {
    for (size_t m = last + 1; m < ops.size(); ++m)
      if (touches(ops[m], t)) return reads(ops[m], t);
    return false;
  }
  void unskew() {
    skew = 0;
    sstride.resize(base_streams);
    sview.resize(base_streams);
    lag.assign(sstride.size(), 0);
    for (Stage& st : stages) st.remat.clear();
    for (FOp& o : ops) o.mat.clear();
  }
  // View v's stream at `lag` rows behind the newest; unskewed (every
  // stream on one row) or with none at that lag, its first.
  size_t view_stream(ValueId v, int at_lag) const {
    for (size_t s = base_streams; s < sview.size(); ++s)
      if (sview[s] == v && lag[s] == at_lag) return s;
    return stream.at(v);
  }
  // A stream for view v at `lag` (false: no register left for it).
  bool add_view_stream(ValueId v, int at_lag);
  // The ops that recompute Elem tile t's chunk as op `at` would read it
  // (at == ops.size(): after the last op), in program order, each reading
  // at most one element tile, the one the op before wrote: the chain
  // starts at a tload (or an op of one-row / one-column tiles and scalars
  // only), and what else it reads (views, one-column tiles) is not written
  // between the op and `at`. Cheap ops only (no division or math), at
  // most four. False: t cannot be recomputed so.
  bool remat_chain(ValueId t, size_t at, std::vector<size_t>& chain) const;
  // The first stage of the shared column loop (stages.size() unskewed).
  size_t lead() const { return stages.size() - 1 - skew; }
  // Rows behind the newest that stage s runs its one-column ops (col_lag)
  // and its column work (stage_lag) on.
  int col_lag(size_t s) const {
    return skew && s > lead() ? stage_lag(s - 1) + (stages[s].col.empty() ? 1 : 2) : 0;
  }
  int stage_lag(size_t s) const {
    return skew && s > lead() ? col_lag(s) + (stages[s].col.empty() ? 0 : 1) : 0;
  }
  // The pipeline's depth: the rows it fills and drains, the largest lag.
  int depth() const { return stage_lag(stages.size() - 1); }
  // Skews by k (0: none); false (and unskewed) where the stages do not
  // allow it (fuse_plan.cpp).
  bool set_skew(size_t k);
};

// What plan_fuse reads of the function: its frame plan (slots, arena
// offsets) and the tile aliasing facts of opt/tile_alias.h.
struct FuseCtx {
  const Module& m;
  InstId fn;
  const FramePlan& p;
  const opt::TileAliases& alias;
  const opt::TileBindings& binds;
};

// The target-neutral plan of region `fin`; false: a body op or tile it
// does not take, or more streams than `max_streams`. Skew is decided here
// (the deepest set_skew allows); a target whose registers do not fit the
// skewed plan may set a smaller one (or unskew()) and assign again.
bool plan_fuse(const FuseCtx& cx, const Inst& fin, size_t max_streams, FusePlan& f);

}  // namespace ptoas::cg
