// The tile-op families of the driver (lowering.h) on PTX: the row-wise
// ones (loads, stores, elementwise, expands, row reductions, conversions,
// selects) and fused regions are row programs (row.cpp); the others have
// their own loops (move.cpp) or are refused at the op.
#include "gen.h"
#include "ops.h"
#include "tile_layout.h"

namespace ptoas::cg::ptx {

namespace {
// One op as a row program, or its refusal.
void single(Gen& g, const Inst& in) {
  Refusal why;
  if (!g.row_program({&in}, in, why)) g.refuse(in, why);
}
}  // namespace

void Gen::refuse(const Inst& in, const Refusal& r) { fail(in, r); }

void Gen::tcopy(const Inst& in, ValueId tile, ValueId view, bool load) {
  const Type& t = ty(tile);
  if (t.kind == TypeKind::TileBuf && t.slayout != SLayout::NoneBox) return boxed_copy(in, tile, view, load);
  single(*this, in);
}
void Gen::elementwise(const Inst& in) { single(*this, in); }
void Gen::fused(const Inst& in) { single(*this, in); }
void Gen::row_reduce(const Inst& in) { single(*this, in); }
void Gen::row_expand(const Inst& in) { single(*this, in); }
void Gen::col_expand(const Inst& in) { single(*this, in); }
void Gen::tcvt(const Inst& in) { single(*this, in); }
void Gen::tsel(const Inst& in) { single(*this, in); }

bool Gen::fused_region(const Inst& in) {
  InstId id = InstId(&in - m_.insts.data());
  if (!regs_only_[id]) return false;
  std::vector<const Inst*> ops;
  const Region& body = m_.region(in, 0);
  for (unsigned i = 0; i < body.inst_count; ++i) {
    const Inst& b = m_.inst(m_.region_inst(body, i));
    if (b.op == Op::Yield && i + 1 == body.inst_count) break;
    ops.push_back(&b);
  }
  Refusal why;
  if (!row_program(ops, in, why)) fail(in, why);
  return true;
}

// dst names src's storage (same location and size, checked by the driver);
// dst keeps its own valid shape.
void Gen::treshape(const Inst&, ValueId src, ValueId dst) {
  I("mov.b32", val(dst).r[0], val(src).r[0]);
}

}  // namespace ptoas::cg::ptx
