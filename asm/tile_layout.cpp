// Tile memory sizes and element addressing (see tile_layout.h).
#include "tile_layout.h"

#include <algorithm>

namespace ptoas {

size_t tile_memory_bytes(Arch arch, Loc loc) {
  constexpr size_t K = 1024;
  switch (loc) {
    case Loc::Vec: return arch == Arch::A5 ? 256 * K : 192 * K;
    case Loc::Mat: return 512 * K;
    case Loc::Left: case Loc::Right: return 64 * K;
    case Loc::Acc: return arch == Arch::A5 ? 256 * K : 128 * K;
    case Loc::Bias: case Loc::Scaling: return 64 * K;
    default: return 0;
  }
}

void tile_inner_box(const Type& t, int64_t& ir, int64_t& ic) {
  int64_t es = std::max<int64_t>(1, dtype_bytes(t.elem));
  if (t.fractal == 1024) { ir = 16; ic = 16; return; }
  if (t.fractal == 32) {
    if (t.slayout == SLayout::RowMajor) { ir = 16; ic = 2; } else { ir = 2; ic = 16; }
    return;
  }
  if (t.slayout == SLayout::RowMajor) { ir = 16; ic = std::max<int64_t>(1, 32 / es); }
  else { ir = std::max<int64_t>(1, 32 / es); ic = 16; }
}

int64_t tile_elem_index(const Type& t, int64_t r, int64_t c) {
  if (t.slayout == SLayout::NoneBox)
    return t.blayout == BLayout::RowMajor ? r * t.cols + c : c * t.rows + r;
  int64_t ir, ic;
  tile_inner_box(t, ir, ic);
  int64_t nbr = (t.rows + ir - 1) / ir, nbc = (t.cols + ic - 1) / ic;
  int64_t br = r / ir, bc = c / ic, rr = r % ir, cc = c % ic;
  bool col_boxes = t.blayout == BLayout::ColMajor;
  bool col_inner = t.slayout == SLayout::ColMajor;
  if (col_boxes && !col_inner) return (nbr * bc + br) * ir * ic + rr * ic + cc;  // NZ
  if (!col_boxes && col_inner) return (nbc * br + bc) * ir * ic + cc * ir + rr;  // ZN
  if (!col_boxes && !col_inner) return (nbc * br + bc) * ir * ic + rr * ic + cc;  // ZZ
  return (nbr * bc + br) * ir * ic + cc * ir + rr;                                // NN
}

size_t tile_storage_bytes(const Type& t) {
  int64_t es = std::max<int64_t>(1, dtype_bytes(t.elem));
  int64_t rows = std::max(0, t.rows), cols = std::max(0, t.cols);
  if (t.slayout == SLayout::NoneBox) return size_t(rows * cols * es);
  int64_t ir, ic;
  tile_inner_box(t, ir, ic);
  return size_t((rows + ir - 1) / ir * ir * ((cols + ic - 1) / ic) * ic * es);
}

}  // namespace ptoas
