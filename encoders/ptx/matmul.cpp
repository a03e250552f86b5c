// tmatmul on PTX (docs/ptx_backend.md, "tmatmul") and the copies of boxed
// (fractal) tiles between views and shared memory.
//
// * f16 / bf16 (and i8) operands: mma.sync.aligned.m16n8k16 (m16n8k32 for
//   i8) with f32 (s32) accumulators, each warp of the block owning 16x8
//   tiles of C; fragments come from ldmatrix where 8-element runs of the
//   operand lie contiguous in shared memory (a row-major A or inner box,
//   a column-major B or inner box), else from element loads; a ragged k
//   step is zero-filled. The summation order is the tensor core's, within
//   DESIGN §6's bound for matmul.
// * f32 operands (tf32 is used only when the program asks, which it
//   cannot say yet): one thread per C element, k ascending, one fma.rn per
//   step: exactly the interpreter's order and rounding (bit-exact).
#include "gen.h"
#include "ops.h"
#include "tile_geometry.h"
#include "tile_layout.h"

namespace ptoas::cg::ptx {

namespace {

const char* bits_ld(unsigned es, const char* space) {
  static std::string s;
  s = std::string("ld.") + space + (es == 1 ? ".u8" : es == 2 ? ".b16" : ".b32");
  return s.c_str();
}

}  // namespace

// The byte address of element (r, c) of view v (any rank: r split over
// the dimensions but the last, in row-major order).
Reg Gen::view_elem_addr(ValueId v, Reg r, Reg c) {
  const Type& t = ty(v);
  Val& x = val(v);
  unsigned rank = t.rank, es = std::max(1u, dtype_bytes(t.elem));
  Reg off = reg(RC::RD), c64 = as_u64(c, false);
  I("mul.lo.s64", off, c64, x.r[1 + rank + rank - 1]);
  Reg rem = as_u64(r, false);
  for (int k = int(rank) - 2; k >= 0; --k) {
    if (k == 0) {
      I("mad.lo.s64", off, rem, x.r[1 + rank], off);
      break;
    }
    Reg dim = reg(RC::RD), q = reg(RC::RD), md = reg(RC::RD);
    I("max.s64", dim, x.r[1 + k], 1);
    I("div.u64", q, rem, dim);
    I("rem.u64", md, rem, dim);
    I("mad.lo.s64", off, md, x.r[1 + rank + k], off);
    rem = q;
  }
  Reg a = reg(RC::RD);
  I("mad.lo.s64", a, off, es, x.r[0]);
  return a;
}

// tload / tstore of a boxed tile: element by element over the whole tile
// (a load pads outside the valid region) or its valid region (a store).
void Gen::boxed_copy(const Inst& in, ValueId tile, ValueId view, bool load) {
  Refusal why;
  const Type& vt = ty(view);
  if (vt.kind != TypeKind::TensorView && vt.kind != TypeKind::PartitionView)
    return fail(in, {RefusalCode::Operands, std::string(op_name(in.op)) + " with a pointer operand"});
  if (!boxed_copy_ok(m_, tile, view, vt.rank, load, why)) return fail(in, why);
  const Type& tt = ty(tile);
  DType d = tt.elem;
  unsigned es = dtype_bytes(d);
  std::vector<Access> acc{tile_access(tile, load)};
  Access gm;
  gm.space = 1, gm.lo = 0, gm.hi = INT64_MAX, gm.write = !load;
  acc.push_back(gm);
  access(acc);
  Val& t = val(tile);
  Val& v = val(view);
  // The view's rows and columns (clamped to 2^31 - 1).
  Reg vrows = reg(RC::RD);
  I("mov.b64", vrows, 1);
  for (unsigned k = 0; k + 1 < vt.rank; ++k) I("mul.lo.s64", vrows, vrows, v.r[1 + k]);
  auto clamp = [&](Reg a) {
    Reg c = reg(RC::RD);
    I("min.s64", c, a, 0x7fffffff);
    I("max.s64", c, c, 0);
    return as_u32(c);
  };
  Reg vr = min32(*this, t.r[1], clamp(vrows)), vc = min32(*this, t.r[2], clamp(v.r[vt.rank]));
  if (load && pad_bits(tt) == 0 && tt.cols % int32_t(16 / es) == 0 && run16(tt, t.off, true)) {
    // 16-byte chunks by cp.async where the view's rows are 16-byte aligned
    // runs (decided at run time): the tail of a row and rows past the valid
    // region are zero-filled by the copy's src-size (the pad is zero).
    std::string slow = new_label(), done = new_label();
    Reg ok = reg(RC::P), acc = reg(RC::RD), t2 = reg(RC::RD), last1 = reg(RC::P);
    I("mov.b64", acc, v.r[0]);
    for (unsigned k = 0; k + 1 < vt.rank; ++k) {
      I("mul.lo.s64", t2, v.r[1 + vt.rank + k], es);
      I("or.b64", acc, acc, t2);
    }
    I("and.b64", acc, acc, 15);
    I("setp.eq.s64", ok, acc, 0);
    I("setp.eq.s64", last1, v.r[vt.rank + vt.rank], 1);
    I("and.pred", ok, ok, last1);
    bra_if(ok, true, slow);
    unsigned n16 = 16 / es;
    Reg base = v.r[0];
    block_loop(*this, imm32(tt.rows), imm32(tt.cols / int32_t(n16)), [&](Reg r, Reg ch) {
      Reg c0 = reg(RC::R), left = reg(RC::R), nb = reg(RC::R), in_r = reg(RC::P);
      I("mul.lo.s32", c0, ch, n16);
      I("sub.s32", left, vc, c0);
      I("min.s32", left, left, n16);
      I("max.s32", left, left, 0);
      I("setp.lt.s32", in_r, r, vr);
      I("selp.b32", left, left, 0, in_r);
      I("mul.lo.s32", nb, left, es);
      Reg any = reg(RC::P), rr = reg(RC::R), cc = reg(RC::R);
      I("setp.gt.s32", any, nb, 0);
      I("selp.b32", rr, r, 0, any);
      I("selp.b32", cc, c0, 0, any);
      Reg src = view_elem_addr(view, rr, cc);
      Reg s2 = reg(RC::RD);
      I("selp.b64", s2, src, base, any);
      I("cp.async.cg.shared.global", mem(elem_addr(tile, r, c0)), mem(s2), 16, nb);
    });
    I("cp.async.commit_group");
    I("cp.async.wait_group", 0);
    bra(done);
    bind(slow);
    boxed_load_elems(tile, view, vr, vc);
    bind(done);
    return;
  }
  if (load) {
    boxed_load_elems(tile, view, vr, vc);
    return;
  }
  block_loop(*this, vr, vc, [&](Reg r, Reg c) {
    Reg x = reg(es == 2 ? RC::H : RC::R);
    I(bits_ld(es, "shared"), x, mem(elem_addr(tile, r, c)));
    I(es == 1 ? "st.global.u8" : es == 2 ? "st.global.b16" : "st.global.b32", mem(view_elem_addr(view, r, c)), x);
  });
}

// The element loop of a boxed tload: the pad outside the view's window.
void Gen::boxed_load_elems(ValueId tile, ValueId view, Reg vr, Reg vc) {
  const Type& tt = ty(tile);
  unsigned es = dtype_bytes(tt.elem);
  {
    uint32_t pad = pad_bits(tt);
    block_loop(*this, imm32(tt.rows), imm32(tt.cols), [&](Reg r, Reg c) {
      Reg p = reg(RC::P);
      I("setp.lt.s32", p, r, vr);
      I("setp.lt.and.s32", p, c, vc, p);
      Reg x = reg(es == 2 ? RC::H : RC::R);
      I(es == 2 ? "mov.b16" : "mov.b32", x, (long long)pad);
      IP(p, false, bits_ld(es, "global"), x, mem(view_elem_addr(view, r, c)));
      I(es == 1 ? "st.shared.u8" : es == 2 ? "st.shared.b16" : "st.shared.b32", mem(elem_addr(tile, r, c)), x);
    });
  }
}

void Gen::matmul(const Inst& in) {
  MatmulPlan p;
  Refusal why;
  if (!plan_matmul(m_, in, p, why)) return fail(in, why);
  for (ValueId t : {p.a, p.b, p.cin, p.bias})
    if (t != kNone && alias_->may_alias(t, p.c) && t != p.cin)
      return fail(in, {RefusalCode::Operands, "pto.tmatmul whose result shares storage with an operand"});
  access({tile_access(p.a, false), tile_access(p.b, false), p.cin != kNone ? tile_access(p.cin, false) : Access{},
          p.bias != kNone ? tile_access(p.bias, false) : Access{}, tile_access(p.c, true)});
  if ((p.ae == DType::F16 || p.ae == DType::BF16 || p.i32) && mma_ok(p) && !o_.portable_simt) return matmul_mma(in, p);
  if ((p.ae == DType::F16 || p.ae == DType::BF16) && !p.i32 && o_.portable_simt && o_.simt_wave_mma && mma_ok(p))
    return matmul_wave(in, p);
  matmul_fma(in, p);
}

// One thread per C element: acc = fma(a[i,p], b[p,j], acc), p ascending.
void Gen::matmul_fma(const Inst& in, const MatmulPlan& p) {
  (void)in;
  DType ae = p.ae;
  Val &a = val(p.a), &b = val(p.b);
  Reg m = min32(*this, a.r[1], imm32(p.cap_m)), k = min32(*this, a.r[2], imm32(p.cap_k)),
      n = min32(*this, b.r[2], imm32(p.cap_n));
  Reg zero = imm32(0);
  block_loop(*this, m, n, [&](Reg i, Reg j) {
    Reg acc = reg(p.i32 ? RC::R : RC::F);
    I(p.i32 ? "mov.b32" : "mov.f32", acc, p.i32 ? "0" : fimm(0.0f));
    Reg kk = reg(RC::R), q = reg(RC::P);
    I("mov.b32", kk, 0);
    std::string top = new_label(), end = new_label();
    bind(top);
    I("setp.ge.s32", q, kk, k);
    bra_if(q, false, end);
    Reg x = ld_lane(ae, "shared", mem(elem_addr(p.a, i, kk)));
    Reg y = ld_lane(ae, "shared", mem(elem_addr(p.b, kk, j)));
    if (p.i32) I("mad.lo.s32", acc, x, y, acc);
    else I("fma.rn.f32", acc, x, y, acc);
    I("add.s32", kk, kk, 1);
    bra(top);
    bind(end);
    Reg res = acc;
    if (p.cin != kNone) {
      Reg c0 = ld_lane(p.i32 ? DType::I32 : DType::F32, "shared", mem(elem_addr(p.cin, i, j)));
      res = p.i32 ? reg(RC::R) : Reg{};
      if (p.i32) I("add.s32", res, c0, acc);
      else res = bin(Bin::Add, DType::F32, c0, acc);
    }
    if (p.bias != kNone) {
      Reg b0 = ld_lane(p.i32 ? DType::I32 : DType::F32, "shared", mem(elem_addr(p.bias, zero, j)));
      if (p.i32) {
        Reg s = reg(RC::R);
        I("add.s32", s, res, b0);
        res = s;
      } else {
        res = bin(Bin::Add, DType::F32, res, b0);
      }
    }
    st_lane(p.i32 ? DType::I32 : DType::F32, "shared", mem(elem_addr(p.c, i, j)), res);
  });
}

}  // namespace ptoas::cg::ptx
