// The tile ops that are not row-wise, on PTX: column reductions, compares
// into bit masks, moves between layouts, windows, transposes, concats,
// fill-pads and the generators. Each is one loop over its elements (or
// columns, or mask words) spread over every thread of the block, with any
// layout's addressing (tile_geometry.h AxisMap: boxed tiles too); such a
// loop has no owner mapping, so the barrier planner orders it against
// every other access to its tiles with a full barrier.
#include "gen.h"
#include "ops.h"
#include "tile_geometry.h"
#include "tile_layout.h"

namespace ptoas::cg::ptx {

namespace {

bool signed_int(DType d) { return d == DType::I8 || d == DType::I16 || d == DType::I32; }

}  // namespace

// Byte offset of element (r, c) of tile t (its AxisMap: any layout).
Reg Gen::elem_addr(ValueId t, Reg r, Reg c) {
  const Type& tt = ty(t);
  AxisMap ar, ac;
  axis_map(tt, true, ar);
  axis_map(tt, false, ac);
  auto part = [&](const AxisMap& a, Reg i) {
    Reg x = reg(RC::R);
    if (a.shift < 63) {
      Reg hi = reg(RC::R), lo = reg(RC::R);
      I("shr.u32", hi, i, a.shift);
      I("and.b32", lo, i, (long long)a.mask);
      I("mul.lo.s32", x, hi, (long long)(a.box << a.les));
      I("mad.lo.s32", x, lo, (long long)(a.unit << a.les), x);
    } else {
      I("mul.lo.s32", x, i, (long long)(a.unit << a.les));
    }
    return x;
  };
  Reg a = reg(RC::R);
  I("add.s32", a, part(ar, r), part(ac, c));
  I("add.s32", a, a, val(t).r[0]);
  return a;
}

namespace {

// Bits of one element (.b16 or .b32) at `a` in shared memory, and back.
Reg ld_elem_bits(Gen& g, DType d, Reg a) {
  unsigned es = dtype_bytes(d);
  Reg x = g.reg(es == 2 ? RC::H : RC::R);
  g.I(es == 1 ? "ld.shared.u8" : es == 2 ? "ld.shared.b16" : "ld.shared.b32", x, mem(a));
  return x;
}
void st_elem_bits(Gen& g, DType d, Reg a, Reg x) {
  unsigned es = dtype_bytes(d);
  g.I(es == 1 ? "st.shared.u8" : es == 2 ? "st.shared.b16" : "st.shared.b32", mem(a), x);
}

}  // namespace

// Tiles a and b can be read and written by one loop: they never share a
// byte (disjoint static spans, or different allocations), or (in_place)
// they are one storage with one geometry, so each element is read and
// written by the same thread.
bool Gen::disjoint_or_same(ValueId a, ValueId b, bool in_place) {
  if (!alias_->may_alias(a, b)) return true;
  int64_t oa = val(a).off, ob = val(b).off;
  if (oa < 0 || ob < 0) {
    if (a == b) return in_place;
    // A value naming one of several allocations (a tile carried by a loop):
    // each allocation of its class against the other tile's.
    const std::vector<InstId>& as = alias_->allocs(alias_->cls(a));
    const std::vector<InstId>& bs = alias_->allocs(alias_->cls(b));
    for (InstId x : as)
      for (InstId y : bs) {
        uint32_t px = smem_plan_.off[x], py = smem_plan_.off[y];
        if (px == kNone || py == kNone) return false;
        const Type &tx = m_.type_of(m_.inst(x).res), &ty_ = m_.type_of(m_.inst(y).res);
        int64_t ex = px + int64_t(tile_storage_bytes(tx)), ey = py + int64_t(tile_storage_bytes(ty_));
        if (ex <= int64_t(py) || ey <= int64_t(px)) continue;
        if (!in_place || px != py || tx.rows != ty_.rows || tx.cols != ty_.cols || tx.elem != ty_.elem ||
            tx.blayout != ty_.blayout || tx.slayout != SLayout::NoneBox || ty_.slayout != SLayout::NoneBox)
          return false;
      }
    const Type &ta = ty(a), &tb = ty(b);
    return ta.rows == tb.rows && ta.cols == tb.cols && ta.elem == tb.elem && ta.blayout == tb.blayout;
  }
  auto [alo, ahi] = span(a);
  auto [blo, bhi] = span(b);
  if (ahi <= blo || bhi <= alo) return true;
  if (!in_place || oa != ob) return false;
  Geo ga = geo(a), gb = geo(b);
  const Type &ta = ty(a), &tb = ty(b);
  return ga.rs == gb.rs && ga.cs == gb.cs && ga.es == gb.es && ta.slayout == tb.slayout && ta.slayout == SLayout::NoneBox;
}

// Full barriers around the op's tiles (no owner mapping).
static void block_access(Gen& g, std::initializer_list<ValueId> reads, std::initializer_list<ValueId> writes) {
  std::vector<Access> a;
  for (ValueId t : reads)
    if (t != kNone) a.push_back(g.tile_access(t, false));
  for (ValueId t : writes)
    if (t != kNone) a.push_back(g.tile_access(t, true));
  g.access(a);
}

// tcolsum / tcolmax / tcolmin / tcolprod: one thread per column, the rows
// in order (the interpreter's sequential order: bit-exact).
void Gen::col_reduce(const Inst& in) {
  ValueId src, dst;
  Refusal why;
  if (!plan_reduce(m_, in, false, src, dst, why)) return fail(in, why);
  DType d = ty(dst).elem;
  bool fl = float_lane(d);
  Bin k = in.op == Op::TColSum ? Bin::Add : in.op == Op::TColProd ? Bin::Mul : in.op == Op::TColMax ? Bin::Max : Bin::Min;
  block_access(*this, {src}, {dst});
  Val& s = val(src);
  Reg one = imm32(1), zero = imm32(0);
  Reg rows = s.r[1], cols = s.r[2];
  Reg live = reg(RC::P);
  I("setp.gt.s32", live, rows, 0);
  Reg ncols = reg(RC::R);
  I("selp.b32", ncols, cols, 0, live);
  block_loop(*this, one, ncols, [&](Reg, Reg c) {
    Reg acc;
    Reg rr = reg(RC::R);
    if (k == Bin::Add || k == Bin::Mul) {
      acc = reg(lane_rc(d));
      if (fl) I("mov.f32", acc, fimm(k == Bin::Add ? 0.0f : 1.0f));
      else I("mov.b32", acc, k == Bin::Add ? 0 : 1);
      I("mov.b32", rr, 0);
    } else {
      acc = reg(lane_rc(d));
      I(fl ? "mov.f32" : "mov.b32", acc, lane_from_bits(d, ld_elem_bits(*this, d, elem_addr(src, zero, c))));
      I("mov.b32", rr, 1);
    }
    std::string top = new_label(), end = new_label();
    bind(top);
    Reg p = reg(RC::P);
    I("setp.ge.s32", p, rr, rows);
    bra_if(p, false, end);
    Reg x = lane_from_bits(d, ld_elem_bits(*this, d, elem_addr(src, rr, c)));
    Reg y;
    if (k == Bin::Add || k == Bin::Mul) {
      y = bin(k, d, acc, x);
      if (fl) y = round_lane(d, y);
    } else if (fl) {  // a later element wins if strictly greater (smaller) or NaN, unless acc is NaN
      Reg num = reg(RC::P), take = reg(RC::P);
      y = reg(RC::F);
      I("setp.num.f32", num, acc, acc);
      I(k == Bin::Max ? "setp.gtu.and.f32" : "setp.ltu.and.f32", take, x, acc, num);
      I("selp.f32", y, x, acc, take);
    } else {
      y = reg(RC::R);
      I(std::string(k == Bin::Max ? "max" : "min") + (signed_int(d) ? ".s32" : ".u32"), y, acc, x);
    }
    I(fl ? "mov.f32" : "mov.b32", acc, y);
    I("add.s32", rr, rr, 1);
    bra(top);
    bind(end);
    st_elem_bits(*this, d, elem_addr(dst, zero, c), bits_from_lane(d, acc));
  });
}

// tcmp / tcmps: one thread per word of the whole physical mask tile; the
// words inside the compared region get their bits, the others 0.
void Gen::tcmp(const Inst& in) {
  CmpPlan p;
  Refusal why;
  if (!plan_tcmp(m_, in, p, why)) return fail(in, why);
  if (p.mask_bits > 32) return fail(in, {RefusalCode::Type, "op pto.tcmp into a mask of 8-byte elements"});
  DType d = ty(p.a).elem, md = ty(p.mask).elem;
  block_access(*this, {p.a, p.rhs_tile ? p.rhs : kNone}, {p.mask});
  const Type& mt = ty(p.mask);
  unsigned B = p.mask_bits;
  Val& a = val(p.a);
  // Words of the region: rows < a.vrow, words < min(ceil(a.vcol / B), mask.vcol).
  Reg nw = reg(RC::R);
  I("add.s32", nw, a.r[2], B - 1);
  I("shr.u32", nw, nw, B == 8 ? 3 : B == 16 ? 4 : B == 32 ? 5 : 6);
  nw = min32(*this, nw, val(p.mask).r[2]);
  Reg rhs = p.rhs_tile ? Reg{} : scalar_lane(p.rhs, d);
  static const char* fcmp[] = {"eq", "neu", "lt", "le", "gt", "ge"};
  static const char* icmp[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  block_loop(*this, imm32(mt.rows), imm32(mt.cols), [&](Reg r, Reg w) {
    Reg in_r = reg(RC::P), in_w = reg(RC::P), word = reg(RC::R);
    I("setp.lt.s32", in_r, r, a.r[1]);
    I("setp.lt.and.s32", in_w, w, nw, in_r);
    I("mov.b32", word, 0);
    Reg c0 = reg(RC::R);
    I("mul.lo.s32", c0, w, B);
    for (unsigned j = 0; j < B; ++j) {
      Reg c = reg(RC::R), pe = reg(RC::P);
      I("add.s32", c, c0, j);
      I("setp.lt.and.s32", pe, c, a.r[2], in_w);
      Reg x = ld_lane(d, "shared", mem(elem_addr(p.a, r, c)), pe, false, float_lane(d) ? immf(0) : imm32(0));
      Reg y = rhs ? rhs : ld_lane(d, "shared", mem(elem_addr(p.rhs, r, c)), pe, false, float_lane(d) ? immf(0) : imm32(0));
      Reg t = reg(RC::P);
      if (float_lane(d)) I(std::string("setp.") + fcmp[p.mode] + ".and.f32", t, x, y, pe);
      else I(std::string("setp.") + icmp[p.mode] + (signed_int(d) ? ".and.s32" : ".and.u32"), t, x, y, pe);
      Reg bit = reg(RC::R);
      I("selp.b32", bit, 1u << j, 0, t);
      I("or.b32", word, word, bit);
    }
    st_elem_bits(*this, md, elem_addr(p.mask, r, w), dtype_bytes(md) == 2 ? bits_from_lane(DType::U16, word) : word);
  });
}

// tmov between any layouts of one element type, over dst's valid region.
void Gen::tmov(const Inst& in) {
  ValueId src, dst;
  bool skip;
  Refusal why;
  if (!plan_tmov(m_, in, src, dst, skip, why)) return fail(in, why);
  if (skip) return;
  if (!disjoint_or_same(src, dst, true))
    return fail(in, {RefusalCode::Operands, "pto.tmov between tiles that may share storage"});
  DType d = ty(dst).elem;
  block_access(*this, {src}, {dst});
  Val& v = val(dst);
  block_loop(*this, v.r[1], v.r[2], [&](Reg r, Reg c) {
    st_elem_bits(*this, d, elem_addr(dst, r, c), ld_elem_bits(*this, d, elem_addr(src, r, c)));
  });
}

// textract: d[i, j] = s[row + i, col + j] over d's valid region; tinsert:
// d[row + i, col + j] = s[i, j] over s's valid region.
void Gen::twindow(const Inst& in) {
  WindowPlan p;
  Refusal why;
  if (!plan_twindow(m_, in, p, why)) return fail(in, why);
  twindow_plan(in, p);
}

// A subview window's copy (lowering.h): twindow's loop over the whole
// window, its valid extents taken as its shape for the copy.
void Gen::copy_window(const Inst& at, ValueId w, const WindowPlan& p) {
  Val& v = val(w);
  const Reg keep_r = v.r[1], keep_c = v.r[2];
  v.r[1] = imm32(ty(w).rows);
  v.r[2] = imm32(ty(w).cols);
  twindow_plan(at, p);
  Val& after = val(w);
  after.r[1] = keep_r;
  after.r[2] = keep_c;
}

void Gen::twindow_plan(const Inst& in, const WindowPlan& p) {
  if (!disjoint_or_same(p.src, p.dst, false))
    return fail(in, {RefusalCode::Operands, "op " + std::string(op_name(in.op)) + " in place"});
  DType d = ty(p.dst).elem;
  block_access(*this, {p.src}, {p.dst});
  Reg r0 = as_u32(sreg(p.row)), c0 = as_u32(sreg(p.col));
  Val& reg_v = val(p.region);
  block_loop(*this, reg_v.r[1], reg_v.r[2], [&](Reg r, Reg c) {
    Reg wr = reg(RC::R), wc = reg(RC::R);
    I("add.s32", wr, r, r0);
    I("add.s32", wc, c, c0);
    const Type& wt = ty(p.win);
    Reg ok = reg(RC::P);  // the window's element inside its tile
    I("setp.lt.u32", ok, wr, wt.rows);
    I("setp.lt.and.u32", ok, wc, wt.cols, ok);
    Reg sa = p.ext ? elem_addr(p.src, wr, wc) : elem_addr(p.src, r, c);
    Reg da = p.ext ? elem_addr(p.dst, r, c) : elem_addr(p.dst, wr, wc);
    unsigned es = dtype_bytes(d);
    Reg x = reg(es == 2 ? RC::H : RC::R);
    IP(ok, false, es == 1 ? "ld.shared.u8" : es == 2 ? "ld.shared.b16" : "ld.shared.b32", x, mem(sa));
    IP(ok, false, es == 1 ? "st.shared.u8" : es == 2 ? "st.shared.b16" : "st.shared.b32", mem(da), x);
  });
}

// ttrans: d[c, r] = s[r, c] over s's valid region.
void Gen::ttrans(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 1) return fail(in);
  ValueId src = op(in, 0), dst = op(in, in.n_ins);
  const Type &st = ty(src), &dt = ty(dst);
  if (st.kind != TypeKind::TileBuf || dt.kind != TypeKind::TileBuf || st.elem != dt.elem || st.rows <= 0 || dt.rows <= 0)
    return fail(in);
  unsigned es = dtype_bytes(st.elem);
  if (es != 1 && es != 2 && es != 4) return fail(in);
  if (!disjoint_or_same(src, dst, false)) return fail(in, {RefusalCode::Operands, "pto.ttrans in place"});
  block_access(*this, {src}, {dst});
  Val& s = val(src);
  Reg rows = min32(*this, s.r[1], imm32(dt.cols)), cols = min32(*this, s.r[2], imm32(dt.rows));
  block_loop(*this, rows, cols, [&](Reg r, Reg c) {
    st_elem_bits(*this, st.elem, elem_addr(dst, c, r), ld_elem_bits(*this, st.elem, elem_addr(src, r, c)));
  });
}

// tconcat: each row r < d.vrow: s0's valid columns, then s1's.
void Gen::tconcat(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins != 2) return fail(in, {RefusalCode::Operands, "pto.tconcat with index tiles"});
  ValueId s0 = op(in, 0), s1 = op(in, 1), dst = op(in, 2);
  const Type &t0 = ty(s0), &t1 = ty(s1), &dt = ty(dst);
  if (t0.kind != TypeKind::TileBuf || t1.kind != TypeKind::TileBuf || dt.kind != TypeKind::TileBuf ||
      t0.elem != dt.elem || t1.elem != dt.elem || dt.rows <= 0 || t0.rows <= 0 || t1.rows <= 0)
    return fail(in);
  if (!disjoint_or_same(s0, dst, false) || !disjoint_or_same(s1, dst, false))
    return fail(in, {RefusalCode::Operands, "pto.tconcat in place"});
  DType d = dt.elem;
  block_access(*this, {s0, s1}, {dst});
  Val &v0 = val(s0), &v1 = val(s1), &vd = val(dst);
  Reg w = reg(RC::R);
  I("add.s32", w, v0.r[2], v1.r[2]);
  w = min32(*this, w, imm32(dt.cols));
  block_loop(*this, vd.r[1], w, [&](Reg r, Reg c) {
    Reg first = reg(RC::P), c1 = reg(RC::R), ok0 = reg(RC::P), ok1 = reg(RC::P);
    I("setp.lt.s32", first, c, v0.r[2]);
    I("sub.s32", c1, c, v0.r[2]);
    I("setp.lt.and.s32", ok0, r, t0.rows, first);
    I("setp.lt.s32", ok1, r, t1.rows);
    Reg nf = reg(RC::P);
    I("not.pred", nf, first);
    I("and.pred", ok1, ok1, nf);
    unsigned es = dtype_bytes(d);
    Reg x = reg(es == 2 ? RC::H : RC::R);
    const char* ld = es == 1 ? "ld.shared.u8" : es == 2 ? "ld.shared.b16" : "ld.shared.b32";
    IP(ok0, false, ld, x, mem(elem_addr(s0, r, c)));
    IP(ok1, false, ld, x, mem(elem_addr(s1, r, c1)));
    Reg any = reg(RC::P);
    I("or.pred", any, ok0, ok1);
    IP(any, false, es == 1 ? "st.shared.u8" : es == 2 ? "st.shared.b16" : "st.shared.b32", mem(elem_addr(dst, r, c)), x);
  });
}

