// Interpreter: data movement and layout ops (docs/semantics.md §8).
// Every copy goes through both tiles' layouts, so layout changes (ND <-> NZ,
// Vec -> Left, Acc -> Vec ...) are implicit. Equal element types copy bits;
// different ones convert (move_elem: floats RNE, float -> int truncating with
// saturation). Sources are staged before writing where dst may alias src.
#include <cstring>
#include <vector>

#include "ops_common.h"

namespace ptoas::rt {

using namespace ops;

namespace {

bool relu_attr(Exec& ex, const Inst& in) {
  if (ex.m.attr_word(in, "reluPreMode") == "normal_relu") return true;
  const Attr* a = ex.m.find_attr(in, "relu");
  return a && (a->kind == AttrKind::Bool || a->kind == AttrKind::Int || a->kind == AttrKind::Unit) &&
         (a->kind == AttrKind::Unit || a->ival != 0);
}

// A staged copy of a rectangle of src: raw element bytes, row-major.
struct Staged {
  std::vector<uint8_t> bytes;
  int64_t rows = 0, cols = 0;
  unsigned esize = 1;
  DType elem = DType::None;
  const uint8_t* at(int64_t r, int64_t c) const { return bytes.data() + (r * cols + c) * esize; }
};

Staged stage(const TileAcc& s, int64_t r0, int64_t c0, int64_t rows, int64_t cols) {
  Staged st;
  st.rows = rows;
  st.cols = cols;
  st.esize = s.esize;
  st.elem = s.elem;
  st.bytes.resize(size_t(rows * cols) * s.esize);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(st.bytes.data() + (r * cols + c) * s.esize, s.at(r0 + r, c0 + c), s.esize);
  return st;
}

// TMOV ins(src) outs(dst): dst[r, c] = src[r, c] over the dst valid region,
// with conversion and the optional relu. The quantized forms (a scalar or
// a scaling tile operand) are refused.
void tmov(Exec& ex, const Inst& in) {
  if (in.n_ins > 1)
    ex.fail(in, "pto.tmov with a quantization operand (scalar or scaling tile) is not supported "
                "by the interpreter");
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0);
  need_phys(ex, in, s, d.vrow, d.vcol, "source");
  bool relu = relu_attr(ex, in);
  Staged st = stage(s, 0, 0, d.vrow, d.vcol);
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c)
      move_elem(d.at(r, c), d.elem, st.at(r, c), s.elem, relu);
}

int64_t index_operand(Exec& ex, const Inst& in, unsigned i) {
  int64_t v = ex.scalar_i(in, ex.in_id(in, i));
  if (v < 0) ex.fail(in, std::string(op_name(in.op)) + ": negative row/column offset");
  return v;
}

// need_phys for the region [r0, r0 + rows) x [c0, c0 + cols), the ends
// computed without overflow (an offset near INT64_MAX wrapped the sum
// negative and passed, then addressed before the tile arena).
void need_phys_at(Exec& ex, const Inst& in, const TileAcc& t, int64_t r0, int64_t rows, int64_t c0,
                  int64_t cols, const char* what) {
  int64_t re, ce;
  if (__builtin_add_overflow(r0, rows, &re) || __builtin_add_overflow(c0, cols, &ce))
    ex.fail(in, std::string(op_name(in.op)) + ": the offset (" + std::to_string(r0) + ", " + std::to_string(c0) +
                    ") is outside the " + what + " tile (" + std::to_string(t.t->rows) + "x" +
                    std::to_string(t.t->cols) + ")");
  need_phys(ex, in, t, re, ce, what);
}

}  // namespace

// The offset checks of textract / tinsert alone (no tile data is touched):
// the view probe runs them, so that native code, which takes the offsets
// as they come, never gets one outside its tiles.
void check_move_offsets(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0);
  int64_t r0 = index_operand(ex, in, 1), c0 = index_operand(ex, in, 2);
  if (in.op == Op::TExtract) need_phys_at(ex, in, s, r0, d.vrow, c0, d.vcol, "source");
  else need_phys_at(ex, in, d, r0, s.vrow, c0, s.vcol, "destination");
}

