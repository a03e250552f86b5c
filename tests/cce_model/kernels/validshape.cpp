// SetValidShape on a tile with dynamic valid extents (pto.set_validshape):
// a 16x16 load, the valid region narrowed to v3 rows, a store of those rows
// through a dynamic GlobalTensor. GetValidRow / GetValidCol give the extent.
#include "pto/pto-inst.hpp"
using namespace pto;

__global__ AICORE void validshape_kernel(__gm__ float* v1, __gm__ float* v2, int64_t v3) {
  using GT_1 = GlobalTensor<float, pto::Shape<1, 1, 1, 16, 16>, pto::Stride<256, 256, 256, 16, 1>, pto::Layout::ND>;
  using GT_2 = GlobalTensor<float, pto::Shape<1, 1, 1, -1, 16>, pto::Stride<256, 256, 256, 16, 1>, pto::Layout::ND>;
  using TileD = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;
  TileD v4 = TileD(16, 16);
  TASSIGN(v4, 0);
  GT_1 v5 = GT_1(v1);
  TLOAD(v4, v5);
  v4.SetValidShape(v3, 16);
  GT_2 v6 = GT_2(v2, pto::Shape<1, 1, 1, -1, 16>(v4.GetValidRow()), pto::Stride<256, 256, 256, 16, 1>());
  set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
  TSTORE(v6, v4);
  pipe_barrier(PIPE_ALL);
}