// tfillpad: the whole physical dst: s inside s's valid region, the pad
// value elsewhere (in place: the same element by the same thread).
void Gen::tfillpad(const Inst& in) {
  if (in.n_outs != 1 || in.n_ins < 1) return fail(in);
  ValueId src = op(in, 0), dst = op(in, in.n_ins);
  const Type &st = ty(src), &dt = ty(dst);
  if (st.kind != TypeKind::TileBuf || dt.kind != TypeKind::TileBuf || st.elem != dt.elem || dt.rows <= 0 || st.rows <= 0)
    return fail(in);
  unsigned es = dtype_bytes(dt.elem);
  if (es != 1 && es != 2 && es != 4) return fail(in);
  if (src != dst && !disjoint_or_same(src, dst, true))
    return fail(in, {RefusalCode::Operands, "pto.tfillpad between tiles that may share storage"});
  block_access(*this, {src}, {dst});
  Val& s = val(src);
  uint32_t pad = pad_bits(dt);
  block_loop(*this, imm32(dt.rows), imm32(dt.cols), [&](Reg r, Reg c) {
    Reg in_s = reg(RC::P);
    I("setp.lt.s32", in_s, r, s.r[1]);
    I("setp.lt.and.s32", in_s, c, s.r[2], in_s);
    I("setp.lt.and.s32", in_s, r, st.rows, in_s);
    I("setp.lt.and.s32", in_s, c, st.cols, in_s);
    Reg x = reg(es == 2 ? RC::H : RC::R);
    I(es == 2 ? "mov.b16" : "mov.b32", x, (long long)pad);
    IP(in_s, false, es == 1 ? "ld.shared.u8" : es == 2 ? "ld.shared.b16" : "ld.shared.b32", x, mem(elem_addr(src, r, c)));
    st_elem_bits(*this, dt.elem, elem_addr(dst, r, c), x);
  });
}

