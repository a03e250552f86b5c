// vadd 32x32 f32 as the CCE emitter writes it (docs/cce_backend.md §1):
// TLOAD x2 (MTE2) -> MTE2->V -> TADD (V) -> V->MTE3 -> TSTORE (MTE3).
// Lines tagged //@NAME are dropped, lines tagged //+NAME kept, only when a
// test asks (tests/cce_model/test_cce_model.cpp, variant()).
#include "pto/pto-inst.hpp"
using namespace pto;

__global__ AICORE void vadd_kernel(__gm__ float* v1, __gm__ float* v2, __gm__ float* v3) {
  using T = float;
  using GTShape_1 = pto::Shape<1, 1, 1, 32, 32>;
  using GTStride_1 = pto::Stride<1024, 1024, 1024, 32, 1>;
  constexpr pto::Layout GT_1_layout = pto::Layout::ND;
  using GT_1 = GlobalTensor<float, GTShape_1, GTStride_1, GT_1_layout>;
  GT_1 v4 = GT_1(v1);
  GT_1 v5 = GT_1(v2);
  GT_1 v6 = GT_1(v3);
  Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, 32, 32, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v7;
  TASSIGN(v7, 0);
  Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, 32, 32, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v8;
  TASSIGN(v8, 4096);
  Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, 32, 32, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> v9;
  TASSIGN(v9, 8192);
  TLOAD(v7, v4);
  TLOAD(v8, v5);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  //@SET_MTE2_V
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TADD(v9, v7, v8);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  //+DOUBLE_SET
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  //@WAIT_V_MTE3
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  //+DOUBLE_SET
  TSTORE(v6, v9);
  pipe_barrier(PIPE_ALL);
}
