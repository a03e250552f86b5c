// x86-64 code generation: pto.fuse regions (opt/fuse.cpp) lowered as one
// loop nest. A region this file does not take is lowered op by op, which
// is always correct: the body's meaning is sequential.
//
// What is taken (docs/x86_backend.md, "Fused regions"; x86/fuse_regs.cpp
// decides): f32 tiles in the arena at static offsets, row-major (ND)
// except the one-column ones; tload / tstore between such a tile (f32,
// f16 or bf16) and a rank-2 view with contiguous rows; tcvt between f32,
// f16 and bf16 tiles; the elementwise, tile-scalar and unary f32 ops; trowexpand(add,
// sub, mul, div, max, min) with a one-column operand, tcolexpand(..) with
// a one-row operand; trowsum / trowmax / trowmin into a one-column tile;
// and elementwise ops on one-column tiles (per-row scalars: a norm's
// 1/sqrt(mean + eps)). Every "element" tile has the same valid region
// R x C at run time, checked before the loop (else: the op-by-op code of
// the same body, emitted after it).
//
// The loop nest: rows outer; each row runs the stages of the body in
// order. A stage ends after a row reduction whose result (or source) a
// later op touches, and before a one-column op that follows element ops.
// Within a stage, one column vector at a time, every op's result stays in
// a register for the ops after it and is stored to its tile's row (unless
// the same stage overwrites it later: then only the last write is
// stored); a row reduction accumulates lane-wise and is reduced across
// lanes at the end of the stage. Skewed (FusePlan::set_skew), the stages
// after the lead run rows behind it, inside its column loop.
#include <algorithm>

#include "fuse.h"

