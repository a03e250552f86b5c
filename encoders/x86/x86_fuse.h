// x86-64 code generation: the plan of a pto.fuse region (x86_fuse_plan.cpp),
// shared with its lowering (x86_fuse.cpp). Internal to those two files.
#pragma once

#include <algorithm>
#include <map>

#include "x86_gen.h"

namespace ptoas::cg::x86::gen {

enum class FK : uint8_t { Load, Store, Cvt, Elt, ColOp, RowExp, ColExp, Red };

// Row pointers of the loop (one per distinct tile row stride, one per view).
inline const Reg64 kStream[] = {rbx, rcx, rdx, rsi, rdi, r10, r11, r12};
constexpr size_t kStreams = sizeof(kStream) / sizeof(kStream[0]);

inline bool is_math(Op o) { return o == Op::TExp || o == Op::TLog || o == Op::TRsqrt; }

// The elementwise, tile-scalar and unary ops the column loop computes.
inline bool fused_elt_op(Op o) {
  switch (o) {
    case Op::TAdd: case Op::TSub: case Op::TMul: case Op::TDiv: case Op::TMax: case Op::TMin:
    case Op::TAddS: case Op::TSubS: case Op::TMulS: case Op::TDivS: case Op::TMaxS: case Op::TMinS:
    case Op::TNeg: case Op::TAbs: case Op::TRelu: case Op::TSqrt: case Op::TRecip: case Op::TExp:
    case Op::TLog: case Op::TRsqrt:
      return true;
    default:
      return false;
  }
}

struct Gen::Fuse {
  enum Cls : uint8_t { Elem, Col, Row };
  struct FOp {
    FK k;
    const Inst* in;
    Op op;
    ValueId dst = kNone, a = kNone, b = kNone;  // tile operands, in order
    ValueId view = kNone, scal = kNone;
    bool scalar_first = false;
    bool store = true;          // the dst chunk goes to its tile (false: overwritten later in the stage)
    int acc = -1, flag = -1;    // Red: the accumulator and (max / min) NaN-flag registers
    int acc2 = -1;              // Red: the odd vectors' accumulator (an unrolled stage)
  };
  struct Stage {
    std::vector<size_t> col;     // one-column ops, once per row before the column loop
    std::vector<size_t> elt;     // the ops of the column loop
    std::map<ValueId, int> reg;  // tiles whose chunk stays in a register
    bool unroll = false;         // two vectors per iteration (a second accumulator per reduction)
  };
  std::vector<FOp> ops;
  std::vector<Stage> stages;
  std::map<ValueId, Cls> cls;
  std::map<ValueId, int32_t> off;       // arena offsets
  std::vector<ValueId> lviews, sviews;  // tload sources, tstore destinations
  std::vector<ValueId> pads;            // tiles a tload fills first (the pad outside R x C)
  std::vector<int64_t> sstride;         // per stream: a tile row stride (views: 0)
  std::vector<ValueId> sview;           // per stream: its view (tile streams: kNone)
  std::map<ValueId, size_t> stream;     // tile (Elem, Col) or view -> its stream
  ValueId e0 = kNone;                   // an Elem tile: its valid region is R x C
  // Tiles nothing outside the region reads (their alloc_tile in the
  // region's block, every other use in the body, written before read
  // there, no alloc_tile at an explicit address in the function): their
  // chunks are stored only for reads from memory later in the row.
  std::vector<ValueId> priv;
  // Skewed (x86_fuse_plan.cpp, fuse_skew): the last stage runs one row
  // behind, its column loop merged into the one before it, so that its
  // work (a softmax's divisions) overlaps the next row's. `lag`, per
  // stream: only the last stage uses it, and it points at that stage's
  // row; the last stage reaches the other (tile) streams' rows one row
  // stride back.
  bool skew = false;
  std::vector<bool> lag;

  bool writes(const FOp& o, ValueId t) const { return o.k != FK::Store && o.dst == t; }
  bool touches(const FOp& o, ValueId t) const { return o.dst == t || o.a == t || o.b == t; }
  bool reads(const FOp& o, ValueId t) const { return o.a == t || o.b == t; }
  bool is_priv(ValueId t) const { return std::find(priv.begin(), priv.end(), t) != priv.end(); }
};

}  // namespace ptoas::cg::x86::gen
