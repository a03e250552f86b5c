// The attribute enums of attr_enums.def as C++ enum classes (pto::CmpMode,
// pto::RoundMode, ...): each PTO_ATTR_ENUM row closes the enum before it and
// opens its own; its PTO_ATTR_WORD rows are the enumerators, in order.
#pragma once
#include <cstdint>

namespace pto {

namespace model {
// The table's rows (enum and int keys), numbered as the library numbers them.
enum class AttrRow : int32_t {
#define PTO_ATTR_ENUM(Key, IrKind, CppEnum) Key,
#define PTO_ATTR_INT(Key, CppType, Default) Key,
#include "pto/model/attr_enums.def"
};
}  // namespace model

enum class AttrEnumsBegin_ {
#define PTO_ATTR_ENUM(Key, IrKind, CppEnum) \
  }                                         \
  ;                                         \
  enum class CppEnum : int32_t {
#define PTO_ATTR_WORD(CppEnum, X, Word) X,
#include "pto/model/attr_enums.def"
};

namespace model {
// The row of each enum class, for describing an argument of that type.
template <class E>
struct AttrRowOf {
  static constexpr bool kIsAttr = false;
};
#define PTO_ATTR_ENUM(Key, IrKind, CppEnum)          \
  template <>                                        \
  struct AttrRowOf<::pto::CppEnum> {                 \
    static constexpr bool kIsAttr = true;            \
    static constexpr AttrRow kRow = AttrRow::Key;    \
  };
#include "pto/model/attr_enums.def"
}  // namespace model

}  // namespace pto
