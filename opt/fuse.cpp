// Pass `fuse`: each maximal run of two or more consecutive row-wise tile
// ops (loads, stores, conversions, elementwise, tile-scalar, row and column
// expands, row reductions) becomes one `pto.fuse { ... }` region, which the
// encoders may lower as a single loop nest over the rows (docs/optimizer.md). The
// region means its body run in order, so the result is unchanged whatever
// an encoder does with it. Pure scalar and view instructions and tile
// allocations between the ops of a run move above it: they read no tile,
// so the order is free.
#include "ir_edit.h"
#include "passes.h"

namespace ptoas::opt {

namespace {

// Vector-unit tiles only: loads into cube operand tiles feed a matmul,
// which is not row-wise.
bool vec_tiles(const Module& m, const Inst& in) {
  for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) {
    const Type& t = m.type_of(m.operand(in, i));
    if (t.kind == TypeKind::TileBuf && t.loc != Loc::Vec) return false;
  }
  return true;
}

bool row_wise(const Module& m, const Inst& in) {
  if (op_info(in.op).syn != Syn::Dps) return false;
  switch (in.op) {
    case Op::TLoad:
    case Op::TStore:
      return in.n_ins == 1 && in.n_attrs == 0 && vec_tiles(m, in);  // plain moves only
    case Op::TCvt:  // elementwise over the source's valid region
      return vec_tiles(m, in);
    case Op::TRowSum: case Op::TRowMax: case Op::TRowMin:
    case Op::TRowExpand: case Op::TRowExpandAdd: case Op::TRowExpandSub: case Op::TRowExpandMul:
    case Op::TRowExpandDiv: case Op::TRowExpandMax: case Op::TRowExpandMin:
    case Op::TColExpand: case Op::TColExpandAdd: case Op::TColExpandSub: case Op::TColExpandMul:
    case Op::TColExpandDiv: case Op::TColExpandMax: case Op::TColExpandMin:
      return vec_tiles(m, in);
    default:
      break;
  }
  Sem s = op_info(in.op).sem;
  if (s != Sem::EltBin && s != Sem::EltUnary && s != Sem::EltScalar) return false;
  // Every operand is a tile or a scalar: no views, no index tiles.
  for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) {
    TypeKind k = m.type_of(m.operand(in, i)).kind;
    if (k != TypeKind::TileBuf && k != TypeKind::Scalar) return false;
  }
  return vec_tiles(m, in);
}

// The longest region made: a longer run is cut into several. Every op of a
// region runs in each row of its loop nest, so one longer region gains
// nothing over two, while an encoder plans a region in time that grows with
// the square of its length (x86/fuse_regs.cpp); without the cut, 100,000
// independent load-add-store chains became one region that took the x86
// encoder most of its time. The samples' longest region has 21 ops.
constexpr size_t kMaxFuseOps = 64;

// An allocation without an explicit address: moving it earlier changes
// where the tile lives, never what any op computes.
bool movable_alloc(const Inst& in) { return in.op == Op::AllocTile && !(in.flags & kInstHasAddr); }

struct Fuser {
  Module& m;
  const TargetDesc& target;
  unsigned regions_made = 0;

  InstId make_fuse(const std::vector<InstId>& body) {
    Region r{};
    r.inst_begin = uint32_t(m.region_insts.size());
    r.inst_count = uint32_t(body.size());
    r.arg_begin = uint32_t(m.region_args.size());
    r.arg_count = 0;
    r.label = kNone;
    m.region_insts.insert(m.region_insts.end(), body.begin(), body.end());
    Inst f{};
    f.op = Op::Fuse;
    f.n_res = 0;
    f.n_regions = 1;
    f.opnd = uint32_t(m.operands.size());
    f.res = kNone;
    f.attrs = uint32_t(m.attrs.size());
    f.region = uint32_t(m.regions.size());
    f.loc = m.insts[body.front()].loc;
    f.form = Form::Dps;
    m.regions.push_back(r);
    m.insts.push_back(f);
    ++regions_made;
    return InstId(m.insts.size() - 1);
  }

  void region(RegionId r) {
    std::vector<InstId> in_list = region_list(m, r);
    std::vector<InstId> out, run, hoisted;
    auto close_run = [&] {
      out.insert(out.end(), hoisted.begin(), hoisted.end());
      if (run.size() >= 2) out.push_back(make_fuse(run));
      else out.insert(out.end(), run.begin(), run.end());
      run.clear();
      hoisted.clear();
    };
    for (InstId id : in_list) {
      if (m.insts[id].op == Op::Fuse) {  // already fused (the input said so): leave it
        close_run();
        out.push_back(id);
        continue;
      }
      // By value: fusing a nested region appends to m.insts, which may move
      // every record.
      const uint32_t first_region = m.insts[id].region, n_regions = m.insts[id].n_regions;
      for (unsigned k = 0; k < n_regions; ++k) region(first_region + k);
      if (row_wise(m, m.insts[id]) && (!target.fusable || target.fusable(m, m.insts[id]))) {
        if (run.size() == kMaxFuseOps) close_run();
        run.push_back(id);
      } else if (!run.empty() && (is_pure(m, m.insts[id]) || movable_alloc(m.insts[id]))) {
        hoisted.push_back(id);
      } else {
        close_run();
        out.push_back(id);
      }
    }
    close_run();
    if (out != in_list) set_region_list(m, r, out);
  }
};

}  // namespace

bool pass_fuse(Module& m, const PassContext& c) {
  Fuser f{m, c.target};
  for (InstId fn : function_defs(m)) f.region(m.insts[fn].region);
  return true;
}

}  // namespace ptoas::opt
