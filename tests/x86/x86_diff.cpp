// Differential test of the avx2 backend against the reference interpreter.
//
// For every op of the first subset x dtype x shape class (full tile, ragged
// valid region, one row, one column, widths that are not a multiple of 8),
// builds a kernel `tload -> op -> tstore`, runs it on the interpreter and
// JIT-compiled for avx2 on the same inputs (NaN with payloads, +-Inf, +-0,
// subnormals, integer extremes, random values), and requires bit-identical
// output buffers. The output buffer is pre-filled with a sentinel and is
// one row larger than the view, so a store outside the valid region or the
// view shows up as a difference. A second part checks every scalar arith
// op, casts and scf.if/for/while (results broadcast with texpands).
// Exit 0 when every case agrees; SKIP (77)
// when the CPU lacks AVX2.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "diag.h"
#include "frontend.h"
#include "interp.h"
#include "ir.h"
#include "jit.h"

using namespace ptoas;

namespace {

struct Shape {
  const char* name;
  int rows, cols, vr, vc;
};

const Shape kShapes[] = {
    {"full", 8, 16, 8, 16},     {"ragged", 8, 24, 5, 13},   {"one_row", 1, 64, 1, 61},
    {"one_col", 16, 8, 16, 1},  {"width12", 4, 16, 4, 12},  {"width7", 3, 8, 3, 7},
    {"width33", 2, 40, 2, 33},  {"single", 1, 8, 1, 1},
};

uint64_t g_rng = 0x9E3779B97F4A7C15ull;
uint32_t rnd() {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return uint32_t(g_rng >> 11);
}

const uint32_t kF32Special[] = {
    0x7fc00000u, 0xffc00000u, 0x7fa00001u /* sNaN */, 0x7fc12345u, 0xff812345u,  // NaNs
    0x7f800000u, 0xff800000u,                                                      // +-Inf
    0x00000000u, 0x80000000u,                                                      // +-0
    0x00000001u, 0x807fffffu, 0x00400000u,                                         // subnormals
    0x3f800000u, 0xbfc00000u, 0x7f7fffffu, 0xff7fffffu, 0x00800000u, 0x40490fdbu};
const uint32_t kI32Special[] = {0x80000000u, 0x7fffffffu, 0xffffffffu, 0u, 1u, 0x80000001u,
                                0x00010000u, 0xfffe0000u};

uint32_t sample(bool fl) {
  uint32_t r = rnd();
  if (r % 10 < 4) {
    if (fl) return kF32Special[rnd() % (sizeof kF32Special / 4)];
    return kI32Special[rnd() % (sizeof kI32Special / 4)];
  }
  if (fl) {
    float f = float(int32_t(rnd() % 2000001) - 1000000) / 997.0f;
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  return rnd();
}

struct OpCase {
  const char* op;
  int kind;  // 0 binary, 1 tile-scalar, 2 scalar-tile (tdivs), 3 unary, 4 expands
  bool f32, i32;
};

const OpCase kOps[] = {
    {"tadd", 0, true, true},   {"tsub", 0, true, true},   {"tmul", 0, true, true},
    {"tdiv", 0, true, false},  {"tmax", 0, true, true},   {"tmin", 0, true, true},
    {"tadds", 1, true, true},  {"tsubs", 1, true, true},  {"tmuls", 1, true, true},
    {"tdivs", 1, true, false}, {"tdivs", 2, true, false}, {"tmaxs", 1, true, true},
    {"tmins", 1, true, true},  {"texpands", 4, true, true}, {"tneg", 3, true, true},
    {"trelu", 3, true, true},  {"tabs", 3, true, false},  {"tsqrt", 3, true, false},
    {"trecip", 3, true, false}, {"texp", 3, true, false},    {"tlog", 3, true, false},
    {"trsqrt", 3, true, false},
};

// Runs `text` (kernel @k(a, b, c, s)) on the interpreter and avx2 with
// buffers of n elements (rows of ld) and compares c, exactly or within
// ulp_tol f32 ULP.
bool run_text(const std::string& name, const std::string& text, size_t n, size_t ld, bool fl,
              uint32_t scalar_bits, uint32_t ulp_tol = 0);

// ---- reductions and expansions -------------------------------------------------------
// a: an R x C source (ND, or DN with dn_src); b: a column (R x 1, DN view
// of b) or a row (1 x C, row 0 of b); c: the result, starting as b's data.

std::string tile_ty(int r, int c, const char* dt, bool dn, const char* valid = "?x?") {
  return "!pto.tile_buf<vec, " + std::to_string(r) + "x" + std::to_string(c) + "x" + dt + ", valid=" + valid +
         (dn ? ", blayout=col_major>" : ">");
}

std::string kernel_head(const Shape& s, const char* dt) {
  std::string k = "func.func @k(%a: !pto.ptr<" + std::string(dt) + ">, %b: !pto.ptr<" + dt + ">, %c: !pto.ptr<" +
                  dt + ">, %s: " + dt + ") attributes {pto.entry} {\n";
  k += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n";
  k += "  %R = arith.constant " + std::to_string(s.vr) + " : index\n";
  k += "  %C = arith.constant " + std::to_string(s.vc) + " : index\n";
  k += "  %ld = arith.constant " + std::to_string(s.cols + 3) + " : index\n";
  return k;
}

// A view of p with the given shape and strides, partitioned whole: %<name>p.
std::string view(const std::string& name, const std::string& p, const std::string& shape,
                 const std::string& strides, const char* dt) {
  std::string tv = std::string("!pto.tensor_view<?x?x") + dt + ">";
  std::string pv = std::string("!pto.partition_tensor_view<?x?x") + dt + ">";
  return "  %" + name + "v = pto.make_tensor_view %" + p + ", shape = [" + shape + "], strides = [" + strides +
         "] : " + tv + "\n  %" + name + "p = pto.partition_view %" + name + "v, offsets = [%c0, %c0], sizes = [" +
         shape + "] : " + tv + " -> " + pv + "\n";
}

std::string load(const std::string& view, const std::string& tile, const std::string& tty, const char* dt,
                 const std::string& vr, const std::string& vc) {
  std::string pv = std::string("!pto.partition_tensor_view<?x?x") + dt + ">";
  return "  %" + tile + " = pto.alloc_tile valid_row = " + vr + " valid_col = " + vc + " : " + tty + "\n" +
         "  pto.tload ins(%" + view + "p : " + pv + ") outs(%" + tile + " : " + tty + ")\n";
}

// kind 0: trow<red> a -> R x 1 column (DN, or ND when dn_dst is false)
bool run_reduce(const char* op, const Shape& s, bool dn_src, bool dn_dst) {
  const char* dt = "f32";
  std::string k = kernel_head(s, dt);
  std::string ta = tile_ty(s.rows, s.cols, dt, dn_src), tc = tile_ty(s.rows, 1, dt, dn_dst, "?x1");
  k += view("a", "a", "%R, %C", dn_src ? "%c1, %ld" : "%ld, %c1", dt);
  k += view("c", "c", "%R, %c1", "%c1, %ld", dt);
  k += view("bc", "b", "%R, %c1", "%c1, %ld", dt);
  k += load("a", "ta", ta, dt, "%R", "%C");
  k += load("bc", "tc", tc, dt, "%R", "%c1");
  k += "  pto." + std::string(op) + " ins(%ta, %ta : " + ta + ", " + ta + ") outs(%tc : " + tc + ")\n";
  k += "  pto.tstore ins(%tc : " + tc + ") outs(%cp : !pto.partition_tensor_view<?x?xf32>)\n  return\n}\n";
  size_t ld = size_t(s.cols + 3), n = ld * size_t(std::max(s.vr, s.vc) + 1);
  return run_text(std::string(op) + " " + s.name + (dn_src ? " DN src" : "") + (dn_dst ? "" : " ND dst"), k, n,
                  ld, true, 0);
}

// tcvt: narrow (a f32 -> bf16 tile -> c as bf16) or widen (a read as bf16
// -> f32 tile -> c as f32); also covers 2-byte tload / tstore.
bool run_cvt(const Shape& s, bool narrow) {
  const char* in = narrow ? "f32" : "bf16";
  const char* out = narrow ? "bf16" : "f32";
  std::string k = "func.func @k(%a: !pto.ptr<" + std::string(in) + ">, %b: !pto.ptr<f32>, %c: !pto.ptr<" + out +
                  ">, %s: f32) attributes {pto.entry} {\n";
  k += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n";
  k += "  %R = arith.constant " + std::to_string(s.vr) + " : index\n";
  k += "  %C = arith.constant " + std::to_string(s.vc) + " : index\n";
  k += "  %ld = arith.constant " + std::to_string(s.cols + 3) + " : index\n";
  // bf16 tiles need 32-byte rows: 16 columns at least.
  int cols = std::max(16, (s.cols + 15) / 16 * 16);
  std::string ti = tile_ty(s.rows, cols, in, false), to = tile_ty(s.rows, cols, out, false);
  k += view("a", "a", "%R, %C", "%ld, %c1", in);
  k += view("c", "c", "%R, %C", "%ld, %c1", out);
  k += load("a", "ta", ti, in, "%R", "%C");
  k += "  %tc = pto.alloc_tile valid_row = %R valid_col = %C : " + to + "\n";
  k += "  pto.tcvt ins(%ta {rmode = #pto<round_mode RINT>} : " + ti + ") outs(%tc : " + to + ")\n";
  k += "  pto.tstore ins(%tc : " + to + ") outs(%cp : !pto.partition_tensor_view<?x?x" + out + ">)\n  return\n}\n";
  size_t ld = size_t(s.cols + 3), n = ld * size_t(s.vr + 1);
  return run_text(std::string("tcvt ") + in + " -> " + out + " " + s.name, k, n, ld, true, 0);
}

// trowexpand<op> / tcolexpand<op>: a full, b a column (row) operand; swap:
// the column (row) operand first; plain: trowexpand / tcolexpand of b.
bool run_expand(const char* op, bool row, const Shape& s, bool fl, bool swap, bool plain) {
  const char* dt = fl ? "f32" : "i32";
  std::string k = kernel_head(s, dt);
  std::string ta = tile_ty(s.rows, s.cols, dt, false);
  std::string tb = row ? tile_ty(s.rows, 1, dt, s.rows % 8 == 0, "?x1") : tile_ty(1, s.cols, dt, false, "1x?");
  k += view("a", "a", "%R, %C", "%ld, %c1", dt);
  k += view("ab", "b", "%R, %C", "%ld, %c1", dt);
  k += view("c", "c", "%R, %C", "%ld, %c1", dt);
  if (row) k += view("b", "b", "%R, %c1", "%c1, %ld", dt);
  else k += view("b", "b", "%c1, %C", "%ld, %c1", dt);
  k += load("a", "ta", ta, dt, "%R", "%C");
  k += load("ab", "tc", ta, dt, "%R", "%C");
  k += row ? load("b", "tb", tb, dt, "%R", "%c1") : load("b", "tb", tb, dt, "%c1", "%C");
  std::string o = "  pto." + std::string(op);
  if (plain) k += o + " ins(%tb : " + tb + ") outs(%tc : " + ta + ")\n";
  else if (swap) k += o + " ins(%tb, %ta : " + tb + ", " + ta + ") outs(%tc : " + ta + ")\n";
  else k += o + " ins(%ta, %tb : " + ta + ", " + tb + ") outs(%tc : " + ta + ")\n";
  k += "  pto.tstore ins(%tc : " + ta + ") outs(%cp : !pto.partition_tensor_view<?x?x" + dt + ">)\n  return\n}\n";
  size_t ld = size_t(s.cols + 3), n = ld * size_t(std::max(s.vr, s.vc) + 1);
  return run_text(std::string(op) + (swap ? "(swapped) " : " ") + dt + " " + s.name, k, n, ld, fl, 0);
}

// dn: column-major tiles loaded from / stored to column-major views.
std::string kernel(const OpCase& o, const Shape& s, const char* dt, bool dn) {
  std::string tile = "!pto.tile_buf<vec, " + std::to_string(s.rows) + "x" + std::to_string(s.cols) +
                     "x" + dt + ", valid=?x?" + (dn ? ", blayout=col_major>" : ">");
  std::string tv = std::string("!pto.tensor_view<?x?x") + dt + ">";
  std::string pv = std::string("!pto.partition_tensor_view<?x?x") + dt + ">";
  std::string k;
  k += "func.func @k(%a: !pto.ptr<" + std::string(dt) + ">, %b: !pto.ptr<" + dt + ">, %c: !pto.ptr<" +
       dt + ">, %s: " + dt + ") attributes {pto.entry} {\n";
  k += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n";
  k += "  %R = arith.constant " + std::to_string(s.vr) + " : index\n";
  k += "  %C = arith.constant " + std::to_string(s.vc) + " : index\n";
  k += "  %ld = arith.constant " + std::to_string(dn ? s.rows + 3 : s.cols + 3) + " : index\n";
  for (const char* p : {"a", "b", "c"}) {
    std::string P(p);
    k += "  %" + P + "v = pto.make_tensor_view %" + P + ", shape = [%R, %C], strides = " +
         (dn ? "[%c1, %ld]" : "[%ld, %c1]") + " : " + tv + "\n";
    k += "  %" + P + "p = pto.partition_view %" + P + "v, offsets = [%c0, %c0], sizes = [%R, %C] : " + tv +
         " -> " + pv + "\n";
    k += "  %t" + P + " = pto.alloc_tile valid_row = %R valid_col = %C : " + tile + "\n";
  }
  k += "  pto.tload ins(%ap : " + pv + ") outs(%ta : " + tile + ")\n";
  k += "  pto.tload ins(%bp : " + pv + ") outs(%tb : " + tile + ")\n";
  // The destination starts as b's data, so untouched elements are visible.
  k += "  pto.tload ins(%bp : " + pv + ") outs(%tc : " + tile + ")\n";
  std::string op = std::string("pto.") + o.op;
  switch (o.kind) {
    case 0: k += "  " + op + " ins(%ta, %tb : " + tile + ", " + tile + ") outs(%tc : " + tile + ")\n"; break;
    case 1: k += "  " + op + " ins(%ta, %s : " + tile + ", " + dt + ") outs(%tc : " + tile + ")\n"; break;
    case 2: k += "  " + op + " ins(%s, %ta : " + dt + ", " + tile + ") outs(%tc : " + tile + ")\n"; break;
    case 3: k += "  " + op + " ins(%ta : " + tile + ") outs(%tc : " + tile + ")\n"; break;
    default: k += "  " + op + " ins(%s : " + dt + ") outs(%tc : " + tile + ")\n"; break;
  }
  k += "  pto.tstore ins(%tc : " + tile + ") outs(%cp : " + pv + ")\n";
  k += "  return\n}\n";
  return k;
}

int g_cases = 0, g_fail = 0, g_elems = 0;

// Distance in f32 units in the last place (NaN: 0 only for identical bits).
uint32_t ulp_dist(uint32_t a, uint32_t b) {
  auto is_nan = [](uint32_t v) { return (v & 0x7fffffffu) > 0x7f800000u; };
  if (a == b) return 0;
  if (is_nan(a) || is_nan(b)) return 0xffffffffu;
  auto ord = [](uint32_t v) { return v & 0x80000000u ? -int64_t(v & 0x7fffffffu) : int64_t(v); };
  int64_t d = ord(a) - ord(b);
  return uint32_t(d < 0 ? -d : d);
}

bool run_case(const OpCase& o, const Shape& s, bool fl, uint32_t scalar_bits, bool dn = false) {
  const char* dt = fl ? "f32" : "i32";
  std::string text = kernel(o, s, dt, dn);
  std::string name = std::string(o.op) + (o.kind == 2 ? "(scalar first)" : "") + " " + dt + " " + s.name +
                     (dn ? " DN" : "");
  // exp and log are within 1 ULP of the interpreter (docs/x86_backend.md);
  // everything else is bit-exact.
  uint32_t tol = (std::string(o.op) == "texp" || std::string(o.op) == "tlog") ? 1 : 0;
  size_t ld = size_t(dn ? s.rows + 3 : s.cols + 3), n = ld * size_t((dn ? s.vc : s.vr) + 1);
  return run_text(name, text, n, ld, fl, scalar_bits, tol);
}

bool run_text(const std::string& name, const std::string& text, size_t n, size_t ld, bool fl,
              uint32_t scalar_bits, uint32_t ulp_tol) {
  const char* dt = fl ? "f32" : "i32";
  (void)dt;
  SourceFile src(name + ".pto", text);
  Diag diag(&src);
  Module m;
  FrontendOptions fo;
  if (!run_frontend(src, fo, m, diag)) {
    std::printf("FAIL %s: front end:\n%s\n%s", name.c_str(), diag.text().c_str(), text.c_str());
    return false;
  }
  rt::Interpreter interp(m);
  std::string err;
  InstId fn = interp.find_function("", err);
  rt::JitKernel jit;
  Diag jd(&src);
  if (!jit.load(m, fn, "avx2", jd, err)) {
    std::printf("FAIL %s: jit: %s\n%s", name.c_str(), err.c_str(), jd.text().c_str());
    return false;
  }
  std::vector<uint32_t> a(n), b(n), c1(n, 0xDEADBEEFu), c2(n, 0xDEADBEEFu);
  for (size_t i = 0; i < n; ++i) {
    a[i] = sample(fl);
    b[i] = sample(fl);
  }
  auto args = [&](std::vector<uint32_t>& c) {
    std::vector<rt::Arg> v(4);
    std::vector<uint32_t>* bufs[3] = {&a, &b, &c};
    for (int i = 0; i < 3; ++i) {
      v[size_t(i)].kind = rt::Arg::Kind::Ptr;
      v[size_t(i)].data = reinterpret_cast<uint8_t*>(bufs[i]->data());
      v[size_t(i)].bytes = bufs[i]->size() * 4;
    }
    if (fl) {
      float f;
      std::memcpy(&f, &scalar_bits, 4);
      v[3].kind = rt::Arg::Kind::Float;
      v[3].f = f;
    } else {
      v[3].kind = rt::Arg::Kind::Int;
      v[3].i = int32_t(scalar_bits);
    }
    return v;
  };
  std::vector<rt::Arg> ia = args(c1), ja = args(c2);
  if (!interp.run_block(fn, ia, 0, 1, err)) {
    std::printf("FAIL %s: interpreter: %s\n", name.c_str(), err.c_str());
    return false;
  }
  jit.run(ja, 0, 1);
  ++g_cases;
  g_elems += int(n);
  for (size_t i = 0; i < n; ++i)
    if (c1[i] != c2[i] && (!fl || ulp_dist(c1[i], c2[i]) > ulp_tol)) {
      std::printf("FAIL %s: element %zu (row %zu col %zu): interpreter 0x%08x, avx2 0x%08x "
                  "(a 0x%08x b 0x%08x s 0x%08x)\n",
                  name.c_str(), i, i / ld, i % ld, c1[i], c2[i], a[i], b[i], scalar_bits);
      ++g_fail;
      return false;
    }
  return true;
}


// ---- boxed tiles, tmov, tmatmul{,.acc,.bias}, ttri ---------------------------------
// A (M x K) and B (K x N) are loaded ND -> NZ mat tiles, moved to left /
// right (ZN), multiplied into an NZ acc tile; `mode` 1 adds a tmatmul.acc
// of the same product, 2 uses tmatmul.bias with row 0 of B as the bias; the
// acc is stored to C, or (`via_vec`) first moved to an ND vec tile.
// dt: f32 (NaN / Inf inputs), bf16 or i8.
bool run_matmul(const char* dt, int M, int N, int K, int mode, bool via_vec) {
  std::string d(dt);
  std::string od = d == "i8" ? "i32" : "f32";
  auto tile = [&](const char* loc, int r, int c, const char* e, const char* lay) {
    return std::string("!pto.tile_buf<") + loc + ", " + std::to_string(r) + "x" + std::to_string(c) + "x" + e +
           ", valid=?x?" + lay + ">";
  };
  const char* nz = ", blayout=col_major, slayout=row_major";
  const char* zn = ", blayout=row_major, slayout=col_major";
  std::string am = tile("mat", 32, 64, dt, nz), bm = tile("mat", 64, 32, dt, nz);
  std::string al = tile("left", 32, 64, dt, nz), br = tile("right", 64, 32, dt, zn);
  std::string acc = tile("acc", 32, 32, od.c_str(), ", blayout=col_major, slayout=row_major, fractal=1024");
  std::string vec = tile("vec", 32, 32, od.c_str(), "");
  std::string bias = tile("bias", 1, 32, od.c_str(), "");
  int ld = 70;
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
  std::string name = std::string("tmatmul") + (mode == 1 ? ".acc " : mode == 2 ? ".bias " : " ") + dt + " " +
                     std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + (via_vec ? " via vec" : "");
  // i8 / bf16 inputs: random words (bf16 halves include NaN / Inf patterns
  // only rarely; f32 inputs get the special values).
  return run_text(name, k, size_t(ld) * 66, size_t(ld), od == "f32", 0, 0);
}

bool run_ttri(const Shape& s, bool upper, int diag) {
  std::string tile = "!pto.tile_buf<vec, " + std::to_string(s.rows) + "x" + std::to_string(s.cols) + "xf32, valid=?x?>";
  std::string tv = "!pto.tensor_view<?x?xf32>", pv = "!pto.partition_tensor_view<?x?xf32>";
  std::string k = "func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %c: !pto.ptr<f32>, %s: f32) attributes {pto.entry} {\n";
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
  return run_text(std::string("ttri ") + (upper ? "upper " : "lower ") + std::to_string(diag) + " " + s.name, k,
                  size_t(s.cols + 3) * size_t(s.vr + 1), size_t(s.cols + 3), true, 0, 0);
}

// ---- scalar ops and control flow ---------------------------------------------------
// Every result (i32 or f32) is broadcast into row k of an output with
// texpands + tstore, so the interpreter's and avx2's scalar results compare
// bit for bit.
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

bool run_scalar_case(int32_t a, int32_t bv, uint32_t xb, uint32_t yb, int64_t n) {
  ScalarKernel sk = scalar_kernel();
  size_t ni = sk.outs_i.size(), nf = sk.outs_f.size();
  std::string t = "func.func @s(%oi: !pto.ptr<i32>, %of: !pto.ptr<f32>, %a: i32, %b: i32, %x: f32, %y: f32, "
                  "%n: index) attributes {pto.entry} {\n" + sk.body;
  t += "  %k8 = arith.constant 8 : index\n  %kone = arith.constant 1 : index\n  %kzero = arith.constant 0 : index\n";
  t += "  %NI = arith.constant " + std::to_string(ni) + " : index\n";
  t += "  %NF = arith.constant " + std::to_string(nf) + " : index\n";
  t += "  %vi = pto.make_tensor_view %oi, shape = [%NI, %k8], strides = [%k8, %kone] : !pto.tensor_view<?x?xi32>\n";
  t += "  %vf = pto.make_tensor_view %of, shape = [%NF, %k8], strides = [%k8, %kone] : !pto.tensor_view<?x?xf32>\n";
  auto emit = [&](const std::vector<std::string>& names, const char* dt, const char* view) {
    for (size_t r = 0; r < names.size(); ++r) {
      std::string nm = names[r], rs = std::to_string(r);
      std::string tile = std::string("!pto.tile_buf<vec, 1x8x") + dt + ">";
      std::string pv = std::string("!pto.partition_tensor_view<?x?x") + dt + ">";
      std::string tv = std::string("!pto.tensor_view<?x?x") + dt + ">";
      t += "  %row" + std::string(dt) + rs + " = arith.constant " + rs + " : index\n";
      t += "  %pv" + std::string(dt) + rs + " = pto.partition_view %" + view + ", offsets = [%row" + dt + rs +
           ", %kzero], sizes = [%kone, %k8] : " + tv + " -> " + pv + "\n";
      t += "  %tl" + std::string(dt) + rs + " = pto.alloc_tile : " + tile + "\n";
      t += "  pto.texpands ins(%" + nm + " : " + dt + ") outs(%tl" + dt + rs + " : " + tile + ")\n";
      t += "  pto.tstore ins(%tl" + std::string(dt) + rs + " : " + tile + ") outs(%pv" + dt + rs + " : " + pv + ")\n";
    }
  };
  emit(sk.outs_i, "i32", "vi");
  emit(sk.outs_f, "f32", "vf");
  t += "  return\n}\n";
  SourceFile src("scalars.pto", t);
  Diag diag(&src);
  Module m;
  FrontendOptions fo;
  if (!run_frontend(src, fo, m, diag)) {
    std::printf("FAIL scalars: front end:\n%s\n", diag.text().c_str());
    return false;
  }
  rt::Interpreter interp(m);
  std::string err;
  InstId fn = interp.find_function("", err);
  rt::JitKernel jit;
  Diag jd(&src);
  if (!jit.load(m, fn, "avx2", jd, err)) {
    std::printf("FAIL scalars: jit: %s\n%s", err.c_str(), jd.text().c_str());
    return false;
  }
  std::vector<uint32_t> oi1(ni * 8, 0xDEADBEEFu), oi2 = oi1, of1(nf * 8, 0xDEADBEEFu), of2 = of1;
  auto args = [&](std::vector<uint32_t>& oi, std::vector<uint32_t>& of) {
    std::vector<rt::Arg> v(7);
    v[0].kind = v[1].kind = rt::Arg::Kind::Ptr;
    v[0].data = reinterpret_cast<uint8_t*>(oi.data());
    v[0].bytes = oi.size() * 4;
    v[1].data = reinterpret_cast<uint8_t*>(of.data());
    v[1].bytes = of.size() * 4;
    v[2].i = a;
    v[3].i = bv;
    float x, y;
    std::memcpy(&x, &xb, 4);
    std::memcpy(&y, &yb, 4);
    v[4].kind = v[5].kind = rt::Arg::Kind::Float;
    v[4].f = x;
    v[5].f = y;
    v[6].i = n;
    return v;
  };
  std::vector<rt::Arg> ia = args(oi1, of1), ja = args(oi2, of2);
  if (!interp.run_block(fn, ia, 0, 1, err)) {
    std::printf("FAIL scalars: interpreter: %s\n", err.c_str());
    return false;
  }
  jit.run(ja, 0, 1);
  ++g_cases;
  g_elems += int(oi1.size() + of1.size());
  bool ok = true;
  for (size_t i = 0; i < oi1.size(); ++i)
    if (oi1[i] != oi2[i]) {
      std::printf("FAIL scalars (a=%d b=%d x=0x%08x y=0x%08x n=%lld): %%%s: interpreter 0x%08x, avx2 0x%08x\n",
                  a, bv, xb, yb, (long long)n, sk.outs_i[i / 8].c_str(), oi1[i], oi2[i]);
      ok = false;
      i += 7;
    }
  auto is_nan = [](uint32_t v) { return (v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffffu); };
  for (size_t i = 0; i < of1.size(); ++i) {
    // With two NaN operands IEEE leaves the payload open, and the
    // interpreter's scalar addf/mulf return whichever operand g++ put first
    // (it commutes them); only NaN-ness is compared there.
    const std::string& nm = sk.outs_f[i / 8];
    if ((nm == "f_addf" || nm == "f_mulf") && is_nan(xb) && is_nan(yb) && is_nan(of1[i]) && is_nan(of2[i]))
      continue;
    if (of1[i] != of2[i]) {
      std::printf("FAIL scalars (a=%d b=%d x=0x%08x y=0x%08x): %%%s: interpreter 0x%08x, avx2 0x%08x\n",
                  a, bv, xb, yb, sk.outs_f[i / 8].c_str(), of1[i], of2[i]);
      ok = false;
      i += 7;
    }
  }
  if (!ok) ++g_fail;
  return ok;
}

}  // namespace

int main() {
  if (!rt::cpu_supports("avx2")) {
    std::printf("SKIP: this CPU has no AVX2/FMA\n");
    return 77;
  }
  const uint32_t f_scalars[] = {0x40200000u, 0x80000000u, 0x7fc00000u, 0x7f800000u, 0x00000003u,
                                0xc0490fdbu};
  const uint32_t i_scalars[] = {5u, 0xffffffffu, 0x80000000u, 0x7fffffffu};
  bool ok = true;
  for (const OpCase& o : kOps)
    for (const Shape& s : kShapes)
      for (int fl = 1; fl >= 0; --fl) {
        if (fl ? !o.f32 : !o.i32) continue;
        bool uses_scalar = o.kind == 1 || o.kind == 2 || o.kind == 4;
        size_t ns = uses_scalar ? (fl ? 6 : 4) : 1;
        for (size_t k = 0; k < ns; ++k) {
          ok &= run_case(o, s, fl, fl ? f_scalars[k] : i_scalars[k]);
          // DN tiles need rows * 4 bytes to be a multiple of 32.
          if (s.rows % 8 == 0) ok &= run_case(o, s, fl, fl ? f_scalars[k] : i_scalars[k], true);
        }
      }
  for (const Shape& s : kShapes) {
    for (const char* r : {"trowsum", "trowmax", "trowmin"})
      for (int v = 0; v < 3; ++v) {
        bool dn_ok = s.rows % 8 == 0;  // DN tiles need rows * 4 bytes to be a multiple of 32
        if (dn_ok || v == 2) ok &= run_reduce(r, s, v == 1, v != 2 && dn_ok);
      }
    for (int fl = 1; fl >= 0; --fl) {
      for (const char* e : {"trowexpandadd", "trowexpandsub", "trowexpandmul", "trowexpanddiv", "trowexpandmax",
                            "trowexpandmin", "tcolexpandadd", "tcolexpandsub", "tcolexpandmul", "tcolexpanddiv",
                            "tcolexpandmax", "tcolexpandmin"}) {
        if (!fl && std::string(e).find("div") != std::string::npos) continue;
        bool row = e[1] == 'r';
        ok &= run_expand(e, row, s, fl, false, false);
        ok &= run_expand(e, row, s, fl, true, false);
      }
      ok &= run_expand("trowexpand", true, s, fl, false, true);
      ok &= run_cvt(s, fl == 1);
      ok &= run_expand("tcolexpand", false, s, fl, false, true);
    }
  }
  // Scalars: divisors never 0 (a runtime error in the interpreter).
  const int32_t ia[] = {7, -7, 2147483647, -2147483647 - 1, 0, 100000, -1};
  const int32_t ib[] = {2, -3, 1, -1, 33, 2147483647, -2147483647 - 1};
  const uint32_t fx[] = {0x3fc00000u, 0x7fc00000u, 0x80000000u, 0x7f800000u, 0x00000001u, 0xc2c80000u, 0x7fc12345u};
  const uint32_t fy[] = {0x40000000u, 0x3f800000u, 0x00000000u, 0x7f800000u, 0xffc00000u, 0xc2c80000u, 0x80000000u};
  for (size_t i = 0; i < 7; ++i)
    for (size_t j = 0; j < 7; ++j)
      ok &= run_scalar_case(ia[i], ib[j], fx[(i + j) % 7], fy[(i * 3 + j) % 7], int64_t(j));
  for (const char* dt : {"f32", "bf16", "i8"})
    for (int mode = 0; mode < 3; ++mode) {
      ok &= run_matmul(dt, 32, 32, 64, mode, false);
      ok &= run_matmul(dt, 17, 29, 45, mode, mode == 1);
      ok &= run_matmul(dt, 1, 1, 1, mode, false);
      ok &= run_matmul(dt, 31, 7, 3, mode, true);
    }
  for (const Shape& s : kShapes)
    for (int diag : {0, 2, -1}) {
      ok &= run_ttri(s, false, diag);
      ok &= run_ttri(s, true, diag);
    }
  std::printf("x86_diff: %d cases, %d elements compared, %d failed\n", g_cases, g_elems, g_fail);
  return ok && g_fail == 0 ? 0 : 1;
}
