// Global memory (docs/cce_backend.md §1.3): 5-D shapes and strides whose
// -1 entries take their values from the constructor, in order.
#pragma once
#include <cstdint>
#include <type_traits>

namespace pto {

enum class Layout { ND, DN, NZ };

namespace model {
template <int... D>
struct Dims5 {
  static_assert(sizeof...(D) == 5, "pto::Shape / pto::Stride take five arguments");
  static constexpr int kStatic[5] = {D...};
  static constexpr int kDynamic = ((D == -1 ? 1 : 0) + ...);
  int64_t v[5] = {D...};
  Dims5() { static_assert(kDynamic == 0, "a dynamic entry needs its value"); }
  template <class... V, class = std::enable_if_t<sizeof...(V) != 0>>
  explicit Dims5(V... vals) {
    static_assert(sizeof...(V) == kDynamic, "one value per -1 entry");
    int64_t given[] = {int64_t(vals)...};
    int k = 0;
    for (int i = 0; i < 5; ++i)
      if (kStatic[i] == -1) v[i] = given[k++];
  }
};
}  // namespace model

template <int D0, int D1, int D2, int D3, int D4>
struct Shape : model::Dims5<D0, D1, D2, D3, D4> {
  using model::Dims5<D0, D1, D2, D3, D4>::Dims5;
};
template <int S0, int S1, int S2, int S3, int S4>
struct Stride : model::Dims5<S0, S1, S2, S3, S4> {
  using model::Dims5<S0, S1, S2, S3, S4>::Dims5;
};

template <class T, class ShapeT, class StrideT, Layout L>
struct GlobalTensor {
  using DType = T;
  static constexpr Layout kLayout = L;
  T* ptr = nullptr;
  ShapeT shape;
  StrideT stride;
  explicit GlobalTensor(T* p) : ptr(p) {}
  GlobalTensor(T* p, ShapeT s, StrideT st) : ptr(p), shape(s), stride(st) {}
  T* data() const { return ptr; }
};

}  // namespace pto
