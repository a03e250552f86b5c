// The meaning of the integer scalar ops (arith.addi .. arith.cmpi, the
// integer casts) on canonical 64-bit values: one definition used by the
// interpreter (runtime/interp) and by constant folding (opt/fold.cpp), so
// a folded constant is exactly what the program would have computed.
//
// Canonical value of an integer of type d: sign-extended for signed types
// and index, zero-extended for unsigned ones, 0/1 for i1.
#pragma once
#include <cstdint>
#include <string_view>

#include "ir.h"
#include "ops.h"

namespace ptoas {

// v reduced to d's width and made canonical.
int64_t wrap_int(DType d, int64_t v);

// Bits of an integer type (index: 64; i1: 1).
unsigned int_width(DType d);

enum class IntFault : uint8_t { None, DivByZero, DivOverflow, BadShift, NotFoldable };

// out = a op b for the ArithBin integer ops, in result type d. A fault
// leaves out unchanged.
IntFault eval_int_bin(Op op, DType d, int64_t a, int64_t b, int64_t& out);

// arith.cmpi with predicate p on operands of type d; false (and ok=false)
// for an unknown predicate.
bool eval_int_cmp(std::string_view p, DType d, int64_t a, int64_t b, bool& ok);

// The integer casts (index_cast[ui], extsi, extui, trunci) from type s to d.
int64_t eval_int_cast(Op op, DType s, DType d, int64_t v);

// The canonical value of v when an arith.constant of an integer, index or
// i1 type defines it (what the interpreter computes for it).
bool int_constant(const Module& m, ValueId v, int64_t& out);

}  // namespace ptoas
