// --stats for the optimizer: per function, instructions and tile ops
// listed, fused regions, and the tile memory the kernel needs as the CPU
// encoders will place it (mem_plan.h; without reuse before -O1), beside
// what one slot per allocation would take (docs/optimizer.md).
#include <cstdio>
#include <string>

#include "ir_edit.h"
#include "mem_plan.h"
#include "passes.h"

namespace ptoas::opt {

std::string function_stats(const Module& m, const char* when) {
  std::string out;
  for (InstId fn : function_defs(m)) {
    size_t insts = 0, tile_ops = 0, fused = 0, allocs = 0;
    walk(m, m.insts[fn].region, [&](InstId id, RegionId) {
      const Inst& in = m.insts[id];
      ++insts;
      if (in.op == Op::Fuse) ++fused;
      else if (op_info(in.op).syn == Syn::Dps) ++tile_ops;
      if (in.op == Op::AllocTile && in.n_res == 1) ++allocs;
    });
    TilePlan tp = plan_tiles(m, fn, m.opt_level >= 1);
    uint64_t bytes = 0, unshared = 0;
    for (unsigned l = 0; l < kLocCount; ++l) {
      bytes += tp.bytes[l];
      unshared += tp.unshared_bytes[l];
    }
    char line[256];
    std::snprintf(line, sizeof line,
                  "ptoas: %s @%s: %zu instructions, %zu tile ops, %zu fused regions, %zu tiles, "
                  "%llu bytes of tile memory (%llu without reuse; %u tiles share)\n",
                  when, std::string(m.attr_word(m.insts[fn], "sym_name")).c_str(), insts, tile_ops,
                  fused, allocs, (unsigned long long)bytes, (unsigned long long)unshared, tp.shared);
    out += line;
  }
  return out;
}

}  // namespace ptoas::opt
