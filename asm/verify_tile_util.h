// Small read-only views of tile operands shared by the per-op tile rules
// (verify_tile_*.cpp): the official verifiers speak of an operand's element
// type, loc, layout, shape and valid shape; these answer those questions for
// a ValueId without trusting it to be a tile.
#pragma once
#include <cstdint>
#include <string>

#include "verify.h"

namespace ptoas::verify_detail {

// `'pto.tadd' op `: how a tile op's diagnostics begin.
inline std::string op_err(const Inst& in) { return q(in.op) + " op "; }
// The first result (the dst operand after the ins), or kNone.
inline ValueId out0(const Ctx& c, const Inst& in) { return in.n_outs ? c.operand(in, in.n_ins) : kNone; }

// The tile_buf type of `v`, or nullptr (a memref, a view, a scalar ...).
inline const Type* tile_of(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  return t && t->kind == TypeKind::TileBuf ? t : nullptr;
}

// Element type of a tile, memref, view or scalar; None when unknown.
inline DType elem_of_any(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  return t ? t->elem : DType::None;
}

inline bool is_row_major(const Type* t) { return t && t->blayout == BLayout::RowMajor; }
inline bool is_nd(const Type* t) {
  return t && t->blayout == BLayout::RowMajor && t->slayout == SLayout::NoneBox;
}
inline bool is_dn(const Type* t) {
  return t && t->blayout == BLayout::ColMajor && t->slayout == SLayout::NoneBox;
}
inline bool is_nz(const Type* t) {
  return t && t->blayout == BLayout::ColMajor && t->slayout == SLayout::RowMajor;
}

// A static extent equal to `want` (false when dynamic).
inline bool is_static(int32_t v) { return v != kDyn; }
// Two extents that cannot be told apart statically (either dynamic, or equal).
inline bool compatible(int32_t a, int32_t b) { return a == kDyn || b == kDyn || a == b; }

inline std::string dname(DType d) { return std::string(dtype_name(d)); }
inline std::string lname(Loc l) { return std::string(loc_name(l)); }

// Integer attribute `key` (Int or Bool kind); false when absent or another kind.
inline bool attr_int(const Ctx& c, const Inst& in, std::string_view key, int64_t& out) {
  const Attr* a = c.m.find_attr(in, key);
  if (!a || (a->kind != AttrKind::Int && a->kind != AttrKind::Bool)) return false;
  out = a->ival;
  return true;
}

// Bytes of one element as the official tool counts storage (a packed fp4
// pair is one byte); 0 when unknown.
inline unsigned elem_bytes(DType d) { return dtype_bytes(d); }
inline bool is_fp4(DType d) { return d == DType::F4E1M2x2 || d == DType::F4E2M1x2; }
inline bool is_low_precision(DType d) {
  return d == DType::F8E4M3 || d == DType::F8E4M3FN || d == DType::F8E5M2 || d == DType::HiF8 ||
         d == DType::F8E8M0 || is_fp4(d);
}
// An integer of `bits` width, of any signedness (MLIR's isInteger(bits)).
inline bool is_int_width(DType d, unsigned bits) {
  return dtype_is_int(d) && dtype_bytes(d) * 8 == bits;
}

// Per-op rule sets, called from verify_dps_inst once the op table's operand
// checks passed.
void verify_tile_gather_inst(Ctx& c, const Inst& in);  // verify_tile_gather.cpp
void verify_tile_tmp_inst(Ctx& c, const Inst& in);     // verify_tile_tmp.cpp
void verify_tile_ops_inst(Ctx& c, const Inst& in);     // verify_tile_ops.cpp
void verify_tile_matmul_inst(Ctx& c, const Inst& in);  // verify_tile_matmul.cpp
void verify_tile_mem_inst(Ctx& c, const Inst& in);     // verify_tile_mem.cpp
// Code generation for cce (verify_npu_pipeline): level 3's explicit tmp tiles.
void verify_implicit_tmp(Ctx& c);                      // verify_implicit_tmp.cpp

}  // namespace ptoas::verify_detail
