// The types of the two layers below tile ops (docs/language.md, "The VPTO
// and VMI layers"): they are kept verbatim (TypeKind::Other) and read back
// from their text here when the verifier needs their parts.
//   !pto.vreg<64xf32>                       a 256-byte vector register
//   !pto.mask<b32>                          a predicate register viewed at b8/b16/b32
//   !pto.vmi.vreg<128xf32[, #pto.vmi.layout<...>]>  a VMI logical vector
//   !pto.vmi.mask<128xpred|128xb32[, layout]>       a VMI logical mask
//   !pto.ptr<T, ub|l1|l0a|l0b|l0c|fb|bt|...>  an on-chip pointer
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "binder.h"

namespace ptoas {

enum class VKind : uint8_t { None, VReg, Mask, VmiVReg, VmiMask, Align, Ptr };

struct VType {
  VKind kind = VKind::None;
  int64_t lanes = 0;           // vreg, vmi.vreg, vmi.mask
  std::string_view elem;       // vreg / vmi.vreg element; mask: "b8"/"b16"/"b32"; vmi.mask: "pred"/"bN"
  unsigned elem_bits = 0;      // 0 when the element's width is not known here
  std::string_view space;      // ptr: the address space word
};

// Reads a type's canonical text; kind None when it is none of the above.
VType parse_vtype(std::string_view text);

// Bits of an element type spelling (f32, ui8, si16, f8E4M3FN, !pto.bf16x2,
// !pto.f4E2M1x2, ...); 0 when unknown.
unsigned velem_bits(std::string_view elem);

// The canonical spelling of a rendered VPTO/VMI vector type: `64x!pto.bf16x2`
// is lexed as several tokens and rendered `64 x !pto.bf16x2`; the lane count
// and its `x` are written together again. Other texts are returned as is.
std::string canonical_vtype_text(std::string text);

namespace bind {
// True for a `!pto.ptr<...>` body (cursor inside the angle brackets) that
// only the VPTO layer uses: an on-chip address space, or an element type
// outside DType. Such pointers are kept verbatim.
bool ptr_is_vpto_only(const Binder& b, const Binder::Cursor& in);
}  // namespace bind

}  // namespace ptoas

namespace ptoas::bind {
// The result types of a VPTO/VMI op written `... : T, T -> R, R` (the list
// after the last top-level `->`, parenthesized or not), `... : R` (no arrow:
// the types after `:` when there are n of them), or `... : T to R`. False when none is there.
bool vpto_result_types(Binder& b, uint32_t body_b, uint32_t body_e, size_t n,
                       std::vector<TypeId>& out);
}  // namespace ptoas::bind
