// Internal to the SVE encoder: the code generator shared by its translation
// units (sve/frame.cpp: frame, control flow, scalars, views;
// sve/elementwise.cpp: tile data movement and tile ops). Nothing else includes it.
//
// Design (docs/sve_backend.md), the x86 backend's model on AArch64:
//   * every SSA value lives in 8-byte stack slots (encoders/cpu_frame.h) at
//     [x28 + 8 * slot]; scalar code loads operands into x0/x1 (s0/d0),
//     computes, stores;
//   * scf.for / scf.if / scf.while are branches, yields copy through
//     scratch slots;
//   * tile ops are loops over the valid region, one vector of 32-bit lanes
//     at a time whatever the vector length: `whilelo` gives the predicate
//     of the lanes left (so the ragged tail is predicated, never touched),
//     `incw` steps the index. Narrow elements are widened to 32-bit lanes
//     by the loads (ld1h/ld1sh/ld1b/ld1sb into .s) and narrowed by the
//     stores (st1h/st1b), so one lowering serves every element type.
//   * instructions are LLVM MCInsts encoded one at a time (mc/mc.h checks
//     each against its descriptor); branches to labels not yet bound are
//     re-encoded when the label is.
//
// Registers: x29 frame, x28 slots base, x19 the tile arena; x0-x17 and
// z0-z7, z16-z31, p0-p15 scratch inside one IR instruction (z8-z15 are
// never used: their low halves are callee-saved).
#pragma once
#include <llvm/MC/MCInst.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "tile_geometry.h"
#include "tile_alias.h"
#include "cpu_lowering.h"
#include "tile_plan.h"
#include "cpu_frame.h"
#include "a64_mc.h"

namespace ptoas::cg::sve::gen {

// A register (LLVM's number) or an immediate operand.
struct R {
  unsigned id;
};
struct O {
  bool reg;
  int64_t v;
  O(R r) : reg(true), v(r.id) {}
  O(int64_t i) : reg(false), v(i) {}
  O(int i) : reg(false), v(i) {}
  O(unsigned i) : reg(false), v(i) {}
};

// AArch64 condition codes (the Bcc / CSEL encoding).
enum Cond : int { EQ = 0, NE = 1, HS = 2, LO = 3, MI = 4, PL = 5, VS = 6, VC = 7,
                  HI = 8, LS = 9, GE = 10, LT = 11, GT = 12, LE = 13, AL = 14 };

// Vector registers the tile loops keep constants in (sve/elementwise.cpp).
constexpr int kNegZero = 24, kBf16Bias = 25, kQuiet = 26, kScalar = 27;

class Gen : public CpuLowering {
 public:
  Gen(const Mc& mc, const Module& m, InstId fn, const Target& t, const CodegenOptions& o, const FramePlan& p,
      Diag& d);
  bool run(FuncCode& out);
  bool finish(std::vector<uint8_t>& bytes);  // the words as bytes; false after an error
  void schedule_block();  // encodes the pending block in list-scheduled order (sve/sched.cpp)

  // ---- the assembler ----
  void I(const char* name, std::initializer_list<O> ops);
  int new_label();
  void bind(int label);
  void b(int label);
  void bcc(Cond c, int label);
  void cbz(R x, int label);
  void cbnz(R x, int label);
  void branch_if_false(int xn, int label);  // to label when x<xn> (an i1 slot value) is 0
  size_t size() const { return code_.size() * 4; }  // of the scheduled (encoded) code

  R X(int n) const { return {x_[n]}; }
  R W(int n) const { return {w_[n]}; }
  R Z(int n) const { return {z_[n]}; }
  R P(int n) const { return {pr_[n]}; }
  R S(int n) const { return {s_[n]}; }
  R D(int n) const { return {d_[n]}; }
  R sp() const { return {sp_}; }
  R xzr() const { return {xzr_}; }
  R wzr() const { return {wzr_}; }

  // x = v (movz/movn + movk).
  void mov_imm(R x, uint64_t v);
  void mov(R xd, R xs) { I("ORRXrs", {xd, xzr(), xs, 0}); }
  // xd = xn + v / xn - v for any 64-bit v (x16 as scratch when needed).
  void add_imm(R xd, R xn, int64_t v);

  // Value slots.
  void ldx(R x, ValueId v, unsigned k = 0) { slot_op("LDRXui", x, sl(v, k), 8); }
  void stx(R x, ValueId v, unsigned k = 0) { slot_op("STRXui", x, sl(v, k), 8); }
  void ldx_slot(R x, uint32_t slot) { slot_op("LDRXui", x, slot, 8); }
  void stx_slot(R x, uint32_t slot) { slot_op("STRXui", x, slot, 8); }
  void lds(R s, ValueId v) { slot_op("LDRSui", s, sl(v), 4); }
  void ldd(R d, ValueId v) { slot_op("LDRDui", d, sl(v), 8); }

