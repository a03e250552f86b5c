// The PTX code generator (docs/ptx_backend.md): one `.entry` of PTX text per
// function, written directly (no LLVM NVPTX), through the shared lowering
// driver (lowering.h). A PTO block is a CUDA thread block of kThreads
// threads; scalars are computed by every thread alike (so control flow is
// uniform and bar.sync may sit anywhere), tiles live in static shared
// memory or, inside a row program (row.cpp), in registers.
//
// Values are PTX virtual registers (ptxas allocates them):
//   integer, index and i1 scalars   one .b64, canonical (sign-extended for
//                                   signed types and index, zero-extended
//                                   for unsigned ones, 0/1 for i1)
//   f32 (and f16 / bf16) scalars    one .f32 (f16 / bf16: the exact value)
//   f64 scalars                     one .f64
//   !pto.ptr                        one .b64 global address
//   views of rank n                 1 + 2n .b64: base address, shape, strides
//   tiles                           3 .b32: shared address, valid rows, valid cols
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "codegen.h"
#include "lowering.h"
#include "tile_alias.h"
#include "tile_plan.h"
#include <memory>

namespace ptoas::cg::ptx {

// ---- targets ---------------------------------------------------------------------
struct GpuArch {
  std::string_view name;     // sm_80 .. sm_120
  unsigned sm;               // 80 .. 120
  bool specific;             // sm_90a: arch-specific features, runs only on sm_90
  unsigned min_version;      // the lowest .version ptxas 13 accepts for it (x10: 70 = 7.0)
  uint32_t max_smem;         // the most shared memory one block may opt into (dynamic)
};
const GpuArch* find_arch(std::string_view name);
const GpuArch& default_arch();
std::string arch_names();  // "sm_80, sm_86, ..."

// The block: kWarps warps of 32 threads (`.reqntid kThreads, 1, 1`).
inline constexpr unsigned kWarps = 8;
inline constexpr unsigned kThreads = kWarps * 32;
// Static shared memory of one entry (no opt-in); above it, the entry's
// tiles are dynamic shared memory up to the arch's max_smem
// (PTX_CONTRACT.md: the size is announced above the entry).
inline constexpr uint32_t kMaxSharedBytes = 48 * 1024;

// ---- registers and operands --------------------------------------------------------
enum class RC : uint8_t { P, H, R, RD, F, FD };  // .pred .b16 .b32 .b64 .f32 .f64
inline constexpr unsigned kRcCount = 6;
struct Reg {
  RC c = RC::R;
  uint32_t n = 0;  // 0: none
  explicit operator bool() const { return n != 0; }
  bool operator==(const Reg& o) const { return c == o.c && n == o.n; }
  bool operator<(const Reg& o) const { return c != o.c ? c < o.c : n < o.n; }
};
std::string rname(Reg r);
// An operand as text: a register, an integer, or text made by the helpers below.
struct O {
  std::string s;
  O(Reg r) : s(rname(r)) {}
  O(int v) : s(std::to_string(v)) {}
  O(unsigned v) : s(std::to_string(v)) {}
  O(long v) : s(std::to_string(v)) {}
  O(unsigned long v) : s(std::to_string(v)) {}
  O(long long v) : s(std::to_string(v)) {}
  O(unsigned long long v) : s(std::to_string(v)) {}
  O(const char* t) : s(t) {}
  O(std::string t) : s(std::move(t)) {}
};
std::string f32imm(uint32_t bits);   // 0fXXXXXXXX
std::string f64imm(uint64_t bits);   // 0dXXXXXXXXXXXXXXXX
std::string fimm(float v);
std::string mem(Reg base, int64_t off = 0);  // [%r+off]
std::string vec(const std::vector<Reg>& rs);  // {%f1, %f2}

// What one value of the function is (see the file comment).
struct Val {
  std::vector<Reg> r;
  int64_t off = -1;  // tiles: the static shared offset when known, else -1
};

// The shared memory of one function: each alloc_tile's offset (kNone: the
// tile lives in registers only, or was refused) and the total.
struct SmemPlan {
  std::vector<uint32_t> off;  // by InstId
  uint32_t bytes = 0;
  uint32_t red_off = 0, red_bytes = 0;  // scratch of cross-warp reductions
};

// A tile's elements in shared memory: byte address of (r, c) is
// base + r * rs + c * cs (unboxed tiles).
struct Geo {
  int64_t rs = 0, cs = 0;
  unsigned es = 0;
  int32_t rows = 0, cols = 0;
};

// One access of a tile op to shared memory since the last barrier, for the
// barrier planner (barrier.cpp): a byte range, whether it writes, and the
// signature of which thread touches which byte: two accesses with the same
// nonzero signature touch each byte from the same warp.
struct Access {
  int64_t lo = 0, hi = 0;  // [lo, hi); lo = 0, hi = INT64_MAX: unknown
  bool write = false;
  uint8_t space = 0;   // 0 shared, 1 global
  uint64_t sig = 0;    // 0: no known owner mapping
  unsigned lanes = 0;  // the lane mapping within the warp (same sig, other lanes: bar.warp.sync)
};

class Gen final : public Lowering {
 public:
  Gen(const Module& m, InstId fn, const Target& t, const CodegenOptions& o, Diag& d, const GpuArch& arch);
  bool run(FuncCode& out);

