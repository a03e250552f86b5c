// x86-64 code generation: pto.fuse regions (opt/fuse.cpp) lowered as one
// loop nest. A region this file does not take is lowered op by op, which
// is always correct: the body's meaning is sequential.
//
// What is taken (docs/x86_backend.md, "Fused regions"): f32 tiles in the
// arena at static offsets, row-major (ND) except the one-column ones;
// tload / tstore between such a tile and a rank-2 view with contiguous
// rows; the elementwise, tile-scalar and unary f32 ops; trowexpand(add,
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
// lanes at the end of the stage.
#include <algorithm>
#include <map>

#include "tile_layout.h"
#include "x86_gen.h"

namespace ptoas::cg::x86::gen {

namespace {

enum class FK : uint8_t { Load, Store, Elt, ColOp, RowExp, ColExp, Red };

// Row pointers of the loop (one per distinct tile row stride, one per view).
const Reg64 kStream[] = {rbx, rcx, rdx, rsi, rdi, r10, r11, r12};
constexpr size_t kStreams = sizeof(kStream) / sizeof(kStream[0]);

bool is_math(Op o) { return o == Op::TExp || o == Op::TLog || o == Op::TRsqrt; }

// The elementwise, tile-scalar and unary ops the column loop computes.
bool fused_elt_op(Op o) {
  switch (o) {
    case Op::TAdd: case Op::TSub: case Op::TMul: case Op::TDiv: case Op::TMax: case Op::TMin:
    case Op::TAddS: case Op::TSubS: case Op::TMulS: case Op::TDivS: case Op::TMaxS: case Op::TMinS:
    case Op::TNeg: case Op::TAbs: case Op::TRelu: case Op::TSqrt: case Op::TRecip: case Op::TExp:
    case Op::TLog: case Op::TRsqrt:
      return true;
    default:
      return false;
  }
}

}  // namespace

struct Gen::Fuse {
  enum Cls : uint8_t { Elem, Col, Row };
  struct FOp {
    FK k;
    const Inst* in;
    Op op;
    ValueId dst = kNone, a = kNone, b = kNone;  // tile operands, in order
    ValueId view = kNone, scal = kNone;
    bool scalar_first = false;
    bool store = true;          // the dst chunk goes to its tile (false: overwritten later in the stage)
    int acc = -1, flag = -1;    // Red: the accumulator and (max / min) NaN-flag registers
    int acc2 = -1;              // Red: the odd vectors' accumulator (an unrolled stage)
  };
  struct Stage {
    std::vector<size_t> col;     // one-column ops, once per row before the column loop
    std::vector<size_t> elt;     // the ops of the column loop
    std::map<ValueId, int> reg;  // tiles whose chunk stays in a register
    bool unroll = false;         // two vectors per iteration (a second accumulator per reduction)
  };
  std::vector<FOp> ops;
  std::vector<Stage> stages;
  std::map<ValueId, Cls> cls;
  std::map<ValueId, int32_t> off;       // arena offsets
  std::vector<ValueId> lviews, sviews;  // tload sources, tstore destinations
  std::vector<ValueId> pads;            // tiles a tload fills first (the pad outside R x C)
  std::vector<int64_t> sstride;         // per stream: a tile row stride (views: 0)
  std::vector<ValueId> sview;           // per stream: its view (tile streams: kNone)
  std::map<ValueId, size_t> stream;     // tile (Elem, Col) or view -> its stream
  ValueId e0 = kNone;                   // an Elem tile: its valid region is R x C
  // Tiles nothing outside the region reads (their alloc_tile in the
  // region's block, every other use in the body, written before read
  // there, no alloc_tile at an explicit address in the function): their
  // chunks are stored only for reads from memory later in the row.
  std::vector<ValueId> priv;

