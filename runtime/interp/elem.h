// Element access for every dtype the interpreter supports, and the f16/bf16
// conversions (bit manipulation: no _Float16, which clang 14 lacks on x86).
//
// Floats travel as double: every f32/f16/bf16 value is exactly representable,
// and a single IEEE op computed in double and rounded once to the element
// type equals the op computed in the element type (53 >= 2*24 + 2).
#pragma once
#include <cstdint>
#include <cstring>

#include "ops.h"

namespace ptoas::rt {

uint16_t f32_to_f16_bits(float f);   // round to nearest even; overflow -> inf
float f16_bits_to_f32(uint16_t h);
uint16_t f32_to_bf16_bits(float f);  // round to nearest even; NaN stays NaN
float bf16_bits_to_f32(uint16_t b);
// Rounds a double to the nearest value of the float type `d` (RNE).
double round_to(DType d, double v);
// Wraps an integer to the width of `d` (two's complement).
int64_t wrap_to(DType d, int64_t v);

inline double load_f(const uint8_t* p, DType d) {
  switch (d) {
    case DType::F32: { float f; std::memcpy(&f, p, 4); return f; }
    case DType::F64: { double f; std::memcpy(&f, p, 8); return f; }
    case DType::F16: { uint16_t h; std::memcpy(&h, p, 2); return f16_bits_to_f32(h); }
    case DType::BF16: { uint16_t h; std::memcpy(&h, p, 2); return bf16_bits_to_f32(h); }
    default: break;
  }
  return 0;
}

inline void store_f(uint8_t* p, DType d, double v) {
  switch (d) {
    case DType::F32: { float f = float(v); std::memcpy(p, &f, 4); return; }
    case DType::F64: { std::memcpy(p, &v, 8); return; }
    case DType::F16: { uint16_t h = f32_to_f16_bits(float(round_to(DType::F16, v))); std::memcpy(p, &h, 2); return; }
    case DType::BF16: { uint16_t h = f32_to_bf16_bits(float(round_to(DType::BF16, v))); std::memcpy(p, &h, 2); return; }
    default: return;
  }
}

// A scalar load or store is a copy: the float element at p as a double and
// back with every NaN's sign, quiet bit and payload kept (load_f / store_f
// go through the hardware's conversions, which quiet a signalling NaN).
// Other values as load_f / store_f.
double load_f_bits(const uint8_t* p, DType d);
void store_f_bits(uint8_t* p, DType d, double v);

// x with a NaN's quiet bit set (what an arithmetic operation or a format
// conversion makes of a signalling NaN operand); other values unchanged.
inline double quiet_nan(double x) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  if ((b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (b & 0x000fffffffffffffull)) b |= 1ull << 51;
  std::memcpy(&x, &b, 8);
  return x;
}

inline int64_t load_i(const uint8_t* p, DType d) {
  switch (d) {
    case DType::I1: case DType::U8: return p[0];
    case DType::I8: case DType::SI8: return int8_t(p[0]);
    case DType::I16: case DType::SI16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::U16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::I32: case DType::SI32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::U32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::I64: case DType::U64: case DType::SI64: case DType::Index: { int64_t v; std::memcpy(&v, p, 8); return v; }
    default: return 0;
  }
}

inline void store_i(uint8_t* p, DType d, int64_t v) {
  switch (dtype_bytes(d)) {
    case 1: { uint8_t x = uint8_t(v); p[0] = x; return; }
    case 2: { uint16_t x = uint16_t(v); std::memcpy(p, &x, 2); return; }
    case 4: { uint32_t x = uint32_t(v); std::memcpy(p, &x, 4); return; }
    case 8: std::memcpy(p, &v, 8); return;
    default: return;
  }
}

// Raw bit copy of one element.
inline void copy_elem(uint8_t* dst, const uint8_t* src, DType d) {
  std::memcpy(dst, src, dtype_bytes(d));
}

}  // namespace ptoas::rt
