// The tile-op calls (docs/cce_backend.md §1.5). None of them knows what its
// op computes: each describes its arguments (tiles, GM tensors, scalars,
// attributes) and hands them to the model library, which runs the op on
// its pipe through the reference interpreter. The list of calls is
// generated from the op table (ops.inc, from asm/ops.def).
#pragma once
#include <cstdint>
#include <type_traits>

#include "pto/model/abi.h"
#include "pto/model/attrs.hpp"
#include "pto/model/scalar_types.hpp"
#include "pto/model/tensor.hpp"
#include "pto/model/tile.hpp"

namespace pto::model {

template <class T>
constexpr int32_t dtype_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>) return PTO_DT_F32;
  else if constexpr (std::is_same_v<U, double>) return PTO_DT_F64;
  else if constexpr (std::is_same_v<U, half>) return PTO_DT_F16;
  else if constexpr (std::is_same_v<U, bfloat16_t>) return PTO_DT_BF16;
  else if constexpr (std::is_same_v<U, bool>) return PTO_DT_I1;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>)
    return sizeof(U) == 1 ? PTO_DT_I8 : sizeof(U) == 2 ? PTO_DT_I16 : sizeof(U) == 4 ? PTO_DT_I32 : PTO_DT_I64;
  else if constexpr (std::is_integral_v<U>)
    return sizeof(U) == 1 ? PTO_DT_U8 : sizeof(U) == 2 ? PTO_DT_U16 : sizeof(U) == 4 ? PTO_DT_U32 : PTO_DT_U64;
  else return PTO_DT_NONE;
}

template <class X>
struct IsTile : std::false_type {};
template <TileType TT, class T, int R, int C, BLayout BL, int VR, int VC, SLayout SL, int F,
          PadValue P, CompactMode CM>
struct IsTile<Tile<TT, T, R, C, BL, VR, VC, SL, F, P, CM>> : std::true_type {};

template <class X>
struct IsGlobal : std::false_type {};
template <class T, class S, class St, Layout L>
struct IsGlobal<GlobalTensor<T, S, St, L>> : std::true_type {};

template <class X>
PtoModelArg describe(const X& x) {
  PtoModelArg a{};
  if constexpr (IsTile<X>::value) {
    a.kind = PTO_ARG_TILE;
    a.dtype = dtype_of<typename X::DType>();
    a.tile_type = int32_t(X::kType);
    a.rows = X::kRows;
    a.cols = X::kCols;
    a.blayout = int32_t(X::kBLayout);
    a.vrows_t = X::kValidRows;
    a.vcols_t = X::kValidCols;
    a.slayout = int32_t(X::kSLayout);
    a.fractal = X::kFractal;
    a.pad = int32_t(X::kPad);
    a.compact = int32_t(X::kCompact);
    a.vrow = x.vrow_;
    a.vcol = x.vcol_;
    a.assigned = x.assigned_;
    a.offset = x.offset_;
  } else if constexpr (IsGlobal<X>::value) {
    a.kind = PTO_ARG_GM;
    a.dtype = dtype_of<typename X::DType>();
    a.ptr = const_cast<void*>(static_cast<const void*>(x.ptr));
    for (int i = 0; i < 5; ++i) {
      a.shape[i] = x.shape.v[i];
      a.stride[i] = x.stride.v[i];
    }
    a.layout = int32_t(X::kLayout);
  } else if constexpr (std::is_enum_v<X> && AttrRowOf<X>::kIsAttr) {
    a.kind = PTO_ARG_ENUM;
    a.key = int32_t(AttrRowOf<X>::kRow);
    a.ival = int64_t(x);
  } else if constexpr (std::is_same_v<X, half> || std::is_same_v<X, bfloat16_t> ||
                       std::is_floating_point_v<X>) {
    a.kind = PTO_ARG_FLOAT;
    a.dtype = dtype_of<X>();
    a.fval = double(float(x));
    if constexpr (std::is_same_v<X, double>) a.fval = x;
  } else if constexpr (std::is_integral_v<X> || std::is_enum_v<X>) {
    a.kind = PTO_ARG_INT;
    a.dtype = dtype_of<X>();
    a.ival = int64_t(x);
  } else {
    static_assert(sizeof(X) == 0, "a tile-op argument the model does not know");
  }
  return a;
}

template <class... A>
inline void issue(const char* ir_name, const char* cxx_name, const A&... a) {
  PtoModelArg args[sizeof...(A) + 1] = {describe(a)...};
  pto_model_op(ir_name, cxx_name, args, int32_t(sizeof...(A)));
}

}  // namespace pto::model

namespace pto {
#define PTO_MODEL_OP(Cxx, IrName)                              \
  template <class... A>                                        \
  inline void Cxx(const A&... a) {                             \
    ::pto::model::issue(IrName, #Cxx, a...);                   \
  }
#include "pto/model/ops.inc"
#undef PTO_MODEL_OP
}  // namespace pto
