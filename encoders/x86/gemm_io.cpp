// tmatmul operands read and results written in GM without the tile copies
// (-O1 and up): tloads whose tiles only a tmatmul reads (plan_mm_loads,
// matmul_in_place) and tiles that tmatmuls fill for one tstore
// (plan_acc_stores, acc_redirect, acc_tstore). Each decides at run time,
// from the views, whether the GM side can stand in for the tile; the copy
// as written stays the other path. See docs/x86_backend.md.
#include <set>

#include "gen.h"

namespace ptoas::cg::x86::gen {

// Instructions naming each tile (alloc_tile aside); `addr`: some tile of
// the function is at an explicit address (and may alias any other).
std::map<ValueId, int> Gen::tile_uses(bool& addr) const {
  const Region& top = m_.region(m_.inst(fn_), 0);
  std::map<ValueId, int> uses;
  addr = false;
  walk_region(m_, top, [&](InstId, const Inst& in) {
    if (in.op == Op::AllocTile) {
      addr |= (in.flags & kInstHasAddr) != 0;
      return;
    }
    std::vector<ValueId> named;
    for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k) {
      ValueId v = op(in, k);
      if (v != kNone && ty(v).kind == TypeKind::TileBuf && std::find(named.begin(), named.end(), v) == named.end())
        named.push_back(v);
    }
    for (ValueId v : named) ++uses[v];
  });
  return uses;
}

// Tile t may have its address slot point at rank-2 view v for a while: an
// arena tile (its alloc_tile, no explicit address) in the row-major
// none_box layout, of v's element type.
bool Gen::slot_may_take_view(ValueId t, ValueId v) const {
  const ptoas::Type& tt = ty(t);
  InstId def = m_.values[t].def;
  return tt.kind == TypeKind::TileBuf && tt.slayout == SLayout::NoneBox && tt.blayout == BLayout::RowMajor &&
         tt.rows > 0 && tt.cols > 0 && ty(v).elem == tt.elem && p_.slots[v].count == 5 && def != kNone &&
         m_.inst(def).op == Op::AllocTile && p_.alloc_offset[def] != kNone;
}

// Jumps to `no` unless view v, at run time, is laid out as tile type tt:
// row stride its column count, column stride 1, and its shape (`exact`)
// or at least its shape.
void Gen::unless_tile_layout(ValueId v, const ptoas::Type& tt, bool exact, Label& no) {
  cmp(q(v, 1), int32_t(tt.rows));
  exact ? jne(no, T_NEAR) : jl(no, T_NEAR);
  cmp(q(v, 2), int32_t(tt.cols));
  exact ? jne(no, T_NEAR) : jl(no, T_NEAR);
  cmp(q(v, 3), int32_t(tt.cols));
  jne(no, T_NEAR);
  cmp(q(v, 4), 1);
  jne(no, T_NEAR);
}

// A tload whose tile nothing but the tmatmul after it reads (only other
// tloads in between, in the same block; the tile named by no other
// instruction; no tile at an explicit address in the function, which
// could alias it), into a row-major none_box tile from a rank-2 view of
// its element type: the tmatmul may read the view in place instead
// (matmul_in_place). Not at -O0.
void Gen::plan_mm_loads(std::map<ValueId, int>& uses) {
  const Region& top = m_.region(m_.inst(fn_), 0);
  auto scan = [&](const Region& r, auto&& self) -> void {
    for (unsigned i = 0; i < r.inst_count; ++i) {
      InstId id = m_.region_inst(r, i);
      const Inst& in = m_.inst(id);
      if (in.op == Op::Fuse) continue;  // its tloads are the fused loop's
      for (unsigned k = 0; k < in.n_regions; ++k) self(m_.region(in, k), self);
      if (in.op != Op::TLoad || in.n_ins != 1 || in.n_outs != 1) continue;
      unsigned j = i + 1;
      while (j < r.inst_count && m_.inst(m_.region_inst(r, j)).op == Op::TLoad) ++j;
      if (j == r.inst_count) continue;
      InstId mid = m_.region_inst(r, j);
      const Inst& mm = m_.inst(mid);
      if (mm.op != Op::TMatmul && mm.op != Op::TMatmulAcc && mm.op != Op::TMatmulBias) continue;
      MatmulPlan pl;
      Refusal why;
      if (!plan_matmul(m_, mm, pl, why)) continue;
      ValueId t = op(in, 1), v = op(in, 0);
      if ((t != pl.a && t != pl.b) || t == pl.c || t == pl.cin || t == pl.bias || uses[t] != 2) continue;
      if (!slot_may_take_view(t, v) || ty(t).rows > INT32_MAX || ty(t).cols > INT32_MAX) continue;
      mm_loads_[mid].push_back(id);
      mm_elided_.push_back(id);
    }
  };
  scan(top, scan);
  std::sort(mm_elided_.begin(), mm_elided_.end());
}

