// Internal to the x86 encoder: the code generator class shared by the Xbyak
// translation units (x86/frame.cpp: frame, control flow, scalars, views;
// x86/elementwise.cpp: tile data movement and tile ops). Nothing else includes it.
//
// Design (docs/x86_backend.md):
//   * every SSA value lives in stack slots (encoders/cpu_frame.h); scalar code
//     loads operands into rax/rcx (xmm0/xmm1), computes, stores;
//   * scf.for / scf.if / scf.while are branches; yields copy through scratch
//     slots;
//   * views are (base, shape, strides) computed at run time;
//   * tile ops are loops over the valid region, one vector of 32-bit lanes
//     at a time: 8 per ymm (avx2) or 16 per zmm (avx512). The ragged tail
//     is masked (vmaskmovps with ymm15, or opmask k1), so masked lanes are
//     never loaded or stored and nothing outside the valid region or a
//     buffer is touched.
//   * one lowering serves both widths: V(i) is ymm i or zmm i, H(i) its
//     lower half, and the few forms that differ (masked moves, compares
//     into masks, blends, gathers, rounding, half extraction) go through
//     the helpers below. Compares give vector masks on both targets
//     (avx512: vpmovm2d), so the lowering never branches on the width.
//
// Registers: rbp frame, r15 tile arena base, r14 constants base; rbx, r12,
// r13 callee-saved scratch; ymm15 (avx2) or k1 (avx512) the tail mask
// inside tile loops; k2 and k7 scratch masks.
#pragma once
#include <xbyak/xbyak.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "tile_geometry.h"
#include "cpu_lowering.h"
#include "tile_alias.h"
#include "tile_plan.h"
#include "loop_stride.h"
#include "cpu_frame.h"
#include "x86.h"

namespace ptoas::cg::x86::gen {

using namespace Xbyak;
using namespace Xbyak::util;

// Constants (rodata()) offsets.
inline constexpr int kMaskTable = 0;   // 8 x 0xffffffff, 8 x 0 (avx2 tail masks)
inline constexpr int kSignF32 = 64;    // 0x80000000
inline constexpr int kAbsF32 = 68;     // 0x7fffffff
inline constexpr int kOneF32 = 72;     // 1.0f
inline constexpr int kNegInfF32 = 76;  // 0xff800000
inline constexpr int kPosInfF32 = 80;  // 0x7f800000
inline constexpr int kIota = 128;      // int32 0..15
inline constexpr int kBitSel = 192;    // int32 1, 2, 4, .., 128 (avx2 mask bits to lanes)
// Vectors of 8 doubles / int64 (64 bytes: a zmm memory operand; avx2 reads
// the first 32): the DConst values of tile_geometry.h.
inline constexpr int kDConstBase = 256;
inline constexpr int dconst(int i) { return kDConstBase + 64 * i; }
// Vectors of 16 floats / int32 (64 bytes): the f32 exp of -O2 (x86/math.cpp).
enum FConst : int {
  kFExpMax, kFExpMin, kFLog2e, kFLn2Hi, kFLn2Lo,
  kFExpC,                  // 8 Taylor coefficients 1/7! .. 1/0!
  kI32Bias = kFExpC + 8,   // int32 127
  kFExpFastMax, kFExpMagic, kFAbsMask,
  kFExpLog2eN,             // exp's fast path (x86/math.cpp): 8 log2e,
  kFLn2NHi, kFLn2NLo,      // ln2 / 8 in two parts,
  kFExpU,                  // u's coefficients of r and r^2 (its r^0 is 1),
  kFExpTable = kFExpU + 2,  // 2^(j/8) less j << 20, j = 0..7, twice (not a splat)
  kFBf16Bias,              // int32 0x7fff: bf16 rounding to nearest even
  kFBf16Quiet,             // the f32 quiet bit
  kFLow8,                  // 0xff
  kFHigh16,                // 0xffff0000: a bf16 value's f32 bits
  kFPickLow16, kFPickHigh16,  // vpshufb: each 128-bit lane's 4 low / high 16-bit halves to its first 8 bytes
  kFWidenBf16,             // vpshufb: 8 bf16 in both 128-bit lanes -> the 8 f32 (avx2 vld_e)
  kFConstCount,
};
inline constexpr int kFConstBase = kDConstBase + 64 * kDConstCount;
inline constexpr int fconst(int i) { return kFConstBase + 64 * i; }
inline constexpr int kRodataBytes = kFConstBase + 64 * kFConstCount;

// Elements j .. j + l - 1 along a row of a tile of type t (j a multiple
// of l) are adjacent in memory; `down`: along a column (x86/layout.cpp).
bool tile_runs(const ptoas::Type& t, int64_t l, bool down);
// Same shape, element size and layout: the same storage, element for element.
bool same_layout(const ptoas::Type& x, const ptoas::Type& y);

// Xbyak's AutoGrow buffer without mprotect: the bytes are copied out and
// never executed from here.
struct PlainAlloc : Allocator {
  bool useProtect() const override { return false; }
};
inline PlainAlloc g_alloc;
// The buffer's first size: Xbyak doubles it from 4 KiB by copying into a
// new one, and a process pays for each fresh heap page it touches (a page
// fault: docs/bench.md); pages of the buffer never written cost nothing.
constexpr size_t kCodeStart = 64 * 1024;

class Gen : public CodeGenerator, public CpuLowering {
 public:
  Gen(const Module& m, InstId fn, const Target& t, const CodegenOptions& o, const FramePlan& p, Diag& d)
      : CodeGenerator(kCodeStart, AutoGrow, &g_alloc), CpuLowering(m, p), m_(m), fn_(fn), tg_(t), opts_(o), p_(p), diag_(d),
        alias_(m, fn), binds_(m, fn), break_tails_(o.test_unmasked_tails), code_limit_(o.code_limit) {}

