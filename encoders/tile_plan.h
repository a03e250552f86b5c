// Target-neutral analysis of a tile op for the CPU encoders (x86/, sve/):
// which operands are tiles or scalars, which element types and layouts an
// op takes, the caps its loops need. Each plan_* returns false with `why`
// set when the op cannot be lowered (a refusal code and words; empty words
// mean the generic "op X with dtype Y is not supported on T",
// cg::unsupported). What the
// backends do with a plan is their own instruction selection.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codegen.h"
#include "refusal.h"
#include "tile_geometry.h"

namespace ptoas::cg {

// A tile the 32-bit-lane loops take: unboxed, static shape, lane type.
bool lane_tile(const Module& m, const Inst& in, ValueId v, Refusal& why);
// A flag attribute (`{descending}`, `= true`, `= 1`) as the interpreter reads it.
bool flag_attr(const Module& m, const Inst& in, std::string_view name);
// tci's checks: one scalar in (and 0.60's unread scratch tile), one tile of
// 2- or 4-byte integers out (its element size and the descending flag);
// false: the generic refusal.
bool plan_tci(const Module& m, const Inst& in, unsigned& es, bool& desc);

// ttri: one f32 or i32 tile out (dst), an optional diagonal scalar in;
// `upper` from upperOrLower. False: the generic refusal.
bool plan_ttri(const Module& m, const Inst& in, ValueId& dst, bool& upper);

// pto.load_scalar / pto.store_scalar (and tgetval / tsetval), checked: `bytes` bytes at
// ptr + idx * bytes. A load gives the slot form (cpu_frame.h): an integer
// sign-extended (`sign`) or zero-extended, i1 its low bit (`bit`), a
// float's bits zero-extended (f16 / bf16 bit patterns too): a copy, so a
// signalling NaN stays one.
struct ScalarMemPlan {
  ValueId ptr = kNone, idx = kNone, val = kNone;  // val: the loaded or stored value
  DType elem = DType::None;
  unsigned bytes = 0;
  bool sign = false, bit = false, store = false;
  int64_t limit = 0;  // > 0: the index is clamped (unsigned) to limit - 1
  bool tile = false;  // ptr is a tile: its slot 0 is an offset in the tile arena
};
bool plan_scalar_mem(const Module& m, const Inst& in, ScalarMemPlan& p, Refusal& why);

// A pto.tstore that applies relu and / or adds to GM (tstore_combined):
// 4-byte elements of one type (f32, i32, ui32) in tile and view, a view
// of rank 1 or 2, the tile in any layout. Element by element; each add is
// atomic, so blocks running at once all add.
struct StoreCombinePlan {
  ValueId tile = kNone, view = kNone;
  unsigned rank = 0;
  bool relu = false, atomic = false;
};
// p.tile, p.view set.
bool plan_store_combine(const Module& m, const Inst& in, StoreCombinePlan& p, Refusal& why);
// True for a pto.tstore that plainly copies (no atomic add, no relu).
bool plain_tstore(const Module& m, const Inst& in);

// tgather's index form, ins(src, indices[, tmp]) outs(dst): dst[r, c] =
// element k = indices[r, c] of src in row-major order, 0 where k is
// outside src (a negative i32 index included); r, c over dst's valid
// region capped by what indices holds (the interpreter reports more).
// 4-byte elements of one type, i32 / ui32 indices, src row-major and
// unboxed (element k at storage k); dst and indices any static layout.
// The mask and compare forms are refused.
struct GatherPlan {
  ValueId src = kNone, idx = kNone, dst = kNone;
  bool idx_signed = true;
  int64_t n = 0;               // src's elements
  int32_t cap_r = 0, cap_c = 0;
};
bool plan_tgather(const Module& m, const Inst& in, GatherPlan& p, Refusal& why);

// Elementwise, tile-scalar and unary ops (tadd .. tshrs, texpands, tneg ..).
struct EltPlan {
  DType d = DType::None;
  ValueId dst = kNone;
  std::vector<ValueId> tiles;  // tile inputs in order (a trailing tmp tile is not read)
  ValueId scal = kNone;        // the scalar operand, if any
  bool scalar_first = false;   // `scalar op tile`
};
bool plan_elementwise(const Module& m, const Inst& in, EltPlan& p, Refusal& why);

// The fused multi-term ops (taddc .. taxpy).
struct FusedPlan {
  DType d = DType::None;
  ValueId dst = kNone;
  unsigned n_used = 0;          // operands read, in order
  std::vector<int> tile_of;     // per operand: its index in `tiles`, -1 for a scalar
  std::vector<ValueId> tiles;
  bool reads_dst = false;
};
bool plan_fused(const Module& m, const Inst& in, FusedPlan& p, Refusal& why);

// Row / column expansion: dst[r, c] = op(s[0], s[1]) with the one-column
// operand broadcast per row (row) or an operand with one row read at row 0
// (column); `plain` (trowexpand, tcolexpand) copies bits from s[0].
struct ExpandPlan {
  bool plain = false;
  unsigned nsrc = 0;
  ValueId dst = kNone, s[2] = {kNone, kNone};
  Bin bk = Bin::Add;
  int colk = -1;  // row expansion: which source is the column
  int32_t cap_r = 0, cap_c = 0;
};
bool plan_row_expand(const Module& m, const Inst& in, ExpandPlan& p, Refusal& why);
bool plan_col_expand(const Module& m, const Inst& in, ExpandPlan& p, Refusal& why);

// Row / column reductions: src, dst of one lane type; rows: dst's column
// contiguous; columns: both tiles row-major.
bool plan_reduce(const Module& m, const Inst& in, bool rows, ValueId& src, ValueId& dst, Refusal& why);

// tcmp / tcmps into a bit mask: mode 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge;
// cap_r x cap_c the region's static caps (the columns are capped at
// mask.vcol * mask_bits at run time too).
struct CmpPlan {
  ValueId a = kNone, rhs = kNone, mask = kNone;
  bool rhs_tile = false;
  int mode = 0;
  unsigned mask_bits = 8;
  int32_t cap_r = 0, cap_c = 0;
};
bool plan_tcmp(const Module& m, const Inst& in, CmpPlan& p, Refusal& why);

// tsel / tsels: d = mask ? a : b (or the scalar), as bits.
struct SelPlan {
  bool scalar = false;
  ValueId mask = kNone, a = kNone, b = kNone, dst = kNone;
  DType bits = DType::U32;  // the lanes' bit type (U16 for 2-byte elements)
};
bool plan_tsel(const Module& m, const Inst& in, SelPlan& p, Refusal& why);

// tcvt: the rounding mode of float -> integer and sat_mode.
enum class Rounding : uint8_t { NearestEven, Floor, Ceil, Trunc, AwayFromZero };
struct CvtPlan {
  ValueId src = kNone, dst = kNone;
  DType sd = DType::None, dd = DType::None;
  Rounding rmode = Rounding::NearestEven;
  bool sat = false;
};
bool plan_tcvt(const Module& m, const Inst& in, CvtPlan& p, Refusal& why);
// sat_mode's bounds for a float -> integer tcvt into dd (i8 .. u16, i32),
// as f32 bit patterns (exact: below 2^24, or -2^31).
void sat_bounds_f32(DType dd, uint32_t& lo_bits, uint32_t& hi_bits);

// tmatmul / .acc / .bias: m = a.vrow, k = a.vcol, n = b.vcol at run time,
// capped by the static caps here.
struct MatmulPlan {
  ValueId a = kNone, b = kNone, c = kNone, cin = kNone, bias = kNone;
  DType ae = DType::None;
  bool i32 = false;  // i8 x i8 -> i32; else f32 / f16 / bf16 -> f32
  int32_t cap_m = 0, cap_k = 0, cap_n = 0;
};
bool plan_matmul(const Module& m, const Inst& in, MatmulPlan& p, Refusal& why);

// The highest view rank tload / tstore take on the CPU targets (the
// official GlobalTensor is 5-D). A view of rank n addresses tile element
// (r, c) at c * stride[n-1] plus r split over dimensions 0 .. n-2 in
// row-major (mixed-radix) order, as runtime/interp/ops_memory.cpp does.
inline constexpr unsigned kMaxViewRank = 5;

// tload / tstore between a boxed tile t and view v (`rank`: the view's
// rank as the frame plan holds it): what both CPU backends take (1-, 2-
// and 4-byte elements of one type, a view of rank 1 .. kMaxViewRank, a
// static shape, a zero pad); false with the refusal in `why`.
bool boxed_copy_ok(const Module& m, ValueId t, ValueId v, unsigned rank, bool load, Refusal& why);

// tload / tstore between an unboxed tile t and a view v of rank 3 ..
// kMaxViewRank (ranks 1 and 2 have their own lowerings): elements of one
// size, a store that does not convert; false with the refusal in `why`
// (empty: the generic message).
bool view_copy_ok(const Module& m, ValueId t, ValueId v, unsigned rank, bool load, Refusal& why);

// tmov between tiles of one element type (any layouts); `skip`: src is
// dst, nothing to do.
bool plan_tmov(const Module& m, const Inst& in, ValueId& src, ValueId& dst, bool& skip, Refusal& why);

// textract ins(src, row, col) outs(dst) / tinsert ins(src, row, col)
// outs(dst): bits of one element type, no relu. `win` is the tile the
// offsets index (src of a textract, dst of a tinsert), `region` the one
// whose valid region is copied. `boxed`: either tile is boxed (static
// shapes, 1-, 2- or 4-byte elements, not in place: the any-layout copy);
// otherwise both are lane tiles (lane_tile).
struct WindowPlan {
  ValueId src = kNone, dst = kNone, row = kNone, col = kNone, win = kNone, region = kNone;
  bool ext = false, boxed = false;
};
bool plan_twindow(const Module& m, const Inst& in, WindowPlan& p, Refusal& why);

// pto.subset, or a pto.subview, that names whole rows of a row-major
// tile from (op1, op2): a tile of its own at its parent's address plus
// (op1 * cols + op2) elements. A subview's explicit valid extents
// (op3, op4) are then clamped to its sizes (`valid_ops`). Other windows
// would need the parent's row stride in every op.
bool plan_row_subset(const Module& m, const Inst& in, bool& valid_ops, Refusal& why);
// Any other pto.subview on the CPU targets: a window with storage of its
// own, copied from its parent (p: the textract that refreshes it, the
// subview's offsets; tinsert is the same with src and dst swapped) around
// each op that names it (CpuLowering). The tiles are twindow's.
bool plan_subview_window(const Module& m, const Inst& in, WindowPlan& p, Refusal& why);
// A pto.subview the window copies take: not a run of whole rows
// (plan_row_subset refuses it) and its tiles are twindow's (p: the
// refreshing textract). What the frame planners give storage to and the
// driver lowers as a window (lowering.h).
bool subview_window(const Module& m, const Inst& in, WindowPlan& p);

// The code size limit of one function (CodegenOptions::code_limit): an
// encoder checks it before each op (code_limit_error, then throws
// CodeLimitReached, which its compile_function catches).
struct CodeLimitReached {};
void code_limit_error(const Module& m, InstId fn, const Inst& at, Diag& diag, const Target& t, size_t limit);

// The predicate of arith.cmpi as a condition: eq ne slt sle sgt sge ult ule
// ugt uge -> 0..9; -1 for an unknown one.
int cmpi_predicate(std::string_view p);

// The operands `from` .. `from + n` of `in`, its results, a region's
// arguments from `from` on.
std::vector<ValueId> operand_list(const Module& m, const Inst& in, unsigned from, unsigned n);
std::vector<ValueId> result_list(const Inst& in);
std::vector<ValueId> region_args(const Module& m, const Region& r, unsigned from);

}  // namespace ptoas::cg
