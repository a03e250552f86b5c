// Legality of every !pto.tile_buf definition: alloc_tile results, function
// parameters and the tile results of NPU ops (tpop ...). Each offending
// definition is reported once, at the defining op (or the parameter).
//
// Rules (PTO_ISA_NOTES §2.3/§2.4, pto_tile.hpp static_asserts), as far as the
// official tool enforces them (every accept file of the corpus must pass):
//   rows > 0, cols > 0; static valid extents within 0..rows / 0..cols;
//   fractal in {16, 32, 512, 1024}; pad 0..3; compact 0..2;
//   row_major + none_box: cols * sizeof(T) % 32 == 0;
//   col_major + none_box: rows * sizeof(T) % 32 == 0 (both only for 2-D tiles);
//   the tile's bytes fit the arch's buffer for its loc.
// Not checked (the official corpus has accepted files that violate them):
//   boxed (fractal) divisibility of rows/cols by the inner box, and the
//   none_box alignment of 1-row / 1-column vectors.
#include <unordered_set>

#include "tile_layout.h"
#include "verify.h"

namespace ptoas {
namespace verify_detail {
namespace {


std::string extent(int32_t v) { return v == kDyn ? "?" : std::to_string(v); }

// Returns the first problem with tile type `t`, or "" when it is legal.
std::string tile_problem(const Type& t, Arch arch) {
  if (t.rows <= 0) return "rows must be positive, got " + std::to_string(t.rows);
  if (t.cols <= 0) return "cols must be positive, got " + std::to_string(t.cols);
  if (t.vrow != kDyn && (t.vrow < 0 || t.vrow > t.rows))
    return "valid rows " + extent(t.vrow) + " must be within 0.." + std::to_string(t.rows) +
           " (the physical rows)";
  if (t.vcol != kDyn && (t.vcol < 0 || t.vcol > t.cols))
    return "valid cols " + extent(t.vcol) + " must be within 0.." + std::to_string(t.cols) +
           " (the physical cols)";
  if (t.fractal != 16 && t.fractal != 32 && t.fractal != 512 && t.fractal != 1024)
    return "fractal must be 16, 32, 512 or 1024, got " + std::to_string(t.fractal);
  if (t.pad > 3) return "pad must be 0..3 (null, zero, max, min), got " + std::to_string(t.pad);
  if (t.compact > 2)
    return "compact must be 0..2 (null, normal, row_plus_one), got " + std::to_string(t.compact);
  unsigned es = dtype_bytes(t.elem);
  if (es == 0) return {};
  std::string ty(dtype_name(t.elem));
  if (t.slayout == SLayout::NoneBox) {
    if (t.blayout == BLayout::RowMajor && t.rows > 1 && t.cols > 1 && (uint64_t(t.cols) * es) % 32 != 0)
      return "row_major/none_box tiles need cols * sizeof(" + ty +
             ") to be a multiple of 32 bytes, got " + std::to_string(t.cols) + " cols (" +
             std::to_string(uint64_t(t.cols) * es) + " bytes)";
    if (t.blayout == BLayout::ColMajor && t.rows > 1 && t.cols > 1 && (uint64_t(t.rows) * es) % 32 != 0)
      return "col_major/none_box tiles need rows * sizeof(" + ty +
             ") to be a multiple of 32 bytes, got " + std::to_string(t.rows) + " rows (" +
             std::to_string(uint64_t(t.rows) * es) + " bytes)";
  }
  uint64_t elems = uint64_t(t.rows) * uint64_t(t.cols);  // < 2^62: no overflow
  uint64_t cap = tile_memory_bytes(arch, t.loc);
  if (cap && elems > cap / es)
    return std::to_string(t.rows) + "x" + std::to_string(t.cols) + "x" + ty + " needs " +
           (elems > (uint64_t(1) << 56) ? std::string("too many")
                                         : std::to_string(elems * es)) +
           " bytes, more than the " + std::to_string(cap / 1024) +
           " KiB of " + std::string(loc_name(t.loc)) + " memory on " +
           (arch == Arch::A5 ? "a5" : "a3");
  return {};
}

}  // namespace

void verify_tiles(Ctx& c) {
  const Module& m = c.m;
  std::unordered_set<ValueId> done;
  auto check = [&](ValueId v, uint32_t loc) {
    if (v == kNone || !done.insert(v).second) return;
    const Type* t = c.vtype(v);
    if (!t || t->kind != TypeKind::TileBuf) return;
    std::string p = tile_problem(*t, c.arch);
    if (!p.empty()) c.error(loc, "invalid tile type " + c.type_text(v) + ": " + p);
  };
  std::vector<InstId> fns = module_functions(c);
  for (InstId f : fns) {
    if (c.stop()) return;
    const Inst& fn = m.insts[f];
    if (const Region* body = c.region(fn, 0))
      for (ValueId a : c.region_args(*body))
        if (a != kNone) check(a, m.values[a].loc);
    std::vector<InstId> ids;
    collect_nested(c, f, ids);
    for (InstId id : ids) {
      const Inst& in = m.insts[id];
      bool defines = in.op == Op::AllocTile ||
                     (op_info(in.op).syn == Syn::Opaque && in.op != Op::TAssign);
      if (!defines) continue;
      for (unsigned r = 0; r < in.n_res; ++r) check(c.result(in, r), in.loc);
    }
  }
}

}  // namespace verify_detail
}  // namespace ptoas
