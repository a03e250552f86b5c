// pto.textract's rules as the official verifier states them (PTOAS 0.60,
// TExtractOp::verify; the VPTO backend's tile-op expansion relies on them):
// outside an accumulator source, source and destination share the element
// type; the src/dst locations form a supported pair per architecture; a mat
// source has a layout the extraction can read, and a left/right destination
// has the layout the cube reads (A5: left = col_major blocks of row_major
// fractals, right = row_major blocks of col_major fractals; A2/A3: left is
// row_major/row_major). The fixpipe form (textract_fp) and the A5 vec->vec
// ND rule are in verify_dps.cpp and verify_npu.cpp.
#include <string>

#include "verify.h"

namespace ptoas {
namespace verify_detail {
namespace {

bool layout_is(const Type& t, BLayout b, SLayout s) { return t.blayout == b && t.slayout == s; }

std::string pair_text(const Type& s, const Type& d) {
  return std::string(loc_name(s.loc)) + "->" + std::string(loc_name(d.loc));
}

std::string layout_text(const Type& t) {
  return std::string("blayout=") + (t.blayout == BLayout::RowMajor ? "row_major" : "col_major") + ", slayout=" +
         (t.slayout == SLayout::NoneBox ? "none_box" : t.slayout == SLayout::RowMajor ? "row_major" : "col_major");
}

void a5_rules(Ctx& c, const Inst& in, const Type& s, const Type& d) {
  auto err = [&](const std::string& m) { c.error(in.loc, "'pto.textract' op " + m); };
  bool ok_pair = (s.loc == Loc::Mat && (d.loc == Loc::Left || d.loc == Loc::Right || d.loc == Loc::Scaling)) ||
                 (s.loc == Loc::Vec && (d.loc == Loc::Mat || d.loc == Loc::Vec)) ||
                 (s.loc == Loc::Acc && (d.loc == Loc::Mat || d.loc == Loc::Vec));
  if (!ok_pair)
    return err("expects A5 textract to use a supported src/dst loc pair: mat->left/right/scaling, vec->mat/vec "
               "or acc->mat/vec (got " + pair_text(s, d) + ")");
  if (s.loc != Loc::Mat) return;
  bool row = s.blayout == BLayout::RowMajor;
  bool src_ok = (row && s.slayout == SLayout::ColMajor) || (!row && s.slayout == SLayout::RowMajor) ||
                (d.loc == Loc::Left && row);
  if (!src_ok)
    return err("expects A5 textract src to use a supported mat blayout/slayout combination (got " +
               layout_text(s) + " for a " + std::string(loc_name(d.loc)) + " destination)");
  if (d.loc == Loc::Left && !layout_is(d, BLayout::ColMajor, SLayout::RowMajor))
    err("expects A5 left dst to use col_major blayout and row_major slayout (got " + layout_text(d) + ")");
  if (d.loc == Loc::Right && !layout_is(d, BLayout::RowMajor, SLayout::ColMajor))
    err("expects A5 right dst to use row_major blayout and col_major slayout (got " + layout_text(d) + ")");
}

void a3_rules(Ctx& c, const Inst& in, const Type& s, const Type& d) {
  auto err = [&](const std::string& m) { c.error(in.loc, "'pto.textract' op " + m); };
  if ((s.loc == Loc::Vec && d.loc == Loc::Vec) || s.loc == Loc::Acc) return;
  if (s.loc != Loc::Mat) return err("expects A2/A3 textract src to use loc=mat, loc=acc, or loc=vec (got loc=" +
                                    std::string(loc_name(s.loc)) + ")");
  if (d.loc != Loc::Left && d.loc != Loc::Right)
    return err("expects A2/A3 textract dst to use loc=left, loc=right, loc=mat, or loc=vec (got loc=" +
               std::string(loc_name(d.loc)) + ")");
  if (!(s.blayout == BLayout::RowMajor || s.slayout == SLayout::RowMajor))
    return err("expects A2/A3 textract src to use a supported mat blayout/slayout combination (got " +
               layout_text(s) + ")");
  if (d.loc == Loc::Left && !layout_is(d, BLayout::RowMajor, SLayout::RowMajor))
    err("expects A2/A3 left dst to use row_major blayout and row_major slayout (got " + layout_text(d) + ")");
  if (d.loc == Loc::Right && !layout_is(d, BLayout::RowMajor, SLayout::ColMajor))
    err("expects A2/A3 right dst to use row_major blayout and col_major slayout (got " + layout_text(d) + ")");
}

}  // namespace

void verify_extract_inst(Ctx& c, InstId id) {
  const Inst* in = c.inst(id);
  if (!in || in->op != Op::TExtract || in->n_ins < 1 || in->n_outs < 1) return;
  const Type* s = c.vtype(c.operand(*in, 0));
  const Type* d = c.vtype(c.operand(*in, in->n_ins));
  if (!s || !d || s->kind != TypeKind::TileBuf || d->kind != TypeKind::TileBuf) return;
  if (s->loc != Loc::Acc && s->elem != d->elem && s->elem != DType::None && d->elem != DType::None)
    c.error(in->loc, "'pto.textract' op expects src and dst to have the same element type, got " +
                         std::string(dtype_name(s->elem)) + " and " + std::string(dtype_name(d->elem)));
  if (c.arch == Arch::A5) a5_rules(c, *in, *s, *d);
  else a3_rules(c, *in, *s, *d);
}

}  // namespace verify_detail
}  // namespace ptoas
