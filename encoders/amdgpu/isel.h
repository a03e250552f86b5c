// Instruction selection: one PTX entry (as the ptx generator writes it,
// decoded by ptoptx) -> GCN machine IR on virtual registers
// (docs/amdgpu_backend.md). Every PTX register is a VGPR (a pair for 64
// bits): the PTX code computes its scalars in every thread alike, and a
// VGPR keeps each lane's own value through divergence as a PTX register
// does. A predicate is a lane mask in SGPRs.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "chip.h"
#include "mir.h"
#include "ptx/ir.h"

namespace ptoas::cg::amdgpu {

// `ptx::` in this backend is the PTX ptoptx decodes, not the PTX generator
// (ptoas::cg::ptx), which a build of the library as one unit also sees.
namespace ptx = ::ptoas::ptx;

// Where the kernel's inputs are, for the kernarg segment and metadata.
struct KernelAbi {
  uint32_t explicit_bytes = 0;  // the PTX parameters
  uint32_t block_count_off = 0;  // hidden_block_count_x
  uint32_t kernarg_bytes = 0;
  uint32_t lds_bytes = 0;
  unsigned workgroup = 256;
  // Tiles past the chip's LDS live in global memory (docs/amdgpu_backend.md,
  // "Tiles past the LDS"): bytes per workgroup (0: none) and the kernarg
  // offset of the buffer's pointer, after the hidden block count.
  uint32_t tile_scratch_bytes = 0;
  uint32_t tile_scratch_off = 0;
};

// The most global memory one workgroup's tiles may take.
inline constexpr uint32_t kMaxTileScratch = 16u << 20;

struct IselError {
  std::string msg;
  uint32_t inst = ~0u;  // the PTX instruction (index in Entry::code), ~0u: none
  bool limit = false;   // a limit of the chip ([limit]), else an unsupported instruction
};

// An integer operand as the assembler takes it: an inline constant in
// decimal, anything else a hex literal.
std::string hex(uint64_t v);
std::string int_text(uint32_t bits);

bool select_entry(const Chip& chip, const ptx::Module& pm, const ptx::Entry& e, MFunc& f, KernelAbi& abi,
                  IselError& err);

class Isel {
 public:
  Isel(const Chip& c, const ptx::Module& pm, const ptx::Entry& e, MFunc& f);
  bool run(KernelAbi& abi, IselError& err);

  // ---- operands ----
  uint32_t vnew(RegFile file, unsigned dwords);
  uint32_t v32() { return vnew(RegFile::V, 1); }
  uint32_t v64() { return vnew(RegFile::V, 2); }
  uint32_t mask() { return vnew(RegFile::S, wave64_ ? 2 : 1); }
  static MOp D(uint32_t r, uint8_t part = 0xff) { return reg_op(r, part, false, true); }
  static MOp U(uint32_t r, uint8_t part = 0xff, uint8_t mod = 0) {
    MOp o = reg_op(r, part, true, false);
    o.mod = mod;
    return o;
  }
  static MOp DU(uint32_t r, uint8_t part = 0xff) { return reg_op(r, part, true, true); }
  static MOp T(std::string s) {
    MOp o;
    o.text = std::move(s);
    return o;
  }
  static MOp reg_op(uint32_t r, uint8_t part, bool use, bool def);
  void I(std::string_view op, std::initializer_list<MOp> ops, std::string tail = {});
  // The chip's spelling of a gfx9 mnemonic (gfx11 renamed many).
  std::string mn(std::string_view gfx9) const;
  std::string vcc() const { return wave64_ ? "vcc" : "vcc_lo"; }
  // The cache-policy bit that makes an atomic return the old value.
  const char* returns_old() const { return chip_.gfx940 ? "sc0" : "glc"; }
  std::string exec() const { return wave64_ ? "exec" : "exec_lo"; }
  std::string mask_op(std::string_view base) const { return std::string(base) + (wave64_ ? "_b64" : "_b32"); }

  // A 32-bit immediate as an operand: inline when it can be, else a VGPR.
  MOp imm32(uint32_t bits, bool float_op);
  uint32_t const32(uint32_t bits);  // a VGPR holding bits
  // PTX operands (registers, immediates, special registers) as VGPRs:
  // a 32-bit source (the low dword of a 64-bit register), a 64-bit one.
  MOp src32(const ptx::Opnd& o, bool float_op = false);
  uint32_t src32v(const ptx::Opnd& o);     // always a VGPR
  uint32_t src64(const ptx::Opnd& o);      // a VGPR pair
  uint32_t dst(const ptx::Opnd& o);        // the register written
  uint32_t pred(uint32_t p);               // a PTX predicate's mask
  const ptx::Opnd& opnd(const ptx::Inst& in, unsigned k) const { return e_.ops[in.op0 + k]; }
  unsigned reg_bits(const ptx::Opnd& o) const { return e_.reg_bits[o.reg]; }

