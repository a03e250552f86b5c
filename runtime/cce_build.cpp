// A module to a loaded CCE kernel (cce_build.h).
#include "cce_build.h"

#include <cstdlib>
#include <cstring>

#include "codegen.h"
#include "sync.h"

namespace ptoas::rt {

namespace {

// The function the run asks for is the kernel: in a module without
// pto.entry and with several functions none is __global__ (the official
// rule), so it gets pto.entry here (its attributes moved to the end of
// the attribute array with the key added; nothing else points at them).
void make_entry(Module& m, InstId fn) {
  Inst& f = m.insts[fn];
  if (m.has_entry_attr(f)) return;
  Attr unit;
  unit.kind = AttrKind::Unit;
  unit.text = m.strings.intern("unit");
  AttrId v = m.intern_attr(unit);
  std::vector<NamedAttr> attrs(m.attrs.begin() + f.attrs, m.attrs.begin() + f.attrs + f.n_attrs);
  attrs.push_back(NamedAttr{m.strings.intern("pto.entry"), v});
  f.attrs = uint32_t(m.attrs.size());
  f.n_attrs = uint16_t(attrs.size());
  m.attrs.insert(m.attrs.end(), attrs.begin(), attrs.end());
}

}  // namespace

bool cce_build(Module& m, InstId fn, bool insert_sync, CceRunOptions& o, CceKernel& k, Diag& diag,
               std::string& err, std::string* cpp_out) {
  make_entry(m, fn);
  if (insert_sync && !opt::insert_sync(m, diag)) return false;
  const cg::Target& t = cg::target("cce");
  cg::ModuleCode code;
  if (!cg::compile_module(m, t, code, diag)) return false;
  std::string cpp;
  if (!cg::write_object(m, code, cpp, err)) return false;
  o.arch = m.arch;
  // PTOAS_CCE_SCHEDULE=in-order: the model runs each pipe's items in
  // program order (a wrong result that goes away there is a sync problem).
  if (const char* e = std::getenv("PTOAS_CCE_SCHEDULE"); e && std::strcmp(e, "in-order") == 0)
    o.schedule = cce_model::Schedule::InOrder;
  o.entry = std::string(m.attr_word(m.inst(fn), "sym_name"));
  if (cpp_out) *cpp_out = cpp;
  return cce_compile(cpp, o, k, err);
}

bool cce_run_blocks(void* ctx, const std::vector<Arg>& args, int64_t blocks, std::string& err) {
  auto* c = static_cast<CceLaunch*>(ctx);
  c->options.block_num = blocks;
  CceRunResult r;
  if (cce_launch(*c->kernel, args, c->options, r)) return true;
  err = "on the CCE model: " + r.error;
  for (const std::string& s : r.reports)
    if (r.error.find(s) == std::string::npos) err += "\n" + s;
  return false;
}

}  // namespace ptoas::rt
