// target_diff: the differential test of the x86 backends against the reference
// interpreter. A Case is one kernel with its inputs, built before anything
// runs (target_diff_elt.cpp, target_diff_fused.cpp, target_diff_misc.cpp); the
// driver (target_diff.cpp) runs every case on the interpreter and on a target
// (avx2 natively; a batch target can run many cases at once) and compares
// the output buffers.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "frontend.h"
#include "interp.h"
#include "ops.h"

namespace x86diff {

using ptoas::DType;

struct Buffer {
  std::string name;           // "a", "b", "c", "oi", ...
  DType elem = DType::I32;    // how its elements are compared and printed
  std::vector<uint8_t> data;  // initial contents (outputs: a sentinel)
  bool output = false;        // compared after the run
  size_t ld = 0;              // elements per row, for messages (0: none)
};

// One kernel parameter: a buffer (index into Case::bufs) or a scalar.
struct Param {
  int buf = -1;
  ptoas::rt::Arg scalar;
};

struct Case {
  std::string name;  // "tadd f16 ragged DN", printed in messages
  std::string text;  // the kernel, .pto text
  ptoas::Arch arch = ptoas::Arch::A3;
  std::vector<Buffer> bufs;
  std::vector<Param> params;
  uint32_t ulp_tol = 0;         // floats: allowed distance, in ULP of the element type
  bool expect_refused = false;  // the target must refuse to compile it, with a message
  std::string refuse_word = "scalar";  // ... that names this
  // f16 results rounded more than once (fused ops, column sums / products):
  // a target whose f16 rounding breaks ties the wrong way (Bochs, see
  // target_diff.cpp) is off by more than the one tie there.
  bool f16_rounds_often = false;
  // A reduction: a target that reduces in a tree (Target::tree_reductions)
  // may return another NaN of the row (DESIGN §6: the order is its choice).
  bool reduction = false;
  // Optional, for such a target only: a difference the reduction order
  // allows (DESIGN §6's n eps sum|x| bound).
  std::function<bool(size_t b, size_t i, uint64_t ref, uint64_t got)> tree_tolerate;
  // Optional: true when a difference at element i of buffer b is allowed.
  std::function<bool(size_t b, size_t i, uint64_t ref, uint64_t got)> tolerate;
  // Optional: what element i of buffer b is called in messages.
  std::function<std::string(size_t b, size_t i)> where;
};

// A shape class: a rows x cols tile with a vr x vc valid region (the view).
struct Shape {
  const char* name;
  int rows, cols, vr, vc;
};
// Full tile, ragged valid region, one row, one column, widths that are not
// a multiple of 8, a single element, a big one.
const std::vector<Shape>& shapes();

// ---- shared helpers (target_diff_elt.cpp) ----
uint32_t rnd();
// A random input element of `d` (its bits, zero-extended): special values
// of the type (NaN with payloads, +-Inf, +-0, subnormals, integer extremes)
// four times in ten, else an ordinary value.
uint64_t sample(DType d);
uint64_t load_elem(const std::vector<uint8_t>& buf, DType d, size_t i);
// An element's value as a double (f32, f16, bf16; i8 and i32 as themselves).
double elem_value(DType d, uint64_t v);
void store_elem(std::vector<uint8_t>& buf, DType d, size_t i, uint64_t bits);
// A buffer of n elements: random samples, or (output) the sentinel 0xDEADBEEF
// truncated to the element size.
Buffer make_buffer(const std::string& name, DType d, size_t n, size_t ld, bool output);
// The scalar argument `bits` of type d, as the interpreter binds it.
ptoas::rt::Arg scalar_arg(DType d, uint64_t bits);
// Case with buffers a, b (inputs), c (output) and scalar s, as the kernels of
// kernel_head() take them.
Case abc_case(const std::string& name, const std::string& text, DType in, DType out, size_t n, size_t ld,
              DType sdt, uint64_t sbits);

// f32 f16 bf16 i32 u32 i16 u16 i8 u8: the element types of the x86 lanes.
const std::vector<DType>& lane_types();
bool narrow_float(DType d);  // f16 or bf16
// Tile rows (cols) of a column-major (row-major) tile of `d` covering n:
// a multiple of 32 bytes, except for a single row (column).
int round32(int n, DType d);
// The arch whose op table row allows `d` for `op` (a3 first); false when
// neither does (the pair is then listed by skipped_pairs()).
bool pick_arch(const std::string& op, DType d, ptoas::Arch& arch);
// Scalars of each type for the tile-scalar ops: extremes and an ordinary
// value (shift: amounts 0..bits-1).
std::vector<uint64_t> scalars(DType d, bool shift);

// Kernel text pieces. kernel_head: `func.func @k(%<p>: !pto.ptr<dt>, ...,
// %s: sdt)` and the index constants %c0 %c1 %R %C (s's valid region) %ld.
std::string kernel_head(const std::vector<std::string>& ptrs, const std::string& dt, DType sdt, const Shape& s,
                        size_t ld);
std::string tile_ty(int r, int c, const std::string& dt, bool dn, const char* valid = "?x?");
std::string view(const std::string& name, const std::string& p, const std::string& shape,
                 const std::string& strides, const std::string& dt);
std::string load(const std::string& view, const std::string& tile, const std::string& tty, const std::string& dt,
                 const std::string& vr, const std::string& vc);

// Case generators.
void elementwise_cases(std::vector<Case>& out);  // target_diff_elt.cpp: every dtype
void misc_cases(std::vector<Case>& out);         // target_diff_misc.cpp: tcvt, matmul, ttri, scalars
void fused_cases(std::vector<Case>& out);        // target_diff_fused.cpp: fused ops (taddc ... taxpy)
void reduce_cases(std::vector<Case>& out);       // target_diff_fused.cpp: row / column reductions, every dtype
// target_diff_ops.cpp: tcvt (every lane type pair, rmode, sat_mode), tcmp(s) +
// tsel(s), tfillpad(_inplace/_expand), textract / tinsert at offsets.
void ops_cases(std::vector<Case>& out);
// target_diff_views.cpp: tload / tstore through views of rank 1 to 5, every
// tile layout, packed / padded / strided / transposed strides.
void view_cases(std::vector<Case>& out);
// target_diff_windows.cpp: tgather's index form, pto.subview windows.
void subview_gather_cases(std::vector<Case>& out);
// Op / dtype pairs the case generators left out because the op table allows
// them on neither a3 nor a5 ("trelu i16").
const std::vector<std::string>& skipped_pairs();

}  // namespace x86diff
