// exec_diff: what a real .pto file needs to run: its kernels, a value for
// each scalar parameter, and input buffers sized by the kernel's own views.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "interp.h"
#include "ir.h"
#include "ir_edit.h"

namespace execdiff {

// Per-file scalar values and launch settings (tests/exec/scalars.tsv): a
// row is `path-suffix  function|*  name=value ...  [blocks=N]`.
struct ScalarTable {
  struct Row {
    std::string suffix, function;
    std::map<std::string, std::string> values;
    int64_t blocks = 0;  // 0: not set
  };
  std::vector<Row> rows;
  bool load(const std::string& path, std::string& err);
  // The rows that apply to `fn` of the file at `path`, in table order.
  std::vector<const Row*> find(const std::string& path, const std::string& fn) const;
};

// The value ptorun would get for each scalar parameter of fn: from the
// table, else inferred from what the kernel does with the parameter (a
// valid extent of a tile: the tile's extent; a view shape: the extent its
// partitions take; a partition offset or a loop's lower bound: 0; a loop's
// upper bound: two steps; a block count 1, a block index 0; else 1).
// `blocks` is 1 unless the table says otherwise.
struct ScalarChoice {
  std::vector<std::string> value;  // one per parameter, as ptorun's --arg takes it; "" for pointers
  std::vector<std::string> how;    // "%n=16 (view shape)": how each scalar was chosen, for messages
  int64_t blocks = 1;
};
ScalarChoice choose_scalars(const ptoas::Module& m, ptoas::InstId fn, const std::vector<const ScalarTable::Row*>& rows);

// Per parameter of fn: an integer pointer that pto.load_scalar reads
// (directly or through pto.addptr). The model kernels read indices and
// counts that way (token ids, cache slots, row counts): their inputs get no
// special values, whose extremes would only send the reference out of its
// views.
std::vector<bool> index_buffers(const ptoas::Module& m, ptoas::InstId fn);

// Per parameter of fn: a buffer the kernel only reads. Its values are
// followed through the ops that make views and pointers of it; any other use
// than the source of pto.tload / pto.mgather or the pointer of
// pto.load_scalar (a store, a call, a value a loop carries) counts as a
// possible write. exec_diff keeps such buffers out of the per-run copies and
// comparisons and maps them read-only where the run is in this process.
std::vector<bool> read_only_buffers(const ptoas::Module& m, ptoas::InstId fn);

// Deterministic random input data for a buffer of `n` elements of `d`:
// ordinary values (floats uniform in [-4, 4) rounded to the type, integers
// in [0, 64)) with, when
// `specials`, about one element in 32 a special value of the type (NaN, +-Inf,
// -0, subnormals, integer extremes).
std::vector<uint8_t> input_bytes(ptoas::DType d, size_t n, uint64_t seed, bool specials, uint64_t int_range = 64);

// A stable 64-bit hash of a string (seeds per file and function).
uint64_t hash64(const std::string& s);

// Calls f(id, inst) for every instruction of function `fn`'s body and the
// regions nested in it, pre-order (the optimizer's walk).
template <class F>
void each_inst(const ptoas::Module& m, ptoas::InstId fn, F&& f) {
  ptoas::opt::walk(m, m.inst(fn).region, [&](ptoas::InstId id, ptoas::RegionId) { f(id, m.inst(id)); });
}

}  // namespace execdiff
