// NPU rules that mirror the official tool's op verifiers, and the driver of
// the NPU rule families (verify_npu.h lists the files).
//
// Here, per instruction: tput_async/tget_async flat 1-D GM memrefs;
// thistogram only on A5; tget_scale_addr dst in scaling; tinsert A2/A3
// dtypes and A5 loc pairs; textract A5 vec->vec ND layout; tgather compare
// form on A2/A3; tquant INT8 offset/dst rules. Messages keep the official
// wording (`'pto.x' op ...`) so that the corpus's CHECK lines match.
#include "verify_npu.h"

namespace ptoas {
namespace verify_detail {
namespace {

DType elem(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  return t ? t->elem : DType::None;
}

Loc loc(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  if (!t || (t->kind != TypeKind::TileBuf && t->kind != TypeKind::Memref)) return Loc::None;
  return t->loc;
}

bool nd_layout(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  if (!t || t->kind != TypeKind::TileBuf) return true;
  return t->blayout == BLayout::RowMajor && t->slayout == SLayout::NoneBox;
}

// A static, contiguous, rank-1 memref in GM. Non-memref operands pass.
bool flat_gm_memref(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  if (!t || t->kind != TypeKind::Memref) return true;
  if (t->rank != 1 || t->dims == kNone) return false;
  if (c.m.types.dim(c.vtype_id(v), 0) < 0) return false;
  if (t->loc != Loc::Gm && t->loc != Loc::None) return false;
  std::string_view text = c.m.types.text(c.vtype_id(v));
  size_t s = text.find("strided<");
  if (s != std::string_view::npos) {
    // Only a unit stride keeps it contiguous.
    std::string_view rest = text.substr(s + 8);
    std::string norm;
    for (char ch : rest) {
      if (ch == '>') break;
      if (ch != ' ') norm += ch;
    }
    if (norm.rfind("[1]", 0) != 0) return false;
  }
  return true;
}

}  // namespace

void verify_npu_inst(Ctx& c, InstId id) {
  const Inst* ip = c.inst(id);
  if (!ip) return;
  const Inst& in = *ip;
  auto out0 = [&]() { return in.n_outs ? c.operand(in, in.n_ins) : kNone; };
  switch (in.op) {
    case Op::TPutAsync:
    case Op::TGetAsync: {
      const char* role[] = {"dst", "src"};
      for (unsigned i = 0; i < 2 && i < c.n_operands(in); ++i) {
        if (!flat_gm_memref(c, c.operand(in, i))) {
          c.error(in.loc, q(in.op) + " op expects " + role[i] +
                              " to be a static flat contiguous logical 1D GM memref");
          break;
        }
      }
      break;
    }
    case Op::THistogram:
      if (c.arch != Arch::A5)
        c.error(in.loc, "'pto.thistogram' op thistogram is only supported on A5");
      break;
    case Op::TGetScaleAddr: {
      Loc l = loc(c, out0());
      if (l != Loc::None && l != Loc::Scaling)
        c.error(in.loc, "'pto.tget_scale_addr' op expects dst to be in the scaling address space");
      break;
    }
    case Op::TInsert: {
      if (in.n_ins < 1 || in.n_outs < 1) break;
      ValueId src = c.operand(in, 0), dst = out0();
      if (c.arch == Arch::A3) {
        DType s = elem(c, src), d = elem(c, dst);
        if (s != DType::None && d != DType::None &&
            !(s == DType::F32 && (d == DType::F16 || d == DType::BF16)))
          c.error(in.loc, "'pto.tinsert' op expects A2/A3 tinsert element types to be src=f32, "
                          "dst=f16/bf16, got src=" + std::string(dtype_name(s)) + ", dst=" +
                              std::string(dtype_name(d)));
      } else {
        Loc s = loc(c, src), d = loc(c, dst);
        if (s != Loc::None && d != Loc::None &&
            !((s == Loc::Acc && d == Loc::Mat) || (s == Loc::Vec && d == Loc::Mat) ||
              (s == Loc::Vec && d == Loc::Vec)))
          c.error(in.loc, "'pto.tinsert' op expects A5 tinsert to use a supported src/dst loc "
                          "pair: acc->mat, vec->mat, or vec->vec (got " +
                              std::string(loc_name(s)) + "->" + std::string(loc_name(d)) + ")");
      }
      break;
    }
    case Op::TExtract: {
      if (c.arch != Arch::A5 || in.n_ins < 1 || in.n_outs < 1) break;
      ValueId src = c.operand(in, 0), dst = out0();
      if (loc(c, src) == Loc::Vec && loc(c, dst) == Loc::Vec &&
          (!nd_layout(c, src) || !nd_layout(c, dst)))
        c.error(in.loc, "'pto.textract' op expects A5 vec->vec textract src/dst to use ND layout "
                        "(blayout=row_major, slayout=none_box)");
      break;
    }
    case Op::TGather: {
      // Compare form: ins(src, scalar, tmp) outs(dst, cdst).
      if (c.arch != Arch::A3 || in.n_ins != 3 || in.n_outs != 2) break;
      const Type* k = c.vtype(c.operand(in, 1));
      if (!k || k->kind != TypeKind::Scalar) break;
      DType s = elem(c, c.operand(in, 0));
      std::string mode = lower(c.attr_text(in, "cmpMode"));
      bool eq = mode.empty() || mode == "eq" || mode.find("<cmp eq>") != std::string::npos;
      if (s != DType::None && !(s == DType::F16 || s == DType::F32 || (s == DType::I32 && eq)))
        c.error(in.loc, "'pto.tgather' op expects A2/A3 compare-form tgather src element type "
                        "to be f16/f32, or i32 when cmpMode=eq");
      break;
    }
    case Op::TQuant: {
      std::string qt = c.kv(in, "quant_type");
      bool asym = qt.find("INT8_ASYM") != std::string::npos;
      bool sym = !asym && qt.find("INT8_SYM") != std::string::npos;
      if (!asym && !sym) break;
      DType d = elem(c, out0());
      if (asym && in.n_ins < 3)
        c.error(in.loc, "'pto.tquant' op INT8_ASYM quantization requires an offset operand");
      else if (sym && in.n_ins > 2)
        c.error(in.loc, "'pto.tquant' op INT8_SYM quantization must not have an offset operand");
      else if (sym && d != DType::None && d != DType::I8)
        c.error(in.loc, "'pto.tquant' op expects dst element type i8 for INT8_SYM quantization, "
                        "got " + std::string(dtype_name(d)));
      else if (asym && d != DType::None && d != DType::U8)
        c.error(in.loc, "'pto.tquant' op expects dst element type ui8 for INT8_ASYM "
                        "quantization, got " + std::string(dtype_name(d)));
      break;
    }
    default:
      break;
  }
}

void verify_npu_module(Ctx& c) {
  NpuIndex ix(c);
  verify_frontend_pipes(c, ix);
  if (!c.stop()) verify_npu_buffers(c, ix);
  if (!c.stop()) verify_comm(c, ix);
  if (!c.stop()) verify_npu_structs(c, ix);
  if (!c.stop()) verify_npu_regions(c, ix);
}

}  // namespace verify_detail
}  // namespace ptoas
