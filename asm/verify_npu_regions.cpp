// Region ops (the official op verifiers):
//   pto.section.simt <<<x, y, z>>> { ... }   a SIMT launch inside a
//       function: non-negative dimensions, not in a 'pto.simt_entry'
//       function (that one is the SIMT body already), never nested
//   %r = pto.fusion_region { ... pto.yield(%v) : (T) -> () } : T
//       one argument-less block that ends in pto.yield of the results' types
#include <cstdlib>

#include "verify_npu.h"

namespace ptoas {
namespace verify_detail {
namespace {

class RegionRules {
 public:
  RegionRules(Ctx& c, const NpuIndex& ix) : c_(c), ix_(ix) {}

  void run() {
    for (InstId id : ix_.order) {
      if (c_.stop()) return;
      const Inst& in = c_.m.insts[id];
      if (in.op == Op::VpSectionSimt) section_simt(id);
      else if (in.op == Op::FusionRegion) fusion_region(in);
    }
  }

 private:
  Ctx& c_;
  const NpuIndex& ix_;

  void err(const Inst& in, const std::string& msg) { c_.error(in.loc, q(in.op) + " op " + msg); }

  // The launch dimensions between <<< and >>>; false if they are not three integers.
  bool launch_dims(const Inst& in, int64_t (&d)[3]) {
    std::string_view b = c_.body(in);
    size_t open = b.find("<<<"), close = b.find(">>>");
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
    std::string s(b.substr(open + 3, close - open - 3));
    const char* p = s.c_str();
    for (int i = 0; i < 3; ++i) {
      while (*p == ' ' || *p == ',') ++p;
      char* end = nullptr;
      d[i] = std::strtoll(p, &end, 10);
      if (end == p) return false;
      p = end;
    }
    return true;
  }

  void section_simt(InstId id) {
    const Inst& in = c_.m.insts[id];
    InstId fn = ix_.func[id];
    if (fn == kNone) return err(in, "must be nested under a func.func");
    int64_t d[3];
    if (launch_dims(in, d) && (d[0] < 0 || d[1] < 0 || d[2] < 0))
      return err(in, "requires non-negative i32 launch dimensions");
    if (has_attr(c_, c_.m.insts[fn], "pto.simt_entry"))
      return err(in, "must not appear inside a function marked with 'pto.simt_entry'");
    if (InstId outer = ix_.enclosing(c_, id, Op::VpSectionSimt); outer != kNone)
      err(in, "nested pto.section.simt is not allowed");
  }

  void fusion_region(const Inst& in) {
    const Region* body = c_.region(in, 0);
    if (!body) return err(in, "expects a non-empty body region");
    if (body->arg_count != 0)
      return err(in, "expects body block to have no arguments, got " + std::to_string(body->arg_count));
    std::vector<InstId> insts = c_.region_insts(*body);
    if (insts.empty() || c_.m.insts[insts.back()].op != Op::PtoYield)
      return err(in, "expects body to terminate with pto.yield");
    const Inst& y = c_.m.insts[insts.back()];
    unsigned n = c_.n_operands(y);
    if (n != in.n_res)
      return err(in, "expects pto.yield to return " + std::to_string(in.n_res) + " values, got " +
                         std::to_string(n));
    for (unsigned i = 0; i < n; ++i) {
      ValueId v = c_.operand(y, i), r = c_.result(in, i);
      TypeId vt = c_.vtype_id(v), rt = c_.vtype_id(r);
      if (vt == kNone || rt == kNone || vt == rt) continue;
      std::string_view rs = c_.m.types.text(rt);
      if (rs == "!pto.unknown") continue;
      return err(in, "expects yielded value #" + std::to_string(i) + " to have type '" + std::string(rs) +
                         "', got '" + std::string(c_.m.types.text(vt)) + "'");
    }
  }
};

}  // namespace

void verify_npu_regions(Ctx& c, const NpuIndex& ix) { RegionRules(c, ix).run(); }

}  // namespace verify_detail
}  // namespace ptoas
