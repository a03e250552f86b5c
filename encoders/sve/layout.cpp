// AArch64 SVE ops that address tiles of any layout (ND, DN, boxed) through
// the row-part + column-part offset form of tile_geometry.h (AxisMap): tmov between
// layouts, tload / tstore of boxed tiles and through views of rank 3 and
// up, and tmatmul. Column offsets are
// vectors (gathers / scatters), row offsets scalars.
#include <algorithm>

#include "gen.h"
#include "tile_layout.h"

namespace ptoas::cg::sve::gen {

namespace {
const char* gather_name(unsigned es) {
  return es == 4 ? "GLD1W_UXTW" : es == 2 ? "GLD1H_S_UXTW" : "GLD1B_S_UXTW";
}
const char* scatter_name(unsigned es) { return es == 4 ? "SST1W_UXTW" : es == 2 ? "SST1H_S_UXTW" : "SST1B_S_UXTW"; }
int log2_of(int64_t v) {
  int l = 0;
  while ((int64_t(1) << l) < v) ++l;
  return l;
}
}  // namespace

bool Gen::axis(const Inst& in, const ptoas::Type& t, bool rows, AxisMap& m) {
  if (axis_map(t, rows, m)) return true;
  fail(in, {RefusalCode::Shape, "op " + std::string(op_name(in.op)) + " on a tile of dynamic shape or a non-power-of-two box"});
  return false;
}

// x<dst> = the byte offset part of index x<idx> (x16, x17 scratch).
void Gen::axis_scalar(R dst, const AxisMap& m, R idx) {
  if (m.shift < 63) {
    I("UBFMXri", {dst, idx, m.shift, 63});  // idx >> shift
    mov_imm(X(17), uint64_t(m.box));
    I("MADDXrrr", {dst, dst, X(17), xzr()});
    I("UBFMXri", {X(16), idx, 0, std::max(0, log2_of(m.mask + 1) - 1)});  // idx & mask
    if (m.mask == 0) mov(X(16), xzr());
    mov_imm(X(17), uint64_t(m.unit));
    I("MADDXrrr", {dst, X(16), X(17), dst});
  } else {
    mov_imm(X(17), uint64_t(m.unit));
    I("MADDXrrr", {dst, idx, X(17), xzr()});
  }
  if (m.les) I("UBFMXri", {dst, dst, 64 - m.les, 63 - m.les});
}

// z<dst> = byte offset parts of indices x<first>, x<first> + 1, ... in
// 32-bit lanes (z3, z5, x16 scratch; p7 all lanes).
void Gen::axis_vec(R dst, const AxisMap& m, R first) {
  I("INDEX_RI_S", {dst, W(int(reg_number(first))), 1});
  auto splat = [&](R z, int64_t v) {
    mov_imm(X(16), uint64_t(v));
    I("DUP_ZR_S", {z, W(16)});
  };
  if (m.shift < 63) {
    if (m.shift > 0) I("LSR_ZZI_S", {Z(3), dst, m.shift});
    else I("ORR_ZZZ", {Z(3), dst, dst});
    splat(Z(5), m.box);
    I("MUL_ZPmZ_S", {Z(3), P(7), Z(3), Z(5)});
    splat(Z(5), m.mask);
    I("AND_ZZZ", {dst, dst, Z(5)});
    splat(Z(5), m.unit);
    I("MUL_ZPmZ_S", {dst, P(7), dst, Z(5)});
    I("ADD_ZZZ_S", {dst, dst, Z(3)});
  } else if (m.unit != 1) {
    splat(Z(5), m.unit);
    I("MUL_ZPmZ_S", {dst, P(7), dst, Z(5)});
  }
  if (m.les) I("LSL_ZZI_S", {dst, dst, m.les});
}

// tmov between tiles of one element type (any layouts): dst[r, c] =
// src[r, c] over dst's valid region (capped by both shapes).
void Gen::tmov(const Inst& in, ValueId s, ValueId d) {
  const ptoas::Type& st = ty(s);
  const ptoas::Type& dt = ty(d);
  unsigned es = dtype_bytes(dt.elem);
  AxisMap sr, sc, dr, dc;
  if (!axis(in, st, true, sr) || !axis(in, st, false, sc) || !axis(in, dt, true, dr) || !axis(in, dt, false, dc))
    return;
  I("PTRUE_S", {P(7), 31});
  valid_region(d, std::min(st.rows, dt.rows), std::min(st.cols, dt.cols));
  tile_ptr(X(0), s);
  tile_ptr(X(1), d);
  mov(X(12), xzr());  // the row
  row_loop({}, {}, [&](R pg) {
    axis_vec(Z(1), sc, X(11));
    axis_vec(Z(2), dc, X(11));
    I(gather_name(es), {Z(0), pg, X(2), Z(1)});
    I(scatter_name(es), {Z(0), pg, X(3), Z(2)});
  }, [&] { I("ADDXri", {X(12), X(12), 1, 0}); }, [&] {
    axis_scalar(X(2), sr, X(12));
    I("ADDXrs", {X(2), X(2), X(0), 0});
    axis_scalar(X(3), dr, X(12));
    I("ADDXrs", {X(3), X(3), X(1), 0});
  });
}

// A tload's pad fill of tile t's whole storage: a boxed tile's zeroed a
// word at a time (whole boxes: a multiple of 4 bytes), an unboxed one's
// rows x cols elements set to its pad value. Clobbers x0, x10, x11, x16,
// z0, p0.
void Gen::pad_fill(ValueId t) {
  const ptoas::Type& tt = ty(t);
  unsigned es = dtype_bytes(tt.elem);
  bool boxed = tt.slayout != SLayout::NoneBox;
  int fill = new_label();
  tile_ptr(X(0), t);
  if (boxed) {
    I("DUP_ZI_S", {Z(0), 0, 0});
    mov_imm(X(10), tile_storage_bytes(tt) / 4);
  } else {
    mov_imm(X(16), pad_bits(tt));
    I("DUP_ZR_S", {Z(0), W(16)});
    mov_imm(X(10), uint64_t(tt.rows) * uint64_t(tt.cols));
  }
  mov(X(11), xzr());
  I("WHILELO_PXX_S", {P(0), X(11), X(10)});
  bind(fill);
  if (boxed) I("ST1W", {Z(0), P(0), X(0), X(11)});
  else st_e(es == 4 ? DType::U32 : es == 2 ? DType::U16 : DType::U8, Z(0), P(0), X(0), X(11));
  I("INCW_XPiI", {X(11), X(11), 31, 1});
  I("WHILELO_PXX_S", {P(0), X(11), X(10)});
  bcc(MI, fill);
}

// x9 = min(x9, view v's rows): the product of every shape but the last,
// each taken in [0, cap] and the product capped there too (no overflow:
// both factors fit 32 bits). Clobbers x1, x16, x17.
void Gen::cap_view_rows(ValueId v, unsigned rank, int64_t cap) {
  mov_imm(X(1), 1);
  mov_imm(X(17), uint64_t(cap));
  for (unsigned k = 0; k + 1 < rank; ++k) {
    ldx(X(16), v, 1 + k);
    I("SUBSXri", {xzr(), X(16), 0, 0});
    I("CSELXr", {X(16), xzr(), X(16), int(LT)});
    I("SUBSXrs", {xzr(), X(16), X(17), 0});
    I("CSELXr", {X(16), X(17), X(16), int(GT)});
    I("MADDXrrr", {X(1), X(1), X(16), xzr()});
    I("SUBSXrs", {xzr(), X(1), X(17), 0});
    I("CSELXr", {X(1), X(17), X(1), int(GT)});
  }
  I("SUBSXrs", {xzr(), X(9), X(1), 0});
  I("CSELXr", {X(9), X(1), X(9), int(GT)});
}

// tload / tstore between tile t and view v, element by element or a row
// at a time, for a boxed tile (any view rank) and for an unboxed one with
// a view of rank 3 and up (tcopy takes ranks 1 and 2): the pad fill of a
// load, then per row of the overlap of the valid region and the view:
// view columns contiguous (stride 1) as vectors, scattered into /
// gathered from the tile (a row-major unboxed tile: contiguous too); any
// other view stride element by element. The view's row pointer x6 steps
// by its row stride (rank 2), or (any other rank) is the view base x15
// plus the row's element offset x13, kept by an odometer over the
// dimensions but the last (view_step): the interpreter's row-major split
// of the row index.
void Gen::tcopy_grid(const Inst& in, ValueId t, ValueId v, bool load) {
  const ptoas::Type& tt = ty(t);
  unsigned es = dtype_bytes(tt.elem);
  unsigned rank = (p_.slots[v].count - 1u) / 2u;
  bool boxed = tt.slayout != SLayout::NoneBox, nd = rank != 2;
  Refusal why;
  if (boxed ? !boxed_copy_ok(m_, t, v, rank, load, why) : !view_copy_ok(m_, t, v, rank, load, why))
    return fail(in, why);
  AxisMap tr, tc;
  if (!axis(in, tt, true, tr) || !axis(in, tt, false, tc)) return;
  DType bits = es == 4 ? DType::U32 : es == 2 ? DType::U16 : DType::U8;
  int sh = es == 4 ? 2 : es == 2 ? 1 : 0;
  I("PTRUE_S", {P(7), 31});
  if (load) pad_fill(t);
  valid_region(t, tt.rows, tt.cols);
  // The digits i_1 .. i_3 of the row index (i_0 needs no counter).
  const R digit[] = {X(14), X(8), X(4)};
  if (!nd) {
    cap_slot(X(9), v, 1);
    cap_slot(X(10), v, 2);
    ldx(X(4), v, 3);  // view strides, elements
    ldx(X(5), v, 4);
    ldx(X(6), v, 0);  // view row pointer
  } else {
    cap_view_rows(v, rank, tt.rows);
    cap_slot(X(10), v, rank);
    ldx(X(5), v, 2 * rank);  // the column stride, elements
    ldx(X(15), v, 0);
    mov(X(6), X(15));
    mov(X(13), xzr());
    for (unsigned k = 1; k + 1 < rank; ++k) mov(digit[k - 1], xzr());
  }
  tile_ptr(X(0), t);
  if (sh && !nd) I("UBFMXri", {X(4), X(4), 64 - sh, 63 - sh});
  // The next row's view pointer (rank other than 2).
  auto view_step = [&] {
    int next = new_label();
    for (int k = int(rank) - 2; k >= 1; --k) {
      R d = digit[k - 1];
      ldx(X(16), v, 1 + rank + unsigned(k));
      I("ADDXrs", {X(13), X(13), X(16), 0});
      I("ADDXri", {d, d, 1, 0});
      ldx(X(17), v, 1 + unsigned(k));
      I("SUBSXrs", {xzr(), d, X(17), 0});
      bcc(LT, next);
      I("MSUBXrrr", {X(13), d, X(16), X(13)});  // the digit back to 0, carried out
      mov(d, xzr());
    }
    if (rank >= 2) {
      ldx(X(16), v, 1 + rank);
      I("ADDXrs", {X(13), X(13), X(16), 0});
    }
    bind(next);
    I("ADDXrs", {X(6), X(15), X(13), sh});  // lsl #sh: bytes
  };
  bool tile_contig = tc.shift == 63 && tc.unit == 1;  // a row-major unboxed tile's row
  mov(X(12), xzr());
  int general = new_label(), done = new_label();
  I("SUBSXri", {xzr(), X(5), 1, 0});
  bcc(NE, general);
  std::vector<R> bases;
  std::vector<int64_t> strides;
  if (!nd) {
    bases = {X(6)};
    strides = {-5};  // x4: the view's row stride in bytes
  }
  row_loop(bases, strides, [&](R pg) {
    if (!tile_contig) axis_vec(Z(1), tc, X(11));
    if (load) {
      ld_e(bits, Z(0), pg, X(6), X(11));
      if (tile_contig) st_e(bits, Z(0), pg, X(2), X(11));
      else I(scatter_name(es), {Z(0), pg, X(2), Z(1)});
    } else {
      if (tile_contig) ld_e(bits, Z(0), pg, X(2), X(11));
      else I(gather_name(es), {Z(0), pg, X(2), Z(1)});
      st_e(bits, Z(0), pg, X(6), X(11));
    }
  }, [&] {
    I("ADDXri", {X(12), X(12), 1, 0});
    if (nd) view_step();
  }, [&] {
    axis_scalar(X(2), tr, X(12));
    I("ADDXrs", {X(2), X(2), X(0), 0});
  });
  b(done);
  bind(general);
  {  // element by element: x7 view element, x2 tile element
    int row = new_label(), col = new_label(), end = new_label();
    I("SUBSXri", {xzr(), X(9), 0, 0});
    bcc(LE, end);
    I("SUBSXri", {xzr(), X(10), 0, 0});
    bcc(LE, end);
    if (sh) I("UBFMXri", {X(5), X(5), 64 - sh, 63 - sh});
    bind(row);
    mov(X(7), X(6));
    mov(X(11), xzr());
    bind(col);
    axis_scalar(X(2), tr, X(12));
    axis_scalar(X(3), tc, X(11));
    I("ADDXrs", {X(2), X(2), X(3), 0});
    I("ADDXrs", {X(2), X(2), X(0), 0});
    const char* ldn = es == 4 ? "LDRWui" : es == 2 ? "LDRHHui" : "LDRBBui";
    const char* stn = es == 4 ? "STRWui" : es == 2 ? "STRHHui" : "STRBBui";
    I(ldn, {W(3), load ? X(7) : X(2), 0});
    I(stn, {W(3), load ? X(2) : X(7), 0});
    I("ADDXrs", {X(7), X(7), X(5), 0});
    I("ADDXri", {X(11), X(11), 1, 0});
    I("SUBSXrs", {xzr(), X(11), X(10), 0});
    bcc(LT, col);
    if (nd) view_step();
    else I("ADDXrs", {X(6), X(6), X(4), 0});
    I("ADDXri", {X(12), X(12), 1, 0});
    I("SUBSXrs", {xzr(), X(12), X(9), 0});
    bcc(LT, row);
    bind(end);
  }
  bind(done);
}

// tmatmul / tmatmul.acc / tmatmul.bias: m = a.vrow, k = a.vcol, n = b.vcol,
// capped by the shapes; f32 / f16 / bf16 -> f32 (fused multiply-add in
// f32, k in order: within DESIGN §6's summation bound of the
// interpreter's), i8 x i8 -> i32 wrapping (exact). cin + acc, or
// acc + bias[0, j], after the k-sum. Per row of C, one vector of columns at
// a time: a[i, k] broadcast, b[k, j..] gathered.
void Gen::matmul(const Inst& in, const MatmulPlan& pl) {
  ValueId a = pl.a, bm = pl.b, c = pl.c, cin = pl.cin, bt = pl.bias;
  bool acc_in = cin != kNone, bias = bt != kNone, f32 = !pl.i32;
  DType ae = pl.ae;
  const ptoas::Type &at = ty(a), &btt = ty(bm), &ct = ty(c);
  AxisMap ar, ac, br, bc, cr, cc, ir, icm, biasc;
  if (!axis(in, at, true, ar) || !axis(in, at, false, ac) || !axis(in, btt, true, br) ||
      !axis(in, btt, false, bc) || !axis(in, ct, true, cr) || !axis(in, ct, false, cc))
    return;
  if (acc_in && (!axis(in, ty(cin), true, ir) || !axis(in, ty(cin), false, icm))) return;
  if (bias && !axis(in, ty(bt), false, biasc)) return;
  unsigned aes = dtype_bytes(ae);
  I("PTRUE_S", {P(7), 31});
  ldx(X(9), a, 1);
  cap_reg(X(9), pl.cap_m);
  ldx(X(13), a, 2);
  cap_reg(X(13), pl.cap_k);
  ldx(X(10), bm, 2);
  cap_reg(X(10), pl.cap_n);
  tile_ptr(X(0), a);
  tile_ptr(X(1), bm);
  tile_ptr(X(2), c);
  if (acc_in) tile_ptr(X(3), cin);
  if (bias) tile_ptr(X(4), bt);
  mov(X(12), xzr());  // the row i
  auto widen = [&](R z, R pg) {
    if (ae == DType::F16) I("FCVT_ZPmZ_HtoS", {z, z, pg, z});
    else if (ae == DType::BF16) I("LSL_ZZI_S", {z, z, 16});
    else if (ae == DType::I8) I("SXTB_ZPmZ_S", {z, z, pg, z});
  };
  row_loop({}, {}, [&](R pg) {
    int kloop = new_label(), kdone = new_label();
    I("DUP_ZI_S", {Z(0), 0, 0});
    axis_vec(Z(4), bc, X(11));  // b's column offsets of this step
    mov(X(14), xzr());         // k
    I("SUBSXri", {xzr(), X(13), 0, 0});
    bcc(LE, kdone);
    bind(kloop);
    axis_scalar(X(15), ac, X(14));
    I("ADDXrs", {X(15), X(15), X(5), 0});  // a[i, k]
    I(aes == 4 ? "LDRWui" : aes == 2 ? "LDRHHui" : "LDRBBui", {W(15), X(15), 0});
    I("DUP_ZR_S", {Z(1), W(15)});
    widen(Z(1), P(7));
    axis_scalar(X(15), br, X(14));
    I("ADDXrs", {X(15), X(15), X(1), 0});  // b[k, 0]
    I(gather_name(aes), {Z(2), pg, X(15), Z(4)});
    widen(Z(2), pg);
    I(f32 ? "FMLA_ZPmZZ_S" : "MLA_ZPmZZ_S", {Z(0), pg, Z(0), Z(1), Z(2)});
    I("ADDXri", {X(14), X(14), 1, 0});
    I("SUBSXrs", {xzr(), X(14), X(13), 0});
    bcc(LT, kloop);
    bind(kdone);
    if (acc_in) {  // cin[i, j] + acc
      axis_vec(Z(4), icm, X(11));
      I("GLD1W_UXTW", {Z(1), pg, X(7), Z(4)});
      if (f32) I("FADD_ZZZ_S", {Z(0), Z(1), Z(0)});
      else I("ADD_ZZZ_S", {Z(0), Z(1), Z(0)});
    }
    if (bias) {  // acc + bias[0, j]
      axis_vec(Z(4), biasc, X(11));
      I("GLD1W_UXTW", {Z(1), pg, X(4), Z(4)});
      if (f32) I("FADD_ZZZ_S", {Z(0), Z(0), Z(1)});
      else I("ADD_ZZZ_S", {Z(0), Z(0), Z(1)});
    }
    axis_vec(Z(4), cc, X(11));
    I("SST1W_UXTW", {Z(0), pg, X(6), Z(4)});
  }, [&] { I("ADDXri", {X(12), X(12), 1, 0}); }, [&] {
    axis_scalar(X(5), ar, X(12));
    I("ADDXrs", {X(5), X(5), X(0), 0});
    axis_scalar(X(6), cr, X(12));
    I("ADDXrs", {X(6), X(6), X(2), 0});
    if (acc_in) {
      axis_scalar(X(7), ir, X(12));
      I("ADDXrs", {X(7), X(7), X(3), 0});
    }
  });
}

// tstore with relu and / or atomic add (plan_store_combine; x86's twin in
// x86/elementwise.cpp): element by element, x12 rows x x11 columns of the
// valid region capped by the view, the tile element through its axis maps.
// Relu is x > 0 ? x : 0 (fcmp: NaN and -0 give +0). The add is an
// ldaxr / stlxr loop per element; where the tile value is a NaN the sum is
// it, quieted (the interpreter's rule: AArch64's fadd would prefer a
// signalling NaN in GM).
void Gen::store_combined(const Inst& in, const StoreCombinePlan& p) {
  const ptoas::Type& tt = ty(p.tile);
  const bool fl = tt.elem == DType::F32, sgn = tt.elem == DType::I32;
  ValueId v = p.view;
  AxisMap tr, tc;
  if (!axis(in, tt, true, tr) || !axis(in, tt, false, tc)) return;
  valid_region(p.tile, tt.rows, tt.cols);
  if (p.rank == 2) {
    cap_slot(X(9), v, 1);
    cap_slot(X(10), v, 2);
    ldx(X(4), v, 3);
    ldx(X(5), v, 4);
  } else {
    cap_reg(X(9), 1);
    cap_slot(X(10), v, 1);
    mov(X(4), xzr());
    ldx(X(5), v, 2);
  }
  ldx(X(6), v, 0);
  tile_ptr(X(0), p.tile);
  mov_imm(X(13), 0x400000);  // the f32 quiet bit
  int row = new_label(), col = new_label(), next = new_label(), end = new_label();
  mov(X(12), xzr());
  bind(row);
  I("SUBSXrs", {xzr(), X(12), X(9), 0});
  bcc(GE, end);
  mov(X(11), xzr());
  bind(col);
  I("SUBSXrs", {xzr(), X(11), X(10), 0});
  bcc(GE, next);
  axis_scalar(X(2), tr, X(12));
  axis_scalar(X(3), tc, X(11));
  I("ADDXrs", {X(2), X(2), X(3), 0});
  I("ADDXrs", {X(2), X(2), X(0), 0});
  I("LDRWui", {W(1), X(2), 0});
  I("MADDXrrr", {X(7), X(12), X(4), xzr()});
  I("MADDXrrr", {X(7), X(11), X(5), X(7)});
  I("ADDXrs", {X(7), X(6), X(7), 2});  // lsl #2: bytes
  if (p.relu && fl) {
    I("FMOVWSr", {S(0), W(1)});
    I("FCMPSri", {S(0)});
    I("CSELWr", {W(1), W(1), wzr(), int(GT)});
  } else if (p.relu && sgn) {
    I("SUBSWri", {wzr(), W(1), 0, 0});
    I("CSELWr", {W(1), W(1), wzr(), int(GT)});
  }
  if (!p.atomic) {
    I("STRWui", {W(1), X(7), 0});
  } else {
    int retry = new_label();
    if (fl) {
      I("FMOVWSr", {S(0), W(1)});
      I("ORRWrs", {W(14), W(1), W(13), 0});  // the tile's NaN, quieted
    }
    bind(retry);
    I("LDAXRW", {W(3), X(7)});
    if (fl) {
      I("FMOVWSr", {S(1), W(3)});
      I("FADDSrr", {S(2), S(0), S(1)});
      I("FMOVSWr", {W(3), S(2)});
      I("FCMPSrr", {S(0), S(0)});
      I("CSELWr", {W(3), W(14), W(3), int(VS)});
    } else {
      I("ADDWrs", {W(3), W(3), W(1), 0});
    }
    I("STLXRW", {W(8), W(3), X(7)});
    cbnz(X(8), retry);
  }
  I("ADDXri", {X(11), X(11), 1, 0});
  b(col);
  bind(next);
  I("ADDXri", {X(12), X(12), 1, 0});
  b(row);
  bind(end);
}

}  // namespace ptoas::cg::sve::gen
