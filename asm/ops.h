// Op table access: enums generated from asm/ops.def plus the element-type
// vocabulary the table's dtype columns are written in.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ptoas {

// Element / scalar types. ORDER DTYPE: kDTypeNames in ops.cpp follows this.
enum class DType : uint8_t {
  None, F32, F16, BF16, F64, I1, I8, U8, I16, U16, I32, U32, I64, U64,
  F8E4M3, F8E4M3FN, F8E5M2,
  // PTOAS 0.60 storage formats: moved and converted by NPU ops only (no
  // interpreter or CPU arithmetic); the f4 pairs pack two values in a byte.
  HiF8, F8E8M0, F4E1M2x2, F4E2M1x2,
  // MLIR's explicitly signed integers (si8 is not i8 to MLIR: kept as spelled).
  SI8, SI16, SI32, SI64,
  Index, Count
};
constexpr uint32_t dt_bit(DType d) { return 1u << unsigned(d); }

// Dtype sets used by the table's a3/a5 columns.
inline constexpr uint32_t kF32 = dt_bit(DType::F32), kF16 = dt_bit(DType::F16),
                          kBF16 = dt_bit(DType::BF16), kI8 = dt_bit(DType::I8),
                          kU8 = dt_bit(DType::U8), kI16 = dt_bit(DType::I16),
                          kU16 = dt_bit(DType::U16), kI32 = dt_bit(DType::I32),
                          kU32 = dt_bit(DType::U32), kI64 = dt_bit(DType::I64),
                          kU64 = dt_bit(DType::U64);
inline constexpr uint32_t kFp = kF16 | kF32;
inline constexpr uint32_t kFp8 = dt_bit(DType::F8E4M3) | dt_bit(DType::F8E4M3FN) |
                                 dt_bit(DType::F8E5M2);
inline constexpr uint32_t kInt8to32 = kI8 | kU8 | kI16 | kU16 | kI32 | kU32;
inline constexpr uint32_t kInt16to32 = kI16 | kU16 | kI32 | kU32;
inline constexpr uint32_t kInt16to64 = kInt16to32 | kI64 | kU64;
inline constexpr uint32_t kInt32s = kI32 | kU32 | kI16 | kU16 | kI8 | kU8;
inline constexpr uint32_t kAll11 = kInt8to32 | kI64 | kU64 | kFp | kBF16;
inline constexpr uint32_t k2or4Byte = kI16 | kU16 | kI32 | kU32 | kFp | kBF16;
inline constexpr uint32_t k1to4Byte = kInt8to32 | kFp | kBF16;
inline constexpr uint32_t kExpandA3 = kFp | kI16 | kI32;
inline constexpr uint32_t kExpandA5 = kExpandA3 | kU16 | kU32 | kBF16 | kI8 | kU8;
inline constexpr uint32_t kMatmulIn = kI8 | kF16 | kBF16 | kF32;
inline constexpr uint32_t kAny = 0xffffffffu;

// Statement syntax classes (how the binder reads one statement).
enum class Syn : uint8_t {
  Module, Func, Return, Call, For, If, While, Condition, Yield, Fuse,
  Block,  // a block header inside a region (unstructured control flow)
  Const, ArithBin, ArithUn, ArithCmp, ArithSelect, ArithCast,
  MakeTensorView, PartitionView, GetDim, AddPtr, AllocTile, SetValidShape, Subset,
  NoArgs, Dps, Opaque
};

// Semantics classes.
enum class Sem : uint8_t {
  Struct, Scalar, View, Alloc, Sync, Memory, EltBin, EltUnary, EltScalar, Compare,
  Select, Reduce, Expand, Matmul, Move, Convert, Generator, Sort, Other, Npu,
  Vpto,  // a VPTO micro-instruction (the A5 vector layer below tile ops)
  Vmi    // a VMI op (logical vectors, the layer above VPTO)
};

// The ops.def `pipe` column: the NPU pipe an op runs on, or the rule that
// picks it for the overload at hand (asm/pipes.h op_pipe resolves it).
enum class PipeRule : uint8_t {
  Nop, Sync, S, V, M, Mte1, Mte2, Mte3, Fix, Store, Move, Window, Tci, Scatter, Comm
};

enum class Op : uint16_t {
#define OP(id, name, syn, sem, tier, ins, outs, a3, a5, pipe) id,
#include "ops.def"
#undef OP
  Count
};

struct OpInfo {
  std::string_view name;  // canonical spelling
  Syn syn;
  Sem sem;
  uint8_t tier;
  const char* ins;   // DPS input signature (see ops.def)
  const char* outs;  // DPS output signature
  uint32_t dtypes_a3;
  uint32_t dtypes_a5;
  PipeRule pipe;
};

const OpInfo& op_info(Op op);
inline std::string_view op_name(Op op) { return op_info(op).name; }

// Looks an op up by any accepted spelling: canonical, '_' for '.', a tile op
// without `pto.`, or an alias (`return`, `builtin.module`). Returns
// Op::Count when unknown.
Op lookup_op(std::string_view spelling);

// True for ops whose header binds an induction variable (`scf.for %i = ...`).
inline bool op_has_iv(Op op) { return op == Op::For; }

// Element types.
std::string_view dtype_name(DType d);                 // "f32", "ui8", "index", ...
DType parse_dtype(std::string_view s);               // DType::None when unknown
unsigned dtype_bytes(DType d);                       // 0 for None, 1 for I1
bool dtype_is_float(DType d);
bool dtype_is_int(DType d);                          // signed or unsigned, excl. i1/index
bool dtype_is_unsigned(DType d);
std::string dtype_set_text(uint32_t mask);           // "f16, f32, i32" (for messages)

}  // namespace ptoas