namespace {

// TEXTRACT ins(src, row, col): dst[i, j] = src[row + i, col + j] over the dst
// valid region.
void textract(Exec& ex, const Inst& in) {
  check_move_offsets(ex, in);
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0);
  int64_t r0 = index_operand(ex, in, 1), c0 = index_operand(ex, in, 2);
  bool relu = relu_attr(ex, in);
  Staged st = stage(s, r0, c0, d.vrow, d.vcol);
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c)
      move_elem(d.at(r, c), d.elem, st.at(r, c), s.elem, relu);
}

// TINSERT ins(src, row, col): dst[row + i, col + j] = src[i, j] over the src
// valid region.
void tinsert(Exec& ex, const Inst& in) {
  if (in.n_ins > 3)
    ex.fail(in, "pto.tinsert with a preQuantScalar operand (PTOAS 0.60's quantizing acc -> mat "
                "form) is not supported by the interpreter");
  check_move_offsets(ex, in);
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0);
  int64_t r0 = index_operand(ex, in, 1), c0 = index_operand(ex, in, 2);
  bool relu = relu_attr(ex, in);
  Staged st = stage(s, 0, 0, s.vrow, s.vcol);
  for (int64_t r = 0; r < s.vrow; ++r)
    for (int64_t c = 0; c < s.vcol; ++c)
      move_elem(d.at(r0 + r, c0 + c), d.elem, st.at(r, c), s.elem, relu);
}

// TRESHAPE: dst becomes a view of src's storage (no copy; later writes
// through either are visible in both). Same location and byte size required.
void treshape(Exec& ex, const Inst& in) {
  RtTile& sd = ex.tile_desc(in, ex.in_id(in, 0));
  RtTile src = sd;
  if (src.phys != kNone) ex.fail(in, "pto.treshape of a pto.subview window is not supported by the interpreter");
  RtTile& dd = ex.tile_desc(in, ex.out_id(in, 0));
  const Type& st = ex.m.types.get(src.type);
  const Type& dt = ex.m.types.get(dd.type);
  if (st.loc != dt.loc)
    ex.fail(in, "pto.treshape: src and dst must be in the same location (" +
                    std::string(loc_name(st.loc)) + " vs " + std::string(loc_name(dt.loc)) + ")");
  size_t sb = tile_storage_bytes(st), db = tile_storage_bytes(dt);
  if (sb != db)
    ex.fail(in, "pto.treshape: src has " + std::to_string(sb) + " bytes, dst " +
                    std::to_string(db));
  dd.loc = src.loc;
  dd.offset = src.offset;
  dd.phys = kNone;
}

// TTRANS ins(src, tmp?): dst[c, r] = src[r, c] over the src valid region.
void ttrans(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0);
  need_phys(ex, in, d, s.vcol, s.vrow, "destination");
  Staged st = stage(s, 0, 0, s.vrow, s.vcol);
  for (int64_t r = 0; r < s.vrow; ++r)
    for (int64_t c = 0; c < s.vcol; ++c) move_elem(d.at(c, r), d.elem, st.at(r, c), s.elem, false);
}

// TCONCAT ins(src0, src1): each dst valid row = src0's valid columns then
// src1's valid columns.
void tconcat(Exec& ex, const Inst& in) {
  if (in.n_ins > 2)
    ex.fail(in, "pto.tconcat with index tiles is not supported by the interpreter");
  TileAcc d = ex.out_tile(in, 0), a = ex.in_tile(in, 0), b = ex.in_tile(in, 1);
  int64_t total = int64_t(a.vcol) + b.vcol;
  need_phys(ex, in, d, d.vrow, total, "destination");
  need_phys(ex, in, a, d.vrow, a.vcol, "first source");
  need_phys(ex, in, b, d.vrow, b.vcol, "second source");
  Staged sa = stage(a, 0, 0, d.vrow, a.vcol), sb = stage(b, 0, 0, d.vrow, b.vcol);
  for (int64_t r = 0; r < d.vrow; ++r) {
    for (int64_t c = 0; c < a.vcol; ++c) move_elem(d.at(r, c), d.elem, sa.at(r, c), a.elem, false);
    for (int64_t c = 0; c < b.vcol; ++c)
      move_elem(d.at(r, a.vcol + c), d.elem, sb.at(r, c), b.elem, false);
  }
}

