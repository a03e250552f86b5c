// Random GEMM programs (issue 5): the x86 tmatmul paths that read tload
// views and write tstore views in place (-O1 and up) against the same
// program at -O0 and against the interpreter.
//
// For each seed a generator writes a GEMM kernel: C (M x N) = A (M x
// K) B (K x N) in TM x TN output tiles and TK-deep steps (tmatmul, then
// tmatmul.acc in an scf.for), output tiles spread over blocks, with random
// choices that decide whether the in-place paths may or may not be taken:
// row strides of A, B and C equal to the tiles' or padded; the acc tile
// allocated per output tile or once; C's partition made before the first
// tmatmul or after the k loop; static or dynamic valid extents; C's tensor
// view built on A's buffer or B's on C's (overlaps the run-time check must
// see); between the tmatmuls and the tstore, a read of C's buffer through
// another tensor view into a second output, or a second tstore of the acc
// tile. A and B are f32, bf16 or f16 (C f32), on a3 (left tiles row-major)
// or a5 (left tiles column-major): each reaches its own way of reading A
// (direct, a widened copy, packed). Or f32 the NPU way: tload into NZ mat
// tiles, tmov into NZ left / ZN right tiles (the x86 tmatmul reads the mat
// tiles and drops the tmovs where nothing rewrites them), with A's mat
// tile then loaded again from A's next row block, directly, through a
// subview or through a treshape of it (where it must not). Then:
//   1. the interpreter on the program is the reference;
//   2. opt::optimize -O2, interpreted: bit for bit the reference;
//   3. the avx2 JIT of the -O0 and of the -O2 module (when the CPU has
//      avx2), and the avx512 JIT of both (when it has AVX-512: its own
//      micro-kernel shape and register assignment): each within DESIGN
//      §6's summation bound of the reference, and a target's two bit for
//      bit equal to each other (the in-place paths move no arithmetic).
//
//   opt_random_gemm [--seeds N] [--start S] [--out DIR] [-v] [--print]
// On a mismatch: the seed, the first differing element and the program
// (DIR/opt_gemm_<seed>.pto). Exit 0 / 1.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "diag.h"
#include "elem.h"
#include "frontend.h"
#include "interp.h"
#include "ir.h"
#include "jit.h"
#include "opt.h"
#include "parsed_text.h"

using namespace ptoas;

namespace {

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0xD1B54A32D192ED03ull + 7) {}
  uint64_t next() {  // splitmix64
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int range(int lo, int hi) { return lo + int(next() % uint64_t(hi - lo + 1)); }
  bool chance(double p) { return double(next() >> 11) * 0x1.0p-53 < p; }
  template <class T>
  T pick(std::initializer_list<T> v) { return v.begin()[next() % v.size()]; }
};

// Buffers: a, b, c (the product), d (the second output: C's old contents
// read in between, or the acc tile stored twice).
enum { kA, kB, kC, kD, kBufs };
enum class Alias { None, COnA, BOnC };
enum class Between { Nothing, ReadC, StoreTwice };
// The NPU way's reload of A's mat tile after its tmov.
enum class Clobber { None, Direct, Subview, Reshape };

struct Program {
  int TM, TN, TK, tm, tn, ks, M, N, K, lda, ldb, ldc, blocks;
  bool acc_once, c_early, dyn_valid;
  DType in = DType::F32;  // A's and B's element type (16-bit: two to a float of bufs)
  bool a5 = false;
  bool via_mat = false;  // tload -> mat -> tmov -> left / right (f32)
  Clobber clobber = Clobber::None;
  bool via_vec = false;   // acc -> tmov -> vec -> tstore
  bool vec_read = false;  // the vec tile's old contents read between the tmatmul and the tmov
  bool narrow(int buf) const { return (buf == kA || buf == kB) && in != DType::F32; }
  Alias alias;
  Between between;
  std::string text;
  std::vector<std::vector<float>> bufs;  // the initial contents
  size_t elems[kBufs];
};

std::string num(int64_t v) { return std::to_string(v); }

