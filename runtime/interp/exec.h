// Interpreter internals shared by exec.cpp (structure, scalars, views,
// allocation) and the op-family files ops_*.cpp. Not a public header.
#pragma once
#include <array>
#include <atomic>
#include <string>
#include <vector>

#include "elem.h"
#include "interp.h"
#include "tile_layout.h"

namespace ptoas::rt {

// A runtime error: message plus the byte offset of the failing op.
struct RtError {
  std::string msg;
  uint32_t loc;
};

// A GM pointer or view. Pointers are views of rank 0. Where the view starts
// is an integer byte offset from its parameter's buffer, never a pointer
// (addptr and partition offsets come from untrusted scalars: an address
// is formed only after the access is known to lie inside [lo, hi)).
struct RtView {
  uint8_t* lo = nullptr;    // the buffer of the parameter: [lo, hi) (null in the probe)
  uint8_t* hi = nullptr;
  int64_t boff = 0;         // byte offset of element (0, ..., 0) from lo; may lie outside
  DType elem = DType::None;
  int param = -1;           // the parameter the pointer came from
  int rank = 0;
  int64_t shape[8] = {};
  int64_t stride[8] = {};   // in elements
};

// A tile buffer: where it lives and its current valid extent. A
// pto.subview that is not a run of whole rows is a window: its element
// (r, c) is element (r0 + r, c0 + c) of a tile of type `phys` at `offset`
// (the parent's layout and strides, as the official lowering keeps them).
struct RtTile {
  Loc loc = Loc::Vec;
  uint32_t offset = 0;
  int32_t vrow = 0, vcol = 0;
  TypeId type = kNone;
  TypeId phys = kNone;  // kNone: the tile is its own storage
  int32_t r0 = 0, c0 = 0;
};

// One SSA value at run time. Scalars use i (integers, i1, index) or f
// (floats); views and tiles index into Exec::views / Exec::tiles.
struct RtValue {
  int64_t i = 0;
  double f = 0;
  uint32_t ref = kNone;
};

// Resolved access to one tile for an op: element (r, c) is at at(r, c).
struct TileAcc {
  uint8_t* base;
  const Type* t;
  DType elem;
  unsigned esize;
  int32_t vrow, vcol;   // current valid extent
  uint32_t loc;         // the op's source offset (for the error below)
  const Type* phys = nullptr;  // a window's storage (RtTile::phys), else null
  int32_t r0 = 0, c0 = 0;
  // Code that addresses the storage as bytes (not through at()) must not
  // take a window's base for a tile of its own.
  bool window() const { return phys != nullptr; }
  // Element (r, c) of the physical tile. A position outside it (a handler
  // that missed a check on an untrusted offset) is a located runtime
  // error, never an access outside the tile arena.
  uint8_t* at(int64_t r, int64_t c) const;
  double getf(int64_t r, int64_t c) const { return load_f(at(r, c), elem); }
  int64_t geti(int64_t r, int64_t c) const { return load_i(at(r, c), elem); }
  void setf(int64_t r, int64_t c, double v) const { store_f(at(r, c), elem, v); }
  void seti(int64_t r, int64_t c, int64_t v) const { store_i(at(r, c), elem, v); }
};


class Exec;
using Handler = void (*)(Exec&, const Inst&);
using HandlerTable = std::array<Handler, size_t(Op::Count)>;

// Registration of the op families (one per ops_*.cpp).
void register_memory_ops(HandlerTable& t);
void register_elementwise_ops(HandlerTable& t);
void register_reduce_ops(HandlerTable& t);
void register_expand_ops(HandlerTable& t);
void register_matmul_ops(HandlerTable& t);
void register_move_ops(HandlerTable& t);
void register_convert_ops(HandlerTable& t);
void register_misc_ops(HandlerTable& t);
// The probe's checks of tile ops whose scalar operands address a tile
// (textract / tinsert offsets), without touching tile data.
void check_move_offsets(Exec& ex, const Inst& in);
const HandlerTable& handlers();

class Exec {
 public:
  Exec(const Module& m, const std::vector<Arg>& args, int64_t block_idx, int64_t block_num,
       bool probe, const TileArenas* ext = nullptr);

  // Runs a function; returns its results.
  std::vector<RtValue> call(InstId fn, const std::vector<RtValue>& args);
  void bind_params(InstId fn, std::vector<RtValue>& out);

  [[noreturn]] void fail(const Inst& in, const std::string& msg) const { throw RtError{msg, in.loc}; }

  // Operand access.
  const Module& m;
  RtValue& val(ValueId v) { return vals[v]; }
  RtValue& opnd(const Inst& in, unsigned i) { return vals[m.operand(in, i)]; }
  const Type& opnd_type(const Inst& in, unsigned i) const { return m.type_of(m.operand(in, i)); }
  ValueId in_id(const Inst& in, unsigned i) const { return m.operand(in, i); }
  ValueId out_id(const Inst& in, unsigned i) const { return m.operand(in, in.n_ins + i); }