// TFILLPAD / _INPLACE / _EXPAND: the whole physical dst = src inside src's
// valid region, dst's pad value elsewhere (Null and Zero: 0; Max: +Inf or
// the type's max; Min: -Inf or the type's min).
void tfillpad(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0);
  int64_t R = d.t->rows, C = d.t->cols;
  int64_t vr = std::min<int64_t>(s.vrow, R), vc = std::min<int64_t>(s.vcol, C);
  if (s.vrow > R || s.vcol > C)
    ex.fail(in, std::string(op_name(in.op)) + ": the source's valid region (" +
                    std::to_string(s.vrow) + "x" + std::to_string(s.vcol) +
                    ") does not fit the destination (" + std::to_string(R) + "x" +
                    std::to_string(C) + ")");
  Staged st = stage(s, 0, 0, vr, vc);
  uint8_t pad[8] = {};
  if (is_float(d.elem)) store_f(pad, d.elem, pad_value_f(*d.t));
  else store_i(pad, d.elem, pad_value_i(*d.t));
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) {
      if (r < vr && c < vc) move_elem(d.at(r, c), d.elem, st.at(r, c), s.elem, false);
      else std::memcpy(d.at(r, c), pad, d.esize);
    }
}

// ---- gather / scatter ---------------------------------------------------------------------

// Mask patterns: element index k (column) selected?
bool mask_select(std::string_view p, int64_t k) {
  if (p == "P0101") return k % 2 == 0;
  if (p == "P1010") return k % 2 == 1;
  if (p == "P0001") return k % 4 == 0;
  if (p == "P0010") return k % 4 == 1;
  if (p == "P0100") return k % 4 == 2;
  if (p == "P1000") return k % 4 == 3;
  return true;  // P1111
}

bool known_pattern(std::string_view p) {
  return p == "P0101" || p == "P1010" || p == "P0001" || p == "P0010" || p == "P0100" ||
         p == "P1000" || p == "P1111";
}

void tgather(Exec& ex, const Inst& in) {
  if (in.n_outs > 1 || (in.n_ins >= 2 && !is_tile(ex, ex.in_id(in, 1))))
    ex.fail(in, "pto.tgather's compare form is not supported by the interpreter");
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0);
  if (in.n_ins == 1) {
    // Mask form: the selected columns of each src valid row, written densely
    // (row-major) into dst's storage.
    std::string_view p = ex.m.attr_word(in, "maskPattern");
    if (!known_pattern(p))
      ex.fail(in, "pto.tgather: unknown or missing maskPattern '" + std::string(p) + "'");
    Staged st = stage(s, 0, 0, s.vrow, s.vcol);
    int64_t k = 0, cap = int64_t(d.t->rows) * d.t->cols;
    // PTOAS 0.60's axis "col" selects whole rows (row i of each group);
    // "row" (and 0.27's form without an axis) selects columns of each row.
    if (ex.m.attr_word(in, "axis") == "col") {
      for (int64_t r = 0; r < s.vrow; ++r) {
        if (!mask_select(p, r)) continue;
        if (k >= d.t->rows || s.vcol > d.t->cols)
          ex.fail(in, "pto.tgather: the selected rows do not fit the destination");
        for (int64_t c = 0; c < s.vcol; ++c)
          move_elem(d.at(k, c), d.elem, st.at(r, c), s.elem, false);
        ++k;
      }
      return;
    }
    for (int64_t r = 0; r < s.vrow; ++r)
      for (int64_t c = 0; c < s.vcol; ++c) {
        if (!mask_select(p, c)) continue;
        if (k >= cap) ex.fail(in, "pto.tgather: the selected elements do not fit the destination");
        move_elem(d.at(k / d.t->cols, k % d.t->cols), d.elem, st.at(r, c), s.elem, false);
        ++k;
      }
    return;
  }
  // Index form: dst[r, c] = src at flat index idx[r, c] (row-major over src's
  // physical Rows x Cols); out of range or negative -> 0.
  TileAcc idx = ex.in_tile(in, 1);
  need_int(ex, in, idx.elem);
  need_phys(ex, in, idx, d.vrow, d.vcol, "index");
  int64_t n = int64_t(s.t->rows) * s.t->cols;
  Staged st = stage(s, 0, 0, s.t->rows, s.t->cols);
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c) {
      int64_t k = idx.geti(r, c);
      if (idx.elem == DType::U64 && k < 0) k = n;  // huge
      if (k < 0 || k >= n) {
        std::memset(d.at(r, c), 0, d.esize);
        continue;
      }
      move_elem(d.at(r, c), d.elem, st.at(k / s.t->cols, k % s.t->cols), s.elem, false);
    }
}