Program generate(uint64_t seed) {
  Rng r(seed);
  Program p;
  p.TM = r.pick({8, 16, 24, 32});
  p.TN = r.pick({8, 16, 32, 48});
  p.TK = r.pick({8, 16, 32});
  // Drawn apart, so that the f32 a3 programs of every seed stay as they
  // were before these choices existed. 16-bit tiles' rows (and a5 left
  // tiles' columns) span 32 bytes: TM, TN, TK multiples of 16.
  Rng e(seed ^ 0xE1E7ull);
  p.in = e.pick({DType::F32, DType::F32, DType::BF16, DType::F16});
  p.a5 = e.chance(0.3);
  auto up16 = [](int v) { return (v + 15) / 16 * 16; };
  if (p.in != DType::F32) p.TM = up16(p.TM), p.TN = up16(p.TN), p.TK = up16(p.TK);
  if (p.a5) p.TM = up16(p.TM);
  // The NPU way, drawn apart too: 16 x 8 (NZ) and 8 x 16 (ZN) boxes, and
  // a second row block of A to reload its mat tile from.
  Rng w(seed ^ 0x4E5Aull);
  p.via_mat = p.in == DType::F32 && w.chance(0.25);
  p.clobber = w.pick({Clobber::None, Clobber::None, Clobber::Direct, Clobber::Subview, Clobber::Reshape});
  if (!p.via_mat) p.clobber = Clobber::None;
  if (p.via_mat) p.TM = up16(p.TM), p.TN = up16(p.TN), p.TK = up16(p.TK);
  p.tm = r.range(1, 3);
  p.tn = r.range(1, 2);
  p.ks = r.range(1, 3);
  p.M = p.tm * p.TM;
  p.N = p.tn * p.TN;
  p.K = p.ks * p.TK;
  p.lda = p.K + (r.chance(0.3) ? r.range(1, 5) : 0);
  p.ldb = p.N + (r.chance(0.3) ? r.range(1, 5) : 0);
  p.ldc = p.N + (r.chance(0.3) ? r.range(1, 5) : 0);
  p.blocks = r.range(1, 2);
  p.acc_once = r.chance(0.4);
  p.c_early = r.chance(0.5);
  p.dyn_valid = r.chance(0.2);
  int al = r.range(0, 9);
  p.alias = al == 0 ? Alias::COnA : al == 1 ? Alias::BOnC : Alias::None;
  if (p.in != DType::F32) p.alias = Alias::None;  // an f32 view on a 16-bit pointer does not verify
  // C over A (or B over C) with more than one output tile or block: each
  // tile would read what another stored, in an order the blocks decide.
  if (p.alias != Alias::None) p.tm = p.tn = p.blocks = 1, p.M = p.TM, p.N = p.TN;
  if (p.alias != Alias::None) p.ldc = std::max(p.ldc, p.N), p.ldb = std::max(p.ldb, p.N);
  if (p.via_mat) {  // whole tiles (a mat tile's source must be wholly valid), A's other row block
    p.dyn_valid = false;
    if (p.alias == Alias::None) p.tm = std::max(p.tm, 2), p.M = p.tm * p.TM;
    else p.clobber = Clobber::None;
  }
  int bw = r.range(0, 9);
  p.between = bw == 0 ? Between::ReadC : bw == 1 ? Between::StoreTwice : Between::Nothing;
  // C moved into a vec tile and stored from there (attention's scores),
  // drawn apart too; with one k step the tmov follows the tmatmul, which
  // x86 then has write the vec tile (plan_mm_c). Some load the vec tile
  // first (C's old contents) and store it to D between the two: that must
  // see the old contents.
  Rng u(seed ^ 0xACC5ull);
  p.via_vec = !p.dyn_valid && u.chance(0.3);
  p.vec_read = p.via_vec && p.alias == Alias::None && u.chance(0.4);
  if (p.vec_read) p.between = Between::Nothing;

  const std::string et(dtype_name(p.in));
  const std::string tv = "!pto.tensor_view<?x?xf32>", pv = "!pto.partition_tensor_view<?x?xf32>";
  const std::string tvi = "!pto.tensor_view<?x?x" + et + ">", pvi = "!pto.partition_tensor_view<?x?x" + et + ">";
  auto tile = [&](const char* loc, int rows, int cols, const std::string& el) {
    const char* lay = std::string(loc) == "left" && p.a5 ? "blayout=col_major" : "blayout=row_major";
    return std::string("!pto.tile_buf<") + loc + ", " + num(rows) + "x" + num(cols) + "x" + el + ", " +
           (p.dyn_valid ? "valid=?x?, " : "") + lay + ", slayout=none_box>";
  };
  const std::string lt = tile("left", p.TM, p.TK, et), rt_ = tile("right", p.TK, p.TN, et),
                    at = tile("acc", p.TM, p.TN, "f32");
  const std::string vt = "!pto.tile_buf<vec, " + num(p.TM) + "x" + num(p.TN) + "xf32>";
  std::string k;
  auto line = [&](int ind, const std::string& s) { k += std::string(size_t(ind) * 2, ' ') + s + "\n"; };
  auto alloc = [&](int ind, const std::string& name, const std::string& ty, const char* vr, const char* vc) {
    line(ind, name + " = pto.alloc_tile " +
                  (p.dyn_valid ? std::string("valid_row = %") + vr + " valid_col = %" + vc + " " : std::string()) +
                  ": " + ty);
  };
  auto part = [&](int ind, const std::string& res, const std::string& src, const std::string& r0,
                  const std::string& c0, const char* rows, const char* cols, bool operand = false) {
    line(ind, res + " = pto.partition_view " + src + ", offsets = [" + r0 + ", " + c0 + "], sizes = [%" + rows +
                  ", %" + cols + "] : " + (operand ? tvi : tv) + " -> " + (operand ? pvi : pv));
  };
  // The NPU way: A's and B's step into mat tiles, tmov'd into the left /
  // right tiles; A's mat tile then reloaded from its other row block
  // (p.clobber), after the tmov and before the tmatmul.
  auto box = [&](const char* loc, int rows, int cols, bool zn) {
    return std::string("!pto.tile_buf<") + loc + ", " + num(rows) + "x" + num(cols) + "xf32, " +
           (zn ? "blayout=row_major, slayout=col_major>" : "blayout=col_major, slayout=row_major>");
  };
  const std::string am = box("mat", p.TM, p.TK, false), bm = box("mat", p.TK, p.TN, false),
                    ln = box("left", p.TM, p.TK, false), rz = box("right", p.TK, p.TN, true);
  auto via_mat = [&](int ind, const std::string& sfx, const std::string& k0) {
    const std::string a = "%am" + sfx, b = "%bm" + sfx, pa = "%ap" + sfx, pb = "%bp" + sfx;
    alloc(ind, a, am, "", "");
    alloc(ind, b, bm, "", "");
    std::string again = a;  // the name the reload writes A's mat tile by
    if (p.clobber == Clobber::Subview) {
      again = "%as" + sfx;
      line(ind, again + " = pto.subview " + a + "[%c0, %c0] sizes [" + num(p.TM) + ", " + num(p.TK) + "] : " + am +
                    " -> " + am);
    } else if (p.clobber == Clobber::Reshape) {
      again = "%ar" + sfx;
      alloc(ind, again, am, "", "");
      line(ind, "pto.treshape ins(" + a + " : " + am + ") outs(" + again + " : " + am + ")");
    }
    alloc(ind, "%al" + sfx, ln, "", "");
    alloc(ind, "%br" + sfx, rz, "", "");
    line(ind, "pto.tload ins(" + pa + " : " + pvi + ") outs(" + a + " : " + am + ")");
    line(ind, "pto.tload ins(" + pb + " : " + pvi + ") outs(" + b + " : " + bm + ")");
    // The reload's view first: between the tmov and the tmatmul only tile
    // moves, as the NPU way's kernels have them.
    if (p.clobber != Clobber::None) {
      line(ind, "%rn" + sfx + " = arith.addi %r0, %TM : index");
      line(ind, "%rw" + sfx + " = arith.remui %rn" + sfx + ", %M : index");
      part(ind, "%aq" + sfx, "%av", "%rw" + sfx, k0, "TM", "TK", true);
    }
    line(ind, "pto.tmov ins(" + a + " : " + am + ") outs(%al" + sfx + " : " + ln + ")");
    if (p.clobber != Clobber::None)
      line(ind, "pto.tload ins(%aq" + sfx + " : " + pvi + ") outs(" + again + " : " + am + ")");
    line(ind, "pto.tmov ins(" + b + " : " + bm + ") outs(%br" + sfx + " : " + rz + ")");
  };
  // tload A's and B's step at k0 into fresh tiles, then tmatmul(.acc).
  auto step = [&](int ind, const std::string& sfx, const std::string& k0, bool acc) {
    part(ind, "%ap" + sfx, "%av", "%r0", k0, "TM", "TK", true);
    part(ind, "%bp" + sfx, "%bv", k0, "%n0", "TK", "TN", true);
    const std::string &L = p.via_mat ? ln : lt, &R = p.via_mat ? rz : rt_;
    if (p.via_mat) {
      via_mat(ind, sfx, k0);
    } else {
      alloc(ind, "%al" + sfx, lt, "TM", "TK");
      alloc(ind, "%br" + sfx, rt_, "TK", "TN");
      line(ind, "pto.tload ins(%ap" + sfx + " : " + pvi + ") outs(%al" + sfx + " : " + lt + ")");
      line(ind, "pto.tload ins(%bp" + sfx + " : " + pvi + ") outs(%br" + sfx + " : " + rt_ + ")");
    }
    if (acc)
      line(ind, "pto.tmatmul.acc ins(%acc, %al" + sfx + ", %br" + sfx + " : " + at + ", " + L + ", " + R +
                    ") outs(%acc : " + at + ")");
    else
      line(ind, "pto.tmatmul ins(%al" + sfx + ", %br" + sfx + " : " + L + ", " + R + ") outs(%acc : " + at + ")");
  };

  k += "// opt_random_gemm seed " + num(int64_t(seed)) + "\n";
  k += std::string("module attributes {pto.target_arch = \"") + (p.a5 ? "a5" : "a3") + "\"} {\n";
  k += "func.func @gemm(%a: !pto.ptr<" + et + ">, %b: !pto.ptr<" + et +
       ">, %c: !pto.ptr<f32>, %d: !pto.ptr<f32>) "
       "attributes {pto.kernel_kind = #pto.kernel_kind<cube>, pto.entry} {\n";
  for (auto [n, v] : {std::pair<const char*, int>{"c0", 0}, {"c1", 1}, {"TM", p.TM}, {"TN", p.TN}, {"TK", p.TK},
                      {"M", p.M}, {"N", p.N}, {"K", p.K}, {"lda", p.lda}, {"ldb", p.ldb}, {"ldc", p.ldc},
                      {"tm", p.tm}, {"tn", p.tn}, {"ks", p.ks}})
    line(1, std::string("%") + n + " = arith.constant " + num(v) + " : index");
  line(1, "%bid64 = pto.get_block_idx");
  line(1, "%nb64 = pto.get_block_num");
  line(1, "%bid = arith.index_cast %bid64 : i64 to index");
  line(1, "%nb = arith.index_cast %nb64 : i64 to index");
  line(1, "%av = pto.make_tensor_view %a, shape = [%M, %K], strides = [%lda, %c1] : " + tvi);
  line(1, std::string("%bv = pto.make_tensor_view ") + (p.alias == Alias::BOnC ? "%c" : "%b") +
              ", shape = [%K, %N], strides = [%ldb, %c1] : " + tvi);
  line(1, std::string("%cv = pto.make_tensor_view ") + (p.alias == Alias::COnA ? "%a" : "%c") +
              ", shape = [%M, %N], strides = [%ldc, %c1] : " + tv);
  line(1, "%dv = pto.make_tensor_view %d, shape = [%M, %N], strides = [%N, %c1] : " + tv);
  line(1, "%cw = pto.make_tensor_view %c, shape = [%M, %N], strides = [%ldc, %c1] : " + tv);
  if (p.acc_once) alloc(1, "%acc", at, "TM", "TN");
  line(1, "%nt = arith.muli %tm, %tn : index");
  line(1, "scf.for %t = %bid to %nt step %nb {");
  line(2, "%ti = arith.divui %t, %tn : index");
  line(2, "%tj = arith.remui %t, %tn : index");
  line(2, "%r0 = arith.muli %ti, %TM : index");
  line(2, "%n0 = arith.muli %tj, %TN : index");
  if (!p.acc_once) alloc(2, "%acc", at, "TM", "TN");
  if (p.c_early) part(2, "%cp", "%cv", "%r0", "%n0", "TM", "TN");
  if (p.vec_read) {
    alloc(2, "%cvt", vt, "TM", "TN");
    part(2, "%cr", "%cw", "%r0", "%n0", "TM", "TN");
    line(2, "pto.tload ins(%cr : " + pv + ") outs(%cvt : " + vt + ")");
  }
  step(2, "0", "%c0", false);
  if (!p.via_vec || p.ks > 1) {
    line(2, "scf.for %kk = %c1 to %ks step %c1 {");
    line(3, "%k0 = arith.muli %kk, %TK : index");
    step(3, "1", "%k0", true);
    line(2, "}");
  }
  if (p.vec_read) {
    part(2, "%dq", "%dv", "%r0", "%n0", "TM", "TN");
    line(2, "pto.tstore ins(%cvt : " + vt + ") outs(%dq : " + pv + ")");
  }
  if (p.via_vec) {
    if (!p.vec_read) alloc(2, "%cvt", vt, "TM", "TN");  // between the tmatmul and the tmov, as attention's
    line(2, "pto.tmov ins(%acc : " + at + ") outs(%cvt : " + vt + ")");
  }
  if (p.between == Between::ReadC) {  // C's old contents, through another tensor view
    part(2, "%cq", "%cw", "%r0", "%n0", "TM", "TN");
    part(2, "%dp", "%dv", "%r0", "%n0", "TM", "TN");
    line(2, "%old = pto.alloc_tile : " + vt);
    line(2, "pto.tload ins(%cq : " + pv + ") outs(%old : " + vt + ")");
    line(2, "pto.tstore ins(%old : " + vt + ") outs(%dp : " + pv + ")");
  }
  if (!p.c_early) {  // the row again, by arithmetic the passes leave: made early at -O2
    line(2, "%c2 = arith.constant 2 : index");
    line(2, "%tm2 = arith.muli %TM, %c2 : index");
    line(2, "%r2 = arith.muli %ti, %tm2 : index");
    line(2, "%r0b = arith.divui %r2, %c2 : index");
    part(2, "%cp", "%cv", "%r0b", "%n0", "TM", "TN");
  }
  if (p.via_vec) line(2, "pto.tstore ins(%cvt : " + vt + ") outs(%cp : " + pv + ")");
  else line(2, "pto.tstore ins(%acc : " + at + ") outs(%cp : " + pv + ")");
  if (p.between == Between::StoreTwice) {
    part(2, "%dp2", "%dv", "%r0", "%n0", "TM", "TN");
    line(2, "pto.tstore ins(%acc : " + at + ") outs(%dp2 : " + pv + ")");
  }
  line(1, "}");
  line(1, "return");
  k += "}\n}\n";
  p.text = k;

  // Inputs: moderate values (products sum far from overflow); C and D
  // start as a pattern the kernel must overwrite or keep.
  p.elems[kA] = size_t(p.M) * size_t(p.alias == Alias::COnA ? std::max(p.lda, p.ldc) : p.lda);
  p.elems[kB] = size_t(p.K) * size_t(p.ldb);
  p.elems[kC] = std::max(size_t(p.M) * size_t(p.ldc), p.alias == Alias::BOnC ? p.elems[kB] : 0);
  p.elems[kD] = size_t(p.M) * size_t(p.N);
  Rng v(seed ^ 0xFEEDull);
  for (int i = 0; i < kBufs; ++i) {
    bool narrow = p.narrow(i);
    std::vector<float> b(narrow ? (p.elems[i] + 1) / 2 : p.elems[i]);
    for (size_t j = 0; j < p.elems[i]; ++j) {
      float x = i == kD ? -7.0f : float(v.range(-2000, 2000)) / 997.0f;
      if (!narrow) {
        b[j] = x;
        continue;
      }
      uint16_t h = p.in == DType::BF16 ? rt::f32_to_bf16_bits(x) : rt::f32_to_f16_bits(x);
      std::memcpy(reinterpret_cast<uint8_t*>(b.data()) + 2 * j, &h, 2);
    }
    p.bufs.push_back(std::move(b));
  }
  return p;
}