  bool run(FuncCode& out);

 private:
  const Module& m_;
  InstId fn_;
  const Target& tg_;
  const CodegenOptions& opts_;
  const FramePlan& p_;
  Diag& diag_;
  // Which tiles may share storage, and which allocation a tile operand
  // names (opt/tile_alias.h): fused loops address tiles statically.
  const opt::TileAliases alias_;
  const opt::TileBindings binds_;
  Label epilogue_;
  // Test hook (CodegenOptions::test_unmasked_tails): tail stores write whole
  // vectors, a deliberately broken kernel the Bochs and differential
  // suites must catch.
  bool break_tails_ = false;
  size_t code_limit_ = 0;  // CodegenOptions::code_limit
  std::vector<LineEntry>* lines_ = nullptr;
  bool ok_ = true;
  // Set while a skewed fused region emits a lagging stage: the rows it
  // works behind the newest (fuse_at, x86/fuse.cpp).
  int fuse_lag_ = 0;
  // The tile (and its lag) whose one-column value the last fuse_col_op left
  // in xmm0; kNone outside a run of them.
  ValueId col_held_ = kNone;
  int col_held_lag_ = 0;
  // The register holding each f32-table constant inside a fused loop, or
  // -1 (fk; set and cleared by fused_region).
  std::array<int8_t, kFConstCount> fconst_reg_ = filled_fconst_regs();
  static std::array<int8_t, kFConstCount> filled_fconst_regs() {
    std::array<int8_t, kFConstCount> a;
    a.fill(-1);
    return a;
  }

  // ---- slots ----
  int disp(uint32_t slot) const { return -int(48 + 8 * slot); }
  uint32_t sl(ValueId v, unsigned k = 0) const { return uint32_t(p_.slots[v].first) + k; }
  Address q(ValueId v, unsigned k = 0) { return qword[rbp + disp(sl(v, k))]; }
  Address d32(ValueId v) { return dword[rbp + disp(sl(v))]; }
  Address qs(uint32_t slot) { return qword[rbp + disp(slot)]; }
  const ptoas::Type& ty(ValueId v) const { return m_.type_of(v); }
  ValueId op(const Inst& in, unsigned i) const { return m_.operand(in, i); }

  void fail(const Inst& in, const Refusal& r = {}) override {
    unsupported(m_, in, diag_, tg_, r);
    ok_ = false;
  }

