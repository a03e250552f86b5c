// The spellings of the CCE C++ (docs/cce_backend.md §1): value names from
// the .pto, scalar and tile types, enumerator names, the attribute
// arguments of a tile op. Only spelling: what is emitted where is
// cce_lower.cpp's.
#pragma once
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "ir.h"

namespace ptoas::cg::cce {

// C++ names for one function's values: the .pto name (`%x_tile` ->
// `x_tile`) made a C++ identifier, unique in the function, never a keyword
// or a name the emitted file defines itself.
class Names {
 public:
  explicit Names(const Module& m) : m_(m), by_value_(m.values.size()) {}
  const std::string& of(ValueId v);
  // A fresh name from `base` (helper variables: `x_ptr`, `x_t`).
  std::string fresh(std::string_view base);

 private:
  const Module& m_;
  // A deque: of() hands out references, which growing a vector would leave
  // dangling (`nm(a) + " = " + nm(b)` read freed memory under ASan).
  std::deque<std::string> by_value_;
  std::vector<std::string> taken_;  // sorted
  bool take(const std::string& s);
};

// `float`, `int64_t` (index), `bool` (i1), `half`, `bfloat16_t`; empty when
// the type has no C++ spelling here.
std::string scalar_type(DType d);
// The C++ type of a value: scalar types, `__gm__ T*` for pointers, the
// Tile<...> for tiles; empty when none.
std::string value_type(const Module& m, ValueId v);
// Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, 32, 32, ...>. A
// row-major N x 1 tile without a box layout is spelled column-major: the
// same storage, and the only N x 1 form every PTO-ISA version accepts for
// row reductions and the row-expand ops that read them.
std::string tile_type(const Type& t);
// A tile type the C++ can spell (a location with a TileType, a known element type).
bool tile_loc_ok(const Type& t);
// The TileType of a location (`TileType::Vec`).
std::string_view tile_type_name(Loc l);

// The attribute arguments of a tile op, in attr_enums.def order: one per
// table row whose key `in` carries (`CmpMode::LT`, `RoundMode::CAST_RINT`,
// `1`). False with the key in `bad` when a value has no enumerator.
bool attr_args(const Module& m, const Inst& in, std::vector<std::string>& out, std::string& bad);

// A C++ literal of `a` (an Int or Float attribute) as type `d`.
std::string literal(const Attr& a, DType d);

// The call name of a tile op: `pto.tmatmul.acc` -> `TMATMUL_ACC`.
std::string call_name(Op op);

}  // namespace ptoas::cg::cce
