// The waits GCN does not do by itself (notes/GPU_NOTES.md AMDGPU §6), on
// the allocated machine IR: an s_waitcnt before any instruction that reads
// or overwrites a register a load has not written yet (loads retire in
// order per counter; SMEM does not, so a pending SMEM load waits for all),
// everything drained at labels and branches, and the s_nops (or gfx11's
// s_waitcnt_depctr) the chip's hazard rules ask for between a VALU write
// and its reader.
#pragma once
#include "chip.h"
#include "mir.h"

namespace ptoas::cg::amdgpu {

void insert_waits(const Chip& chip, MFunc& f);

// What an instruction is, by mnemonic (shared with the hazard checker).
bool is_valu(const std::string& op);
bool is_trans(const std::string& op);
bool is_dpp(const std::string& op);
// gfx9: wait states between a VALU write of a VGPR and a DPP read of it; code
// after a label counts as if that VGPR had been written just before it.
inline constexpr int kDppAfterValu = 2;
bool is_mfma(const std::string& op);
bool is_wmma(const std::string& op);
// gfx9 wait states around the 16x16x16 MFMA (GPU_NOTES AMDGPU §6: 8 passes
// on gfx90a, 4 on gfx940): after it, before its result is read by a VALU,
// a memory op or another MFMA's A/B, or overwritten by one (result); before
// another MFMA reads part of it as C unless it is the same C (srcc); before
// a VALU or a load overwrites its C (war). Before an MFMA reads a VGPR a
// VALU wrote: valu.
struct MfmaDistances {
  int result, srcc, war, valu = 2;
};
inline MfmaDistances mfma_distances(const Chip& c) { return c.gfx940 ? MfmaDistances{7, 5, 3} : MfmaDistances{11, 8, 7}; }
bool is_vmem(const std::string& op);
bool is_lds(const std::string& op);
bool is_smem(const std::string& op);
bool vmem_returns(const MInst& mi);  // a load, or an atomic with glc

}  // namespace ptoas::cg::amdgpu
