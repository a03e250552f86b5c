// AArch64 SVE: copies and conversions between tiles — tfillpad, textract /
// tinsert, ttrans, tconcat, treshape and tcvt — with the x86 backend's
// semantics (x86/move.cpp). Copies move bits; tiles of any layout are
// addressed through AxisMap gathers / scatters (sve/layout.cpp).
#include <algorithm>
#include <cstring>

#include "gen.h"
#include "tile_layout.h"

namespace ptoas::cg::sve::gen {

namespace {
const char* gather_of(unsigned es) {
  return es == 4 ? "GLD1W_UXTW" : es == 2 ? "GLD1H_S_UXTW" : "GLD1B_S_UXTW";
}
const char* scatter_of(unsigned es) { return es == 4 ? "SST1W_UXTW" : es == 2 ? "SST1H_S_UXTW" : "SST1B_S_UXTW"; }
}  // namespace

void Gen::cap_reg(R x, int64_t capv) {
  mov_imm(X(16), uint64_t(capv));
  I("SUBSXrs", {xzr(), x, X(16), 0});
  I("CSELXr", {x, X(16), x, int(GT)});
}

void Gen::valid_region(ValueId t, int64_t cap_r, int64_t cap_c) {
  ldx(X(9), t, 1);
  ldx(X(10), t, 2);
  cap_reg(X(9), cap_r);
  cap_reg(X(10), cap_c);
}

void Gen::cap_slot(R x, ValueId v, unsigned k) {
  ldx(X(16), v, k);
  I("SUBSXrs", {xzr(), x, X(16), 0});
  I("CSELXr", {x, X(16), x, int(GT)});
}

// A copy of x9 rows x x10 columns between two tiles of any layouts:
// element (x12 + row offset, x11 + column offset) of each; the offsets are
// registers (x13 / x14 for the source's row / column, x6 / x7 for the
// destination's; xzr for none). `transpose`: the source is indexed
// [column, row].
void Gen::tile_copy(const Inst& in, ValueId src, ValueId dst, R srow, R scol, R drow, R dcol, bool transpose) {
  const ptoas::Type& st = ty(src);
  const ptoas::Type& dt = ty(dst);
  unsigned es = dtype_bytes(dt.elem);
  AxisMap sr, sc, dr, dc;
  if (!axis(in, st, !transpose, sr) || !axis(in, st, transpose, sc) || !axis(in, dt, true, dr) ||
      !axis(in, dt, false, dc))
    return;
  tile_ptr(X(0), src);
  tile_ptr(X(1), dst);
  mov(X(12), xzr());
  row_loop({}, {}, [&](R pg) {
    I("ADDXrs", {X(15), X(11), scol, 0});
    axis_vec(Z(1), sc, X(15));
    I("ADDXrs", {X(15), X(11), dcol, 0});
    axis_vec(Z(2), dc, X(15));
    I(gather_of(es), {Z(0), pg, X(2), Z(1)});
    I(scatter_of(es), {Z(0), pg, X(3), Z(2)});
  }, [&] { I("ADDXri", {X(12), X(12), 1, 0}); }, [&] {
    I("ADDXrs", {X(15), X(12), srow, 0});
    axis_scalar(X(2), sr, X(15));
    I("ADDXrs", {X(2), X(2), X(0), 0});
    I("ADDXrs", {X(15), X(12), drow, 0});
    axis_scalar(X(3), dr, X(15));
    I("ADDXrs", {X(3), X(3), X(1), 0});
  });
}

// tfillpad / _inplace / _expand: every element of dst (its whole shape) =
// src inside src's valid region (capped at dst's shape), dst's pad value
// elsewhere; each lane reads (when inside) before it writes, so in place is
// the same loop.
void Gen::tfillpad(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 1) return fail(in);
  ValueId src = op(in, 0), dst = op(in, in.n_ins);
  if (!tile_type_ok(in, src) || !tile_type_ok(in, dst)) return;
  if (ty(src).elem != ty(dst).elem) return fail(in, {RefusalCode::Type, "op " + std::string(op_name(in.op)) + " that converts"});
  const ptoas::Type& dt = ty(dst);
  unsigned es = dtype_bytes(dt.elem);
  AxisMap sr, sc, dr, dc;
  if (!axis(in, ty(src), true, sr) || !axis(in, ty(src), false, sc) || !axis(in, dt, true, dr) ||
      !axis(in, dt, false, dc))
    return;
  I("PTRUE_S", {P(7), 31});
  // x4 x x5: the valid part; x9 x x10: dst's whole shape.
  ldx(X(4), src, 1);
  ldx(X(5), src, 2);
  cap_reg(X(4), dt.rows);
  cap_reg(X(5), dt.cols);
  mov_imm(X(9), uint64_t(dt.rows));
  mov_imm(X(10), uint64_t(dt.cols));
  mov_imm(X(16), pad_bits(dt));
  I("DUP_ZR_S", {Z(6), W(16)});
  tile_ptr(X(0), src);
  tile_ptr(X(1), dst);
  mov(X(12), xzr());
  row_loop({}, {}, [&](R pg) {
    axis_vec(Z(1), sc, X(11));
    axis_vec(Z(2), dc, X(11));
    // Lanes inside the valid part: column < x5, and this row < x4.
    I("WHILELO_PXX_S", {P(1), X(11), X(5)});
    I("AND_PPzPP", {P(1), pg, P(1), P(2)});
    I("ORR_ZZZ", {Z(0), Z(6), Z(6)});
    I(gather_of(es), {Z(3), P(1), X(2), Z(1)});
    I("SEL_ZPZZ_S", {Z(0), P(1), Z(3), Z(0)});
    I(scatter_of(es), {Z(0), pg, X(3), Z(2)});
  }, [&] { I("ADDXri", {X(12), X(12), 1, 0}); }, [&] {
    axis_scalar(X(2), sr, X(12));
    I("ADDXrs", {X(2), X(2), X(0), 0});
    axis_scalar(X(3), dr, X(12));
    I("ADDXrs", {X(3), X(3), X(1), 0});
    // p2: all lanes when this row is valid, none otherwise.
    I("PTRUE_S", {P(2), 31});
    int skip = new_label();
    I("SUBSXrs", {xzr(), X(12), X(4), 0});
    bcc(LO, skip);
    I("PFALSE", {P(2)});
    bind(skip);
  });
}

