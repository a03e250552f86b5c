// The decoded form of a code object's kernels: what decode.cpp makes of
// LLVM's printed text, once at load, and the executor (exec*.cpp) runs. An
// executed instruction is a switch on `Op` over fixed-size records; no
// string work happens at run time.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "code_object_reader.h"

namespace ptoas::amdgpu_emu {

// One name per operation; the gfx11 spelling of an instruction decodes to
// the gfx9 one's op (v_add_nc_u32 -> VAddU32, ds_load_b32 -> DsRead, ...).
enum class Op : uint8_t {
  // SALU
  SMovB32, SMovB64, SAddU32, SSubU32, SAndB32, SAndB64, SOrB32, SOrB64, SXorB32, SXorB64,
  SAndn2B32, SAndn2B64, SNotB32, SNotB64, SAndSaveexecB32, SAndSaveexecB64,
  SCmpEqU32, SCmpLgU32, SCselectB32, SLshlB32, SMulI32, SMulHiU32, SAddcU32,
  SLoad,        // s_load_dword{,x2,x4} / s_load_b{32,64,128}: Inst::bytes
  SWaitcnt,     // Inst::wait_*
  SNop,         // s_nop, s_waitcnt_depctr, s_sendmsg: no architectural effect here
  SBarrier, SBranch, SCbranch, SEndpgm,
  SGetpcB64, SSetpcB64,  // the pc: kCodeBase + the byte offset from the kernel's entry
  // VALU, integer
  VMovB32, VMovDpp, VAddU32, VSubU32, VAddCoU32, VAddcCoU32, VSubCoU32, VSubbCoU32,
  VMulLoU32, VMulHiU32, VMulHiI32, VMadU64U32, VMadI64I32,
  VAndB32, VOrB32, VXorB32, VNotB32, VLshlrevB32, VLshrrevB32, VAshrrevI32,
  VLshlrevB64, VLshrrevB64, VAshrrevI64, VBfeU32, VBfeI32, VBfiB32,
  VMinI32, VMinU32, VMaxI32, VMaxU32, VCndmaskB32, VBcntU32B32, VFfbhU32, VBfrevB32,
  VCmp,         // Inst::cmp, Inst::ty
  VCmpClassF32, VCmpClassF64, VReadfirstlaneB32, VMbcntLo, VMbcntHi,
  // VALU, float
  VAddF32, VSubF32, VMulF32, VFmaF32, VMinF32, VMaxF32, VRcpF32, VRcpIflagF32, VSqrtF32, VRsqF32,
  VExpF32, VLogF32, VLdexpF32, VRndneF32, VTruncF32, VFloorF32, VCeilF32,
  VCvtF32U32, VCvtF32I32, VCvtU32F32, VCvtI32F32, VCvtF16F32, VCvtF32F16, VCvtF64F32, VCvtF32F64, VCvtF64I32, VCvtF64U32,
  VAddF64, VMulF64, VFmaF64, VRcpF64, VRsqF64, VSqrtF64,
  VMatrix,      // v_mfma_f32_16x16x16{f16,bf16_1k,_f16,_bf16}, v_wmma_f32_16x16x16_{f16,bf16}: Inst::is_signed = bf16
  // memory
  GlobalLoad, GlobalStore, GlobalAtomicAdd, GlobalAtomicCmpswap,  // Inst::bytes, is_signed, glc
  DsRead, DsWrite, DsSwizzle, DsBpermute,
};

// Branch conditions of s_cbranch_*.
enum class Cond : uint8_t { Scc0, Scc1, Execz, Execnz, Vccz, Vccnz };

// Compare operators; the F ones are the unordered-true forms (neq, nlt, ...).
enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lg, O, U, Neq, Nlg, Nlt, Nle, Ngt, Nge };
enum class CmpTy : uint8_t { I32, U32, I64, U64, F32, F64 };

// Scalar register file indices: s0..s105, then the named registers (one
// index space, so `vcc` is just the pair at kVcc).
constexpr unsigned kNumSgprs = 106;
// What s_getpc_b64 gives for the kernel's first instruction (a code
// address in no buffer: only s_setpc_b64 takes it back).
constexpr uint64_t kCodeBase = 0x7f0000000000ull;
constexpr unsigned kVcc = 106, kExec = 108, kM0 = 110, kNull = 111, kScalarRegs = 112;

struct Opnd {
  enum Kind : uint8_t {
    None,
    Vgpr,    // reg, count
    Sreg,    // scalar file index (SGPR, vcc, exec, m0, null), count
    Int,     // an inline integer constant (-16..64): imm
    Float,   // an inline float constant: imm indexes kInlineFloats
    Lit,     // a 32-bit literal: imm (its bits)
  };
  Kind kind = None;
  uint8_t count = 1;       // registers (dwords)
  bool neg = false, abs = false;
  uint16_t reg = 0;
  int64_t imm = 0;
};

// The inline float constants in the operand's width.
struct InlineFloat {
  const char* text;  // as LLVM prints it
  uint16_t f16;
  uint32_t f32;
  uint64_t f64;
};
extern const InlineFloat kInlineFloats[];
extern const unsigned kNumInlineFloats;

// The DPP control of a v_mov_b32_dpp: which lane of its 16-lane row each
// lane reads, and which rows and banks (4-lane groups) it writes.
struct Dpp {
  enum Kind : uint8_t { QuadPerm, RowShl, RowShr, RowXmask };
  Kind kind = QuadPerm;
  uint8_t arg = 0;         // quad_perm: 4 selectors of 2 bits; else the shift or mask
  uint8_t row_mask = 0xf, bank_mask = 0xf;
  bool bound_ctrl = false;  // an invalid or disabled source reads 0 (else the lane is not written)
};

// A register range an instruction reads or writes (the waitcnt check).
struct RegUse {
  bool vgpr = false;
  bool write = false;
  uint16_t first = 0;
  uint8_t count = 0;
};

struct Inst {
  Op op = Op::SNop;
  Cond cond = Cond::Scc0;
  Cmp cmp = Cmp::Eq;
  CmpTy ty = CmpTy::I32;
  bool is_signed = false;  // loads: sign-extend
  bool glc = false;        // atomics: return the old value
  bool e32 = false;        // VOP2/VOPC e32 form (vcc implicit where the text omits it)
  bool saddr = false;      // global access: SGPR-pair base (the last operand) + 32-bit VGPR offset
  uint8_t nops = 0;
  uint8_t bytes = 0;       // memory access size per lane
  Opnd ops[6];
  int32_t offset = 0;      // memory: the instruction's immediate offset; ds_swizzle: the pattern
  Dpp dpp;                 // VMovDpp
  uint32_t target = 0;     // branches: instruction index
  uint16_t wait_vm = 0xffff, wait_lgkm = 0xffff, wait_vs = 0xffff;  // 0xffff: no wait
  std::vector<RegUse> uses;
};

struct Kernel {
  std::string name;
  KernelDescriptor kd;
  unsigned wave = 64;
  std::vector<Inst> insts;
  std::vector<uint64_t> offsets;     // per instruction: offset from the entry
  std::vector<std::string> texts;    // per instruction: LLVM's text
};

struct Module {
  const cg::amdgpu::Chip* chip = nullptr;
  unsigned gen = 9;
  std::vector<Kernel> kernels;
};

// Decodes a kernel's instructions (decode.cpp); false with `err` naming the
// instruction it cannot run.
bool decode_kernel(const KernelCode& code, const cg::amdgpu::Chip& chip, Kernel& out, std::string& err);

}  // namespace ptoas::amdgpu_emu