  // ---- text -------------------------------------------------------------------
  Reg reg(RC c);
  void emit(const std::string& s);  // one line, indented
  template <class... A>
  void I(std::string_view op, const A&... a) {
    std::string s(op);
    join(s, a...);
    emit(s + ";");
  }
  template <class... A>
  void IP(Reg p, bool neg, std::string_view op, const A&... a) {
    std::string s = std::string("@") + (neg ? "!" : "") + rname(p) + " " + std::string(op);
    join(s, a...);
    emit(s + ";");
  }
  std::string new_label();
  void bind(const std::string& l);
  void bra(const std::string& l) { I("bra.uni", l); }
  void bra_if(Reg p, bool neg, const std::string& l) { IP(p, neg, "bra", l); }
  // Where emit() writes: the body, or a hoisted prologue (row.cpp).
  std::string* out_ = nullptr;
  void need_version(unsigned v) { version_ = std::max(version_, v); }

  // Immediates into registers.
  Reg imm64(int64_t v);
  Reg imm32(int64_t v);
  Reg immf(uint32_t bits);

  const Module& m_;
  const InstId fn_;
  const Target& t_;
  const CodegenOptions& o_;
  Diag& d_;
  const GpuArch& arch_;

 private:
  template <class T0, class... A>
  static void join(std::string& s, const T0& a0, const A&... a) {
    s += " " + O(a0).s;
    ((s += ", " + O(a).s), ...);
  }
  static void join(std::string&) {}

  // ---- the driver's hooks (lowering.h) ----------------------------------------
 public:
  bool lower_special(const Inst& in, InstId id) override;
  void mark(const Inst& in) override;
  void fail(const Inst& in, const Refusal& r = {}) override;
  void copy_values(const std::vector<ValueId>& from, const std::vector<ValueId>& to) override;
  void lower_return(const Inst& in) override;
  void begin_for(const Inst& in, ValueId iv) override;
  void end_for(const Inst& in, ValueId iv) override;
  void begin_if(const Inst& in) override;
  void else_if(const Inst& in) override;
  void end_if(const Inst& in) override;
  void begin_while(const Inst& in) override;
  void test_while(const Inst& in, const Inst& cond) override;
  void end_while(const Inst& in) override;
  bool fused_region(const Inst& in) override;
  void scalar(const Inst& in) override;
  void view(const Inst& in) override;
  void alloc(const Inst& in, InstId id) override;
  void tcopy(const Inst& in, ValueId tile, ValueId view, bool load) override;
  void row_reduce(const Inst& in) override;
  void col_reduce(const Inst& in) override;
  void tfillpad(const Inst& in) override;
  void twindow(const Inst& in) override;
  void ttrans(const Inst& in) override;
  void tconcat(const Inst& in) override;
  void treshape(const Inst& in, ValueId src, ValueId dst) override;
  void tcmp(const Inst& in) override;
  void tsel(const Inst& in) override;
  void fused(const Inst& in) override;
  void tcvt(const Inst& in) override;
  void tmov(const Inst& in) override;
  void ttri(const Inst& in) override;
  void tci(const Inst& in) override;
  void tgather(const Inst& in) override;
  void tstore_combined(const Inst& in, ValueId t, ValueId v, bool relu, bool atomic) override;
  void twindow_plan(const Inst& in, const WindowPlan& p);
  void copy_window(const Inst& at, ValueId w, const WindowPlan& p) override;
  bool window_view(const Inst& in) override;
  void matmul(const Inst& in) override;
  void row_expand(const Inst& in) override;
  void col_expand(const Inst& in) override;
  void elementwise(const Inst& in) override;

