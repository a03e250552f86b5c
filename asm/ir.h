// The IR: compact SSA in flat arrays with 32-bit ids (DESIGN §4).
//
// A Module owns every array. Instructions, values, regions, types and
// attributes are referred to by index; nothing points at anything. Structured
// control flow (scf.for/if/while, func.func, module) is expressed with
// regions: an instruction owns `n_regions` consecutive Region records, each a
// range of instruction ids (region_insts) plus block arguments (region_args).
//
// Tiles are buffers: `pto.alloc_tile` defines a tile value; DPS ops name the
// tiles they read (ins) and write (outs) as operands and have no results.
//
//   Inst (32 bytes)
//   +--------+-------+---------+--------+--------+-------+-------+-------+
//   | op:16  | nres:8| nreg:8  | nins:16|nouts:16| opnd  | res   | attrs |
//   +--------+-------+---------+--------+--------+-------+-------+-------+
//   | region | loc   | nattr:16| form:8 |flags:8 |
//   +--------+-------+---------+--------+--------+
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontend.h"
#include "ops.h"

namespace ptoas {

class SourceFile;

using ValueId = uint32_t;
using TypeId = uint32_t;
using AttrId = uint32_t;
using StrId = uint32_t;
using InstId = uint32_t;
using RegionId = uint32_t;
inline constexpr uint32_t kNone = ~0u;

// ---- types --------------------------------------------------------------------

enum class TypeKind : uint8_t {
  Scalar,         // f32, i32, index, i1 ...   (elem)
  Ptr,            // !pto.ptr<T[, space]>      (elem, loc)
  TensorView,     // !pto.tensor_view<?x?xT>   (elem, dims)
  PartitionView,  // !pto.partition_tensor_view<16x16xT> (elem, dims)
  TileBuf,        // !pto.tile_buf<...>        (all tile fields)
  Memref,         // memref<16x16xf16, #pto.address_space<vec>> (elem, dims, loc; text)
  Vector,         // vector<4xi16>             (elem, dims)
  Other,          // anything else we keep verbatim (!pto.pipe, !pto.event ...)
};

// Tile storage role. ORDER LOC: kLocNames in types.cpp.
enum class Loc : uint8_t { Vec, Mat, Left, Right, Acc, Bias, Scaling, Gm, None };
enum class BLayout : uint8_t { RowMajor, ColMajor };
enum class SLayout : uint8_t { NoneBox, RowMajor, ColMajor };
inline constexpr int32_t kDyn = -1;  // a '?' dimension / valid extent

struct Type {
  TypeKind kind = TypeKind::Other;
  DType elem = DType::None;
  Loc loc = Loc::None;
  uint8_t rank = 0;
  BLayout blayout = BLayout::RowMajor;
  SLayout slayout = SLayout::NoneBox;
  uint8_t pad = 0;      // 0 Null, 1 Zero, 2 Max, 3 Min
  uint8_t compact = 0;  // 0 Null, 1 Normal, 2 RowPlusOne
  uint16_t fractal = 512;
  int32_t rows = 0, cols = 0, vrow = 0, vcol = 0;  // tile only; kDyn = '?'
  uint32_t dims = kNone;  // first of `rank` entries in TypeTable::dims (kDyn = '?')
  StrId text = kNone;     // canonical spelling
};

// ---- attributes ---------------------------------------------------------------

enum class AttrKind : uint8_t {
  Unit,    // a bare key (pto.entry)
  Bool,    // true / false
  Int,     // 5, 5 : i32, 0x10
  Float,   // 1.5, 1.0 : f16
  String,  // "a5"
  Enum,    // #pto<round_mode ROUND>, #pto.layout<nd>, <PIPE_ALL>: `word` is the value
  Symbol,  // @name
  Type,    // a type used as an attribute value
  Other,   // arrays, dense<...>, anything else: canonical text only
};

struct Attr {
  AttrKind kind = AttrKind::Other;
  DType dtype = DType::None;  // for typed Int/Float
  int64_t ival = 0;           // Int, Bool
  double fval = 0;            // Float
  StrId word = kNone;         // Enum: the enumerator; String: the unquoted text
  StrId text = kNone;         // canonical spelling
};

struct NamedAttr {
  StrId key;
  AttrId value;
};

// ---- instructions -------------------------------------------------------------

// How a DPS op was written; kept so that diagnostics can say so. The printed
// form is DPS, except for pto.treshape in SSA form (`%r = pto.treshape %s :
// T -> U`, a value op in PTOAS): the binder marks its result's allocation
// Form::Ssa (implicit, no tile of the program: no addr at level 3), and the
// printer writes the pair back as that one SSA statement.
enum class Form : uint8_t { Dps, Ssa, Asm, Generic };

// Inst::flags bits.
enum : uint8_t {
  kInstScalarFirst = 1,  // tdivs scalar/tile order (`ins(%s, %t)`)
  kInstHasAddr = 2,      // alloc_tile: operands start with addr
  kInstHasValidRow = 4,  // alloc_tile: valid_row operand present
  kInstHasValidCol = 8,  // alloc_tile: valid_col operand present
  kInstElse = 16,        // scf.if has an else region
};

// Operand/result/region layout per syntax class (Syn, asm/ops.h):
//   Func      attr sym_name (Symbol); region 0 = body, its args = parameters
//             (no region: a declaration); result types: n_outs entries of
//             Module::type_lists starting at opnd; a declaration's n_ins
//             parameter types follow them (a definition has n_ins = 0).
//             attrs also hold the function's `attributes {...}`
//             (pto.entry, pto.kernel_kind).
//   Return    operands = returned values (n_ins)
//   Call      attr callee (Symbol); operands = arguments; results
//   For       operands [lb, ub, step, init...]; region 0 args [iv, iter...];
//             results = final iter values
//   If        operands [cond]; region 0 = then, region 1 = else (kInstElse)
//   While     operands = inits; region 0 = before (args), 1 = after (args)
//   Condition operands [cond, forwarded...]; Yield operands = yielded values
//   Const     attr value; 1 result.  ArithBin [a, b]; ArithUn [a];
//   ArithCmp  attr predicate (Enum); [a, b] -> i1.  ArithSelect [c, a, b];
//   ArithCast [a] -> result type
//   MakeTensorView [ptr, shape x rank, strides x rank] (+ attrs such as
//             layout) -> tensor view; rank = the result type's rank
//   PartitionView  [view, offsets x rank, sizes x rank] -> partition view
//   GetDim [view, index] -> index.  AddPtr [ptr, offset] -> ptr
//   AllocTile [addr?][valid_row?][valid_col?] per flags -> tile
//   SetValidShape [tile, rows, cols].  Subset [tile, row, col], attr sizes
//   NoArgs    -> 1 result (get_block_idx ...)
//   Dps       operands = ins (n_ins) then outs (n_outs); attrs; no results
//   Opaque    attr __body = the statement text after the op name (regions
//             replaced by \x01); operands = the values it names; results
struct Inst {
  Op op;
  uint8_t n_res;
  uint8_t n_regions;
  uint16_t n_ins;
  uint16_t n_outs;
  uint32_t opnd;    // first operand in Module::operands (n_ins + n_outs of them)
  uint32_t res;     // first result ValueId (n_res consecutive values)
  uint32_t attrs;   // first NamedAttr in Module::attrs
  uint32_t region;  // first RegionId (n_regions consecutive)
  uint32_t loc;     // byte offset of the op name
  uint16_t n_attrs;
  Form form;
  uint8_t flags;
};
static_assert(sizeof(Inst) == 32, "Inst is a fixed 32-byte record");

struct Value {
  TypeId type;
  InstId def;   // defining instruction, or kNone for a block argument
  StrId name;   // source name without '%'
  uint32_t loc; // byte offset of the definition
};
static_assert(sizeof(Value) == 16);

struct Region {
  uint32_t inst_begin, inst_count;  // range in Module::region_insts
  uint32_t arg_begin, arg_count;    // range in Module::region_args
  StrId label;                      // ^bb name, or kNone
};

// ---- interning tables -----------------------------------------------------------

// Hashing that lets maps keyed by std::string be searched with a string_view
// (no temporary string per lookup).
struct StrHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
template <class T>
using StrMap = std::unordered_map<std::string, T, StrHash, std::equal_to<>>;

// Every distinct string once, with a dense id. The front end interns every
// value name, attribute and type spelling (several per instruction), so the
// index is a flat open-addressing table of ids (linear probing, no per-entry
// allocation) rather than a node-based map holding a second copy of each key.
class StringTable {
 public:
  StrId intern(std::string_view s);
  // The id of `s` if it was interned, else kNone (interns nothing).
  StrId find(std::string_view s) const;
  std::string_view get(StrId id) const { return strs_[id]; }
  size_t size() const { return strs_.size(); }
  size_t bytes() const;

