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
// and foldable constant arithmetic; and the patterns real programs broke
// (random_gen_patterns.cpp: treshape aliases of tiles, an R x 1 -> 1 x R ->
// R x 1 round trip around a row reduction, tiles yielded by scf.if and
// carried by scf.for, a tile written twice in a row, rank 3-5 views, level-3
// programs with every tile at an explicit address, some at the same one,
// pto.load_scalar / pto.store_scalar on the buffers the tile ops use).
// Then:
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
//                       [--keep-going] [--no-jit] [--loose-nan] [--mutate] [--patterns LIST]
// --patterns LIST keeps only those of the patterns above (aliases, control,
// twice, rank, level3, scalars; `none` is the plain op chain). --print writes each program to stdout; --mutate runs the -O2 leg on a
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
#include "random_gen.h"
#if __has_include("codegen.h")
#include "codegen.h"
#endif


using namespace ptoas;
using namespace opt_rand;

namespace {

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
  unsigned patterns = kAllPatterns;  // --patterns
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
  generate(seed, p, o.patterns);
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

  const Level level = p.level3 ? Level::Level3 : Level::Level2;
  // 1. the reference
  Parsed ref_m;
  if (!parse("opt_rand_" + std::to_string(seed) + ".pto", p.text, ref_m, level))
    return fail("the generated program does not verify (a generator bug):\n" + ref_m.diag);
  Bufs ref = initial(p);
  std::string err;
  if (!interpret(p, *ref_m.m, ref, err)) return fail("interpreter on the unoptimized program: " + err);

  // 2. -O2, interpreted
  Parsed opt_m;
  std::string o2_text = o.mutate ? mutate(p.text) : p.text;
  if (!parse("opt_rand_" + std::to_string(seed) + ".pto", o2_text, opt_m, level))
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
  if (!parse("opt_rand_" + std::to_string(seed) + ".opt.pto", opt_text, rt_m, level))
    return fail("the printed -O2 IR does not parse / verify:\n" + rt_m.diag);
  Bufs got2 = initial(p);
  if (!interpret(p, *rt_m.m, got2, err)) return fail("interpreter on the re-parsed -O2 IR: " + err);
  st.leg = "re-parsed -O2 interpreter";
  diff = compare_all(p, ref, got2, o, st);
  if (!diff.empty()) return fail("the re-parsed -O2 IR (interpreter) differs: " + diff);

  // -O1 too (a subset of the passes: interpreter only)
  {
    Parsed o1_m;
    if (!parse("opt_rand_" + std::to_string(seed) + ".pto", o2_text, o1_m, level)) return fail("third parse failed");
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
    else if (a == "--patterns") {
      std::string list = val("--patterns");
      o.patterns = 0;
      std::stringstream ls(list);
      for (std::string w; std::getline(ls, w, ',');) {
        if (w == "none") continue;
        if (w == "all") o.patterns |= kAllPatterns;
        else if (unsigned b = pattern_bit(w)) o.patterns |= b;
        else {
          std::fprintf(stderr, "--patterns: unknown pattern '%s' (aliases control twice rank level3 scalars all none)\n", w.c_str());
          return 2;
        }
      }
    }
    else {
      std::fprintf(stderr,
                   "usage: opt_random_programs [--seeds N] [--start S] [--out DIR] [-v] [--print]\n"
                   "                           [--keep-going] [--no-jit] [--loose-nan] [--mutate]\n"
                   "                           [--text FILE]  (FILE's program with seed S's params and inputs)\n"
                   "                           [--patterns LIST]  (of aliases control twice rank level3 scalars; all, none)\n");
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
