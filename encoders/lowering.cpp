// The shared lowering driver (lowering.h).
#include "lowering.h"

#include "ops.h"
#include "cpu_frame.h"
#include "tile_layout.h"
#include "tile_plan.h"

namespace ptoas::cg {

InstId Lowering::lower_region(const Region& r) {
  for (unsigned i = 0; i < r.inst_count; ++i) {
    InstId id = lower_m_.region_inst(r, i);
    const Inst& in = lower_m_.inst(id);
    if ((in.op == Op::Yield || in.op == Op::Condition) && i + 1 == r.inst_count) return id;
    lower_inst(in, id);
  }
  return kNone;
}

void Lowering::yield_to(InstId term, const std::vector<ValueId>& to) {
  if (term == kNone) return;
  const Inst& y = lower_m_.inst(term);
  mark(y);
  carry(y, operand_list(lower_m_, y, 0, y.n_ins), to);
}

void Lowering::lower_inst(const Inst& in, InstId id) {
  current_ = id;
  if (lower_special(in, id)) return;
  const Module& m = lower_m_;
  const OpInfo& info = op_info(in.op);
  mark(in);
  switch (info.syn) {
    case Syn::Module: case Syn::Func:
      return fail(in, {RefusalCode::Control, "a nested function"});
    case Syn::Block:
      return fail(in, {RefusalCode::Control, "unstructured control flow (a ^block)"});
    case Syn::Return:
      if (in.n_ins && !returns_values())
        return fail(in, {RefusalCode::Control, "a function that returns values (a kernel returns void)"});
      return lower_return(in);
    case Syn::Yield: case Syn::Condition:
      return fail(in, {RefusalCode::Control, "a terminator in the middle of a region"});
    case Syn::Call:
      return fail(in, kCallRefusal);
    case Syn::For: {
      const Region& body = m.region(in, 0);
      ValueId iv = m.region_arg(body, 0);
      std::vector<ValueId> iters = region_args(m, body, 1);
      carry(in, operand_list(m, in, 3, in.n_ins - 3u), iters);
      begin_for(in, iv);
      fors_.push_back(id);
      yield_to(lower_region(body), iters);
      fors_.pop_back();
      end_for(in, iv);
      carry(in, iters, result_list(in));
      return;
    }
    case Syn::Fuse:
      if (names_window(m.region(in, 0)) || !fused_region(in)) lower_region(m.region(in, 0));
      return;
    case Syn::If:
      begin_if(in);
      yield_to(lower_region(m.region(in, 0)), result_list(in));
      else_if(in);
      if (in.n_regions > 1) yield_to(lower_region(m.region(in, 1)), result_list(in));
      end_if(in);
      return;
    case Syn::While: {
      const Region& before = m.region(in, 0);
      const Region& after = m.region(in, 1);
      carry(in, operand_list(m, in, 0, in.n_ins), region_args(m, before, 0));
      begin_while(in);
      InstId c = lower_region(before);
      if (c == kNone || m.inst(c).op != Op::Condition) return fail(in, {RefusalCode::Control, "scf.while without scf.condition"});
      const Inst& cond = m.inst(c);
      mark(cond);
      // The forwarded values go to the results first: they are also what
      // the after-region receives.
      carry(cond, operand_list(m, cond, 1, cond.n_ins - 1u), result_list(in));
      test_while(in, cond);
      carry(in, result_list(in), region_args(m, after, 0));
      yield_to(lower_region(after), region_args(m, before, 0));
      end_while(in);
      return;
    }
    case Syn::Const: case Syn::ArithBin: case Syn::ArithUn: case Syn::ArithCmp:
    case Syn::ArithSelect: case Syn::ArithCast: case Syn::NoArgs:
      return scalar(in);
    case Syn::MakeTensorView: case Syn::PartitionView: case Syn::GetDim: case Syn::AddPtr:
    case Syn::SetValidShape:
      return view(in);
    case Syn::Subset:
      return tile_view(in);
    case Syn::AllocTile:
      return alloc(in, id);
    case Syn::Dps: case Syn::Opaque:
      // Sync and a fence of every pipe are ordering no-ops where one core
      // runs the whole block in program order; a prefetch or a cache
      // invalidation (one coherent memory) has no effect on results.
      if (info.sem == Sem::Sync || in.op == Op::TPrefetch || in.op == Op::CmoCacheInvalid ||
          in.op == Op::FenceBarrierAll)
        return;
      if (in.op == Op::Subview) return tile_view(in);
      refresh_windows(in);
      if (in.op == Op::LoadScalar || in.op == Op::StoreScalar || in.op == Op::TGetVal || in.op == Op::TSetVal)
        scalar_mem(in);
      else
        tile_op(in);
      write_back_windows(in);
      return;
  }
}

void Lowering::tile_op(const Inst& in) {
  const Module& m = lower_m_;
  switch (in.op) {
    case Op::TLoad: return tcopy(in, m.operand(in, in.n_ins), m.operand(in, 0), true);
    case Op::TStore: {
      if (in.n_ins != 1) return fail(in, {RefusalCode::Operands, "pto.tstore with a scalar operand"});
      std::string_view atomic = m.attr_word(in, "atomicType");
      std::string_view relu = m.attr_word(in, "reluPreMode");
      bool add = atomic == "atomic_add", pos = relu == "normal_relu";
      if (!add && !atomic.empty() && atomic != "atomic_none")
        return fail(in, {RefusalCode::Attribute, "pto.tstore with atomicType '" + std::string(atomic) + "'"});
      if (!pos && !relu.empty() && relu != "no_relu")
        return fail(in, {RefusalCode::Attribute, "pto.tstore with reluPreMode '" + std::string(relu) + "'"});
      if (add || pos) return tstore_combined(in, m.operand(in, 0), m.operand(in, in.n_ins), pos, add);
      return tcopy(in, m.operand(in, 0), m.operand(in, in.n_ins), false);
    }
    case Op::TReshape: {
      if (in.n_ins < 1 || in.n_outs != 1) return fail(in);
      ValueId src = m.operand(in, 0), dst = m.operand(in, in.n_ins);
      const Type& s = m.type_of(src);
      const Type& d = m.type_of(dst);
      if (s.kind != TypeKind::TileBuf || d.kind != TypeKind::TileBuf) return fail(in);
      if (s.loc != d.loc || tile_storage_bytes(s) != tile_storage_bytes(d))
        return fail(in, {RefusalCode::Operands, "pto.treshape between tiles of different locations or sizes"});
      return treshape(in, src, dst);
    }
    case Op::TRowSum: case Op::TRowMax: case Op::TRowMin: case Op::TRowProd: return row_reduce(in);
    case Op::TColSum: case Op::TColMax: case Op::TColMin: case Op::TColProd: return col_reduce(in);
    case Op::TFillPad: case Op::TFillPadInplace: case Op::TFillPadExpand: return tfillpad(in);
    case Op::TExtract: case Op::TInsert: return twindow(in);
    case Op::TTrans: return ttrans(in);
    case Op::TConcat: return tconcat(in);
    case Op::TCmp: case Op::TCmpS: return tcmp(in);
    case Op::TSel: case Op::TSelS: return tsel(in);
    case Op::TAddC: case Op::TSubC: case Op::TAddSC: case Op::TSubSC: case Op::TMulAddDst:
    case Op::TFusedMulAdd: case Op::TFusedMulAddRelu: case Op::TSubRelu: case Op::TLRelu:
    case Op::TPrelu: case Op::TAxpy:
      return fused(in);
    case Op::TCvt: return tcvt(in);
    case Op::TMov: return tmov(in);
    case Op::TTri: return ttri(in);
    case Op::TCi: return tci(in);
    case Op::TGather: return tgather(in);
    case Op::TMatmul: case Op::TMatmulAcc: case Op::TMatmulBias: return matmul(in);
    case Op::TRowExpand: case Op::TRowExpandAdd: case Op::TRowExpandSub: case Op::TRowExpandMul:
    case Op::TRowExpandDiv: case Op::TRowExpandMax: case Op::TRowExpandMin: case Op::TRowExpandExpDif:
      return row_expand(in);
    case Op::TColExpand: case Op::TColExpandAdd: case Op::TColExpandSub: case Op::TColExpandMul:
    case Op::TColExpandDiv: case Op::TColExpandMax: case Op::TColExpandMin: case Op::TColExpandExpDif:
      return col_expand(in);
    default: break;
  }
  const OpInfo& info = op_info(in.op);
  if (info.sem == Sem::EltBin || info.sem == Sem::EltScalar || info.sem == Sem::EltUnary) return elementwise(in);
  fail(in);
}

}  // namespace ptoas::cg
