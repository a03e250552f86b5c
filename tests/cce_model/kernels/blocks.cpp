// Four blocks, each on its own 16x16 chunk (get_block_idx()), half
// precision with a half scalar: out = in + 0.5.
#include "pto/pto-inst.hpp"
using namespace pto;

__global__ AICORE void blocks_kernel(__gm__ half* v1, __gm__ half* v2) {
  using GT_1 = GlobalTensor<half, pto::Shape<1, 1, 1, 16, 16>, pto::Stride<256, 256, 256, 16, 1>, pto::Layout::ND>;
  int64_t v3 = get_block_idx() * 256;
  GT_1 v4 = GT_1(v1 + v3);
  GT_1 v5 = GT_1(v2 + v3);
  using TileV = Tile<TileType::Vec, half, 16, 16, BLayout::RowMajor, 16, 16, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;
  TileV v6;
  TASSIGN(v6, 0);
  const half v7 = half(0.5f);
  TLOAD(v6, v4);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TADDS(v6, v6, v7);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  TSTORE(v5, v6);
  pipe_barrier(PIPE_ALL);
}
