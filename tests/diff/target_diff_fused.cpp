// target_diff cases: the fused ops (taddc tsubc taddsc tsubsc tmuladddst
// tfusedmuladd tfusedmuladdrelu tsubrelu tprelu tlrelu taxpy) and the row
// (trowsum/max/min/prod) and column (tcolsum/max/min/prod) reductions, for every
// element type the op table allows, over the shape classes.
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "target_diff_case.h"

namespace x86diff {

using namespace ptoas;

namespace {

std::string store(const std::string& tile, const std::string& tty, const std::string& dt) {
  return "  pto.tstore ins(%" + tile + " : " + tty + ") outs(%cp : !pto.partition_tensor_view<?x?x" + dt +
         ">)\n  return\n}\n";
}

std::string hexs(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, " s=0x%llx", (unsigned long long)v);
  return buf;
}

// ---- fused ops ----------------------------------------------------------------------

enum FKind {
  Tiles3,      // ins(a, b, e)
  TileSTile,   // ins(a, s, e)
  Tiles2,      // ins(a, b)
  Tiles2Tmp,   // ins(a, b, tmp): tprelu's scratch tile
  TileS,       // ins(a, s)
};

struct FusedOp {
  const char* op;
  FKind kind;
  bool ints;  // integer element types too (the generator's adds and subtracts)
};

const FusedOp kFused[] = {
    {"taddc", Tiles3, true},        {"tsubc", Tiles3, true},           {"taddsc", TileSTile, true},
    {"tsubsc", TileSTile, true},    {"tmuladddst", Tiles2, false},     {"tfusedmuladd", Tiles2, false},
    {"tfusedmuladdrelu", Tiles2, false}, {"tsubrelu", Tiles2, false}, {"tprelu", Tiles2, false},
    {"tprelu", Tiles2Tmp, false},   {"tlrelu", TileS, false},          {"taxpy", TileS, false},
};

// tload a, b, e and the destination c (its view region holds data, so the
// ops that read dst see ordinary inputs) -> op -> tstore c.
std::string fused_kernel(const FusedOp& f, const Shape& s, DType d, bool dn, size_t ld) {
  std::string dt(dtype_name(d));
  int rows = dn ? round32(s.rows, d) : s.rows, cols = dn ? s.cols : round32(s.cols, d);
  std::string T = tile_ty(rows, cols, dt, dn);
  bool scalar = f.kind == TileSTile || f.kind == TileS;
  std::string k = kernel_head({"a", "b", "e", "c"}, dt, scalar || !narrow_float(d) ? d : DType::F32, s, ld);
  for (const char* p : {"a", "b", "e", "c"}) k += view(p, p, "%R, %C", dn ? "%c1, %ld" : "%ld, %c1", dt);
  k += load("a", "ta", T, dt, "%R", "%C");
  if (!scalar) k += load("b", "tb", T, dt, "%R", "%C");
  if (f.kind == Tiles3 || f.kind == TileSTile) k += load("e", "te", T, dt, "%R", "%C");
  // tprelu's scratch on A2/A3: u8 masks, one row more than dst and a bit per
  // column (the official verifier's shape rule).
  int mask_cols = round32((cols + 7) / 8, DType::U8);
  std::string M = tile_ty(rows + 1, mask_cols, "ui8", false,
                          (std::to_string(rows + 1) + "x" + std::to_string(mask_cols)).c_str());
  if (f.kind == Tiles2Tmp) k += "  %tt = pto.alloc_tile : " + M + "\n";
  k += load("c", "tc", T, dt, "%R", "%C");
  std::string ins;
  switch (f.kind) {
    case Tiles3: ins = "%ta, %tb, %te : " + T + ", " + T + ", " + T; break;
    case TileSTile: ins = "%ta, %s, %te : " + T + ", " + dt + ", " + T; break;
    case Tiles2: ins = "%ta, %tb : " + T + ", " + T; break;
    case Tiles2Tmp: ins = "%ta, %tb, %tt : " + T + ", " + T + ", " + M; break;
    case TileS: ins = "%ta, %s : " + T + ", " + dt; break;
  }
  k += "  pto." + std::string(f.op) + " ins(" + ins + ") outs(%tc : " + T + ")\n";
  return k + store("tc", T, dt);
}

// A Case with inputs a, b, e and output c (sentinel outside the view,
// samples inside: c is also the destination's initial data).
Case fused_case(const std::string& name, const std::string& text, DType d, const Shape& s, bool dn, size_t ld,
                DType sdt, uint64_t sbits) {
  size_t n = ld * size_t((dn ? s.vc : s.vr) + 1);
  Case c;
  c.name = name;
  c.text = text;
  for (const char* p : {"a", "b", "e"}) c.bufs.push_back(make_buffer(p, d, n, ld, false));
  c.bufs.push_back(make_buffer("c", d, n, ld, true));
  for (int r = 0; r < s.vr; ++r)
    for (int k = 0; k < s.vc; ++k)
      store_elem(c.bufs[3].data, d, dn ? size_t(k) * ld + size_t(r) : size_t(r) * ld + size_t(k), sample(d));
  for (int i = 0; i < 4; ++i) c.params.push_back(Param{i, {}});
  c.params.push_back(Param{-1, scalar_arg(sdt, sbits)});
  return c;
}

// ---- reductions ---------------------------------------------------------------------

// A value of `d` near 1 ([0.5, 2), either sign; special values one time in
// eight), so that a product of many stays finite and rounds at every step.
uint64_t near_one(DType d) {
  if (rnd() % 8 == 0) return sample(d);
  uint64_t sign = rnd() & 1, e = rnd() & 1;
  switch (d) {
    case DType::F32: return sign << 31 | (126 + e) << 23 | (rnd() & 0x7fffffu);
    case DType::F16: return sign << 15 | (14 + e) << 10 | (rnd() & 0x3ffu);
    case DType::BF16: return sign << 15 | (126 + e) << 7 | (rnd() & 0x7fu);
    default: return sample(d);
  }
}

// trow<red> a -> an R x 1 column (DN tile, or an ND one-column tile); the
// result starts as column 0 of b. v: 0 ND src + DN dst with a tmp tile,
// 1 DN src + DN dst, 2 ND src + ND dst.
void add_row_reduce(std::vector<Case>& out, const char* op, DType d, const Shape& s, int v, Arch arch) {
  std::string dt(dtype_name(d));
  bool dn_src = v == 1, dn_dst = v != 2;
  size_t ld = size_t(s.cols + 3), n = ld * size_t(std::max(s.vr, s.vc) + 1);
  std::string k = kernel_head({"a", "b", "c"}, dt, narrow_float(d) ? DType::F32 : d, s, ld);
  int src_rows = dn_src ? round32(s.rows, d) : s.rows, src_cols = dn_src ? s.cols : round32(s.cols, d);
  std::string ta = tile_ty(src_rows, src_cols, dt, dn_src);
  std::string tc = tile_ty(dn_dst ? round32(s.rows, d) : s.rows, 1, dt, dn_dst, "?x1");
  k += view("a", "a", "%R, %C", dn_src ? "%c1, %ld" : "%ld, %c1", dt);
  k += view("c", "c", "%R, %c1", "%c1, %ld", dt);
  k += view("bc", "b", "%R, %c1", "%c1, %ld", dt);
  k += load("a", "ta", ta, dt, "%R", "%C");
  k += load("bc", "tc", tc, dt, "%R", "%c1");
  std::string ins = "%ta : " + ta;
  if (v == 0) {
    k += "  %tt = pto.alloc_tile valid_row = %R valid_col = %C : " + ta + "\n";
    ins = "%ta, %tt : " + ta + ", " + ta;
  }
  k += "  pto." + std::string(op) + " ins(" + ins + ") outs(%tc : " + tc + ")\n";
  k += store("tc", tc, dt);
  std::string name = std::string(op) + " " + dt + " " + s.name + (dn_src ? " DN src" : "") +
                     (dn_dst ? "" : " ND dst") + (v == 0 ? " tmp" : "");
  Case c = abc_case(name, k, d, d, n, ld, narrow_float(d) ? DType::F32 : d, 0);
  c.arch = arch;
  c.reduction = true;
  const bool prod = std::string(op) == "trowprod";
  if (prod) {
    for (size_t i = 0; i < n; ++i) store_elem(c.bufs[0].data, d, i, near_one(d));
    c.f16_rounds_often = true;
  }
  // Sums and products in another order: within (n + 2) eps of sum|x| (a
  // product: of |result|) plus one rounding to the element type.
  if (prod || std::string(op) == "trowsum") {
    std::vector<uint8_t> av = c.bufs[0].data;
    int vc = s.vc, vr = s.vr;
    c.tree_tolerate = [=](size_t b, size_t i, uint64_t ref, uint64_t got) {
      if (b != 2 || i >= size_t(vr)) return false;
      double fr = elem_value(d, ref), fg = elem_value(d, got);
      double mag = 0, lg_hi = 0, lg_lo = 0;
      bool zero_or_inf = false;
      for (int k = 0; k < vc; ++k) {
        size_t at = dn_src ? size_t(k) * ld + i : i * ld + size_t(k);
        double x = elem_value(d, load_elem(av, d, at));
        mag += std::fabs(x);
        zero_or_inf |= x == 0 || std::isinf(x);
        if (x != 0 && std::isfinite(x)) (std::fabs(x) > 1 ? lg_hi : lg_lo) += std::log2(std::fabs(x));
      }
      // A product whose partial products may leave the type's range (a row
      // with 0 or Inf, or factors that can overflow or underflow on the
      // way) is 0, subnormal, Inf or NaN by the order.
      const double emax = d == DType::F16 ? 15 : 127, emin = d == DType::F16 ? -14 : -126;
      const bool extreme = prod && (zero_or_inf || lg_hi > emax || lg_lo < emin);
      if (!std::isfinite(fr) || !std::isfinite(fg)) return extreme;
      if (extreme && std::min(std::fabs(fr), std::fabs(fg)) < std::ldexp(1.0, int(emin))) return true;
      // Each step rounds: to f32 for sums, to the element type for products.
      double eps = d == DType::F32 || !prod ? 0x1p-23 : d == DType::BF16 ? 0x1p-8 : 0x1p-11;
      double one = d == DType::F32 ? 0x1p-23 : d == DType::BF16 ? 0x1p-8 : 0x1p-11;
      double tiny = d == DType::F32 ? 0x1p-149 : d == DType::BF16 ? 0x1p-133 : 0x1p-24;
      if (prod) mag = std::fabs(fr);
      return std::fabs(fg - fr) <= double(vc + 2) * (eps * mag + tiny) + one * std::fabs(fr);
    };
  }
  out.push_back(std::move(c));
}

// tcol<red> a -> a 1 x C row, starting as row 0 of b (tmp: tcolsum's
// scratch tile given).
void add_col_reduce(std::vector<Case>& out, const char* op, DType d, const Shape& s, bool tmp, Arch arch) {
  std::string dt(dtype_name(d));
  size_t ld = size_t(s.cols + 3), n = ld * size_t(std::max(s.vr, 1) + 1);
  std::string k = kernel_head({"a", "b", "c"}, dt, narrow_float(d) ? DType::F32 : d, s, ld);
  int cols = round32(s.cols, d);
  std::string ta = tile_ty(s.rows, cols, dt, false), tc = tile_ty(1, cols, dt, false, "1x?");
  k += view("a", "a", "%R, %C", "%ld, %c1", dt);
  k += view("c", "c", "%c1, %C", "%ld, %c1", dt);
  k += view("br", "b", "%c1, %C", "%ld, %c1", dt);
  k += load("a", "ta", ta, dt, "%R", "%C");
  k += load("br", "tc", tc, dt, "%c1", "%C");
  std::string ins = "%ta : " + ta;
  if (tmp) {
    k += "  %tt = pto.alloc_tile valid_row = %R valid_col = %C : " + ta + "\n";
    ins = "%ta, %tt : " + ta + ", " + ta;
  }
  k += "  pto." + std::string(op) + " ins(" + ins + ") outs(%tc : " + tc + ")\n";
  k += store("tc", tc, dt);
  Case c = abc_case(std::string(op) + " " + dt + " " + s.name + (tmp ? " tmp" : ""), k, d, d, n, ld,
                    narrow_float(d) ? DType::F32 : d, 0);
  c.arch = arch;
  c.reduction = true;
  if (std::string(op) == "tcolprod")
    for (size_t i = 0; i < n; ++i) store_elem(c.bufs[0].data, d, i, near_one(d));
  c.f16_rounds_often = std::string(op) == "tcolsum" || std::string(op) == "tcolprod";
  out.push_back(std::move(c));
}

}  // namespace