  // ---- vector width (x86/gen.h file comment) ----
  bool z() const { return tg_.variant == 1; }  // avx512 (x86/target.cpp)
  int lanes() const { return z() ? 16 : 8; }
  Xmm V(int i) const { return z() ? Xmm(Zmm(i)) : Xmm(Ymm(i)); }
  Xmm H(int i) const { return z() ? Xmm(Ymm(i)) : Xmm(i); }
  // Vector load / store; `masked`: only the tail lanes (ymm15 / k1).
  void vld(const Xmm& v, const Address& a, bool masked) {
    if (!masked) vmovups(v, a);
    else if (z()) vmovups(v | k1 | T_z, a);
    else vmaskmovps(v, ymm15, a);
  }
  void vst(const Address& a, const Xmm& v, bool masked) {
    if (!masked || break_tails_) vmovups(a, v);
    else if (z()) vmovups(a | k1, v);
    else vmaskmovps(a, ymm15, v);
  }
  // The mask of the first rcx lanes (0 <= rcx <= lanes()); clobbers
  // rcx, rax.
  void tail_mask_rcx() {
    if (z()) {
      mov(eax, -1);
      bzhi(eax, eax, ecx);
      kmovw(k1, eax);
    } else {
      neg(rcx);
      vmovups(ymm15, ptr[r14 + rcx * 4 + (kMaskTable + 32)]);
    }
  }
  // m = (a pred b) per 32-bit / 64-bit lane, as all-ones vector lanes.
  void cmp_ps(const Xmm& m, const Xmm& a, const Operand& b, uint8_t pred) {
    if (!z()) return vcmpps(m, a, b, pred);
    vcmpps(k7, a, b, pred);
    vpmovm2d(m, k7);
  }
  void cmp_pd(const Xmm& m, const Xmm& a, const Operand& b, uint8_t pred) {
    if (!z()) return vcmppd(m, a, b, pred);
    vcmppd(k7, a, b, pred);
    vpmovm2q(m, k7);
  }
  // d = m ? b : a per lane (m a vector mask).
  void blend_ps(const Xmm& d, const Xmm& a, const Xmm& b, const Xmm& m) {
    if (!z()) return vblendvps(d, a, b, m);
    vpmovd2m(k7, m);
    vblendmps(d | k7, a, b);
  }
  void blend_pd(const Xmm& d, const Xmm& a, const Xmm& b, const Xmm& m) {
    if (!z()) return vblendvpd(d, a, b, m);
    vpmovq2m(k7, m);
    vblendmpd(d | k7, a, b);
  }
  void round_pd(const Xmm& d, const Xmm& s) {  // to nearest even, no exception
    if (z()) vrndscalepd(d, s, 8);
    else vroundpd(d, s, 8);
  }
  void extract_hi(const Xmm& h, const Xmm& v) {
    if (z()) vextractf64x4(Ymm(h.getIdx()), Zmm(v.getIdx()), 1);
    else vextractf128(h, Ymm(v.getIdx()), 1);
  }
  void insert_hi(const Xmm& v, const Xmm& h) {
    if (z()) vinsertf64x4(Zmm(v.getIdx()), Zmm(v.getIdx()), Ymm(h.getIdx()), 1);
    else vinsertf128(Ymm(v.getIdx()), Ymm(v.getIdx()), h, 1);
  }
  // d = 32-bit lanes gathered from [base + idx * scale] under the tail mask
  // (the other lanes 0); clobbers ymm14 / k2.
  void gather_ps(const Xmm& d, const Reg64& base, const Xmm& idx, int scale = 4) {
    vxorps(d, d, d);
    if (z()) {
      kmovw(k2, k1);
      vgatherdps(d | k2, ptr[base + Zmm(idx.getIdx()) * scale]);
    } else {
      vmovaps(ymm14, ymm15);
      vgatherdps(d, ptr[base + Ymm(idx.getIdx()) * scale], ymm14);
    }
  }

  // Canonical 64-bit form of an integer of type d in r.
  void canon(const Reg64& r, DType d) {
    switch (d) {
      case DType::I1: and_(r, 1); break;
      case DType::I8: case DType::SI8: movsx(r, r.cvt8()); break;
      case DType::U8: movzx(r.cvt32(), r.cvt8()); break;
      case DType::I16: case DType::SI16: movsx(r, r.cvt16()); break;
      case DType::U16: movzx(r.cvt32(), r.cvt16()); break;
      case DType::I32: case DType::SI32: movsxd(r, r.cvt32()); break;
      case DType::U32: mov(r.cvt32(), r.cvt32()); break;
      default: break;
    }
  }
  // Zero-extension of the low `bits` bits (the unsigned view).
  void zext(const Reg64& r, unsigned bits) {
    if (bits == 1) and_(r, 1);
    else if (bits == 8) movzx(r.cvt32(), r.cvt8());
    else if (bits == 16) movzx(r.cvt32(), r.cvt16());
    else if (bits == 32) mov(r.cvt32(), r.cvt32());
  }