using Bufs = std::vector<std::vector<float>>;

using opt_test::Parsed;
using opt_test::parse;

std::vector<rt::Arg> bind(Bufs& bufs) {
  std::vector<rt::Arg> v;
  for (auto& b : bufs) {
    rt::Arg a;
    a.kind = rt::Arg::Kind::Ptr;
    a.data = reinterpret_cast<uint8_t*>(b.data());
    a.bytes = b.size() * sizeof(float);
    v.push_back(a);
  }
  return v;
}

bool interpret(const Program& p, const Module& m, Bufs& bufs, std::string& err) {
  rt::Interpreter in(m);
  InstId fn = in.find_function("", err);
  if (fn == kNone) return false;
  std::vector<rt::Arg> args = bind(bufs);
  for (int b = 0; b < p.blocks; ++b)
    if (!in.run_block(fn, args, b, p.blocks, err)) return false;
  return true;
}

bool jit_run(const Program& p, const Parsed& pm, const char* target, Bufs& bufs, std::string& err) {
  const Module& m = *pm.m;
  rt::JitKernel jit;
  Diag d(pm.src.get());
  rt::Interpreter finder(m);
  InstId fn = finder.find_function("", err);
  if (fn == kNone || !jit.load(m, fn, target, d, err)) {
    err += " " + d.text();
    return false;
  }
  std::vector<rt::Arg> args = bind(bufs);
  for (int b = 0; b < p.blocks; ++b) jit.run(args, b, p.blocks);
  return true;
}

