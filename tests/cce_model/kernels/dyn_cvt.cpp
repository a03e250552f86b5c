// Dynamic valid extents and an attribute: a 16x16 f32 tile whose valid
// region (rows x cols) comes from the arguments, loaded through a dynamic
// GlobalTensor, converted to i32 with RoundMode::CAST_FLOOR, then compared
// against a scalar (TCMPS, CmpMode::GT) into a u8 mask.
#include "pto/pto-inst.hpp"
using namespace pto;

__global__ AICORE void dyn_cvt_kernel(__gm__ float* v1, __gm__ int32_t* v2, int64_t v3, int64_t v4) {
  using GT_f = GlobalTensor<float, pto::Shape<1, 1, 1, -1, -1>, pto::Stride<256, 256, 256, 16, 1>, pto::Layout::ND>;
  using GT_i = GlobalTensor<int32_t, pto::Shape<1, 1, 1, -1, -1>, pto::Stride<256, 256, 256, 16, 1>, pto::Layout::ND>;
  GT_f v5 = GT_f(v1, pto::Shape<1, 1, 1, -1, -1>(v3, v4), pto::Stride<256, 256, 256, 16, 1>());
  GT_i v6 = GT_i(v2, pto::Shape<1, 1, 1, -1, -1>(v3, v4), pto::Stride<256, 256, 256, 16, 1>());
  Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v7 =
      Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(v3, v4);
  TASSIGN(v7, 0);
  Tile<TileType::Vec, int32_t, 16, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v8 =
      Tile<TileType::Vec, int32_t, 16, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>(v3, v4);
  TASSIGN(v8, 1024);
  TLOAD(v7, v5);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TCVT(v8, v7, RoundMode::CAST_FLOOR);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  TSTORE(v6, v8);
  pipe_barrier(PIPE_ALL);
}