// A tmov into an operand tile of the tmatmul after it, in the same block,
// the tile named by nothing else: the tmatmul reads the tmov's source
// instead (Gen::matmul), and the tmov is not emitted. The NPU way of a
// GEMM moves each mat tile into a left / right tile of another layout
// (gemm_nz_128: B's ZN right tile, transposed from its NZ mat tile, then
// packed by transposes again); read from the mat tile, A is read in place
// and B's panels are copies of its runs. The source must hold what the
// tmatmul would read: the same element type and shape, every element
// valid (no padding), a plain arena tile; and stay so until the tmatmul:
// in between only tile allocations and tloads / tmovs into tiles whose
// every possible storage (opt/tile_alias.h) is arena bytes clear of it,
// the tmatmul's C too; and no other name for it (subview, treshape)
// anywhere. Not at -O0.
// Tile v is a whole arena tile: every element valid, its own allocation
// with arena bytes.
bool Gen::mm_whole(ValueId v) const {
  const ptoas::Type& t = ty(v);
  InstId def = m_.values[v].def;
  return t.kind == TypeKind::TileBuf && t.rows > 0 && t.cols > 0 && t.vrow == t.rows && t.vcol == t.cols &&
         def != kNone && m_.inst(def).op == Op::AllocTile && p_.alloc_offset[def] != kNone;
}

// Whether every allocation tile w may name (a subview or treshape names
// its source's, opt/tile_alias.h) is arena bytes clear of whole tile v's.
bool Gen::mm_apart(ValueId w, ValueId v) const {
  const uint64_t lo = p_.alloc_offset[m_.values[v].def], hi = lo + tile_storage_bytes(ty(v));
  uint32_t c = w == kNone ? kNone : alias_.cls(w);
  if (c == kNone || alias_.allocs(c).empty()) return false;
  for (InstId a : alias_.allocs(c)) {
    if (p_.alloc_offset[a] == kNone) return false;
    uint64_t wlo = p_.alloc_offset[a], whi = wlo + tile_storage_bytes(m_.type_of(m_.inst(a).res));
    if (whi > lo && wlo < hi) return false;
  }
  return true;
}

