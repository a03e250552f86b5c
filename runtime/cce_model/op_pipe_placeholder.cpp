#include "op_pipe_placeholder.h"

#include "ops.h"

namespace ptoas::cce_model {

ModelPipe placeholder_op_pipe(const Module& m, const Inst& in, Arch arch) {
  auto loc_of = [&](unsigned i) { return m.type_of(m.operand(in, i)).loc; };
  switch (in.op) {
    case Op::TLoad: case Op::TPrefetch: case Op::MGather: return ModelPipe::MTE2;
    case Op::MScatter: return ModelPipe::MTE3;
    case Op::TStore: return loc_of(0) == Loc::Acc ? ModelPipe::FIX : ModelPipe::MTE3;
    case Op::TStoreFp: case Op::TExtractFp: case Op::TInsertFp: return ModelPipe::FIX;
    case Op::TMovFp: return ModelPipe::MTE1;
    case Op::TMatmul: case Op::TMatmulAcc: case Op::TMatmulBias: case Op::TMatmulMx:
    case Op::TMatmulMxAcc: case Op::TMatmulMxBias: case Op::TGemv: case Op::TGemvAcc:
    case Op::TGemvBias: case Op::TGemvMx: case Op::TGemvMxAcc: case Op::TGemvMxBias:
      return ModelPipe::M;
    case Op::TMov: case Op::TExtract: case Op::TInsert: {
      if (in.n_ins == 0 || in.n_outs == 0) return ModelPipe::V;
      Loc src = loc_of(0), dst = m.type_of(m.operand(in, in.n_ins)).loc;
      if (src == Loc::Mat) return ModelPipe::MTE1;
      if (src == Loc::Acc) return ModelPipe::FIX;
      if (src == Loc::Vec && dst == Loc::Mat) return arch == Arch::A5 ? ModelPipe::MTE3 : ModelPipe::V;
      return ModelPipe::V;
    }
    default: return ModelPipe::V;
  }
}

}  // namespace ptoas::cce_model