 private:
  std::deque<std::string> strs_;  // a deque: get()'s views stay valid as it grows
  std::vector<uint32_t> hashes_;  // per id: its hash (low 32 bits), to skip compares
  std::vector<StrId> slots_;      // kNone = empty; size a power of two, <= 1/2 full
  uint32_t slot_of(std::string_view s, uint32_t h) const;
  void grow();
};

class TypeTable {
 public:
  explicit TypeTable(StringTable& strs) : strs_(strs) {}
  // Interns by canonical spelling (computed here unless t.text is set for
  // kinds that are kept verbatim). `dims` are copied for ranked kinds.
  TypeId intern(Type t, const std::vector<int64_t>& dims = {});
  const Type& get(TypeId id) const { return types_[id]; }
  std::string_view text(TypeId id) const { return strs_.get(types_[id].text); }
  int64_t dim(TypeId id, unsigned i) const { return dims_[types_[id].dims + i]; }
  TypeId scalar(DType d);
  size_t bytes() const;

 private:
  StringTable& strs_;
  std::vector<Type> types_;
  std::vector<int64_t> dims_;
  std::unordered_map<StrId, TypeId> by_text_;
};

// Canonical spelling helpers (types.cpp).
std::string_view loc_name(Loc l);
std::string type_spelling(const Type& t, const std::vector<int64_t>& dims);

// ---- the module -------------------------------------------------------------------

struct Module {
  Module() : types(strings) {}
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  StringTable strings;
  TypeTable types;
  std::vector<Attr> attr_values;
  std::unordered_map<StrId, AttrId> attr_by_text;