 private:
  friend struct TileCtx;
  const Mc& mc_;
  const Module& m_;
  InstId fn_;
  const Target& tg_;
  const FramePlan& p_;
  Diag& diag_;
  std::vector<uint32_t> code_;
  std::vector<llvm::MCInst> block_;  // straight-line instructions not yet scheduled
  // The function's tile aliases and bindings, built at its first fused
  // region: once per function, not per region (a region's planning was
  // otherwise linear in the function, and a function of many quadratic).
  std::unique_ptr<opt::TileAliases> alias_;
  std::unique_ptr<opt::TileBindings> binds_;
  bool schedule_ = true;
  // The scheduler's scratch (sve/sched.cpp), kept across blocks so that a
  // block allocates nothing once the vectors have grown.
  struct SchedWork {
    std::vector<long> writer, stamp;               // by register unit; by instruction
    std::vector<std::vector<uint32_t>> readers;    // by register unit
    std::vector<unsigned> touched, lat, prio;
    std::vector<uint8_t> lat_of;                   // by opcode, 0 until known
    std::vector<uint32_t> loads, first, npred, succ, at, ready;
    std::vector<std::pair<uint32_t, uint32_t>> edges;
  } sched_;
  std::vector<LineEntry>* lines_ = nullptr;
  bool ok_ = true;
  int epilogue_ = -1;
  struct Fix {
    size_t at;          // word index
    llvm::MCInst inst;  // its last operand is the label's offset in words
    int label;
  };
  std::vector<int64_t> labels_;  // word index, -1 unbound
  std::vector<Fix> fixes_;
  unsigned x_[31], w_[31], z_[32], pr_[16], s_[32], d_[32], sp_, xzr_, wzr_;

  uint32_t sl(ValueId v, unsigned k = 0) const { return uint32_t(p_.slots[v].first) + k; }
  const ptoas::Type& ty(ValueId v) const { return m_.type_of(v); }
  ValueId op(const Inst& in, unsigned i) const { return m_.operand(in, i); }
  void slot_op(const char* name, R r, uint32_t slot, unsigned scale);
  void put(const llvm::MCInst& mi);
  void branch(const char* name, std::initializer_list<O> head, int label);
  bool branch_reaches(const llvm::MCInst& mi, int64_t words);

  void fail(const Inst& in, const Refusal& r = {}) override {
    unsupported(m_, in, diag_, tg_, r);
    ok_ = false;
  }
  size_t code_limit_;  // CodegenOptions::code_limit
  void mark(const Inst& in) override {
    schedule_block();
    if (size() > code_limit_) {
      code_limit_error(m_, fn_, in, diag_, tg_, code_limit_);
      throw CodeLimitReached{};
    }
    uint32_t off = uint32_t(size());
    if (!lines_->empty() && lines_->back().offset == off) lines_->back().src_loc = in.loc;
    else lines_->push_back({off, in.loc});
  }
  // x = the canonical 64-bit form of an integer of type d.
  void canon(R x, DType d);
  void zext(R x, unsigned bits);

  void prologue();
  void epilogue();
  // The hooks of the shared driver (lowering.h).
  void move_slot(uint32_t from, uint32_t to) override;
  void lower_return(const Inst& in) override;
  std::vector<std::pair<int, int>> ctl_;  // labels of the open scf constructs: loop top (if: else), end
  std::pair<int, int> open_ctl();
  void begin_for(const Inst& in, ValueId iv) override;
  void end_for(const Inst& in, ValueId iv) override;
  void begin_if(const Inst& in) override;
  void else_if(const Inst& in) override;
  void end_if(const Inst& in) override;
  void begin_while(const Inst& in) override;
  void test_while(const Inst& in, const Inst& cond) override;
  void end_while(const Inst& in) override;
  void scalar(const Inst& in) override;
  void scalar_float(const Inst& in);
  void store_imm(ValueId v, unsigned k, int64_t imm) override;
  void store_count(ValueId v, unsigned k, ValueId count, int32_t limit) override;
  void partition_view(const Inst& in, ValueId src, ValueId res, unsigned rank, unsigned es) override;
  void add_ptr(const Inst& in, unsigned es) override;
  void store_valid(ValueId t, unsigned k, ValueId count, int32_t limit) override;
  void subset(const Inst& in, ValueId t, unsigned es) override;
  void scalar_mem(const Inst& in, const ScalarMemPlan& p) override;
  void store_combined(const Inst& in, const StoreCombinePlan& p) override;  // sve/layout.cpp