// ttri: lower d[i, j] = j <= i + diag ? 1 : 0; upper j < i + diag ? 0 : 1.
void Gen::ttri(const Inst& in) {
  ValueId dst;
  bool upper;
  if (!plan_ttri(m_, in, dst, upper)) return fail(in);
  block_access(*this, {}, {dst});
  // j - i (both below 2^31) against the diagonal as a signed 64-bit value:
  // i + diag may not fit 32 bits.
  Reg diag = in.n_ins ? sreg(op(in, 0)) : Reg{};
  if (diag && diag.c != RC::RD) diag = as_u64(diag, true);
  DType d = ty(dst).elem;
  Val& v = val(dst);
  block_loop(*this, v.r[1], v.r[2], [&](Reg r, Reg c) {
    Reg dif = reg(RC::R), wide = reg(RC::RD), p = reg(RC::P), x = reg(RC::R);
    I("sub.s32", dif, c, r);
    I("cvt.s64.s32", wide, dif);
    Reg lim = diag ? diag : imm64(0);
    if (upper) {
      I("setp.lt.s64", p, wide, lim);
      I("selp.b32", x, 0, d == DType::F32 ? 0x3f800000 : 1, p);
    } else {
      I("setp.le.s64", p, wide, lim);
      I("selp.b32", x, d == DType::F32 ? 0x3f800000 : 1, 0, p);
    }
    I("st.shared.b32", mem(elem_addr(dst, r, c)), x);
  });
}

