// Differential test of the x86 lowering of pto.fuse regions
// (encoders/x86/fuse.cpp) against the reference interpreter running the
// same IR.
//
// Each case is a kernel over an M x N f32 (or f16 / bf16) matrix in 16-row
// tiles (the last one ragged), its tile-op chain wrapped in pto.fuse: the
// chains of the samples (softmax, RMSNorm and LayerNorm in f32, SiLU /
// SwiGLU, the fused elementwise chain, vadd, a RoPE-like mix) and more (row
// max / min with expands, a row sum of products with terms of both signs,
// two of them before an exp stage (skewed stages that do not fit), every unary and tile-scalar op, in-place stores,
// overlapping views that must take the op-by-op path, tiles read back
// that a later stage recomputes and two it must not (after an in-place
// store, after a one-column tile is rewritten); f16 / bf16 loads,
// stores and tcvt: RMSNorm in bf16 and f16, a rounded tile read back,
// copies with signalling NaNs, several rmodes, an f16 copy that must be
// refused), at widths 1, 7, 8, 12, 33, 64 and 200 and heights 1, 5, 16 and
// 37 (and vadd, softmax, SiLU / SwiGLU at 8200 x 128 f32, RMSNorm in bf16
// and f16 and the bf16 copy at 16400 x 128: 4 MiB views, the non-temporal
// tstore path, on 64-byte aligned buffers; and where the tiles are as
// wide as the views, 16 and 48 rows of constant shapes: static valid
// rows, views of constant dims), on ordinary inputs
// and on inputs with NaNs (with payloads), infinities, zeros of both signs
// and subnormals. The outputs must be bit-identical to the interpreter's,
// except where a row sum feeds them: there within 4 (N + 4) eps of the
// row's largest output (the n eps sum|x| bound of a reassociated sum)
// plus one unit of a 16-bit output's type, NaN and infinities still
// bit-exact. Every kernel with an exp runs again at -O2 (its fast f32
// path, <= 2 ULP; avx512 holds its constants in registers), compared
// within 8 ULP more.
//
// Each case also says whether the fused lowering must take its region: the
// kernel's code is then larger than the same kernel without the pto.fuse
// wrapper (fused loop nest + the op-by-op fallback), else the same size.
//
//   x86_fuse_diff [--target=avx2|avx512] [-v]
// avx512 runs natively on a CPU with AVX-512, else under Bochs (one batch,
// the 8200-row runs left out).
//   x86_fuse_diff --bench [--target=T] M FILE.pto...
// --bench times kernels of tests/x86/fuse/ (pointer parameters: M x 128
// f32 buffers, 64-byte aligned; then the index M): the median of 9 runs
// after one warm-up, in ns per element. --dump prints every kernel (16 x 40
// tiles), each after a line `==> NAME`.
// Exit 0 when every case agrees, 1 on a failure, 77 (SKIP) when this CPU
// cannot run the target.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "codegen.h"
#include "diag.h"
#include "frontend.h"
#include "interp.h"
#include "bochs_runner.h"
#include "ir.h"
#include "jit.h"
#include "npy.h"

using namespace ptoas;