  // ---- selection (isel_ops.cpp, isel_mem.cpp, isel_flow.cpp) ----
  bool inst(const ptx::Inst& in, uint32_t idx);
  bool int_op(const ptx::Inst& in);
  bool int64_op(const ptx::Inst& in);
  bool float_op(const ptx::Inst& in);
  bool f64_op(const ptx::Inst& in);
  bool setp(const ptx::Inst& in);
  bool selp(const ptx::Inst& in);
  bool cvt(const ptx::Inst& in);
  bool cvt_f32_to_64(const ptx::Inst& in, uint32_t d);
  bool mov(const ptx::Inst& in);
  bool load(const ptx::Inst& in);
  bool store(const ptx::Inst& in);
  bool atom(const ptx::Inst& in);
  bool shfl(const ptx::Inst& in);
  bool wave_mma(const ptx::Inst& in);  // isel_matrix.cpp
  const char* matrix_op(bool bf16) const;
  bool dpp_butterfly(uint32_t d, uint32_t a, unsigned xmask);
  bool cp_async(const ptx::Inst& in);
  bool special(const ptx::Opnd& o, uint32_t d);
  void udivrem32(uint32_t n, uint32_t d, uint32_t q, uint32_t r);
  void udivrem64(uint32_t n, uint32_t d, uint32_t q, uint32_t r);
  void add64(uint32_t d, uint32_t a, uint32_t b);
  void sub64(uint32_t d, uint32_t a, uint32_t b);
  void mul64(uint32_t d, uint32_t a, uint32_t b);
  void neg64(uint32_t d, uint32_t a);
  uint32_t cmp_mask(std::string_view cmp, const char* ty, MOp a, MOp b);
  uint32_t fdiv32(uint32_t a, uint32_t b);
  uint32_t fsqrt32(uint32_t a);
  uint32_t fsqrt64(uint32_t x);
  uint32_t newton_rcp64(uint32_t b);
  uint32_t goldschmidt_sqrt64(uint32_t x, int corrections);
  uint32_t frcp64(uint32_t b, uint32_t num);
  void address(const ptx::Opnd& a, uint32_t& vaddr, int64_t& off, bool shared);
  bool mem_address(const ptx::Inst& in, const ptx::Opnd& a, bool& shared, uint32_t& va, int64_t& off);
  void mem_inst(const char* g9, const char* ds, bool shared, bool load, MOp data, uint32_t va, int64_t off);

  // ---- control flow (isel_flow.cpp) ----
  void plan_labels();
  void branch(const ptx::Inst& in, uint32_t idx);
  void bind_label(uint32_t idx);
  void skip_to_next_wait(uint32_t idx);
  int32_t next_stop(uint32_t idx, bool here);
  void ret(const ptx::Inst& in, uint32_t idx);
  int32_t label_of(uint32_t ptx_idx);  // the MIR label at PTX instruction ptx_idx
  void guard_begin(const ptx::Inst& in);
  void guard_end();

  const Chip& chip_;
  const ptx::Module& pm_;
  const ptx::Entry& e_;
  MFunc& f_;
  bool wave64_;
  std::vector<uint32_t> regs_;   // PTX register -> vreg (0: not made yet)
  std::vector<uint32_t> preds_;  // PTX predicate -> mask vreg
  std::vector<uint32_t> pred_defs_;  // PTX predicate -> how many instructions write it
  // Labels: PTX instruction index -> MIR label, and which are wait labels
  // (lanes may wait there) with their masks.
  std::vector<int32_t> label_at_;
  std::vector<uint8_t> wait_label_;
  std::vector<uint32_t> wait_mask_;   // by PTX instruction index (0: none)
  std::vector<int32_t> landing_;      // where wait masks are cleared (-1: none)
  std::vector<std::vector<uint32_t>> inits_;  // the wait labels cleared there
  int32_t end_label_ = -1;
  int32_t nlabels_ = 0;
  uint32_t saved_exec_ = 0;  // the open guard's saved EXEC
  uint32_t kernarg_ = 0;     // the PTX parameter offset -> kernarg offset: the same
  // Shared memory in global memory: the SGPR pair holding this workgroup's
  // slice (the `saddr` of every former LDS access); empty: LDS.
  std::string tile_base_;
  void tile_scratch_prologue();
  KernelAbi abi_;
  IselError err_;
  uint32_t cur_ = 0;
};

}  // namespace ptoas::cg::amdgpu
