// AArch64 SVE: tcmp / tcmps into the canonical bit mask and tsel / tsels
// from it (docs/semantics.md §5), with the x86 backend's semantics
// (x86/compare.cpp). A mask row holds bit c of column c at byte c / 8, bit
// c % 8 (LSB first, little-endian), whatever the mask's element width.
#include <algorithm>

#include "gen.h"
#include "tile_layout.h"

namespace ptoas::cg::sve::gen {

// tcmp / tcmps: the mask tile's whole storage is zeroed, then per row of
// a's valid region the bits, 32 columns (one word) at a time: within a
// word each vector step ORs its lanes' bits (1 << column % 32) with orv.
// Only the bytes the valid columns reach are written; columns past
// mask.vcol * B are not compared, as the interpreter caps the words.
void Gen::tcmp(const Inst& in, const CmpPlan& pl) {
  const auto& a = pl.a;
  const auto& rhs = pl.rhs;
  const auto& m = pl.mask;
  const auto& rhs_tile = pl.rhs_tile;
  const auto& mode = pl.mode;  // 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge
  const auto& mbits = pl.mask_bits;
  DType d = ty(a).elem;
  bool fl = dtype_is_float(d);
  loop_constants();
  // Zero the whole mask tile (bytes).
  {
    int fill = new_label();
    tile_ptr(X(0), m);
    mov_imm(X(10), tile_storage_bytes(ty(m)));
    mov(X(11), xzr());
    I("DUP_ZI_S", {Z(0), 0, 0});
    I("WHILELO_PXX_B", {P(0), X(11), X(10)});
    bind(fill);
    I("ST1B", {Z(0), P(0), X(0), X(11)});
    I("INCB_XPiI", {X(11), X(11), 31, 1});
    I("WHILELO_PXX_B", {P(0), X(11), X(10)});
    bcc(MI, fill);
  }
  // x9 x x10: a's valid region, columns capped at mask.vcol * B.
  valid_region(a, pl.cap_r, pl.cap_c);
  ldx(X(16), m, 2);
  I("UBFMXri", {X(16), X(16), 64 - __builtin_ctz(mbits), 63 - __builtin_ctz(mbits)});
  I("SUBSXrs", {xzr(), X(10), X(16), 0});
  I("CSELXr", {X(10), X(16), X(10), int(GT)});
  tile_ptr(X(0), m);
  tile_ptr(X(1), a);
  if (rhs_tile) tile_ptr(X(2), rhs);
  else bcast_slot(d, Z(kScalar), rhs);
  int done = new_label(), row = new_label(), word = new_label(), step = new_label();
  I("SUBSXri", {xzr(), X(9), 0, 0});
  bcc(LE, done);
  I("SUBSXri", {xzr(), X(10), 0, 0});
  bcc(LE, done);
  I("DUP_ZI_S", {Z(6), 1, 0});
  bind(row);
  mov(X(3), xzr());  // the word's first column
  bind(word);
  add_imm(X(4), X(3), 32);
  I("SUBSXrs", {xzr(), X(4), X(10), 0});
  I("CSELXr", {X(4), X(10), X(4), int(GT)});  // the word's end column
  mov(X(5), xzr());   // the word's bits
  mov(X(11), X(3));
  bind(step);
  I("WHILELO_PXX_S", {P(0), X(11), X(4)});
  ld_e(d, Z(0), P(0), X(1), X(11));
  if (rhs_tile) ld_e(d, Z(1), P(0), X(2), X(11));
  else I("ORR_ZZZ", {Z(1), Z(kScalar), Z(kScalar)});
  R pg = P(0);
  if (fl) {
    // Ordered compares are false with a NaN; ne is true.
    switch (mode) {
      case 0: I("FCMEQ_PPzZZ_S", {P(1), pg, Z(0), Z(1)}); break;
      case 1: I("FCMNE_PPzZZ_S", {P(1), pg, Z(0), Z(1)}); break;
      case 2: I("FCMGT_PPzZZ_S", {P(1), pg, Z(1), Z(0)}); break;
      case 3: I("FCMGE_PPzZZ_S", {P(1), pg, Z(1), Z(0)}); break;
      case 4: I("FCMGT_PPzZZ_S", {P(1), pg, Z(0), Z(1)}); break;
      default: I("FCMGE_PPzZZ_S", {P(1), pg, Z(0), Z(1)}); break;
    }
  } else {
    bool u = d == DType::U32;  // narrow integers are extended: signed order holds
    const char* gt = u ? "CMPHI_PPzZZ_S" : "CMPGT_PPzZZ_S";
    const char* ge = u ? "CMPHS_PPzZZ_S" : "CMPGE_PPzZZ_S";
    switch (mode) {
      case 0: I("CMPEQ_PPzZZ_S", {P(1), pg, Z(0), Z(1)}); break;
      case 1: I("CMPNE_PPzZZ_S", {P(1), pg, Z(0), Z(1)}); break;
      case 2: I(gt, {P(1), pg, Z(1), Z(0)}); break;
      case 3: I(ge, {P(1), pg, Z(1), Z(0)}); break;
      case 4: I(gt, {P(1), pg, Z(0), Z(1)}); break;
      default: I(ge, {P(1), pg, Z(0), Z(1)}); break;
    }
  }
  // Bits 1 << (column - word start) of the true lanes, OR-ed into x5.
  I("SUBXrs", {X(16), X(11), X(3), 0});
  I("INDEX_RI_S", {Z(2), W(16), 1});
  I("ORR_ZZZ", {Z(3), Z(6), Z(6)});
  I("LSL_ZPmZ_S", {Z(3), P(7), Z(3), Z(2)});
  I("DUP_ZI_S", {Z(4), 0, 0});
  I("SEL_ZPZZ_S", {Z(4), P(1), Z(3), Z(4)});
  I("ORV_VPZ_S", {Z(5), pg, Z(4)});
  I("FMOVSWr", {W(16), S(5)});
  I("ORRXrs", {X(5), X(5), X(16), 0});
  I("INCW_XPiI", {X(11), X(11), 31, 1});
  I("SUBSXrs", {xzr(), X(11), X(4), 0});
  bcc(LT, step);
  // Store the word's bytes that hold valid columns: ceil((end - start) / 8).
  {
    I("SUBXrs", {X(16), X(4), X(3), 0});
    I("ADDXri", {X(16), X(16), 7, 0});
    I("UBFMXri", {X(16), X(16), 3, 63});  // bytes
    I("UBFMXri", {X(17), X(3), 3, 63});   // the word's first byte
    I("ADDXrs", {X(17), X(17), X(0), 0});
    int bytes = new_label(), fin = new_label();
    bind(bytes);
    I("STRBBui", {W(5), X(17), 0});
    I("UBFMXri", {X(5), X(5), 8, 63});
    I("ADDXri", {X(17), X(17), 1, 0});
    I("SUBSXri", {X(16), X(16), 1, 0});
    bcc(NE, bytes);
    bind(fin);
  }
  mov(X(3), X(4));
  I("SUBSXrs", {xzr(), X(3), X(10), 0});
  bcc(LT, word);
  add_imm(X(0), X(0), geo(m).rs);
  add_imm(X(1), X(1), geo(a).rs);
  if (rhs_tile) add_imm(X(2), X(2), geo(rhs).rs);
  I("SUBSXri", {X(9), X(9), 1, 0});
  bcc(NE, row);
  bind(done);
}

// tsel / tsels: d[r, c] = bit(mask, r, c) ? a[r, c] : b[r, c] (or the
// scalar), bits copied (2-byte elements as zero-extended 16-bit lanes, so
// NaN payloads survive). Each lane reads the mask word holding its bit
// (the word may reach past the row: still inside the tile arena).
void Gen::tsel(const Inst& in, const SelPlan& pl) {
  const auto& scalar = pl.scalar;
  const auto& mk = pl.mask;
  const auto& a = pl.a;
  const auto& b = pl.b;
  const auto& dst = pl.dst;
  DType d = pl.bits;
  loop_constants();
  if (scalar) bcast_slot(d, Z(kScalar), b);
  std::vector<ValueId> tiles{a};
  if (!scalar) tiles.push_back(b);
  bool cols_outer;
  if (!valid_extent(in, dst, tiles, cols_outer)) return;
  cap_reg(X(9), ty(mk).rows);  // the mask covers its rows' words at least
  tile_ptr(X(3), mk);
  std::vector<R> bases{X(0), X(1)};
  std::vector<int64_t> strides{geo(dst).rs, geo(a).rs};
  if (!scalar) {
    bases.push_back(X(2));
    strides.push_back(geo(b).rs);
  }
  bases.push_back(X(3));
  strides.push_back(geo(mk).rs);
  I("DUP_ZI_S", {Z(6), 1, 0});
  row_loop(bases, strides, [&](R pg) {
    ld_e(d, Z(0), pg, X(1), X(11));
    if (scalar) I("ORR_ZZZ", {Z(1), Z(kScalar), Z(kScalar)});
    else ld_e(d, Z(1), pg, X(2), X(11));
    // Lane c: word c / 32 of the row (byte offset 4 * (c >> 5)), bit c % 32.
    I("INDEX_RI_S", {Z(2), W(11), 1});
    I("LSR_ZZI_S", {Z(3), Z(2), 5});
    I("LSL_ZZI_S", {Z(3), Z(3), 2});
    I("GLD1W_UXTW", {Z(4), pg, X(3), Z(3)});
    I("LSL_ZZI_S", {Z(2), Z(2), 27});
    I("LSR_ZZI_S", {Z(2), Z(2), 27});  // c % 32
    I("LSR_ZPmZ_S", {Z(4), pg, Z(4), Z(2)});
    I("AND_ZZZ", {Z(4), Z(4), Z(6)});
    I("CMPNE_PPzZI_S", {P(1), pg, Z(4), 0});
    I("SEL_ZPZZ_S", {Z(0), P(1), Z(0), Z(1)});
    st_e(d, Z(0), pg, X(0), X(11));
  });
}

}  // namespace ptoas::cg::sve::gen
