// tests/golden/cce/addc.expected as the emitter wrote it (no sync: without
// --enable-insert-sync), the model must report every missing flag.
#include "pto/pto-inst.hpp"
using namespace pto;

enum class PTOAutoSyncTailMode { kBarrierAll, kSetWaitMte3ToSEvent0 };

static AICORE inline void ptoas_auto_sync_tail(PTOAutoSyncTailMode mode) {
  if (mode == PTOAutoSyncTailMode::kSetWaitMte3ToSEvent0) {
    set_flag(PIPE_MTE3, PIPE_S, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_S, EVENT_ID0);
  } else {
    pipe_barrier(PIPE_ALL);
  }
}

__global__ AICORE void vec_add_ternary_kernel_2d(__gm__ float* a, __gm__ float* b, __gm__ float* c, __gm__ float* out) {
  using T = float;
  const int64_t c0 = 0;
  const int64_t c1 = 1;
  const int64_t c32 = 32;
  __gm__ float* ap_ptr = a;
  using ap_t = GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>;
  ap_t ap(ap_ptr);
  __gm__ float* bp_ptr = b;
  using bp_t = GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>;
  bp_t bp(bp_ptr);
  __gm__ float* cp_ptr = c;
  using cp_t = GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>;
  cp_t cp(cp_ptr);
  __gm__ float* op_ptr = out;
  using op_t = GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>;
  op_t op(op_ptr);
  Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, 32, 32, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> a_tile;
  TASSIGN(a_tile, 0);
  Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, 32, 32, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> b_tile;
  TASSIGN(b_tile, 4096);
  Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, 32, 32, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> c_tile;
  TASSIGN(c_tile, 8192);
  Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, 32, 32, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null> out_tile;
  TASSIGN(out_tile, 12288);
  TLOAD(a_tile, ap);
  TLOAD(b_tile, bp);
  TLOAD(c_tile, cp);
  TADD(out_tile, a_tile, b_tile);
  TADD(out_tile, out_tile, c_tile);
  TSTORE(op, out_tile);
  return;
}