  // ---- tiles (sve/elementwise.cpp) ----
  bool tile_type_ok(const Inst& in, ValueId t);
  void tile_ptr(R x, ValueId t);
  void tcopy(const Inst& in, ValueId t, ValueId v, bool load) override;
  // Lane loads / stores of element type d at [base + idx << log2(es)]
  // (gather / scatter: at base + the byte offsets in vector idx), widened
  // to / narrowed from 32-bit lanes (f16/bf16 <-> f32).
  void ld_e(DType d, R z, R pg, R base, R idx, bool gather = false);
  void st_e(DType d, R z, R pg, R base, R idx, bool scatter = false);
  void bcast_e(DType d, R z, R base);    // the element at [base] in every lane (p7 all lanes)
  void bcast_slot(DType d, R z, ValueId v);  // a scalar's value in every lane (x17 scratch)
  void bf16_round(R z);            // f32 lanes -> rounded bf16 bits in z29's low halves
  void loop_constants();                 // z24 -0.0, z25 bf16 bias, z26 quiet bit, p7 all lanes
  // One pass over r x c elements of tiles that all iterate in the same
  // order: x9 = rows, x10 = cols; `bases` row pointers (x registers),
  // advanced by `strides` bytes per row; body(pg) with x11 the column
  // index and pg the lanes left.
  // `per_row` runs after each row (before the bases advance), `before_row`
  // at the start of each.
  void row_loop(const std::vector<R>& bases, const std::vector<int64_t>& strides,
                const std::function<void(R pg)>& body, const std::function<void()>& per_row = nullptr,
                const std::function<void()>& before_row = nullptr);
  TileGeo geo(ValueId t) const { return tile_geo(ty(t)); }
  void bin(Bin k, DType d, R pg, R a, R b);
  void round_lane(DType d, R z, R pg);  // f32 lanes rounded to f16 / bf16 and back  // a = a op b in d's lane class
  void elementwise(const Inst& in, const EltPlan& pl) override;
  void unary_lanes(Op o, DType d, R pg);  // z0 = o(z0), the unary ops of elementwise
  // sve/fuse.cpp: a pto.fuse region as one loop nest per row with the
  // shared plan (encoders/fuse_plan.h); false: not taken (lower it op by op).
  struct Fuse;
  bool fused_region(const Inst& in) override;
  void row_reduce(const Inst& in, ValueId src, ValueId dst) override;
  // sve/fused_ops.cpp
  void fbin(const char* name, R d, R a, R b, R pg);  // d = a op b, a NaN in a wins (quieted)
  void relu0(R z, R pg);                           // z > 0 ? z : +0
  void fused(const Inst& in, const FusedPlan& pl) override;
  void row_expand(const Inst& in, const ExpandPlan& pl) override;
  void col_expand(const Inst& in, const ExpandPlan& pl) override;
  void col_reduce(const Inst& in, ValueId src, ValueId dst) override;
  void ttri(const Inst& in, ValueId d, bool upper) override;
  void tci(const Inst& in, unsigned es, bool desc) override;
  // sve/compare.cpp
  void tcmp(const Inst& in, const CmpPlan& pl) override;
  void tsel(const Inst& in, const SelPlan& pl) override;
  // sve/move.cpp
  void cap_reg(R x, int64_t cap);            // x = min(x, cap), signed (x16 scratch)
  void cap_slot(R x, ValueId v, unsigned k);  // x = min(x, slot k of v)
  // x9 x x10 = tile t's valid rows x columns, capped at cap_r x cap_c.
  void valid_region(ValueId t, int64_t cap_r, int64_t cap_c);
  void tile_copy(const Inst& in, ValueId src, ValueId dst, R srow, R scol, R drow, R dcol, bool transpose);
  void tfillpad(const Inst& in) override;
  void twindow(const Inst& in, const WindowPlan& p) override;
  void ttrans(const Inst& in) override;
  void tconcat(const Inst& in) override;
  void treshape(const Inst& in, ValueId src, ValueId dst) override;
  void tgather(const Inst& in, const GatherPlan& p) override;
  void tcvt(const Inst& in, const CvtPlan& pl) override;
  // Any-layout addressing (sve/layout.cpp): byte offset parts of a row or
  // column index as a scalar or as a vector of consecutive indices.
  bool axis(const Inst& in, const ptoas::Type& t, bool rows, AxisMap& m);
  void axis_scalar(R dst, const AxisMap& m, R idx);
  void axis_vec(R dst, const AxisMap& m, R first);
  unsigned reg_number(R x) const {
    for (unsigned i = 0; i < 31; ++i)
      if (x_[i] == x.id) return i;
    return 31;
  }
  void tmov(const Inst& in, ValueId s, ValueId d) override;
  // tload / tstore of a boxed tile (any view rank), or of an unboxed one
  // through a view of rank 3 and up; the pad fill of a load (any tile);
  // x9 capped by a view's rows (every shape but the last).
  void tcopy_grid(const Inst& in, ValueId t, ValueId v, bool load);
  void pad_fill(ValueId t);
  void cap_view_rows(ValueId v, unsigned rank, int64_t cap);
  void matmul(const Inst& in, const MatmulPlan& pl) override;
  // exp / log / rsqrt in double (sve/math.cpp).
  void math_begin();  // the constants block at x8 (on the stack), p6 all .d lanes
  void math_end();
  void dconst(R z, int i);
  void exp_pd(R x);
  void log_pd(R x);
  void math(Op o, R pg);  // z0 = o(z0)
  void pow_lanes(R pg);   // z0 = pow(z0, z1)
  bool valid_extent(const Inst& in, ValueId dst, const std::vector<ValueId>& tiles, bool& cols_outer);
  // row_loop's streams over dst (x0) and tiles (x1 ..): each base register
  // with its row stride (its column stride when cols_outer).
  void loop_streams(ValueId dst, const std::vector<ValueId>& tiles, bool cols_outer, std::vector<R>& bases,
                    std::vector<int64_t>& strides);
};

}  // namespace ptoas::cg::sve::gen