  bool writes(const FOp& o, ValueId t) const { return o.k != FK::Store && o.dst == t; }
  bool touches(const FOp& o, ValueId t) const { return o.dst == t || o.a == t || o.b == t; }
  bool reads(const FOp& o, ValueId t) const { return o.a == t || o.b == t; }
  bool is_priv(ValueId t) const { return std::find(priv.begin(), priv.end(), t) != priv.end(); }
};

// ---- the plan ------------------------------------------------------------------------

bool Gen::fuse_plan(const Inst& fin, Fuse& f) {
  using Cls = Fuse::Cls;
  const Region& body = m_.region(fin, 0);
  bool ok = true;
  auto tile = [&](ValueId v) {
    const ptoas::Type& t = ty(v);
    if (t.kind != TypeKind::TileBuf || t.elem != DType::F32 || t.slayout != SLayout::NoneBox || t.rows <= 0 ||
        t.cols <= 0 || p_.slots[v].count != 3)
      return ok = false;
    InstId def = m_.values[v].def;
    if (def == kNone || m_.inst(def).op != Op::AllocTile || p_.alloc_offset[def] == kNone) return ok = false;
    f.off[v] = int32_t(p_.alloc_offset[def]);
    return true;
  };
  auto view = [&](ValueId v) {
    const ptoas::Type& t = ty(v);
    if (t.kind == TypeKind::Ptr || t.kind == TypeKind::TileBuf || t.elem != DType::F32 || p_.slots[v].count != 5)
      ok = false;
  };
  auto set = [&](ValueId v, Cls c) {
    auto [it, fresh] = f.cls.emplace(v, c);
    if (!fresh && it->second != c) ok = false;
  };
  for (unsigned i = 0; i < body.inst_count && ok; ++i) {
    const Inst& in = m_.inst(m_.region_inst(body, i));
    if ((in.op == Op::Yield && in.n_ins == 0 && i + 1 == body.inst_count)) break;
    if (in.n_regions || in.n_res || in.n_outs != 1 || in.n_ins < 1) return false;
    Fuse::FOp o{FK::Elt, &in, in.op};
    ValueId out = op(in, in.n_ins);
    switch (in.op) {
      case Op::TLoad:
        if (in.n_ins != 1) return false;
        o.k = FK::Load, o.view = op(in, 0), o.dst = out;
        view(o.view), tile(o.dst), set(o.dst, Cls::Elem);
        break;
      case Op::TStore: {
        std::string_view atomic = m_.attr_word(in, "atomicType");
        std::string_view relu = m_.attr_word(in, "reluPreMode");
        if (in.n_ins != 1 || (!atomic.empty() && atomic != "atomic_none") || (!relu.empty() && relu != "no_relu"))
          return false;
        o.k = FK::Store, o.a = op(in, 0), o.view = out;
        view(o.view), tile(o.a), set(o.a, Cls::Elem);
        break;
      }
      case Op::TRowSum: case Op::TRowMax: case Op::TRowMin:
        o.k = FK::Red, o.a = op(in, 0), o.dst = out;
        tile(o.a), tile(o.dst), set(o.a, Cls::Elem), set(o.dst, Cls::Col);
        if (ok && geo(o.dst).rs != 4) return false;
        break;
      case Op::TRowExpand: case Op::TRowExpandAdd: case Op::TRowExpandSub: case Op::TRowExpandMul:
      case Op::TRowExpandDiv: case Op::TRowExpandMax: case Op::TRowExpandMin:
      case Op::TColExpand: case Op::TColExpandAdd: case Op::TColExpandSub: case Op::TColExpandMul:
      case Op::TColExpandDiv: case Op::TColExpandMax: case Op::TColExpandMin: {
        bool plain = in.op == Op::TRowExpand || in.op == Op::TColExpand;
        bool row = op_name(in.op).substr(0, 8) == "pto.trow";
        o.k = row ? FK::RowExp : FK::ColExp, o.a = op(in, 0), o.dst = out;
        if (!plain) {
          if (in.n_ins < 2) return false;
          o.b = op(in, 1);
        }
        tile(o.dst), set(o.dst, Cls::Elem);
        if (!row) {  // col_expand's rule: a one-row operand is read at row 0
          for (ValueId s : {o.a, o.b})
            if (s != kNone && tile(s)) set(s, plain || ty(s).rows == 1 ? Cls::Row : Cls::Elem);
          break;
        }
        if (!tile(o.a) || (!plain && !tile(o.b))) return false;
        // row_expand's rule: the second operand is the column when it can be.
        int colk = plain ? 0 : ty(o.b).cols == 1 || ty(o.b).vcol == 1 ? 1 : ty(o.a).cols == 1 || ty(o.a).vcol == 1 ? 0 : -1;
        if (colk < 0) return false;
        set(colk ? o.b : o.a, Cls::Col);
        if (!plain) set(colk ? o.a : o.b, Cls::Elem);
        break;
      }
      default: {  // elementwise, tile-scalar, unary (elementwise()'s operand rules)
        const OpInfo& info = op_info(in.op);
        if (!fused_elt_op(in.op)) return false;
        size_t want = info.sem == Sem::EltBin ? 2 : 1, got = 0;
        o.dst = out;
        tile(o.dst);
        for (unsigned k = 0; k < in.n_ins; ++k) {
          ValueId v = op(in, k);
          if (ty(v).kind == TypeKind::TileBuf) {
            if (got == want) continue;  // a trailing tmp tile is not read
            tile(v);
            (got++ ? o.b : o.a) = v;
          } else {
            if (o.scal != kNone || ty(v).kind != TypeKind::Scalar || ty(v).elem != DType::F32) return false;
            o.scal = v;
            o.scalar_first = k == 0;
          }
        }
        if (got != want || (info.sem == Sem::EltScalar) != (o.scal != kNone)) return false;
        break;
      }
    }
    if (!ok) return false;
    f.ops.push_back(o);
  }
  if (!ok || f.ops.empty()) return false;
  // Elementwise ops touching a one-column tile are one-column ops; the
  // rest work on element tiles.
  for (bool changed = true; changed;) {
    changed = false;
    for (Fuse::FOp& o : f.ops) {
      if (o.k != FK::Elt) continue;
      bool col = false;
      for (ValueId t : {o.dst, o.a, o.b})
        if (t != kNone && f.cls.count(t) && f.cls[t] == Cls::Col) col = true;
      if (!col) continue;
      o.k = FK::ColOp;
      changed = true;
      for (ValueId t : {o.dst, o.a, o.b})
        if (t != kNone) set(t, Cls::Col);
    }
  }
  for (Fuse::FOp& o : f.ops)
    if (o.k == FK::Elt)
      for (ValueId t : {o.dst, o.a, o.b})
        if (t != kNone) set(t, Cls::Elem);
  if (!ok) return false;
  // Layouts, disjoint storage, a first element tile.
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (auto [t, c] : f.cls) {
    if (c != Cls::Col && geo(t).dn) return false;
    if (c == Cls::Elem && f.e0 == kNone) f.e0 = t;
    spans.push_back({f.off[t], f.off[t] + int64_t(tile_storage_bytes(ty(t)))});
  }
  if (f.e0 == kNone) return false;
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second) return false;
  // A tload's tile: its first access is that tload (its pad fill moves to
  // the start of the region).
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Fuse::FOp& o = f.ops[i];
    if (o.k == FK::Load) {
      if (std::find(f.lviews.begin(), f.lviews.end(), o.view) == f.lviews.end()) f.lviews.push_back(o.view);
      if (std::find(f.pads.begin(), f.pads.end(), o.dst) != f.pads.end()) continue;
      for (size_t j = 0; j < i; ++j)
        if (f.touches(f.ops[j], o.dst)) return false;
      f.pads.push_back(o.dst);
    } else if (o.k == FK::Store) {
      if (std::find(f.sviews.begin(), f.sviews.end(), o.view) == f.sviews.end()) f.sviews.push_back(o.view);
    }
  }
  // Streams.
  for (auto [t, c] : f.cls) {
    if (c == Cls::Row) continue;
    int64_t rs = geo(t).rs;
    auto it = std::find(f.sstride.begin(), f.sstride.end(), rs);
    size_t s = size_t(it - f.sstride.begin());
    if (it == f.sstride.end()) {
      f.sstride.push_back(rs);
      f.sview.push_back(kNone);
    }
    f.stream[t] = s;
  }
  for (const std::vector<ValueId>* vs : {&f.lviews, &f.sviews})
    for (ValueId v : *vs) {
      if (f.stream.count(v)) continue;
      f.stream[v] = f.sstride.size();
      f.sstride.push_back(0);
      f.sview.push_back(v);
    }
  if (f.sstride.size() > kStreams) return false;
  fuse_private(fin, f);
  // Stages.
  f.stages.emplace_back();
  for (size_t i = 0; i < f.ops.size(); ++i) {
    const Fuse::FOp& o = f.ops[i];
    if (o.k == FK::ColOp) {
      if (!f.stages.back().elt.empty()) f.stages.emplace_back();
      f.stages.back().col.push_back(i);
      continue;
    }
    f.stages.back().elt.push_back(i);
    if (o.k != FK::Red) continue;
    bool cut = false;
    for (size_t j = i + 1; j < f.ops.size(); ++j)
      cut |= f.touches(f.ops[j], o.dst) || f.writes(f.ops[j], o.a);
    if (cut && i + 1 < f.ops.size()) f.stages.emplace_back();
  }
  for (size_t s = 0; s < f.stages.size(); ++s)
    if (!fuse_stage_regs(f, s)) return false;
  return true;
}