  std::vector<Inst> insts;
  std::vector<Value> values;
  std::vector<Region> regions;
  std::vector<ValueId> operands;
  std::vector<InstId> region_insts;
  std::vector<ValueId> region_args;
  std::vector<NamedAttr> attrs;
  std::vector<TypeId> type_lists;  // func.func result types (see the layout table)

  RegionId body = kNone;          // the module body (func.func instructions)
  uint32_t module_loc = 0;        // byte offset of the `module` keyword (0: implicit)
  std::vector<NamedAttr> module_attrs;
  StrId module_name = kNone;
  Arch arch = Arch::A3;
  Level level = Level::Level2;
  // The optimizer level the module went through (opt::optimize sets it):
  // from 1 on, the CPU encoders place tiles by opt/mem_plan.h (reuse of
  // dead tiles' memory, zeroing only what may be read before written).
  uint8_t opt_level = 0;
  const SourceFile* src = nullptr;

  // Accessors.
  const Inst& inst(InstId i) const { return insts[i]; }
  ValueId operand(const Inst& in, unsigned i) const { return operands[in.opnd + i]; }
  ValueId result(const Inst& in, unsigned i) const { return in.res + i; }
  const Region& region(const Inst& in, unsigned i) const { return regions[in.region + i]; }
  InstId region_inst(const Region& r, unsigned i) const { return region_insts[r.inst_begin + i]; }
  ValueId region_arg(const Region& r, unsigned i) const { return region_args[r.arg_begin + i]; }
  const Type& type_of(ValueId v) const { return types.get(values[v].type); }
  std::string_view str(StrId s) const { return strings.get(s); }
  const Attr& attr(AttrId a) const { return attr_values[a]; }

  // The value of attribute `key` on `in`, or nullptr.
  const Attr* find_attr(const Inst& in, std::string_view key) const;
  // The enumerator of an Enum attribute (`ROUND`), or "" when absent.
  std::string_view attr_word(const Inst& in, std::string_view key) const;
  // A func.func marked as a kernel entry: PTOAS 0.60 counts the unit
  // attributes pto.entry, pto.kernel and the older hacc.entry, pto.aicore
  // (a declaration too: the verifier refuses that).
  bool has_entry_attr(const Inst& fn) const;

  AttrId intern_attr(const Attr& a);  // by a.text
  size_t bytes() const;               // what the IR and its tables allocate
};

}  // namespace ptoas