namespace {

struct Kernel {
  std::string name;
  std::vector<std::string> body;  // DPS lines of the fused region
  bool sums = false;              // a row sum feeds the outputs
  bool fused = true;              // the region must be taken
  bool shifted = false;           // y is x one row down (an overlap the run-time check must catch)
  // f16 / bf16: the element types of buffers x, y, z (c and g are f32);
  // such kernels have tiles of a multiple of 16 columns and the 16-bit
  // tiles %xb, %yb (x's, y's type), %hb (f16), %bb (bf16).
  std::string xe = "f32", ye = "f32", ze = "f32";
  bool n16 = false;
  bool f16_ties = false;  // rounds arbitrary f32 values to f16: not under Bochs (see cvt_readback_f16)
  // The row sum is of x * (x * g) (terms of both signs: g's) and output j
  // is x[j] * sum: the bound is taken from sum |x x g| times max |x|, not
  // from the outputs, which cancellation makes small.
  bool dot = false;
  // Compiled at -O2: exp takes its f32 fast path (<= 2 ULP, DESIGN
  // section 6; on avx512 with its constants held in registers), so the
  // outputs are compared within 8 ULP (plus the row-sum bound).
  bool o2 = false;
};

// Tile and view types of a kernel with TC columns.
struct Types {
  std::string E, C, G, V;
  int tc;
};

Types types(int tc) {
  std::string w = std::to_string(tc);
  return {"!pto.tile_buf<vec, 16x" + w + "xf32, valid=?x?>",
          "!pto.tile_buf<vec, 16x1xf32, valid=?x?, blayout=col_major>",
          "!pto.tile_buf<vec, 1x" + w + "xf32, valid=?x?>", "!pto.partition_tensor_view<?x?xf32>", tc};
}

std::string tile_of(const Types& T, const std::string& dt) {
  return "!pto.tile_buf<vec, 16x" + std::to_string(T.tc) + "x" + dt + ", valid=?x?>";
}
std::string view_of(const std::string& dt) { return "!pto.partition_tensor_view<?x?x" + dt + ">"; }

// A tcvt line with an rmode attribute.
std::string cvt(const std::pair<std::string, std::string>& a, const std::pair<std::string, std::string>& b,
                const char* rmode) {
  return "pto.tcvt ins(" + a.first + " {rmode = #pto<round_mode " + rmode + ">} : " + a.second + ") outs(" + b.first +
         " : " + b.second + ")";
}

// One DPS op line: ins are "%name:T" pairs given as {name, type}.
std::string dps(const std::string& op, const std::vector<std::pair<std::string, std::string>>& ins,
                const std::pair<std::string, std::string>& out) {
  std::string names, tys;
  for (size_t i = 0; i < ins.size(); ++i) {
    names += (i ? ", " : "") + ins[i].first;
    tys += (i ? ", " : "") + ins[i].second;
  }
  return "pto." + op + " ins(" + names + " : " + tys + ") outs(" + out.first + " : " + out.second + ")";
}

// The kernel chains. Tiles: %xt %ct %t1 %t2 (element), %mx %sm (one
// column), %gt (one row, loaded before the loop); views %xp %cp (loaded),
// %yp %zp (stored); scalars %s (an argument), %one, %eps, %q (1 + 2^-12).
std::vector<Kernel> kernels(const Types& T) {
  auto e = [&](const char* n) { return std::make_pair(std::string(n), T.E); };
  auto c = [&](const char* n) { return std::make_pair(std::string(n), T.C); };
  auto g = std::make_pair(std::string("%gt"), T.G);
  auto v = [&](const char* n) { return std::make_pair(std::string(n), T.V); };
  auto f = [&](const char* n) { return std::make_pair(std::string(n), std::string("f32")); };
  std::string ldx = dps("tload", {v("%xp")}, e("%xt")), ldc = dps("tload", {v("%cp")}, e("%ct"));
  std::vector<Kernel> k;
  k.push_back({"softmax",
               {ldx, dps("trowmax", {e("%xt"), e("%t2")}, c("%mx")), dps("trowexpandsub", {e("%xt"), c("%mx")}, e("%xt")),
                dps("texp", {e("%xt")}, e("%xt")), dps("trowsum", {e("%xt"), e("%t2")}, c("%sm")),
                dps("trowexpanddiv", {e("%xt"), c("%sm")}, e("%xt")), dps("tstore", {e("%xt")}, v("%yp"))},
               true});
  // A row sum of products x * (x * g) of two tiles, terms of both signs:
  // the reassociated sum against sum |terms|, and rows where two x of 1e30
  // overflow to +Inf and -Inf (a NaN sum). x86/fuse.cpp forms such a sum
  // by FMAs for squares only.
  k.push_back({"dot_rows",
               {ldx, dps("tcolexpandmul", {e("%xt"), g}, e("%ct")), dps("tmul", {e("%xt"), e("%ct")}, e("%t1")),
                dps("trowsum", {e("%t1"), e("%t2")}, c("%sm")), dps("trowexpandmul", {e("%xt"), c("%sm")}, e("%t1")),
                dps("tstore", {e("%t1")}, v("%yp"))},
               true});
  k.back().dot = true;
  k.push_back({"rmsnorm",
               {ldx, dps("tmul", {e("%xt"), e("%xt")}, e("%t1")), dps("trowsum", {e("%t1"), e("%t2")}, c("%sm")),
                dps("tmuls", {c("%sm"), f("%s")}, c("%sm")), dps("tadds", {c("%sm"), f("%eps")}, c("%sm")),
                dps("trsqrt", {c("%sm")}, c("%sm")), dps("trowexpandmul", {e("%xt"), c("%sm")}, e("%t1")),
                dps("tcolexpandmul", {e("%t1"), g}, e("%t1")), dps("tstore", {e("%t1")}, v("%yp"))},
               true});
  k.push_back({"layernorm",
               {ldx, dps("trowsum", {e("%xt"), e("%t2")}, c("%mx")), dps("tmuls", {c("%mx"), f("%s")}, c("%mx")),
                dps("trowexpandsub", {e("%xt"), c("%mx")}, e("%t1")), dps("tmul", {e("%t1"), e("%t1")}, e("%t2")),
                dps("trowsum", {e("%t2"), e("%ct")}, c("%sm")), dps("tmuls", {c("%sm"), f("%s")}, c("%sm")),
                dps("tadds", {c("%sm"), f("%eps")}, c("%sm")), dps("trsqrt", {c("%sm")}, c("%sm")),
                dps("trowexpandmul", {e("%t1"), c("%sm")}, e("%t1")), dps("tcolexpandmul", {e("%t1"), g}, e("%t1")),
                dps("tcolexpandadd", {e("%t1"), g}, e("%t1")), dps("tstore", {e("%t1")}, v("%yp"))},
               true});
  k.push_back({"silu_swiglu",
               {ldx, ldc, dps("tneg", {e("%xt")}, e("%t1")), dps("texp", {e("%t1")}, e("%t1")),
                dps("tadds", {e("%t1"), f("%one")}, e("%t1")), dps("trecip", {e("%t1")}, e("%t1")),
                dps("tmul", {e("%xt"), e("%t1")}, e("%t1")), dps("tstore", {e("%t1")}, v("%zp")),
                dps("tmul", {e("%t1"), e("%ct")}, e("%t2")), dps("tstore", {e("%t2")}, v("%yp"))}});
  k.push_back({"fused_chain",
               {ldx, ldc, dps("tmuls", {e("%xt"), f("%s")}, e("%t1")), dps("tadds", {e("%t1"), f("%eps")}, e("%t1")),
                dps("trelu", {e("%t1")}, e("%t1")), dps("tmul", {e("%t1"), e("%ct")}, e("%xt")),
                dps("tstore", {e("%xt")}, v("%yp"))}});
  k.push_back({"vadd", {ldx, ldc, dps("tadd", {e("%xt"), e("%ct")}, e("%t1")), dps("tstore", {e("%t1")}, v("%yp"))}});
  k.push_back({"rope_like",
               {ldx, ldc, dps("tmul", {e("%xt"), e("%ct")}, e("%t1")), dps("tcolexpandmul", {e("%ct"), g}, e("%t2")),
                dps("tsub", {e("%t1"), e("%t2")}, e("%t1")), dps("tcolexpandsub", {e("%t1"), g}, e("%t2")),
                dps("tcolexpand", {g}, e("%xt")), dps("tmax", {e("%t2"), e("%xt")}, e("%t2")),
                dps("tstore", {e("%t2")}, v("%yp")), dps("tstore", {e("%t1")}, v("%zp"))}});
  k.push_back({"rowmax_rowmin",
               {ldx, dps("trowmin", {e("%xt"), e("%t2")}, c("%mx")), dps("trowmax", {e("%xt"), e("%t2")}, c("%sm")),
                dps("trowexpandmax", {e("%xt"), c("%mx")}, e("%t1")), dps("trowexpandmin", {e("%t1"), c("%sm")}, e("%t1")),
                dps("trowexpand", {c("%sm")}, e("%t2")), dps("tsub", {e("%t2"), e("%t1")}, e("%t2")),
                dps("trowexpandadd", {e("%t2"), c("%mx")}, e("%t2")), dps("tstore", {e("%t2")}, v("%yp")),
                dps("trowexpandmul", {e("%xt"), c("%mx")}, e("%t1")), dps("tstore", {e("%t1")}, v("%zp"))}});
  k.push_back({"unary_scalar",
               {ldx, ldc, dps("tabs", {e("%xt")}, e("%t1")), dps("tsqrt", {e("%t1")}, e("%t1")),
                dps("tlog", {e("%t1")}, e("%t1")), dps("tdiv", {e("%t1"), e("%ct")}, e("%t1")),
                dps("tsubs", {e("%t1"), f("%s")}, e("%t1")), dps("tdivs", {e("%t1"), f("%eps")}, e("%t2")),
                dps("tmaxs", {e("%t2"), f("%s")}, e("%t2")), dps("tmins", {e("%t2"), f("%one")}, e("%t2")),
                dps("tmin", {e("%t2"), e("%xt")}, e("%t2")), dps("tstore", {e("%t2")}, v("%yp")),
                dps("trsqrt", {e("%ct")}, e("%t1")), dps("texp", {e("%t1")}, e("%t1")),
                dps("tneg", {e("%t1")}, e("%t1")), dps("tstore", {e("%t1")}, v("%zp"))}});
  // tdivs with the scalar first (s / x): of a loaded chunk, and of one held
  // in a register.
  k.push_back({"scalar_first",
               {ldx, ldc, dps("tdivs", {f("%s"), e("%xt")}, e("%t1")), dps("tmul", {e("%t1"), e("%ct")}, e("%t1")),
                dps("tdivs", {f("%eps"), e("%t1")}, e("%t2")), dps("tstore", {e("%t2")}, v("%yp"))}});
  // Both operands the value the previous op left in V0: tmax (two fetches)
  // and tmul (one).
  k.push_back({"same_operand",
               {ldx, dps("tneg", {e("%xt")}, e("%t1")), dps("tmax", {e("%t1"), e("%t1")}, e("%t2")),
                dps("tmul", {e("%t2"), e("%t2")}, e("%t2")), dps("tstore", {e("%t2")}, v("%yp"))}});
  // Row sums whose source is overwritten afterwards in the same stage (the
  // stage is cut there), and a reduction result stored to memory.
  k.push_back({"sum_then_overwrite",
               {ldx, dps("texp", {e("%xt")}, e("%xt")), dps("trowsum", {e("%xt"), e("%t2")}, c("%sm")),
                dps("tadds", {e("%xt"), f("%s")}, e("%xt")), dps("trowmax", {e("%xt"), e("%t2")}, c("%mx")),
                dps("trowexpanddiv", {e("%xt"), c("%sm")}, e("%t1")),
                dps("trowexpandsub", {e("%t1"), c("%mx")}, e("%t1")), dps("tstore", {e("%t1")}, v("%yp"))},
               true});
  // Two row reductions (max / min: an accumulator and a NaN flag each) in
  // the stage before an exp stage (the row min is not read in the region):
  // on avx2 the skewed stages' registers do not fit, and the region is
  // taken unskewed.
  k.push_back({"reductions_then_exp",
               {ldx, dps("trowmin", {e("%xt"), e("%t2")}, c("%sm")), dps("trowmax", {e("%xt"), e("%t2")}, c("%mx")),
                dps("trowexpandsub", {e("%xt"), c("%mx")}, e("%t1")), dps("texp", {e("%t1")}, e("%t1")),
                dps("tstore", {e("%t1")}, v("%yp"))}});
  k.push_back({"inplace_store", {ldx, dps("texp", {e("%xt")}, e("%xt")), dps("tstore", {e("%xt")}, v("%xp"))}});
  // x - max read by exp from V0, then by the tmul after it from memory,
  // then overwritten in the same stage: on avx2 the row reductions take
  // the registers the plan has, so t1 has none and its store must stay
  // for the tmul (a store is skipped only for a result the next op takes
  // from V0 and nothing else reads, as softmax's x - max).
  k.push_back({"v0_then_reread",
               {ldx, dps("trowmax", {e("%xt"), e("%ct")}, c("%mx")), dps("trowexpandsub", {e("%xt"), c("%mx")}, e("%t1")),
                dps("texp", {e("%t1")}, e("%t2")), dps("tmul", {e("%t2"), e("%t1")}, e("%t2")),
                dps("trowsum", {e("%t2"), e("%ct")}, c("%sm")), dps("tadds", {e("%t2"), f("%s")}, e("%t1")),
                dps("trowexpanddiv", {e("%t1"), c("%sm")}, e("%t1")), dps("tstore", {e("%t1")}, v("%yp"))},
               true});
  // Tiles a later stage reads back are recomputed there from the view
  // (FusePlan::remat_chain) unless what the chain reads changed in
  // between: x overwritten in place before the last stage reads %xt
  // back, a one-column tile rewritten before the stage that reads a tile
  // computed from it. And a chain of every kind of link (a one-row tile,
  // a scalar, a unary op: four ops) read back by the next stage.
  k.push_back({"store_then_reread",
               {ldx, dps("trowmin", {e("%xt"), e("%t2")}, c("%sm")), dps("trowexpandmul", {e("%xt"), c("%sm")}, e("%t1")),
                dps("tstore", {e("%t1")}, v("%xp")), dps("trowmax", {e("%t1"), e("%t2")}, c("%mx")),
                dps("trowexpandsub", {e("%xt"), c("%mx")}, e("%t2")), dps("tstore", {e("%t2")}, v("%yp"))}});
  k.push_back({"col_rewritten",
               {ldx, dps("trowmax", {e("%xt"), e("%t2")}, c("%mx")), dps("trowexpandsub", {e("%xt"), c("%mx")}, e("%t1")),
                dps("trowsum", {e("%t1"), e("%t2")}, c("%sm")), dps("tmuls", {c("%mx"), f("%s")}, c("%mx")),
                dps("trowexpanddiv", {e("%t1"), c("%sm")}, e("%t2")), dps("trowexpandadd", {e("%t2"), c("%mx")}, e("%t2")),
                dps("tstore", {e("%t2")}, v("%yp"))},
               true});
  // One-column ops reading the value the previous one left in xmm0: a
  // chain (the second with the scalar first), then, in the next stage and
  // so another lag of the skewed loop, an op reading the chain's last tile
  // (the row the chain just computed is not the one that op needs).
  k.push_back({"col_chain",
               {ldx, dps("trowmin", {e("%xt"), e("%t2")}, c("%mx")), dps("tmuls", {c("%mx"), f("%s")}, c("%mx")),
                dps("tdivs", {f("%q"), c("%mx")}, c("%mx")), dps("trowexpandsub", {e("%xt"), c("%mx")}, e("%t1")),
                dps("trowmax", {e("%t1"), e("%t2")}, c("%sm")), dps("tadd", {c("%mx"), c("%sm")}, c("%sm")),
                dps("trowexpandmul", {e("%t1"), c("%sm")}, e("%t2")), dps("tstore", {e("%t2")}, v("%yp"))}});
  k.push_back({"remat_links",
               {ldx, dps("tcolexpandsub", {e("%xt"), g}, e("%t1")), dps("tmaxs", {e("%t1"), f("%s")}, e("%t1")),
                dps("tneg", {e("%t1")}, e("%t1")), dps("trowsum", {e("%t1"), e("%t2")}, c("%sm")),
                dps("trowexpandmul", {e("%t1"), c("%sm")}, e("%t2")), dps("tstore", {e("%t2")}, v("%yp"))},
               true});
  k.push_back({"shifted_overlap",
               {ldx, dps("tmuls", {e("%xt"), f("%s")}, e("%xt")), dps("tstore", {e("%xt")}, v("%yp"))},
               false, true, true});
  // Refused (an op the fused lowering does not take): op by op.
  k.push_back({"refused_texpands",
               {ldx, dps("texpands", {f("%s")}, e("%t1")), dps("tadd", {e("%xt"), e("%t1")}, e("%t1")),
                dps("tstore", {e("%t1")}, v("%yp"))},
               false, false});
  // f16 / bf16 loads, stores and tcvt (the bench's bf16 RMSNorm chain).
  auto nt = [&](const char* n, const std::string& dt) { return std::make_pair(std::string(n), tile_of(T, dt)); };
  auto nv = [&](const char* n, const std::string& dt) { return std::make_pair(std::string(n), view_of(dt)); };
  auto narrow = [&](Kernel kk, const char* xe, const char* ye, const char* ze) {
    kk.xe = xe, kk.ye = ye, kk.ze = ze, kk.n16 = true;
    k.push_back(kk);
  };
  for (const char* dt : {"bf16", "f16"}) {
    auto xb = nt("%xb", dt);
    narrow({std::string("rmsnorm_") + dt,
            {dps("tload", {nv("%xp", dt)}, xb), cvt(xb, e("%xt"), "RINT"), dps("tmul", {e("%xt"), e("%xt")}, e("%t1")),
             dps("trowsum", {e("%t1"), e("%t2")}, c("%sm")), dps("tmuls", {c("%sm"), f("%s")}, c("%sm")),
             dps("tadds", {c("%sm"), f("%eps")}, c("%sm")), dps("trsqrt", {c("%sm")}, c("%sm")),
             dps("trowexpandmul", {e("%xt"), c("%sm")}, e("%xt")), dps("tcolexpandmul", {e("%xt"), g}, e("%xt")),
             dps("tcvt", {e("%xt")}, xb), dps("tstore", {xb}, nv("%yp", dt))},
            true},
           dt, dt, "f32");
  }
  // Softmax of bf16 rows: at -O2 on avx512 exp's constants and the bf16
  // rounding's both stay in registers, next to the reductions' (the
  // registers the plan takes and those it leaves free must not meet).
  {
    auto xb = nt("%xb", "bf16");
    narrow({"softmax_bf16",
            {dps("tload", {nv("%xp", "bf16")}, xb), cvt(xb, e("%xt"), "RINT"),
             dps("trowmax", {e("%xt"), e("%t2")}, c("%mx")), dps("trowexpandsub", {e("%xt"), c("%mx")}, e("%xt")),
             dps("texp", {e("%xt")}, e("%xt")), dps("trowsum", {e("%xt"), e("%t2")}, c("%sm")),
             dps("trowexpanddiv", {e("%xt"), c("%sm")}, e("%xt")), dps("tcvt", {e("%xt")}, xb),
             dps("tstore", {xb}, nv("%yp", "bf16"))},
            true},
           "bf16", "bf16", "f32");
  }
  // A rounded f16 tile read back in the same stage (t2 = f16(t1) - t1);
  // rmode TRUNC: float -> float is to nearest even whatever the rmode.
  // t1 = x (1 + 2^-12) is never halfway between two f16 values: Bochs's
  // vcvtps2ph rounds ties away from zero (a single tcvt at -O0 shows it;
  // native AVX2 and the interpreter round them to even).
  narrow({"cvt_readback_f16",
          {dps("tload", {nv("%xp", "f16")}, nt("%xb", "f16")), dps("tcvt", {nt("%xb", "f16")}, e("%xt")),
           dps("tmuls", {e("%xt"), f("%q")}, e("%t1")), cvt(e("%t1"), nt("%yb", "f16"), "TRUNC"),
           dps("tstore", {nt("%yb", "f16")}, nv("%yp", "f16")), dps("tcvt", {nt("%yb", "f16")}, e("%t2")),
           dps("tsub", {e("%t2"), e("%t1")}, e("%t2")), dps("tstore", {e("%t2")}, v("%zp"))}},
         "f16", "f16", "f32");
  // A bf16 copy (signalling NaNs keep their bits), bf16 -> f16 -> f32 ->
  // bf16 -> f32 (FLOOR, CEIL: still to nearest even).
  narrow({"cvt_mix",
          {dps("tload", {nv("%xp", "bf16")}, nt("%xb", "bf16")), dps("tstore", {nt("%xb", "bf16")}, nv("%yp", "bf16")),
           cvt(nt("%xb", "bf16"), nt("%hb", "f16"), "FLOOR"), dps("tcvt", {nt("%hb", "f16")}, e("%t1")),
           ldc, dps("tcvt", {e("%ct")}, e("%t2")), dps("tadd", {e("%t1"), e("%t2")}, e("%t1")),
           cvt(e("%t1"), nt("%bb", "bf16"), "CEIL"), dps("tcvt", {nt("%bb", "bf16")}, e("%t1")),
           dps("tstore", {e("%t1")}, v("%zp"))}},
         "bf16", "bf16", "f32");
  // f32 signalling NaNs through the identity tcvt and straight into f16.
  Kernel snan{"cvt_f32_snan",
              {ldc, dps("tcvt", {e("%ct")}, e("%t1")), dps("tstore", {e("%t1")}, v("%zp")),
               dps("tcvt", {e("%ct")}, nt("%hb", "f16")), dps("tcvt", {nt("%hb", "f16")}, e("%t2")),
               dps("tstore", {e("%t2")}, v("%yp"))}};
  snan.f16_ties = true;
  narrow(snan, "f32", "f32", "f32");
  narrow({"cvt_bf16_snan",  // bf16 signalling NaNs quieted by the widening tcvt
          {dps("tload", {nv("%xp", "bf16")}, nt("%xb", "bf16")), dps("tcvt", {nt("%xb", "bf16")}, e("%t1")),
           dps("tstore", {e("%t1")}, v("%zp"))}},
         "bf16", "bf16", "f32");
  // f16 lanes are quieted by vcvtph2ps: a loaded f16 tile that is stored
  // is refused (op by op).
  narrow({"refused_f16_copy",
          {dps("tload", {nv("%xp", "f16")}, nt("%xb", "f16")), dps("tstore", {nt("%xb", "f16")}, nv("%yp", "f16"))},
          false, false},
         "f16", "f16", "f32");
  // Every kernel with an exp, again at -O2.
  for (size_t i = 0, n = k.size(); i < n; ++i) {
    bool exp = false;
    for (const std::string& line : k[i].body) exp |= line.find("pto.texp ") != std::string::npos;
    if (!exp) continue;
    Kernel o = k[i];
    o.name += "_O2";
    o.o2 = true;
    k.push_back(o);
  }
  return k;
}

// The element type of buffer b (x c g y z).
const std::string& elem_of(const Kernel& k, int b) {
  static const std::string f32 = "f32";
  return b == 0 ? k.xe : b == 3 ? k.ye : b == 4 ? k.ze : f32;
}

// The kernel text: x, c (inputs), g (one row), y, z (outputs), m, n, s.
// `fixed` > 0: the shapes are constants (m = fixed, n = tc; fixed a
// multiple of 16): views of constant dims and tiles of static valid
// shape (the deep loop, no one-row path; no streaming copy for views
// under 4 MiB), %m and %n unused.
std::string kernel_text(const Kernel& k, int tc, bool fuse, int fixed = 0) {
  Types T = types(tc);
  std::string s;
  s += "module {\n  func.func @k(%x: !pto.ptr<" + k.xe + ">, %c: !pto.ptr<f32>, %g: !pto.ptr<f32>, %y: !pto.ptr<" +
       k.ye + ">, %z: !pto.ptr<" + k.ze + ">, %m: index, %n: index, %s: f32) {\n";
  s += "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n";
  s += "    %c16 = arith.constant 16 : index\n";
  s += "    %one = arith.constant 1.000000e+00 : f32\n    %eps = arith.constant 3.000000e-01 : f32\n";
  s += "    %q = arith.constant 1.000244140625 : f32\n";
  auto tv = [&](const char* name, const char* p, const char* rows, const std::string& dt) {
    s += std::string("    ") + name + " = pto.make_tensor_view " + p + ", shape = [" + rows +
         ", %n], strides = [%n, %c1] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?x" + dt + ">\n";
  };
  s += "    %m1 = arith.addi %m, %c1 : index\n";
  tv("%xv", "%x", k.shifted ? "%m1" : "%m", k.xe);
  tv("%cv", "%c", "%m", "f32");
  tv("%gv", "%g", "%c1", "f32");
  tv("%yv", k.shifted ? "%x" : "%y", k.shifted ? "%m1" : "%m", k.ye);
  tv("%zv", "%z", "%m", k.ze);
  s += "    %gp = pto.partition_view %gv, offsets = [%c0, %c0], sizes = [%c1, %n] : !pto.tensor_view<?x?xf32> -> " + T.V +
       "\n";
  s += "    %gt = pto.alloc_tile valid_row = %c1 valid_col = %n : " + T.G + "\n";
  s += "    pto.tload ins(%gp : " + T.V + ") outs(%gt : " + T.G + ")\n";
  s += "    scf.for %r0 = %c0 to %m step %c16 {\n";
  s += "      %rr = arith.subi %m, %r0 : index\n      %vr = arith.minui %rr, %c16 : index\n";
  s += "      %r1 = arith.addi %r0, %c1 : index\n";
  auto pv = [&](const char* name, const char* v, const char* r, const std::string& dt) {
    s += std::string("      ") + name + " = pto.partition_view " + v + ", offsets = [" + r +
         ", %c0], sizes = [%vr, %n] : !pto.tensor_view<?x?x" + dt + "> -> " + view_of(dt) + "\n";
  };
  pv("%xp", "%xv", "%r0", k.xe);
  pv("%cp", "%cv", "%r0", "f32");
  pv("%yp", "%yv", k.shifted ? "%r1" : "%r0", k.ye);
  pv("%zp", "%zv", "%r0", k.ze);
  for (const char* t : {"%xt", "%ct", "%t1", "%t2"})
    s += std::string("      ") + t + " = pto.alloc_tile valid_row = %vr valid_col = %n : " + T.E + "\n";
  if (k.n16)
    for (auto [t, dt] : {std::pair<const char*, std::string>{"%xb", k.xe}, {"%yb", k.ye}, {"%hb", "f16"}, {"%bb", "bf16"}})
      s += std::string("      ") + t + " = pto.alloc_tile valid_row = %vr valid_col = %n : " + tile_of(T, dt) + "\n";
  for (const char* t : {"%mx", "%sm"})
    s += std::string("      ") + t + " = pto.alloc_tile valid_row = %vr valid_col = %c1 : " + T.C + "\n";
  if (fuse) s += "      pto.fuse {\n";
  for (const std::string& l : k.body) s += "        " + l + "\n";
  if (fuse) s += "      }\n";
  s += "    }\n    return\n  }\n}\n";
  if (!fixed) return s;
  // The body after the signature: %m and %n become constants %M and %N,
  // the tiles' valid shapes static.
  size_t body = s.find("{\n", s.find("func.func")) + 2;
  std::string b = s.substr(body);
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t at = 0; (at = b.find(from, at)) != std::string::npos; at += to.size()) b.replace(at, from.size(), to);
  };
  replace_all("%m", "%M");
  replace_all("%n", "%N");
  for (const char* valid : {", valid=?x?", " valid_row = %vr valid_col = %N", " valid_row = %vr valid_col = %c1",
                            " valid_row = %c1 valid_col = %N"})
    replace_all(valid, "");
  return s.substr(0, body) + "    %M = arith.constant " + std::to_string(fixed) + " : index\n    %N = arith.constant " +
         std::to_string(tc) + " : index\n" + b;
}