// The first element where `got` differs from `ref`: beyond the summation
// bound (K + 2) eps K max|a| max|b| when `bound`, else at all (bits). ""
// when none.
std::string compare(const Program& p, const Bufs& ref, const Bufs& got, bool bound) {
  float amax = 0;
  for (const Bufs* bs : {&ref, &got})
    for (int i = 0; i < kBufs; ++i) {
      const std::vector<float>& b = (*bs)[size_t(i)];
      for (size_t j = 0; j < p.elems[i]; ++j) {
        float x = p.narrow(i) ? float(rt::load_f(reinterpret_cast<const uint8_t*>(b.data()) + 2 * j, p.in)) : b[j];
        if (std::isfinite(x)) amax = std::max(amax, std::fabs(x));
      }
    }
  double tol = double(p.K + 2) * 0x1p-23 * double(p.K) * double(amax) * double(amax);
  const char* names = "abcd";
  for (int i = 0; i < kBufs; ++i)
    for (size_t e = 0; e < ref[size_t(i)].size(); ++e) {
      float x = ref[size_t(i)][e], y = got[size_t(i)][e];
      if (std::memcmp(&x, &y, 4) == 0) continue;
      if (bound && !p.narrow(i) && std::isfinite(x) && std::isfinite(y) && std::fabs(double(x) - double(y)) <= tol)
        continue;
      char msg[160];
      std::snprintf(msg, sizeof msg, "%c[%zu]: want %.9g, got %.9g%s", names[i], e, double(x), double(y),
                    bound ? " (beyond the summation bound)" : "");
      return msg;
    }
  return "";
}