 public:
  void refuse(const Inst& in, const Refusal& r);
  // ---- values (scalar.cpp) -------------------------------------------------------
  Val& val(ValueId v);          // the value's registers (made on first use)
  Reg sreg(ValueId v) { return val(v).r[0]; }
  bool has_regs(const Type& t) const;
  const Type& ty(ValueId v) const { return m_.type_of(v); }
  ValueId op(const Inst& in, unsigned k) const { return m_.operand(in, k); }
  void canon(Reg x, DType d);   // a 64-bit integer made canonical for d
  void scalar_float(const Inst& in);
  void load_store_scalar(const Inst& in);
  void tile_value(const Inst& in);  // tgetval / tsetval
  // The driver's scalar_mem hook reaches here only for tgetval / tsetval
  // (lower_special takes load_scalar / store_scalar), with the windows'
  // copies around it.
  void scalar_mem(const Inst& in) override { tile_value(in); }
  void scalar_elem(bool load, DType e, const char* space, const std::string& at, Reg x, Reg only);
  Reg thread0();
  Reg pred_of(ValueId i1);      // an i1 scalar as a predicate
  Reg as_u32(Reg rd);           // the low half of a .b64
  Reg as_u64(Reg r32, bool sign);
  Reg clamp_count(ValueId count, int32_t limit, bool neg_is_limit);

  // ---- tiles ---------------------------------------------------------------------
  Geo geo(ValueId t) const;
  // The byte range of a tile value's storage (unknown: [0, INT64_MAX)).
  std::pair<int64_t, int64_t> span(ValueId t) const;
  int64_t static_off(ValueId t) { return val(t).off; }
  // The address of element (r, c) of tile t (32-bit registers).
  Reg elem_addr(ValueId t, Reg r, Reg c);
  bool disjoint_or_same(ValueId a, ValueId b, bool in_place);

  // ---- barriers (barrier.cpp) ------------------------------------------------------
  // Records accesses; emits bar.sync / bar.warp.sync where an access
  // conflicts with one since the last barrier.
  void access(const std::vector<Access>& a);
  void flush();  // a full barrier if anything is pending (control flow edges)
  Access tile_access(ValueId t, bool write, uint64_t sig = 0, unsigned lanes = 0);
  std::vector<Access> pending_;

  // ---- element lanes (lanes.cpp) -----------------------------------------------
  // Float tiles compute in f32 lanes, integer tiles (up to 32 bits) in .b32
  // lanes holding the canonical value.
  static bool float_lane(DType d) { return d == DType::F32 || d == DType::F16 || d == DType::BF16; }
  static bool int_lane(DType d);
  RC lane_rc(DType d) const { return float_lane(d) ? RC::F : RC::R; }
  // Memory <-> lane: `space` "shared" or "global".
  Reg ld_lane(DType d, const std::string& space, const std::string& addr, Reg pred = {}, bool neg = false,
              Reg init = {});
  void st_lane(DType d, const std::string& space, const std::string& addr, Reg v, Reg pred = {}, bool neg = false);
  Reg lane_from_bits(DType d, Reg bits);  // a .b16 / .b32 element's bits as a lane
  Reg bits_from_lane(DType d, Reg lane);  // the element's bits (.b16 for 2-byte types, .b32 else)
  Reg round_lane(DType d, Reg lane);      // an f32 result rounded to d (exact value), ints wrapped
  Reg f16_bits(Reg lane);                 // f32 -> f16 bits (RNE, the interpreter's NaN)
  void clamp_s64(Reg w, DType d);         // w (s64) clamped to integer d's range
  Reg copy_bits16(DType d, Reg lane);     // a stored f16 / bf16 scalar: a NaN's payload kept, not quieted
  Reg pad_lane(ValueId tile);             // the tile's pad value as a lane
  // d = a op b / op a / generators, on lanes of type d (elt_op.cpp).
  Reg bin(Bin k, DType d, Reg a, Reg b);
  Reg unary(Op o, DType d, Reg a);
  Reg fexp(Reg x);
  Reg flog(Reg x);
  Reg nan_quieted(Reg x, Reg y);  // y, or x quieted where x is a NaN
  Reg quiet_f32(DType d, Reg x);   // d f32: x with a NaN quieted
  Reg fsqrt(Reg x);
  Reg nan_fix(Reg x, Reg a, Reg b);
  Reg frsqrt(Reg x);
  Reg fpow(Reg x, Reg y);
  Reg cvt_lane(const CvtPlan& p, Reg x);
  Reg scalar_lane(ValueId s, DType d);    // a scalar operand as a lane of type d

