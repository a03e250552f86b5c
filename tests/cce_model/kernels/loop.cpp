// A loop over four 16x16 f32 chunks with tiles reused per iteration, as the
// sync pass writes it: back-edge flags V->MTE2 (the input tile is free) and
// MTE3->V (the output tile is free), with their compensation set before and
// wait after the loop. out[i] = in[i] * 2 + 1.
#include "pto/pto-inst.hpp"
using namespace pto;

__global__ AICORE void loop_kernel(__gm__ float* v1, __gm__ float* v2, int32_t v3) {
  using GTShape_1 = pto::Shape<1, 1, 1, 16, 16>;
  using GTStride_1 = pto::Stride<256, 256, 256, 16, 1>;
  using GT_1 = GlobalTensor<float, GTShape_1, GTStride_1, pto::Layout::ND>;
  using TileV = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, 16, 16, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;
  TileV v4;
  TASSIGN(v4, 0);
  TileV v5;
  TASSIGN(v5, 1024);
  const float v6 = 2.0f;
  const float v7 = 1.0f;
  set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  //@BACK_EDGE
  set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
  for (int32_t v8 = 0; v8 < v3; v8 += 1) {
    GT_1 v9 = GT_1(v1 + v8 * 256);
    GT_1 v10 = GT_1(v2 + v8 * 256);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  //@BACK_EDGE
    TLOAD(v4, v9);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    TMULS(v5, v4, v6);
    pipe_barrier(PIPE_V);
    TADDS(v5, v5, v7);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  //@BACK_EDGE
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(v10, v5);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
  }
  wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  //@BACK_EDGE
  wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
  pipe_barrier(PIPE_ALL);
}
