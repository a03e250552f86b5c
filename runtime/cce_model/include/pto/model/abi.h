// The C ABI between the model's header (compiled into the kernel, by g++ at
// run time) and the model library (libptocce_model.so, loaded once and
// shared by the runner and every kernel .so). Plain C structs and functions
// only, so that the kernel and the library need not agree on anything but
// this file (docs/cce_backend.md §5).
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Element types: the numbering of ptoas::DType (asm/ops.h).
enum PtoModelDType {
  PTO_DT_NONE = 0, PTO_DT_F32, PTO_DT_F16, PTO_DT_BF16, PTO_DT_F64, PTO_DT_I1, PTO_DT_I8,
  PTO_DT_U8, PTO_DT_I16, PTO_DT_U16, PTO_DT_I32, PTO_DT_U32, PTO_DT_I64, PTO_DT_U64
};

enum PtoModelArgKind {
  PTO_ARG_TILE = 0,   // a Tile object
  PTO_ARG_GM = 1,     // a GlobalTensor
  PTO_ARG_INT = 2,    // an integer scalar (dtype says which)
  PTO_ARG_FLOAT = 3,  // a floating-point scalar
  PTO_ARG_ENUM = 4,   // an attribute enumerator: key = row of attr_enums.def, ival = enumerator
};

// One argument of a tile-op call, as the call saw it (a snapshot: the op
// runs later, on its pipe).
struct PtoModelArg {
  int32_t kind;
  int32_t dtype;
  // Tile: the 11 template arguments, the current valid extent, the offset.
  int32_t tile_type, rows, cols, blayout, vrows_t, vcols_t, slayout, fractal, pad, compact;
  int32_t vrow, vcol;
  int32_t assigned;  // TASSIGN was called
  uint64_t offset;
  // GlobalTensor: the pointer, shape and stride (elements), layout.
  void* ptr;
  int64_t shape[5];
  int64_t stride[5];
  int32_t layout;
  // Scalars and attributes.
  int32_t key;
  int64_t ival;
  double fval;
};

// A tile op: `ir_name` is the op's canonical name (pto.tadd), `cxx_name` the
// C++ call (TADD).
void pto_model_op(const char* ir_name, const char* cxx_name, const struct PtoModelArg* args,
                  int32_t n);
void pto_model_set_flag(int32_t src, int32_t dst, int32_t id);
void pto_model_wait_flag(int32_t src, int32_t dst, int32_t id);
void pto_model_pipe_barrier(int32_t pipe);
int64_t pto_model_block_idx(void);
int64_t pto_model_block_num(void);
// Drains every pipe: the C++ needs a value the queued ops produce.
void pto_model_drain(void);
// Element k (esize bytes) of a tile of `count` elements at `offset` in tile
// memory `loc` (TileType order), once every queued op has run.
void* pto_model_tile_elem(int32_t loc, uint64_t offset, int64_t k, int32_t esize, int64_t count);

#ifdef __cplusplus
}
#endif