// Registers of stage s: each row reduction's accumulator (and NaN flag),
// then each written tile's chunk while any are left. The math helpers
// (exp / log / rsqrt) use V8-V13, the ops V0, V1 and the loop constants
// V3-V6; avx2 keeps the tail mask in V15.
bool Gen::fuse_stage_regs(Fuse& f, size_t si) {
  Fuse::Stage& st = f.stages[si];
  bool math = false;
  for (size_t i : st.elt) math |= is_math(f.ops[i].op);
  std::vector<int> pool;
  for (int r = z() ? 31 : 14; r >= 2; --r) {
    if (r >= 3 && r <= 6) continue;
    if (math && r >= 8 && r <= 13) continue;
    if (r == 15) continue;
    pool.push_back(r);
  }
  auto take = [&](int& r) {
    if (pool.empty()) return false;
    r = pool.back();
    pool.pop_back();
    return true;
  };
  for (size_t i : st.elt) {
    Fuse::FOp& o = f.ops[i];
    if (o.k != FK::Red) continue;
    if (!take(o.acc) || (o.op != Op::TRowSum && !take(o.flag))) return false;
  }
  std::vector<int> before = pool;
  st.unroll = true;
  for (size_t i : st.elt)
    if (f.ops[i].k == FK::Red) st.unroll &= take(f.ops[i].acc2);
  if (!st.unroll) {
    pool = before;
    for (size_t i : st.elt) f.ops[i].acc2 = -1;
  }
  for (size_t n = 0; n < st.elt.size(); ++n) {
    Fuse::FOp& o = f.ops[st.elt[n]];
    if (o.k == FK::Store || o.k == FK::Red) continue;
    int r;
    if (!st.reg.count(o.dst) && take(r)) st.reg[o.dst] = r;
    bool later = false;
    for (size_t m = n + 1; m < st.elt.size(); ++m) later |= f.writes(f.ops[st.elt[m]], o.dst);
    // A private tile's chunk is needed in memory by a later stage's read
    // or a row reduction of this stage (its sequential recomputation).
    bool needed = !f.is_priv(o.dst);
    for (size_t m = 0; m < st.elt.size(); ++m)
      needed |= f.ops[st.elt[m]].k == FK::Red && f.ops[st.elt[m]].a == o.dst;
    for (size_t t = si + 1; t < f.stages.size(); ++t)
      for (const std::vector<size_t>* v : {&f.stages[t].col, &f.stages[t].elt})
        for (size_t m : *v) needed |= f.reads(f.ops[m], o.dst);
    o.store = !((later || !needed) && st.reg.count(o.dst));
  }
  return true;
}

