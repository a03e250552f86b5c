// Why a target refuses an instruction: a code and the precise words. The
// code is printed after the message (`... is not supported on avx2
// [unsupported-layout]`), so tools and tests match codes, not sentences;
// the words name the op and what about it is not taken.
#pragma once
#include <string>
#include <string_view>

namespace ptoas::cg {

enum class RefusalCode : uint8_t {
  Type,       // an element type or a conversion between types
  Layout,     // a tile layout: boxed, column-major, mixed, not contiguous
  Shape,      // a dynamic shape, a view rank, a region of the wrong extent
  Operands,   // an operand form: scalar for tile, in place, result aliasing an operand
  Attribute,  // an attribute value: cmpMode, relu, atomic, a predicate
  Control,    // a construct of the function: a call, a nested function, returned values
  Limit,      // a size the target caps: code, frame, tile memory
  Layer,      // an op of a layer below tile ops (VPTO, VMI) that no CPU target lowers yet
};

std::string_view refusal_code_name(RefusalCode c);

struct Refusal {
  RefusalCode code = RefusalCode::Type;
  std::string what;  // empty: "op X with dtype Y" (the generic refusal)
  Refusal() = default;
  Refusal(RefusalCode c, std::string w) : code(c), what(std::move(w)) {}
};

}  // namespace ptoas::cg