namespace ptoas::cg::x86::gen {

// ---- run-time checks -----------------------------------------------------------------

// r8 x r9 = R x C, the valid region of every element tile; one-column tiles
// R x 1; views R x C with unit column stride; one-row tiles at least C
// wide; a stored view's rows at least C apart, and overlapping no other
// view unless it is the same rows (same base and row stride). Else: slow.
void Gen::fuse_guard(const Fuse& f, Label& slow) {
  using Cls = Fuse::Cls;
  mov(r8, q(f.e0, 1));
  mov(r9, q(f.e0, 2));
  test(r8, r8);
  jle(slow, T_NEAR);
  test(r9, r9);
  jle(slow, T_NEAR);
  for (auto [t, c] : f.cls) {
    if (c == Cls::Row) {
      cmp(r9, ty(t).cols);
      jg(slow, T_NEAR);
      continue;
    }
    cmp(r8, q(t, 1));
    jne(slow, T_NEAR);
    if (c == Cls::Col) cmp(q(t, 2), 1);
    else cmp(r9, q(t, 2));
    jne(slow, T_NEAR);
  }
  std::vector<ValueId> views = f.lviews;
  for (ValueId v : f.sviews)
    if (std::find(views.begin(), views.end(), v) == views.end()) views.push_back(v);
  for (ValueId v : views) {
    cmp(r8, q(v, 1));
    jne(slow, T_NEAR);
    cmp(r9, q(v, 2));
    jne(slow, T_NEAR);
    cmp(q(v, 4), 1);
    jne(slow, T_NEAR);
    bool stored = std::find(f.sviews.begin(), f.sviews.end(), v) != f.sviews.end();
    if (stored) {
      cmp(r9, q(v, 3));
      jg(slow, T_NEAR);
    } else {
      cmp(q(v, 3), 0);
      jl(slow, T_NEAR);
    }
  }
  // rdx = one past the last byte of view v's R x C elements.
  auto end_of = [&](ValueId v) {
    lea(rdx, ptr[r8 - 1]);
    imul(rdx, q(v, 3));
    add(rdx, r9);
    shl(rdx, dtype_bytes(ty(v).elem) == 4 ? 2 : 1);
    add(rdx, q(v, 0));
  };
  for (size_t i = 0; i < views.size(); ++i) {
    for (size_t j = i + 1; j < views.size(); ++j) {
      ValueId a = views[i], b = views[j];
      auto sv = [&](ValueId v) { return std::find(f.sviews.begin(), f.sviews.end(), v) != f.sviews.end(); };
      if (!sv(a) && !sv(b)) continue;
      Label ok, apart;
      mov(rax, q(a, 0));
      cmp(rax, q(b, 0));
      jne(apart, T_NEAR);
      mov(rax, q(a, 3));
      cmp(rax, q(b, 3));
      je(ok, T_NEAR);
      L(apart);
      end_of(a);
      cmp(rdx, q(b, 0));
      jle(ok, T_NEAR);
      end_of(b);
      cmp(rdx, q(a, 0));
      jg(slow, T_NEAR);
      L(ok);
    }
  }
}

// Jumps to nt when every stored view's rows are vector-aligned (a whole
// vector of its elements: 32 or 64 bytes for f32, 16 or 32 for f16 / bf16)
// and its tensor is at least 4 MiB (the data will not be read back from
// cache). Streaming stores skip the read for ownership of each line, a
// third of a row kernel's memory traffic.
void Gen::fuse_nt_check(const Fuse& f, Label& nt) {
  if (!fuse_nt_views(f)) return;
  Label no;
  for (ValueId v : f.sviews) {
    int es = int(dtype_bytes(ty(v).elem));
    ValueId whole = v;
    InstId def = m_.values[v].def;
    if (def != kNone && m_.inst(def).op == Op::PartitionView && p_.slots[op(m_.inst(def), 0)].count == 5)
      whole = op(m_.inst(def), 0);
    mov(rax, q(v, 0));
    test(eax, lanes() * es - 1);
    jnz(no, T_NEAR);
    mov(rax, q(v, 3));
    test(eax, lanes() - 1);
    jnz(no, T_NEAR);
    mov(rax, q(whole, 1));
    imul(rax, q(whole, 2));
    cmp(rax, (4 << 20) / es);
    jl(no, T_NEAR);
  }
  jmp(nt, T_NEAR);
  L(no);
}

// Whether the region stores a view (f32, f16 or bf16, all of which
// fuse_st can stream), none of them known to be smaller than the 4 MiB
// fuse_nt_check asks for (a rank-2 make_tensor_view with constant dims,
// as attention's): only then is there a streaming copy of the loop.
bool Gen::fuse_nt_views(const Fuse& f) {
  auto small = [&](ValueId v) {
    InstId def = m_.values[v].def;
    if (def != kNone && m_.inst(def).op == Op::PartitionView) def = m_.values[op(m_.inst(def), 0)].def;
    if (def == kNone || m_.inst(def).op != Op::MakeTensorView || m_.inst(def).n_ins != 5) return false;
    uint64_t bytes = dtype_bytes(ty(v).elem);
    for (unsigned k : {1u, 2u}) {
      InstId c = m_.values[op(m_.inst(def), k)].def;
      uint64_t dim;
      if (c == kNone || m_.inst(c).op != Op::Constant || !constant_bits(m_, m_.inst(c), dim) || dim >= (1u << 22))
        return false;
      bytes *= dim;
    }
    return bytes < (4u << 20);
  };
  for (ValueId v : f.sviews)
    if (small(v)) return false;
  return !f.sviews.empty();
}

// ---- the loop nest -------------------------------------------------------------------

// With fuse_lag_ (a skewed region's lagging stage), that many rows back: a
// view's stream at that lag points at its row (FusePlan::view_stream); a
// tile stream's row is as many strides back.
RegExp Gen::fuse_at(const Fuse& f, ValueId t, bool vec) {
  int es = int(dtype_bytes(ty(t).elem));
  auto c = f.cls.find(t);
  if (c == f.cls.end()) return kStream[f.view_stream(t, fuse_lag_)] + rax * es;  // a view
  int32_t o = f.off.at(t);
  if (c->second == Fuse::Row) return r15 + rax * es + o;
  size_t s = f.stream.at(t);
  if (f.sview[s] == kNone) o -= fuse_lag_ * int32_t(f.sstride[s]);
  const Reg64& p = kStream[s];
  return vec ? p + rax * es + o : p + o;
}

// V = lanes() elements of type d at e as f32 lanes. A narrow view's tail
// is read byte-exactly, never past the valid region (avx512: a word-masked
// move; avx2: pieces of 2, 4, 8 bytes from its end into xmm14, rbx and
// rcx kept); tiles go through vld_e (whose avx2 tail reads a whole vector
// inside the arena).
void Gen::fuse_ld(DType d, const Xmm& v, const RegExp& e, bool masked, bool view) {
  if (!masked || !view || dtype_bytes(d) == 4) return vld_e(d, v, e, masked);
  if (z()) {
    vmovdqu16(ymm14 | k1 | T_z, ptr[e]);
  } else {
    push(rbx);
    push(rcx);
    lea(rbx, ptr[e]);
    mov(rcx, r9);
    sub(rcx, rax);                 // 1 .. 7 elements
    lea(rbx, ptr[rbx + rcx * 2]);  // their end
    vpxor(xmm14, xmm14, xmm14);
    for (int bytes : {2, 4, 8}) {  // the pieces of the count's bits, last first
      Label skip;
      test(cl, bytes / 2);
      jz(skip, T_NEAR);
      sub(rbx, bytes);
      vpslldq(xmm14, xmm14, bytes);  // the later elements move up
      if (bytes == 2) vpinsrw(xmm14, xmm14, word[rbx], 0);
      else if (bytes == 4) vpinsrd(xmm14, xmm14, dword[rbx], 0);
      else vpinsrq(xmm14, xmm14, qword[rbx], 0);
      L(skip);
    }
    pop(rcx);
    pop(rbx);
  }
  if (d == DType::F16) {
    vcvtph2ps(v, H(14));
  } else {
    vpmovzxwd(v, H(14));
    vpslld(v, v, 16);
  }
}

// Stores lanes v as d at e. Narrow lanes in the loop always hold values of
// their type exactly (loaded, or rounded by round_lane), so bf16 is stored
// as its top half and f16 by an exact vcvtps2ph: nothing is rounded twice,
// and a bf16 signalling NaN keeps its bits as tload / tstore do. Clobbers
// V12-V14; the avx2 tail (vst_e's pieces) keeps rbx and rcx.
void Gen::fuse_st(DType d, const RegExp& e, const Xmm& v, bool masked, bool nt) {
  if (dtype_bytes(d) == 4) return vst_e(d, e, v, masked, nullptr, false, nt);
  bool keep = masked && !z();
  if (keep) {
    push(rbx);
    push(rcx);
  }
  vst_e(d, e, v, masked, nullptr, true, nt);
  if (keep) {
    pop(rcx);
    pop(rbx);
  }
}

void Gen::fuse_col_op(const Fuse& f, size_t i) {
  const Fuse::FOp& o = f.ops[i];
  mark(*o.in);
  // xmm0 still holds o.a when the previous one-column op of the row wrote
  // it: read it there, not back through the store (a chain's latency).
  const bool held = o.a == col_held_ && fuse_lag_ == col_held_lag_;
  col_held_ = o.dst;
  col_held_lag_ = fuse_lag_;
  if (o.op == Op::TRsqrt && o.scal == kNone) {
    // One row's 1 / sqrt in scalar double: the same operations, and so the
    // same bits (NaN, negative, +-0 and Inf included), as the vector code's
    // double halves, at a third of the latency on a norm's critical path.
    if (!held) vmovss(xmm0, ptr[fuse_at(f, o.a, false)]);
    vcvtss2sd(xmm0, xmm0, xmm0);
    vsqrtsd(xmm0, xmm0, xmm0);
    vmovsd(xmm1, qword[r14 + dconst(kDOne)]);
    vdivsd(xmm0, xmm1, xmm0);
    vcvtsd2ss(xmm0, xmm0, xmm0);
    vmovss(ptr[fuse_at(f, o.dst, false)], xmm0);
    return;
  }
  if (o.scal != kNone) {
    int t = o.scalar_first ? 1 : 0;
    if (!held) vmovss(Xmm(t), ptr[fuse_at(f, o.a, false)]);
    else if (t) vmovaps(xmm1, xmm0);
    vbroadcastss(V(1 - t), dword[rbp + disp(sl(o.scal))]);
  } else {
    if (o.b != kNone) vmovss(xmm1, ptr[fuse_at(f, o.b, false)]);
    if (!held) vmovss(xmm0, ptr[fuse_at(f, o.a, false)]);
  }
  elt_lanes(o.op, DType::F32);
  vmovss(ptr[fuse_at(f, o.dst, false)], xmm0);
}

namespace {

// Whether element op q is a float add / sub / mul / div (plain, with a
// scalar, or expanded), one instruction (Gen::varith): its kind in bk.
bool arith_op(const FusePlan::FOp& q, Bin& bk) {
  return (q.k == FK::Elt || q.k == FK::RowExp || q.k == FK::ColExp) && bin_of(q.op, bk) &&
         (bk == Bin::Add || bk == Bin::Sub || bk == Bin::Mul || bk == Bin::Div);
}

// Whether op q computes a quiet NaN from a signalling one it reads, as the
// interpreter's widening tcvt would have quieted it first, with the same
// bits: the float add / sub / mul / div (x86 returns the first NaN operand
// quieted, the same whether or not it was quieted before) and a row sum's
// lane-wise add. A tcvt into f32 whose every reader does may skip its own
// quieting add (+ -0.0).
bool quiets(const FusePlan::FOp& q) {
  Bin bk = Bin::Add;
  return q.k == FK::Red ? q.op == Op::TRowSum : arith_op(q, bk);
}

// Whether every op of `ops` (positions into f.ops, in order) reading t
// before it is written again quiets it.
bool read_quietly(const FusePlan& f, const std::vector<size_t>& ops, size_t from, ValueId t) {
  for (size_t m = from; m < ops.size(); ++m) {
    const FusePlan::FOp& q = f.ops[ops[m]];
    if ((f.reads(q, t) || (q.k == FK::Store && q.a == t)) && !quiets(q)) return false;
    if (f.writes(q, t)) break;
  }
  return true;
}

}  // namespace

// V0 = the chunk of the tile `chain` computes (FusePlan::remat_chain),
// each op as fuse_chunk computes it, from the views, one-column and
// one-row tiles and scalars of fuse_lag_'s row: the element tile an op
// reads is the one in V0. V1 and the load and rounding helpers' V12-V14
// are scratch.
void Gen::fuse_recompute(const Fuse& f, const std::vector<size_t>& chain, bool masked, int si, bool quiet_use) {
  const Fuse::Stage* st = si >= 0 ? &f.stages[size_t(si)] : nullptr;
  // A one-column tile the stage holds for the row (fuse_stage_regs), else
  // one-column and one-row tiles from memory: the register with t, V(w)
  // unless held.
  auto held = [&](ValueId t) {
    if (!st || f.cls.at(t) != Fuse::Col) return -1;
    auto r = st->reg.find(t);
    return r != st->reg.end() ? r->second : -1;
  };
  auto leaf = [&](ValueId t, int w) {
    int h = held(t);
    if (h >= 0) vmovaps(V(w), V(h));
    else if (f.cls.at(t) == Fuse::Col) vbroadcastss(V(w), ptr[fuse_at(f, t, false)]);
    else vld_e(DType::F32, V(w), fuse_at(f, t, true), masked);
  };
  ValueId cur = kNone;  // the tile whose chunk V0 holds
  for (size_t j = 0; j < chain.size(); ++j) {
    const Fuse::FOp& o = f.ops[chain[j]];
    mark(*o.in);
    if (o.k == FK::Load) {
      fuse_ld(ty(o.view).elem, V(0), fuse_at(f, o.view, true), masked, true);
    } else if (o.k == FK::Cvt) {
      bool later_quiets = j + 1 < chain.size() ? quiets(f.ops[chain[j + 1]]) : quiet_use;
      if (ty(o.dst).elem == DType::F32 && ty(o.a).elem != DType::F16 && !later_quiets) vaddps(V(0), V(0), V(3));
      round_lane(ty(o.dst).elem, V(0), true);
    } else if (o.scal != kNone) {
      if (o.scalar_first) vmovaps(V(1), V(0));
      vbroadcastss(V(o.scalar_first ? 0 : 1), dword[rbp + disp(sl(o.scal))]);
      elt_lanes(o.op, DType::F32);
    } else {
      if (o.b == kNone) {
        if (o.a != cur) leaf(o.a, 0);
      } else if (o.a == o.b) {
        if (o.a != cur) leaf(o.a, 0);
        vmovaps(V(1), V(0));
      } else if (o.a == cur) {
        // x op held: one instruction from the held register.
        Bin bk = Bin::Add;
        int h = held(o.b);
        if (h >= 0 && arith_op(o, bk)) {
          varith(bk, V(0), V(0), V(h));
          cur = o.dst;
          continue;
        }
        leaf(o.b, 1);
      } else {
        if (o.b == cur) vmovaps(V(1), V(0));
        else leaf(o.b, 1);
        leaf(o.a, 0);
      }
      // A plain expand copies its operand (into V0 above); the rest are
      // the binary and unary kinds.
      if (o.op != Op::TRowExpand && o.op != Op::TColExpand) elt_lanes(o.op, DType::F32);
    }
    cur = o.dst;
  }
}

// A streaming loop (nt: its views are large or of unknown size) whose
// elements each take more than a few vector ops (an exp or log, or an f16
// / bf16 conversion) reads its views' newest rows a page ahead of their
// loads, one prefetch per 64 bytes (the first of a pair of narrower
// vectors). The hardware's stream prefetchers stop at page boundaries and
// did not keep such loops fed: bench/kernels/softmax.pto avx512, 65536
// rows, 3.44 -> 2.61 ms (docs/bench.md); bf16 RMSNorm 3-5 % too. A loop
// that runs at memory speed does better without them: its prefetches
// compete with its own loads and streaming stores, and the hardware keeps
// up. LayerNorm (f32, its one 1/sqrt per row) went from 0.70-0.73 of the
// stream limit to 0.96-0.99 without them (avx512 0.79-0.82 -> 0.89-0.93),
// the f32 vadd and fused chain 0.86-0.95 -> 0.89-1.00.
void Gen::fuse_prefetch(const Fuse& f, ValueId view, bool masked, bool nt, bool odd) {
  constexpr int kAhead = 4096;
  if (!nt || masked || fuse_lag_ != 0 || !fuse_heavy_) return;
  if (odd && lanes() * dtype_bytes(ty(view).elem) < 64) return;
  prefetcht0(ptr[fuse_at(f, view, true) + kAhead]);
}

void Gen::fuse_chunk(const Fuse& f, size_t si, bool masked, bool nt, bool odd) {
  const Fuse::Stage& st = f.stages[si];
  std::vector<ValueId> live;  // tiles whose register holds this chunk
  // The tile whose chunk the previous op left in V0 (put); the next operand
  // fetch may use it there, and ends that.
  ValueId in_v0 = kNone;
  // Recomputed chunks (fuse_stage_regs): into their registers, the one the
  // first op alone reads last, left in V0.
  for (bool v0 : {false, true})
    for (const Fuse::Stage::Remat& rm : st.remat) {
      if (rm.in_v0 != v0) continue;
      fuse_recompute(f, rm.chain, masked, int(si), read_quietly(f, st.elt, 0, rm.t));
      if (v0) {
        in_v0 = rm.t;
        continue;
      }
      vmovaps(V(st.reg.at(rm.t)), V(0));
      live.push_back(rm.t);
    }
  // The register holding tile t's chunk: its own, or V(w) loaded.
  auto get = [&](ValueId t, int w) {
    ValueId held = in_v0;
    in_v0 = kNone;
    auto c = f.cls.at(t);
    auto r = st.reg.find(t);
    if (c == Fuse::Col) {  // held for the row (fuse_rows), or broadcast
      if (r != st.reg.end()) return r->second;
      vbroadcastss(V(w), ptr[fuse_at(f, t, false)]);
      return w;
    }
    if (w == 0 && t == held) return 0;
    if (r != st.reg.end() && std::find(live.begin(), live.end(), t) != live.end()) return r->second;
    vld_e(ty(t).elem, V(w), fuse_at(f, t, true), masked);
    return w;
  };
  auto into = [&](ValueId t, int w) {
    int r = get(t, w);
    if (r != w) vmovaps(V(w), V(r));
  };
  // f32 add / sub / mul / div (plain, with a scalar, or expanded): V0 =
  // a op b by one instruction from the registers that hold the operands,
  // without copying them into V0 and V1 first (bin's other forms).
  auto direct_kind = [&](const Fuse::FOp& o, Bin& bk) { return (o.scal != kNone || o.b != kNone) && arith_op(o, bk); };
  auto direct_bin = [&](const Fuse::FOp& o) {
    Bin bk = Bin::Add;
    if (!direct_kind(o, bk)) return false;
    int x, y;
    if (o.scal != kNone) {
      int t = o.scalar_first ? 1 : 0, ra = get(o.a, t);
      vbroadcastss(V(1 - t), dword[rbp + disp(sl(o.scal))]);
      x = o.scalar_first ? 0 : ra;
      y = o.scalar_first ? ra : 1;
    } else {
      x = get(o.a, 0);
      // An f32 chunk of a whole vector in memory (not in a register) is
      // the instruction's memory operand rather than loaded first.
      auto r = st.reg.find(o.b);
      bool in_reg = r != st.reg.end() && (f.cls.at(o.b) == Fuse::Col ||
                                          std::find(live.begin(), live.end(), o.b) != live.end());
      if (o.b != o.a && !masked && !in_reg && f.cls.at(o.b) != Fuse::Col && ty(o.b).elem == DType::F32) {
        varith(bk, V(0), V(x), ptr[fuse_at(f, o.b, true)]);
        return true;
      }
      y = o.b == o.a ? x : get(o.b, 1);
    }
    varith(bk, V(0), V(x), V(y));
    return true;
  };
  // How many times op q fetches tile t's chunk (get / into), and whether
  // its first fetch is of t into V0.
  auto fetches = [&](const Fuse::FOp& q, ValueId t) {
    if (q.k == FK::Load || q.k == FK::ColOp) return 0;
    Bin bk = Bin::Add;
    int c = q.a == t;
    if (q.scal == kNone && q.b == t && !(q.b == q.a && direct_kind(q, bk))) ++c;
    return c;
  };
  auto first_in_v0 = [&](const Fuse::FOp& q, ValueId t) {
    return q.k != FK::Load && q.k != FK::ColOp && q.a == t && !(q.scal != kNone && q.scalar_first);
  };
  // Whether the result of op st.elt[n] is read later in the chunk (before
  // it is written again) other than by op n + 1's first fetch, which finds
  // it in V0: else its register copy would never be read.
  auto kept = [&](size_t n) {
    ValueId t = f.ops[st.elt[n]].dst;
    int reads = 0;
    for (size_t m = n + 1; m < st.elt.size(); ++m) {
      const Fuse::FOp& q = f.ops[st.elt[m]];
      reads += fetches(q, t);
      if (f.writes(q, t)) break;
    }
    return reads > 1 || (reads == 1 && !first_in_v0(f.ops[st.elt[n + 1]], t));
  };
  // Whether a later op of the chunk takes op n's result from a register
  // for anything but a store (which writes a bf16 lane's top half only).
  auto exact = [&](size_t n) {
    ValueId t = f.ops[st.elt[n]].dst;
    for (size_t m = n + 1; m < st.elt.size(); ++m) {
      const Fuse::FOp& q = f.ops[st.elt[m]];
      if (q.k != FK::Store && fetches(q, t)) return true;
      if (f.writes(q, t)) break;
    }
    return false;
  };
  // A row sum of squares x * x (a norm's) that nothing else reads and
  // nothing stores: the square is not formed, the sum takes it in one FMA
  // (one rounding per step instead of two: within the reduction's bound,
  // DESIGN section 6). Squares only: with terms of both signs, a product
  // that overflows would be +-Inf in the interpreter's sum but not in the
  // FMA's. fma_mul[sum] = the tmul's position, and the tmul is marked with
  // its own; avx2's masked tail keeps the two ops.
  constexpr size_t kNoFma = ~size_t(0);
  std::vector<size_t> fma_mul(st.elt.size(), kNoFma);
  for (size_t r = 0; r < st.elt.size() && !(masked && !z()); ++r) {
    const Fuse::FOp& red = f.ops[st.elt[r]];
    if (red.k != FK::Red || red.op != Op::TRowSum) continue;
    size_t at = r;
    while (at > 0 && !f.writes(f.ops[st.elt[at - 1]], red.a)) --at;
    if (at-- == 0) continue;
    const Fuse::FOp& mul = f.ops[st.elt[at]];
    if (mul.k != FK::Elt || mul.op != Op::TMul || mul.scal != kNone || mul.b != mul.a || mul.store) continue;
    bool alone = true;
    for (size_t m = at + 1; m < st.elt.size(); ++m) {
      const Fuse::FOp& q = f.ops[st.elt[m]];
      alone &= m == r || !fetches(q, red.a);
      if (m < r) alone &= !f.writes(q, mul.a);
      if (f.writes(q, red.a)) break;
    }
    if (alone) fma_mul[r] = fma_mul[at] = at;
  }
  size_t n = 0;  // the position in st.elt of the op being emitted
  auto put = [&](const Fuse::FOp& o) {  // V0 is o's result (a value of o.dst's type)
    if (o.store) fuse_st(ty(o.dst).elem, fuse_at(f, o.dst, true), V(0), masked);
    in_v0 = o.dst;
    auto r = st.reg.find(o.dst);
    auto l = std::find(live.begin(), live.end(), o.dst);
    if (r == st.reg.end()) return;
    if (!kept(n)) {  // its register no longer holds it
      if (l != live.end()) live.erase(l);
      return;
    }
    vmovaps(V(r->second), V(0));
    if (l == live.end()) live.push_back(o.dst);
  };
  for (; n < st.elt.size(); ++n) {
    const Fuse::FOp& o = f.ops[st.elt[n]];
    mark(*o.in);
    switch (o.k) {
      case FK::Load: {
        fuse_prefetch(f, o.view, masked, nt, odd);
        // A chunk read again later goes straight into its tile's register
        // rather than through V0 and a copy.
        auto r = st.reg.find(o.dst);
        if (!o.store && r != st.reg.end() && kept(n)) {
          fuse_ld(ty(o.view).elem, V(r->second), fuse_at(f, o.view, true), masked, true);
          in_v0 = kNone;
          if (std::find(live.begin(), live.end(), o.dst) == live.end()) live.push_back(o.dst);
          break;
        }
        fuse_ld(ty(o.view).elem, V(0), fuse_at(f, o.view, true), masked, true);
        put(o);
        break;
      }
      case FK::Store: {
        Xmm x = V(get(o.a, 0));
        fuse_st(ty(o.view).elem, fuse_at(f, o.view, true), x, masked, nt);
        break;
      }
      case FK::Cvt:
        // The interpreter's conversion through double quiets a signalling
        // NaN. So do rounding to f16 / bf16 and vcvtph2ps (f16 lanes); an
        // f32 or bf16 source into f32 gets + -0.0, which changes nothing
        // else. Then one rounding to the destination type (float -> float
        // is to nearest even whatever the rmode).
        into(o.a, 0);
        if (ty(o.dst).elem == DType::F32 && ty(o.a).elem != DType::F16 &&
            (o.store || !read_quietly(f, st.elt, n + 1, o.dst)))
          vaddps(V(0), V(0), V(3));
        round_lane(ty(o.dst).elem, V(0), exact(n));
        put(o);
        break;
      case FK::Elt:
        if (fma_mul[n] == n) break;  // the sum's FMA below
        if (direct_bin(o)) {
          put(o);
          break;
        }
        if (o.scal != kNone) {
          int t = o.scalar_first ? 1 : 0;
          into(o.a, t);
          vbroadcastss(V(1 - t), dword[rbp + disp(sl(o.scal))]);
        } else {
          into(o.a, 0);
          if (o.b != kNone) into(o.b, 1);
        }
        elt_lanes(o.op, DType::F32);
        put(o);
        break;
      case FK::RowExp: case FK::ColExp:
        if (direct_bin(o)) {
          put(o);
          break;
        }
        into(o.a, 0);
        if (o.b != kNone) {
          into(o.b, 1);
          elt_lanes(o.op, DType::F32);  // the binary kind of the expand op
        }
        put(o);
        break;
      case FK::Red: {
        Xmm acc = V(odd ? o.acc2 : o.acc), t = V(1);
        if (fma_mul[n] != kNoFma) {
          const Fuse::FOp& mul = f.ops[st.elt[fma_mul[n]]];
          Xmm x = V(get(mul.a, 0));
          vfmadd231ps(masked ? acc | k1 : acc, x, x);
          break;
        }
        Xmm x = V(get(o.a, 0));
        if (o.op == Op::TRowSum) {
          if (!masked) {
            vaddps(acc, acc, x);
          } else if (z()) {
            vaddps(acc | k1, acc, x);
          } else {
            vandps(t, x, ymm15);
            vaddps(acc, acc, t);
          }
          break;
        }
        bool mx = o.op == Op::TRowMax;
        // acc = (x > acc) ? x : acc (max), the NaN lanes flagged apart: the
        // flag sums x, one add where a compare and an or (avx512: and a
        // mask to a vector) were. A NaN anywhere makes the sum NaN; so can
        // +Inf and -Inf in one lane (given, or two overflows), which only
        // sends the row to the sequential recomputation, exact anyway.
        Xmm flag = V(o.flag);
        if (!masked) {
          mx ? vmaxps(acc, x, acc) : vminps(acc, x, acc);
          vaddps(flag, flag, x);
        } else if (z()) {
          mx ? vmaxps(acc | k1, x, acc) : vminps(acc | k1, x, acc);
          vaddps(flag | k1, flag, x);
        } else {
          mx ? vmaxps(t, x, acc) : vminps(t, x, acc);
          vblendvps(acc, acc, t, ymm15);
          vandps(t, x, ymm15);
          vaddps(flag, flag, t);
        }
        break;
      }
      case FK::ColOp: break;
    }
  }
}

// Each row reduction of stage s: its lanes reduced into xmm0, then the
// interpreter's sequential order over the stored source row where the
// result depends on it: a NaN sum (its payload), a max / min that met a
// NaN or came out as +-0 (which zero comes first).
void Gen::fuse_finish(const Fuse& f, size_t si) {
  const Fuse::Stage& st = f.stages[si];
  for (size_t n = 0; n < st.elt.size(); ++n) {
    const Fuse::FOp& o = f.ops[st.elt[n]];
    if (o.k != FK::Red) continue;
    const std::vector<int> scratch = fuse_seq_scratch(f, si, n);
    mark(*o.in);
    bool sum = o.op == Op::TRowSum, mx = o.op == Op::TRowMax;
    auto red = [&](const Xmm& d, const Xmm& a, const Operand& b) {
      sum ? vaddps(d, a, b) : mx ? vmaxps(d, a, b) : vminps(d, a, b);
    };
    if (o.acc2 >= 0) red(V(o.acc), V(o.acc), V(o.acc2));
    if (z()) {
      vextractf64x4(ymm1, Zmm(o.acc), 1);
      red(ymm0, Ymm(o.acc), ymm1);
    } else {
      vmovaps(ymm0, Ymm(o.acc));
    }
    vextractf128(xmm1, ymm0, 1);
    red(xmm0, xmm0, xmm1);
    vmovhlps(xmm1, xmm0, xmm0);
    red(xmm0, xmm0, xmm1);
    vmovshdup(xmm1, xmm0);
    red(xmm0, xmm0, xmm1);
    Label seq, done;
    if (sum) {
      vucomiss(xmm0, xmm0);
      jnp(done, T_NEAR);
    } else {
      if (z()) {
        vcmpps(k7, Zmm(o.flag), Zmm(o.flag), 3);  // unordered: a NaN in the flag's sum
        kortestw(k7, k7);
      } else {
        vcmpps(ymm1, Ymm(o.flag), Ymm(o.flag), 3);
        vmovmskps(eax, ymm1);
        test(eax, eax);
      }
      jnz(seq, T_NEAR);
      vxorps(xmm1, xmm1, xmm1);
      vucomiss(xmm0, xmm1);
      jne(done, T_NEAR);
    }
    L(seq);
    if (!o.mat.empty())  // the source's row, whose chunks were not stored
      vec_loop([&](bool masked) {
        fuse_recompute(f, o.mat, masked, -1, false);
        fuse_st(DType::F32, fuse_at(f, o.a, true), V(0), masked);
      });
    {
      Label col, end;
      if (sum) {
        vxorps(xmm0, xmm0, xmm0);
        xor_(eax, eax);
      } else {
        vmovss(xmm0, dword[fuse_at(f, o.a, false)]);
        mov(eax, 1);
        cmp(rax, r9);
        jge(end, T_NEAR);
      }
      L(col);
      if (sum && o.square != kNone) {  // the source's row is x * x, not stored
        vmovss(xmm1, dword[fuse_at(f, o.square, true)]);
        vmulss(xmm1, xmm1, xmm1);
        vaddss(xmm0, xmm0, xmm1);
      } else if (sum) {
        vaddss(xmm0, xmm0, dword[fuse_at(f, o.a, true)]);
      } else {
        vmovss(Xmm(scratch[0]), dword[fuse_at(f, o.a, true)]);
        minmax_step(mx, V(0), V(scratch[0]), scratch[1], scratch[2], scratch[3]);
      }
      inc(rax);
      cmp(rax, r9);
      jl(col, T_NEAR);
      L(end);
      if (!sum) vaddps(xmm0, xmm0, Xmm(3));  // quiet a signalling NaN (f32 -> double)
    }
    reload_held_consts(7, 14);  // the scratch registers (held ones are among V7-V14)
    L(done);
    vmovss(ptr[fuse_at(f, o.dst, false)], xmm0);
  }
}

void Gen::fuse_rows(const Fuse& f, bool nt) {
  for (size_t s = 0; s < f.sstride.size(); ++s) {
    if (f.sview[s] != kNone) mov(kStream[s], q(f.sview[s], 0));
    else mov(kStream[s], r15);
  }
  const size_t n_st = f.stages.size(), lead = f.lead();
  const int depth = f.depth();
  // The accumulators of stage si's reductions, zeroed (sums) or set to the
  // identity (max / min), their NaN flags cleared; the one-column operands
  // it holds for the row, broadcast.
  auto init_acc = [&](size_t si) {
    for (auto [t, r] : f.stages[si].reg)
      if (f.cls.at(t) == Fuse::Col) vbroadcastss(V(r), ptr[fuse_at(f, t, false)]);
    for (size_t i : f.stages[si].elt) {
      const Fuse::FOp& o = f.ops[i];
      if (o.k != FK::Red) continue;
      for (int a : {o.acc, o.acc2}) {
        if (a < 0) continue;
        if (o.op == Op::TRowSum) vxorps(V(a), V(a), V(a));
        else vbroadcastss(V(a), dword[r14 + (o.op == Op::TRowMax ? kNegInfF32 : kPosInfF32)]);
      }
      if (o.flag >= 0) vxorps(V(o.flag), V(o.flag), V(o.flag));
    }
  };
  // Stages first .. last in one column loop, the parts of each that run
  // lo .. hi rows behind the newest (FusePlan::col_lag, stage_lag), each
  // on its own row: before the loop the one-column ops, after it the
  // reductions' ends; the loop has the shape of the first stage with
  // column work (pairs of vectors when unrolled). Unskewed: stages(si, si,
  // 0, 0), stage si alone on the newest row, whatever its lag when skewed.
  auto stages = [&](size_t first, size_t last, int lo, int hi) {
    auto lag = [&](size_t si, bool col) { return first == last ? 0 : col ? f.col_lag(si) : f.stage_lag(si); };
    auto each = [&](bool col, const std::function<void(size_t)>& emit) {
      for (int p = lo; p <= hi; ++p)
        for (size_t si = first; si <= last; ++si) {
          if (lag(si, col) != p) continue;
          fuse_lag_ = p;
          emit(si);
        }
      fuse_lag_ = 0;
    };
    col_held_ = kNone;
    each(true, [&](size_t si) {
      for (size_t i : f.stages[si].col) fuse_col_op(f, i);
    });
    col_held_ = kNone;
    bool any = false;
    size_t shape = 0;
    each(false, [&](size_t si) {
      if (!any) shape = si;
      any |= !f.stages[si].elt.empty();
    });
    if (!any) return;
    each(false, init_acc);
    auto chunk = [&](bool masked, bool odd) { each(false, [&](size_t si) { fuse_chunk(f, si, masked, nt, odd); }); };
    if (!f.stages[shape].unroll) {
      vec_loop([&](bool masked) { chunk(masked, false); });
    } else {  // pairs of vectors while two are left (r13 lowered by one meanwhile), then vec_loop's end
      Label pair, one, tail, next;
      xor_(eax, eax);
      sub(r13, lanes());
      cmp(rax, r13);
      jge(one, T_NEAR);
      L(pair);
      sched_range([&] {
        chunk(false, false);
        add(rax, lanes());
        chunk(false, true);
      });
      add(rax, lanes());
      cmp(rax, r13);
      jl(pair, T_NEAR);
      L(one);
      add(r13, lanes());
      cmp(rax, r13);
      jge(tail, T_NEAR);
      chunk(false, false);
      add(rax, lanes());
      L(tail);
      cmp(rax, r9);
      jge(next, T_NEAR);
      chunk(true, false);
      L(next);
    }
    each(false, [&](size_t si) { fuse_finish(f, si); });
  };
  // To the next row: every tile stream (a lagging part reaches its row
  // from the newest), and the views of the parts lo .. hi (those that ran).
  auto advance = [&](int lo, int hi) {
    for (size_t s = 0; s < f.sstride.size(); ++s) {
      if (f.sview[s] == kNone) {
        add(kStream[s], int(f.sstride[s]));
        continue;
      }
      if (f.lag[s] < lo || f.lag[s] > hi) continue;
      mov(rax, q(f.sview[s], 3));
      shl(rax, dtype_bytes(ty(f.sview[s]).elem) == 4 ? 2 : 1);
      add(kStream[s], rax);
    }
  };
  // One row, every stage in order on it (unskewed, or too few rows to fill
  // a skewed loop).
  auto plain = [&] {
    Label row;
    L(row);
    for (size_t si = 0; si < n_st; ++si) stages(si, si, 0, 0);
    advance(0, depth);
    dec(r8);
    jnz(row, T_NEAR);
  };
  // Tiles of static valid rows more than the depth (attention's) never
  // take the one-row-at-a-time path: it is not emitted.
  const int32_t vrow = ty(f.e0).vrow;
  const bool deep = vrow > depth;
  if (depth == 0) {
    plain();
  } else {
    // Rows 0 .. depth - 1 fill the pipeline (what lags p rows starts at row
    // p), the loop runs every stage, then it drains: the lagging parts
    // finish the last rows.
    Label few, done, row;
    if (!deep) {
      cmp(r8, depth);
      jle(few, T_NEAR);
    }
    auto before = [&] {
      for (size_t si = 0; si < lead; ++si) stages(si, si, 0, 0);
    };
    for (int i = 0; i < depth; ++i) {
      before();
      stages(lead, n_st - 1, 0, i);
      advance(0, i);
      dec(r8);
    }
    L(row);
    before();
    stages(lead, n_st - 1, 0, depth);
    advance(0, depth);
    dec(r8);
    jnz(row, T_NEAR);
    for (int j = 1; j <= depth; ++j) {
      stages(lead, n_st - 1, j, depth);
      if (j < depth) advance(j, depth);
    }
    if (!deep) {
      jmp(done, T_NEAR);
      L(few);
      plain();
    }
    L(done);
  }
  if (nt) sfence();
}

bool Gen::fused_region(const Inst& in) {
  Fuse f;
  if (!fuse_plan(in, f)) return false;
  mark(in);
  Label slow, nt, done;
  fuse_guard(f, slow);
  for (ValueId t : f.pads) {  // tload fills the tile with its pad value first
    if (f.is_priv(t)) continue;  // never read outside R x C
    const ptoas::Type& tt = ty(t);
    pad_fill(t, uint64_t(tt.rows) * uint64_t(tt.cols), dtype_bytes(tt.elem), pad_bits(tt), true);
  }
  vec_bounds(done);
  LOOP_CONSTANTS();
  fuse_hold_consts(f);
  fuse_heavy_ = fuse_has_elem(f, narrow_float) ||
                std::any_of(f.ops.begin(), f.ops.end(), [](const Fuse::FOp& o) { return o.k == FK::Elt && is_math(o.op); });
  fuse_nt_check(f, nt);
  fuse_rows(f, false);
  jmp(done, T_NEAR);
  if (fuse_nt_views(f)) {
    L(nt);
    fuse_rows(f, true);
    jmp(done, T_NEAR);
  }
  fconst_reg_ = filled_fconst_regs();
  L(slow);
  lower_region(m_.region(in, 0));
  L(done);
  return true;
}

}  // namespace ptoas::cg::x86::gen
