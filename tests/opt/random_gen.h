// The random PTO program generator of opt_random_programs (random_programs.cpp
// is the driver; what the programs contain is described there): the
// program, its buffers and inputs.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace opt_rand {

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

inline uint32_t f2u(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float u2f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// f16 bits <-> float (exact widening; narrowing round-to-nearest-even).
inline float h2f(uint16_t h) {
  uint32_t s = uint32_t(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
  if (e == 31) return u2f(s | 0x7F800000u | (m << 13));
  if (e == 0) {
    float v = std::ldexp(float(m), -24);
    return s ? -v : v;
  }
  return u2f(s | ((e + 112) << 23) | (m << 13));
}
inline uint16_t f2h(float f) {
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
inline const char* et_name(ET e) { return e == ET::F32 ? "f32" : e == ET::F16 ? "f16" : "i32"; }
inline size_t et_bytes(ET e) { return e == ET::F16 ? 2 : 4; }

enum class Shape { Static, RowsStaticCols, RowsDyn, Grid };
inline const char* shape_name(Shape s) {
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
  // Patterns real programs broke (random_gen_patterns.cpp): tiles that share
  // storage through treshape (and column <-> row reshapes around a row
  // reduction), tiles yielded by scf.if / scf.for, a tile written twice in a
  // row, views of rank 3-5, (level3) every tile at an explicit address,
  // some at the same one, and GM scalars.
  bool aliases = false, control_tiles = false, twice = false, high_rank = false, level3 = false;
  // pto.load_scalar / pto.store_scalar at the body's first element (PyPTO's
  // index and write-map kernels): a read feeding a tile-scalar op, an
  // output patched from an input, read back by a later tload.
  bool scalar_mem = false;
  std::vector<Buf> bufs;  // inputs, then outputs (the param order)
  std::string text;
  int n_ops = 0;
};

// The patterns (Program's feature flags) by name, as bits of a mask.
enum Pattern : unsigned {
  kAliases = 1, kControlTiles = 2, kTwice = 4, kHighRank = 8, kLevel3 = 16, kScalarMem = 32, kAllPatterns = 63
};
// "aliases", "control", "twice", "rank", "level3", "scalars": the bit; 0 if unknown.
unsigned pattern_bit(const std::string& name);

// The program of `seed` (p.seed set by the caller), with at most the
// patterns of `allowed` (each is drawn at random, then masked).
void generate(uint64_t seed, Program& p, unsigned allowed = kAllPatterns);
// Random inputs (NaN, infinities, zeros, subnormals, extremes among them)
// for the input buffers; a sentinel in the outputs.
void fill_inputs(Program& p, Rng& r);

}  // namespace opt_rand
