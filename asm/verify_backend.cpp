// Rules on nested modules as PTOAS 0.60's driver reads them before any pass:
// a module's pto.backend names the backend ("emitc" or "vpto") that compiles
// it; an outer module whose children take different backends is compiled to
// one fat object per backend and linked, which gives no IR to print (the
// official tool refuses its IR output flags there) and which ptoas does not
// write. (A VPTO module's kernel kind is inferred from its ops by the
// official VPTO pipeline; that rule is not here.)
#include <algorithm>
#include <cctype>
#include <string>

#include "verify.h"

namespace ptoas {
namespace verify_detail {

namespace {

enum class Backend { None, EmitC, Vpto, Invalid };

// The pto.backend of a module's attributes; reports an invalid value at `loc`.
Backend backend_of(Ctx& c, const std::vector<NamedAttr>& attrs, uint32_t loc) {
  for (const NamedAttr& na : attrs) {
    if (na.key >= c.m.strings.size() || c.m.str(na.key) != "pto.backend") continue;
    if (na.value >= c.m.attr_values.size()) return Backend::Invalid;
    const Attr& a = c.m.attr(na.value);
    if (a.kind != AttrKind::String || a.word == kNone) {
      c.error(loc, "invalid pto.backend attribute: expected the string 'emitc' or 'vpto'");
      return Backend::Invalid;
    }
    std::string v = lower(c.m.str(a.word));
    if (v == "emitc") return Backend::EmitC;
    if (v == "vpto") return Backend::Vpto;
    c.error(loc, "invalid pto.backend '" + std::string(c.m.str(a.word)) +
                     "'. Expected 'emitc' or 'vpto'.");
    return Backend::Invalid;
  }
  return Backend::None;
}

std::vector<NamedAttr> attrs_of(const Ctx& c, const Inst& in) {
  if (size_t(in.attrs) + in.n_attrs > c.m.attrs.size()) return {};
  return {c.m.attrs.begin() + in.attrs, c.m.attrs.begin() + in.attrs + in.n_attrs};
}

}  // namespace

void verify_backend_module(Ctx& c) {
  const Module& m = c.m;
  if (m.body == kNone || m.body >= m.regions.size()) return;
  Backend top = backend_of(c, m.module_attrs, m.module_loc);
  // Every nested module: a valid pto.backend.
  std::vector<InstId> children;  // the top module's direct children
  for (InstId id : c.region_insts(m.regions[m.body]))
    if (m.insts[id].op == Op::Module) children.push_back(id);
  std::vector<InstId> all;
  for (InstId f : children) {
    all.push_back(f);
    std::vector<InstId> inside;
    collect_nested(c, f, inside);
    for (InstId id : inside)
      if (m.insts[id].op == Op::Module) all.push_back(id);
  }
  std::vector<Backend> child_backend;
  for (InstId id : all) {
    const Inst& in = m.insts[id];
    Backend b = backend_of(c, attrs_of(c, in), in.loc);
    if (std::find(children.begin(), children.end(), id) != children.end()) child_backend.push_back(b);
  }
  // Children for both backends: a mixed fat object. --pto-backend or the
  // outer module's own pto.backend decides for all instead; a child without
  // one takes --pto-backend's value (emitc by default).
  if (c.opts.backend_from_cli || top != Backend::None) return;
  Backend dflt = c.opts.backend_vpto ? Backend::Vpto : Backend::EmitC;
  Backend first = Backend::None;
  for (size_t i = 0; i < children.size(); ++i) {
    Backend b = child_backend[i] == Backend::None ? dflt : child_backend[i];
    if (b == Backend::Invalid) return;
    if (first == Backend::None) {
      first = b;
    } else if (b != first) {
      c.error(m.insts[children[i]].loc,
              "mixed pto.backend fatobj mode (child modules for both emitc and vpto) does not "
              "support IR output, and ptoas writes no fat objects; give the outer module a "
              "pto.backend or pass --pto-backend");
      return;
    }
  }
}

}  // namespace verify_detail
}  // namespace ptoas
