// Interpreter internals shared by exec.cpp (structure, scalars, views,
// allocation) and the op-family files ops_*.cpp. Not a public header.
#pragma once
#include <array>
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

// A GM pointer or view. Pointers are views of rank 0.
struct RtView {
  uint8_t* base = nullptr;  // address of element (0, ..., 0)
  uint8_t* lo = nullptr;    // the buffer the view lives in: [lo, hi)
  uint8_t* hi = nullptr;
  DType elem = DType::None;
  int param = -1;           // the parameter the pointer came from
  int rank = 0;
  int64_t shape[8] = {};
  int64_t stride[8] = {};   // in elements
};

// A tile buffer: where it lives and its current valid extent.
struct RtTile {
  Loc loc = Loc::Vec;
  uint32_t offset = 0;
  int32_t vrow = 0, vcol = 0;
  TypeId type = kNone;
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
const HandlerTable& handlers();

class Exec {
 public:
  Exec(const Module& m, const std::vector<Arg>& args, int64_t block_idx, int64_t block_num,
       bool probe);

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
  // Checks that [p, p + n) lies in the view's buffer.
  void check_gm(const Inst& in, const RtView& v, const uint8_t* p, size_t n, const char* what);

  // State.
  std::vector<RtValue> vals;
  std::vector<RtView> views;
  std::vector<RtTile> tiles;
  // By ValueId: the descriptor a region argument or control-flow result of
  // tile type owns (kNone: none yet); see bind().
  std::vector<uint32_t> own_tile;
  std::vector<uint8_t> arena[8];
  ArenaSizes sizes;
  std::vector<uint32_t> alloc_offset;  // per alloc_tile inst: its slot (kNone: not yet)
  size_t bump[8] = {};
  int64_t block_idx, block_num;
  const std::vector<Arg>& args;
  bool probe;  // scalar-only run (probe_views): tile ops are skipped
  std::vector<ViewExtent>* extents = nullptr;

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
  void exec_scalar(const Inst& in);
  void exec_view(const Inst& in);
  void exec_alloc(const Inst& in);
  InstId find_callee(const Inst& in);
};

// Helpers for handlers.
bool is_float(DType d);
double pad_value_f(const Type& t);
int64_t pad_value_i(const Type& t);

}  // namespace ptoas::rt
