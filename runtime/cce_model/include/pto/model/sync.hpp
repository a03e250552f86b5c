// Keywords, ids and the sync calls of docs/cce_backend.md §1.1-§1.2. The
// calls only enqueue: the model library runs them on their pipes.
#pragma once
#include <cstdint>

#include "pto/model/abi.h"

#define __global__
#define AICORE
#define __aicore__
#define __gm__

enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };
enum event_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };

inline void set_flag(pipe_t src, pipe_t dst, event_t id) { pto_model_set_flag(src, dst, id); }
inline void wait_flag(pipe_t src, pipe_t dst, event_t id) { pto_model_wait_flag(src, dst, id); }
inline void pipe_barrier(pipe_t p) { pto_model_pipe_barrier(p); }

inline int64_t get_block_idx() { return pto_model_block_idx(); }
inline int64_t get_block_num() { return pto_model_block_num(); }
// One vector core per block in the model (no cube/vector split).
inline int64_t get_subblockid() { return 0; }
inline int64_t get_subblockdim() { return 1; }
// Masks: the model's ops always cover the tile's valid region.
inline void set_mask_norm() {}
inline void set_vector_mask(uint64_t, uint64_t) {}
