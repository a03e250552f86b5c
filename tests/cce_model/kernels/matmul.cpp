// A cube chain: TLOAD A, B to Mat (MTE2) -> MTE2->MTE1 -> TMOV to Left /
// Right (MTE1) -> MTE1->M -> TMATMUL (M) -> M->FIX -> TSTORE from Acc (FIX).
#include "pto/pto-inst.hpp"
using namespace pto;

__global__ AICORE void matmul_kernel(__gm__ float* v1, __gm__ float* v2, __gm__ float* v3) {
  using GTShape_1 = pto::Shape<1, 1, 1, 16, 16>;
  using GTStride_1 = pto::Stride<256, 256, 256, 16, 1>;
  using GT_1 = GlobalTensor<float, GTShape_1, GTStride_1, pto::Layout::ND>;
  GT_1 v4 = GT_1(v1);
  GT_1 v5 = GT_1(v2);
  GT_1 v6 = GT_1(v3);
  using TileMat = Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null>;
  TileMat v7;
  TASSIGN(v7, 0);
  TileMat v8;
  TASSIGN(v8, 1024);
  Tile<TileType::Left, float, 16, 16, BLayout::RowMajor, 16, 16, SLayout::RowMajor, 512, PadValue::Null, CompactMode::Null> v9;
  TASSIGN(v9, 0);
  Tile<TileType::Right, float, 16, 16, BLayout::RowMajor, 16, 16, SLayout::ColMajor, 512, PadValue::Null, CompactMode::Null> v10;
  TASSIGN(v10, 0);
  Tile<TileType::Acc, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 1024, PadValue::Null, CompactMode::Null> v11;
  TASSIGN(v11, 0);
  TLOAD(v7, v4);
  TLOAD(v8, v5);
  set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  TMOV(v9, v7);
  TMOV(v10, v8);
  set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);  //@MTE1_M
  wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);  //@MTE1_M
  TMATMUL(v11, v9, v10);
  set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
  wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
  TSTORE(v6, v11);
  pipe_barrier(PIPE_ALL);
}
