// GM <-> tile: TLOAD, TSTORE (plain and atomic add), TPREFETCH; GM scalars:
// pto.load_scalar, pto.store_scalar.
//
// A view of rank n addresses tile (r, c) as: c -> the last dimension, r ->
// the other dimensions in row-major (mixed-radix) order. That is the ND
// mapping of PTO-ISA notes §4.8; for the rank-2 views real kernels use it is
// simply base + r*stride0 + c*stride1, whatever the strides (so a DN view is
// one with strides [1, R]).
#include <cmath>
#include <mutex>

#include "exec.h"

namespace ptoas::rt {

namespace {

std::mutex g_atomic_mutex;

// Element offset (in elements) of tile position (r, c) in view v.
int64_t view_offset(const RtView& v, int64_t r, int64_t c) {
  if (v.rank == 0) return c;
  int64_t off = c * v.stride[v.rank - 1];
  for (int k = v.rank - 2; k >= 0; --k) {
    int64_t d = v.shape[k] > 0 ? v.shape[k] : 1;
    off += (r % d) * v.stride[k];
    r /= d;
  }
  return off;
}

int64_t view_rows(const RtView& v) {
  int64_t rows = 1;
  for (int k = 0; k + 1 < v.rank; ++k) rows *= v.shape[k];
  return rows;
}

int64_t view_cols(const RtView& v) { return v.rank ? v.shape[v.rank - 1] : 0; }

// `window`: the view may be larger than the tile's valid region, which then
// reads its top-left corner (a tload of a 2x24 view into a 2x8 valid region
// reads the first 8 columns of each row, as the CPU targets do).
void check_shapes(Exec& ex, const Inst& in, const RtView& v, const TileAcc& t, const char* op,
                  bool window = false) {
  if (dtype_bytes(v.elem) != t.esize)
    ex.fail(in, std::string(op) + ": GM element type " + std::string(dtype_name(v.elem)) +
                    " and tile element type " + std::string(dtype_name(t.elem)) +
                    " differ in size");
  bool fits = window ? view_rows(v) >= t.vrow && view_cols(v) >= t.vcol
                     : view_rows(v) == t.vrow && view_cols(v) == t.vcol;
  if (!fits)
    ex.fail(in, std::string(op) + ": the view is " + std::to_string(view_rows(v)) + "x" +
                    std::to_string(view_cols(v)) + " but the tile's valid region is " +
                    std::to_string(t.vrow) + "x" + std::to_string(t.vcol));
}

void tload(Exec& ex, const Inst& in) {
  const RtView& v = ex.view(in, ex.in_id(in, 0));
  TileAcc t = ex.out_tile(in, 0);
  check_shapes(ex, in, v, t, "tload", true);
  // The whole physical tile first takes the pad value, then the valid
  // region is copied (bit for bit: the DMA moves bytes, it does not convert).
  // A subview window pads its own elements only.
  const Type& ty = *t.t;
  const bool fl = is_float(t.elem);
  const double pf = fl ? pad_value_f(ty) : 0;
  const int64_t pi = fl ? 0 : pad_value_i(ty);
  if (!t.window()) {
    size_t total = tile_storage_bytes(ty);
    for (size_t off = 0; off < total; off += t.esize)
      fl ? store_f(t.base + off, t.elem, pf) : store_i(t.base + off, t.elem, pi);
  } else {
    for (int64_t r = 0; r < ty.rows; ++r)
      for (int64_t c = 0; c < ty.cols; ++c) fl ? t.setf(r, c, pf) : t.seti(r, c, pi);
  }
  for (int64_t r = 0; r < t.vrow; ++r)
    for (int64_t c = 0; c < t.vcol; ++c) {
      const uint8_t* src = ex.gm_at(in, v, view_offset(v, r, c), t.esize, t.esize, "tload reads");
      copy_elem(t.at(r, c), src, t.elem);
    }
}

// The value stored to GM for a tile element: Acc tiles may narrow (f32 ->
// f16/bf16, RNE) and apply relu (reluPreMode = normal_relu: v > 0 ? v : 0).
void tstore(Exec& ex, const Inst& in) {
  // The quantizing form (a pre-quant scalar operand) is fixpipe hardware;
  // ignoring its scale as the simulator does would give silently wrong data.
  if (in.n_ins > 1)
    ex.fail(in, "tstore with a quantization scalar is not supported by the interpreter");
  TileAcc t = ex.in_tile(in, 0);
  const RtView& v = ex.view(in, ex.out_id(in, 0));
  if (view_rows(v) != t.vrow || view_cols(v) != t.vcol)
    ex.fail(in, "tstore: the view is " + std::to_string(view_rows(v)) + "x" +
                    std::to_string(view_cols(v)) + " but the tile's valid region is " +
                    std::to_string(t.vrow) + "x" + std::to_string(t.vcol));
  bool atomic_add = ex.m.attr_word(in, "atomicType") == "atomic_add";
  bool relu = ex.m.attr_word(in, "reluPreMode") == "normal_relu";
  bool convert = v.elem != t.elem;
  if (convert && !(is_float(v.elem) && is_float(t.elem)) && dtype_bytes(v.elem) != t.esize)
    ex.fail(in, "tstore: cannot store " + std::string(dtype_name(t.elem)) + " tiles to " +
                    std::string(dtype_name(v.elem)) + " memory");
  unsigned gsize = dtype_bytes(v.elem);
  std::unique_lock<std::mutex> lock(g_atomic_mutex, std::defer_lock);
  if (atomic_add) lock.lock();
  for (int64_t r = 0; r < t.vrow; ++r)
    for (int64_t c = 0; c < t.vcol; ++c) {
      uint8_t* dst = ex.gm_at(in, v, view_offset(v, r, c), gsize, gsize, "tstore writes");
      if (!convert && !relu && !atomic_add) {
        copy_elem(dst, t.at(r, c), t.elem);  // a plain store copies bits (a signalling NaN too)
      } else if (is_float(t.elem) && is_float(v.elem)) {
        double x = t.getf(r, c);
        if (relu) x = x > 0 ? x : 0;
        if (atomic_add) x = x + load_f(dst, v.elem);
        store_f(dst, v.elem, x);
      } else if (!is_float(t.elem) && !is_float(v.elem)) {
        int64_t x = t.geti(r, c);
        if (relu) x = x > 0 ? x : 0;
        if (atomic_add) x += load_i(dst, v.elem);
        store_i(dst, v.elem, x);
      } else {
        copy_elem(dst, t.at(r, c), t.elem);  // same size, different class: bits
      }
    }
}

void tprefetch(Exec&, const Inst&) {}  // a cache hint

// pto.load_scalar %p[%i] / pto.store_scalar %v, %p[%i]: one element at
// element index i from the pointer, bounds-checked like every GM access.
// A copy: a float keeps its bits (a signalling NaN stays one), an i1 is
// the low bit of its byte.
void check_scalar_mem_type(Exec& ex, const Inst& in, DType d) {
  if (!is_float(d) || d == DType::F32 || d == DType::F64 || d == DType::F16 || d == DType::BF16) return;
  ex.fail(in, std::string(op_name(in.op)) + " of " + std::string(dtype_name(d)) +
                  " (a storage format) is not supported by the interpreter");
}

void load_scalar(Exec& ex, const Inst& in) {
  const RtView& v = ex.view(in, ex.m.operand(in, 0));
  check_scalar_mem_type(ex, in, v.elem);
  unsigned es = dtype_bytes(v.elem);
  const uint8_t* src = ex.gm_at(in, v, ex.opnd(in, 1).i, es, es, "pto.load_scalar reads");
  RtValue& out = ex.val(in.res);
  if (is_float(v.elem)) out.f = load_f_bits(src, v.elem);
  else out.i = wrap_to(v.elem, load_i(src, v.elem));
}

void store_scalar(Exec& ex, const Inst& in) {
  const RtView& v = ex.view(in, ex.m.operand(in, 1));
  check_scalar_mem_type(ex, in, v.elem);
  unsigned es = dtype_bytes(v.elem);
  uint8_t* dst = ex.gm_at(in, v, ex.opnd(in, 2).i, es, es, "pto.store_scalar writes");
  const RtValue& x = ex.opnd(in, 0);
  if (is_float(v.elem)) store_f_bits(dst, v.elem, x.f);
  else store_i(dst, v.elem, x.i);
}

}  // namespace

void register_memory_ops(HandlerTable& t) {
  t[size_t(Op::TLoad)] = tload;
  t[size_t(Op::TStore)] = tstore;
  t[size_t(Op::TPrefetch)] = tprefetch;
  t[size_t(Op::LoadScalar)] = load_scalar;
  t[size_t(Op::StoreScalar)] = store_scalar;
}

}  // namespace ptoas::rt