// textract ins(s, row, col): d[i, j] = s[row + i, col + j] over d's valid
// region; tinsert ins(s, row, col) outs(d): d[row + i, col + j] = s[i, j]
// over s's valid region; capped at the window tile's shape minus the
// offsets; a negative offset copies nothing (the interpreter's errors).
// Either tile may be boxed: tile_copy addresses every layout.
void Gen::twindow(const Inst& in, const WindowPlan& p) {
  bool ext = p.ext;
  ValueId src = p.src, dst = p.dst, win = p.win, region = p.region;
  ValueId ro = p.row, co = p.col;
  I("PTRUE_S", {P(7), 31});
  valid_region(region, std::min(ty(src).rows, ty(dst).rows), std::min(ty(src).cols, ty(dst).cols));
  ldx(X(4), ro);
  ldx(X(5), co);
  // rows <= win.rows - ro, cols <= win.cols - co; negative offsets: none.
  mov_imm(X(16), uint64_t(ty(win).rows));
  I("SUBXrs", {X(16), X(16), X(4), 0});
  I("SUBSXrs", {xzr(), X(9), X(16), 0});
  I("CSELXr", {X(9), X(16), X(9), int(GT)});
  mov_imm(X(16), uint64_t(ty(win).cols));
  I("SUBXrs", {X(16), X(16), X(5), 0});
  I("SUBSXrs", {xzr(), X(10), X(16), 0});
  I("CSELXr", {X(10), X(16), X(10), int(GT)});
  I("ORRXrs", {X(16), X(4), X(5), 0});
  I("SUBSXri", {xzr(), X(16), 0, 0});
  I("CSELXr", {X(9), xzr(), X(9), int(LT)});
  if (ext) {
    mov(X(13), X(4));
    mov(X(14), X(5));
    tile_copy(in, src, dst, X(13), X(14), xzr(), xzr(), false);
  } else {
    mov(X(6), X(4));
    mov(X(7), X(5));
    tile_copy(in, src, dst, xzr(), xzr(), X(6), X(7), false);
  }
}

