// target_diff cases besides the elementwise, fused and reduction ones: tcvt
// f32 <-> bf16, boxed tiles with tmov and tmatmul{,.acc,.bias}, ttri, and
// every scalar arith op, cast and scf.if/for/while (results broadcast into
// rows of an output with texpands, so scalar results compare bit for bit).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "target_diff_case.h"

namespace x86diff {

using namespace ptoas;

// An input element as a double (f32, f16, bf16; integers as themselves).
double elem_value(DType d, uint64_t v) {
  if (d == DType::I8) return double(int8_t(v));
  if (d == DType::I32) return double(int32_t(v));
  uint32_t bits;
  if (d == DType::BF16) {
    bits = uint32_t(v) << 16;
  } else if (d == DType::F16) {
    uint32_t sgn = uint32_t(v & 0x8000) << 16, e = (v >> 10) & 31, m = v & 1023;
    if (e == 31) return m ? std::nan("") : sgn ? -INFINITY : INFINITY;
    double x = e ? std::ldexp(double(m | 1024), int(e) - 25) : std::ldexp(double(m), -24);
    return sgn ? -x : x;
  } else {
    bits = uint32_t(v);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

namespace {

std::string head(const Shape& s, const std::string& in, const std::string& b, const std::string& out,
                 const std::string& sdt) {
  std::string k = "func.func @k(%a: !pto.ptr<" + in + ">, %b: !pto.ptr<" + b + ">, %c: !pto.ptr<" + out +
                  ">, %s: " + sdt + ") attributes {pto.entry} {\n";
  k += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n";
  k += "  %R = arith.constant " + std::to_string(s.vr) + " : index\n";
  k += "  %C = arith.constant " + std::to_string(s.vc) + " : index\n";
  k += "  %ld = arith.constant " + std::to_string(s.cols + 3) + " : index\n";
  return k;
}

// tcvt: narrow (a f32 -> bf16 tile -> c as bf16) or widen (a as bf16 -> f32
// tile -> c as f32).
void add_cvt(std::vector<Case>& out, const Shape& s, bool narrow) {
  const std::string in = narrow ? "f32" : "bf16", o = narrow ? "bf16" : "f32";
  std::string k = head(s, in, "f32", o, "f32");
  // bf16 tiles need 32-byte rows: 16 columns at least.
  int cols = std::max(16, (s.cols + 15) / 16 * 16);
  std::string ti = tile_ty(s.rows, cols, in, false), to = tile_ty(s.rows, cols, o, false);
  k += view("a", "a", "%R, %C", "%ld, %c1", in);
  k += view("c", "c", "%R, %C", "%ld, %c1", o);
  k += load("a", "ta", ti, in, "%R", "%C");
  k += "  %tc = pto.alloc_tile valid_row = %R valid_col = %C : " + to + "\n";
  k += "  pto.tcvt ins(%ta {rmode = #pto<round_mode RINT>} : " + ti + ") outs(%tc : " + to + ")\n";
  k += "  pto.tstore ins(%tc : " + to + ") outs(%cp : !pto.partition_tensor_view<?x?x" + o + ">)\n  return\n}\n";
  size_t ld = size_t(s.cols + 3), n = ld * size_t(s.vr + 1);
  Case c = abc_case("tcvt " + in + " -> " + o + " " + s.name, k, parse_dtype(in), parse_dtype(o), n, ld,
                    DType::F32, 0);
  c.bufs[1] = make_buffer("b", DType::F32, n, ld, false);
  out.push_back(std::move(c));
}

// ---- boxed tiles, tmov, tmatmul{,.acc,.bias}, ttri ---------------------------------

// Matmul layouts: boxed (mat NZ -> left, right ZN, acc NZ fractal 1024),
// nd (every tile row-major, none_box), dn (right and acc column-major,
// none_box) or mixed (nd mat and left, right NZ, acc ZN: B gathered on
// avx512, C scattered).
enum class MmLay { Boxed, Nd, Dn, Mixed };

// A (M x K) and B (K x N) are loaded into mat tiles, moved to left /
// right, multiplied into an acc tile; `mode` 1 adds a tmatmul.acc of the
// same product, 2 uses tmatmul.bias with row 0 of C's initial contents as
// the bias; the acc is stored to C, or (`via_vec`) first moved to an ND
// vec tile. dt: f32, f16, bf16 (random bits, or with `plain` ordinary
// values and a few NaN / Inf) or i8 (random bits). Floats are compared
// with DESIGN §6's summation bound: |got - ref| <= (K + 2) eps S, S the sum
// of |a||b| over k (twice for .acc, plus |bias|), computed here in double;
// NaN where the interpreter has NaN; anything where S overflows f32.
void add_matmul(std::vector<Case>& out, const char* dt, int M, int N, int K, int mode, bool via_vec,
                MmLay lay = MmLay::Boxed, bool plain = false, bool a5 = false) {
  std::string d(dt);
  std::string od = d == "i8" ? "i32" : "f32";
  auto tile = [&](const char* loc, int r, int c, const char* e, const char* lay_) {
    return std::string("!pto.tile_buf<") + loc + ", " + std::to_string(r) + "x" + std::to_string(c) + "x" + e +
           ", valid=?x?" + lay_ + ">";
  };
  const char* nz = ", blayout=col_major, slayout=row_major";
  const char* zn = ", blayout=row_major, slayout=col_major";
  const char* nd = ", blayout=row_major, slayout=none_box";
  const char* dn = ", blayout=col_major, slayout=none_box";
  bool boxed = lay == MmLay::Boxed;
  // Tile shapes: the historical 32 x 64 x 32, or rounded up to 32 for
  // bigger problems.
  auto up32 = [](int v, int lo) { return std::max(lo, (v + 31) / 32 * 32); };
  int TM = up32(M, 32), TK = up32(K, 64), TN = up32(N, 32);
  std::string am = tile("mat", TM, TK, dt, boxed ? nz : nd), bm = tile("mat", TK, TN, dt, boxed ? nz : nd);
  std::string al = tile("left", TM, TK, dt, boxed ? nz : nd);
  bool mixed = lay == MmLay::Mixed;
  std::string br = tile("right", TK, TN, dt, boxed ? zn : mixed ? nz : lay == MmLay::Nd ? nd : dn);
  std::string acc = tile("acc", TM, TN, od.c_str(),
                         boxed   ? ", blayout=col_major, slayout=row_major, fractal=1024"
                         : mixed ? ", blayout=row_major, slayout=col_major, fractal=1024"
                         : lay == MmLay::Nd ? nd
                                            : dn);
  std::string vec = tile("vec", TM, TN, od.c_str(), "");
  std::string bias = tile("bias", 1, TN, od.c_str(), "");
  int ld = std::max({70, K + 6, N + 6}), nrows = std::max({66, M + 2, K + 2});
  std::string k;
  auto view = [&](const std::string& P, const std::string& e, const char* R, const char* C) {
    std::string tv = "!pto.tensor_view<?x?x" + e + ">", pv = "!pto.partition_tensor_view<?x?x" + e + ">";
    k += "  %" + P + "v = pto.make_tensor_view %" + P + ", shape = [" + R + ", " + C + "], strides = [%ld, %c1] : " +
         tv + "\n";
    k += "  %" + P + "p = pto.partition_view %" + P + "v, offsets = [%c0, %c0], sizes = [" + R + ", " + C +
         "] : " + tv + " -> " + pv + "\n";
    return pv;
  };
  k += "func.func @k(%a: !pto.ptr<" + d + ">, %b: !pto.ptr<" + d + ">, %c: !pto.ptr<" + od + ">, %s: " + od +
       ") attributes {pto.entry} {\n";
  k += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n";
  k += "  %M = arith.constant " + std::to_string(M) + " : index\n";
  k += "  %N = arith.constant " + std::to_string(N) + " : index\n";
  k += "  %K = arith.constant " + std::to_string(K) + " : index\n";
  k += "  %ld = arith.constant " + std::to_string(ld) + " : index\n";
  std::string apv = view("a", d, "%M", "%K"), bpv = view("b", d, "%K", "%N"), cpv = view("c", od, "%M", "%N");
  k += "  %am = pto.alloc_tile valid_row = %M valid_col = %K : " + am + "\n";
  k += "  %bm = pto.alloc_tile valid_row = %K valid_col = %N : " + bm + "\n";
  k += "  %al = pto.alloc_tile valid_row = %M valid_col = %K : " + al + "\n";
  k += "  %br = pto.alloc_tile valid_row = %K valid_col = %N : " + br + "\n";
  k += "  %acc = pto.alloc_tile valid_row = %M valid_col = %N : " + acc + "\n";
  k += "  pto.tload ins(%ap : " + apv + ") outs(%am : " + am + ")\n";
  k += "  pto.tload ins(%bp : " + bpv + ") outs(%bm : " + bm + ")\n";
  k += "  pto.tmov ins(%am : " + am + ") outs(%al : " + al + ")\n";
  k += "  pto.tmov ins(%bm : " + bm + ") outs(%br : " + br + ")\n";
  if (mode == 2) {
    k += "  %one = arith.constant 1 : index\n";
    k += "  %bt = pto.alloc_tile valid_row = %one valid_col = %N : " + bias + "\n";
    k += "  %bp1 = pto.partition_view %cv, offsets = [%c0, %c0], sizes = [%one, %N] : !pto.tensor_view<?x?x" + od +
         "> -> " + cpv + "\n";
    k += "  pto.tload ins(%bp1 : " + cpv + ") outs(%bt : " + bias + ")\n";
    k += "  pto.tmatmul.bias ins(%al, %br, %bt : " + al + ", " + br + ", " + bias + ") outs(%acc : " + acc + ")\n";
  } else {
    k += "  pto.tmatmul ins(%al, %br : " + al + ", " + br + ") outs(%acc : " + acc + ")\n";
    if (mode == 1)
      k += "  pto.tmatmul.acc ins(%acc, %al, %br : " + acc + ", " + al + ", " + br + ") outs(%acc : " + acc + ")\n";
  }
  if (via_vec) {
    k += "  %vt = pto.alloc_tile valid_row = %M valid_col = %N : " + vec + "\n";
    k += "  pto.tmov ins(%acc : " + acc + ") outs(%vt : " + vec + ")\n";
    k += "  pto.tstore ins(%vt : " + vec + ") outs(%cp : " + cpv + ")\n";
  } else {
    k += "  pto.tstore ins(%acc : " + acc + ") outs(%cp : " + cpv + ")\n";
  }
  k += "  return\n}\n";
  const char* lname = boxed ? "" : lay == MmLay::Nd ? " nd" : mixed ? " mixed" : " dn";
  std::string name = std::string("tmatmul") + (mode == 1 ? ".acc " : mode == 2 ? ".bias " : " ") + dt + " " +
                     std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + lname +
                     (plain ? " plain" : "") + (a5 ? " a5" : "") + (via_vec ? " via vec" : "");
  DType in = parse_dtype(d), o = parse_dtype(od);
  Case c = abc_case(name, k, in, o, size_t(ld) * size_t(nrows), size_t(ld), o, 0);
  if (a5) c.arch = Arch::A5;  // left tiles column-major
  // i8 / f16 / bf16 inputs: random bits (NaN / Inf patterns only rarely,
  // so the products stay mostly finite); f32 inputs get the special
  // values, or (`plain`) ordinary values with a NaN in A's row 1 and an
  // Inf in B's column 2.
  if (in != DType::F32 && !plain)
    for (int b = 0; b < 2; ++b)
      for (uint8_t& x : c.bufs[size_t(b)].data) x = uint8_t(rnd());
  if (plain) {
    for (int b = 0; b < 2; ++b) {
      Buffer& buf = c.bufs[size_t(b)];
      size_t n = buf.data.size() / dtype_bytes(in);
      for (size_t i = 0; i < n; ++i) {
        uint64_t v;
        do v = sample(in);
        while (!std::isfinite(elem_value(in, v)));
        store_elem(buf.data, in, i, v);
      }
    }
    bool h = in == DType::F16;
    uint64_t qnan = in == DType::F32 ? 0x7fc00000u : h ? 0x7e00u : 0x7fc0u;
    uint64_t inf = in == DType::F32 ? 0x7f800000u : h ? 0x7c00u : 0x7f80u;
    if (M > 1 && K > 3) store_elem(c.bufs[0].data, in, size_t(ld) + 3, qnan);
    if (N > 2 && K > 1) store_elem(c.bufs[1].data, in, size_t(ld) + 2, inf);
  }
  if (mode == 2)  // a bias row of ordinary values
    for (int j = 0; j < N; ++j) {
      uint64_t v;
      do v = sample(o);
      while (o == DType::F32 && !std::isfinite(elem_value(o, v)));
      store_elem(c.bufs[2].data, o, size_t(j), v);
    }
  if (o == DType::F32) {
    std::vector<uint8_t> av = c.bufs[0].data, bv = c.bufs[1].data, cv0 = c.bufs[2].data;
    c.tolerate = [=](size_t b, size_t i, uint64_t ref, uint64_t got) {
      size_t r = i / size_t(ld), j = i % size_t(ld);
      if (b != 2 || r >= size_t(M) || j >= size_t(N)) return false;
      double fr = elem_value(o, ref), fg = elem_value(o, got);
      double sum = 0;
      for (size_t p = 0; p < size_t(K); ++p)
        sum += std::fabs(elem_value(in, load_elem(av, in, r * size_t(ld) + p)) *
                         elem_value(in, load_elem(bv, in, p * size_t(ld) + j)));
      if (mode == 1) sum *= 2;
      if (mode == 2) sum += std::fabs(elem_value(o, load_elem(cv0, o, j)));
      // Overflow first: the order then decides between Inf, NaN and finite.
      if (!(sum < 1.0e38)) return true;
      if (std::isnan(fr)) return std::isnan(fg);
      if (std::isnan(fg)) return false;
      return std::fabs(fg - fr) <= double(K + 2) * 0x1p-23 * sum;
    };
  }
  out.push_back(std::move(c));
}

// Buffers a and b (n elements each, of their type): moderate values,
// different in every element (no product sum near overflow, where any
// result would pass); bf16 the high half of such an f32, i8 random bits.
void fill_moderate(Case& c, size_t n, uint32_t seed) {
  for (int b = 0; b < 2; ++b) {
    Buffer& buf = c.bufs[size_t(b)];
    for (size_t i = 0; i < n; ++i) {
      seed = seed * 1664525u + 1013904223u;
      float f = float(int32_t(seed >> 8) % 20001 - 10000) / 997.0f;
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      uint64_t v = buf.elem == DType::BF16 ? bits >> 16 : buf.elem == DType::I8 ? seed >> 24 : bits;
      store_elem(buf.data, buf.elem, i, v);
    }
  }
}

// tload straight into left / right tiles (valid M x K of TM x TK, K x N
// of TK x TN; the views are the valid regions, or with `whole` the
// tiles; A's and B's row strides are lda and ldb; B's valid rows `kb`
// (0: K; fewer: the product's k - kb last steps read B's padding, zero),
// tmatmul, tstore. dt: f32, bf16 (moderate values, f32 accumulators) or
// i8 (random bits, i32). At -O2 an operand is read in place
// (matmul_in_place) when its view covers the tile: A and a packed B (not
// f32) at the view's row stride, an f32 B only laid out as the tile; the
// others are copied (padded). Floats must equal the interpreter within
// DESIGN §6's summation bound, i32 exactly.
void add_matmul_tload(std::vector<Case>& out, const char* dt, int M, int N, int K, int TM, int TN, int TK, int lda,
                      int ldb, bool whole = false, int kb = 0) {
  std::string d(dt), od = d == "i8" ? "i32" : "f32";
  auto tile = [](const char* loc, int r, int c, const std::string& e) {
    return std::string("!pto.tile_buf<") + loc + ", " + std::to_string(r) + "x" + std::to_string(c) + "x" + e +
           ", valid=?x?, blayout=row_major, slayout=none_box>";
  };
  std::string al = tile("left", TM, TK, d), br = tile("right", TK, TN, d), acc = tile("acc", TM, TN, od);
  if (kb == 0) kb = K;
  int ldc = N + 3, ar = whole ? TM : M, ac = whole ? TK : K, bro = whole ? TK : K, bc = whole ? TN : N;
  auto cst = [](const char* n, int v) { return std::string("  %") + n + " = arith.constant " + std::to_string(v) + " : index\n"; };
  std::string k = "func.func @k(%a: !pto.ptr<" + d + ">, %b: !pto.ptr<" + d + ">, %c: !pto.ptr<" + od + ">, %s: " +
                  od + ") attributes {pto.entry} {\n";
  k += cst("c0", 0) + cst("c1", 1) + cst("M", M) + cst("N", N) + cst("K", K) + cst("AR", ar) + cst("AC", ac) +
       cst("BR", bro) + cst("BC", bc) + cst("lda", lda) + cst("ldb", ldb) + cst("ldc", ldc) + cst("KB", kb);
  auto view = [&](const char* P, const std::string& e, const char* R, const char* C, const char* ld) {
    std::string tv = "!pto.tensor_view<?x?x" + e + ">", pv = "!pto.partition_tensor_view<?x?x" + e + ">";
    k += std::string("  %") + P + "v = pto.make_tensor_view %" + P + ", shape = [%" + R + ", %" + C + "], strides = [%" +
         ld + ", %c1] : " + tv + "\n";
    k += std::string("  %") + P + "p = pto.partition_view %" + P + "v, offsets = [%c0, %c0], sizes = [%" + R + ", %" +
         C + "] : " + tv + " -> " + pv + "\n";
    return pv;
  };
  std::string apv = view("a", d, "AR", "AC", "lda"), bpv = view("b", d, "BR", "BC", "ldb"),
              cpv = view("c", od, "M", "N", "ldc");
  k += "  %al = pto.alloc_tile valid_row = %M valid_col = %K : " + al + "\n";
  k += "  %br = pto.alloc_tile valid_row = %KB valid_col = %N : " + br + "\n";
  k += "  %acc = pto.alloc_tile valid_row = %M valid_col = %N : " + acc + "\n";
  k += "  pto.tload ins(%ap : " + apv + ") outs(%al : " + al + ")\n";
  k += "  pto.tload ins(%bp : " + bpv + ") outs(%br : " + br + ")\n";
  k += "  pto.tmatmul ins(%al, %br : " + al + ", " + br + ") outs(%acc : " + acc + ")\n";
  k += "  pto.tstore ins(%acc : " + acc + ") outs(%cp : " + cpv + ")\n  return\n}\n";
  size_t n = std::max({size_t(ar) * size_t(lda), size_t(bro) * size_t(ldb), size_t(M) * size_t(ldc)});
  std::string name = "tmatmul tload " + d + " " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                     std::to_string(K) + " of " + std::to_string(TM) + "x" + std::to_string(TN) + "x" +
                     std::to_string(TK) + " lda " + std::to_string(lda) + " ldb " + std::to_string(ldb) +
                     (whole ? " whole" : "") + (kb != K ? " B rows " + std::to_string(kb) : "");
  DType in = parse_dtype(d), o = parse_dtype(od);
  Case c = abc_case(name, k, in, o, n, size_t(ldc), o, 0);
  fill_moderate(c, n, 12345);
  if (o != DType::F32) {
    out.push_back(std::move(c));
    return;
  }
  std::vector<uint8_t> av = c.bufs[0].data, bv = c.bufs[1].data;
  c.tolerate = [=](size_t b, size_t i, uint64_t ref, uint64_t got) {
    size_t r = i / size_t(ldc), j = i % size_t(ldc);
    if (b != 2 || r >= size_t(M) || j >= size_t(N)) return false;
    double fr = elem_value(DType::F32, ref), fg = elem_value(DType::F32, got), sum = 0;
    for (size_t p = 0; p < size_t(kb); ++p)
      sum += std::fabs(elem_value(in, load_elem(av, in, r * size_t(lda) + p)) *
                       elem_value(in, load_elem(bv, in, p * size_t(ldb) + j)));
    if (!(sum < 1.0e38)) return true;
    if (std::isnan(fr) || std::isnan(fg)) return std::isnan(fr) && std::isnan(fg);
    return std::fabs(fg - fr) <= double(K + 2) * 0x1p-23 * sum;
  };
  out.push_back(std::move(c));
}

// Three iterations of tload A / tload B / tmatmul / tstore into tiles
// allocated before the loop, A's view read in place in the first and the
// third (row stride K, the tile's) and copied in the second (row stride
// K + 3): the copy must land in the tile, not in the first view (the
// third product would read it). C gets the three products stacked.
void add_matmul_tload_loop(std::vector<Case>& out) {
  const int M = 16, N = 32, K = 32, ldb = N, ldc = N + 1;
  std::string al = "!pto.tile_buf<left, 16x32xf32, valid=?x?, blayout=row_major, slayout=none_box>";
  std::string br = "!pto.tile_buf<right, 32x32xf32, valid=?x?, blayout=row_major, slayout=none_box>";
  std::string acc = "!pto.tile_buf<acc, 16x32xf32, valid=?x?, blayout=row_major, slayout=none_box>";
  std::string tv = "!pto.tensor_view<?x?xf32>", pv = "!pto.partition_tensor_view<?x?xf32>";
  auto cst = [](const char* n, int v) { return std::string("  %") + n + " = arith.constant " + std::to_string(v) + " : index\n"; };
  std::string k = "func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %c: !pto.ptr<f32>, %s: f32) attributes {pto.entry} {\n";
  k += cst("c0", 0) + cst("c1", 1) + cst("c2", 2) + cst("c3", 3) + cst("M", M) + cst("M3", 3 * M) + cst("N", N) +
       cst("K", K) + cst("ldb", ldb) + cst("ldc", ldc);
  k += "  %bv = pto.make_tensor_view %b, shape = [%K, %N], strides = [%ldb, %c1] : " + tv + "\n";
  k += "  %cv = pto.make_tensor_view %c, shape = [%M3, %N], strides = [%ldc, %c1] : " + tv + "\n";
  k += "  %al = pto.alloc_tile valid_row = %M valid_col = %K : " + al + "\n";
  k += "  %br = pto.alloc_tile valid_row = %K valid_col = %N : " + br + "\n";
  k += "  %acc = pto.alloc_tile valid_row = %M valid_col = %N : " + acc + "\n";
  k += "  scf.for %i = %c0 to %c3 step %c1 {\n";
  k += "    %odd = arith.remui %i, %c2 : index\n    %d = arith.muli %odd, %c3 : index\n";
  k += "    %lda = arith.addi %K, %d : index\n";
  k += "    %r0 = arith.muli %i, %M : index\n";
  k += "    %av = pto.make_tensor_view %a, shape = [%M, %K], strides = [%lda, %c1] : " + tv + "\n";
  k += "    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%M, %K] : " + tv + " -> " + pv + "\n";
  k += "    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%K, %N] : " + tv + " -> " + pv + "\n";
  k += "    %cp = pto.partition_view %cv, offsets = [%r0, %c0], sizes = [%M, %N] : " + tv + " -> " + pv + "\n";
  k += "    pto.tload ins(%ap : " + pv + ") outs(%al : " + al + ")\n";
  k += "    pto.tload ins(%bp : " + pv + ") outs(%br : " + br + ")\n";
  k += "    pto.tmatmul ins(%al, %br : " + al + ", " + br + ") outs(%acc : " + acc + ")\n";
  k += "    pto.tstore ins(%acc : " + acc + ") outs(%cp : " + pv + ")\n  }\n  return\n}\n";
  size_t n = size_t(3 * M) * size_t(ldc) + size_t(M) * size_t(K + 3);
  Case c = abc_case("tmatmul tload f32 in place then copied, one tile", k, DType::F32, DType::F32, n, size_t(ldc),
                    DType::F32, 0);
  fill_moderate(c, n, 777);
  std::vector<uint8_t> av = c.bufs[0].data, bv = c.bufs[1].data;
  c.tolerate = [=](size_t b, size_t i, uint64_t ref, uint64_t got) {
    size_t r = i / size_t(ldc), j = i % size_t(ldc);
    if (b != 2 || r >= size_t(3 * M) || j >= size_t(N)) return false;
    size_t lda = size_t(K) + (r / size_t(M) == 1 ? 3 : 0), ra = r % size_t(M);
    double fr = elem_value(DType::F32, ref), fg = elem_value(DType::F32, got), sum = 0;
    for (size_t p = 0; p < size_t(K); ++p)
      sum += std::fabs(elem_value(DType::F32, load_elem(av, DType::F32, ra * lda + p)) *
                       elem_value(DType::F32, load_elem(bv, DType::F32, p * size_t(ldb) + j)));
    return std::fabs(fg - fr) <= double(K + 2) * 0x1p-23 * sum;
  };
  out.push_back(std::move(c));
}

// An acc tile that tmatmuls fill and one tstore writes out: 32 x 32 x
// (steps x 16), tmatmul on the first 16-deep step, tmatmul.acc on the
// others (in a loop), for `tiles` output tiles stacked in C's rows, tile
// t's C row stride ld[t % 2]. From -O1 the tmatmuls write C in place when
// its view has the tile's shape and row stride and no other tensor view
// meets it (plan_acc_stores). `alias` 1 builds C's tensor view on A's
// buffer, 2 builds B's tensor view on C's buffer: both must be copied.
void add_matmul_store(std::vector<Case>& out, int steps, int tiles, int ld0, int ld1, int alias) {
  const int M = 32, N = 32, Kd = 16, K = Kd * steps, ld[2] = {ld0, ld1};
  std::string al = "!pto.tile_buf<left, 32x16xf32, blayout=row_major, slayout=none_box>";
  std::string br = "!pto.tile_buf<right, 16x32xf32, blayout=row_major, slayout=none_box>";
  std::string acc = "!pto.tile_buf<acc, 32x32xf32, blayout=row_major, slayout=none_box>";
  std::string tv = "!pto.tensor_view<?x?xf32>", pv = "!pto.partition_tensor_view<?x?xf32>";
  auto cst = [](const char* n, int v) { return std::string("  %") + n + " = arith.constant " + std::to_string(v) + " : index\n"; };
  auto part = [&](const char* res, const char* src, const std::string& r0, const std::string& c0, const char* rows,
                  const char* cols) {
    return std::string("    %") + res + " = pto.partition_view %" + src + ", offsets = [" + r0 + ", " + c0 +
           "], sizes = [%" + rows + ", %" + cols + "] : " + tv + " -> " + pv + "\n";
  };
  auto mm = [&](const char* sfx, const std::string& k0, bool accumulate) {
    std::string s = part((std::string("ap") + sfx).c_str(), "av", "%c0", k0, "M", "Kd");
    s += part((std::string("bp") + sfx).c_str(), "bv", k0, "%c0", "Kd", "N");
    s += std::string("    %al") + sfx + " = pto.alloc_tile : " + al + "\n    %br" + sfx + " = pto.alloc_tile : " + br + "\n";
    s += std::string("    pto.tload ins(%ap") + sfx + " : " + pv + ") outs(%al" + sfx + " : " + al + ")\n";
    s += std::string("    pto.tload ins(%bp") + sfx + " : " + pv + ") outs(%br" + sfx + " : " + br + ")\n";
    if (accumulate)
      s += std::string("    pto.tmatmul.acc ins(%acc, %al") + sfx + ", %br" + sfx + " : " + acc + ", " + al + ", " + br +
           ") outs(%acc : " + acc + ")\n";
    else
      s += std::string("    pto.tmatmul ins(%al") + sfx + ", %br" + sfx + " : " + al + ", " + br + ") outs(%acc : " + acc +
           ")\n";
    return s;
  };
  std::string k = "func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %c: !pto.ptr<f32>, %s: f32) attributes {pto.entry} {\n";
  k += cst("c0", 0) + cst("c1", 1) + cst("c2", 2) + cst("M", M) + cst("N", N) + cst("Kd", Kd) + cst("K", K) +
       cst("steps", steps) + cst("tiles", tiles) + cst("CR", tiles * M) + cst("ld0", ld0) + cst("dld", ld1 - ld0);
  k += std::string("  %av = pto.make_tensor_view %a, shape = [%M, %K], strides = [%K, %c1] : ") + tv + "\n";
  k += std::string("  %bv = pto.make_tensor_view ") + (alias == 2 ? "%c" : "%b") +
       ", shape = [%K, %N], strides = [%N, %c1] : " + tv + "\n";
  k += "  %acc = pto.alloc_tile : " + acc + "\n";  // one for all tiles: its slot must be restored
  k += "  scf.for %t = %c0 to %tiles step %c1 {\n";
  k += "    %odd = arith.remui %t, %c2 : index\n    %x = arith.muli %odd, %dld : index\n";
  k += "    %ldc = arith.addi %ld0, %x : index\n";
  k += std::string("    %cv = pto.make_tensor_view ") + (alias == 1 ? "%a" : "%c") +
       ", shape = [%CR, %N], strides = [%ldc, %c1] : " + tv + "\n";
  k += mm("0", "%c0", false);
  k += "    scf.for %kk = %c1 to %steps step %c1 {\n    %k0 = arith.muli %kk, %Kd : index\n";
  k += mm("1", "%k0", true) + "    }\n";
  k += "    %r0 = arith.muli %t, %M : index\n" + part("cp", "cv", "%r0", "%c0", "M", "N");
  k += "    pto.tstore ins(%acc : " + acc + ") outs(%cp : " + pv + ")\n  }\n  return\n}\n";
  size_t n = std::max({size_t(M) * size_t(K), size_t(K) * size_t(N), size_t(tiles * M) * size_t(std::max(ld0, ld1))});
  std::string name = "tmatmul acc stored " + std::to_string(steps) + " steps, " + std::to_string(tiles) +
                     " tiles, ldc " + std::to_string(ld0) + (tiles > 1 ? "/" + std::to_string(ld1) : "") +
                     (alias == 1 ? ", C on A" : alias == 2 ? ", B on C" : "");
  Case c = abc_case(name, k, DType::F32, DType::F32, n, size_t(ld0), DType::F32, 0);
  fill_moderate(c, n, 4242u + unsigned(steps * 7 + tiles + alias));
  if (alias == 2) c.bufs[2].data = c.bufs[1].data;  // B's values, in C's buffer
  const size_t ob = alias == 1 ? 0 : 2;
  c.bufs[ob].output = true;
  std::vector<uint8_t> av = c.bufs[0].data, bv = c.bufs[alias == 2 ? 2 : 1].data;
  c.tolerate = [=](size_t b, size_t i, uint64_t ref, uint64_t got) {
    if (b != ob) return false;
    for (size_t t = 0; t < size_t(tiles); ++t) {
      size_t l = size_t(ld[t % 2]), base = t * size_t(M) * l;
      if (i < base || i - base >= size_t(M) * l || (i - base) % l >= size_t(N)) continue;
      size_t r = (i - base) / l, j = (i - base) % l;
      double fr = elem_value(DType::F32, ref), fg = elem_value(DType::F32, got), sum = 0;
      for (size_t p = 0; p < size_t(K); ++p)
        sum += std::fabs(elem_value(DType::F32, load_elem(av, DType::F32, r * size_t(K) + p)) *
                         elem_value(DType::F32, load_elem(bv, DType::F32, p * size_t(N) + j)));
      return std::fabs(fg - fr) <= double(K + 2) * 0x1p-23 * sum;
    }
    return false;
  };
  out.push_back(std::move(c));
}

void add_ttri(std::vector<Case>& out, const Shape& s, bool upper, int diag, const std::string& dt = "f32") {
  std::string tile =
      "!pto.tile_buf<vec, " + std::to_string(s.rows) + "x" + std::to_string(s.cols) + "x" + dt + ", valid=?x?>";
  std::string tv = "!pto.tensor_view<?x?x" + dt + ">", pv = "!pto.partition_tensor_view<?x?x" + dt + ">";
  std::string k = "func.func @k(%a: !pto.ptr<" + dt + ">, %b: !pto.ptr<" + dt + ">, %c: !pto.ptr<" + dt +
                  ">, %s: f32) attributes {pto.entry} {\n";
  k += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n";
  k += "  %R = arith.constant " + std::to_string(s.vr) + " : index\n";
  k += "  %C = arith.constant " + std::to_string(s.vc) + " : index\n";
  k += "  %ld = arith.constant " + std::to_string(s.cols + 3) + " : index\n";
  k += "  %d = arith.constant " + std::to_string(diag) + " : i32\n";
  k += "  %cv = pto.make_tensor_view %c, shape = [%R, %C], strides = [%ld, %c1] : " + tv + "\n";
  k += "  %cp = pto.partition_view %cv, offsets = [%c0, %c0], sizes = [%R, %C] : " + tv + " -> " + pv + "\n";
  k += "  %t = pto.alloc_tile valid_row = %R valid_col = %C : " + tile + "\n";
  k += std::string("  pto.ttri ins(%d ") + (upper ? "{upperOrLower = 1 : i32} " : "") + ": i32) outs(%t : " + tile +
       ")\n";
  k += "  pto.tstore ins(%t : " + tile + ") outs(%cp : " + pv + ")\n  return\n}\n";
  DType d = parse_dtype(dt);
  out.push_back(abc_case(std::string("ttri ") + dt + (upper ? " upper " : " lower ") + std::to_string(diag) + " " +
                             s.name,
                         k, d, d, size_t(s.cols + 3) * size_t(s.vr + 1), size_t(s.cols + 3), DType::F32, 0));
}

// treshape: a loaded R x C tile seen as (R*C/W) x W, then tadds 1 through
// the new shape and stored with it (the reshape aliases, no copy).
void add_treshape(std::vector<Case>& out, int R, int C, int W) {
  int R2 = R * C / W;
  std::string t1 = "!pto.tile_buf<vec, " + std::to_string(R) + "x" + std::to_string(C) + "xf32>";
  std::string t2 = "!pto.tile_buf<vec, " + std::to_string(R2) + "x" + std::to_string(W) + "xf32>";
  std::string tv = "!pto.tensor_view<?x?xf32>", pv = "!pto.partition_tensor_view<?x?xf32>";
  std::string k = "func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %c: !pto.ptr<f32>, %s: f32) attributes {pto.entry} {\n";
  k += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n";
  k += "  %R = arith.constant " + std::to_string(R) + " : index\n  %C = arith.constant " + std::to_string(C) + " : index\n";
  k += "  %R2 = arith.constant " + std::to_string(R2) + " : index\n  %W = arith.constant " + std::to_string(W) + " : index\n";
  k += "  %av = pto.make_tensor_view %a, shape = [%R, %C], strides = [%C, %c1] : " + tv + "\n";
  k += "  %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%R, %C] : " + tv + " -> " + pv + "\n";
  k += "  %cv = pto.make_tensor_view %c, shape = [%R2, %W], strides = [%W, %c1] : " + tv + "\n";
  k += "  %cp = pto.partition_view %cv, offsets = [%c0, %c0], sizes = [%R2, %W] : " + tv + " -> " + pv + "\n";
  k += "  %t1 = pto.alloc_tile : " + t1 + "\n  pto.tload ins(%ap : " + pv + ") outs(%t1 : " + t1 + ")\n";
  k += "  %t2 = pto.alloc_tile : " + t2 + "\n  pto.treshape ins(%t1 : " + t1 + ") outs(%t2 : " + t2 + ")\n";
  k += "  %t3 = pto.alloc_tile : " + t2 + "\n  pto.tadds ins(%t2, %s : " + t2 + ", f32) outs(%t3 : " + t2 + ")\n";
  k += "  pto.tstore ins(%t3 : " + t2 + ") outs(%cp : " + pv + ")\n  return\n}\n";
  size_t n = size_t(R) * size_t(C) + 64;
  out.push_back(abc_case("treshape " + std::to_string(R) + "x" + std::to_string(C) + " as " + std::to_string(R2) + "x" +
                             std::to_string(W),
                         k, DType::F32, DType::F32, n, size_t(C), DType::F32, 0x3f800000u));
}

// ttrans (a R x C region of an 16 x 64 tile into a 64 x W tile) and tconcat
// (C1 then C2 columns), in element type dt, bits compared.
void add_trans_concat(std::vector<Case>& out, const std::string& dt, int R, int C, int C2) {
  DType d = parse_dtype(dt);
  std::string src = "!pto.tile_buf<vec, 16x64x" + dt + ", valid=?x?>";
  std::string tv = "!pto.tensor_view<?x?x" + dt + ">", pv = "!pto.partition_tensor_view<?x?x" + dt + ">";
  std::string k = "func.func @k(%a: !pto.ptr<" + dt + ">, %b: !pto.ptr<" + dt + ">, %c: !pto.ptr<" + dt +
                  ">, %s: f32) attributes {pto.entry} {\n";
  k += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %ld = arith.constant 64 : index\n";
  k += "  %R = arith.constant " + std::to_string(R) + " : index\n  %C = arith.constant " + std::to_string(C) +
       " : index\n";
  std::string name;
  if (C2 < 0) {  // ttrans: c is C x R
    int w = int(std::max<size_t>(32 / dtype_bytes(d), 16));
    std::string dst = "!pto.tile_buf<vec, 64x" + std::to_string(w) + "x" + dt + ", valid=?x?>";
    k += view("a", "a", "%R, %C", "%ld, %c1", dt) + view("c", "c", "%C, %R", "%ld, %c1", dt);
    k += "  %ta = pto.alloc_tile valid_row = %R valid_col = %C : " + src + "\n";
    k += "  pto.tload ins(%ap : " + pv + ") outs(%ta : " + src + ")\n";
    k += "  %tc = pto.alloc_tile valid_row = %C valid_col = %R : " + dst + "\n";
    k += "  pto.ttrans ins(%ta : " + src + ") outs(%tc : " + dst + ")\n";
    k += "  pto.tstore ins(%tc : " + dst + ") outs(%cp : " + pv + ")\n  return\n}\n";
    name = "ttrans " + dt + " " + std::to_string(R) + "x" + std::to_string(C);
  } else {
    k += "  %C2 = arith.constant " + std::to_string(C2) + " : index\n  %CS = arith.constant " +
         std::to_string(C + C2) + " : index\n";
    k += view("a", "a", "%R, %C", "%ld, %c1", dt) + view("b", "b", "%R, %C2", "%ld, %c1", dt) +
         view("c", "c", "%R, %CS", "%ld, %c1", dt);
    k += "  %ta = pto.alloc_tile valid_row = %R valid_col = %C : " + src + "\n";
    k += "  pto.tload ins(%ap : " + pv + ") outs(%ta : " + src + ")\n";
    k += "  %tb = pto.alloc_tile valid_row = %R valid_col = %C2 : " + src + "\n";
    k += "  pto.tload ins(%bp : " + pv + ") outs(%tb : " + src + ")\n";
    k += "  %tc = pto.alloc_tile valid_row = %R valid_col = %CS : " + src + "\n";
    k += "  pto.tconcat ins(%ta, %tb : " + src + ", " + src + ") outs(%tc : " + src + ")\n";
    k += "  pto.tstore ins(%tc : " + src + ") outs(%cp : " + pv + ")\n  return\n}\n";
    name = "tconcat " + dt + " " + std::to_string(R) + "x(" + std::to_string(C) + "+" + std::to_string(C2) + ")";
  }
  out.push_back(abc_case(name, k, d, d, size_t(64) * 66, 64, DType::F32, 0));
}

// Layout copies: a view (rows or columns contiguous) tload-ed into a mat
// tile of layout l1, tmov-ed into one of layout l2 and tstore-d to a view;
// every pairing of ND, DN, NZ, ZN, NN and ZZ, so that the vector runs of
// x86/layout.cpp (along rows and down columns) and the element path all run.
void add_layout_copy(std::vector<Case>& out, const std::string& dt, int l1, int l2, bool in_cols, bool out_cols,
                     int R, int C) {
  static const char* const lay[6][2] = {{"nd", ", blayout=row_major, slayout=none_box"},
                                        {"dn", ", blayout=col_major, slayout=none_box"},
                                        {"nz", ", blayout=col_major, slayout=row_major"},
                                        {"zn", ", blayout=row_major, slayout=col_major"},
                                        {"nn", ", blayout=row_major, slayout=row_major"},
                                        {"zz", ", blayout=col_major, slayout=col_major"}};
  DType d = parse_dtype(dt);
  auto tile = [&](int l) { return "!pto.tile_buf<mat, 32x64x" + dt + ", valid=?x?" + lay[l][1] + ">"; };
  std::string t1 = tile(l1), t2 = tile(l2), pv = "!pto.partition_tensor_view<?x?x" + dt + ">";
  std::string k = "func.func @k(%a: !pto.ptr<" + dt + ">, %b: !pto.ptr<" + dt + ">, %c: !pto.ptr<" + dt +
                  ">, %s: f32) attributes {pto.entry} {\n";
  k += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %ld = arith.constant 70 : index\n";
  k += "  %R = arith.constant " + std::to_string(R) + " : index\n  %C = arith.constant " + std::to_string(C) +
       " : index\n";
  k += view("a", "a", "%R, %C", in_cols ? "%c1, %ld" : "%ld, %c1", dt) +
       view("c", "c", "%R, %C", out_cols ? "%c1, %ld" : "%ld, %c1", dt);
  k += "  %t1 = pto.alloc_tile valid_row = %R valid_col = %C : " + t1 + "\n";
  k += "  pto.tload ins(%ap : " + pv + ") outs(%t1 : " + t1 + ")\n";
  k += "  %t2 = pto.alloc_tile valid_row = %R valid_col = %C : " + t2 + "\n";
  k += "  pto.tmov ins(%t1 : " + t1 + ") outs(%t2 : " + t2 + ")\n";
  k += "  pto.tstore ins(%t2 : " + t2 + ") outs(%cp : " + pv + ")\n  return\n}\n";
  std::string name = "layout copy " + dt + " " + std::to_string(R) + "x" + std::to_string(C) + " " +
                     (in_cols ? "cview" : "rview") + "->" + lay[l1][0] + "->" + lay[l2][0] + "->" +
                     (out_cols ? "cview" : "rview");
  out.push_back(abc_case(name, k, d, d, size_t(70) * 70, 70, DType::F32, 0));
}

// ---- scalar ops and control flow ---------------------------------------------------
struct ScalarKernel {
  std::string body;
  std::vector<std::string> outs_i, outs_f;  // SSA names of i32 / f32 results
};

ScalarKernel scalar_kernel() {
  ScalarKernel k;
  std::string& b = k.body;
  auto I = [&](const std::string& n, const std::string& e) { b += "  %" + n + " = " + e + "\n"; k.outs_i.push_back(n); };
  auto F = [&](const std::string& n, const std::string& e) { b += "  %" + n + " = " + e + "\n"; k.outs_f.push_back(n); };
  auto T = [&](const std::string& n, const std::string& e) { b += "  %" + n + " = " + e + "\n"; };
  T("c31", "arith.constant 31 : i32");
  T("sh", "arith.andi %b, %c31 : i32");
  for (const char* o : {"addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "ceildivsi",
                        "floordivsi", "minsi", "maxsi", "minui", "maxui", "andi", "ori", "xori"})
    I(std::string("r_") + o, std::string("arith.") + o + " %a, %b : i32");
  for (const char* o : {"shli", "shrsi", "shrui"}) I(std::string("r_") + o, std::string("arith.") + o + " %a, %sh : i32");
  for (const char* p : {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}) {
    T(std::string("ci_") + p, std::string("arith.cmpi ") + p + ", %a, %b : i32");
    I(std::string("ri_") + p, std::string("arith.extui %ci_") + p + " : i1 to i32");
  }
  for (const char* o : {"addf", "subf", "mulf", "divf", "maximumf", "minimumf"})
    F(std::string("f_") + o, std::string("arith.") + o + " %x, %y : f32");
  F("f_negf", "arith.negf %x : f32");
  for (const char* p : {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge",
                        "ult", "ule", "une", "uno", "true"}) {
    T(std::string("cf_") + p, std::string("arith.cmpf ") + p + ", %x, %y : f32");
    I(std::string("rf_") + p, std::string("arith.extui %cf_") + p + " : i1 to i32");
  }
  F("f_sitofp", "arith.sitofp %a : i32 to f32");
  T("a64", "arith.extsi %a : i32 to i64");
  T("a64f", "arith.sitofp %a64 : i64 to f32");
  F("f_sitofp64", "arith.addf %a64f, %y : f32");
  T("xi", "arith.index_cast %n : index to i32");
  I("r_idx", "arith.muli %xi, %a : i32");
  T("sel_c", "arith.cmpi slt, %a, %b : i32");
  I("r_select", "arith.select %sel_c, %a, %b : i32");
  T("x8", "arith.trunci %a : i32 to i8");
  I("r_trunc8", "arith.extsi %x8 : i8 to i32");
  I("r_trunc8u", "arith.extui %x8 : i8 to i32");
  T("bits", "arith.bitcast %x : f32 to i32");
  I("r_bitcast", "arith.xori %bits, %b : i32");
  // Control flow: if with results, for with iteration values, while.
  T("c0", "arith.constant 0 : index");
  T("c1", "arith.constant 1 : index");
  T("c1i", "arith.constant 1 : i32");
  b += "  %r_if = scf.if %sel_c -> (i32) {\n    %t1 = arith.addi %a, %c1i : i32\n    scf.yield %t1 : i32\n"
       "  } else {\n    %t2 = arith.subi %b, %c1i : i32\n    scf.yield %t2 : i32\n  }\n";
  k.outs_i.push_back("r_if");
  b += "  %r_for:2 = scf.for %i = %c0 to %n step %c1 iter_args(%u = %a, %v = %b) -> (i32, i32) {\n"
       "    %w = arith.addi %u, %v : i32\n    scf.yield %v, %w : i32, i32\n  }\n";
  k.outs_i.push_back("r_for#0");
  k.outs_i.push_back("r_for#1");
  b += "  %r_wh:2 = scf.while (%p = %c0, %acc = %b) : (index, i32) -> (index, i32) {\n"
       "    %lt = arith.cmpi slt, %p, %n : index\n    scf.condition(%lt) %p, %acc : index, i32\n"
       "  } do {\n  ^bb0(%p2: index, %acc2: i32):\n    %p3 = arith.addi %p2, %c1 : index\n"
       "    %acc3 = arith.muli %acc2, %a : i32\n    %acc4 = arith.xori %acc3, %c31 : i32\n"
       "    scf.yield %p3, %acc4 : index, i32\n  }\n";
  k.outs_i.push_back("r_wh#1");
  F("f_loopf", "arith.mulf %x, %x : f32");
  return k;
}

void add_scalar(std::vector<Case>& out, int32_t a, int32_t bv, uint32_t xb, uint32_t yb, int64_t n) {
  ScalarKernel sk = scalar_kernel();
  size_t ni = sk.outs_i.size(), nf = sk.outs_f.size();
  std::string t = "func.func @s(%oi: !pto.ptr<i32>, %of: !pto.ptr<f32>, %a: i32, %b: i32, %x: f32, %y: f32, "
                  "%n: index) attributes {pto.entry} {\n" + sk.body;
  t += "  %k8 = arith.constant 8 : index\n  %kone = arith.constant 1 : index\n  %kzero = arith.constant 0 : index\n";
  t += "  %NI = arith.constant " + std::to_string(ni) + " : index\n";
  t += "  %NF = arith.constant " + std::to_string(nf) + " : index\n";
  t += "  %vi = pto.make_tensor_view %oi, shape = [%NI, %k8], strides = [%k8, %kone] : !pto.tensor_view<?x?xi32>\n";
  t += "  %vf = pto.make_tensor_view %of, shape = [%NF, %k8], strides = [%k8, %kone] : !pto.tensor_view<?x?xf32>\n";
  auto emit = [&](const std::vector<std::string>& names, const std::string& dt, const char* view) {
    for (size_t r = 0; r < names.size(); ++r) {
      std::string rs = std::to_string(r), tile = "!pto.tile_buf<vec, 1x8x" + dt + ">";
      std::string pv = "!pto.partition_tensor_view<?x?x" + dt + ">", tv = "!pto.tensor_view<?x?x" + dt + ">";
      t += "  %row" + dt + rs + " = arith.constant " + rs + " : index\n";
      t += "  %pv" + dt + rs + " = pto.partition_view %" + view + ", offsets = [%row" + dt + rs +
           ", %kzero], sizes = [%kone, %k8] : " + tv + " -> " + pv + "\n";
      t += "  %tl" + dt + rs + " = pto.alloc_tile : " + tile + "\n";
      t += "  pto.texpands ins(%" + names[r] + " : " + dt + ") outs(%tl" + dt + rs + " : " + tile + ")\n";
      t += "  pto.tstore ins(%tl" + dt + rs + " : " + tile + ") outs(%pv" + dt + rs + " : " + pv + ")\n";
    }
  };
  emit(sk.outs_i, "i32", "vi");
  emit(sk.outs_f, "f32", "vf");
  t += "  return\n}\n";
  char nm[96];
  std::snprintf(nm, sizeof nm, "scalars (a=%d b=%d x=0x%08x y=0x%08x n=%lld)", a, bv, xb, yb, (long long)n);
  Case c;
  c.name = nm;
  c.text = t;
  c.bufs.push_back(make_buffer("oi", DType::I32, ni * 8, 8, true));
  c.bufs.push_back(make_buffer("of", DType::F32, nf * 8, 8, true));
  c.params = {Param{0, {}}, Param{1, {}}, Param{-1, scalar_arg(DType::I32, uint32_t(a))},
              Param{-1, scalar_arg(DType::I32, uint32_t(bv))}, Param{-1, scalar_arg(DType::F32, xb)},
              Param{-1, scalar_arg(DType::F32, yb)}, Param{-1, {}}};
  c.params[6].scalar.i = n;
  c.where = [sk](size_t b, size_t i) { return "%" + (b == 0 ? sk.outs_i : sk.outs_f)[i / 8]; };
  // With two NaN operands IEEE leaves the payload open, and the
  // interpreter's scalar addf/mulf return whichever operand g++ put first
  // (it commutes them); only NaN-ness is compared there.
  auto is_nan = [](uint64_t v) { return (v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffffu); };
  bool both_nan = is_nan(xb) && is_nan(yb);
  c.tolerate = [sk, both_nan, is_nan](size_t b, size_t i, uint64_t ref, uint64_t got) {
    if (b != 1 || !both_nan) return false;
    const std::string& nm = sk.outs_f[i / 8];
    return (nm == "f_addf" || nm == "f_mulf") && is_nan(ref) && is_nan(got);
  };
  out.push_back(std::move(c));
}

}  // namespace

void misc_cases(std::vector<Case>& out) {
  for (const Shape& s : shapes()) {
    add_cvt(out, s, true);
    add_cvt(out, s, false);
  }
  // Scalars: divisors never 0 (a runtime error in the interpreter).
  const int32_t ia[] = {7, -7, 2147483647, -2147483647 - 1, 0, 100000, -1};
  const int32_t ib[] = {2, -3, 1, -1, 33, 2147483647, -2147483647 - 1};
  const uint32_t fx[] = {0x3fc00000u, 0x7fc00000u, 0x80000000u, 0x7f800000u, 0x00000001u, 0xc2c80000u, 0x7fc12345u};
  const uint32_t fy[] = {0x40000000u, 0x3f800000u, 0x00000000u, 0x7f800000u, 0xffc00000u, 0xc2c80000u, 0x80000000u};
  for (size_t i = 0; i < 7; ++i)
    for (size_t j = 0; j < 7; ++j) add_scalar(out, ia[i], ib[j], fx[(i + j) % 7], fy[(i * 3 + j) % 7], int64_t(j));
  for (const char* dt : {"f32", "bf16", "f16", "i8"})
    for (int mode = 0; mode < 3; ++mode) {
      add_matmul(out, dt, 32, 32, 64, mode, false);
      add_matmul(out, dt, 17, 29, 45, mode, mode == 1);
      add_matmul(out, dt, 1, 1, 1, mode, false);
      add_matmul(out, dt, 31, 7, 3, mode, true);
      add_matmul(out, dt, 1, 33, 19, mode, false, MmLay::Nd, true);
      add_matmul(out, dt, 29, 1, 70, mode, mode == 2, MmLay::Dn, true);
      add_matmul(out, dt, 64, 80, 100, mode, false, MmLay::Nd, true);
      add_matmul(out, dt, 13, 48, 33, mode, mode == 0, MmLay::Dn, true);
      add_matmul(out, dt, 40, 35, 27, mode, false, MmLay::Boxed, true);
      add_matmul(out, dt, 23, 17, 50, mode, false, MmLay::Nd, true, true);
      add_matmul(out, dt, 25, 40, 9, mode, mode == 1, MmLay::Boxed, true, true);
      add_matmul(out, dt, 19, 37, 21, mode, mode == 2, MmLay::Mixed, true);
    }
  add_matmul_tload(out, "f32", 32, 32, 64, 32, 32, 64, 64, 32);     // both in place (-O2)
  add_matmul_tload(out, "f32", 32, 32, 64, 32, 32, 64, 69, 32);     // A in place at its row stride
  add_matmul_tload(out, "f32", 29, 27, 61, 32, 32, 64, 64, 32);     // both copied: views smaller than the tiles
  add_matmul_tload(out, "f32", 64, 96, 128, 64, 96, 128, 128, 96);  // in place, a 4-row last panel
  add_matmul_tload(out, "f32", 64, 96, 128, 64, 96, 128, 128, 97);  // B copied
  add_matmul_tload(out, "f32", 61, 96, 128, 64, 96, 128, 131, 96, true);  // A strided, m short: a packed panel
  add_matmul_tload(out, "f32", 23, 48, 40, 23, 48, 40, 45, 50);            // A strided, rows 0 .. 10 / 4 last
  add_matmul_tload(out, "bf16", 48, 40, 64, 48, 48, 64, 70, 53, true);     // both packed from the views
  add_matmul_tload(out, "bf16", 45, 40, 60, 48, 48, 64, 70, 53, true);     // m and k short of the tiles
  add_matmul_tload(out, "i8", 24, 40, 37, 24, 64, 64, 70, 67, true);       // odd k: B's pair table at a stride
  // B's view covers its tile but its valid rows do not cover k: copied.
  add_matmul_tload(out, "f32", 32, 32, 64, 32, 32, 64, 64, 32, true, 50);  // laid out as the tile
  add_matmul_tload(out, "bf16", 48, 40, 64, 48, 48, 64, 70, 53, true, 33);  // strided
  add_matmul_tload_loop(out);
  add_matmul_store(out, 1, 1, 32, 32, 0);  // tmatmul, tstore: C in place (-O1 and up)
  add_matmul_store(out, 3, 1, 32, 32, 0);  // a k loop between, C's partition made early
  add_matmul_store(out, 2, 1, 35, 35, 0);  // copied: C's row stride
  add_matmul_store(out, 2, 2, 32, 35, 0);  // in place, then copied: the tile's slot restored
  add_matmul_store(out, 2, 1, 32, 32, 1);  // copied: C's tensor on A's buffer
  add_matmul_store(out, 3, 1, 32, 32, 2);  // copied: B's tensor on C's buffer
  add_treshape(out, 8, 64, 32);
  for (const char* dt : {"f32", "f16", "i8", "i32", "bf16"}) {
    for (auto [r, c] : {std::pair{16, 64}, {5, 37}, {1, 5}, {13, 3}, {16, 16}}) add_trans_concat(out, dt, r, c, -1);
    for (auto [c, c2] : {std::pair{16, 16}, {13, 7}, {1, 3}, {30, 34}}) add_trans_concat(out, dt, 5, c, c2);
  }
  add_treshape(out, 16, 16, 64);
  for (int l1 = 0; l1 < 6; ++l1)
    for (int l2 = 0; l2 < 6; ++l2) {
      for (int o = 0; o < 4; ++o) add_layout_copy(out, "f32", l1, l2, o & 1, o & 2, 13, 37);
      int o = l1 + l2;
      add_layout_copy(out, "f32", l1, l2, o & 1, o & 2, 32, 64);
      add_layout_copy(out, "f16", l1, l2, o & 2, o & 1, 17, 40);
      add_layout_copy(out, "i8", l1, l2, o & 1, !(o & 2), 32, 64);
      add_layout_copy(out, "i8", l1, l2, !(o & 1), o & 2, 3, 50);
    }
  // Diagonals inside the tile, past either side of it, and i32's extremes.
  for (const Shape& s : shapes())
    for (int diag : {0, 2, -1, 130, -140, INT32_MAX, INT32_MIN}) {
      add_ttri(out, s, false, diag);
      add_ttri(out, s, true, diag);
      if (s.name == std::string("ragged") || s.name == std::string("big")) {
        add_ttri(out, s, false, diag, "i32");
        add_ttri(out, s, true, diag, "i32");
      }
    }
}

}  // namespace x86diff