void Gen::plan_mm_movs(std::map<ValueId, int>& uses) {
  auto scan = [&](const Region& r, auto&& self) -> void {
    for (unsigned j = 0; j < r.inst_count; ++j) {
      InstId mid = m_.region_inst(r, j);
      const Inst& mm = m_.inst(mid);
      for (unsigned k = 0; k < mm.n_regions; ++k) self(m_.region(mm, k), self);
      if (mm.op != Op::TMatmul && mm.op != Op::TMatmulAcc && mm.op != Op::TMatmulBias) continue;
      if (mm_loads_.count(mid)) continue;  // its operands come from GM, in place
      MatmulPlan pl;
      Refusal why;
      if (!plan_matmul(m_, mm, pl, why)) continue;
      std::vector<std::pair<ValueId, ValueId>> fwd;
      for (ValueId t : {pl.a, pl.b}) {
        if (t == pl.c || t == pl.cin || t == pl.bias || pl.a == pl.b || uses[t] != 2 || !mm_whole(t)) continue;
        // The tmov writing t, and what lies between it and the tmatmul.
        unsigned i = j;
        while (i > 0) {
          const Inst& x = m_.inst(m_.region_inst(r, i - 1));
          if (x.op == Op::TMov && x.n_ins == 1 && x.n_outs == 1 && op(x, 1) == t) break;
          if (x.op != Op::AllocTile && x.op != Op::TLoad && x.op != Op::TMov) {
            i = 0;
            break;
          }
          --i;
        }
        if (i == 0) continue;
        InstId mov_id = m_.region_inst(r, i - 1);
        const Inst& mv = m_.inst(mov_id);
        ValueId src = op(mv, 0);
        const ptoas::Type &st = ty(src), &tt = ty(t);
        // src named by its allocation alone (no subview or treshape of it
        // anywhere), so only its own name or another tile's arena bytes
        // could change it.
        if (mv.n_attrs || !mm_whole(src) || st.elem != tt.elem || st.rows != tt.rows || st.cols != tt.cols ||
            src == pl.a || src == pl.b || src == pl.c || src == pl.cin || src == pl.bias ||
            alias_.cls(src) == kNone || !alias_.single(alias_.cls(src)))
          continue;
        // B only where its panels are copied a vector (or two half vector)
        // runs at a time (matmul_blocked's packing): element by element,
        // avx512 packed an NZ mat tile's runs of 8 slower than the tmov
        // and transposes did (gemm_f32_nz.pto at 512^3: 3.81 -> 4.12 ms).
        if (t == pl.b && !tile_runs(st, lanes(), false) && (pl.i32 || !mm_b_halves(st))) continue;
        // A only where the micro-kernels read it the same way (direct or
        // packed, its runs, its partial panel): those decide the order of
        // the k sums, and forwarding moves no arithmetic. An a3 left tile
        // is zZ, its NZ mat tile direct (opt_random_gemm: -O2 differed
        // from -O0 in the last bit).
        if (t == pl.a) {
          MmOps o = mm_ops(pl), f = o;
          f.a = src;
          MmBlocking x, y;
          if (!mm_blocking(o, x) || !mm_blocking(f, y) || x.direct != y.direct || x.kg != y.kg || x.rem_s != y.rem_s)
            continue;
        }
        // The tiles written in between, by every allocation they may name:
        // a tload into a subview or a treshape of the mat tile between
        // the tmov and the tmatmul rewrote what it read.
        bool clear = mm_apart(pl.c, src);
        for (unsigned b = i; b < j && clear; ++b) {
          const Inst& x = m_.inst(m_.region_inst(r, b));
          if (x.op == Op::AllocTile) continue;
          ValueId w = op(x, x.n_ins);  // the tile it writes
          if (w == src || ty(w).kind != TypeKind::TileBuf) {
            clear = false;
            break;
          }
          clear = mm_apart(w, src);
        }
        if (!clear) continue;
        fwd.emplace_back(t, src);
        mm_elided_.push_back(mov_id);
      }
      if (!fwd.empty()) mm_movs_[&mm] = fwd;
      plan_mm_c(r, j, pl, fwd, uses);
    }
  };
  scan(m_.region(m_.inst(fn_), 0), scan);
  std::sort(mm_elided_.begin(), mm_elided_.end());
}