// ttrans ins(s, tmp?): d[c, r] = s[r, c] over s's valid region.
void Gen::ttrans(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 1) return fail(in);
  ValueId src = op(in, 0), dst = op(in, in.n_ins);
  if (!tile_type_ok(in, src) || !tile_type_ok(in, dst)) return;
  if (ty(src).elem != ty(dst).elem) return fail(in, {RefusalCode::Type, "pto.ttrans that converts"});
  if (src == dst) return fail(in, {RefusalCode::Operands, "pto.ttrans in place"});
  I("PTRUE_S", {P(7), 31});
  ldx(X(9), src, 2);   // rows of d: s's valid columns
  ldx(X(10), src, 1);  // columns of d: s's valid rows
  cap_reg(X(9), std::min(ty(src).cols, ty(dst).rows));
  cap_reg(X(10), std::min(ty(src).rows, ty(dst).cols));
  tile_copy(in, src, dst, xzr(), xzr(), xzr(), xzr(), true);
}

// tconcat ins(s0, s1): each row r < d.vrow: s0's valid columns, then s1's
// (capped at the tiles' shapes).
void Gen::tconcat(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins != 2) return fail(in, {RefusalCode::Operands, "pto.tconcat with index tiles"});
  ValueId a = op(in, 0), b = op(in, 1), dst = op(in, in.n_ins);
  for (ValueId v : {a, b, dst})
    if (!tile_type_ok(in, v)) return;
  if (ty(a).elem != ty(dst).elem || ty(b).elem != ty(dst).elem) return fail(in, {RefusalCode::Type, "pto.tconcat that converts"});
  I("PTRUE_S", {P(7), 31});
  for (int part = 0; part < 2; ++part) {
    ValueId s = part ? b : a;
    ldx(X(9), dst, 1);
    cap_reg(X(9), std::min(ty(dst).rows, ty(s).rows));
    ldx(X(10), s, 2);
    cap_reg(X(10), ty(s).cols);
    if (part) {  // after a's columns, within d's row
      ldx(X(7), a, 2);
      cap_reg(X(7), ty(a).cols);
      mov_imm(X(16), uint64_t(ty(dst).cols));
      I("SUBXrs", {X(16), X(16), X(7), 0});
      I("SUBSXrs", {xzr(), X(10), X(16), 0});
      I("CSELXr", {X(10), X(16), X(10), int(GT)});
      tile_copy(in, s, dst, xzr(), xzr(), xzr(), X(7), false);
    } else {
      cap_reg(X(10), ty(dst).cols);
      tile_copy(in, s, dst, xzr(), xzr(), xzr(), xzr(), false);
    }
  }
}

// tgather's index form (tile_plan.h GatherPlan), one vector of a dst row
// at a time: the indices gathered through their tile's layout, lanes whose
// index is below src's element count (unsigned, so a negative i32 is out)
// gather src element k at byte 4k, the others are 0 (a zeroing gather),
// and the row is scattered through dst's layout.
void Gen::tgather(const Inst& in, const GatherPlan& p) {
  const ptoas::Type& dt = ty(p.dst);
  const ptoas::Type& it = ty(p.idx);
  AxisMap dr, dc, ir, ic;
  if (!axis(in, dt, true, dr) || !axis(in, dt, false, dc) || !axis(in, it, true, ir) || !axis(in, it, false, ic)) return;
  (void)p.idx_signed;  // 32-bit lanes: i32 and ui32 compare alike unsigned
  I("PTRUE_S", {P(7), 31});
  valid_region(p.dst, p.cap_r, p.cap_c);
  tile_ptr(X(0), p.dst);
  tile_ptr(X(1), p.idx);
  tile_ptr(X(3), p.src);
  mov_imm(X(16), uint64_t(p.n));
  I("DUP_ZR_S", {Z(6), W(16)});
  mov(X(12), xzr());
  row_loop({}, {}, [&](R pg) {
    axis_vec(Z(4), ic, X(11));
    I("GLD1W_UXTW", {Z(1), pg, X(4), Z(4)});
    I("CMPHI_PPzZZ_S", {P(1), pg, Z(6), Z(1)});
    I("LSL_ZZI_S", {Z(1), Z(1), 2});
    I("GLD1W_UXTW", {Z(0), P(1), X(3), Z(1)});
    axis_vec(Z(4), dc, X(11));
    I("SST1W_UXTW", {Z(0), pg, X(2), Z(4)});
  }, [&] { I("ADDXri", {X(12), X(12), 1, 0}); }, [&] {
    axis_scalar(X(2), dr, X(12));
    I("ADDXrs", {X(2), X(2), X(0), 0});
    axis_scalar(X(4), ir, X(12));
    I("ADDXrs", {X(4), X(4), X(1), 0});
  });
}

