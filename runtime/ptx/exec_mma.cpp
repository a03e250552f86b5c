// mma.sync.aligned: the warp's fragments gathered into whole matrices by
// the ISA's layouts (groupID = lane >> 2, threadID_in_group = lane % 4),
// multiplied, and scattered back.
//
// Floating point: each product is exact in a double (f16, bf16 and tf32
// have at most 11 significant bits), the K products and C are summed in
// double and rounded once to f32. The hardware accumulates with its own
// internal precision and order; the two agree within the summation bound
// of DESIGN §6, not bit for bit. Integer: exact, wrapping (or clamped with
// .satfinite) at 32 bits.
#include <cmath>

#include "exec.h"

namespace ptoas::ptx {

namespace {

struct Rc {
  int row, col;
};

// The (row, col) of element i of lane l's fragment, for each operand.
Rc a_pos(MmaShape sh, Ty t, int l, int i) {
  int g = l >> 2, q = l & 3;
  if (t == Ty::S8 || t == Ty::U8) {
    if (sh == MmaShape::M16N8K32) return {g + 8 * ((i >> 2) & 1), 4 * q + (i & 3) + 16 * (i >= 8)};
    return {g + 8 * (i >= 4), 4 * q + (i & 3)};  // m16n8k16
  }
  if (t == Ty::TF32) return {g + 8 * (i & 1), q + 4 * (i >= 2)};
  if (sh == MmaShape::M16N8K16) return {g + 8 * ((i >> 1) & 1), 2 * q + (i & 1) + 8 * (i >= 4)};
  return {g + 8 * (i >= 2), 2 * q + (i & 1)};  // m16n8k8 f16/bf16
}
Rc b_pos(MmaShape sh, Ty t, int l, int i) {
  int g = l >> 2, q = l & 3;
  if (t == Ty::S8 || t == Ty::U8) {
    if (sh == MmaShape::M16N8K32) return {4 * q + (i & 3) + 16 * (i >= 4), g};
    return {4 * q + i, g};  // m16n8k16
  }
  if (t == Ty::TF32) return {q + 4 * i, g};
  if (sh == MmaShape::M16N8K16) return {2 * q + (i & 1) + 8 * (i >= 2), g};
  return {2 * q + i, g};  // m16n8k8 f16/bf16
}
Rc c_pos(int l, int i) { return {(l >> 2) + 8 * (i >= 2), 2 * (l & 3) + (i & 1)}; }

int k_of(MmaShape sh, Ty t) {
  if (sh == MmaShape::M16N8K32) return 32;
  if (sh == MmaShape::M16N8K16) return 16;
  return 8;
}

// Elements per 32-bit register and their width.
int per_reg(Ty t) { return t == Ty::S8 || t == Ty::U8 ? 4 : t == Ty::TF32 ? 1 : 2; }

double elem_value(Ty t, uint32_t bits) {
  switch (t) {
    case Ty::F16: return fp::value(bits & 0xffff, fp::kF16);
    case Ty::BF16: return fp::value(bits & 0xffff, fp::kBF16);
    case Ty::TF32: return fp::f32(bits & 0xffffe000u);  // the low 13 bits are not part of a tf32
    case Ty::S8: return double(int8_t(bits & 0xff));
    case Ty::U8: return double(bits & 0xff);
    default: return 0;
  }
}

}  // namespace

void BlockRun::exec_mma(Warp& w, const Inst& in, uint32_t m) {
  const Opnd* o = ops(in);
  const MmaShape sh = MmaShape(in.mode);
  const Ty at = in.type2, bt = in.type3;
  const int K = k_of(sh, at);
  const bool integer = in.type == Ty::S32;
  double A[16][32] = {}, B[32][8] = {};
  double C[16][8] = {};
  int64_t Ci[16][8] = {};
  const int na = o[1].count, nb = o[2].count;
  const int pa = per_reg(at), pb = per_reg(bt), wa = 32 / pa, wb = 32 / pb;
  for (int l = 0; l < 32; ++l) {
    for (int r = 0; r < na; ++r) {
      uint32_t v = uint32_t(get(w, vec_el(o[1], r), l));
      for (int h = 0; h < pa; ++h) {
        Rc p = a_pos(sh, at, l, r * pa + h);
        A[p.row][p.col] = elem_value(at, pa == 1 ? v : (v >> (wa * h)));
      }
    }
    for (int r = 0; r < nb; ++r) {
      uint32_t v = uint32_t(get(w, vec_el(o[2], r), l));
      for (int h = 0; h < pb; ++h) {
        Rc p = b_pos(sh, bt, l, r * pb + h);
        B[p.row][p.col] = elem_value(bt, pb == 1 ? v : (v >> (wb * h)));
      }
    }
    for (int i = 0; i < 4; ++i) {
      uint32_t v = uint32_t(get(w, vec_el(o[3], i), l));
      Rc p = c_pos(l, i);
      if (integer) Ci[p.row][p.col] = int32_t(v);
      else C[p.row][p.col] = fp::f32(v);
    }
  }
  uint32_t D[16][8];
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      if (integer) {
        int64_t s = Ci[i][j];
        for (int k = 0; k < K; ++k) s += int64_t(A[i][k]) * int64_t(B[k][j]);
        if (in.flags & F_SATFINITE) s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
        D[i][j] = uint32_t(uint64_t(s));
      } else {
        double s = C[i][j];
        for (int k = 0; k < K; ++k) s += A[i][k] * B[k][j];
        D[i][j] = std::isnan(s) ? 0x7fffffffu : uint32_t(fp::round(s, 0, fp::Mode::RN, fp::kF32));
      }
    }
  for_lanes(m, [&](int l) {
    for (int i = 0; i < 4; ++i) {
      Rc p = c_pos(l, i);
      put(w, vec_el(o[0], i), l, D[p.row][p.col]);
    }
  });
}

}  // namespace ptoas::ptx