// tci: d[0, j] = start + j (start - j descending), wrapping.
void Gen::tci(const Inst& in) {
  unsigned es;
  bool desc;
  if (!plan_tci(m_, in, es, desc)) return fail(in);
  ValueId dst = op(in, in.n_ins);
  block_access(*this, {}, {dst});
  Reg start = as_u32(sreg(op(in, 0)));
  Val& v = val(dst);
  Reg live = reg(RC::P), n = reg(RC::R);
  I("setp.gt.s32", live, v.r[1], 0);
  I("selp.b32", n, v.r[2], 0, live);
  block_loop(*this, imm32(1), n, [&](Reg r, Reg c) {
    Reg x = reg(RC::R);
    I(desc ? "sub.s32" : "add.s32", x, start, c);
    if (es == 2) I("st.shared.b16", mem(elem_addr(dst, r, c)), bits_from_lane(DType::U16, x));
    else I("st.shared.b32", mem(elem_addr(dst, r, c)), x);
  });
}

// tgather's index form (tile_plan.h GatherPlan): d[r, c] = src element
// k = idx[r, c] in row-major storage, 0 where k is outside src (one
// unsigned compare sends a negative i32 out too).
void Gen::tgather(const Inst& in) {
  GatherPlan p;
  Refusal why;
  if (!plan_tgather(m_, in, p, why)) return fail(in, why);
  if (!disjoint_or_same(p.src, p.dst, false) || !disjoint_or_same(p.idx, p.dst, false))
    return fail(in, {RefusalCode::Operands, "pto.tgather into a tile that may share storage with its sources"});
  block_access(*this, {p.src, p.idx}, {p.dst});
  Val& v = val(p.dst);
  Reg rows = min32(*this, v.r[1], imm32(p.cap_r)), cols = min32(*this, v.r[2], imm32(p.cap_c));
  block_loop(*this, rows, cols, [&](Reg r, Reg c) {
    Reg k = ld_elem_bits(*this, DType::U32, elem_addr(p.idx, r, c));
    Reg in_src = reg(RC::P), a = reg(RC::R), x = reg(RC::R);
    I("setp.lt.u32", in_src, k, (long long)p.n);
    I("mad.lo.u32", a, k, 4, val(p.src).r[0]);
    I("mov.b32", x, 0);
    IP(in_src, false, "ld.shared.b32", x, mem(a));
    st_elem_bits(*this, DType::U32, elem_addr(p.dst, r, c), x);
  });
}

