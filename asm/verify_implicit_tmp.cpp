// The official PTOMaterializeImplicitTmp pass at level 3: an op whose NPU
// lowering needs a scratch tile and does not name one gets it from that pass
// at levels 1/2, where PlanMemory then places it; level 3 skips PlanMemory,
// so the program must bring the tmp itself. A rule of NPU code generation,
// not of the language: ptoas applies it when it writes cce code
// (verify_npu_pipeline); --emit=ir and the CPU targets, which need no
// scratch tiles, take such programs (0.60's DeepSeek V4 A3 kernels run tci
// without a tmp at level 3).
//
//   every arch   tpow/tpows on floats; tcolsum with isBinary; tsort32 whose
//                valid width is dynamic or not a multiple of 32
//   A2/A3 only   tci, tquant, txor/txors, tprelu, trem/trems, tsel/tsels,
//                ttrans, the row reductions and the arg reductions
#include "verify_tile_util.h"

namespace ptoas::verify_detail {
namespace {

// The words the message needs after "requires explicit tmp" when the op, as
// written, leaves its tmp to the pass; nullptr when it does not.
const char* missing_tmp(const Ctx& c, const Inst& in) {
  bool a3 = c.arch != Arch::A5;
  const Type* d = tile_of(c, out0(c, in));
  switch (in.op) {
    case Op::TPow: case Op::TPowS:
      return in.n_ins < 3 && d && dtype_is_float(d->elem) ? "" : nullptr;
    case Op::TColSum: {
      int64_t binary = 0;
      return in.n_ins < 2 && attr_int(c, in, "isBinary", binary) && binary ? " for binary tcolsum"
                                                                              : nullptr;
    }
    case Op::TSort32: {
      const Type* s = in.n_ins ? tile_of(c, c.operand(in, 0)) : nullptr;
      if (in.n_ins >= 3 || !s || (is_static(s->vcol) && s->vcol % 32 == 0)) return nullptr;
      return " for tsort32 with dynamic or non-32-aligned width";
    }
    case Op::TQuant: return a3 && in.n_outs < 2 ? "" : nullptr;
    case Op::TCi: case Op::TTrans:
    case Op::TRowMax: case Op::TRowMin: case Op::TRowSum: case Op::TRowProd:
    case Op::TColArgMax: case Op::TColArgMin: case Op::TRowArgMax: case Op::TRowArgMin:
      return a3 && in.n_ins < 2 ? "" : nullptr;
    case Op::TXor: case Op::TXorS: case Op::TPrelu: case Op::TRem: case Op::TRemS:
      return a3 && in.n_ins < 3 ? "" : nullptr;
    case Op::TSel: case Op::TSelS: return a3 && in.n_ins < 4 ? "" : nullptr;
    default: return nullptr;
  }
}

}  // namespace

void verify_implicit_tmp(Ctx& c) {
  if (c.opts.level != Level::Level3) return;
  for (InstId fn : module_functions(c)) {
    std::vector<InstId> body;
    collect_nested(c, fn, body);
    for (InstId id : body) {
      if (c.stop()) return;
      const Inst* in = c.inst(id);
      if (!in) continue;
      if (const char* what = missing_tmp(c, *in))
        c.error(in->loc, q(in->op) + " op requires explicit tmp" + what + " when PlanMemory is skipped");
    }
  }
}

}  // namespace ptoas::verify_detail
