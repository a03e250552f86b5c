// Random-program differential test of the optimizer (issue 5): -O0 == -O2.
//
// For each seed a generator writes a valid random PTO kernel (DPS text):
// pointer params (1-3 inputs, 1-3 full outputs, 0-1 row-reduction output),
// index params m, n and (f32) a scalar param; tensor / partition views of
// f32, f16 or i32 matrices; one of four shapes: a static single tile, a loop
// over row tiles with a static width, a loop over row tiles with a dynamic
// width (ragged tails in both directions), or a nested row x column tile
// grid. The loop body is a random chain of 2-12 tile ops (tload, tstore,
// binary, tile-scalar with the constants the simplifier rewrites, unary,
// row reductions + row-expand ops, tmov, texpands; tcvt round trips of a
// tile through f16 / bf16, or f32 in f16 programs), in place or into other
// tiles, with store->load pairs of the same view, stores through a second
// view of the same buffer, dead ops, duplicated scalar and index arithmetic
// and foldable constant arithmetic. Then:
//   1. front end (parse + verify); the interpreter on it is the reference;
//   2. the same text parsed again, opt::optimize at -O2 (TargetDesc{32,16}):
//      the interpreter on it must agree; print_module of the optimized IR
//      must parse, verify and run to the same outputs again;
//      (-O1 is optimized and interpreted too);
//   3. the avx2 JIT of the optimized module (when the CPU has avx2) must
//      agree (a kernel the JIT refuses is counted, not failed).
// Outputs are compared bit for bit (NaNs too: the backends pin payloads),
// except values that went through trowsum or a transcendental (texp, tlog),
// which get a tolerance (DESIGN §6); those are counted as "tolerated".
//
//   opt_random_programs [--seeds N] [--start S] [--out DIR] [-v] [--print]
//                       [--keep-going] [--no-jit] [--loose-nan] [--mutate]
// --print writes each program to stdout; --mutate runs the -O2 leg on a
// deliberately changed program (the test of the test: it must fail);
// --text FILE --start S runs FILE (a reduced opt_rand_S.pto, same params)
// with seed S's inputs.
// On a mismatch: the seed, the first differing element, and the program
// (DIR/opt_rand_<seed>.pto, the optimized IR next to it). Exit 0 / 1.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "diag.h"
#include "frontend.h"
#include "interp.h"
#include "ir.h"
#include "jit.h"
#include "opt.h"
#include "parsed_text.h"
#if __has_include("codegen.h")
#include "codegen.h"
#endif

using namespace ptoas;

namespace {

// ---- random numbers -------------------------------------------------------------

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x1234567ull) { next(); next(); }
  uint64_t next() {  // splitmix64
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int range(int lo, int hi) { return lo + int(next() % uint64_t(hi - lo + 1)); }  // [lo, hi]
  bool chance(double p) { return double(next() >> 11) * 0x1.0p-53 < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[next() % v.size()]; }
  double unit() { return double(next() >> 11) * 0x1.0p-53; }
};