void Gen::fuse_private(const Inst& fin, Fuse& f) {
  InstId fid = InstId(&fin - m_.insts.data());
  const Region& fbody = m_.region(fin, 0);
  const Region& top = m_.region(m_.inst(fn_), 0);
  // The block holding the fuse op, and every instruction outside the body.
  const Region* home = nullptr;
  std::vector<InstId> inside;
  walk_region(m_, fbody, [&](InstId id, const Inst&) { inside.push_back(id); });
  std::sort(inside.begin(), inside.end());
  bool addr = false;
  std::vector<ValueId> used;  // tiles used outside the body
  auto scan = [&](const Region& r, auto&& self) -> void {
    for (unsigned i = 0; i < r.inst_count; ++i) {
      InstId id = m_.region_inst(r, i);
      const Inst& in = m_.inst(id);
      if (id == fid) home = &r;
      if (in.op == Op::AllocTile && (in.flags & kInstHasAddr)) addr = true;
      if (std::binary_search(inside.begin(), inside.end(), id)) continue;
      for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k) used.push_back(op(in, k));
      for (unsigned k = 0; k < in.n_regions; ++k) self(m_.region(in, k), self);
    }
  };
  scan(top, scan);
  if (addr || !home) return;
  for (auto [t, c] : f.cls) {
    if (c != Fuse::Elem || std::find(used.begin(), used.end(), t) != used.end()) continue;
    InstId def = m_.values[t].def;
    bool here = false;
    for (unsigned i = 0; i < home->inst_count; ++i) here |= m_.region_inst(*home, i) == def;
    if (!here) continue;
    for (const Fuse::FOp& o : f.ops) {
      if (!f.touches(o, t)) continue;
      if (f.writes(o, t) && !f.reads(o, t)) f.priv.push_back(t);
      break;
    }
  }
}

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
    shl(rdx, 2);
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

