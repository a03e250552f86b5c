// AArch64 SVE: the fused multi-term ops, row / column expansion, column
// reductions and ttri, with the x86 backend's semantics (x86/fused_ops.cpp,
// x86/reduce.cpp): each IEEE operation rounded to the element type in turn
// (f16 / bf16 through round_lane), no FMA contraction, NaN operands
// propagated left first as the interpreter does.
#include <algorithm>

#include "gen.h"

namespace ptoas::cg::sve::gen {

// d = a op b (FADD/FSUB/FMUL_ZZZ_S, or FDIV_ZPmZ_S), where a is NaN: a
// quieted (AArch64 would prefer a signalling b). Scratch z3, p1.
void Gen::fbin(const char* name, R d, R a, R b, R pg) {
  I("FCMUO_PPzZZ_S", {P(1), pg, a, a});
  I("FADD_ZZZ_S", {Z(3), a, Z(kNegZero)});
  if (std::string_view(name) == "FDIV_ZPmZ_S") {
    if (d.id != a.id) I("ORR_ZZZ", {d, a, a});
    I(name, {d, pg, d, b});
  } else {
    I(name, {d, a, b});
  }
  I("SEL_ZPZZ_S", {d, P(1), Z(3), d});
}

void Gen::relu0(R z, R pg) {  // v > 0 ? v : 0 (NaN and -0 give +0)
  I("FCMGT_PPzZ0_S", {P(2), pg, z});
  I("DUP_ZI_S", {Z(6), 0, 0});
  I("SEL_ZPZZ_S", {z, P(2), z, Z(6)});
}

void Gen::fused(const Inst& in, const FusedPlan& pl) {
  const auto& d = pl.d;
  const auto& dst = pl.dst;
  const auto& n_used = pl.n_used;
  const auto& tile_of = pl.tile_of;
  const auto& tiles = pl.tiles;
  const auto& reads_dst = pl.reads_dst;
  Op o = in.op;
  bool fl = dtype_is_float(d);
  loop_constants();
  for (unsigned i = 0; i < n_used; ++i)  // scalars in z16 + i
    if (tile_of[i] < 0) bcast_slot(d, Z(16 + int(i)), op(in, i));
  bool cols_outer;
  if (!valid_extent(in, dst, tiles, cols_outer)) return;
  std::vector<R> bases;
  std::vector<int64_t> strides;
  loop_streams(dst, tiles, cols_outer, bases, strides);
  R r = Z(0), a = Z(1), b = Z(2), c = Z(4), dv = Z(5);
  R xin[3] = {a, b, c};
  row_loop(bases, strides, [&](R pg) {
    for (unsigned i = 0; i < n_used; ++i) {
      if (tile_of[i] >= 0) ld_e(d, xin[i], pg, X(1 + tile_of[i]), X(11));
      else I("ORR_ZZZ", {xin[i], Z(16 + int(i)), Z(16 + int(i))});
    }
    if (reads_dst) ld_e(d, dv, pg, X(0), X(11));
    auto add = [&](R y, R p, R q) { fl ? fbin("FADD_ZZZ_S", y, p, q, pg) : I("ADD_ZZZ_S", {y, p, q}); };
    switch (o) {
      case Op::TAddC: case Op::TAddSC: case Op::TSubC: case Op::TSubSC:
        if (o == Op::TAddC || o == Op::TAddSC) add(r, a, b);
        else fl ? fbin("FSUB_ZZZ_S", r, a, b, pg) : I("SUB_ZZZ_S", {r, a, b});
        round_lane(d, r, pg);
        add(r, r, c);
        break;
      case Op::TMulAddDst:
        fbin("FMUL_ZZZ_S", r, a, b, pg);
        round_lane(d, r, pg);
        fbin("FADD_ZZZ_S", r, r, dv, pg);
        break;
      case Op::TFusedMulAdd: case Op::TFusedMulAddRelu:
        fbin("FMUL_ZZZ_S", r, a, dv, pg);
        round_lane(d, r, pg);
        fbin("FADD_ZZZ_S", r, r, b, pg);
        if (o == Op::TFusedMulAddRelu) {
          round_lane(d, r, pg);
          relu0(r, pg);
        }
        break;
      case Op::TSubRelu:
        fbin("FSUB_ZZZ_S", r, a, b, pg);
        round_lane(d, r, pg);
        relu0(r, pg);
        break;
      case Op::TLRelu: case Op::TPrelu:  // x > 0 ? x : x * slope
        fbin("FMUL_ZZZ_S", r, a, b, pg);
        I("FCMGT_PPzZ0_S", {P(2), pg, a});
        I("SEL_ZPZZ_S", {r, P(2), a, r});
        break;
      case Op::TAxpy:  // s * src in the element type, then + dst
        fbin("FMUL_ZZZ_S", r, b, a, pg);
        round_lane(d, r, pg);
        fbin("FADD_ZZZ_S", r, r, dv, pg);
        break;
      default: break;
    }
    st_e(d, r, pg, X(0), X(11));
  });
}

// ---- expansion ---------------------------------------------------------------------------

// dst[r, c] = op(s0[r, c], s1[r, 0]) (or with s0 the column): the operand
// one column wide is broadcast per row; a full operand narrower than dst is
// read as if it were as wide (the interpreter tiles it cyclically).
void Gen::row_expand(const Inst& in, const ExpandPlan& pl) {
  const auto& plain = pl.plain;
  const auto& dst = pl.dst;
  const auto& s = pl.s;
  const auto& bk = pl.bk;
  const auto& colk = pl.colk;
  const auto& cap_r = pl.cap_r;
  const auto& cap_c = pl.cap_c;
  DType d = ty(dst).elem;
  TileGeo gd = geo(dst);
  loop_constants();
  valid_region(dst, cap_r, cap_c);
  tile_ptr(X(0), dst);
  tile_ptr(X(1), s[0]);
  std::vector<R> bases{X(0), X(1)};
  std::vector<int64_t> strides{gd.rs, geo(s[0]).rs};
  if (!plain) {
    tile_ptr(X(2), s[1]);
    bases.push_back(X(2));
    strides.push_back(geo(s[1]).rs);
  }
  if (plain) d = d == DType::F32 ? DType::U32 : dtype_bytes(d) == 2 ? DType::U16 : dtype_bytes(d) == 1 ? DType::U8 : d;
  if (bk == Bin::ExpDif) math_begin();
  // The column operand's element of this row in z27 (broadcast per row; exp's scratch z16-z23 leaves it alone).
  row_loop(bases, strides, [&](R pg) {
    if (plain) {
      I("ORR_ZZZ", {Z(0), Z(kScalar), Z(kScalar)});
    } else {
      if (colk == 0) I("ORR_ZZZ", {Z(0), Z(kScalar), Z(kScalar)});
      else ld_e(d, Z(0), pg, X(1), X(11));
      if (colk == 1) I("ORR_ZZZ", {Z(1), Z(kScalar), Z(kScalar)});
      else ld_e(d, Z(1), pg, X(2), X(11));
      bin(bk, d, pg, Z(0), Z(1));
    }
    st_e(d, Z(0), pg, X(0), X(11));
  }, nullptr, [&] { bcast_e(d, Z(kScalar), X(1 + colk)); });
  if (bk == Bin::ExpDif) math_end();
}

// dst[r, c] = op(s0[r', c], s1[r'', c]): an operand with one valid row is
// read at row 0 (its row stride is 0 then, decided at run time).
void Gen::col_expand(const Inst& in, const ExpandPlan& pl) {
  const auto& plain = pl.plain;
  const auto& nsrc = pl.nsrc;
  const auto& dst = pl.dst;
  const auto& s = pl.s;
  const auto& bk = pl.bk;
  const auto& cap_r = pl.cap_r;
  const auto& cap_c = pl.cap_c;
  DType d = ty(dst).elem;
  TileGeo gd = geo(dst);
  loop_constants();
  valid_region(dst, cap_r, cap_c);
  // Row strides x4 / x5: 0 for an operand with one row (or one valid row).
  for (unsigned i = 0; i < nsrc; ++i) {
    tile_ptr(X(1 + int(i)), s[i]);
    R st = X(4 + int(i));
    if (plain || ty(s[i]).rows == 1) {
      mov(st, xzr());
    } else {
      mov_imm(st, uint64_t(geo(s[i]).rs));
      ldx(X(16), s[i], 1);
      I("SUBSXri", {xzr(), X(16), 1, 0});
      I("CSELXr", {st, xzr(), st, int(EQ)});
    }
  }
  tile_ptr(X(0), dst);
  std::vector<R> bases{X(0), X(1)};
  std::vector<int64_t> strides{gd.rs, -5};
  if (!plain) {
    bases.push_back(X(2));
    strides.push_back(-6);
  }
  if (plain) d = d == DType::F32 ? DType::U32 : dtype_bytes(d) == 2 ? DType::U16 : dtype_bytes(d) == 1 ? DType::U8 : d;
  if (bk == Bin::ExpDif) math_begin();
  row_loop(bases, strides, [&](R pg) {
    ld_e(d, Z(0), pg, X(1), X(11));
    if (!plain) {
      ld_e(d, Z(1), pg, X(2), X(11));
      bin(bk, d, pg, Z(0), Z(1));
    }
    st_e(d, Z(0), pg, X(0), X(11));
  });
  if (bk == Bin::ExpDif) math_end();
}

// ---- column reductions -------------------------------------------------------------------

// dst[0, c] = reduce(src[0..vrow), c]) for c < src's valid columns, rows in
// order (the interpreter's order), one vector of columns at a time. Sums
// and products round to the element type at each step; max / min follow
// its NaN rule.
void Gen::col_reduce(const Inst& in, ValueId src, ValueId dst) {
  DType d = ty(dst).elem;
  TileGeo gs = geo(src);
  bool fl = dtype_is_float(d), sum = in.op == Op::TColSum, prod = in.op == Op::TColProd;
  bool mx = in.op == Op::TColMax;
  loop_constants();
  valid_region(src, ty(src).rows, std::min(ty(src).cols, ty(dst).cols));
  int done = new_label(), col = new_label();
  I("SUBSXri", {xzr(), X(9), 0, 0});
  bcc(LE, done);
  I("SUBSXri", {xzr(), X(10), 0, 0});
  bcc(LE, done);
  tile_ptr(X(1), src);
  tile_ptr(X(0), dst);
  mov(X(11), xzr());
  I("WHILELO_PXX_S", {P(0), X(11), X(10)});
  bind(col);
  {
    int loop = new_label(), fin = new_label();
    R acc = Z(0), x = Z(1), pg = P(0);
    mov(X(2), X(1));   // row pointer
    mov(X(3), X(9));   // rows left
    if (sum || prod) {
      if (!prod) I("DUP_ZI_S", {acc, 0, 0});
      else if (fl) I("FDUP_ZI_S", {acc, 112});
      else I("DUP_ZI_S", {acc, 1, 0});
    } else {
      ld_e(d, acc, pg, X(2), X(11));
      add_imm(X(2), X(2), gs.rs);
      I("SUBSXri", {X(3), X(3), 1, 0});
      bcc(EQ, fin);
    }
    bind(loop);
    ld_e(d, x, pg, X(2), X(11));
    if (fl && (sum || prod)) {  // a NaN propagates as the first met
      fbin(sum ? "FADD_ZZZ_S" : "FMUL_ZZZ_S", acc, acc, x, pg);
      round_lane(d, acc, pg);
    } else if (fl) {
      I("FCMUO_PPzZZ_S", {P(1), pg, acc, acc});
      I("FCMUO_PPzZZ_S", {P(2), pg, x, x});
      if (mx) I("FCMGT_PPzZZ_S", {P(3), pg, x, acc});
      else I("FCMGT_PPzZZ_S", {P(3), pg, acc, x});
      I("ORR_PPzPP", {P(2), pg, P(2), P(3)});
      I("BIC_PPzPP", {P(2), pg, P(2), P(1)});
      I("SEL_ZPZZ_S", {acc, P(2), x, acc});
    } else {
      bin(sum ? Bin::Add : prod ? Bin::Mul : mx ? Bin::Max : Bin::Min, d, pg, acc, x);
    }
    add_imm(X(2), X(2), gs.rs);
    I("SUBSXri", {X(3), X(3), 1, 0});
    bcc(NE, loop);
    bind(fin);
    if (fl && !sum && !prod) I("FADD_ZZZ_S", {acc, acc, Z(kNegZero)});  // quiet a signalling NaN
    st_e(d, acc, pg, X(0), X(11));
  }
  I("INCW_XPiI", {X(11), X(11), 31, 1});
  I("WHILELO_PXX_S", {P(0), X(11), X(10)});
  bcc(MI, col);
  bind(done);
}

// ttri ins(diag?) outs(dst): 1 where (lower) j <= i + diag, (upper)
// !(j < i + diag); 0 elsewhere; f32 and i32, any layout.
void Gen::ttri(const Inst& in, ValueId d, bool upper) {
  const ptoas::Type& dt = ty(d);
  AxisMap mr, mc;
  if (!axis(in, dt, true, mr) || !axis(in, dt, false, mc)) return;
  I("PTRUE_S", {P(7), 31});
  if (in.n_ins == 1) ldx(X(13), op(in, 0));
  else mov(X(13), xzr());
  valid_region(d, dt.rows, dt.cols);
  tile_ptr(X(0), d);
  mov_imm(X(16), dt.elem == DType::F32 ? 0x3f800000u : 1u);
  I("DUP_ZR_S", {Z(6), W(16)});
  I("DUP_ZI_S", {Z(7), 0, 0});
  mov(X(12), xzr());
  row_loop({}, {}, [&](R pg) {
    // j vs i + diag (x14), per lane.
    I("INDEX_RI_S", {Z(1), W(11), 1});
    I("DUP_ZR_S", {Z(2), W(14)});
    if (upper) I("CMPGE_PPzZZ_S", {P(1), pg, Z(1), Z(2)});   // !(j < i + diag)
    else I("CMPGE_PPzZZ_S", {P(1), pg, Z(2), Z(1)});         // j <= i + diag
    I("SEL_ZPZZ_S", {Z(0), P(1), Z(6), Z(7)});
    axis_vec(Z(4), mc, X(11));
    I("SST1W_UXTW", {Z(0), pg, X(2), Z(4)});
  }, [&] { I("ADDXri", {X(12), X(12), 1, 0}); }, [&] {
    axis_scalar(X(2), mr, X(12));
    I("ADDXrs", {X(2), X(2), X(0), 0});
    I("ADDXrs", {X(14), X(12), X(13), 0});
    // Clamped to [-1, cols] (the same answer for every column): the lanes
    // compare its low 32 bits.
    mov_imm(X(16), ~uint64_t(0));
    I("SUBSXrs", {xzr(), X(14), X(16), 0});
    I("CSELXr", {X(14), X(16), X(14), int(LT)});
    mov_imm(X(16), uint64_t(dt.cols));
    I("SUBSXrs", {xzr(), X(14), X(16), 0});
    I("CSELXr", {X(14), X(16), X(14), int(GT)});
  });
}

// tci ins(start) {descending}: d[0, j] = start + j (start - j), j < d's
// valid columns, wrapping; 2- and 4-byte integers (32-bit lanes, a 2-byte
// scatter stores each lane's low half), any layout.
void Gen::tci(const Inst& in, unsigned es, bool desc) {
  ValueId d = op(in, in.n_ins);
  const ptoas::Type& dt = ty(d);
  AxisMap mr, mc;
  if (!axis(in, dt, true, mr) || !axis(in, dt, false, mc)) return;
  I("PTRUE_S", {P(7), 31});
  ldx(X(13), op(in, 0));
  valid_region(d, dt.rows, dt.cols);
  mov_imm(X(9), dt.rows > 0 ? 1u : 0u);  // row 0 whatever the valid rows, as the interpreter
  tile_ptr(X(0), d);
  I("DUP_ZR_S", {Z(2), W(13)});
  mov(X(12), xzr());
  row_loop({}, {}, [&](R pg) {
    I("INDEX_RI_S", {Z(1), W(11), 1});  // j
    I(desc ? "SUB_ZZZ_S" : "ADD_ZZZ_S", {Z(0), Z(2), Z(1)});
    axis_vec(Z(4), mc, X(11));
    I(es == 4 ? "SST1W_UXTW" : "SST1H_S_UXTW", {Z(0), pg, X(2), Z(4)});
  }, [&] { I("ADDXri", {X(12), X(12), 1, 0}); }, [&] {
    axis_scalar(X(2), mr, X(12));
    I("ADDXrs", {X(2), X(2), X(0), 0});
  });
}

}  // namespace ptoas::cg::sve::gen