// tstore with relu and / or atomic add (tile_plan.h StoreCombinePlan; the
// CPU targets' semantics): a block loop over the tile's valid region
// capped by the view; relu keeps x > 0 (NaN and -0 give +0); an i32 / ui32
// add is red.global.add (wrapping), an f32 add a compare-and-swap loop
// around add.rn with the interpreter's NaN rule (red.add.f32 would flush
// subnormals).
void Gen::tstore_combined(const Inst& in, ValueId t, ValueId v, bool relu, bool atomic) {
  StoreCombinePlan p;
  p.tile = t, p.view = v, p.relu = relu, p.atomic = atomic;
  Refusal why;
  if (!plan_store_combine(m_, in, p, why)) return fail(in, why);
  const Type& tt = ty(t);
  const bool fl = tt.elem == DType::F32, sgn = tt.elem == DType::I32;
  Access gm;
  gm.space = 1, gm.lo = 0, gm.hi = INT64_MAX, gm.write = true;
  std::vector<Access> acc{tile_access(t, false), gm};
  access(acc);
  Val& tv = val(t);
  Val& vv = val(v);
  Reg rows = min32(*this, tv.r[1], imm32(tt.rows)), cols = min32(*this, tv.r[2], imm32(tt.cols));
  Reg s0 = reg(RC::RD), s1 = reg(RC::RD);
  if (p.rank == 2) {
    rows = min32(*this, rows, as_u32(vv.r[1]));
    cols = min32(*this, cols, as_u32(vv.r[2]));
    I("mul.lo.s64", s0, vv.r[3], 4);
    I("mul.lo.s64", s1, vv.r[4], 4);
  } else {
    rows = min32(*this, rows, imm32(1));
    cols = min32(*this, cols, as_u32(vv.r[1]));
    I("mov.b64", s0, 0);
    I("mul.lo.s64", s1, vv.r[2], 4);
  }
  block_loop(*this, rows, cols, [&](Reg r, Reg c) {
    Reg x = ld_elem_bits(*this, DType::U32, elem_addr(t, r, c));
    if (relu && fl) {
      Reg f = reg(RC::F), pos = reg(RC::P);
      I("mov.b32", f, x);
      I("setp.gt.f32", pos, f, f32imm(0));
      I("selp.b32", x, x, 0, pos);
    } else if (relu && sgn) {
      I("max.s32", x, x, 0);
    }
    Reg a = reg(RC::RD), r64 = reg(RC::RD), c64 = reg(RC::RD);
    I("cvt.u64.u32", r64, r);
    I("cvt.u64.u32", c64, c);
    I("mad.lo.s64", a, r64, s0, vv.r[0]);
    I("mad.lo.s64", a, c64, s1, a);
    if (!atomic) {
      I("st.global.b32", mem(a), x);
    } else if (!fl) {
      I("red.global.add.u32", mem(a), x);
    } else {
      Reg xf = reg(RC::F), old = reg(RC::R), got = reg(RC::R), of = reg(RC::F), sum = reg(RC::R), same = reg(RC::P);
      I("mov.b32", xf, x);
      I("ld.global.b32", old, mem(a));
      std::string retry = new_label();
      bind(retry);
      I("mov.b32", of, old);
      I("mov.b32", sum, bin(Bin::Add, DType::F32, xf, of));
      I("atom.global.cas.b32", got, mem(a), old, sum);
      I("setp.ne.b32", same, got, old);
      I("mov.b32", old, got);
      bra_if(same, false, retry);
    }
  });
}

}  // namespace ptoas::cg::ptx