  // Every label position: the scheduler (x86/sched.cpp) never moves code
  // across one.
  std::vector<uint32_t> label_offs_;
  // Byte ranges of hot straight-line code the scheduler reorders; a short
  // one (a load, an op, a store) is not worth decoding.
  std::vector<std::pair<uint32_t, uint32_t>> sched_ranges_;
  void sched_range(const std::function<void()>& emit) {
    uint32_t b = uint32_t(getSize());
    emit();
    if (getSize() - b >= 96) sched_ranges_.push_back({b, uint32_t(getSize())});
  }
  void L(Label& label) {
    label_offs_.push_back(uint32_t(getSize()));
    CodeGenerator::L(label);
  }

  void mark(const Inst& in) override {
    if (getSize() > code_limit_) {
      code_limit_error(m_, fn_, in, diag_, tg_, code_limit_);
      throw CodeLimitReached{};
    }
    uint32_t off = uint32_t(getSize());
    if (!lines_->empty() && lines_->back().offset == off) lines_->back().src_loc = in.loc;
    else lines_->push_back({off, in.loc});
  }

  void prologue();
  // The hooks of the shared driver (lowering.h).
  bool lower_special(const Inst& in, InstId id) override;
  void move_slot(uint32_t from, uint32_t to) override;
  void lower_return(const Inst& in) override;
  struct Ctl {
    Label top, end;
  };
  std::vector<std::unique_ptr<Ctl>> ctl_;  // Labels do not move
  Ctl& open_ctl();
  void close_ctl();
  void begin_for(const Inst& in, ValueId iv) override;
  void end_for(const Inst& in, ValueId iv) override;
  void begin_if(const Inst& in) override;
  void else_if(const Inst& in) override;
  void end_if(const Inst& in) override;
  void begin_while(const Inst& in) override;
  void test_while(const Inst& in, const Inst& cond) override;
  void end_while(const Inst& in) override;
  void scalar(const Inst& in) override;
  void store_imm(ValueId v, unsigned k, int64_t imm) override;
  void store_count(ValueId v, unsigned k, ValueId count, int32_t limit) override;
  void partition_view(const Inst& in, ValueId src, ValueId res, unsigned rank, unsigned es) override;
  void add_ptr(const Inst& in, unsigned es) override;
  void store_valid(ValueId t, unsigned k, ValueId count, int32_t limit) override;
  void subset(const Inst& in, ValueId t, unsigned es) override;
  void scalar_mem(const Inst& in, const ScalarMemPlan& p) override;
  void store_combined(const Inst& in, const StoreCombinePlan& p) override;  // x86/elementwise.cpp
  void treshape(const Inst& in, ValueId src, ValueId dst) override;
  void tcopy(const Inst& in, ValueId t, ValueId v, bool load) override;
  void pad_fill(ValueId t, uint64_t count, unsigned unit, uint32_t bits, bool cover);
  // r8 / r9 capped by rank-2 view v's rows / columns (clobbers rcx).
  void cap_by_view(ValueId v) {
    mov(rcx, q(v, 1));
    cmp(r8, rcx);
    cmovg(r8, rcx);
    mov(rcx, q(v, 2));
    cmp(r9, rcx);
    cmovg(r9, rcx);
  }
  void elementwise(const Inst& in, const EltPlan& pl) override;
  void row_reduce(const Inst& in, ValueId src, ValueId dst) override;
  void row_expand(const Inst& in, const ExpandPlan& pl) override;
  void col_expand(const Inst& in, const ExpandPlan& pl) override;
  void tcvt(const Inst& in, const CvtPlan& pl) override;
  void tcvt_elems(const Inst& in);
  // Boxed (fractal) tiles and cube ops: element offsets through the
  // interpreter's tile_elem_index.
  bool elem_off(const Inst& in, const ptoas::Type& t, const Reg64& r, const Reg64& c);
  void grid_loop(const std::function<bool()>& body);  // r13 < r8 rows x rsi < r9 columns
  // 2-D copies between any layouts (x86/layout.cpp): one side of a copy is a
  // tile or a view (of rank 1 .. kMaxViewRank); a tile's rows (columns)
  // are indexed from the scalar row0 (col0) on, when set (textract /
  // tinsert windows).
  struct CopySide {
    ValueId v;
    bool view;
    ValueId row0 = kNone, col0 = kNone;
  };
  void tcopy_boxed(const Inst& in, ValueId t, ValueId v, bool load);
  void tcopy_views(const Inst& in, ValueId t, ValueId v, bool load);  // ranks other than tcopy's
  void view_row_table(ValueId v, unsigned rank, int off);
  void tmov(const Inst& in, ValueId s, ValueId d) override;
  void copy_grid(const Inst& in, const CopySide (&side)[2], unsigned es, int64_t max_rows, int64_t max_cols);
  int run_bytes(const CopySide (&side)[2], unsigned es, bool down) const;
  void stack_scratch(uint32_t bytes);  // rsp -= bytes, each page touched (clobbers rax)
  void ttri(const Inst& in, ValueId d, bool upper) override;
  void tci(const Inst& in, unsigned es, bool desc) override;
  void tgather(const Inst& in, const GatherPlan& p) override;  // x86/move.cpp
  void matmul(const Inst& in, const MatmulPlan& pl) override;
  // tmatmul lowerings (x86/matmul.cpp): register-blocked micro-kernels over
  // operands packed into scratch below rsp (false: the scratch would exceed
  // kMaxTileArenaBytes, nothing emitted), else one vector of columns at a
  // time through gathers. Both expect r8 = m, r9 = n, r10 = k.
  struct MmOps {
    ValueId a, b, c, cin, bias;
    DType ae;
    bool i32;
  };
  static MmOps mm_ops(const MatmulPlan& pl) { return {pl.a, pl.b, pl.c, pl.cin, pl.bias, pl.ae, pl.i32}; }
  // matmul_blocked's plan: the register blocking (mr x nr outputs per
  // micro-kernel), which operand is read in place (A: rows si apart, k
  // steps sk; B: rows sb apart), and the scratch below rsp (byte offsets,
  // `size` in all).
  struct MmBlocking {
    int mr, nr, rem_s;
    int64_t si, sk, sb, size, micro_tiles;
    int64_t kg;  // direct A whose k values come in runs of 8 (NZ): bytes from run to run; else 0
    bool direct, direct_b, tr, trb, pc, pi, pz, cin_own;
    bool widen;  // 16-bit float A widened into scratch (o_aw) as an f32 tile, then read in place
    int o_aw, o_ap, o_bp, o_ra, o_ca, o_rb, o_cb, o_rc, o_cc, o_ri, o_ci, o_cz, o_sp, o_row, o_st, o_pf;
  };
  bool mm_blocking(const MmOps& o, MmBlocking& bl) const;  // false: the scratch would not fit
  // Bytes from a B column run of LN / 2 to the next (avx512 f32 B whose
  // columns lie in runs of 8, evenly spaced: an NZ mat tile), which the
  // packing copies as two halves of a vector; 0 where it does not.
  int64_t mm_b_halves(const ptoas::Type& bt) const;
  bool matmul_blocked(const Inst& in, const MmOps& o);
  // GEMM operands in GM (x86/gemm_io.cpp). tloads whose tile only a
  // following tmatmul reads: by tmatmul, the tloads it may read in place;
  // and all those tloads, sorted.
  std::map<InstId, std::vector<InstId>> mm_loads_;
  std::vector<InstId> mm_elided_;
  std::map<ValueId, int> tile_uses(bool& addr) const;
  bool slot_may_take_view(ValueId t, ValueId v) const;
  void unless_tile_layout(ValueId v, const ptoas::Type& tt, bool exact, Label& no);
  void plan_mm_loads(std::map<ValueId, int>& uses);
  // tmovs whose tile only the tmatmul after them reads, from a tile of
  // the same shape, type and whole valid region: by tmatmul, the operand
  // tiles it reads from the tmov's source instead (the tmov is elided,
  // in mm_elided_).
  std::map<const Inst*, std::vector<std::pair<ValueId, ValueId>>> mm_movs_;
  void plan_mm_movs(std::map<ValueId, int>& uses);
  // A tmov of a tmatmul's C, right after it, into a tile of the same shape
  // and type: by tmatmul, the tile it writes instead (the tmov elided).
  std::map<const Inst*, ValueId> mm_c_;
  void plan_mm_c(const Region& r, unsigned j, const MatmulPlan& pl,
                 const std::vector<std::pair<ValueId, ValueId>>& fwd, std::map<ValueId, int>& uses);
  bool mm_whole(ValueId v) const;              // every element valid, its own arena allocation
  bool mm_apart(ValueId w, ValueId v) const;   // all tile w may name clear of whole tile v's bytes
  void matmul_in_place(const Inst& in, const std::vector<InstId>& loads);
  // Operand tiles of the tmatmul being emitted whose slot may point into
  // their tload's view at its own row stride (matmul_in_place), with the
  // view; matmul_blocked reads their rows that far apart.
  std::vector<std::pair<ValueId, ValueId>> mm_strided_;
  ValueId mm_strided_view(ValueId t) const;
  // Operand tiles of the tmatmul being emitted whose tload's view moves
  // by a constant multiple of the innermost loop's step each iteration
  // (LoopStride, c: per dimension): matmul_blocked fetches the next
  // iteration's block into the cache while it computes, per rows each
  // micro-tile (o: MmBlocking::o_pf, 24 bytes each).
  struct MmPrefetch {
    ValueId t, v;
    int64_t c[2];
    int per;
  };
  std::vector<MmPrefetch> mm_pf_;
  // The innermost loop's LoopStride, made once per loop rather than per
  // operand.
  std::optional<LoopStride> loop_stride_;
  const LoopStride& loop_stride();
  void mm_prefetch_setup(int o);
  void mm_prefetch_step(int o);
  void unless_strided_view(ValueId v, const ptoas::Type& tt, Label& no);
  // A tile that tmatmuls fill for one tstore: its view, the instructions
  // after the first tmatmul that make the view (emitted early too), and
  // the other tensor views GM is reached through in between. By first
  // tmatmul, and the tstores' tiles.
  struct AccStore {
    ValueId t, v;
    std::vector<InstId> early;
    std::vector<ValueId> roots;
  };
  std::map<InstId, AccStore> acc_first_;
  std::map<InstId, ValueId> acc_store_;
  void plan_acc_stores(std::map<ValueId, int>& uses);
  void acc_redirect(const Inst& in, const AccStore& a);
  void acc_tstore(const Inst& in, ValueId t);
  void matmul_gather(const Inst& in, const MmOps& o);
  // `dyn_stride` >= 0: the rows of the unboxed row-major t are the qword
  // at rsp + dyn_stride bytes apart (a tile read in place, mm_strided_).
  void mm_table(const Inst& in, const ptoas::Type& t, bool rows, const Reg64& count, int off, ValueId start = kNone,
                int dyn_stride = -1);
  void transpose8x8(bool even_in_9, const std::function<void(int, const Ymm&)>& put);
  void mm_widen(DType e, const Xmm& v);  // gathered dwords (element in the low bits) -> 32-bit lanes
  void mm_scatter(const Xmm& v, const Xmm& idx, const Reg64* count);  // to rax + idx (count: avx2 lanes)
  bool tile_type_ok(const Inst& in, ValueId v, bool movement);
  TileGeo geo(ValueId t) const { return tile_geo(ty(t)); }
  // Loads lanes() elements of d at e as 32-bit lanes (avx2 narrow tails
  // read the whole vector: only used on tiles, inside the arena).
  // few_loads: bf16 on avx2 by vpmovzxwd + vpslld, one load (the GEMM's
  // packing loops, bound by loads and stores), not vbroadcasti128 + vpshufb.
  void vld_e(DType d, const Xmm& v, const RegExp& e, bool masked, bool few_loads = false);
  // Stores the 32-bit lanes of v as d at e, rounding f32 to f16 / bf16 to
  // nearest even, truncating integers (clobbers V12-V14, rbx, rcx). The
  // masked tail has `*count` elements, or r9 - rax (row_loop's).
  // exact: bf16 lanes already hold bf16 values (stored as their top
  // halves, not rounded again). nt: a whole vector of 4- or 2-byte
  // elements is stored non-temporally (a masked tail never is).
  void vst_e(DType d, const RegExp& e, const Xmm& v, bool masked, const Reg64* count = nullptr, bool exact = false,
             bool nt = false);
  void bcast_e(DType d, const Xmm& v, const RegExp& e);  // one element to every lane (clobbers ecx, xmm13)
  void vlogic(Bin k, const Xmm& d, const Xmm& a, const Operand& b);  // and / or / xor, either width
  void varith(Bin k, const Xmm& d, const Xmm& a, const Operand& b);  // f32 add / sub / mul / div
  void bin(Bin k, DType d);           // V0 = V0 op V1 in d's lane class
  void elt_lanes(Op o, DType d);      // V0 = o(V0, V1): elementwise()'s loop body (x86/elementwise.cpp)
  void math(Op o);                    // V0 = exp / log / rsqrt (V0), f32
  void idiv_lanes();                  // V0 = V0 / V1, i32 lanes (V8-V11 scratch)
  void pow_ps();                      // V0 = pow(V0, V1), f32 (x86/math.cpp)
  void exp_pd(const Xmm& x);          // doubles in place (V10-13 scratch)
  void exp_ps_fast();                 // V0 = exp(V0) in f32 arithmetic, <= 2 ULP (V8-V13, k6, k7 scratch)
  void exp_ps_general();              // the same for every input (V8-V12 scratch)
  void log_pd(const Xmm& x);
  Address dc(int i) { return ptr[r14 + dconst(i)]; }
  Address fc(int i) { return ptr[r14 + fconst(i)]; }
  // A constant of the f32 table as the last operand of a full-width op:
  // the register a fused loop holds it in (fuse_hold_consts), else its
  // memory. Zen 4 loads one zmm a cycle, and exp's fast path reads 14
  // constants for each vector it computes.
  struct FConstOperand {
    Address mem;
    Xmm reg;
    bool held;
    operator const Operand&() const { return held ? static_cast<const Operand&>(reg) : mem; }
  };
  FConstOperand fk(int i) {
    int r = i >= 0 && i < kFConstCount ? fconst_reg_[size_t(i)] : -1;
    return {fc(i), V(r < 0 ? 0 : r), r >= 0};
  }
  void fk_load(const Xmm& v, int i) {  // v = constant i, from its register or memory
    FConstOperand k = fk(i);
    if (k.held) vmovaps(v, k.reg);
    else vmovups(v, k.mem);
  }
  // Constants held in V(lo) .. V(hi) loaded again, after code that used
  // those registers as scratch.
  void reload_held_consts(int lo, int hi) {
    for (int i = 0; i < kFConstCount; ++i)
      if (int r = fconst_reg_[size_t(i)]; r >= lo && r <= hi) vmovups(V(r), fc(i));
  }
  // r = min(r, cap), signed; clobbers rcx (or, for r = rcx, nothing).
  void clamp(const Reg64& r, int64_t cap) {
    if (r.getIdx() == rcx.getIdx()) {
      push(rdx);
      mov(rdx, cap);
      cmp(rcx, rdx);
      cmovg(rcx, rdx);
      pop(rdx);
      return;
    }
    mov(rcx, cap);
    cmp(r, rcx);
    cmovg(r, rcx);
  }
  // r8 x r9: tile t's valid rows x columns, capped at cap_r x cap_c (the
  // extent of most tile loops; SVE's twin is valid_region). Clobbers rcx.
  void valid_rc(ValueId t, int64_t cap_r, int64_t cap_c) {
    mov(r8, q(t, 1));
    mov(r9, q(t, 2));
    clamp(r8, cap_r);
    clamp(r9, cap_c);
  }

