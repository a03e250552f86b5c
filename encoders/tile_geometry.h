// Tile geometry and lane types: the target-neutral facts the CPU encoders
// (x86/, sve/) lower tile ops by: which element types the 32-bit-lane
// loops take, where a tile's rows and columns lie, the binary kind of each
// element op, the pad value of a load, and the loop order over tiles of
// mixed layouts. What differs per ISA is only the instruction selection
// built on these.
#pragma once
#include <cstdint>

#include "ir.h"

namespace ptoas::cg {

// Element types computed in 32-bit lanes: f32 for f32/f16/bf16, i32 for
// the integers up to 32 bits (narrow ones sign- or zero-extended).
bool lane_type(DType d);

// Byte strides of a tile's rows and columns (ND: cols*es, es; DN: es,
// rows*es). `rowvec`: a row's valid elements are contiguous (ND, or one
// column); `colvec`: a column's are (DN, or one row).
struct TileGeo {
  int64_t rs, cs;
  bool rowvec, colvec, dn;
};
TileGeo tile_geo(const Type& t);

// The binary kind of an element op (tadd, tadds, trowexpandadd, .. -> Add);
// false when it has none.
enum class Bin : uint8_t { Add, Sub, Mul, Div, Max, Min, And, Or, Xor, Shl, Shr, ExpDif, Pow };
bool bin_of(Op o, Bin& k);

// The pad value of tile type t as an element's bits: Null / Zero 0, Max
// +Inf or the type's maximum, Min -Inf or the type's minimum.
uint32_t pad_bits(const Type& t);

// The loop order of an op over `dst` and `srcs`: columns outer when every
// tile is DN (or one row high) and one is DN; rows outer when every tile is
// ND (or one column wide); false for other mixes. cap_r x cap_c: what every
// tile physically holds.
bool loop_order(const Module& m, ValueId dst, const ValueId* srcs, unsigned n, bool& cols_outer,
                int32_t& cap_r, int32_t& cap_c);

// A tile's element offset is a row part plus a column part (every layout,
// ND, DN and the boxed ones): offset(r, c) = R(r) + C(c) bytes, where each
// part is es * ((i >> shift) * box + (i & mask) * unit). Unboxed axes have
// shift 63 and mask -1 (no box term). False for shapes the form cannot
// describe (dynamic, non-power-of-two inner boxes or element sizes).
struct AxisMap {
  int shift = 63;
  int64_t mask = -1;
  int64_t box = 0, unit = 1;
  int les = 0;  // log2 of the element size
  int64_t at(int64_t i) const { return (((shift < 63 ? i >> shift : 0) * box) + (i & mask) * unit) << les; }
};
bool axis_map(const Type& t, bool rows, AxisMap& out);

// The double-precision constants of exp / log (evaluated in double, then
// rounded to f32 once: docs/x86_backend.md), as bits; each backend keeps
// them where its loads reach (x86: 64-byte splats in rodata; sve: a block
// on the stack).
enum DConst : int {
  kDOne, kDExpHi, kDExpLo, kDLog2e, kDLn2Hi, kDLn2Lo,
  kDExpC,                  // 13 Taylor coefficients 1/12! .. 1/0!
  kI64Bias = kDExpC + 13,  // int64 1023
  kDMantMask, kDExpOne, kDMagic, kDMagicBias, kDSqrt2, kDHalf,
  kDLogC,                  // 9 coefficients 1/17, 1/15, .., 1/3, 1
  kDConstCount = kDLogC + 9,
};
uint64_t dconst_bits(int i);

}  // namespace ptoas::cg
