// Pass `cse`: a pure instruction (ir_edit.h is_pure) identical to one that
// dominates it (same op, operands, attributes and result type, defined
// earlier in the same region or an enclosing one) is replaced by it. The
// duplicate stays listed until `dce` removes it.
#include <string>
#include <unordered_map>

#include "ir_edit.h"
#include "passes.h"

namespace ptoas::opt {

namespace {

struct Cse {
  Module& m;
  Subst sub;
  std::unordered_map<std::string, ValueId> seen;

  std::string key(const Inst& in) const {
    std::string k;
    auto put = [&](uint32_t x) { k.append(reinterpret_cast<const char*>(&x), 4); };
    put(uint32_t(in.op));
    put(m.values[in.res].type);
    put(in.flags);
    put(in.n_ins);
    for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) put(m.operand(in, i));
    for (unsigned i = 0; i < in.n_attrs; ++i) {
      put(m.attrs[in.attrs + i].key);
      put(m.attrs[in.attrs + i].value);
    }
    return k;
  }

  void region(RegionId r) {
    std::vector<std::string> added;  // forgotten when the region ends
    for (InstId id : region_list(m, r)) {
      sub.rewrite(m, id);
      const Inst& in = m.insts[id];
      if (is_pure(m, in)) {
        std::string k = key(in);
        auto it = seen.find(k);
        if (it != seen.end()) {
          sub.set(in.res, it->second);
        } else {
          seen.emplace(k, in.res);
          added.push_back(std::move(k));
        }
      }
      for (unsigned i = 0; i < in.n_regions; ++i) region(in.region + i);
    }
    for (const std::string& k : added) seen.erase(k);
  }
};

}  // namespace

bool pass_cse(Module& m, const PassContext&) {
  // Functions are isolated from above: one table per function body.
  for (InstId f : function_defs(m)) {
    Cse c{m, Subst(m), {}};
    c.region(m.insts[f].region);
    c.sub.finish(m);
  }
  return true;
}

}  // namespace ptoas::opt