std::mt19937 g_rng(12345);

// An input element: ordinary values, or (specials) a mix with NaNs of
// several payloads and signs, infinities, signed zeros, subnormals and
// large values.
float sample(bool specials) {
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  if (!specials || g_rng() % 10 > 2) return u(g_rng);
  static const uint32_t sp[] = {0x7fc00000u, 0xffc00001u, 0x7fa00123u /* signalling */, 0x7fc0beefu,
                                0x7f800000u, 0xff800000u, 0x00000000u, 0x80000000u,
                                0x00000001u, 0x807fffffu, 0x7149f2cau /* 1e30 */, 0xf149f2cau};
  uint32_t b = sp[g_rng() % (sizeof(sp) / sizeof(sp[0]))];
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// An input element of type dt, as bits: f32 as above; bf16 its top half
// (signalling NaNs, infinities, subnormals included); f16 ordinary values,
// or specials: NaNs (quiet, signalling, with payloads), infinities, signed
// zeros, subnormals, the largest finite.
uint32_t sample_bits(const std::string& dt, bool specials) {
  if (dt == "f32") return bits(sample(specials));
  if (dt == "bf16") return bits(sample(specials)) >> 16;
  static const uint16_t sp[] = {0x7e00u, 0xfe01u, 0x7d23u /* signalling */, 0x7c00u, 0xfc00u, 0x0000u,
                                0x8000u, 0x0001u, 0x83ffu, 0x7bffu, 0xfbffu};
  if (specials && g_rng() % 10 <= 2) return sp[g_rng() % (sizeof(sp) / sizeof(sp[0]))];
  float x = std::uniform_real_distribution<float>(-4.f, 4.f)(g_rng);
  uint32_t b = bits(x), e = (b >> 23) & 0xffu;
  if (e < 113) return (b >> 16) & 0x8000u;  // below f16's normal range: a signed zero
  return ((b >> 16) & 0x8000u) | ((e - 112) << 10) | ((b >> 13) & 0x3ffu);
}

unsigned elem_bytes(const std::string& dt) { return dt == "f32" ? 4 : 2; }

// The value of element bits of type dt.
double value_of(const std::string& dt, uint32_t b) {
  float f;
  if (dt == "f32" || dt == "bf16") {
    b = dt == "f32" ? b : b << 16;
    std::memcpy(&f, &b, 4);
    return f;
  }
  int e = int(b >> 10) & 0x1f, man = int(b & 0x3ffu);
  double v = e == 0 ? std::ldexp(man, -24) : e == 31 ? (man ? NAN : INFINITY) : std::ldexp(1024 + man, e - 25);
  return (b & 0x8000u) ? -v : v;
}

struct Run {
  // 64-byte aligned (the non-temporal tstore path wants aligned rows), as
  // ptorun's arrays.
  std::vector<rt::NpyBytes> bufs;  // x c g y z
};

std::vector<rt::Arg> args(Run& r, int64_t m, int64_t n, float s) {
  std::vector<rt::Arg> a;
  for (auto& b : r.bufs) {
    rt::Arg x;
    x.kind = rt::Arg::Kind::Ptr;
    x.data = b.data();
    x.bytes = b.size();
    a.push_back(x);
  }
  rt::Arg i;
  i.kind = rt::Arg::Kind::Int;
  i.i = m;
  a.push_back(i);
  i.i = n;
  a.push_back(i);
  rt::Arg f;
  f.kind = rt::Arg::Kind::Float;
  f.f = s;
  a.push_back(f);
  return a;
}

bool parse(const std::string& name, const std::string& text, std::unique_ptr<SourceFile>& src,
           std::unique_ptr<Module>& m) {
  src = std::make_unique<SourceFile>(name + ".pto", text);
  m = std::make_unique<Module>();
  Diag d(src.get());
  FrontendOptions fo;
  fo.arch = Arch::A5;
  fo.arch_from_cli = true;
  if (!run_frontend(*src, fo, *m, d)) {
    std::printf("FAIL %s: front end:\n%s\n%s", name.c_str(), d.text().c_str(), text.c_str());
    return false;
  }
  return true;
}

// JIT-compiles the entry function of m for target; prints why not.
bool jit(const std::string& name, const Module& m, const SourceFile* src, const std::string& target, InstId& fn,
         rt::JitKernel& jk) {
  rt::Interpreter interp(m);
  std::string err;
  fn = interp.find_function("", err);
  Diag jd(src);
  if (jk.load(m, fn, target, jd, err)) return true;
  std::printf("FAIL %s: %s %s\n", name.c_str(), err.c_str(), jd.text().c_str());
  return false;
}

size_t code_size(const Module& m, const cg::Target& t) {
  cg::ModuleCode mc;
  Diag d(nullptr);
  if (!cg::compile_module(m, t, mc, d)) return 0;
  size_t n = 0;
  for (const auto& f : mc.funcs) n += f.code.size();
  return n;
}


// --bench: times each kernel file on M x 128 f32 buffers.
int bench(const std::string& target, int64_t m, const std::vector<std::string>& files) {
  size_t elems = size_t(m) * 128;
  for (const std::string& file : files) {
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    std::unique_ptr<SourceFile> src;
    std::unique_ptr<Module> mod;
    if (!parse(file, ss.str(), src, mod)) return 1;
    InstId fn;
    rt::JitKernel jk;
    if (!jit(file, *mod, src.get(), target, fn, jk)) return 1;
    std::vector<DType> pt = rt::jit_param_types(*mod, fn);
    std::vector<float*> bufs;
    std::vector<rt::Arg> a;
    for (DType d : pt) {
      rt::Arg x;
      if (d == DType::None) {
        float* b = static_cast<float*>(std::aligned_alloc(64, elems * 4));
        for (size_t i = 0; i < elems; ++i) b[i] = float(int(i * 2654435761u % 2000u) - 1000) / 250.f;
        bufs.push_back(b);
        x.kind = rt::Arg::Kind::Ptr;
        x.data = reinterpret_cast<uint8_t*>(b);
        x.bytes = elems * 4;
      } else {
        x.kind = rt::Arg::Kind::Int;
        x.i = m;
      }
      a.push_back(x);
    }
    std::vector<double> t;
    for (int r = 0; r < 10; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      jk.run(a, 0, 1);
      auto t1 = std::chrono::steady_clock::now();
      if (r) t.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / double(elems));
    }
    std::sort(t.begin(), t.end());
    std::printf("%-40s %s  %.3f ns/elem (median of 9; best %.3f)\n", file.c_str(), target.c_str(), t[t.size() / 2],
                t[0]);
    for (float* b : bufs) std::free(b);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string target = "avx2";
  bool verbose = false, do_bench = false, do_dump = false;
  std::vector<std::string> rest;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--target=", 9) == 0) target = argv[i] + 9;
    else if (std::strcmp(argv[i], "-v") == 0) verbose = true;
    else if (std::strcmp(argv[i], "--bench") == 0) do_bench = true;
    else if (std::strcmp(argv[i], "--dump") == 0) do_dump = true;
    else rest.push_back(argv[i]);
  }
  const cg::Target* tgp = cg::find_target(target);
  if (!tgp || !tgp->has_backend()) return 2;
  const cg::Target& tg = *tgp;
  // avx512 on a CPU without it: every run under Bochs, in one batch.
  bool bochs = !rt::cpu_supports(target);
  std::string why;
  if (bochs && (do_bench || !rt::bochs_available(&why))) {
    std::printf("SKIP: this CPU cannot run %s code%s%s\n", target.c_str(), why.empty() ? "" : " and ", why.c_str());
    return 77;
  }
  if (do_dump) {
    for (const Kernel& k : kernels(types(40))) std::printf("==> %s\n%s", k.name.c_str(), kernel_text(k, 40, true).c_str());
    return 0;
  }
  if (do_bench) {
    if (rest.size() < 2) return 2;
    return bench(target, std::atoll(rest[0].c_str()), std::vector<std::string>(rest.begin() + 1, rest.end()));
  }
  // One kernel run: its reference (interpreter) and target buffers.
  struct Pending {
    const Kernel* k;
    const std::string* text;
    int n, m;
    bool specials;
    Run ref, got;
  };
  std::vector<std::unique_ptr<Pending>> runs;
  std::vector<std::unique_ptr<Kernel>> keep_k;
  std::vector<std::unique_ptr<std::string>> keep_text;
  std::vector<std::unique_ptr<SourceFile>> keep_src;
  std::vector<std::unique_ptr<Module>> keep_mod;
  std::vector<std::unique_ptr<rt::JitKernel>> keep_jit;
  std::vector<rt::BochsJob> jobs;
  std::vector<Pending*> job_run;
  // Width 128: M = 8200 (f32) or 16400 (16-bit views), 4.2 MiB views (the
  // non-temporal tstore path), six kernels (not under Bochs: its payload
  // limit).
  const int widths[] = {1, 7, 8, 12, 33, 64, 200, 128};
  size_t cases = 0, failed = 0, elems = 0, tolerated = 0;
  for (int n : widths) {
    // Tiles of TC columns; 16-bit ones a multiple of 16 (32-byte rows).
    int tc8 = (n + 7) / 8 * 8, tc16 = (n + 15) / 16 * 16;
    std::vector<Kernel> k8 = kernels(types(tc8)), k16 = kernels(types(tc16));
    for (size_t ki = 0; ki < k8.size(); ++ki) {
      const Kernel& k0 = k8[ki].n16 ? k16[ki] : k8[ki];
      int tc = k0.n16 ? tc16 : tc8;
      bool big = n == 128;
      bool streamed = k0.name == "vadd" || k0.name == "softmax" || k0.name == "softmax_O2" || k0.name == "silu_swiglu" ||
                      k0.name == "rmsnorm_bf16" || k0.name == "rmsnorm_f16" || k0.name == "cvt_mix";
      if (big && (bochs || !streamed)) continue;
      if (bochs && k0.f16_ties) continue;
      const Kernel& k = *keep_k.emplace_back(std::make_unique<Kernel>(k0));
      // The shapes as arguments, and (the tiles as wide as the views)
      // constant: 16 and 48 rows.
      for (int fixed : {0, 16, 48}) {
        if (fixed && (big || tc != n)) continue;
        // 16-bit views: twice the rows for 4 MiB.
        std::vector<int> heights = fixed  ? std::vector<int>{fixed}
                                   : big ? std::vector<int>{k0.n16 ? 16400 : 8200}
                                         : std::vector<int>{1, 5, 16, 37};
        const std::string& text = *keep_text.emplace_back(std::make_unique<std::string>(kernel_text(k, tc, true, fixed)));
        std::unique_ptr<SourceFile> src, psrc;
        std::unique_ptr<Module> mod, pmod;
        if (!parse(k.name, text, src, mod) ||
            !parse(k.name + " (plain)", kernel_text(k, tc, false, fixed), psrc, pmod)) {
          ++failed;
          continue;
        }
        if (k.o2) mod->opt_level = pmod->opt_level = 2;  // the region is already written out: no optimizer run
        size_t fused_size = code_size(*mod, tg), plain_size = code_size(*pmod, tg);
        if (fused_size == 0 || (fused_size > plain_size) != k.fused) {
          std::printf("FAIL %s n=%d: the fused region was %s (code %zu bytes, %zu without pto.fuse)\n", k.name.c_str(), n,
                      fused_size > plain_size ? "taken" : "not taken", fused_size, plain_size);
          ++failed;
        }
        InstId fn;
        auto jk = std::make_unique<rt::JitKernel>();
        std::string err;
        if (bochs) {
          rt::Interpreter interp(*mod);
          fn = interp.find_function("", err);
          Diag jd(src.get());
          if (!jk->load_for_bochs(*mod, fn, target, jd, err)) {
            std::printf("FAIL %s n=%d: %s %s\n", k.name.c_str(), n, err.c_str(), jd.text().c_str());
            ++failed;
            continue;
          }
        } else if (!jit(k.name + " n=" + std::to_string(n), *mod, src.get(), target, fn, *jk)) {
          ++failed;
          continue;
        }
        rt::Interpreter interp(*mod);
        for (int m : heights) {
          for (bool specials : {false, true}) {
            ++cases;
            auto p = std::make_unique<Pending>(Pending{&k, &text, n, m, specials, {}, {}});
            size_t rows = size_t(m) + 1;  // one spare row: a store past the view shows
            p->ref.bufs.resize(5);
            for (int b = 0; b < 5; ++b) {
              size_t cnt = b == 2 ? size_t(n) : rows * size_t(n);
              const std::string& dt = elem_of(k, b);
              for (size_t i = 0; i < cnt; ++i) {
                uint32_t v = b < 3 ? sample_bits(dt, specials && b != 2) : dt == "f32" ? bits(-12345.f) : 0xc641u;
                for (unsigned j = 0; j < elem_bytes(dt); ++j) p->ref.bufs[size_t(b)].push_back(uint8_t(v >> (8 * j)));
              }
            }
            float s = 1.0f / float(n);
            p->got = p->ref;
            if (!interp.run_block(fn, args(p->ref, m, n, s), 0, 1, err)) {
              std::printf("FAIL %s n=%d m=%d: interpreter: %s\n", k.name.c_str(), n, m, err.c_str());
              ++failed;
              continue;
            }
            if (bochs) {
              jobs.push_back(rt::bochs_job(*mod, fn, *jk->image(), args(p->got, m, n, s), 1));
              job_run.push_back(p.get());
            } else {
              jk->run(args(p->got, m, n, s), 0, 1);
            }
            runs.push_back(std::move(p));
          }
        }
        keep_src.push_back(std::move(src));
        keep_mod.push_back(std::move(mod));
        keep_jit.push_back(std::move(jk));
      }
    }
  }
  if (bochs && !jobs.empty()) {
    rt::BochsResult res;
    std::string err;
    if (!rt::bochs_run(jobs, rt::BochsOptions{}, res, err)) {
      std::printf("FAIL: under Bochs: %s\n", err.c_str());
      return 1;
    }
    for (size_t j = 0; j < jobs.size(); ++j)
      if (!res.job_errors[j].empty()) {
        std::printf("FAIL %s n=%d m=%d: under Bochs: %s\n", job_run[j]->k->name.c_str(), job_run[j]->n, job_run[j]->m,
                    res.job_errors[j].c_str());
        ++failed;
      }
  }
  double eps = std::ldexp(1.0, -24);
  for (const auto& p : runs) {
    const Kernel& k = *p->k;
    size_t n = size_t(p->n), rows = size_t(p->m) + 1;
    bool bad = false;
    for (int b : {0, 3, 4}) {
      const std::string& dt = elem_of(k, b);
      unsigned es = elem_bytes(dt);
      auto at = [&](const Run& run, size_t i) {
        uint32_t v = 0;
        std::memcpy(&v, run.bufs[size_t(b)].data() + i * es, es);
        return v;
      };
      // One ULP of a 16-bit result: a row sum's rounding error may move
      // it across a rounding boundary.
      double ulp16 = dt == "bf16" ? std::ldexp(1.0, -7) : dt == "f16" ? std::ldexp(1.0, -10) : 0;
      for (size_t r = 0; r < rows && !bad; ++r) {
        double scale = 0;
        if (k.dot) {  // f32 x (buffer 0, row r) and g (buffer 2, one row); finite ones, as below
          auto in = [&](int buf, size_t i) {
            float v;
            std::memcpy(&v, p->ref.bufs[size_t(buf)].data() + i * 4, 4);
            return double(v);
          };
          double terms = 0, xmax = 0;
          for (size_t j = 0; j < n; ++j) {
            double x = in(0, r * n + j);
            if (!std::isfinite(x)) continue;
            terms += std::fabs(x * x * in(2, j));
            xmax = std::max(xmax, std::fabs(x));
          }
          scale = terms * xmax;
        } else {
          for (size_t j = 0; j < n; ++j)
            if (std::isfinite(value_of(dt, at(p->ref, r * n + j))))
              scale = std::max(scale, std::fabs(value_of(dt, at(p->ref, r * n + j))));
        }
        for (size_t j = 0; j < n; ++j) {
          size_t i = r * n + j;
          ++elems;
          uint32_t rb = at(p->ref, i), gb = at(p->got, i);
          if (rb == gb) continue;
          double R = value_of(dt, rb), G = value_of(dt, gb);
          double tol = (k.sums ? 4.0 * double(n + 4) * eps * scale : 0) + ulp16 * std::max(std::fabs(R), std::fabs(G));
          if (dt == "f16") tol += std::ldexp(1.0, -24);
          if (k.o2) tol += 16 * eps * std::max(std::fabs(R), std::fabs(G)) + std::ldexp(8.0, -149);
          bool close = (k.sums || k.o2) && std::isfinite(R) && std::isfinite(G) && std::fabs(R - G) <= tol;
          if (close) {
            ++tolerated;
            continue;
          }
          std::printf("FAIL %s n=%zu m=%d%s: buffer %c[%zu][%zu] (%s): interpreter %.9g (0x%08x), %s %.9g (0x%08x)\n",
                      k.name.c_str(), n, p->m, p->specials ? " specials" : "", "xcgyz"[b], r, j, dt.c_str(), R, rb,
                      target.c_str(), G, gb);
          bad = true;
          break;
        }
      }
    }
    if (bad) {
      ++failed;
      if (verbose) std::printf("%s", p->text->c_str());
    }
  }
  std::printf("x86_fuse_diff %s%s: %zu runs, %zu elements compared (%zu within the row-sum or -O2 exp bound), %zu failed\n",
              target.c_str(), bochs ? " (bochs)" : "", cases, elems, tolerated, failed);
  return failed ? 1 : 0;
}
