// A wait no set releases: V waits for MTE2 on EVENT_ID1, which nothing sets.
#include "pto/pto-inst.hpp"
using namespace pto;

__global__ AICORE void deadlock_kernel(__gm__ float* v1, __gm__ float* v2) {
  using GT_1 = GlobalTensor<float, pto::Shape<1, 1, 1, 16, 16>, pto::Stride<256, 256, 256, 16, 1>, pto::Layout::ND>;
  GT_1 v3 = GT_1(v1);
  GT_1 v4 = GT_1(v2);
  using TileV = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, 16, 16, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;
  TileV v5;
  TASSIGN(v5, 0);
  TLOAD(v5, v3);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
  TADDS(v5, v5, 1.0f);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  TSTORE(v4, v5);
  pipe_barrier(PIPE_ALL);
}
