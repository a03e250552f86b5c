// Tile storage facts every consumer of the IR must agree on: how big each
// tile memory is per arch, and where element (r, c) of a tile lives. One
// copy here, used by the verifier, the interpreter and the encoders.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ir.h"

namespace ptoas {

// Per-block memory for tiles of `loc` on `arch`, in bytes (0: no tiles).
// UB 192/256 KiB (a3/a5), L1 512 KiB, L0A/L0B 64 KiB, L0C 128/256 KiB; the
// bias table and the fixpipe scaling buffer get 64 KiB.
size_t tile_memory_bytes(Arch arch, Loc loc);

// Inner box of a boxed layout: fractal 512 is 32 bytes wide (row-major
// inner) or tall (column-major inner) by 16; 1024 is 16x16; 32 is 16x2/2x16.
void tile_inner_box(const Type& t, int64_t& box_rows, int64_t& box_cols);

// Element index of (r, c) in a tile: ND (row-major), DN (column-major) and
// the boxed NZ/ZN/ZZ/NN layouts of PTO-ISA notes §2.3.
int64_t tile_elem_index(const Type& t, int64_t r, int64_t c);

// Bytes a tile occupies; boxed layouts round up to whole boxes.
size_t tile_storage_bytes(const Type& t);

}  // namespace ptoas
