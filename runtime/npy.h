// .npy I/O (numpy's format, versions 1.0-3.0): little-endian C-order arrays
// of the element types kernels take.
//
// Element types travel as numpy descriptors: f32 <f4, f64 <f8, f16 <f2,
// i8 |i1, u8 |u1, i16 <i2, u16 <u2, i32 <i4, u32 <u4, i64 <i8, u64 <u8,
// i1 |b1. numpy has no bf16 and no fp8: bf16 travels as its <u2 bit
// patterns and the fp8 types as |u1, so reading <u2 gives DType::U16 and
// npy_dtype_matches() accepts it for a bf16 pointer.
#pragma once
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "ops.h"

namespace ptoas::rt {

// Bytes on a 64-byte boundary: kernels get arrays whose vectors do not
// straddle cache lines (malloc alone gives 16).
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
};
using NpyBytes = std::vector<uint8_t, CacheLineAllocator<uint8_t>>;

struct NpyArray {
  DType dtype = DType::None;
  std::vector<int64_t> shape;  // empty: a 0-d array (one element)
  NpyBytes data;               // C order, little-endian

  int64_t elems() const;       // product of shape
};

// The numpy descriptor of `d` ("<f4"), or "" when .npy cannot carry it.
std::string_view npy_descr(DType d);
// The element type a descriptor reads as (DType::None when unsupported).
// "<u2" reads as U16, "|u1" as U8.
DType npy_parse_descr(std::string_view descr);
// True when an array of type `array` may be passed for a pointer to `param`
// elements (same type, or the bit-pattern stand-in: bf16 <- u16, fp8 <- u8).
bool npy_dtype_matches(DType param, DType array);

// Parses a whole .npy image. Rejects (with a message) anything but a
// little-endian or byte-order-free C-order array of a supported type, and
// any header or size that does not add up; never crashes on garbage.
bool npy_parse(const uint8_t* bytes, size_t size, NpyArray& out, std::string& err);
// The .npy image of `a` (version 1.0, or 2.0 for a huge header; the header
// padded so that the data starts on a 64-byte boundary).
bool npy_serialize(const NpyArray& a, std::string& out, std::string& err);

// File forms. npy_read reports a file that cannot be opened with
// `missing = true` (the caller's usage error) and everything else with
// missing = false. npy_write goes through a temporary file renamed into
// place, so a failed write leaves nothing behind.
bool npy_read(const std::string& path, NpyArray& out, std::string& err, bool* missing = nullptr);
bool npy_write(const std::string& path, const NpyArray& a, std::string& err);

}  // namespace ptoas::rt