// The other side: a tmatmul's C (an acc tile) that only a tmov right
// after it reads (tile allocations between them), into a tile of the same
// shape and element type, every element valid, no other name for either:
// the tmatmul writes that tile (Gen::matmul, which sets the tile's slot
// first: its alloc_tile may lie between) and the tmov is not emitted.
// The micro-kernels' blocking and k order do not depend on C's layout,
// only its addressing (a row-major C by its row stride, an acc tile's
// fractal through offset tables), so the sums are the same bits.
// attention: the 64 x 128 scores go straight into the vec tile that the
// softmax reads.
void Gen::plan_mm_c(const Region& r, unsigned j, const MatmulPlan& pl,
                    const std::vector<std::pair<ValueId, ValueId>>& fwd, std::map<ValueId, int>& uses) {
  const Inst& mm = m_.inst(m_.region_inst(r, j));
  ValueId c = pl.c;
  if (mm.op != Op::TMatmul || pl.cin != kNone || pl.bias != kNone || uses[c] != 2 || !mm_whole(c) ||
      alias_.cls(c) == kNone || !alias_.single(alias_.cls(c)))
    return;
  unsigned i = j + 1;
  while (i < r.inst_count && m_.inst(m_.region_inst(r, i)).op == Op::AllocTile) ++i;
  if (i == r.inst_count) return;
  InstId mov_id = m_.region_inst(r, i);
  const Inst& mv = m_.inst(mov_id);
  if (mv.op != Op::TMov || mv.n_ins != 1 || mv.n_outs != 1 || mv.n_attrs || op(mv, 0) != c) return;
  ValueId d = op(mv, 1);
  const ptoas::Type &dt = ty(d), &ct = ty(c);
  if (!mm_whole(d) || dt.elem != ct.elem || dt.rows != ct.rows || dt.cols != ct.cols || d == pl.a || d == pl.b ||
      alias_.cls(d) == kNone || !alias_.single(alias_.cls(d)))
    return;
  // d's bytes apart from every tile the tmatmul reads A and B from (the
  // tmovs' sources where they are forwarded) may name.
  if (!mm_apart(pl.a, d) || !mm_apart(pl.b, d)) return;
  for (auto [t, src] : fwd)
    if (!mm_apart(src, d)) return;
  mm_c_[&mm] = d;
  mm_elided_.push_back(mov_id);
}

// Jumps to `no` unless view v, at run time, covers tile type tt (at
// least its shape) with column stride 1 and a row stride that keeps every
// row's offset below 2^31 (matmul_blocked's tables are 32-bit).
void Gen::unless_strided_view(ValueId v, const ptoas::Type& tt, Label& no) {
  cmp(q(v, 1), int32_t(tt.rows));
  jl(no, T_NEAR);
  cmp(q(v, 2), int32_t(tt.cols));
  jl(no, T_NEAR);
  cmp(q(v, 4), 1);
  jne(no, T_NEAR);
  cmp(q(v, 3), int32_t(INT32_MAX / (tt.rows * dtype_bytes(tt.elem))));
  ja(no, T_NEAR);  // unsigned: a negative stride too
}

ValueId Gen::mm_strided_view(ValueId t) const {
  for (auto [tile, view] : mm_strided_)
    if (tile == t) return view;
  return kNone;
}