  // Tile access (checks the operand really is a tile).
  TileAcc tile(const Inst& in, ValueId v);
  TileAcc in_tile(const Inst& in, unsigned i) { return tile(in, in_id(in, i)); }
  TileAcc out_tile(const Inst& in, unsigned i) { return tile(in, out_id(in, i)); }
  RtTile& tile_desc(const Inst& in, ValueId v);
  // A scalar operand as double / integer (by its type).
  double scalar_f(const Inst& in, ValueId v);
  int64_t scalar_i(const Inst& in, ValueId v);
  const RtView& view(const Inst& in, ValueId v);
  // The address of the element `elem_off` elements (of `esize` bytes) from
  // the view's first one, after checking that its `n` bytes lie in the
  // view's buffer (a located error otherwise, also on overflow).
  uint8_t* gm_at(const Inst& in, const RtView& v, int64_t elem_off, unsigned esize, size_t n,
                 const char* what);

  // State.
  std::vector<RtValue> vals;
  // Descriptors, one slot per SSA value that ever held one (own_slot), so
  // that a loop that builds a view or allocates a tile per iteration runs
  // in memory bounded by the program's size, not by its trip count.
  std::vector<RtView> views;
  std::vector<RtTile> tiles;
  // By ValueId: the slot in `views` or `tiles` (by the value's type) the
  // value owns (kNone: none yet); see bind().
  std::vector<uint32_t> own_slot;
  // v's own view / tile slot, allocated on first use; vals[v].ref points
  // at it. The reference is valid until the next new_view / new_tile.
  RtView& new_view(ValueId v);
  RtTile& new_tile(ValueId v);
  std::vector<uint8_t> arena[8];
  uint8_t* arena_base[8] = {};  // arena[l].data(), or the caller's memory (TileArenas)
  ArenaSizes sizes;
  std::vector<uint32_t> alloc_offset;  // per alloc_tile inst: its slot (kNone: not yet)
  const std::vector<uint32_t>* planned = nullptr;  // Interpreter::planned_ (empty: none)
  size_t bump[8] = {};
  int64_t block_idx, block_num;
  const std::vector<Arg>& args;
  bool probe;  // scalar-only run (probe_views): tile ops are skipped
  // The wall-clock limit (Interpreter::set_deadline); checked every 256 ops.
  const Interpreter::Clock::time_point* deadline = nullptr;
  double limit_s = 0;
  // The parallel probe's lowest failing block so far: a later block stops
  // (throws Cancelled; checked with the deadline), as a serial probe would
  // never have run it.
  const std::atomic<int64_t>* cancel_after = nullptr;
  struct Cancelled {};
  uint32_t steps = 0;
  InstId entry_fn = kNone;  // the function bind_params bound (for messages)
  // "parameter %name" of the entry function's parameter i.
  std::string param_name(int i) const;
  // The probe's record, per parameter, of what one block's views reach:
  // each view that reached further than every view before it in the block
  // (probe_views merges the blocks' records in block order, which gives
  // what one block after the other would have found).
  struct ViewRecord {
    int64_t total;        // elements from the pointer
    bool from_tensor;     // a make_tensor_view (its shape is the parameter's)
    DType elem;
    std::vector<int64_t> shape;
  };
  struct ViewTrace {
    bool seen = false;
    int64_t max_elems = 0;
    std::vector<ViewRecord> records;
  };
  std::vector<ViewTrace>* extents = nullptr;

 private:
  // Runs a region; returns the operands of its terminator.
  std::vector<RtValue> run_region(const Region& r, const std::vector<RtValue>& args,
                                  bool* returned);
  void exec_inst(const Inst& in, std::vector<RtValue>& term, bool& stop, bool* returned);
  // v = x for a value passed into or out of a region. Tiles have value
  // semantics there: v gets its own copy of x's descriptor (storage and
  // valid shape), so a later treshape or set_validshape through one name
  // does not reach the other, as the backends' slot copies behave.
  void bind(ValueId v, const RtValue& x);
  // bind() for a list: dst(i) = src[i] for every i at once (descriptors are
  // read before any is written, so `yield %b, %a` into (%a, %b) swaps).
  template <class Dst>
  void bind_all(unsigned n, Dst dst, const std::vector<RtValue>& src);
  // Checks a new view's arithmetic: its first and last element's byte
  // offsets fit in 64 bits (else a located error); in the probe, that it
  // does not start before its parameter's buffer, and records its reach.
  void check_view(const Inst& in, const RtView& v);
  void exec_scalar(const Inst& in);
  void exec_view(const Inst& in);
  void exec_tile_view(const Inst& in);  // exec_tile_view.cpp
  void exec_alloc(const Inst& in);
  InstId find_callee(const Inst& in);
};

// Helpers for handlers.
bool is_float(DType d);
double pad_value_f(const Type& t);
int64_t pad_value_i(const Type& t);

}  // namespace ptoas::rt