// treshape: no copy, dst takes src's storage (same location and byte size).
void Gen::treshape(const Inst&, ValueId src, ValueId dst) {  // no copy: dst takes src's storage
  ldx(X(0), src, 0);
  stx(X(0), dst, 0);
}

// tcvt between lane types over the source's valid region (docs/semantics.md
// §10): float -> float rounds to nearest even, integer -> integer wraps,
// integer -> float rounds once, float -> integer rounds by rmode and keeps
// the low bits of out-of-range values (NaN: 0; sat_mode clamps).
void Gen::tcvt(const Inst& in, const CvtPlan& pl) {
  const auto& src = pl.src;
  const auto& dst = pl.dst;
  const auto& sd = pl.sd;
  const auto& dd = pl.dd;
  const auto& sat = pl.sat;
  const char* rnd = pl.rmode == Rounding::NearestEven ? "FRINTN_ZPmZ_S" : pl.rmode == Rounding::Floor ? "FRINTM_ZPmZ_S"
                    : pl.rmode == Rounding::Ceil ? "FRINTP_ZPmZ_S" : pl.rmode == Rounding::Trunc ? "FRINTZ_ZPmZ_S"
                    : "FRINTA_ZPmZ_S";
  bool sf = dtype_is_float(sd), df = dtype_is_float(dd);
  loop_constants();
  auto splat = [&](R z, uint32_t v) {
    mov_imm(X(16), v);
    I("DUP_ZR_S", {z, W(16)});
  };
  // z0 = the converted lanes of x = z0 (over pg).
  auto convert = [&](R pg) {
    R x = Z(0), t = Z(1), e = Z(2), w = Z(4), sg = Z(5);
    if (sf && !df) {
      I("FCMUO_PPzZZ_S", {P(4), pg, x, x});  // a NaN gives 0
      I(rnd, {t, t, pg, x});                  // integral, by rmode
      if (sat) {  // clamp to the destination's range (exact bounds below 2^24)
        uint32_t blo, bhi;
        sat_bounds_f32(dd, blo, bhi);
        splat(w, blo);
        I("FCMGT_PPzZZ_S", {P(1), pg, w, t});
        I("SEL_ZPZZ_S", {t, P(1), w, t});
        if (dd != DType::I32) {
          splat(w, bhi);
          I("FCMGT_PPzZZ_S", {P(1), pg, t, w});
          I("SEL_ZPZZ_S", {t, P(1), w, t});
        }
      }
      // t integral: its int32 value, or for |t| >= 2^31 the low 32 bits of
      // the value saturated to 64 bits (m << (e - 150), negated for a
      // negative t; +2^64 and above: all ones).
      I("FCVTZS_ZPmZ_StoS", {Z(6), Z(6), pg, t});
      I("LSR_ZZI_S", {e, t, 23});
      splat(w, 0xff);
      I("AND_ZZZ", {e, e, w});
      splat(w, 0x007fffffu);
      I("AND_ZZZ", {w, w, t});
      splat(Z(7), 0x00800000u);
      I("ORR_ZZZ", {w, w, Z(7)});
      splat(Z(7), 150);
      I("SUB_ZZZ_S", {Z(7), e, Z(7)});
      I("LSL_ZPmZ_S", {w, pg, w, Z(7)});
      I("ASR_ZZI_S", {sg, t, 31});
      I("EOR_ZZZ", {w, w, sg});
      I("SUB_ZZZ_S", {w, w, sg});
      splat(Z(7), 190);
      I("CMPGT_PPzZZ_S", {P(1), pg, e, Z(7)});   // t >= 2^64 (or Inf)
      I("CMPGE_PPzZI_S", {P(2), pg, sg, 0});     //   and positive
      I("AND_PPzPP", {P(1), pg, P(1), P(2)});
      I("DUP_ZI_S", {Z(7), -1, 0});
      I("SEL_ZPZZ_S", {w, P(1), Z(7), w});
      splat(Z(7), 157);
      I("CMPGT_PPzZZ_S", {P(1), pg, e, Z(7)});   // |t| >= 2^31
      if (sat && dd == DType::I32) {             // t >= 2^31: INT32_MAX
        I("AND_PPzPP", {P(1), pg, P(1), P(2)});
        splat(w, 0x7fffffffu);
      }
      I("SEL_ZPZZ_S", {x, P(1), w, Z(6)});
      I("DUP_ZI_S", {Z(7), 0, 0});
      I("SEL_ZPZZ_S", {x, P(4), Z(7), x});
    } else if (!sf && df) {
      I(sd == DType::U32 ? "UCVTF_ZPmZ_StoS" : "SCVTF_ZPmZ_StoS", {x, x, pg, x});
    }
    // bf16 and f32 lanes still hold a signalling NaN as it was: + -0.0
    // quiets it as the interpreter's widening to double does (f16's fcvt
    // quiets already).
    if ((sd == DType::BF16 || sd == DType::F32) && df) I("FADD_ZZZ_S", {x, x, Z(kNegZero)});
  };
  bool cols_outer;
  std::vector<ValueId> tiles{src};
  int32_t cap_r, cap_c;
  if (loop_order(m_, dst, tiles.data(), 1, cols_outer, cap_r, cap_c)) {
    ldx(X(9), src, cols_outer ? 2 : 1);
    ldx(X(10), src, cols_outer ? 1 : 2);
    cap_reg(X(9), cols_outer ? cap_c : cap_r);
    cap_reg(X(10), cols_outer ? cap_r : cap_c);
    tile_ptr(X(0), dst);
    tile_ptr(X(1), src);
    row_loop({X(0), X(1)}, {cols_outer ? geo(dst).cs : geo(dst).rs, cols_outer ? geo(src).cs : geo(src).rs},
             [&](R pg) {
               ld_e(sd, Z(0), pg, X(1), X(11));
               convert(pg);
               st_e(dd, Z(0), pg, X(0), X(11));
             });
    return;
  }
  // Tiles of mixed layouts: gathered and scattered through their AxisMaps.
  AxisMap sr, sc, dr, dc;
  if (!axis(in, ty(src), true, sr) || !axis(in, ty(src), false, sc) || !axis(in, ty(dst), true, dr) ||
      !axis(in, ty(dst), false, dc))
    return;
  valid_region(src, std::min(ty(src).rows, ty(dst).rows), std::min(ty(src).cols, ty(dst).cols));
  tile_ptr(X(0), src);
  tile_ptr(X(1), dst);
  mov(X(12), xzr());
  row_loop({}, {}, [&](R pg) {
    axis_vec(Z(6), sc, X(11));
    ld_e(sd, Z(0), pg, X(2), Z(6), true);
    convert(pg);
    axis_vec(Z(6), dc, X(11));
    st_e(dd, Z(0), pg, X(3), Z(6), true);
  }, [&] { I("ADDXri", {X(12), X(12), 1, 0}); }, [&] {
    axis_scalar(X(2), sr, X(12));
    I("ADDXrs", {X(2), X(2), X(0), 0});
    axis_scalar(X(3), dr, X(12));
    I("ADDXrs", {X(3), X(3), X(1), 0});
  });
}

}  // namespace ptoas::cg::sve::gen