// Jumps to nt when every stored view's rows are vector-aligned and its
// tensor is at least 4 MiB (the data will not be read back from cache).
void Gen::fuse_nt_check(const Fuse& f, Label& nt) {
  if (f.sviews.empty()) return;
  Label no;
  int vb = z() ? 64 : 32;
  for (ValueId v : f.sviews) {
    ValueId whole = v;
    InstId def = m_.values[v].def;
    if (def != kNone && m_.inst(def).op == Op::PartitionView && p_.slots[op(m_.inst(def), 0)].count == 5)
      whole = op(m_.inst(def), 0);
    mov(rax, q(v, 0));
    test(eax, vb - 1);
    jnz(no, T_NEAR);
    mov(rax, q(v, 3));
    test(eax, vb / 4 - 1);
    jnz(no, T_NEAR);
    mov(rax, q(whole, 1));
    imul(rax, q(whole, 2));
    cmp(rax, (4 << 20) / 4);
    jl(no, T_NEAR);
  }
  jmp(nt, T_NEAR);
  L(no);
}

// ---- the loop nest -------------------------------------------------------------------

Address Gen::fuse_at(const Fuse& f, ValueId t, bool vec) {
  auto c = f.cls.find(t);
  if (c == f.cls.end()) {  // a view
    return ptr[kStream[f.stream.at(t)] + rax * 4];
  }
  int32_t o = f.off.at(t);
  if (c->second == Fuse::Row) return ptr[r15 + rax * 4 + o];
  const Reg64& p = kStream[f.stream.at(t)];
  return vec ? ptr[p + rax * 4 + o] : ptr[p + o];
}

void Gen::fuse_col_op(const Fuse& f, size_t i) {
  const Fuse::FOp& o = f.ops[i];
  mark(*o.in);
  if (o.scal != kNone) {
    int t = o.scalar_first ? 1 : 0;
    vmovss(Xmm(t), fuse_at(f, o.a, false));
    vbroadcastss(V(1 - t), dword[rbp + disp(sl(o.scal))]);
  } else {
    vmovss(xmm0, fuse_at(f, o.a, false));
    if (o.b != kNone) vmovss(xmm1, fuse_at(f, o.b, false));
  }
  elt_lanes(o.op, DType::F32);
  vmovss(fuse_at(f, o.dst, false), xmm0);
}

