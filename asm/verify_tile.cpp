// Legality of every !pto.tile_buf definition: alloc_tile results, function
// parameters and the tile results of NPU ops (tpop ...). Each offending
// definition is reported once, at the defining op (or the parameter). A
// subview's result valid shape follows its valid operands or, without them,
// is static within the subview's sizes.
//
// Every definition (the type's own verifier in PTOAS 0.60):
//   rows > 0, cols > 0; static valid extents within 0..rows / 0..cols;
//   fractal in {32, 512, 1024}; pad 0..3; compact 0..2;
//   the tile's bytes fit the arch's buffer for its loc.
// pto.alloc_tile results only (AllocTileOp's verifier; declare_tile, treshape
// results and parameters are not checked, and 0.60's files rely on that):
//   none_box: the row (row_major: cols * sizeof) or column (col_major:
//     rows * sizeof) is a multiple of 32 bytes, 16 for packed fp4 pairs;
//   boxed: rows a multiple of the inner box's rows, except in vec, with
//     fractal 32, or for a single row.
// A treshape destination is exempt too: it reinterprets its source's storage
// (the official SSA form `%r = pto.treshape %s : A -> B` allocates nothing;
// ptoas binds that form to an alloc_tile plus a DPS treshape, and prints it
// so).
// Two relaxations keep the 0.27 language's accepted files accepted (0.60
// rejects them and its tree rewrote them): a single row or column (a vector
// tile, e.g. thistogram's 8x1 ui8 index) is exempt from the none_box rule,
// and the boxed cols rule of 0.60 (cols a multiple of the inner box's cols;
// 0.27's tgemv.mx used 8-column right and acc tiles) is not enforced.
#include <algorithm>
#include <unordered_set>

#include "opaque_text.h"
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
  if (t.fractal != 32 && t.fractal != 512 && t.fractal != 1024)
    return "unsupported s_fractal_size: " + std::to_string(t.fractal) +
           ", must be one of {32, 512, 1024}";
  if (t.pad > 3) return "pad must be 0..3 (null, zero, max, min), got " + std::to_string(t.pad);
  if (t.compact > 2)
    return "compact must be 0..2 (null, normal, row_plus_one), got " + std::to_string(t.compact);
  unsigned es = dtype_bytes(t.elem);
  if (es == 0) return {};
  std::string ty(dtype_name(t.elem));
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

// AllocTileOp's layout rule (see the top of the file); "" when it holds.
std::string alloc_layout_problem(const Type& t) {
  uint64_t es = dtype_bytes(t.elem);
  if (es == 0 || t.rows <= 0 || t.cols <= 0) return {};
  if (t.slayout == SLayout::NoneBox) {
    if (t.rows == 1 || t.cols == 1) return {};
    bool fp4 = t.elem == DType::F4E1M2x2 || t.elem == DType::F4E2M1x2;
    uint64_t align = fp4 ? 16 : 32;
    bool row = t.blayout == BLayout::RowMajor;
    uint64_t bytes = uint64_t(row ? t.cols : t.rows) * es;
    if (bytes % align == 0) return {};
    return std::string("expects result ") + (row ? "row-major" : "col-major") +
           " none_box tile " +
           (row ? "row byte size (cols * sizeof(dtype))" : "column byte size (rows * sizeof(dtype))") +
           " to be " + std::to_string(align) + "-byte aligned, but got " + std::to_string(bytes) +
           " bytes";
  }
  // The inner box's rows as the official rule sizes them (16, or 32 bytes
  // of a column-major fractal-512 box; fractal 32 needs none).
  int64_t ir = 16;
  if (t.fractal == 512 && t.slayout == SLayout::ColMajor) {
    if (32 % es != 0)
      return "expects result element byte size to divide 32 for boxed fractal-512 tile layout";
    ir = int64_t(32 / es);
  }
  bool unaligned_rows_ok = t.loc == Loc::Vec || t.fractal == 32 || t.rows == 1;
  if (!unaligned_rows_ok && t.rows % ir != 0)
    return "expects result boxed tile rows to be a multiple of innerRows (" + std::to_string(ir) +
           "), but got " + std::to_string(t.rows);
  return {};
}

// A constant index operand's value.
bool const_index(const Ctx& c, ValueId v, int64_t& out) {
  const Inst* d = c.def_of(v);
  if (!d || d->op != Op::Constant) return false;
  const Attr* a = c.m.find_attr(*d, "value");
  if (!a || a->kind != AttrKind::Int) return false;
  out = a->ival;
  return true;
}

// pto.subview %src[r, c] sizes [R, C] (valid [vr, vc])? : S -> T. The
// result's valid extents are the explicit ones (a constant clipped to the
// size, else dynamic); without them the result type says them, statically,
// within 0..size (0: issue 708's empty-replay marker).
void check_subview(Ctx& c, const Inst& in) {
  if (in.n_res != 1) return;
  const Type* t = c.vtype(c.result(in, 0));
  int64_t size[2];
  if (!t || t->kind != TypeKind::TileBuf || !bracket_pair(c.body(in), "sizes", size[0], size[1]))
    return;
  bool explicit_valid = c.body(in).find("valid[") != std::string_view::npos ||
                        c.body(in).find("valid [") != std::string_view::npos;
  if (explicit_valid && in.n_ins < 5) return;
  const int32_t have[2] = {t->vrow, t->vcol};
  const char* names[2] = {"valid_shape[0] to match inferred/explicit valid_row",
                          "valid_shape[1] to match inferred/explicit valid_col"};
  for (int i = 0; i < 2; ++i) {
    bool ok;
    if (explicit_valid) {
      int64_t v = 0;
      int64_t want = const_index(c, c.operand(in, 3 + i), v) ? std::min(v, size[i]) : int64_t(kDyn);
      ok = have[i] == want;
    } else {
      ok = have[i] != kDyn && have[i] >= 0 && have[i] <= size[i];
    }
    if (!ok) {
      c.error(in.loc, "'pto.subview' op expects result " + std::string(names[i]));
      return;
    }
  }
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
    std::unordered_set<ValueId> reshaped;
    for (InstId id : ids) {
      const Inst& in = m.insts[id];
      if (in.op == Op::TReshape && in.n_outs > 0) reshaped.insert(c.operand(in, in.n_ins));
    }
    for (InstId id : ids) {
      const Inst& in = m.insts[id];
      if (in.op == Op::Subview) check_subview(c, in);
      bool defines = in.op == Op::AllocTile ||
                     (op_info(in.op).syn == Syn::Opaque && in.op != Op::TAssign);
      if (!defines) continue;
      for (unsigned r = 0; r < in.n_res; ++r) check(c.result(in, r), in.loc);
      if (in.op != Op::AllocTile || in.n_res == 0 || reshaped.count(c.result(in, 0))) continue;
      const Type* t = c.vtype(c.result(in, 0));
      if (!t || t->kind != TypeKind::TileBuf || !tile_problem(*t, c.arch).empty()) continue;
      std::string p = alloc_layout_problem(*t);
      if (!p.empty()) c.error(in.loc, "'pto.alloc_tile' op " + p);
    }
  }
}

}  // namespace verify_detail
}  // namespace ptoas