struct Stats {
  size_t programs = 0, jit_runs[2] = {0, 0}, failed = 0;
};

constexpr const char* kTargets[2] = {"avx2", "avx512"};

bool run_seed(uint64_t seed, const std::string& out_dir, const bool (&jit)[2], bool verbose, bool print,
              Stats& st) {
  Program p = generate(seed);
  ++st.programs;
  if (print) std::printf("%s\n", p.text.c_str());
  auto fail = [&](const std::string& what) {
    std::string path = out_dir + "/opt_gemm_" + std::to_string(seed) + ".pto";
    std::ofstream(path) << p.text;
    std::printf("FAIL seed %" PRIu64 ": %s\n  program: %s\n", seed, what.c_str(), path.c_str());
    if (verbose) std::printf("%s\n", p.text.c_str());
    ++st.failed;
    return false;
  };
  Parsed o0, o2;
  if (!parse("opt_gemm.pto", p.text, o0)) return fail("the generated program does not verify (a generator bug):\n" + o0.diag);
  if (!parse("opt_gemm.pto", p.text, o2)) return fail("second parse failed");
  {
    Diag d(o2.src.get());
    opt::Options oo;
    oo.level = opt::Level::O2;
    if (!opt::optimize(*o2.m, oo, opt::TargetDesc{32, 16}, d, nullptr)) return fail("-O2 failed:\n" + d.text());
  }
  std::string err;
  Bufs ref = p.bufs;
  if (!interpret(p, *o0.m, ref, err)) return fail("interpreter: " + err);
  Bufs i2 = p.bufs;
  if (!interpret(p, *o2.m, i2, err)) return fail("interpreter on the -O2 module: " + err);
  if (std::string d = compare(p, ref, i2, false); !d.empty()) return fail("-O2 interpreter differs: " + d);
  for (int t = 0; t < 2; ++t) {
    if (!jit[t]) continue;
    const std::string tn = kTargets[t];
    Bufs j0 = p.bufs, j2 = p.bufs;
    if (!jit_run(p, o0, kTargets[t], j0, err)) return fail(tn + " refused the -O0 module: " + err);
    if (!jit_run(p, o2, kTargets[t], j2, err)) return fail(tn + " refused the -O2 module: " + err);
    ++st.jit_runs[t];
    if (std::string d = compare(p, ref, j0, true); !d.empty()) return fail(tn + " -O0 differs: " + d);
    if (std::string d = compare(p, ref, j2, true); !d.empty()) return fail(tn + " -O2 differs: " + d);
    if (std::string d = compare(p, j0, j2, false); !d.empty()) return fail(tn + " -O2 differs from -O0: " + d);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t start = 1, seeds = 200;
  std::string out_dir = ".";
  bool verbose = false, print = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool more = i + 1 < argc;
    if (a == "--seeds" && more) seeds = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--start" && more) start = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--out" && more) out_dir = argv[++i];
    else if (a == "-v") verbose = true;
    else if (a == "--print") print = true;
    else {
      std::fprintf(stderr, "usage: opt_random_gemm [--seeds N] [--start S] [--out DIR] [-v] [--print]\n");
      return 2;
    }
  }
  bool jit[2];
  for (int t = 0; t < 2; ++t)
    if (!(jit[t] = rt::cpu_supports(kTargets[t])))
      std::printf("this CPU cannot run %s code: its JIT legs are skipped\n", kTargets[t]);
  Stats st;
  for (uint64_t s = start; s < start + seeds; ++s) run_seed(s, out_dir, jit, verbose, print, st);
  std::printf("opt_random_gemm: seeds %" PRIu64 "..%" PRIu64 ": %zu programs, avx2 ran %zu, avx512 %zu; %zu failed\n",
              start, start + seeds - 1, st.programs, st.jit_runs[0], st.jit_runs[1], st.failed);
  return st.failed ? 1 : 0;
}