  // ---- matmul and boxed copies (matmul.cpp, mma.cpp) ----------------------------------
  Reg view_elem_addr(ValueId v, Reg r, Reg c);
  void boxed_copy(const Inst& in, ValueId tile, ValueId view, bool load);
  void boxed_load_elems(ValueId tile, ValueId view, Reg vr, Reg vc);
  bool mma_ok(const MatmulPlan& p);
  void matmul_mma(const Inst& in, const MatmulPlan& p);
  void matmul_wave(const Inst& in, const MatmulPlan& p);  // wave_mma.cpp
  void matmul_store(const MatmulPlan& p, Reg r, Reg c, Reg m, Reg n, Reg v);
  std::array<Reg, 3> matmul_extent(const MatmulPlan& p);  // m, k, n
  void matmul_fma(const Inst& in, const MatmulPlan& p);

  // ---- shared state -----------------------------------------------------------------
  Reg tid_, lane_, warp_, smem_;
  Reg lane_bit_[5];  // (lane >> k) & 1 set: the upper partner of a butterfly step
  SmemPlan smem_plan_;
  std::unique_ptr<opt::TileAliases> alias_;
  std::vector<Val> vals_;
  bool ok_ = true;
  bool dynamic_smem_ = false;
  bool over_limit_ = false;  // the text passed CodegenOptions::code_limit  // the tiles are in the module's .extern .shared array
  unsigned version_ = 70;
  std::string body_, hoist_, cold_;  // cold_: out-of-line code after the entry's ret
  std::vector<std::string> loop_labels_;  // continue / exit labels of open loops
  std::vector<uint8_t> reshaped_;        // by ValueId: the dst of a treshape somewhere
  std::vector<uint8_t> regs_only_;       // by InstId: a pto.fuse taken in registers
  unsigned nlabels_ = 0;
  uint32_t nreg_[kRcCount] = {};
  uint32_t last_line_ = 0, last_col_ = 0;
  // Per scf.if / scf.while: its labels.
  std::vector<std::string> if_else_, if_end_, while_top_, while_end_;
  std::vector<std::pair<std::string, std::string>> for_labels_;

  // ---- the row programs (row.cpp) ----------------------------------------------------
 public:
  // Lowers ops (one, or a fused region's body) as one row program: each
  // row of the tiles by one group of warps, intermediates in registers.
  // False with `why` when the program is not taken (nothing emitted).
  bool row_program(const std::vector<const Inst*>& ops, const Inst& at, Refusal& why, bool emit_code = true);
};

// Plans the function's shared memory (smem.cpp): which fused regions keep
// their private tiles in registers (regs_only, by InstId), where the other
// tiles live. False with diagnostics when it does not fit.
bool plan_smem(Gen& g, SmemPlan& plan);

// Runs of 16 bytes along a tile's columns (rows) starting at multiples of
// 16 bytes lie contiguous and aligned in shared memory (mma.cpp).
bool run16(const Type& t, int64_t off, bool along_cols);

// The target's fusable predicate (what a pto.fuse region may hold).
bool fusable_op(const Module& m, const Inst& in);

// A loop over rows x cols elements by every thread of the block: i = tid,
// tid + kThreads, ...; r = i / cols, c = i % cols; f(r, c) emits the work.
template <class F>
void block_loop(Gen& g, Reg rows, Reg cols, F&& f) {
  Reg n = g.reg(RC::R), i = g.reg(RC::R), p = g.reg(RC::P);
  g.I("mul.lo.s32", n, rows, cols);
  g.I("mov.b32", i, g.tid_);
  std::string top = g.new_label(), end = g.new_label();
  g.bind(top);
  g.I("setp.ge.s32", p, i, n);
  g.bra_if(p, false, end);
  Reg r = g.reg(RC::R), c = g.reg(RC::R);
  g.I("div.u32", r, i, cols);
  g.I("rem.u32", c, i, cols);
  f(r, c);
  g.I("add.s32", i, i, kThreads);
  g.bra(top);
  g.bind(end);
}

// min.s32 of two .b32 values into a new register.
inline Reg min32(Gen& g, Reg a, Reg b) {
  Reg x = g.reg(RC::R);
  g.I("min.s32", x, a, b);
  return x;
}

}  // namespace ptoas::cg::ptx
