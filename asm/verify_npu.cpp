// NPU rules that mirror the official tool's op verifiers, and the driver of
// the NPU rule families (verify_npu.h lists the files).
//
// Here, per instruction: tput_async/tget_async flat 1-D GM memrefs;
// tget_scale_addr dst in scaling; textract A5 vec->vec ND layout. (The
// tile-op rules of thistogram, tinsert, tgather and tquant are in
// verify_tile_*.cpp.) Messages keep the official wording (`'pto.x' op ...`)
// so that the corpus's CHECK lines match.
#include "verify_npu.h"

namespace ptoas {
namespace verify_detail {
namespace {

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
    case Op::TGetScaleAddr: {
      Loc l = loc(c, out0());
      if (l != Loc::None && l != Loc::Scaling)
        c.error(in.loc, "'pto.tget_scale_addr' op expects dst to be in the scaling address space");
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