void Gen::fuse_chunk(const Fuse& f, size_t si, bool masked, bool nt, bool odd) {
  const Fuse::Stage& st = f.stages[si];
  std::vector<ValueId> live;  // tiles whose register holds this chunk
  // The register holding tile t's chunk: its own, or V(w) loaded.
  auto get = [&](ValueId t, int w) {
    auto c = f.cls.at(t);
    if (c == Fuse::Col) {
      vbroadcastss(V(w), fuse_at(f, t, false));
      return w;
    }
    auto r = st.reg.find(t);
    if (r != st.reg.end() && std::find(live.begin(), live.end(), t) != live.end()) return r->second;
    vld(V(w), fuse_at(f, t, true), masked);
    return w;
  };
  auto into = [&](ValueId t, int w) {
    int r = get(t, w);
    if (r != w) vmovaps(V(w), V(r));
  };
  auto put = [&](const Fuse::FOp& o) {  // V0 is o's result
    if (o.store) vst(fuse_at(f, o.dst, true), V(0), masked);
    auto r = st.reg.find(o.dst);
    if (r == st.reg.end()) return;
    vmovaps(V(r->second), V(0));
    if (std::find(live.begin(), live.end(), o.dst) == live.end()) live.push_back(o.dst);
  };
  for (size_t i : st.elt) {
    const Fuse::FOp& o = f.ops[i];
    mark(*o.in);
    switch (o.k) {
      case FK::Load:
        vld(V(0), fuse_at(f, o.view, true), masked);
        put(o);
        break;
      case FK::Store: {
        Xmm x = V(get(o.a, 0));
        if (nt && !masked) vmovntps(fuse_at(f, o.view, true), x);
        else vst(fuse_at(f, o.view, true), x, masked);
        break;
      }
      case FK::Elt:
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
        into(o.a, 0);
        if (o.b != kNone) {
          into(o.b, 1);
          elt_lanes(o.op, DType::F32);  // the binary kind of the expand op
        }
        put(o);
        break;
      case FK::Red: {
        Xmm x = V(get(o.a, 0)), acc = V(odd ? o.acc2 : o.acc), t = V(1);
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
        // acc = (x > acc) ? x : acc (max), the NaN lanes flagged apart.
        if (!masked) {
          mx ? vmaxps(acc, x, acc) : vminps(acc, x, acc);
          cmp_ps(t, x, x, 3);
        } else if (z()) {
          mx ? vmaxps(acc | k1, x, acc) : vminps(acc | k1, x, acc);
          vcmpps(k7 | k1, x, x, 3);
          vpmovm2d(t, k7);
        } else {
          mx ? vmaxps(t, x, acc) : vminps(t, x, acc);
          vblendvps(acc, acc, t, ymm15);
          vcmpps(t, x, x, 3);
          vandps(t, t, ymm15);
        }
        vorps(V(o.flag), V(o.flag), t);
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
  std::vector<int> busy;
  for (size_t i : st.elt)
    if (f.ops[i].k == FK::Red) busy.insert(busy.end(), {f.ops[i].acc, f.ops[i].flag, f.ops[i].acc2});
  std::vector<int> scratch;
  for (int r : {7, 8, 9, 10, 11, 12, 13, 14, 2})
    if (std::find(busy.begin(), busy.end(), r) == busy.end()) scratch.push_back(r);
  for (size_t i : st.elt) {
    const Fuse::FOp& o = f.ops[i];
    if (o.k != FK::Red) continue;
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
        vpmovd2m(k7, Zmm(o.flag));
        kortestw(k7, k7);
      } else {
        vmovmskps(eax, Ymm(o.flag));
        test(eax, eax);
      }
      jnz(seq, T_NEAR);
      vxorps(xmm1, xmm1, xmm1);
      vucomiss(xmm0, xmm1);
      jne(done, T_NEAR);
    }
    L(seq);
    {
      const Reg64& p = kStream[f.stream.at(o.a)];
      int32_t so = f.off.at(o.a);
      Label col, end;
      if (sum) {
        vxorps(xmm0, xmm0, xmm0);
        xor_(eax, eax);
      } else {
        vmovss(xmm0, dword[p + so]);
        mov(eax, 1);
        cmp(rax, r9);
        jge(end, T_NEAR);
      }
      L(col);
      if (sum) {
        vaddss(xmm0, xmm0, dword[p + rax * 4 + so]);
      } else {
        vmovss(Xmm(scratch[0]), dword[p + rax * 4 + so]);
        minmax_step(mx, V(0), V(scratch[0]), scratch[1], scratch[2], scratch[3]);
      }
      inc(rax);
      cmp(rax, r9);
      jl(col, T_NEAR);
      L(end);
      if (!sum) vaddps(xmm0, xmm0, Xmm(3));  // quiet a signalling NaN (f32 -> double)
    }
    L(done);
    vmovss(fuse_at(f, o.dst, false), xmm0);
  }
}

void Gen::fuse_rows(const Fuse& f, bool nt) {
  for (size_t s = 0; s < f.sstride.size(); ++s) {
    if (f.sview[s] != kNone) mov(kStream[s], q(f.sview[s], 0));
    else mov(kStream[s], r15);
  }
  Label row;
  L(row);
  for (size_t si = 0; si < f.stages.size(); ++si) {
    const Fuse::Stage& st = f.stages[si];
    for (size_t i : st.col) fuse_col_op(f, i);
    if (st.elt.empty()) continue;
    for (size_t i : st.elt) {
      const Fuse::FOp& o = f.ops[i];
      if (o.k != FK::Red) continue;
      for (int a : {o.acc, o.acc2}) {
        if (a < 0) continue;
        if (o.op == Op::TRowSum) vxorps(V(a), V(a), V(a));
        else vbroadcastss(V(a), dword[r14 + (o.op == Op::TRowMax ? kNegInfF32 : kPosInfF32)]);
      }
      if (o.flag >= 0) vxorps(V(o.flag), V(o.flag), V(o.flag));
    }
    if (!st.unroll) {
      vec_loop([&](bool masked) { fuse_chunk(f, si, masked, nt); });
    } else {  // pairs of vectors while two are left (r13 lowered by one meanwhile), then vec_loop's end
      Label pair, one, tail, next;
      xor_(eax, eax);
      sub(r13, lanes());
      cmp(rax, r13);
      jge(one, T_NEAR);
      L(pair);
      fuse_chunk(f, si, false, nt);
      add(rax, lanes());
      fuse_chunk(f, si, false, nt, true);
      add(rax, lanes());
      cmp(rax, r13);
      jl(pair, T_NEAR);
      L(one);
      add(r13, lanes());
      cmp(rax, r13);
      jge(tail, T_NEAR);
      fuse_chunk(f, si, false, nt);
      add(rax, lanes());
      L(tail);
      cmp(rax, r9);
      jge(next, T_NEAR);
      fuse_chunk(f, si, true, nt);
      L(next);
    }
    fuse_finish(f, si);
  }
  for (size_t s = 0; s < f.sstride.size(); ++s) {
    if (f.sview[s] == kNone) {
      add(kStream[s], int(f.sstride[s]));
    } else {
      mov(rax, q(f.sview[s], 3));
      shl(rax, 2);
      add(kStream[s], rax);
    }
  }
  dec(r8);
  jnz(row, T_NEAR);
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
    Label fill, skip;
    cmp(r8, tt.rows);
    jne(fill, T_NEAR);
    cmp(r9, tt.cols);
    je(skip, T_NEAR);
    L(fill);
    lea(rdi, ptr[r15 + f.off.at(t)]);
    mov(ecx, uint32_t(tt.rows) * uint32_t(tt.cols));
    mov(eax, pad_bits(tt));
    rep();
    stosd();
    L(skip);
  }
  vec_bounds(done);
  LOOP_CONSTANTS();
  fuse_nt_check(f, nt);
  fuse_rows(f, false);
  jmp(done, T_NEAR);
  if (!f.sviews.empty()) {
    L(nt);
    fuse_rows(f, true);
    jmp(done, T_NEAR);
  }
  L(slow);
  region(m_.region(in, 0));
  L(done);
  return true;
}

}  // namespace ptoas::cg::x86::gen