// TGATHERB ins(src, offsets): dst[r, c] = the src element at byte offset
// offsets[r, c] of src's storage (must be in range and element-aligned).
void tgatherb(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0), off = ex.in_tile(in, 1);
  need_int(ex, in, off.elem);
  need_phys(ex, in, off, d.vrow, d.vcol, "offset");
  if (s.window()) ex.fail(in, "pto.tgatherb from a pto.subview window is not supported by the interpreter");
  size_t bytes = tile_storage_bytes(*s.t);
  std::vector<uint8_t> copy(s.base, s.base + bytes);
  for (int64_t r = 0; r < d.vrow; ++r)
    for (int64_t c = 0; c < d.vcol; ++c) {
      uint64_t o = uint64_t(off.geti(r, c));
      if (off.elem != DType::U64 && off.geti(r, c) < 0) o = bytes;
      if (o >= bytes || bytes - o < s.esize || o % s.esize)  // o + esize may wrap
        ex.fail(in, "pto.tgatherb: byte offset " + std::to_string(o) +
                        " is outside the source tile or misaligned");
      move_elem(d.at(r, c), d.elem, copy.data() + o, s.elem, false);
    }
}

// TSCATTER ins(src, idx): dst[idx[r, c], c] = src[r, c] over the src valid
// region, row-major order (the last writer wins); an index outside dst's
// rows is an error.
void tscatter(Exec& ex, const Inst& in) {
  if (in.n_ins < 2)
    ex.fail(in, "pto.tscatter's mask form is not supported by the interpreter");
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0), idx = ex.in_tile(in, 1);
  need_int(ex, in, idx.elem);
  need_phys(ex, in, idx, s.vrow, s.vcol, "index");
  need_phys(ex, in, d, 1, s.vcol, "destination");
  Staged st = stage(s, 0, 0, s.vrow, s.vcol);
  for (int64_t r = 0; r < s.vrow; ++r)
    for (int64_t c = 0; c < s.vcol; ++c) {
      int64_t k = idx.geti(r, c);
      if (k < 0 || k >= d.t->rows)
        ex.fail(in, "pto.tscatter: row index " + std::to_string(k) + " is outside the " +
                        std::to_string(d.t->rows) + "-row destination");
      move_elem(d.at(k, c), d.elem, st.at(r, c), s.elem, false);
    }
}

}  // namespace

void register_move_ops(HandlerTable& t) {
  t[size_t(Op::TMov)] = tmov;
  t[size_t(Op::TExtract)] = textract;
  t[size_t(Op::TInsert)] = tinsert;
  t[size_t(Op::TReshape)] = treshape;
  t[size_t(Op::TTrans)] = ttrans;
  t[size_t(Op::TConcat)] = tconcat;
  t[size_t(Op::TFillPad)] = tfillpad;
  t[size_t(Op::TFillPadInplace)] = tfillpad;
  t[size_t(Op::TFillPadExpand)] = tfillpad;
  t[size_t(Op::TGather)] = tgather;
  t[size_t(Op::TGatherB)] = tgatherb;
  t[size_t(Op::TScatter)] = tscatter;
}

}  // namespace ptoas::rt
