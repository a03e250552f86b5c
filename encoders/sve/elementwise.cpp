// AArch64 SVE tile ops (sve/gen.h): loads and stores of every element type
// as 32-bit lanes, the predicated loops over a tile's valid region, tload /
// tstore, the elementwise, tile-scalar and unary ops, row / column expands,
// row reductions and float conversions. Results are the interpreter's, bit
// for bit (docs/sve_backend.md says where a CPU's default NaN differs).
//
// Vector registers: z0-z2 operands, z3-z7 scratch, z24 -0.0, z25 the bf16
// rounding bias, z26 the f32 quiet bit, z27 a broadcast scalar, z28-z31
// the stores' scratch. Predicates: p0 the lanes of this step, p1-p3
// scratch, p7 all lanes.
#include <algorithm>

#include "gen.h"

namespace ptoas::cg::sve::gen {


bool Gen::tile_type_ok(const Inst& in, ValueId v) {
  Refusal why;
  if (lane_tile(m_, in, v, why)) return true;
  fail(in, why);
  return false;
}

void Gen::tile_ptr(R x, ValueId t) {
  ldx(x, t, 0);
  I("ADDXrs", {x, x, X(19), 0});
}

// ---- lanes --------------------------------------------------------------------------

void Gen::ld_e(DType d, R z, R pg, R base, R idx, bool gather) {
  if (gather) {  // idx is a vector of byte offsets
    switch (d) {
      case DType::F16: case DType::BF16: case DType::U16: I("GLD1H_S_UXTW", {z, pg, base, idx}); break;
      case DType::I16: I("GLD1SH_S_UXTW", {z, pg, base, idx}); break;
      case DType::I8: I("GLD1SB_S_UXTW", {z, pg, base, idx}); break;
      case DType::U8: I("GLD1B_S_UXTW", {z, pg, base, idx}); break;
      default: I("GLD1W_UXTW", {z, pg, base, idx}); break;
    }
    if (d == DType::F16) I("FCVT_ZPmZ_HtoS", {z, z, pg, z});
    else if (d == DType::BF16) I("LSL_ZZI_S", {z, z, 16});
    return;
  }
  switch (d) {
    case DType::F16:
      I("LD1H_S", {z, pg, base, idx});
      I("FCVT_ZPmZ_HtoS", {z, z, pg, z});
      break;
    case DType::BF16:
      I("LD1H_S", {z, pg, base, idx});
      I("LSL_ZZI_S", {z, z, 16});
      break;
    case DType::I16: I("LD1SH_S", {z, pg, base, idx}); break;
    case DType::U16: I("LD1H_S", {z, pg, base, idx}); break;
    case DType::I8: I("LD1SB_S", {z, pg, base, idx}); break;
    case DType::U8: I("LD1B_S", {z, pg, base, idx}); break;
    default: I("LD1W", {z, pg, base, idx}); break;
  }
}

// f32 lanes -> bf16 bits in the low halves, rounded to nearest even on the
// bits (x + 0x7fff + bit 16), a NaN quieted with its top bits kept: the
// interpreter's f32_to_bf16_bits. Result in z29.
void Gen::bf16_round(R z) {
  I("LSL_ZZI_S", {Z(29), z, 15});
  I("LSR_ZZI_S", {Z(29), Z(29), 31});
  I("ADD_ZZZ_S", {Z(29), Z(29), Z(kBf16Bias)});
  I("ADD_ZZZ_S", {Z(29), Z(29), z});
  I("ORR_ZZZ", {Z(30), z, Z(kQuiet)});
  I("FCMUO_PPzZZ_S", {P(3), P(7), z, z});
  I("SEL_ZPZZ_S", {Z(29), P(3), Z(30), Z(29)});
  I("LSR_ZZI_S", {Z(29), Z(29), 16});
}

void Gen::st_e(DType d, R z, R pg, R base, R idx, bool scatter) {
  unsigned es = dtype_bytes(d);
  if (d == DType::F16) {
    I("ORR_ZZZ", {Z(29), z, z});
    I("FCVT_ZPmZ_StoH", {Z(29), Z(29), pg, z});
    z = Z(29);
  } else if (d == DType::BF16) {
    bf16_round(z);
    z = Z(29);
  }
  if (scatter)  // idx is a vector of byte offsets
    I(es == 4 ? "SST1W_UXTW" : es == 2 ? "SST1H_S_UXTW" : "SST1B_S_UXTW", {z, pg, base, idx});
  else
    I(es == 4 ? "ST1W" : es == 2 ? "ST1H_S" : "ST1B_S", {z, pg, base, idx});
}

// f32 lanes rounded to f16 / bf16 and back (else nothing).
void Gen::round_lane(DType d, R z, R pg) {
  if (d == DType::F16) {
    I("FCVT_ZPmZ_StoH", {z, z, pg, z});
    I("FCVT_ZPmZ_HtoS", {z, z, pg, z});
  } else if (d == DType::BF16) {
    bf16_round(z);
    I("LSL_ZZI_S", {z, Z(29), 16});
  }
}

// The constants the loops keep in registers (z24-z26, p7).
void Gen::loop_constants() {
  I("PTRUE_S", {P(7), 31});
  mov_imm(X(16), 0x80000000u);
  I("DUP_ZR_S", {Z(kNegZero), W(16)});
  mov_imm(X(16), 0x7fffu);
  I("DUP_ZR_S", {Z(kBf16Bias), W(16)});
  mov_imm(X(16), 0x400000u);
  I("DUP_ZR_S", {Z(kQuiet), W(16)});
}

// The element of type d at [base] in every 32-bit lane, widened like a
// loaded element (scalars: their slot's low bytes are the element).
void Gen::bcast_e(DType d, R z, R base) {
  switch (d) {
    case DType::F16:
      I("LD1RH_S_IMM", {z, P(7), base, 0});
      I("FCVT_ZPmZ_HtoS", {z, z, P(7), z});
      break;
    case DType::BF16:
      I("LD1RH_S_IMM", {z, P(7), base, 0});
      I("LSL_ZZI_S", {z, z, 16});
      break;
    case DType::I16: I("LD1RSH_S_IMM", {z, P(7), base, 0}); break;
    case DType::U16: I("LD1RH_S_IMM", {z, P(7), base, 0}); break;
    case DType::I8: I("LD1RSB_S_IMM", {z, P(7), base, 0}); break;
    case DType::U8: I("LD1RB_S_IMM", {z, P(7), base, 0}); break;
    default: I("LD1RW_IMM", {z, P(7), base, 0}); break;
  }
}

void Gen::bcast_slot(DType d, R z, ValueId v) {
  add_imm(X(17), X(28), int64_t(sl(v)) * 8);
  bcast_e(d, z, X(17));
}

void Gen::row_loop(const std::vector<R>& bases, const std::vector<int64_t>& strides,
                   const std::function<void(R pg)>& body, const std::function<void()>& per_row,
                   const std::function<void()>& before_row) {
  int done = new_label(), row = new_label(), col = new_label();
  I("SUBSXri", {xzr(), X(9), 0, 0});
  bcc(LE, done);
  I("SUBSXri", {xzr(), X(10), 0, 0});
  bcc(LE, done);
  bind(row);
  if (before_row) before_row();
  mov(X(11), xzr());
  I("WHILELO_PXX_S", {P(0), X(11), X(10)});
  bind(col);
  body(P(0));
  I("INCW_XPiI", {X(11), X(11), 31, 1});
  I("WHILELO_PXX_S", {P(0), X(11), X(10)});
  bcc(MI, col);  // b.first: lanes left
  if (per_row) per_row();
  for (size_t i = 0; i < bases.size(); ++i) {
    if (strides[i] >= 0 && strides[i] < (int64_t(1) << 24)) {
      add_imm(bases[i], bases[i], strides[i]);
    } else {  // a register stride: x<-stride-1>
      I("ADDXrs", {bases[i], bases[i], X(int(-strides[i] - 1)), 0});
    }
  }
  I("SUBSXri", {X(9), X(9), 1, 0});
  bcc(NE, row);
  bind(done);
}

// ---- tload / tstore --------------------------------------------------------------

// Copies the overlap of the tile's valid region and the view between tile
// t and view v: contiguous rows (ND tile, view's last stride 1) or
// contiguous columns (DN tile, view's first stride 1) with vectors, any
// other pairing element by element. A load first fills the whole tile with
// the pad value. Copies move bits (no conversion).
void Gen::tcopy(const Inst& in, ValueId t, ValueId v, bool load) {
  if (ty(t).kind == TypeKind::TileBuf && ty(t).slayout != SLayout::NoneBox) return tcopy_grid(in, t, v, load);
  if (!tile_type_ok(in, t)) return;
  const ptoas::Type& tt = ty(t);
  const ptoas::Type& vt = ty(v);
  const char* what = load ? "pto.tload from" : "pto.tstore to";
  unsigned rank = (p_.slots[v].count - 1u) / 2u;
  if (vt.kind != TypeKind::Ptr && rank > 2) return tcopy_grid(in, t, v, load);
  if (vt.kind == TypeKind::Ptr || rank < 1 || rank > 2)
    return fail(in, {RefusalCode::Shape, std::string(what) + " a view of rank " + std::to_string(rank)});
  unsigned es = dtype_bytes(tt.elem);
  int sh = es == 4 ? 2 : es == 2 ? 1 : 0;
  if (dtype_bytes(vt.elem) != es) return fail(in);
  if (!load && vt.elem != tt.elem)
    return fail(in, {RefusalCode::Type, "pto.tstore that converts " + std::string(dtype_name(tt.elem)) + " to " +
                        std::string(dtype_name(vt.elem))});
  DType bits = es == 4 ? DType::U32 : es == 2 ? DType::U16 : DType::U8;
  TileGeo g = geo(t);
  I("PTRUE_S", {P(7), 31});
  if (load) pad_fill(t);  // the pad value over the whole tile
  // x9 x x10 = rows x cols of the overlap; x12 / x13 = the view's row /
  // column stride in bytes; x14 = the view base, x15 = the tile base.
  ldx(X(9), t, 1);
  ldx(X(10), t, 2);
  if (rank == 2) {
    cap_slot(X(9), v, 1);
    cap_slot(X(10), v, 2);
    ldx(X(12), v, 3);
    ldx(X(13), v, 4);
  } else {
    mov_imm(X(16), 1);
    I("SUBSXrs", {xzr(), X(9), X(16), 0});
    I("CSELXr", {X(9), X(16), X(9), int(GT)});
    cap_slot(X(10), v, 1);
    mov(X(12), xzr());
    ldx(X(13), v, 2);
  }
  ldx(X(14), v, 0);
  tile_ptr(X(15), t);
  int done = new_label();
  // Vector copy of rows (or columns) along the contiguous direction: the
  // view advances by x12 (x13) elements, the tile by its stride.
  auto vec_copy = [&](R vstride, int64_t tstride) {
    I("UBFMXri", {X(4), vstride, (64 - sh) & 63, 63 - sh});  // lsl #sh: bytes
    R src = load ? X(14) : X(15), dstb = load ? X(15) : X(14);
    int64_t s_src = load ? -5 : tstride, s_dst = load ? tstride : -5;
    row_loop({src, dstb}, {s_src, s_dst}, [&](R pg) {
      ld_e(bits, Z(0), pg, src, X(11));
      st_e(bits, Z(0), pg, dstb, X(11));
    });
    b(done);
  };
  if (g.rowvec) {
    int no = new_label();
    I("SUBSXri", {xzr(), X(13), 1, 0});
    bcc(NE, no);
    vec_copy(X(12), g.rs);
    bind(no);
  }
  if (g.colvec && rank == 2) {
    int no = new_label();
    I("SUBSXri", {xzr(), X(12), 1, 0});
    bcc(NE, no);
    mov(X(16), X(9));  // columns outer
    mov(X(9), X(10));
    mov(X(10), X(16));
    vec_copy(X(13), g.cs);
    bind(no);
  }
  {  // element by element: x0 view element, x1 tile element
    int row = new_label(), col = new_label(), end = new_label();
    I("SUBSXri", {xzr(), X(9), 0, 0});
    bcc(LE, end);
    I("SUBSXri", {xzr(), X(10), 0, 0});
    bcc(LE, end);
    I("UBFMXri", {X(12), X(12), (64 - sh) & 63, 63 - sh});  // lsl #sh: bytes
    I("UBFMXri", {X(13), X(13), (64 - sh) & 63, 63 - sh});
    bind(row);
    mov(X(0), X(14));
    mov(X(1), X(15));
    mov(X(2), X(10));
    bind(col);
    const char* ldn = es == 4 ? "LDRWui" : es == 2 ? "LDRHHui" : "LDRBBui";
    const char* stn = es == 4 ? "STRWui" : es == 2 ? "STRHHui" : "STRBBui";
    I(ldn, {W(3), load ? X(0) : X(1), 0});
    I(stn, {W(3), load ? X(1) : X(0), 0});
    I("ADDXrs", {X(0), X(0), X(13), 0});
    add_imm(X(1), X(1), g.cs);
    I("SUBSXri", {X(2), X(2), 1, 0});
    bcc(NE, col);
    I("ADDXrs", {X(14), X(14), X(12), 0});
    add_imm(X(15), X(15), g.rs);
    I("SUBSXri", {X(9), X(9), 1, 0});
    bcc(NE, row);
    bind(end);
  }
  bind(done);
}

// ---- element ops ---------------------------------------------------------------------

// z<a> = z<a> op z<b> over the lanes in pg, in d's lane class. Float add /
// sub / mul / div: where a is NaN the result is a quieted (the
// interpreter's order; AArch64 prefers a signalling b). Max / min:
// std::max / std::min (a NaN on either side gives a), then quieted.
void Gen::bin(Bin k, DType d, R pg, R a, R b) {
  bool fl = dtype_is_float(d), u32 = d == DType::U32;
  auto nan_first = [&](const char* opname, bool predicated) {
    I("FCMUO_PPzZZ_S", {P(1), pg, a, a});
    I("FADD_ZZZ_S", {Z(3), a, Z(kNegZero)});
    if (predicated) I(opname, {a, pg, a, b});
    else I(opname, {a, a, b});
    I("SEL_ZPZZ_S", {a, P(1), Z(3), a});
  };
  switch (k) {
    case Bin::Add: fl ? nan_first("FADD_ZZZ_S", false) : I("ADD_ZZZ_S", {a, a, b}); break;
    case Bin::Sub: fl ? nan_first("FSUB_ZZZ_S", false) : I("SUB_ZZZ_S", {a, a, b}); break;
    case Bin::Mul: fl ? nan_first("FMUL_ZZZ_S", false) : I("MUL_ZPmZ_S", {a, pg, a, b}); break;
    // Integers truncate; x / 0 is 0 and MIN / -1 wraps (the interpreter
    // reports the first, so no result is compared).
    case Bin::Div: fl ? nan_first("FDIV_ZPmZ_S", true) : I(u32 ? "UDIV_ZPmZ_S" : "SDIV_ZPmZ_S", {a, pg, a, b}); break;
    case Bin::Max: case Bin::Min:
      if (!fl) {
        const char* n = k == Bin::Max ? (u32 ? "UMAX_ZPmZ_S" : "SMAX_ZPmZ_S") : (u32 ? "UMIN_ZPmZ_S" : "SMIN_ZPmZ_S");
        I(n, {a, pg, a, b});
        break;
      }
      // max: (a < b) ? b : a; min: (b < a) ? b : a (false with a NaN).
      if (k == Bin::Max) I("FCMGT_PPzZZ_S", {P(1), pg, b, a});
      else I("FCMGT_PPzZZ_S", {P(1), pg, a, b});
      I("SEL_ZPZZ_S", {a, P(1), b, a});
      I("FADD_ZZZ_S", {a, a, Z(kNegZero)});
      break;
    case Bin::And: I("AND_ZZZ", {a, a, b}); break;
    case Bin::Or: I("ORR_ZZZ", {a, a, b}); break;
    case Bin::Xor: I("EOR_ZZZ", {a, a, b}); break;
    // Counts >= 32 give 0 (or the sign bits), as on x86.
    case Bin::Shl: I("LSL_ZPmZ_S", {a, pg, a, b}); break;
    case Bin::Shr: I(dtype_is_unsigned(d) ? "LSR_ZPmZ_S" : "ASR_ZPmZ_S", {a, pg, a, b}); break;
    case Bin::Pow:  // float lanes; rounded to the element type by the store (math_begin first)
      if (a.id != Z(0).id || b.id != Z(1).id) {
        I("ORR_ZZZ", {Z(2), b, b});
        I("ORR_ZZZ", {Z(0), a, a});
        I("ORR_ZZZ", {Z(1), Z(2), Z(2)});
      }
      pow_lanes(pg);
      if (a.id != Z(0).id) I("ORR_ZZZ", {a, Z(0), Z(0)});
      break;
    case Bin::ExpDif:  // exp(a - b), a - b rounded to the element type first (math_begin first)
      nan_first("FSUB_ZZZ_S", false);
      round_lane(d, a, pg);
      if (a.id != Z(0).id) I("ORR_ZZZ", {Z(0), a, a});
      math(Op::TExp, pg);
      if (a.id != Z(0).id) I("ORR_ZZZ", {a, Z(0), Z(0)});
      break;
    default: break;
  }
}

// Sets x9 x x10 to dst's valid region, in the loop order the tiles allow
// (capped at what every tile holds), and the tile pointers x0 (dst), x1,
// x2, .. (srcs); false (reported) on mixed layouts.
bool Gen::valid_extent(const Inst& in, ValueId dst, const std::vector<ValueId>& tiles, bool& cols_outer) {
  int32_t cap_r, cap_c;
  if (!loop_order(m_, dst, tiles.data(), unsigned(tiles.size()), cols_outer, cap_r, cap_c)) {
    fail(in, {RefusalCode::Layout, "op " + std::string(op_name(in.op)) + " on tiles of mixed layouts"});
    return false;
  }
  ldx(X(9), dst, cols_outer ? 2 : 1);
  ldx(X(10), dst, cols_outer ? 1 : 2);
  cap_reg(X(9), cols_outer ? cap_c : cap_r);
  cap_reg(X(10), cols_outer ? cap_r : cap_c);
  tile_ptr(X(0), dst);
  for (size_t i = 0; i < tiles.size(); ++i) tile_ptr(X(int(1 + i)), tiles[i]);
  return true;
}

void Gen::loop_streams(ValueId dst, const std::vector<ValueId>& tiles, bool cols_outer, std::vector<R>& bases,
                       std::vector<int64_t>& strides) {
  bases = {X(0)};
  strides = {cols_outer ? geo(dst).cs : geo(dst).rs};
  for (size_t i = 0; i < tiles.size(); ++i) {
    bases.push_back(X(int(1 + i)));
    strides.push_back(cols_outer ? geo(tiles[i]).cs : geo(tiles[i]).rs);
  }
}

void Gen::elementwise(const Inst& in, const EltPlan& pl) {
  const auto& d = pl.d;
  const auto& dst = pl.dst;
  const auto& tiles = pl.tiles;
  const auto& scal = pl.scal;
  const auto& scalar_first = pl.scalar_first;
  Op o = in.op;
  bool cols_outer;
  loop_constants();
  if (scal != kNone) bcast_slot(d, Z(kScalar), scal);
  if (!valid_extent(in, dst, tiles, cols_outer)) return;
  std::vector<R> bases;
  std::vector<int64_t> strides;
  loop_streams(dst, tiles, cols_outer, bases, strides);
  Bin bk = Bin::Add;
  bool binary = bin_of(o, bk);
  bool transcendental = o == Op::TExp || o == Op::TLog || o == Op::TRsqrt || o == Op::TPow || o == Op::TPowS;
  if (transcendental) math_begin();
  row_loop(bases, strides, [&](R pg) {
    if (tiles.size() >= 1) ld_e(d, Z(0), pg, X(1), X(11));
    if (tiles.size() >= 2) ld_e(d, Z(1), pg, X(2), X(11));
    if (scal != kNone) {
      if (scalar_first) {  // scalar op tile
        I("ORR_ZZZ", {Z(1), Z(0), Z(0)});
        I("ORR_ZZZ", {Z(0), Z(kScalar), Z(kScalar)});
      } else {
        I("ORR_ZZZ", {Z(1), Z(kScalar), Z(kScalar)});
      }
    }
    if (binary) bin(bk, d, pg, Z(0), Z(1));
    else unary_lanes(o, d, pg);
    st_e(d, Z(0), pg, X(0), X(11));
  });
  if (transcendental) math_end();
}

// z0 = o(z0) over the lanes in pg for the unary ops (and texpands: z27),
// in d's lane class; exp / log / rsqrt need math_begin first.
void Gen::unary_lanes(Op o, DType d, R pg) {
  bool fl = dtype_is_float(d);
  switch (o) {
    case Op::TExpandS: I("ORR_ZZZ", {Z(0), Z(kScalar), Z(kScalar)}); break;
    case Op::TNeg:
      if (fl) {
        I("FNEG_ZPmZ_S", {Z(0), Z(0), pg, Z(0)});
        I("FADD_ZZZ_S", {Z(0), Z(0), Z(kNegZero)});  // quiet a signalling NaN
      } else {
        I("NEG_ZPmZ_S", {Z(0), Z(0), pg, Z(0)});
      }
      break;
    case Op::TAbs:
      if (fl) {
        I("FABS_ZPmZ_S", {Z(0), Z(0), pg, Z(0)});
        I("FADD_ZZZ_S", {Z(0), Z(0), Z(kNegZero)});
      } else if (d != DType::U32) {
        I("ABS_ZPmZ_S", {Z(0), Z(0), pg, Z(0)});
      }
      break;
    case Op::TNot: I("NOT_ZPmZ_S", {Z(0), Z(0), pg, Z(0)}); break;
    case Op::TRelu:  // (x < 0) ? 0 : x: NaN and -0 kept
      if (fl) {
        I("FCMLT_PPzZ0_S", {P(1), pg, Z(0)});
        I("DUP_ZI_S", {Z(3), 0, 0});
        I("SEL_ZPZZ_S", {Z(0), P(1), Z(3), Z(0)});
        I("FADD_ZZZ_S", {Z(0), Z(0), Z(kNegZero)});
      } else if (d != DType::U32) {
        I("DUP_ZI_S", {Z(3), 0, 0});
        I("SMAX_ZPmZ_S", {Z(0), pg, Z(0), Z(3)});
      }
      break;
    case Op::TSqrt: I("FSQRT_ZPmZ_S", {Z(0), Z(0), pg, Z(0)}); break;
    case Op::TExp: case Op::TLog: case Op::TRsqrt: math(o, pg); break;
    case Op::TRecip:
      I("FDUP_ZI_S", {Z(1), 112});  // 1.0
      I("FDIVR_ZPmZ_S", {Z(0), pg, Z(0), Z(1)});
      break;
    default: break;
  }
}

// ---- row reductions --------------------------------------------------------------------

// dst[r, 0] = reduce(src[r, 0..vcol)) in the interpreter's order: lanes
// are rows (a group of VL/32 rows at a time, gathered one column at a
// time), columns in order. Sums accumulate in f32 (f16 / bf16 too) or wrap;
// products round to the element type each step; max / min take a later
// element only if strictly greater (smaller), and a NaN anywhere gives the
// first NaN met.
void Gen::row_reduce(const Inst& in, ValueId src, ValueId dst) {
  DType d = ty(dst).elem;
  unsigned es = dtype_bytes(d);
  bool fl = dtype_is_float(d);
  TileGeo gs = geo(src);
  bool sum = in.op == Op::TRowSum, mx = in.op == Op::TRowMax, prod = in.op == Op::TRowProd;
  loop_constants();
  valid_region(src, std::min(ty(src).rows, ty(dst).rows), ty(src).cols);
  int done = new_label(), grp = new_label(), col = new_label(), fin = new_label();
  I("SUBSXri", {xzr(), X(9), 0, 0});
  bcc(LE, done);
  I("SUBSXri", {xzr(), X(10), 0, 0});
  bcc(LE, done);
  // z7 = byte offsets of consecutive rows.
  mov_imm(X(16), uint64_t(gs.rs));
  I("INDEX_IR_S", {Z(7), 0, W(16)});
  tile_ptr(X(1), src);
  tile_ptr(X(0), dst);
  mov(X(11), xzr());  // first row of the group
  I("WHILELO_PXX_S", {P(0), X(11), X(9)});
  bind(grp);
  mov(X(2), X(1));   // this group's column pointer
  mov(X(3), X(10));  // columns left
  auto gather = [&](R z) {
    const char* n = es == 4 ? "GLD1W_UXTW"
                    : es == 2 ? (d == DType::I16 ? "GLD1SH_S_UXTW" : "GLD1H_S_UXTW")
                              : (d == DType::I8 ? "GLD1SB_S_UXTW" : "GLD1B_S_UXTW");
    I(n, {z, P(0), X(2), Z(7)});
    if (d == DType::F16) I("FCVT_ZPmZ_HtoS", {z, z, P(0), z});
    else if (d == DType::BF16) I("LSL_ZZI_S", {z, z, 16});
    add_imm(X(2), X(2), gs.cs);
  };
  if (sum) {
    I("DUP_ZI_S", {Z(0), 0, 0});
  } else if (prod) {
    if (fl) I("FDUP_ZI_S", {Z(0), 112});
    else I("DUP_ZI_S", {Z(0), 1, 0});
  } else {
    gather(Z(0));
    I("SUBSXri", {X(3), X(3), 1, 0});
    bcc(EQ, fin);
  }
  bind(col);
  gather(Z(1));
  if (fl && sum) {  // a NaN propagates as the first met (the interpreter's order)
    fbin("FADD_ZZZ_S", Z(0), Z(0), Z(1), P(0));
  } else if (fl && prod) {  // rounded to the element type at each step
    fbin("FMUL_ZZZ_S", Z(0), Z(0), Z(1), P(0));
    round_lane(d, Z(0), P(0));
  } else if (fl) {
    // take x where (acc is not NaN) and (x is NaN or x beyond acc)
    I("FCMUO_PPzZZ_S", {P(1), P(0), Z(0), Z(0)});
    I("FCMUO_PPzZZ_S", {P(2), P(0), Z(1), Z(1)});
    if (mx) I("FCMGT_PPzZZ_S", {P(3), P(0), Z(1), Z(0)});
    else I("FCMGT_PPzZZ_S", {P(3), P(0), Z(0), Z(1)});
    I("ORR_PPzPP", {P(2), P(0), P(2), P(3)});
    I("BIC_PPzPP", {P(2), P(0), P(2), P(1)});
    I("SEL_ZPZZ_S", {Z(0), P(2), Z(1), Z(0)});
  } else {
    bin(sum ? Bin::Add : prod ? Bin::Mul : mx ? Bin::Max : Bin::Min, d, P(0), Z(0), Z(1));
  }
  I("SUBSXri", {X(3), X(3), 1, 0});
  bcc(NE, col);
  bind(fin);
  if (fl && !sum && !prod) I("FADD_ZZZ_S", {Z(0), Z(0), Z(kNegZero)});  // quiet a signalling NaN
  st_e(d, Z(0), P(0), X(0), X(11));
  // Next group: the rows after these lanes.
  I("CNTW_XPiI", {X(4), 31, 1});
  mov_imm(X(16), uint64_t(gs.rs));
  I("MADDXrrr", {X(1), X(4), X(16), X(1)});
  I("INCW_XPiI", {X(11), X(11), 31, 1});
  I("WHILELO_PXX_S", {P(0), X(11), X(9)});
  bcc(MI, grp);
  bind(done);
}

}  // namespace ptoas::cg::sve::gen
