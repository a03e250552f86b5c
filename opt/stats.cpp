// --stats for the optimizer: per function, instructions and tile ops
// listed, fused regions, and the tile memory the kernel needs (the sum of
// its allocations per location, each rounded up to 64 bytes as the CPU
// encoders place them; docs/optimizer.md).
#include <cstdio>
#include <string>

#include "ir_edit.h"
#include "passes.h"
#include "tile_layout.h"

namespace ptoas::opt {

std::string function_stats(const Module& m, const char* when) {
  std::string out;
  for (InstId fn : function_defs(m)) {
    size_t insts = 0, tile_ops = 0, fused = 0, allocs = 0, bytes = 0;
    walk(m, m.insts[fn].region, [&](InstId id, RegionId) {
      const Inst& in = m.insts[id];
      ++insts;
      if (in.op == Op::Fuse) ++fused;
      else if (op_info(in.op).syn == Syn::Dps) ++tile_ops;
      if (in.op == Op::AllocTile && in.n_res == 1) {
        ++allocs;
        bytes += (tile_storage_bytes(m.type_of(in.res)) + 63) / 64 * 64;
      }
    });
    char line[256];
    std::snprintf(line, sizeof line,
                  "ptoas: %s @%s: %zu instructions, %zu tile ops, %zu fused regions, %zu tiles, "
                  "%zu bytes of tile memory\n",
                  when, std::string(m.attr_word(m.insts[fn], "sym_name")).c_str(), insts, tile_ops,
                  fused, allocs, bytes);
    out += line;
  }
  return out;
}

}  // namespace ptoas::opt