  void tile_ptr(const Reg64& r, ValueId t) {
    mov(r, q(t, 0));
    add(r, r15);
  }
  // Row loop over r8 rows x r9 cols (see the file comment). `ptrs` are the
  // row pointer registers, advanced by `strides` (an immediate byte count,
  // or a register).
  struct Stride {
    const Reg64* reg;
    int64_t imm;
  };
  // `body4` (optional): four vectors a step, at rax + disp + u lanes
  // (u = 0..3), while they last; `body` then takes the rest.
  void row_loop(const std::vector<Reg64>& ptrs, const std::vector<Stride>& strides,
                const std::function<void(bool)>& body, const std::function<void(int disp)>& body4 = {});
  void vec_bounds(Label& done);  // the row_loop prologue: empty region -> done; r13, tail mask
  // One row's columns: rax = 0, lanes(), .. below r13 (body(false)), then
  // the masked tail below r9 (body(true)); with `body4`, four vectors a step
  // first (body4(disp): rax + disp is the first of them, in elements).
  void vec_loop(const std::function<void(bool)>& body, const std::function<void(int disp)>& body4 = {});
  // `region`: the tile whose valid region is iterated (default dst).
  bool elem_loop(const Inst& in, ValueId dst, const std::vector<ValueId>& tiles, std::vector<Reg64>& ptrs,
                 std::vector<Stride>& strides, ValueId region = kNone);
  // Fused multi-term ops (taddc, tsubc, taddsc, tsubsc, tmuladddst,
  // tfusedmuladd(relu), tsubrelu, tlrelu, tprelu, taxpy) and column
  // reductions (tcolsum / tcolmax / tcolmin / tcolprod).
  void fused(const Inst& in, const FusedPlan& pl) override;
  void col_reduce(const Inst& in, ValueId src, ValueId dst) override;
  // A pto.fuse region as one loop nest (x86/fuse.cpp); false: not taken,
  // the caller lowers the body op by op.
  bool fused_region(const Inst& in) override;
  struct Fuse;                                          // the region's plan (x86/fuse.cpp)
  bool fuse_plan(const Inst& in, Fuse& f);              // false: a body op or tile it does not take
  bool fuse_stage_regs(Fuse& f, size_t s);              // registers and dead stores of stage s
  bool fuse_remat(Fuse& f);                             // the chunks later stages recompute (false: none)
  // V0 = a chain's chunk (in stage si >= 0: with the one-column tiles it
  // holds; quiet_use: its readers quiet a signalling NaN themselves)
  void fuse_recompute(const Fuse& f, const std::vector<size_t>& chain, bool masked, int si, bool quiet_use);
  void fuse_guard(const Fuse& f, Label& slow);          // run-time shapes and overlaps; R x C in r8 x r9
  void fuse_nt_check(const Fuse& f, Label& nt);         // every tstore may stream (non-temporal)
  bool fuse_nt_views(const Fuse& f);                    // any tstore (the streaming loop exists)
  void fuse_rows(const Fuse& f, bool nt);               // the loop nest over the rows
  void fuse_hold_consts(const Fuse& f);                 // constants into zmm the plan leaves free (fk)
  bool fuse_has_elem(const Fuse& f, bool (*pred)(DType)) const;  // a tile or view of that element type
  bool fuse_heavy_ = false;  // the region's elements take an exp / log or a 16-bit conversion (fuse_prefetch)
  void fuse_col_op(const Fuse& f, size_t i);            // an op on one-column tiles, once per row
  // One column vector of stage s (odd: into the second accumulators).
  void fuse_chunk(const Fuse& f, size_t s, bool masked, bool nt, bool odd = false);
  void fuse_finish(const Fuse& f, size_t s);            // stage s's row reductions
  std::vector<int> fuse_seq_scratch(const Fuse& f, size_t s, size_t n);  // free for stage s's reduction n
  RegExp fuse_at(const Fuse& f, ValueId t, bool vec);   // tile t's element (vec: at column rax) of this row
  // Lanes of f32 / f16 / bf16 at e (view: a GM row, its tail read exactly);
  // stores of lanes that hold values of d exactly (x86/fuse.cpp).
  void fuse_ld(DType d, const Xmm& v, const RegExp& e, bool masked, bool view);
  void fuse_prefetch(const Fuse& f, ValueId view, bool masked, bool nt, bool odd);
  void fuse_st(DType d, const RegExp& e, const Xmm& v, bool masked, bool nt = false);
  // tcmp / tcmps into the canonical bit mask; tsel / tsels from it
  // (docs/semantics.md §5).
  void tcmp(const Inst& in, const CmpPlan& pl) override;
  void tsel(const Inst& in, const SelPlan& pl) override;
  void tfillpad(const Inst& in) override;
  void twindow(const Inst& in, const WindowPlan& p) override;                   // textract / tinsert
  void twindow_boxed(const Inst& in, const WindowPlan& p);  // either tile boxed (x86/move.cpp)
  void ttrans(const Inst& in) override;
  void tconcat(const Inst& in) override;
  // f32 lanes rounded to f16 / bf16 and back (else nothing). Not exact: a
  // bf16 lane's low 16 bits are left as they are, for a value that is only
  // stored (its top half).
  void round_lane(DType d, const Xmm& v, bool exact = true);
  Xmm bf16_bits(const Xmm& v);             // f32 lanes -> bf16 bits in the high halves, rounded (V12-V14), in the register returned
  // The interpreter's NaN rule; scratch V(t), V(m), V(o) (default V2, V4, V5).
  void minmax_step(bool mx, const Xmm& acc, const Xmm& x, int t = 2, int m = 4, int o = 5);
};

// The bits of an element type as 32-bit lanes (copies never convert).
inline DType bits_type(DType d) {
  unsigned es = dtype_bytes(d);
  return es == 4 ? DType::U32 : es == 2 ? DType::U16 : DType::U8;
}


}  // namespace ptoas::cg::x86::gen

// Inside a row_loop body of an op with element type `d` (size `es`): one
// vector at element rax of the row at p, masked in the tail.
#define LD(y, p) vld_e(d, y, p + rax * int(es), masked)
#define ST(p, y) vst_e(d, p + rax * int(es), y, masked)

// Constants the element loops keep in registers: V3 -0.0, V4 abs mask,
// V5 1.0, V6 0.
#define LOOP_CONSTANTS()                          \
  do {                                            \
    vbroadcastss(V(3), dword[r14 + kSignF32]);    \
    vbroadcastss(V(4), dword[r14 + kAbsF32]);     \
    vbroadcastss(V(5), dword[r14 + kOneF32]);     \
    vxorps(V(6), V(6), V(6));                     \
  } while (0)

