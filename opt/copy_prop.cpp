// Pass `copyprop`: after `tmov a -> b` between tiles of the same type and
// valid region, the row-wise ops and stores that follow in the same
// region read a instead of b, until either tile, or a tile that may share
// its storage (tile_alias.h), is written again or an instruction this pass
// does not understand mentions one of them. The
// tmov itself goes when nothing reads b any more (dce).
#include "ir_edit.h"
#include "passes.h"
#include "tile_alias.h"

namespace ptoas::opt {

namespace {

bool plain_tmov(const Module& m, const Inst& in) {
  return in.op == Op::TMov && in.n_ins == 1 && in.n_outs == 1 && in.n_attrs == 0 &&
         is_tile(m, m.operand(in, 0)) && is_tile(m, m.operand(in, 1));
}

// Ops whose tile inputs are read only over their valid region, element by
// element: renaming an input to an identical tile cannot change them.
bool reads_valid_region_only(const Inst& in) {
  if (op_info(in.op).syn != Syn::Dps) return false;
  switch (op_info(in.op).sem) {
    case Sem::EltBin: case Sem::EltUnary: case Sem::EltScalar: case Sem::Compare: case Sem::Select:
      return true;
    default:
      break;
  }
  switch (in.op) {
    case Op::TStore: case Op::TMov:
    case Op::TRowSum: case Op::TRowMax: case Op::TRowMin:
    case Op::TColSum: case Op::TColMax: case Op::TColMin:
    case Op::TRowExpand: case Op::TRowExpandAdd: case Op::TRowExpandSub: case Op::TRowExpandMul:
    case Op::TRowExpandDiv: case Op::TRowExpandMax: case Op::TRowExpandMin:
      return in.n_attrs == 0;
    default:
      return false;
  }
}

struct CopyProp {
  Module& m;
  const TileAliases& alias;
  unsigned renamed = 0;

  void forward_from(const std::vector<InstId>& list, size_t at) {
    const Inst& mv = m.insts[list[at]];
    ValueId a = m.operand(mv, 0), b = m.operand(mv, 1);
    if (alias.may_alias(a, b) || !same_tile_shape(m, a, b)) return;
    for (size_t j = at + 1; j < list.size(); ++j) {
      Inst& in = m.insts[list[j]];
      bool ma = alias.mentions_alias(m, in, a), mb = alias.mentions_alias(m, in, b);
      if (!ma && !mb) {
        if (in.n_regions) return;  // the region may mention them: stop
        continue;
      }
      if (!reads_valid_region_only(in) || in.n_regions) return;
      for (unsigned i = 0; i < in.n_ins; ++i)
        if (m.operands[in.opnd + i] == b) {
          m.operands[in.opnd + i] = a;
          ++renamed;
        }
      if (alias.writes_alias(m, in, a) || alias.writes_alias(m, in, b)) return;
    }
  }

  void region(RegionId r) {
    std::vector<InstId> list = region_list(m, r);
    for (size_t i = 0; i < list.size(); ++i) {
      const Inst& in = m.insts[list[i]];
      for (unsigned k = 0; k < in.n_regions; ++k) region(in.region + k);
      if (plain_tmov(m, in)) forward_from(list, i);
    }
  }
};

}  // namespace

bool pass_copy_prop(Module& m, const PassContext&) {
  for (InstId fn : function_defs(m)) {
    const TileAliases alias(m, fn);
    CopyProp c{m, alias};
    c.region(m.insts[fn].region);
  }
  return true;
}

}  // namespace ptoas::opt