// The tmatmul of plan_mm_loads' tloads: each operand tile whose view, at
// run time, covers the whole tile (B: and whose valid rows cover k, A's
// valid columns, as a tload pads the rest) is the view itself for this
// tmatmul (its address slot points there; nothing else reads the tile);
// the others are loaded as written, here, where nothing between has
// changed their view or tile. The slots get their arena offsets back
// after. Covering means laid out as the tile (row stride its column
// count, column stride 1), except for the operands matmul_blocked packs
// or broadcasts from (A; B unless read as panels), which it reads at the
// view's row stride (mm_strided_, unless_strided_view): a strided view is
// read where it is, not copied first.
void Gen::matmul_in_place(const Inst& in, const std::vector<InstId>& loads) {
  MatmulPlan pl;
  Refusal why;
  MmBlocking bl;
  bool blocked = plan_matmul(m_, in, pl, why) && mm_blocking(mm_ops(pl), bl) && pl.a != pl.b;
  std::vector<ValueId> moved;
  for (InstId lid : loads) {
    const Inst& l = m_.inst(lid);
    ValueId t = op(l, 1), v = op(l, 0);
    const ptoas::Type& tt = ty(t);
    bool strided = blocked && (t == pl.a || (t == pl.b && !bl.direct_b));
    Label copy, done;
    mark(l);
    if (strided) unless_strided_view(v, tt, copy);
    else unless_tile_layout(v, tt, false, copy);
    if (t == pl.b) {  // k past B's valid rows reads its padding
      mov(rax, q(pl.a, 2));
      cmp(rax, q(t, 1));
      jg(copy, T_NEAR);
    }
    mov(rax, q(v, 0));
    sub(rax, r15);
    mov(q(t, 0), rax);
    jmp(done, T_NEAR);
    L(copy);
    tile_op(l);
    L(done);
    moved.push_back(t);
    if (strided) mm_strided_.emplace_back(t, v);
    // The next block's rows spread over the micro-tiles; not where that
    // would take more than 64 prefetches a micro-tile.
    std::vector<int64_t> c;
    int64_t lines = (tt.cols * int64_t(dtype_bytes(tt.elem)) + 63) / 64 + 1;
    int64_t per = blocked ? (tt.rows + bl.micro_tiles - 1) / bl.micro_tiles : 0;
    if (blocked && mm_pf_.size() < 2 && per * lines <= 64 && p_.slots[v].count == 5 &&
        loop_stride().view_coeffs(v, c) && (c[0] || c[1]))
      mm_pf_.push_back({t, v, {c[0], c[1]}, int(per)});
  }
  mark(in);
  tile_op(in);
  mm_strided_.clear();
  mm_pf_.clear();
  for (ValueId t : moved) mov(q(t, 0), int32_t(p_.alloc_offset[m_.values[t].def]));
}

const LoopStride& Gen::loop_stride() {
  if (!loop_stride_ || loop_stride_->loop() != innermost_for()) loop_stride_.emplace(m_, innermost_for());
  return *loop_stride_;
}

// Prefetch of the next block. A tmatmul in a loop that walks K reads
// blocks of A and B that its tloads copied from GM (or that it reads in
// place), and the next iteration's blocks are as far on as the loop's
// step moves the views: fetched into the cache while this tmatmul
// computes, the next copy finds them there (gemm_1024 on avx2: the B
// copies' share of the time fell from 4-9 % to 2.5-3 %). For each such
// operand, scratch o + 24 i holds the next block's first row, its row
// stride in bytes, and the rows fetched so far: the tile's row count
// where there are none to fetch (the last iteration, or a view whose
// columns are not adjacent). Clobbers rax.
void Gen::mm_prefetch_setup(int o) {
  const Inst& loop = m_.inst(innermost_for());
  for (size_t i = 0; i < mm_pf_.size(); ++i) {
    const MmPrefetch& f = mm_pf_[i];
    const int at = o + 24 * int(i);
    Label none;
    mov(qword[rsp + at + 16], int32_t(ty(f.t).rows));
    mov(rax, q(m_.region_arg(m_.region(loop, 0), 0)));
    add(rax, q(op(loop, 2)));
    jo(none, T_NEAR);
    cmp(rax, q(op(loop, 1)));
    jge(none, T_NEAR);
    cmp(q(f.v, 4), 1);
    jne(none, T_NEAR);
    // step (c0 row stride + c1) elements on (a wrap only misaims a
    // prefetch, which never faults)
    const int32_t es = int32_t(dtype_bytes(ty(f.t).elem));
    if (f.c[0]) {
      imul(rax, q(f.v, 3), int32_t(f.c[0]));
      add(rax, int32_t(f.c[1]));
    } else {
      mov(rax, f.c[1]);
    }
    imul(rax, q(op(loop, 2)));
    imul(rax, rax, es);
    add(rax, q(f.v, 0));
    mov(qword[rsp + at], rax);
    imul(rax, q(f.v, 3), es);
    mov(qword[rsp + at + 8], rax);
    mov(qword[rsp + at + 16], 0);
    L(none);
  }
}