void fused_cases(std::vector<Case>& out) {
  for (const FusedOp& f : kFused)
    for (DType d : lane_types()) {
      if (!dtype_is_float(d) && !f.ints) continue;
      Arch arch;
      if (!pick_arch(f.op, d, arch)) continue;
      std::string dt(dtype_name(d));
      bool scalar = f.kind == TileSTile || f.kind == TileS;
      for (const Shape& s : shapes())
        for (bool dn : {false, true}) {
          if (dn && s.rows % 8) continue;
          size_t ld = size_t(dn ? s.rows + 3 : s.cols + 3);
          std::string text = fused_kernel(f, s, d, dn, ld);
          std::string name = std::string(f.op) + (f.kind == Tiles2Tmp ? "(tmp)" : "") + " " + dt + " " + s.name +
                             (dn ? " DN" : "");
          for (uint64_t sc : scalar ? scalars(d, false) : std::vector<uint64_t>{0}) {
            Case c = fused_case(name + (scalar ? hexs(sc) : ""), text, d, s, dn, ld,
                                scalar || !narrow_float(d) ? d : DType::F32, sc);
            c.arch = arch;
            c.f16_rounds_often = true;
            out.push_back(std::move(c));
          }
        }
    }
}

void reduce_cases(std::vector<Case>& out) {
  for (DType d : lane_types()) {
    for (const char* op : {"trowsum", "trowmax", "trowmin", "trowprod"}) {
      Arch arch;
      if (!pick_arch(op, d, arch)) continue;
      for (const Shape& s : shapes())
        for (int v = 0; v < 3; ++v)
          if (v != 1 || s.rows % 8 == 0) add_row_reduce(out, op, d, s, v, arch);
    }
    for (const char* op : {"tcolsum", "tcolmax", "tcolmin", "tcolprod"}) {
      Arch arch;
      if (!pick_arch(op, d, arch)) continue;
      bool tmp_ok = std::string(op) == "tcolsum";
      for (const Shape& s : shapes()) {
        add_col_reduce(out, op, d, s, false, arch);
        if (tmp_ok) add_col_reduce(out, op, d, s, true, arch);
      }
    }
  }
}

}  // namespace x86diff