uint32_t f2u(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
float u2f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// f16 bits <-> float (exact widening; narrowing round-to-nearest-even).
float h2f(uint16_t h) {
  uint32_t s = uint32_t(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
  if (e == 31) return u2f(s | 0x7F800000u | (m << 13));
  if (e == 0) {
    float v = std::ldexp(float(m), -24);
    return s ? -v : v;
  }
  return u2f(s | ((e + 112) << 23) | (m << 13));
}
uint16_t f2h(float f) {
  uint32_t u = f2u(f), s = (u >> 16) & 0x8000;
  if (std::isnan(f)) return uint16_t(s | 0x7E00 | ((u >> 13) & 0x3FF));
  float a = std::fabs(f);
  if (a >= 65520.0f) return uint16_t(s | 0x7C00);
  if (a < 0x1.0p-14f) {  // subnormal: multiples of 2^-24
    float q = std::nearbyint(a * 0x1.0p24f);
    return uint16_t(s | uint32_t(q));
  }
  int e;
  float mm = std::frexp(a, &e);  // a = mm * 2^e, mm in [0.5, 1)
  float q = std::nearbyint(std::ldexp(mm, 11));  // 11 bits
  if (q >= 2048.0f) { q /= 2; ++e; }
  uint32_t he = uint32_t(e + 14), hm = uint32_t(q) - 1024;
  if (he >= 31) return uint16_t(s | 0x7C00);
  return uint16_t(s | (he << 10) | hm);
}

// ---- the program --------------------------------------------------------------------

enum class ET { F32, F16, I32 };
const char* et_name(ET e) { return e == ET::F32 ? "f32" : e == ET::F16 ? "f16" : "i32"; }
size_t et_bytes(ET e) { return e == ET::F16 ? 2 : 4; }

enum class Shape { Static, RowsStaticCols, RowsDyn, Grid };
const char* shape_name(Shape s) {
  switch (s) {
    case Shape::Static: return "static";
    case Shape::RowsStaticCols: return "rows";
    case Shape::RowsDyn: return "rows-ragged";
    case Shape::Grid: return "grid";
  }
  return "?";
}

// One GM buffer the kernel gets.
struct Buf {
  std::string name;
  int64_t rows = 0, cols = 0;  // the matrix the views cover
  bool output = false;
  bool col_out = false;        // a row-reduction output: m x (column tiles)
  int taint = 0;               // an output: stores of values that went through sum/exp/log
  std::vector<uint8_t> data;   // rows + 1 rows (the extra one catches stray stores)
};

struct Program {
  uint64_t seed = 0;
  ET et = ET::F32;
  Shape shape = Shape::Static;
  int R = 16, C = 64;
  int64_t m = 0, n = 0;
  int block_num = 1;
  bool has_scalar = false;  // %s of the element type (f32, f16)
  float scalar = 0;
  bool consts = true;       // scalar constants (f16: the avx2 backend refuses them)
  bool fused = false;       // some runs of tile ops written in pto.fuse regions
  std::vector<Buf> bufs;  // inputs, then outputs (the param order)
  std::string text;
  int n_ops = 0;
};

struct Tile {
  std::string name;
  bool col = false;   // an R x 1 col_major (DN) tile
  bool wide = false;  // R x C with the whole tile valid (ragged shapes only)
  bool row = false;   // a 1 x C row (column reductions, column expands)
  bool defined = false;
  bool padded = false;  // tloaded in this body: the part outside the valid region is the pad value
  int taint = 0;
};

// Taint bits: where an exact comparison is not promised (DESIGN §6).
constexpr int kSum = 1, kTrans = 2;

class Gen {
 public:
  Gen(uint64_t seed, Program& p) : r_(seed), r2_(seed ^ 0xC0F7ull), p_(p) {}

  void build();

 private:
  // type spellings
  std::string et() const { return et_name(p_.et); }
  std::string full_t() const { return full_t(et()); }
  std::string full_t(const std::string& e) const {
    std::string s = "!pto.tile_buf<vec, " + std::to_string(p_.R) + "x" + std::to_string(p_.C) + "x" + e;
    switch (p_.shape) {
      case Shape::Static: return s + ">";
      case Shape::RowsStaticCols: return s + ", valid=?x" + std::to_string(p_.C) + ">";
      default: return s + ", valid=?x?>";
    }
  }
  std::string col_t() const {
    std::string s = "!pto.tile_buf<vec, " + std::to_string(p_.R) + "x1x" + et();
    if (p_.shape == Shape::Static) return s + ", blayout=col_major>";
    return s + ", valid=?x1, blayout=col_major>";
  }
  std::string part_t() const {
    switch (p_.shape) {
      case Shape::Static: return "!pto.partition_tensor_view<" + std::to_string(p_.R) + "x" + std::to_string(p_.C) + "x" + et() + ">";
      case Shape::RowsStaticCols: return "!pto.partition_tensor_view<?x" + std::to_string(p_.C) + "x" + et() + ">";
      default: return "!pto.partition_tensor_view<?x?x" + et() + ">";
    }
  }
  std::string colpart_t() const {
    if (p_.shape == Shape::Static) return "!pto.partition_tensor_view<" + std::to_string(p_.R) + "x1x" + et() + ">";
    return "!pto.partition_tensor_view<?x1x" + et() + ">";
  }
  std::string tv_t() const { return "!pto.tensor_view<?x?x" + et() + ">"; }
  const std::string& ty(const Tile& t) { return t.col ? colt_ : t.wide ? widet_ : t.row ? rowt_ : fullt_; }

  void line(const std::string& s) { lines_.push_back({ind_, s}); }
  void wrap_fuse();
  std::string fresh(const std::string& base) { return "%" + base + std::to_string(id_++); }

  // scalars
  std::string scalar_const(double v, bool hex_ok);
  void make_scalars(bool in_body);
  std::string pick_scalar();

  // tiles
  int pick_defined(bool col);
  int pick_any(bool col);
  int pick_dst(bool col, int avoid = -1);
  std::string valid_args(bool col) const;  // an alloc_tile's valid_row / valid_col
  void alloc_tiles();
  void cvt_round_trip();
  void emit_op();
  void emit_final_stores();
  void repeat_last();

  // views of the current body
  struct View {
    std::string name;     // the partition view
    int buf = -1;         // index into p_.bufs
    bool col = false;
    bool stored = false;  // stored in this body (a tload from it is defined)
  };
  std::string partition(const std::string& tv, bool col, bool dup_index);
  void store(int tile, int view);
  void load(int view, int tile);

  Rng r_;
  // The tcvt round trips' own stream: with it, every other line of a
  // seed's program is what it was without them.
  Rng r2_;
  Program& p_;
  std::vector<std::pair<std::string, std::string>> lines_;  // indent, text
  std::string ind_ = "    ";
  int id_ = 0;
  std::string fullt_, colt_, widet_, rowt_;
  std::vector<Tile> tiles_;
  std::vector<std::string> scalars_;
  std::vector<View> views_;
  std::vector<std::string> tv_;      // tensor view per buf
  std::vector<std::string> tv_alias_;  // a second tensor view of the same output buffer
  std::string r0_, k0_, vr_, vc_, ti_, tj_;  // the body's tile offsets / valid extents
  int tmp_ = -1;
  int ops_left_ = 0;
  std::string cvt_, cvt_t_;  // a full tile of the other float type (f32 <-> f16 / bf16), its type
};

std::string fmt_double(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6e", v);
  return b;
}

std::string Gen::scalar_const(double v, bool hex_ok) {
  std::string n = fresh("q");
  std::string lit;
  if (p_.et == ET::I32) {
    lit = std::to_string(int64_t(v));
  } else if (p_.et == ET::F32) {
    if (hex_ok && r_.chance(0.3)) {
      char b[16];
      std::snprintf(b, sizeof b, "0x%08X", f2u(float(v)));
      lit = b;
    } else {
      lit = fmt_double(v);
      if (double(float(std::strtod(lit.c_str(), nullptr))) != double(float(v))) {
        char b[16];
        std::snprintf(b, sizeof b, "0x%08X", f2u(float(v)));
        lit = b;
      }
    }
  } else {  // f16: hex bits or a short decimal
    char b[16];
    std::snprintf(b, sizeof b, "0x%04X", f2h(float(v)));
    lit = (hex_ok && r_.chance(0.4)) ? std::string(b) : fmt_double(double(h2f(f2h(float(v)))));
  }
  line(n + " = arith.constant " + lit + " : " + et());
  return n;
}

// The scalar pool: the constants the simplifier knows (1, 0, -0, 2, 0.5, 3,
// -1), a random one, the scalar parameter, foldable arithmetic on constants
// and duplicated arithmetic (CSE).
void Gen::make_scalars(bool in_body) {
  std::vector<double> special = {1.0, 0.0, 2.0, 0.5, 3.0, -1.0};
  if (p_.et == ET::I32) special = {1, 0, 2, 3, -1, 7, -5};
  int n = !p_.consts ? 0 : in_body ? r_.range(0, 2) : r_.range(2, 5);
  std::vector<std::string> made;
  for (int i = 0; i < n; ++i) {
    double v = r_.chance(0.75) ? r_.pick(special)
               : p_.et == ET::I32 ? double(r_.range(-1000, 1000))
                                   : double(float((r_.unit() - 0.5) * 8));
    if (p_.et != ET::I32 && r_.chance(0.1)) v = -0.0;
    made.push_back(scalar_const(v, true));
  }
  if (!in_body && p_.has_scalar) made.push_back("%s");
  if (p_.et == ET::F16 || made.empty()) {  // no scalar arith on f16 (x86 refuses it)
    for (auto& s : made) scalars_.push_back(s);
    return;
  }
  std::string sfx = p_.et == ET::I32 ? "i" : "f";
  std::vector<std::string> ops = {"add", "sub", "mul"};
  if (p_.et == ET::F32) ops.push_back("div");
  if (p_.et == ET::F32) { ops.push_back("maximum"); ops.push_back("minimum"); }
  int k = r_.range(0, 3);
  for (int i = 0; i < k; ++i) {
    std::string a = r_.pick(made), b = r_.pick(made);
    std::string op = r_.pick(ops);
    std::string opname = op == "maximum" || op == "minimum" ? "arith." + op + "f" : "arith." + op + sfx;
    std::string x = fresh("a");
    line(x + " = " + opname + " " + a + ", " + b + " : " + et());
    made.push_back(x);
    if (r_.chance(0.5)) {  // the same computation again: CSE
      std::string y = fresh("a");
      line(y + " = " + opname + " " + a + ", " + b + " : " + et());
      made.push_back(y);
    }
  }
  if (p_.et == ET::F32 && r_.chance(0.3)) {  // -0.0 made by arithmetic
    std::string z = scalar_const(0.0, false), x = fresh("a");
    line(x + " = arith.negf " + z + " : f32");
    made.push_back(x);
  }
  for (auto& s : made) scalars_.push_back(s);
}

std::string Gen::pick_scalar() { return r_.pick(scalars_); }

int Gen::pick_defined(bool col) {
  std::vector<int> c;
  for (size_t i = 0; i < tiles_.size(); ++i)
    if (tiles_[i].col == col && !tiles_[i].wide && !tiles_[i].row && tiles_[i].defined && int(i) != tmp_)
      c.push_back(int(i));
  return c.empty() ? -1 : r_.pick(c);
}
int Gen::pick_any(bool col) {
  std::vector<int> c;
  for (size_t i = 0; i < tiles_.size(); ++i)
    if (tiles_[i].col == col && !tiles_[i].wide && !tiles_[i].row && int(i) != tmp_) c.push_back(int(i));
  return r_.pick(c);
}
// A destination: often one of the sources (in place), else any tile.
int Gen::pick_dst(bool col, int src) {
  if (src >= 0 && r_.chance(0.35)) return src;
  return pick_any(col);
}

std::string Gen::valid_args(bool col) const {
  std::string vrow = p_.shape == Shape::Static ? "" : "valid_row = " + vr_ + " ";
  std::string vcol = (!col && (p_.shape == Shape::RowsDyn || p_.shape == Shape::Grid)) ? "valid_col = " + vc_ + " " : "";
  return vrow + vcol;
}

void Gen::alloc_tiles() {
  int nfull = r_.range(2, 5), ncol = r_.range(1, 3);
  for (int i = 0; i < nfull + 1 + ncol; ++i) {
    Tile t;
    t.col = i > nfull;
    t.name = fresh(t.col ? "u" : "t");
    line(t.name + " = pto.alloc_tile " + valid_args(t.col) + ": " + (t.col ? colt_ : fullt_));
    tiles_.push_back(t);
  }
  tmp_ = nfull;  // the reductions' scratch operand, never read otherwise
  if (r_.chance(0.5)) {  // a 1 x C row: column reductions and expands
    Tile t;
    t.row = true;
    t.name = fresh("h");
    line(t.name + " = pto.alloc_tile valid_row = %c1 valid_col = " + vc_ + " : " + rowt_);
    tiles_.push_back(t);
  }
  if (p_.shape != Shape::Static && r_.chance(0.6)) {
    // a tile whose whole storage is valid: ops into it read their sources
    // past the sources' valid regions (docs/semantics.md §0: a source's
    // valid region is not consulted), so only tloaded tiles, whose rest is
    // the pad value, are its sources; a forwarded tload that leaves the
    // previous iteration's values there shows up
    Tile t;
    t.wide = true;
    t.name = fresh("g");
    line(t.name + " = pto.alloc_tile : " + widet_);
    tiles_.push_back(t);
  }
}

// A partition of tensor view `tv` at this body's tile; dup_index recomputes
// the row offset (the same value again: CSE) first.
std::string Gen::partition(const std::string& tv, bool col, bool dup_index) {
  std::string r0 = r0_;
  if (dup_index && p_.shape != Shape::Static) {
    r0 = fresh("i");
    line(r0 + " = arith.muli " + ti_ + ", %cR : index");
  }
  std::string v = fresh("p");
  std::string off, sz;
  if (col) {
    off = "[" + r0 + ", " + (p_.shape == Shape::Grid ? tj_ : std::string("%c0")) + "]";
    sz = "[" + vr_ + ", %c1]";
    line(v + " = pto.partition_view " + tv + ", offsets = " + off + ", sizes = " + sz + " : " + tv_t() +
         " -> " + colpart_t());
  } else {
    off = "[" + r0 + ", " + k0_ + "]";
    sz = "[" + vr_ + ", " + vc_ + "]";
    line(v + " = pto.partition_view " + tv + ", offsets = " + off + ", sizes = " + sz + " : " + tv_t() +
         " -> " + part_t());
  }
  return v;
}

void Gen::store(int tile, int view) {
  Tile& t = tiles_[size_t(tile)];
  View& v = views_[size_t(view)];
  line("pto.tstore ins(" + t.name + " : " + ty(t) + ") outs(" + v.name + " : " +
       (v.col ? colpart_t() : part_t()) + ")");
  p_.bufs[size_t(v.buf)].taint |= t.taint;
  // every view of this buffer at this tile now reads what was stored
  for (View& w : views_)
    if (w.buf == v.buf && w.col == v.col) w.stored = true;
  ++p_.n_ops;
}

void Gen::load(int view, int tile) {
  Tile& t = tiles_[size_t(tile)];
  View& v = views_[size_t(view)];
  line("pto.tload ins(" + v.name + " : " + (v.col ? colpart_t() : part_t()) + ") outs(" + t.name + " : " +
       ty(t) + ")");
  t.defined = true;
  t.padded = true;
  t.taint = v.buf >= 0 && p_.bufs[size_t(v.buf)].output ? p_.bufs[size_t(v.buf)].taint : 0;
  ++p_.n_ops;
}

void Gen::emit_op() {
  const bool f = p_.et != ET::I32;
  int kind = r_.range(0, 99);
  auto bin = [&](bool col) {
    int a = pick_defined(col), b = pick_defined(col);
    if (a < 0 || b < 0) return false;
    std::vector<std::string> ops = {"tadd", "tsub", "tmul", "tmax", "tmin"};
    if (f) ops.push_back("tdiv");
    std::string op = r_.pick(ops);
    int d = r_.chance(0.5) ? pick_dst(col, a) : pick_dst(col, b);
    const Tile &ta = tiles_[size_t(a)], &tb = tiles_[size_t(b)];
    std::string T = ty(ta);
    line("pto." + op + " ins(" + ta.name + ", " + tb.name + " : " + T + ", " + T + ") outs(" +
         tiles_[size_t(d)].name + " : " + T + ")");
    int taint = ta.taint | tb.taint;
    tiles_[size_t(d)].defined = true;
    tiles_[size_t(d)].taint = taint;
    return true;
  };
  auto scal = [&](bool col) {
    int a = pick_defined(col);
    if (a < 0) return false;
    std::vector<std::string> ops = {"tadds", "tmuls", "tadds", "tmuls", "tsubs", "tmaxs", "tmins"};
    if (f) { ops.push_back("tdivs"); ops.push_back("tdivs"); }
    std::string op = r_.pick(ops), s = pick_scalar();
    int d = pick_dst(col, a);
    const Tile& ta = tiles_[size_t(a)];
    std::string T = ty(ta);
    if (op == "tdivs" && r_.chance(0.3))
      line("pto.tdivs ins(" + s + ", " + ta.name + " : " + et() + ", " + T + ") outs(" +
           tiles_[size_t(d)].name + " : " + T + ")");
    else
      line("pto." + op + " ins(" + ta.name + ", " + s + " : " + T + ", " + et() + ") outs(" +
           tiles_[size_t(d)].name + " : " + T + ")");
    int taint = ta.taint;
    tiles_[size_t(d)].defined = true;
    tiles_[size_t(d)].taint = taint;
    return true;
  };
  auto unary = [&](bool col) {
    int a = pick_defined(col);
    if (a < 0) return false;
    std::vector<std::string> ops = {"tabs", "tneg", "trelu"};
    if (f) { ops.push_back("texp"); ops.push_back("tlog"); ops.push_back("tsqrt"); ops.push_back("texp"); }
    std::string op = r_.pick(ops);
    int d = pick_dst(col, a);
    std::string T = ty(tiles_[size_t(a)]);
    int taint = tiles_[size_t(a)].taint;
    std::string src = tiles_[size_t(a)].name;
    // keep exp / log / sqrt inputs sane most of the time (not only NaN / Inf out)
    if ((op == "tlog" || op == "tsqrt") && r_.chance(0.7)) {
      line("pto.tabs ins(" + src + " : " + T + ") outs(" + tiles_[size_t(d)].name + " : " + T + ")");
      src = tiles_[size_t(d)].name;
    } else if (op == "texp" && r_.chance(0.7) && !p_.consts) {  // exp(-|x|)
      line("pto.tabs ins(" + src + " : " + T + ") outs(" + tiles_[size_t(d)].name + " : " + T + ")");
      line("pto.tneg ins(" + tiles_[size_t(d)].name + " : " + T + ") outs(" + tiles_[size_t(d)].name + " : " + T + ")");
      src = tiles_[size_t(d)].name;
    } else if (op == "texp" && r_.chance(0.7)) {
      std::string c = scalar_const(p_.et == ET::F16 ? 8.0 : 40.0, false);
      line("pto.tmins ins(" + src + ", " + c + " : " + T + ", " + et() + ") outs(" + tiles_[size_t(d)].name +
           " : " + T + ")");
      src = tiles_[size_t(d)].name;
    }
    line("pto." + op + " ins(" + src + " : " + T + ") outs(" + tiles_[size_t(d)].name + " : " + T + ")");
    tiles_[size_t(d)].defined = true;
    tiles_[size_t(d)].taint = taint | (op == "texp" || op == "tlog" ? kTrans : 0);
    return true;
  };
  auto reduce = [&]() {
    int a = pick_defined(false);
    if (a < 0) return false;
    std::string op = r_.pick(std::vector<std::string>{"trowsum", "trowmax", "trowmin", "trowsum"});
    int d = pick_any(true);
    std::string ins = tiles_[size_t(a)].name + ", " + tiles_[size_t(tmp_)].name + " : " + fullt_ + ", " + fullt_;
    line("pto." + op + " ins(" + ins + ") outs(" + tiles_[size_t(d)].name + " : " + colt_ + ")");
    tiles_[size_t(d)].defined = true;
    tiles_[size_t(d)].taint = tiles_[size_t(a)].taint | (op == "trowsum" && f ? kSum : 0);
    return true;
  };
  // A row or column expand into tile d: the plain form copies the narrow
  // operand (type nt); the binary ones take the wide and the narrow tile in
  // either order.
  auto put_expand = [&](const std::string& op, bool plain, const Tile& wide, const Tile& narrow,
                        const std::string& nt, int d) {
    Tile& dt = tiles_[size_t(d)];
    if (plain) {
      line("pto." + op + " ins(" + narrow.name + " : " + nt + ") outs(" + dt.name + " : " + fullt_ + ")");
      dt.taint = narrow.taint;
    } else {
      if (r_.chance(0.25))  // the narrow operand first
        line("pto." + op + " ins(" + narrow.name + ", " + wide.name + " : " + nt + ", " + fullt_ + ") outs(" +
             dt.name + " : " + fullt_ + ")");
      else
        line("pto." + op + " ins(" + wide.name + ", " + narrow.name + " : " + fullt_ + ", " + nt + ") outs(" +
             dt.name + " : " + fullt_ + ")");
      dt.taint = wide.taint | narrow.taint;
    }
    dt.defined = true;
  };
  auto expand = [&]() {
    int a = pick_defined(false), c = pick_defined(true);
    if (a < 0 || c < 0) return false;
    std::vector<std::string> ops = {"trowexpandadd", "trowexpandsub", "trowexpandmul", "trowexpandmax",
                                    "trowexpandmin", "trowexpand"};
    if (f) { ops.push_back("trowexpanddiv"); ops.push_back("trowexpandsub"); }
    std::string op = r_.pick(ops);
    int d = pick_dst(false, a);
    const Tile &ta = tiles_[size_t(a)], &tc = tiles_[size_t(c)];
    put_expand(op, op == "trowexpand", ta, tc, colt_, d);
    return true;
  };
  auto mov = [&](bool col) {
    int a = pick_defined(col);
    if (a < 0) return false;
    int d = pick_any(col);
    std::string T = ty(tiles_[size_t(a)]);
    line("pto.tmov ins(" + tiles_[size_t(a)].name + " : " + T + ") outs(" + tiles_[size_t(d)].name + " : " + T +
         ")");
    tiles_[size_t(d)].defined = true;
    tiles_[size_t(d)].taint = tiles_[size_t(a)].taint;
    return true;
  };
  auto expands = [&](bool col) {
    int d = pick_any(col);
    line("pto.texpands ins(" + pick_scalar() + " : " + et() + ") outs(" + tiles_[size_t(d)].name + " : " +
         ty(tiles_[size_t(d)]) + ")");
    tiles_[size_t(d)].defined = true;
    tiles_[size_t(d)].taint = 0;
    return true;
  };
  auto ld = [&]() {
    // an input, or an output view stored earlier in this body (store->load)
    std::vector<int> c;
    for (size_t i = 0; i < views_.size(); ++i)
      if (!views_[i].col && (!p_.bufs[size_t(views_[i].buf)].output || views_[i].stored)) c.push_back(int(i));
    if (c.empty()) return false;
    int v = r_.pick(c);
    if (p_.bufs[size_t(views_[size_t(v)].buf)].output && r_.chance(0.3)) {
      // a fresh partition of the same place (the same view again, or the alias)
      View w = views_[size_t(v)];
      bool alias = !tv_alias_[size_t(w.buf)].empty() && r_.chance(0.5);
      w.name = partition(alias ? tv_alias_[size_t(w.buf)] : tv_[size_t(w.buf)], false, r_.chance(0.5));
      views_.push_back(w);
      v = int(views_.size()) - 1;
    }
    load(v, pick_any(false));
    return true;
  };
  auto st = [&]() {
    bool col = r_.chance(0.25);
    int a = pick_defined(col);
    if (a < 0) return false;
    std::vector<int> c;
    for (size_t i = 0; i < views_.size(); ++i)
      if (views_[i].col == col && p_.bufs[size_t(views_[i].buf)].output) c.push_back(int(i));
    if (c.empty()) return false;
    int v = r_.pick(c);
    store(a, v);
    if (!col && r_.chance(0.3)) {
      // the first column of what was just stored, through an R x 1 view of
      // the full buffer: read into a column tile, or overwritten by one
      // (a later full load must see the merge, not the forwarded tile)
      const View& w = views_[size_t(v)];
      std::string cv = fresh("p");
      line(cv + " = pto.partition_view " + (tv_alias_[size_t(w.buf)].empty() || r_.chance(0.5) ? tv_[size_t(w.buf)] : tv_alias_[size_t(w.buf)]) +
           ", offsets = [" + r0_ + ", " + k0_ + "], sizes = [" + vr_ + ", %c1] : " + tv_t() + " -> " + colpart_t());
      int c = pick_defined(true);
      Buf& b = p_.bufs[size_t(w.buf)];
      if (c >= 0 && r_.chance(0.5)) {
        line("pto.tstore ins(" + tiles_[size_t(c)].name + " : " + colt_ + ") outs(" + cv + " : " + colpart_t() + ")");
        b.taint |= tiles_[size_t(c)].taint;
      } else {
        int d = pick_any(true);
        line("pto.tload ins(" + cv + " : " + colpart_t() + ") outs(" + tiles_[size_t(d)].name + " : " + colt_ + ")");
        tiles_[size_t(d)].defined = true;
        tiles_[size_t(d)].taint = b.taint;
      }
      ++p_.n_ops;
    }
    if (!col && r_.chance(0.5)) {  // and read it back at once
      int v2 = v;
      if (r_.chance(0.4)) {
        View w = views_[size_t(v)];
        bool alias = !tv_alias_[size_t(w.buf)].empty() && r_.chance(0.5);
        w.name = partition(alias ? tv_alias_[size_t(w.buf)] : tv_[size_t(w.buf)], false, r_.chance(0.5));
        views_.push_back(w);
        v2 = int(views_.size()) - 1;
      }
      int x = pick_any(false);
      load(v2, x);
      int w = -1;
      for (size_t i = 0; i < tiles_.size(); ++i)
        if (tiles_[i].wide) w = int(i);
      if (w >= 0 && r_.chance(0.6)) {
        // the whole tile that was read back (pad included) into the wide
        // tile, and maybe reduced over its whole rows right away and stored
        line("pto.tmov ins(" + tiles_[size_t(x)].name + " : " + fullt_ + ") outs(" + tiles_[size_t(w)].name + " : " +
             widet_ + ")");
        tiles_[size_t(w)].defined = true;
        tiles_[size_t(w)].taint = tiles_[size_t(x)].taint;
        if (r_.chance(0.6)) {
          std::string op = r_.pick(std::vector<std::string>{"trowsum", "trowmax", "trowmin"});
          int d = pick_any(true);
          line("pto." + op + " ins(" + tiles_[size_t(w)].name + ", " + tiles_[size_t(tmp_)].name + " : " + widet_ +
               ", " + fullt_ + ") outs(" + tiles_[size_t(d)].name + " : " + colt_ + ")");
          tiles_[size_t(d)].defined = true;
          tiles_[size_t(d)].taint = tiles_[size_t(w)].taint | (op == "trowsum" && p_.et != ET::I32 ? kSum : 0);
          for (size_t i = 0; i < views_.size(); ++i)
            if (views_[i].col && r_.chance(0.7)) {
              store(d, int(i));
              break;
            }
        }
      }
    }
    return true;
  };
  // ops into the wide tile (sources: tloaded tiles, or the wide tile), and
  // ops that read the wide tile into an ordinary one
  auto wide = [&]() {
    int w = -1;
    std::vector<int> src;
    for (size_t i = 0; i < tiles_.size(); ++i) {
      if (tiles_[i].wide) w = int(i);
      if ((tiles_[i].padded && !tiles_[i].col && int(i) != tmp_) || (tiles_[i].wide && tiles_[i].defined))
        src.push_back(int(i));
    }
    if (w < 0 || src.empty()) return false;
    if (tiles_[size_t(w)].defined && r_.chance(0.35)) {
      // a row reduction over the whole wide tile: the only way its part
      // outside the ordinary tiles' valid region reaches an output (the
      // stale columns of a grid's last column tile, say)
      std::string op = r_.pick(std::vector<std::string>{"trowsum", "trowmax", "trowmin"});
      int d = pick_any(true);
      line("pto." + op + " ins(" + tiles_[size_t(w)].name + ", " + tiles_[size_t(tmp_)].name + " : " + widet_ +
           ", " + fullt_ + ") outs(" + tiles_[size_t(d)].name + " : " + colt_ + ")");
      tiles_[size_t(d)].defined = true;
      tiles_[size_t(d)].taint = tiles_[size_t(w)].taint | (op == "trowsum" && p_.et != ET::I32 ? kSum : 0);
      return true;
    }
    int a = r_.pick(src), b = r_.pick(src);
    int d = w;
    if (tiles_[size_t(w)].defined && r_.chance(0.5)) {  // read the wide tile into an ordinary one
      a = w;
      b = pick_defined(false);
      if (b < 0) b = w;
      d = pick_any(false);
    }
    const Tile &ta = tiles_[size_t(a)], &tb = tiles_[size_t(b)];
    Tile& td = tiles_[size_t(d)];
    std::vector<std::string> bins = {"tadd", "tsub", "tmul", "tmax", "tmin"};
    int taint = ta.taint | tb.taint;
    if (r_.chance(0.6)) {
      line("pto." + r_.pick(bins) + " ins(" + ta.name + ", " + tb.name + " : " + ty(ta) + ", " + ty(tb) + ") outs(" +
           td.name + " : " + ty(td) + ")");
    } else if (r_.chance(0.5)) {
      line("pto." + r_.pick(std::vector<std::string>{"tabs", "tneg", "trelu"}) + " ins(" + ta.name + " : " + ty(ta) +
           ") outs(" + td.name + " : " + ty(td) + ")");
      taint = ta.taint;
    } else {
      line("pto." + r_.pick(std::vector<std::string>{"tadds", "tmuls", "tmaxs"}) + " ins(" + ta.name + ", " +
           pick_scalar() + " : " + ty(ta) + ", " + et() + ") outs(" + td.name + " : " + ty(td) + ")");
      taint = ta.taint;
    }
    td.defined = true;
    td.taint = taint;
    return true;
  };
  // column reductions into the row tile (from an ordinary tile, or over the
  // whole wide tile: its pad rows), column expands from it
  auto colops = [&]() {
    int h = -1, w = -1;
    for (size_t i = 0; i < tiles_.size(); ++i) {
      if (tiles_[i].row) h = int(i);
      if (tiles_[i].wide && tiles_[i].defined) w = int(i);
    }
    if (h < 0) return false;
    Tile& th = tiles_[size_t(h)];
    if (!th.defined || r_.chance(0.4)) {
      int a = w >= 0 && r_.chance(0.4) ? w : pick_defined(false);
      if (a < 0) return false;
      std::string op = r_.pick(std::vector<std::string>{"tcolsum", "tcolmax", "tcolmin", "tcolsum"});
      const Tile& ta = tiles_[size_t(a)];
      line("pto." + op + " ins(" + ta.name + " : " + ty(ta) + ") outs(" + th.name + " : " + rowt_ + ")");
      th.defined = true;
      th.taint = ta.taint | (op == "tcolsum" && f ? kSum : 0);
      return true;
    }
    int a = pick_defined(false);
    if (a < 0) return false;
    std::vector<std::string> ops = {"tcolexpandadd", "tcolexpandsub", "tcolexpandmul", "tcolexpandmax",
                                    "tcolexpandmin", "tcolexpand"};
    if (f) ops.push_back("tcolexpanddiv");
    std::string op = r_.pick(ops);
    int d = pick_dst(false, a);
    const Tile& ta = tiles_[size_t(a)];
    put_expand(op, op == "tcolexpand", ta, th, rowt_, d);
    return true;
  };
  bool done = false;
  if (kind < 12) done = ld();
  else if (kind < 22) done = st();
  else if (kind < 40) done = bin(false);
  else if (kind < 55) done = scal(false);
  else if (kind < 67) done = unary(false);
  else if (kind < 70) done = reduce();
  else if (kind < 73) done = wide();
  else if (kind < 79) done = expand();
  else if (kind < 84) done = colops();
  else if (kind < 87) done = mov(r_.chance(0.3));
  else if (kind < 89) done = expands(r_.chance(0.3));
  else if (kind < 92) done = bin(true);
  else if (kind < 95) done = scal(true);
  else if (kind < 97) done = unary(true);
  else {  // a dead op: a tile nobody reads afterwards unless chance has it
    int a = pick_defined(false);
    if (a >= 0) {
      int d = pick_any(false);
      line("pto.tmuls ins(" + tiles_[size_t(a)].name + ", " + pick_scalar() + " : " + fullt_ + ", " + et() +
           ") outs(" + tiles_[size_t(d)].name + " : " + fullt_ + ")");
      tiles_[size_t(d)].defined = true;
      tiles_[size_t(d)].taint = tiles_[size_t(a)].taint;
      done = true;
    }
  }
  if (done) {
    --ops_left_;
    ++p_.n_ops;
    repeat_last();
    if (!cvt_.empty() && r2_.chance(0.2)) cvt_round_trip();
  }
}

// A defined full tile through the other float type and back, in place
// (f32 -> bf16 / f16 -> f32 rounds, f16 -> f32 -> f16 is exact): the
// x86 fused regions take tcvt. Untainted tiles only: a rounding to 16 bits
// would magnify a tolerated difference.
void Gen::cvt_round_trip() {
  std::vector<int> c;
  for (size_t i = 0; i < tiles_.size(); ++i) {
    const Tile& t = tiles_[i];
    if (!t.col && !t.wide && !t.row && t.defined && !t.taint && int(i) != tmp_) c.push_back(int(i));
  }
  if (c.empty()) return;
  const Tile& t = tiles_[size_t(r2_.pick(c))];
  const char* rm = r2_.chance(0.5) ? "" : " {rmode = #pto<round_mode RINT>}";
  line("pto.tcvt ins(" + t.name + rm + " : " + fullt_ + ") outs(" + cvt_ + " : " + cvt_t_ + ")");
  line("pto.tcvt ins(" + cvt_ + " : " + cvt_t_ + ") outs(" + t.name + " : " + fullt_ + ")");
  p_.n_ops += 2;
}

// Sometimes the op just written again into another tile: the same value
// twice (tile CSE bait), or, after an in-place op, a different one (which
// must not be merged).
void Gen::repeat_last() {
  if (lines_.empty() || !r_.chance(0.12)) return;
  std::string t = lines_.back().second;
  if (t.rfind("pto.t", 0) != 0 || t.rfind("pto.tstore", 0) == 0 || t.rfind("pto.tload", 0) == 0) return;
  size_t at = t.find("outs(");
  if (at == std::string::npos) return;
  size_t nb = at + 5, ne = t.find(' ', nb);
  std::string old = t.substr(nb, ne - nb);
  int od = -1;
  for (size_t i = 0; i < tiles_.size(); ++i)
    if (tiles_[i].name == old) od = int(i);
  if (od < 0 || tiles_[size_t(od)].wide || tiles_[size_t(od)].row) return;
  int d = pick_any(tiles_[size_t(od)].col);
  line(t.substr(0, nb) + tiles_[size_t(d)].name + t.substr(ne));
  tiles_[size_t(d)].defined = true;
  tiles_[size_t(d)].taint = tiles_[size_t(od)].taint;
  ++p_.n_ops;
}

void Gen::emit_final_stores() {
  for (size_t i = 0; i < views_.size(); ++i) {
    const View& v = views_[i];
    if (!p_.bufs[size_t(v.buf)].output || v.stored) continue;
    if (v.name.empty()) continue;
    int a = pick_defined(v.col);
    if (a < 0) continue;
    store(a, int(i));
  }
}

// Wraps some runs of consecutive tile ops (at one nesting level) in
// pto.fuse { ... } regions: what the fusion pass makes, written by hand.
void Gen::wrap_fuse() {
  auto is_tile_op = [](const std::string& t) { return t.rfind("pto.t", 0) == 0; };
  std::vector<std::pair<std::string, std::string>> out;
  size_t i = 0;
  while (i < lines_.size()) {
    if (!is_tile_op(lines_[i].second)) {
      out.push_back(lines_[i++]);
      continue;
    }
    size_t j = i;
    while (j < lines_.size() && is_tile_op(lines_[j].second) && lines_[j].first == lines_[i].first) ++j;
    // [i, j) is a run: wrap a random sub-run of it
    size_t a = i + size_t(r_.range(0, int(j - i) - 1));
    size_t b = a + 1 + size_t(r_.range(0, int(j - a) - 1));
    bool wrap = r_.chance(0.7);
    for (size_t k = i; k < j; ++k) {
      if (wrap && k == a) out.push_back({lines_[k].first, "pto.fuse {"});
      out.push_back({(wrap && k >= a && k < b ? "  " : "") + lines_[k].first, lines_[k].second});
      if (wrap && k + 1 == b) out.push_back({lines_[k].first, "}"});
    }
    i = j;
  }
  lines_ = out;
}

void Gen::build() {
  Program& p = p_;
  int etk = r_.range(0, 9);
  p.et = etk < 7 ? ET::F32 : etk < 9 ? ET::F16 : ET::I32;
  p.shape = Shape(r_.range(0, 3));
  p.R = r_.chance(0.5) ? 16 : 8;
  if (p.et == ET::F16) p.R = 16;
  std::vector<int> cols = p.et == ET::F16 ? std::vector<int>{16, 32, 64} : std::vector<int>{8, 16, 32, 64};
  p.C = r_.pick(cols);
  switch (p.shape) {
    case Shape::Static: p.m = p.R; p.n = p.C; break;
    case Shape::RowsStaticCols: p.m = r_.range(1, 3 * p.R); p.n = p.C; break;
    case Shape::RowsDyn: p.m = r_.range(1, 3 * p.R); p.n = r_.range(1, p.C); break;
    case Shape::Grid: p.m = r_.range(1, 2 * p.R + 3); p.n = r_.range(1, 2 * p.C + 5); break;
  }
  if (r_.chance(0.2) && p.shape != Shape::Static) p.m = p.R * r_.range(1, 2);  // no ragged rows
  p.block_num = r_.range(1, 3);
  p.has_scalar = p.et == ET::F16 || (p.et == ET::F32 && r_.chance(0.7));
  p.consts = p.et != ET::F16 || r_.chance(0.3);
  p.fused = r_.chance(0.3);
  if (p.has_scalar) {
    std::vector<float> sv = {1.0f, 0.0f, -0.0f, 2.0f, 0.5f, 3.0f, -1.5f, 1e-40f, 1e30f};
    p.scalar = r_.chance(0.6) ? r_.pick(sv) : float((r_.unit() - 0.5) * 10);
    if (r_.chance(0.03)) p.scalar = std::nanf("");
    if (p.et == ET::F16) p.scalar = h2f(f2h(p.scalar));
  }
  int nin = r_.range(1, 3), nout = r_.range(1, 3);
  bool colout = r_.chance(0.5);
  int64_t tn = p.shape == Shape::Grid ? (p.n + p.C - 1) / p.C : 1;
  for (int i = 0; i < nin; ++i) p.bufs.push_back(Buf{"x" + std::to_string(i), p.m, p.n, false, false, 0, {}});
  for (int i = 0; i < nout; ++i) p.bufs.push_back(Buf{"y" + std::to_string(i), p.m, p.n, true, false, 0, {}});
  if (colout) p.bufs.push_back(Buf{"z0", p.m, tn, true, true, 0, {}});
  fullt_ = full_t();
  widet_ = "!pto.tile_buf<vec, " + std::to_string(p.R) + "x" + std::to_string(p.C) + "x" + et_name(p.et) + ">";
  rowt_ = "!pto.tile_buf<vec, 1x" + std::to_string(p.C) + "x" + et_name(p.et) + ", valid=?x?>";
  colt_ = col_t();

  std::ostringstream head;
  head << "// opt_random_programs seed " << p.seed << ": " << et_name(p.et) << ", " << shape_name(p.shape) << ", "
       << p.R << "x" << p.C << " tiles, m=" << p.m << " n=" << p.n << ", " << p.block_num << " block(s)\n";
  head << "module attributes {pto.target_arch = \"a5\"} {\n  func.func @rand(";
  for (size_t i = 0; i < p.bufs.size(); ++i) head << (i ? ", " : "") << "%" << p.bufs[i].name << ": !pto.ptr<" << et() << ">";
  if (p.has_scalar) head << ", %s: " << et();
  head << ", %m: index, %n: index)\n      attributes {pto.kernel_kind = #pto.kernel_kind<vector>, pto.entry} {\n";

  line("%c0 = arith.constant 0 : index");
  line("%c1 = arith.constant 1 : index");
  if (p.shape != Shape::Static && r_.chance(0.5)) {  // a folded constant
    line("%cRh = arith.constant " + std::to_string(p.R / 2) + " : index");
    line("%cR = arith.addi %cRh, %cRh : index");
  } else {
    line("%cR = arith.constant " + std::to_string(p.R) + " : index");
  }
  line("%cC = arith.constant " + std::to_string(p.C) + " : index");
  line("%cRm1 = arith.constant " + std::to_string(p.R - 1) + " : index");
  line("%cCm1 = arith.constant " + std::to_string(p.C - 1) + " : index");
  line("%bid64 = pto.get_block_idx");
  line("%nb64 = pto.get_block_num");
  line("%bid = arith.index_cast %bid64 : i64 to index");
  line("%nb = arith.index_cast %nb64 : i64 to index");
  std::string tnv = "%c1";
  if (p.shape == Shape::Grid) {
    line("%ncr = arith.addi %n, %cCm1 : index");
    line("%tn = arith.divui %ncr, %cC : index");
    tnv = "%tn";
  }
  for (size_t i = 0; i < p.bufs.size(); ++i) {
    const Buf& b = p.bufs[i];
    std::string tv = "%v" + b.name;
    if (b.col_out)
      line(tv + " = pto.make_tensor_view %" + b.name + ", shape = [%m, " + tnv + "], strides = [" + tnv +
           ", %c1] {layout = #pto.layout<nd>} : " + tv_t());
    else
      line(tv + " = pto.make_tensor_view %" + b.name + ", shape = [%m, %n], strides = [%n, %c1] {layout = #pto.layout<nd>} : " +
           tv_t());
    tv_.push_back(tv);
    std::string alias;
    if (b.output && !b.col_out && r_.chance(0.4)) {  // a second view of the same buffer
      alias = "%w" + b.name;
      line(alias + " = pto.make_tensor_view %" + b.name +
           ", shape = [%m, %n], strides = [%n, %c1] {layout = #pto.layout<nd>} : " + tv_t());
    }
    tv_alias_.push_back(alias);
  }
  make_scalars(false);

  // the loop nest
  std::vector<std::string> closers;
  if (p.shape == Shape::Static) {
    r0_ = "%c0";
    k0_ = "%c0";
    vr_ = "%cR";
    vc_ = "%cC";
    ti_ = "%c0";
    tj_ = "%c0";
    // static: one block does the work (every block stores the same values)
  } else {
    line("%mr = arith.addi %m, %cRm1 : index");
    line("%tm = arith.divui %mr, %cR : index");
    line("scf.for %ti = %bid to %tm step %nb {");
    closers.push_back(ind_ + "}");
    ind_ += "  ";
    ti_ = "%ti";
    line("%r0 = arith.muli %ti, %cR : index");
    line("%rr = arith.subi %m, %r0 : index");
    line("%vr = arith.minui %rr, %cR : index");
    r0_ = "%r0";
    vr_ = "%vr";
    if (p.shape == Shape::Grid) {
      line("scf.for %tj = %c0 to %tn step %c1 {");
      closers.push_back(ind_ + "}");
      ind_ += "  ";
      line("%k0 = arith.muli %tj, %cC : index");
      line("%cr = arith.subi %n, %k0 : index");
      line("%vc = arith.minui %cr, %cC : index");
      k0_ = "%k0";
      vc_ = "%vc";
      tj_ = "%tj";
    } else {
      k0_ = "%c0";
      vc_ = p.shape == Shape::RowsDyn ? "%n" : "%cC";
      tj_ = "%c0";
    }
  }
  // body: views, tiles, scalars, the op chain, the last stores
  for (size_t i = 0; i < p.bufs.size(); ++i) {
    View v;
    v.buf = int(i);
    v.col = p.bufs[i].col_out;
    v.name = partition(tv_[i], v.col, r_.chance(0.2));
    views_.push_back(v);
  }
  alloc_tiles();
  if (p.et != ET::I32 && (p.et == ET::F16 || p.C >= 16) && r2_.chance(0.6)) {  // 16-bit tiles: 32-byte rows
    cvt_ = "%cvw";
    cvt_t_ = full_t(p.et == ET::F16 ? "f32" : r2_.chance(0.5) ? "bf16" : "f16");
    line(cvt_ + " = pto.alloc_tile " + valid_args(false) + ": " + cvt_t_);
  }
  if (r_.chance(0.5)) make_scalars(true);
  // start with a load or two
  int first = r_.range(1, 2);
  for (int i = 0; i < first; ++i) {
    std::vector<int> ins;
    for (size_t k = 0; k < views_.size(); ++k)
      if (!p.bufs[size_t(views_[k].buf)].output) ins.push_back(int(k));
    load(r_.pick(ins), pick_any(false));
  }
  ops_left_ = r_.range(2, 12);
  for (int guard = 0; ops_left_ > 0 && guard < 200; ++guard) emit_op();
  emit_final_stores();
  for (size_t i = closers.size(); i-- > 0;) {
    ind_.resize(ind_.size() - 2);
    line("}");
  }
  line("return");
  if (p.fused) wrap_fuse();
  std::string body;
  for (auto& [ind, text] : lines_) body += ind + text + "\n";
  p.text = head.str() + body + "  }\n}\n";
}

// ---- inputs ----------------------------------------------------------------------

uint32_t rand_f32_bits(Rng& r) {
  int k = r.range(0, 99);
  if (k < 60) return f2u(float((r.unit() - 0.5) * 8));
  if (k < 66) return f2u(float(r.range(-4, 4)));
  if (k < 70) return r.chance(0.5) ? 0x00000000u : 0x80000000u;                        // +-0
  if (k < 74) return (r.chance(0.5) ? 0x80000000u : 0) | 0x7F800000u;                  // +-Inf
  if (k < 78) return (r.chance(0.5) ? 0x80000000u : 0) | 0x7FC00000u | (r.next() & 0x3FFFFF);  // qNaN
  if (k < 79) return 0x7F800000u | (1 + (r.next() % 0x3FFFFF));                         // sNaN
  if (k < 84) return (r.chance(0.5) ? 0x80000000u : 0) | (1 + (r.next() % 0x7FFFFF));   // subnormal
  if (k < 90) return f2u(float((r.unit() - 0.5) * 2e30));                              // large
  if (k < 95) return f2u(float((r.unit() - 0.5) * 1e-30));                             // tiny normal
  return uint32_t(r.next());                                                            // any bits
}

uint16_t rand_f16_bits(Rng& r) {
  int k = r.range(0, 99);
  if (k < 65) return f2h(float((r.unit() - 0.5) * 8));
  if (k < 70) return r.chance(0.5) ? 0x0000 : 0x8000;
  if (k < 74) return uint16_t((r.chance(0.5) ? 0x8000 : 0) | 0x7C00);
  if (k < 78) return uint16_t((r.chance(0.5) ? 0x8000 : 0) | 0x7E00 | (r.next() & 0x1FF));
  if (k < 84) return uint16_t((r.chance(0.5) ? 0x8000 : 0) | (1 + r.next() % 0x3FF));
  if (k < 90) return f2h(float((r.unit() - 0.5) * 60000));
  return uint16_t(r.next());
}

uint32_t rand_i32(Rng& r) {
  int k = r.range(0, 99);
  if (k < 70) return uint32_t(r.range(-100, 100));
  if (k < 75) return 0x7FFFFFFFu;
  if (k < 80) return 0x80000000u;
  return uint32_t(r.next());
}

void fill_inputs(Program& p, Rng& r) {
  size_t es = et_bytes(p.et);
  for (Buf& b : p.bufs) {
    size_t n = size_t(b.rows + 1) * size_t(b.cols);
    b.data.assign(n * es, 0);
    for (size_t i = 0; i < n; ++i) {
      if (b.output) {  // a sentinel: 0x5A5A... is a plain number in every type
        std::memset(&b.data[i * es], 0x5A, es);
        continue;
      }
      if (p.et == ET::F16) {
        uint16_t h = rand_f16_bits(r);
        std::memcpy(&b.data[i * es], &h, 2);
      } else {
        uint32_t u = p.et == ET::F32 ? rand_f32_bits(r) : rand_i32(r);
        std::memcpy(&b.data[i * es], &u, 4);
      }
    }
  }
}

// ---- running ------------------------------------------------------------------------

using Bufs = std::vector<std::vector<uint8_t>>;

std::vector<rt::Arg> bind(const Program& p, Bufs& bufs) {
  std::vector<rt::Arg> v;
  for (auto& b : bufs) {
    rt::Arg a;
    a.kind = rt::Arg::Kind::Ptr;
    a.data = b.data();
    a.bytes = b.size();
    v.push_back(a);
  }
  if (p.has_scalar) {
    rt::Arg a;
    a.kind = rt::Arg::Kind::Float;
    a.f = double(p.scalar);
    v.push_back(a);
  }
  rt::Arg m, n;
  m.kind = n.kind = rt::Arg::Kind::Int;
  m.i = p.m;
  n.i = p.n;
  v.push_back(m);
  v.push_back(n);
  return v;
}

Bufs initial(const Program& p) {
  Bufs b;
  for (const Buf& x : p.bufs) b.push_back(x.data);
  return b;
}

using opt_test::Parsed;
using opt_test::parse;

bool interpret(const Program& p, const Module& m, Bufs& bufs, std::string& err) {
  rt::Interpreter in(m);
  InstId fn = in.find_function("", err);
  if (fn == kNone) return false;
  std::vector<rt::Arg> args = bind(p, bufs);
  for (int b = 0; b < p.block_num; ++b)
    if (!in.run_block(fn, args, b, p.block_num, err)) return false;
  return true;
}

// ---- comparing ----------------------------------------------------------------------

struct Options {
  uint64_t start = 1, seeds = 300;
  std::string out_dir = "/tmp";
  std::string text_file;  // --text: this program text instead of the generated one (same params, inputs)
  bool verbose = false, print = false, keep_going = false, jit = true, loose_nan = false, mutate = false;
};

struct Stats {
  size_t programs = 0, failed = 0, jit_runs = 0, jit_refused = 0, tolerated = 0, elems = 0;
  size_t by_et[3] = {0, 0, 0}, by_shape[4] = {0, 0, 0, 0}, ops = 0;
  size_t opt_changed = 0;  // programs whose printed IR -O2 changed
  const char* leg = "";     // the leg being compared (for -v)
};

// Compares one buffer; returns "" or a description of the first difference.
std::string compare(const Program& p, const Buf& b, const std::vector<uint8_t>& ref,
                    const std::vector<uint8_t>& got, const std::vector<double>& row_scale, const Options& o,
                    Stats& st) {
  size_t es = et_bytes(p.et), n = ref.size() / es;
  for (size_t i = 0; i < n; ++i) {
    ++st.elems;
    uint32_t a = 0, c = 0;
    std::memcpy(&a, &ref[i * es], es);
    std::memcpy(&c, &got[i * es], es);
    if (a == c) continue;
    bool ok = false;
    double x = 0, y = 0;
    if (p.et != ET::I32) {
      x = p.et == ET::F32 ? double(u2f(a)) : double(h2f(uint16_t(a)));
      y = p.et == ET::F32 ? double(u2f(c)) : double(h2f(uint16_t(c)));
      if (std::isnan(x) && std::isnan(y) && (o.loose_nan || b.taint)) ok = true;
      else if (b.taint && std::isfinite(x) && std::isfinite(y) && int64_t(i) / b.cols < b.rows) {
        // summation order: n eps sum|x| (DESIGN §6), with sum|x| of the
        // reduced tile unknown here: every op is row-local, so it is taken
        // as the row length times the largest finite magnitude in this row
        // of the inputs and reference outputs, or of the values themselves;
        // the same covers exp/log ULPs carried through later ops
        double eps = p.et == ET::F32 ? 0x1.0p-23 : 0x1.0p-10;
        size_t row = size_t(int64_t(i) / b.cols);
        double scale = std::max({std::fabs(x), std::fabs(y), row < row_scale.size() ? row_scale[row] : 0.0});
        double tol = double(p.C) * 8 * eps * scale;
        if (std::fabs(x - y) <= tol) ok = true;
      }
    }
    if (ok) {
      if (o.verbose)
        std::printf("seed %" PRIu64 ": %s: %s[%zu] within tolerance: want %.9g (0x%X), got %.9g (0x%X)\n",
                    p.seed, st.leg, b.name.c_str(), i, x, a, y, c);
      ++st.tolerated;
      continue;
    }
    int64_t row = int64_t(i) / b.cols, col = int64_t(i) % b.cols;
    char msg[256];
    if (p.et == ET::I32)
      std::snprintf(msg, sizeof msg, "%s[%" PRId64 ", %" PRId64 "]: want %d (0x%08X), got %d (0x%08X)%s",
                    b.name.c_str(), row, col, int32_t(a), a, int32_t(c), c, row >= b.rows ? " (past the view)" : "");
    else
      std::snprintf(msg, sizeof msg, "%s[%" PRId64 ", %" PRId64 "]: want %.9g (0x%0*X), got %.9g (0x%0*X)%s%s",
                    b.name.c_str(), row, col, x, int(2 * es), a, y, int(2 * es), c,
                    b.taint ? " (outside the tolerance)" : "", row >= b.rows ? " (past the view)" : "");
    return msg;
  }
  return "";
}

std::string compare_all(const Program& p, const Bufs& ref, const Bufs& got, const Options& o, Stats& st) {
  // per matrix row: the largest finite magnitude in the inputs and the
  // reference outputs (the tolerance's stand-in for sum|x|)
  std::vector<double> row_scale(size_t(p.m + 1), 0.0);
  size_t es = et_bytes(p.et);
  if (p.et != ET::I32)
    for (size_t k = 0; k < p.bufs.size(); ++k)
      for (size_t e = 0; e < ref[k].size() / es; ++e) {
        uint32_t u = 0;
        std::memcpy(&u, &ref[k][e * es], es);
        if (u == (es == 4 ? 0x5A5A5A5Au : 0x5A5Au)) continue;  // the sentinel: never written
        double v = p.et == ET::F32 ? double(u2f(u)) : double(h2f(uint16_t(u)));
        size_t row = size_t(int64_t(e) / p.bufs[k].cols);
        if (std::isfinite(v) && row < size_t(p.m)) row_scale[row] = std::max(row_scale[row], std::fabs(v));
      }
  for (size_t i = 0; i < p.bufs.size(); ++i) {
    if (!p.bufs[i].output) continue;
    std::string d = compare(p, p.bufs[i], ref[i], got[i], row_scale, o, st);
    if (!d.empty()) return d;
  }
  return "";
}

// The deliberate mistake of --mutate: one op changed into another.
std::string mutate(const std::string& text) {
  static const char* pairs[][2] = {{"pto.tadd ", "pto.tsub "}, {"pto.tmax ", "pto.tmin "},
                                   {"pto.tmuls ", "pto.tadds "}, {"pto.trowsum ", "pto.trowmax "},
                                   {"pto.tneg ", "pto.tabs "},   {"pto.tmul ", "pto.tadd "},
                                   {"pto.texp ", "pto.tneg "},   {"pto.trowexpandsub ", "pto.trowexpandadd "}};
  for (auto& pr : pairs) {
    size_t at = text.find(pr[0]);
    if (at != std::string::npos) return text.substr(0, at) + pr[1] + text.substr(at + std::strlen(pr[0]));
  }
  return text;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
}

// Runs one seed; false on a mismatch (reported).
bool run_seed(uint64_t seed, const Options& o, Stats& st) {
  Program p;
  p.seed = seed;
  Gen(seed, p).build();
  if (!o.text_file.empty()) {
    std::ifstream f(o.text_file);
    std::stringstream ss;
    ss << f.rdbuf();
    p.text = ss.str();
  }
  Rng r(seed ^ 0xDA7Aull);
  fill_inputs(p, r);
  ++st.programs;
  ++st.by_et[int(p.et)];
  ++st.by_shape[int(p.shape)];
  st.ops += size_t(p.n_ops);
  if (o.print) std::printf("%s\n", p.text.c_str());

  std::string base = o.out_dir + "/opt_rand_" + std::to_string(seed);
  std::string opt_text;
  auto fail = [&](const std::string& what) {
    write_file(base + ".pto", p.text);
    if (!opt_text.empty()) write_file(base + ".opt.pto", opt_text);
    std::printf("FAIL seed %" PRIu64 " (%s, %s, %dx%d, m=%" PRId64 " n=%" PRId64 ", %d block(s)): %s\n  program: %s.pto%s\n",
                seed, et_name(p.et), shape_name(p.shape), p.R, p.C, p.m, p.n, p.block_num, what.c_str(),
                base.c_str(), opt_text.empty() ? "" : ("\n  optimized: " + base + ".opt.pto").c_str());
    if (o.verbose) std::printf("%s\n", p.text.c_str());
    ++st.failed;
    return false;
  };

  // 1. the reference
  Parsed ref_m;
  if (!parse("opt_rand_" + std::to_string(seed) + ".pto", p.text, ref_m))
    return fail("the generated program does not verify (a generator bug):\n" + ref_m.diag);
  Bufs ref = initial(p);
  std::string err;
  if (!interpret(p, *ref_m.m, ref, err)) return fail("interpreter on the unoptimized program: " + err);

  // 2. -O2, interpreted
  Parsed opt_m;
  std::string o2_text = o.mutate ? mutate(p.text) : p.text;
  if (!parse("opt_rand_" + std::to_string(seed) + ".pto", o2_text, opt_m))
    return fail("second parse failed:\n" + opt_m.diag);
  std::string before = print_module(*opt_m.m);
  {
    Diag d(opt_m.src.get());
    opt::Options oo;
    oo.level = opt::Level::O2;
    std::string report;
    if (!opt::optimize(*opt_m.m, oo, opt::TargetDesc{32, 16}, d, &report))
      return fail("opt::optimize -O2 failed:\n" + d.text());
  }
  opt_text = print_module(*opt_m.m);
  if (opt_text != before) ++st.opt_changed;
  Bufs got = initial(p);
  if (!interpret(p, *opt_m.m, got, err)) return fail("interpreter on the -O2 module: " + err);
  st.leg = "-O2 interpreter";
  std::string diff = compare_all(p, ref, got, o, st);
  if (!diff.empty()) return fail("-O2 (interpreter) differs: " + diff);

  // round trip: the printed optimized IR parses, verifies and runs the same
  Parsed rt_m;
  if (!parse("opt_rand_" + std::to_string(seed) + ".opt.pto", opt_text, rt_m))
    return fail("the printed -O2 IR does not parse / verify:\n" + rt_m.diag);
  Bufs got2 = initial(p);
  if (!interpret(p, *rt_m.m, got2, err)) return fail("interpreter on the re-parsed -O2 IR: " + err);
  st.leg = "re-parsed -O2 interpreter";
  diff = compare_all(p, ref, got2, o, st);
  if (!diff.empty()) return fail("the re-parsed -O2 IR (interpreter) differs: " + diff);

  // -O1 too (a subset of the passes: interpreter only)
  {
    Parsed o1_m;
    if (!parse("opt_rand_" + std::to_string(seed) + ".pto", o2_text, o1_m)) return fail("third parse failed");
    Diag d(o1_m.src.get());
    opt::Options oo;
    oo.level = opt::Level::O1;
    if (!opt::optimize(*o1_m.m, oo, opt::TargetDesc{32, 16}, d, nullptr))
      return fail("opt::optimize -O1 failed:\n" + d.text());
    Bufs g1 = initial(p);
    if (!interpret(p, *o1_m.m, g1, err)) {
      opt_text = print_module(*o1_m.m);
      return fail("interpreter on the -O1 module: " + err);
    }
    st.leg = "-O1 interpreter";
    diff = compare_all(p, ref, g1, o, st);
    if (!diff.empty()) {
      opt_text = print_module(*o1_m.m);
      return fail("-O1 (interpreter) differs: " + diff + " (the .opt.pto file is the -O1 IR)");
    }
  }

  // 3. avx2 JIT of the optimized module
  if (o.jit) {
    rt::JitKernel jit;
    Diag jd(opt_m.src.get());
    std::string jerr;
    rt::Interpreter finder(*opt_m.m);
    InstId fn = finder.find_function("", jerr);
    if (!jit.load(*opt_m.m, fn, "avx2", jd, jerr)) {
      ++st.jit_refused;
      if (o.verbose) std::printf("seed %" PRIu64 ": avx2 refused: %s %s\n", seed, jerr.c_str(), jd.text().c_str());
    } else {
      ++st.jit_runs;
      Bufs jb = initial(p);
      std::vector<rt::Arg> args = bind(p, jb);
      for (int b = 0; b < p.block_num; ++b) jit.run(args, b, p.block_num);
      st.leg = "-O2 avx2";
      diff = compare_all(p, ref, jb, o, st);
      if (!diff.empty()) {
        // tell an optimizer bug from a backend one: the JIT of the unoptimized program
        std::string also;
        rt::JitKernel j0;
        Diag jd0(ref_m.src.get());
        rt::Interpreter f0(*ref_m.m);
        InstId fn0 = f0.find_function("", jerr);
        if (j0.load(*ref_m.m, fn0, "avx2", jd0, jerr)) {
          Bufs jb0 = initial(p);
          std::vector<rt::Arg> a0 = bind(p, jb0);
          for (int b = 0; b < p.block_num; ++b) j0.run(a0, b, p.block_num);
          Stats tmp;
          std::string d0 = compare_all(p, ref, jb0, o, tmp);
          also = d0.empty() ? " (the avx2 code of the -O0 program agrees: the optimized IR trips the backend)"
                            : " (the avx2 code of the -O0 program differs too: " + d0 + ")";
        }
        return fail("avx2 JIT of the -O2 module differs: " + diff + also);
      }
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char* name) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seeds") o.seeds = std::strtoull(val("--seeds").c_str(), nullptr, 10);
    else if (a == "--start") o.start = std::strtoull(val("--start").c_str(), nullptr, 10);
    else if (a == "--out") o.out_dir = val("--out");
    else if (a == "-v") o.verbose = true;
    else if (a == "--print") o.print = true;
    else if (a == "--keep-going") o.keep_going = true;
    else if (a == "--no-jit") o.jit = false;
    else if (a == "--loose-nan") o.loose_nan = true;
    else if (a == "--mutate") o.mutate = true;
    else if (a == "--text") o.text_file = val("--text");
    else {
      std::fprintf(stderr,
                   "usage: opt_random_programs [--seeds N] [--start S] [--out DIR] [-v] [--print]\n"
                   "                           [--keep-going] [--no-jit] [--loose-nan] [--mutate]\n"
                   "                           [--text FILE]  (FILE's program with seed S's params and inputs)\n");
      return 2;
    }
  }
  if (o.jit && !rt::cpu_supports("avx2")) {
    std::printf("this CPU cannot run avx2 code: the JIT leg is skipped\n");
    o.jit = false;
  }
  Stats st;
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t s = o.start; s < o.start + o.seeds; ++s) {
    if (!run_seed(s, o, st) && !o.keep_going) break;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "opt_random_programs: seeds %" PRIu64 "..%" PRIu64 ": %zu programs (f32 %zu, f16 %zu, i32 %zu; static %zu, "
      "rows %zu, rows-ragged %zu, grid %zu; %zu tile ops), -O2 changed %zu; avx2 ran %zu, refused %zu; "
      "%zu elements compared, %zu within tolerance; %zu failed; %.1f s\n",
      o.start, o.start + o.seeds - 1, st.programs, st.by_et[0], st.by_et[1], st.by_et[2], st.by_shape[0],
      st.by_shape[1], st.by_shape[2], st.by_shape[3], st.ops, st.opt_changed, st.jit_runs, st.jit_refused, st.elems,
      st.tolerated, st.failed, secs);
  return st.failed ? 1 : 0;
}