namespace ptoas::cg::x86 {

// Per op, what fuse_plan requires of it; the region-wide conditions (one
// valid region, tile classes, disjoint storage) are checked there only.
bool fusable_op(const Module& m, const Inst& in) {
  if (in.n_regions || in.n_res || in.n_outs != 1 || in.n_ins < 1) return false;
  switch (in.op) {
    case Op::TLoad: case Op::TStore:
      if (in.n_ins != 1 || in.n_attrs) return false;
      break;
    case Op::TRowSum: case Op::TRowMax: case Op::TRowMin:
    case Op::TRowExpand: case Op::TRowExpandAdd: case Op::TRowExpandSub: case Op::TRowExpandMul:
    case Op::TRowExpandDiv: case Op::TRowExpandMax: case Op::TRowExpandMin:
    case Op::TColExpand: case Op::TColExpandAdd: case Op::TColExpandSub: case Op::TColExpandMul:
    case Op::TColExpandDiv: case Op::TColExpandMax: case Op::TColExpandMin:
      break;
    default:
      if (!gen::fused_elt_op(in.op)) return false;
  }
  for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) {
    const Type& t = m.type_of(m.operand(in, i));
    if (t.elem != DType::F32) return false;
    if (t.kind == TypeKind::TileBuf && t.slayout != SLayout::NoneBox) return false;
  }
  return true;
}

}  // namespace ptoas::cg::x86
