// Interpreter: generators and sorting (docs/semantics.md §10).
//   TCI ins(start) {descending}: dst[0, j] = start + j (or start - j), j < vcol
//   TTRI ins(diagonal?) {upperOrLower}: lower (0): dst[i, j] = j <= i + d ? 1 : 0;
//        upper (1): dst[i, j] = j < i + d ? 0 : 1, over the dst valid region
//   TSORT32 ins(src, idx, tmp?): per row, each block of 32 (value, index)
//        pairs sorted descending (ties: smaller index first) into 8-byte records
//   TMRGSORT ins(src, blockLen): merges each group of 4 sorted blocks of
//        blockLen elements (records included) into one descending run
//   TSETVAL ins(k, v) outs(dst) / %v = TGETVAL ins(src, k): element k of the
//        tile's storage order (row-major: (k / cols, k % cols); col-major:
//        (k % rows, k / rows)), 0 <= k < rows * cols; boxed tiles refused
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "ops_common.h"

namespace ptoas::rt {

using namespace ops;

namespace {

bool attr_true(Exec& ex, const Inst& in, const char* key) {
  const Attr* a = ex.m.find_attr(in, key);
  if (!a) return false;
  if (a->kind == AttrKind::Unit) return true;
  if (a->kind == AttrKind::Bool || a->kind == AttrKind::Int) return a->ival != 0;
  return false;
}

void tci(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0);
  bool desc = attr_true(ex, in, "descending");
  ValueId sv = ex.in_id(in, 0);
  need_phys(ex, in, d, 1, d.vcol, "destination");
  if (is_float(d.elem)) {
    double s = ex.scalar_f(in, sv);
    for (int64_t j = 0; j < d.vcol; ++j) d.setf(0, j, desc ? s - double(j) : s + double(j));
  } else {
    int64_t s = ex.scalar_i(in, sv);
    for (int64_t j = 0; j < d.vcol; ++j)
      d.seti(0, j, int64_t(desc ? uint64_t(s) - uint64_t(j) : uint64_t(s) + uint64_t(j)));
  }
}

void ttri(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0);
  int64_t diag = in.n_ins > 0 ? ex.scalar_i(in, ex.in_id(in, 0)) : 0;
  const Attr* a = ex.m.find_attr(in, "upperOrLower");
  bool upper = a && a->ival != 0;
  for (int64_t i = 0; i < d.vrow; ++i)
    for (int64_t j = 0; j < d.vcol; ++j) {
      bool one = upper ? !(j < i + diag) : (j <= i + diag);
      if (is_float(d.elem)) d.setf(i, j, one ? 1.0 : 0.0);
      else d.seti(i, j, one ? 1 : 0);
    }
}

// Descending order on (value, index); NaN sorts before every number.
struct Rec {
  double v;
  uint32_t idx;
};
bool rec_before(const Rec& a, const Rec& b) {
  bool an = std::isnan(a.v), bn = std::isnan(b.v);
  if (an != bn) return an;
  if (!an && a.v != b.v) return a.v > b.v;
  return a.idx < b.idx;
}

void tsort32(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0), ix = ex.in_tile(in, 1);
  if (s.elem != DType::F32 && s.elem != DType::F16)
    ex.fail(in, "pto.tsort32 supports f32 and f16 values, got " + dn(s.elem));
  if (d.elem != s.elem) ex.fail(in, "pto.tsort32: dst must have the source's element type");
  if (ix.esize != 4) ex.fail(in, "pto.tsort32: the index tile must be 32-bit");
  if (in.n_ins >= 3 && s.vcol % 32 != 0)
    ex.fail(in, "pto.tsort32 with a tmp tile needs a valid column count that is a multiple of 32");
  need_phys(ex, in, ix, s.vrow, s.vcol, "index");
  int64_t per = 8 / s.esize;  // elements per record
  need_phys(ex, in, d, s.vrow, int64_t(s.vcol) * per, "destination");
  for (int64_t r = 0; r < s.vrow; ++r)
    for (int64_t j0 = 0; j0 < s.vcol; j0 += 32) {
      int64_t n = std::min<int64_t>(32, s.vcol - j0);
      std::vector<Rec> seg(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k)
        seg[size_t(k)] = {s.getf(r, j0 + k), uint32_t(ix.geti(r, j0 + k))};
      std::stable_sort(seg.begin(), seg.end(), rec_before);
      for (int64_t k = 0; k < n; ++k) {
        int64_t c = (j0 + k) * per;
        uint8_t rec[8] = {};
        store_f(rec, s.elem, seg[size_t(k)].v);
        std::memcpy(rec + 4, &seg[size_t(k)].idx, 4);
        for (int64_t e = 0; e < per; ++e) std::memcpy(d.at(r, c + e), rec + e * s.esize, s.esize);
      }
    }
}

