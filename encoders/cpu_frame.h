// The CPU frame (x86, sve): the stack slots of one function's values.
//
// Every SSA value of the function gets consecutive 8-byte stack slots:
//   scalar (int/index/i1 canonical 64-bit, f32 bits in the low half, f64) 1
//   !pto.ptr                                      1  (the address)
//   tensor / partition view of rank r         1+2r  (base, shape[r], strides[r] in elements)
//   tile                                          3  (byte offset in the tile arena,
//                                                     valid rows, valid cols)
// Tile slots are static per alloc_tile instruction: bump-allocated per
// location (64-byte aligned) in program order as the interpreter does at
// first execution (-O0), placed by opt/mem_plan.h (-O1 and up: dead tiles'
// memory reused), or at an explicit constant `addr`; the locations follow
// each other in one arena that must fit the arch's memory sizes and
// kMaxTileArenaBytes.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codegen.h"
#include "refusal.h"

namespace ptoas::cg {

struct Slot {
  int32_t first = -1;  // -1: no slot (not a value of this function)
  uint16_t count = 0;
};

struct FramePlan {
  std::vector<Slot> slots;         // by ValueId
  uint32_t nslots = 0;
  uint32_t temp_first = 0, temp_count = 0;  // scratch slots (yield copies, slot_copies)
  uint32_t block_idx_slot = 0, block_num_slot = 0;
  std::vector<uint32_t> alloc_offset;  // by InstId (alloc_tile, a subview window): byte offset in the arena, kNone if none
  uint32_t arena_bytes = 0;            // multiple of 64
  // Arena byte ranges [first, second) to zero on entry (multiples of 8):
  // the whole arena at -O0, else the tiles opt/mem_plan.h says may be read
  // before they are wholly written.
  std::vector<std::pair<uint32_t, uint32_t>> zero_ranges;
};

// Bits of an integer-like scalar type (index is 64).
inline unsigned int_bits(DType d) {
  if (d == DType::Index || d == DType::I64 || d == DType::U64) return 64;
  return dtype_bytes(d) * 8;
}

inline bool is_int_like(DType d) { return dtype_is_int(d) || d == DType::Index || d == DType::I1; }

// Slots a value of type t needs; 0 when such values cannot live in slots.
unsigned slot_count(const Type& t);

// The located `op X with dtype Y is not supported on T` diagnostic.
void unsupported(const Module& m, const Inst& in, Diag& diag, const Target& t, const Refusal& r = {});
// Why a CPU target refuses func.call: each function is compiled as a
// separate kernel with the kernel ABI; there is no call between them (the
// interpreter runs calls).
inline const Refusal kCallRefusal{RefusalCode::Control,
                                  "func.call (a call between functions; ptorun --target=interp runs it)"};

// The slot bits of an arith.constant of scalar type (integers canonical,
// f32 bits in the low half, f64 bits, f16 / bf16 bit patterns rounded once
// from the literal); false for other types (the f8 / f4 formats).
bool constant_bits(const Module& m, const Inst& in, uint64_t& bits);

bool plan_frame(const Module& m, InstId fn, const Target& t, FramePlan& plan, Diag& diag);

// How each kernel parameter arrives (DESIGN §5), in order, then block_idx
// and block_num: its slot, the type its bits are canonicalized as
// (pointers I64, f16 / bf16 U16 bit patterns), and whether it comes in a
// float register (f32, f64). False with `why` for a parameter that has no
// CPU passing (other float scalars).
struct ParamPass {
  uint32_t slot;
  DType as;
  bool is_float;
};
bool param_passing(const Module& m, InstId fn, const FramePlan& plan, std::vector<ParamPass>& out,
                   std::string& why);

// Values passed into or out of a region (scf.for inits and yields, scf.if
// results, scf.while arguments) are copied slot by slot, every slot of each
// value: a tile is its arena offset and both valid extents, so that the
// value a branch yields is the tile that branch named (a later treshape or
// set_validshape of either name changes only that name, as in the
// interpreter). The pairs (slot of from[k], slot of to[k]) of such a copy.
std::vector<std::pair<uint32_t, uint32_t>> slot_copies(const FramePlan& p, const std::vector<ValueId>& from,
                                                      const std::vector<ValueId>& to);

// Visits every instruction of a region tree in program order (pre-order).
template <class F>
void walk_region(const Module& m, const Region& r, F&& f) {
  for (unsigned i = 0; i < r.inst_count; ++i) {
    InstId id = m.region_inst(r, i);
    const Inst& in = m.inst(id);
    f(id, in);
    for (unsigned k = 0; k < in.n_regions; ++k) walk_region(m, m.region(in, k), f);
  }
}

}  // namespace ptoas::cg
