// PTOAS 0.60's PTONormalizeUncoveredTileSections, which runs before either
// backend: in a function with no kernel kind (none on the function or on a
// module around it), tile ops written outside pto.section.cube/vector are
// wrapped, one top-level op at a time, in a section of the kind they imply.
// A top-level op that holds an explicit section and tile ops beside it can
// be wrapped neither way: an error at the function.
//
// The pass's other refusal, a segment whose kind cannot be inferred (cube
// and vector tile ops side by side), is not applied: ptoas compiles such a
// function as a whole for cce and the CPU targets (the attention and GEMM
// samples are written so), where it has one meaning.
#include "verify.h"

namespace ptoas::verify_detail {
namespace {

bool is_section(Op op) { return op == Op::SectionCube || op == Op::SectionVector; }

bool is_tile_op(Op op) {
  switch (op_info(op).sem) {
    case Sem::Memory: case Sem::EltBin: case Sem::EltUnary: case Sem::EltScalar: case Sem::Compare:
    case Sem::Select: case Sem::Reduce: case Sem::Expand: case Sem::Matmul: case Sem::Move:
    case Sem::Convert: case Sem::Generator: case Sem::Sort:
      return true;
    default:
      return false;
  }
}

bool has_kernel_kind(const Ctx& c, const std::vector<NamedAttr>& attrs) {
  for (const NamedAttr& na : attrs)
    if (na.key < c.m.strings.size() && c.m.str(na.key) == "pto.kernel_kind") return true;
  return false;
}

bool inst_has_kernel_kind(const Ctx& c, const Inst& in) {
  if (size_t(in.attrs) + in.n_attrs > c.m.attrs.size()) return false;
  return c.m.find_attr(in, "pto.kernel_kind") != nullptr;
}

struct Summary {
  bool tile = false, nested_section = false;
};

// What an op and the ops inside it hold, not looking into explicit sections.
void inspect(const Ctx& c, const Inst& in, Summary& s, int depth) {
  if (is_tile_op(in.op)) s.tile = true;
  if (depth > 256) return;  // nesting is bounded by the parser; stay safe
  for (unsigned k = 0; k < in.n_regions; ++k) {
    const Region* r = c.region(in, k);
    if (!r) continue;
    for (InstId id : c.region_insts(*r)) {
      const Inst* n = c.inst(id);
      if (!n) continue;
      if (is_section(n->op)) {
        s.nested_section = true;
        continue;
      }
      inspect(c, *n, s, depth + 1);
    }
  }
}

// Functions directly in `r` (a module body), with whether a module around
// them names a kernel kind.
void walk_modules(Ctx& c, const Region& r, bool kind_known) {
  for (InstId id : c.region_insts(r)) {
    if (c.stop()) return;
    const Inst* in = c.inst(id);
    if (!in) continue;
    if (in->op == Op::Module) {
      bool known = kind_known || inst_has_kernel_kind(c, *in);
      for (unsigned k = 0; k < in->n_regions; ++k)
        if (const Region* body = c.region(*in, k)) walk_modules(c, *body, known);
      continue;
    }
    if (in->op != Op::Func || in->n_regions == 0 || kind_known || inst_has_kernel_kind(c, *in)) continue;
    const Region* body = c.region(*in, 0);
    if (!body) continue;
    for (InstId top : c.region_insts(*body)) {
      const Inst* t = c.inst(top);
      if (!t || is_section(t->op) || t->op == Op::Return) continue;
      Summary s;
      inspect(c, *t, s, 0);
      if (s.tile && s.nested_section) {
        c.error(in->loc, "'func.func' op still contains an uncovered top-level op segment after section "
                         "normalization; a top-level op mixes nested explicit pto.section.* with sibling ops "
                         "outside those sections; first uncovered op segment starts at '" +
                             std::string(op_name(t->op)) + "'");
        break;
      }
    }
  }
}

}  // namespace

void verify_sections(Ctx& c) {
  if (c.m.body == kNone || c.m.body >= c.m.regions.size()) return;
  walk_modules(c, c.m.regions[c.m.body], has_kernel_kind(c, c.m.module_attrs));
}

}  // namespace ptoas::verify_detail