void tmrgsort(Exec& ex, const Inst& in) {
  bool single = in.n_outs == 1 && (in.n_ins == 2 && !is_tile(ex, ex.in_id(in, 1)));
  const Attr* bl = ex.m.find_attr(in, "blockLen");
  if (in.n_outs == 1 && in.n_ins == 1 && bl) single = true;
  if (!single)
    ex.fail(in, "pto.tmrgsort: only the single-list form ins(%src, %blockLen) is supported by "
                "the interpreter");
  TileAcc d = ex.out_tile(in, 0), s = ex.in_tile(in, 0);
  if (s.elem != DType::F32 && s.elem != DType::F16)
    ex.fail(in, "pto.tmrgsort supports f32 and f16 records, got " + dn(s.elem));
  if (d.elem != s.elem) ex.fail(in, "pto.tmrgsort: dst must have the source's element type");
  int64_t block = in.n_ins == 2 ? ex.scalar_i(in, ex.in_id(in, 1)) : bl->ival;
  int64_t per = 8 / s.esize;
  if (block <= 0 || block % per != 0)
    ex.fail(in, "pto.tmrgsort: blockLen " + std::to_string(block) +
                    " must be a positive multiple of the record size (" + std::to_string(per) +
                    " elements)");
  int64_t group = block * 4, cols = d.vcol;
  need_phys(ex, in, s, 1, (cols / group) * group, "source");
  need_phys(ex, in, d, 1, cols, "destination");
  int64_t recs = block / per;
  for (int64_t base = 0; base + group <= cols; base += group) {
    std::vector<uint8_t> out(size_t(group) * s.esize);
    int64_t pos[4] = {0, 0, 0, 0};
    for (int64_t o = 0; o < recs * 4; ++o) {
      int pick = -1;
      double pv = 0;
      for (int b = 0; b < 4; ++b) {
        if (pos[b] >= recs) continue;
        double v = s.getf(0, base + b * block + pos[b] * per);
        if (pick < 0 || v > pv) { pick = b; pv = v; }
      }
      int64_t sc = base + pick * block + pos[pick] * per;
      for (int64_t e = 0; e < per; ++e)
        std::memcpy(out.data() + (o * per + e) * s.esize, s.at(0, sc + e), s.esize);
      ++pos[pick];
    }
    for (int64_t e = 0; e < group; ++e)
      std::memcpy(d.at(0, base + e), out.data() + e * s.esize, s.esize);
  }
}

// The (row, col) of storage element k of t, checked.
std::pair<int64_t, int64_t> storage_pos(Exec& ex, const Inst& in, const TileAcc& t, int64_t k) {
  const Type& ty = *t.t;
  if (ty.slayout != SLayout::NoneBox)
    ex.fail(in, std::string(op_name(in.op)) + " on a boxed tile is not supported by the interpreter");
  if (k < 0 || k >= int64_t(ty.rows) * ty.cols)
    ex.fail(in, std::string(op_name(in.op)) + ": element " + std::to_string(k) + " is outside the " +
                    std::to_string(ty.rows) + "x" + std::to_string(ty.cols) + " tile");
  if (ty.blayout == BLayout::ColMajor) return {k % ty.rows, k / ty.rows};
  return {k / ty.cols, k % ty.cols};
}

void tsetval(Exec& ex, const Inst& in) {
  TileAcc d = ex.out_tile(in, 0);
  auto [r, c] = storage_pos(ex, in, d, ex.scalar_i(in, ex.in_id(in, 0)));
  ValueId v = ex.in_id(in, 1);
  // A copy, as pto.store_scalar makes one: a float keeps its bits.
  if (ex.m.type_of(v).elem == d.elem) {
    if (is_float(d.elem)) store_f_bits(d.at(r, c), d.elem, ex.val(v).f);
    else store_i(d.at(r, c), d.elem, ex.val(v).i);
  } else if (is_float(d.elem)) {
    d.setf(r, c, ex.scalar_f(in, v));
  } else {
    d.seti(r, c, ex.scalar_i(in, v));
  }
}

void tgetval(Exec& ex, const Inst& in) {
  if (in.n_ins != 2 || in.n_res != 1) ex.fail(in, "this form of pto.tgetval is not supported by the interpreter");
  TileAcc s = ex.in_tile(in, 0);
  auto [r, c] = storage_pos(ex, in, s, ex.scalar_i(in, ex.in_id(in, 1)));
  const Type& rt = ex.m.type_of(in.res);
  RtValue& out = ex.val(in.res);
  if (rt.kind != TypeKind::Scalar) ex.fail(in, "pto.tgetval's result is not a scalar");
  if (rt.elem == s.elem && is_float(s.elem)) out.f = load_f_bits(s.at(r, c), s.elem);
  else if (rt.elem == s.elem) out.i = wrap_to(s.elem, s.geti(r, c));
  else if (dtype_is_float(rt.elem)) out.f = num_f(s, r, c);
  else out.i = num_i(s, r, c);
}

}  // namespace

void register_misc_ops(HandlerTable& t) {
  t[size_t(Op::TSetVal)] = tsetval;
  t[size_t(Op::TGetVal)] = tgetval;
  t[size_t(Op::TCi)] = tci;
  t[size_t(Op::TTri)] = ttri;
  t[size_t(Op::TSort32)] = tsort32;
  t[size_t(Op::TMrgSort)] = tmrgsort;
}

}  // namespace ptoas::rt
