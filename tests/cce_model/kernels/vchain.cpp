// Two dependent vector ops with no barrier between them: c = a + b, then
// d = c * c. Ordered on A5 (PIPE_V runs in order), a race on A3 unless the
// pipe_barrier(PIPE_V) line stays.
#include "pto/pto-inst.hpp"
using namespace pto;

__global__ AICORE void vchain_kernel(__gm__ float* v1, __gm__ float* v2, __gm__ float* v3) {
  using GT_1 = GlobalTensor<float, pto::Shape<1, 1, 1, 16, 16>, pto::Stride<256, 256, 256, 16, 1>, pto::Layout::ND>;
  GT_1 v4 = GT_1(v1);
  GT_1 v5 = GT_1(v2);
  GT_1 v6 = GT_1(v3);
  using TileV = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, 16, 16, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;
  TileV v7;
  TASSIGN(v7, 0);
  TileV v8;
  TASSIGN(v8, 1024);
  TileV v9;
  TASSIGN(v9, 2048);
  TileV v10;
  TASSIGN(v10, 3072);
  TLOAD(v7, v4);
  TLOAD(v8, v5);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TADD(v9, v7, v8);
  pipe_barrier(PIPE_V);  //@BARRIER_V
  TMUL(v10, v9, v9);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  TSTORE(v6, v10);
  pipe_barrier(PIPE_ALL);
}