// One micro-tile's share: the next f.per rows, each row's lines from its
// first byte to its last. Clobbers rax.
void Gen::mm_prefetch_step(int o) {
  for (size_t i = 0; i < mm_pf_.size(); ++i) {
    const MmPrefetch& f = mm_pf_[i];
    const int at = o + 24 * int(i);
    const int64_t bytes = ty(f.t).cols * int64_t(dtype_bytes(ty(f.t).elem));
    Label skip;
    mov(rax, qword[rsp + at + 16]);
    cmp(rax, int32_t(ty(f.t).rows));
    jge(skip, T_NEAR);
    imul(rax, qword[rsp + at + 8]);
    add(rax, qword[rsp + at]);
    for (int r = 0; r < f.per; ++r) {
      if (r) add(rax, qword[rsp + at + 8]);
      for (int64_t b = 0; b < bytes; b += 64) prefetcht0(ptr[rax + int32_t(b)]);
      if (bytes % 64) prefetcht0(ptr[rax + int32_t(bytes - 1)]);  // a row that does not start a line
    }
    add(qword[rsp + at + 16], f.per);
    L(skip);
  }
}

// A tstore of a whole tile t that tmatmuls fill: the nearest instruction
// before it in its block that names t is a tmatmul (or tmatmul.bias)
// writing all of t; between the two, t is named only by tmatmul.acc
// adding into itself; nothing else names t anywhere. The tmatmuls may
// then write the tstore's view directly (acc_redirect) when, at run time,
// it is laid out as the tile and overlaps no other GM that is read or
// written from the first tmatmul to the tstore.
//
// That GM is known by the tensor views it is reached through: every view
// operand of a tload / tstore / fused region in between (and of the
// tloads the first tmatmul reads in place) must come from a
// make_tensor_view that precedes the first tmatmul; a partition stays
// inside its tensor view (the interpreter rejects one that does not), so
// the tensor view's whole extent bounds what it reaches. Anything else in
// between that reaches memory (pointers, other view ops, a call, a
// return) and the plan is not made. The tstore's own view may be a partition_view
// between the two, of a tensor view made before the first tmatmul, with
// offsets computed by scalar ops in between (at most 32) from values
// defined before it: those are computed early, at the tmatmul, as well.
void Gen::plan_acc_stores(std::map<ValueId, int>& uses) {
  const Region& top = m_.region(m_.inst(fn_), 0);
  auto names = [&](const Inst& in, ValueId t) {
    for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k)
      if (op(in, k) == t) return true;
    return false;
  };
  // A tmatmul writing all of t (first: not reading t), whose product
  // covers t by static valid extents.
  auto fills = [&](const Inst& in, ValueId t, bool first) {
    MatmulPlan pl;
    Refusal why;
    if (!plan_matmul(m_, in, pl, why) || pl.c != t || pl.a == t || pl.b == t || pl.bias == t) return false;
    if (first ? (in.op == Op::TMatmulAcc || pl.cin != kNone) : (in.op != Op::TMatmulAcc || pl.cin != t)) return false;
    const ptoas::Type &tt = ty(t), &at = ty(pl.a), &bt = ty(pl.b);
    bool bias_ok = pl.bias == kNone || (ty(pl.bias).vcol != kDyn && ty(pl.bias).vcol >= tt.cols);
    return at.vrow != kDyn && at.vrow >= tt.rows && bt.vcol != kDyn && bt.vcol >= tt.cols && bias_ok;
  };
  auto scan = [&](const Region& r, auto&& self) -> void {
    for (unsigned i = 0; i < r.inst_count; ++i) {
      InstId sid = m_.region_inst(r, i);
      const Inst& st = m_.inst(sid);
      if (st.op == Op::Fuse) continue;
      for (unsigned k = 0; k < st.n_regions; ++k) self(m_.region(st, k), self);
      if (!plain_tstore(m_, st) || st.n_ins != 1 || st.n_outs != 1) continue;  // an add must see GM
      ValueId t = op(st, 0), v = op(st, 1);
      const ptoas::Type& tt = ty(t);
      if (!slot_may_take_view(t, v) || dtype_bytes(tt.elem) != 4 || int64_t(tt.rows) * tt.cols > (1 << 28) ||
          tt.vrow != tt.rows || tt.vcol != tt.cols)
        continue;
      // Back to the first tmatmul, counting t's instructions.
      int seen = 1;
      unsigned w = i;
      bool bad = false;
      for (unsigned j = i; j-- > 0 && !bad;) {
        const Inst& x = m_.inst(m_.region_inst(r, j));
        if (names(x, t)) {
          if (fills(x, t, true)) {
            w = j;
            ++seen;
            break;
          }
          if (!fills(x, t, false)) bad = true;
          ++seen;
        }
        for (unsigned k = 0; k < x.n_regions && !bad; ++k)
          walk_region(m_, m_.region(x, k), [&](InstId, const Inst& y) {
            if (!names(y, t)) return;
            if (!fills(y, t, false)) bad = true;
            ++seen;
          });
      }
      if (bad || w == i || seen != uses[t]) continue;
      InstId wid = m_.region_inst(r, w);
      std::set<InstId> inside;  // the first tmatmul up to the tstore, nested regions too
      for (unsigned j = w; j < i; ++j) {
        InstId id = m_.region_inst(r, j);
        inside.insert(id);
        const Inst& x = m_.inst(id);
        for (unsigned k = 0; k < x.n_regions; ++k)
          walk_region(m_, m_.region(x, k), [&](InstId y, const Inst&) { inside.insert(y); });
      }
      auto before = [&](ValueId x) {
        InstId d = m_.values[x].def;
        return d == kNone || !inside.count(d);
      };
      // The make_tensor_view x is a partition of, made before the first
      // tmatmul (kNone: none such); `early`: the partitions too.
      auto root = [&](ValueId x, bool early) -> ValueId {
        for (;;) {
          InstId d = m_.values[x].def;
          if (d == kNone) return kNone;
          const Inst& di = m_.inst(d);
          if (di.op == Op::MakeTensorView) return inside.count(d) ? kNone : x;
          if (di.op != Op::PartitionView || (early && inside.count(d))) return kNone;
          x = op(di, 0);
        }
      };
      // The view, if made in between: its partition_view and the scalar
      // ops it needs, emitted early too (pure: the same values again at
      // their places).
      AccStore a{t, v, {}, {}};
      std::map<InstId, unsigned> at;
      for (unsigned j = w + 1; j < i; ++j) at[m_.region_inst(r, j)] = j;
      auto early = [&](ValueId x, auto&& self) -> bool {
        if (before(x)) return true;
        InstId d = m_.values[x].def;
        auto pos = at.find(d);
        if (pos == at.end() || a.early.size() >= 32) return false;
        const Inst& di = m_.inst(d);
        Syn syn = op_info(di.op).syn;
        bool pure = syn == Syn::Const || syn == Syn::ArithBin || syn == Syn::ArithUn || syn == Syn::ArithCmp ||
                    syn == Syn::ArithCast || (x == v && di.op == Op::PartitionView);
        if (!pure || di.n_regions) return false;
        for (unsigned k = 0; k < di.n_ins; ++k)
          if (!self(op(di, k), self)) return false;
        if (std::find(a.early.begin(), a.early.end(), d) == a.early.end()) a.early.push_back(d);
        return true;
      };
      if (!early(v, early)) continue;
      std::sort(a.early.begin(), a.early.end(), [&](InstId x, InstId y) { return at[x] < at[y]; });
      ValueId vr = root(a.early.empty() ? v : op(m_.inst(m_.values[v].def), 0), true);
      if (vr == kNone) continue;
      std::vector<InstId> reach(inside.begin(), inside.end());
      if (auto l = mm_loads_.find(wid); l != mm_loads_.end()) reach.insert(reach.end(), l->second.begin(), l->second.end());
      for (InstId id : reach) {
        const Inst& x = m_.inst(id);
        if (x.op == Op::MakeTensorView || x.op == Op::PartitionView || x.op == Op::GetTensorViewDim ||
            x.op == Op::TMatmul || x.op == Op::TMatmulAcc || x.op == Op::TMatmulBias)
          continue;
        bool gm_op = x.op == Op::TLoad || x.op == Op::TStore || x.op == Op::Fuse;
        if (op_info(x.op).syn == Syn::Return || op_info(x.op).syn == Syn::Call) bad = true;
        for (unsigned k = 0; k < unsigned(x.n_ins + x.n_outs) && !bad; ++k) {
          ValueId y = op(x, k);
          if (y == kNone) continue;
          TypeKind kind = ty(y).kind;
          if (kind == TypeKind::Ptr || kind == TypeKind::Memref) bad = true;
          if (kind != TypeKind::TensorView && kind != TypeKind::PartitionView) continue;
          ValueId yr = root(y, false);
          if (!gm_op || yr == kNone || yr == vr) bad = true;
          else if (std::find(a.roots.begin(), a.roots.end(), yr) == a.roots.end()) a.roots.push_back(yr);
        }
        if (bad) break;
      }
      if (bad) continue;
      acc_store_[sid] = t;
      acc_first_[wid] = std::move(a);
    }
  };
  scan(top, scan);
}

// At the first tmatmul of plan_acc_stores: the tile's address slot points
// at the tstore's view when the view is the tile's shape with its row
// stride, and the view's bytes meet no other tensor view's extent (an
// extent that does not fit 64 bits counts as meeting). Else the tile stays
// in the arena.
void Gen::acc_redirect(const Inst& in, const AccStore& a) {
  for (InstId id : a.early) lower_inst(m_.inst(id), id);
  mark(in);
  const ptoas::Type& tt = ty(a.t);
  Label keep;
  unless_tile_layout(a.v, tt, true, keep);
  mov(rsi, q(a.v, 0));  // [rsi, rdi): the view's bytes
  lea(rdi, ptr[rsi + int32_t(int64_t(tt.rows) * tt.cols * 4)]);
  for (ValueId x : a.roots) {
    unsigned rank = (p_.slots[x].count - 1u) / 2u, es = std::max(1u, dtype_bytes(ty(x).elem));
    Label apart;
    // rax = the last element's index: sum of (shape_k - 1) stride_k (an
    // empty view reaches nothing).
    xor_(eax, eax);
    for (unsigned k = 0; k < rank; ++k) {
      mov(rcx, q(x, 1 + k));
      test(rcx, rcx);
      jle(apart, T_NEAR);
      dec(rcx);
      mov(rdx, q(x, 1 + rank + k));
      test(rdx, rdx);
      js(keep, T_NEAR);
      imul(rcx, rdx);
      jo(keep, T_NEAR);
      add(rax, rcx);
      jo(keep, T_NEAR);
    }
    add(rax, 1);
    jo(keep, T_NEAR);
    imul(rax, rax, int(es));
    jo(keep, T_NEAR);
    mov(rcx, q(x, 0));
    add(rax, rcx);  // [rcx, rax): the tensor view's bytes
    jc(keep, T_NEAR);
    cmp(rax, rsi);
    jbe(apart, T_NEAR);
    cmp(rdi, rcx);
    jbe(apart, T_NEAR);
    jmp(keep, T_NEAR);
    L(apart);
  }
  sub(rsi, r15);
  mov(q(a.t, 0), rsi);
  L(keep);
}

// The tstore of plan_acc_stores: nothing to copy when the tmatmuls wrote
// its view (the slot gets its arena offset back).
void Gen::acc_tstore(const Inst& in, ValueId t) {
  mark(in);
  const int32_t off = int32_t(p_.alloc_offset[m_.values[t].def]);
  Label copy, done;
  cmp(q(t, 0), off);
  je(copy, T_NEAR);
  mov(q(t, 0), off);
  jmp(done, T_NEAR);
  L(copy);
  tile_op(in);
  L(done);
}

}  // namespace ptoas::cg::x86::gen
