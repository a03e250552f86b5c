// Scalars, views and tile allocation on PTX (gen.h): every thread computes
// them alike. Integer results are the interpreter's (asm/int_eval.h),
// including what native code has no error channel for, as on the CPU
// targets: division by zero gives 0, shift counts out of range give 0.
#include <cmath>
#include <cstring>

#include "cpu_frame.h"
#include "gen.h"
#include "int_eval.h"
#include "tile_layout.h"

namespace ptoas::cg::ptx {

bool Gen::has_regs(const Type& t) const {
  switch (t.kind) {
    case TypeKind::Scalar:
      return is_int_like(t.elem) || t.elem == DType::F32 || t.elem == DType::F64 || t.elem == DType::F16 ||
             t.elem == DType::BF16;
    case TypeKind::Ptr: case TypeKind::TileBuf:
      return true;
    case TypeKind::TensorView: case TypeKind::PartitionView:
      return t.rank >= 1 && t.rank <= kMaxViewRank;
    default:
      return false;
  }
}

Val& Gen::val(ValueId v) {
  Val& x = vals_[v];
  if (!x.r.empty()) return x;
  const Type& t = ty(v);
  switch (t.kind) {
    case TypeKind::Scalar:
      x.r.push_back(reg(t.elem == DType::F64 ? RC::FD : is_int_like(t.elem) ? RC::RD : RC::F));
      break;
    case TypeKind::Ptr:
      x.r.push_back(reg(RC::RD));
      break;
    case TypeKind::TensorView: case TypeKind::PartitionView:
      for (unsigned k = 0; k < 1u + 2u * t.rank; ++k) x.r.push_back(reg(RC::RD));
      break;
    case TypeKind::TileBuf:
      for (unsigned k = 0; k < 3; ++k) x.r.push_back(reg(RC::R));
      break;
    default:
      x.r.push_back(reg(RC::RD));  // never read: the op using it is refused
      break;
  }
  return x;
}

// bfe sign-extends a field; and masks it.
void Gen::canon(Reg x, DType d) {
  unsigned bits = d == DType::I1 ? 1 : int_bits(d);
  if (bits >= 64) return;
  if (d == DType::I1 || dtype_is_unsigned(d))
    I("and.b64", x, x, (unsigned long long)((uint64_t(1) << bits) - 1));
  else
    I("bfe.s64", x, x, 0, bits);
}

Reg Gen::pred_of(ValueId v) {
  Reg p = reg(RC::P);
  const Type& t = ty(v);
  if (t.kind == TypeKind::Scalar && t.elem == DType::F32) I("setp.neu.f32", p, sreg(v), fimm(0.0f));
  else I("setp.ne.s64", p, sreg(v), 0);
  return p;
}

Reg Gen::as_u32(Reg rd) {
  Reg r = reg(RC::R);
  I("cvt.u32.u64", r, rd);
  return r;
}

Reg Gen::as_u64(Reg r32, bool sign) {
  Reg r = reg(RC::RD);
  I(sign ? "cvt.s64.s32" : "cvt.u64.u32", r, r32);
  return r;
}

// A count clamped to [0, limit] as .b32; a negative count gives `limit`
// (alloc_tile) or 0 (set_validshape).
Reg Gen::clamp_count(ValueId count, int32_t limit, bool neg_is_limit) {
  Reg c = reg(RC::RD);
  I("min.s64", c, sreg(count), (long long)limit);
  Reg p = reg(RC::P);
  I("setp.lt.s64", p, c, 0);
  I("selp.b64", c, (long long)(neg_is_limit ? limit : 0), c, p);
  return as_u32(c);
}

// ---- scalars ----------------------------------------------------------------------

namespace {

// f16 / bf16 values as f32 (scalars of these types hold their exact value).
float round_half(double v, DType d) {
  if (std::isnan(v)) return float(v);
  if (d == DType::BF16) {
    float f = float(v);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    b = (b + 0x7fff + ((b >> 16) & 1)) & 0xffff0000u;
    std::memcpy(&f, &b, 4);
    return f;
  }
  // f16: 11 significant bits, exponents down to -14 (subnormals: quantum 2^-24).
  double a = std::fabs(v);
  if (a >= 65520.0) return std::signbit(v) ? -INFINITY : INFINITY;
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int q = std::max(e - 11, -24);
  double r = std::nearbyint(std::ldexp(a, -q));
  return float(std::copysign(std::ldexp(r, q), v));
}

}  // namespace

void Gen::scalar(const Inst& in) {
  ValueId res = in.res;
  const Type& rt = ty(res);
  DType d = rt.elem;
  if (!has_regs(rt)) return fail(in);
  Reg x = sreg(res);
  switch (in.op) {
    case Op::GetBlockIdx: {
      Reg r = reg(RC::R);
      I("mov.u32", r, "%ctaid.x");
      I("cvt.u64.u32", x, r);
      return;
    }
    case Op::GetBlockNum: {
      Reg r = reg(RC::R);
      I("mov.u32", r, "%nctaid.x");
      I("cvt.u64.u32", x, r);
      return;
    }
    case Op::GetSubblockIdx: I("mov.b64", x, 0); return;
    case Op::GetSubblockNum: I("mov.b64", x, 1); return;
    case Op::Constant: {
      uint64_t bits;
      if (d == DType::F16 || d == DType::BF16) {
        const Attr* a = m_.find_attr(in, "value");
        if (!a || (a->kind != AttrKind::Float && a->kind != AttrKind::Int)) return fail(in);
        double v = a->kind == AttrKind::Float ? a->fval : double(a->ival);
        I("mov.f32", x, fimm(round_half(v, d)));
        return;
      }
      if (!constant_bits(m_, in, bits)) return fail(in);
      if (d == DType::F32) I("mov.f32", x, f32imm(uint32_t(bits)));
      else if (d == DType::F64) I("mov.f64", x, f64imm(bits));
      else I("mov.b64", x, (long long)bits);
      return;
    }
    default: break;
  }
  if (rt.kind != TypeKind::Scalar) return fail(in);
  if (!is_int_like(d) && in.op != Op::Select && in.op != Op::CmpI && in.op != Op::Bitcast && in.op != Op::FPToSI &&
      in.op != Op::FPToUI)
    return scalar_float(in);
  auto a = [&] { return sreg(op(in, 0)); };
  auto b = [&] { return sreg(op(in, 1)); };
  auto zext = [&](Reg v, unsigned bits) {
    Reg z = reg(RC::RD);
    if (bits >= 64) I("mov.b64", z, v);
    else I("and.b64", z, v, (unsigned long long)((uint64_t(1) << bits) - 1));
    return z;
  };
  switch (in.op) {
    case Op::AddI: case Op::SubI: case Op::MulI: case Op::AndI: case Op::OrI: case Op::XOrI: {
      const char* n = in.op == Op::AddI ? "add.s64" : in.op == Op::SubI ? "sub.s64" : in.op == Op::MulI ? "mul.lo.s64"
                    : in.op == Op::AndI ? "and.b64" : in.op == Op::OrI ? "or.b64" : "xor.b64";
      I(n, x, a(), b());
      canon(x, d);
      return;
    }
    case Op::DivSI: case Op::RemSI: case Op::CeilDivSI: case Op::FloorDivSI: {
      // x / 0 gives 0 (and so does its remainder); MIN / -1 wraps.
      Reg z = reg(RC::P), m1 = reg(RC::P), safe = reg(RC::RD), q = reg(RC::RD), r = reg(RC::RD);
      I("setp.eq.s64", z, b(), 0);
      I("setp.eq.s64", m1, b(), -1);
      I("selp.b64", safe, 1, b(), z);
      I("div.s64", q, a(), safe);
      Reg neg = reg(RC::RD);
      I("neg.s64", neg, a());
      I("selp.b64", q, neg, q, m1);
      I("mul.lo.s64", r, q, b());
      I("sub.s64", r, a(), r);
      if (in.op == Op::RemSI) {
        I("selp.b64", x, 0, r, z);
      } else {
        if (in.op != Op::DivSI) {
          // r != 0 and the signs differ: floor is q - 1; the same signs: ceil is q + 1.
          Reg nz = reg(RC::P), sx = reg(RC::RD), adj = reg(RC::P);
          I("setp.ne.s64", nz, r, 0);
          I("xor.b64", sx, a(), b());
          if (in.op == Op::FloorDivSI) {
            I("setp.lt.and.s64", adj, sx, 0, nz);
            Reg q1 = reg(RC::RD);
            I("sub.s64", q1, q, 1);
            I("selp.b64", q, q1, q, adj);
          } else {
            I("setp.ge.and.s64", adj, sx, 0, nz);
            Reg q1 = reg(RC::RD);
            I("add.s64", q1, q, 1);
            I("selp.b64", q, q1, q, adj);
          }
        }
        I("selp.b64", x, 0, q, z);
      }
      canon(x, d);
      return;
    }
    case Op::DivUI: case Op::RemUI: {
      unsigned bits = int_bits(d);
      Reg ua = zext(a(), bits), ub = zext(b(), bits);
      Reg z = reg(RC::P), safe = reg(RC::RD), q = reg(RC::RD);
      I("setp.eq.s64", z, ub, 0);
      I("selp.b64", safe, 1, ub, z);
      I(in.op == Op::DivUI ? "div.u64" : "rem.u64", q, ua, safe);
      I("selp.b64", x, 0, q, z);
      canon(x, d);
      return;
    }
    case Op::MinSI: I("min.s64", x, a(), b()); return;
    case Op::MaxSI: I("max.s64", x, a(), b()); return;
    case Op::MinUI: case Op::MaxUI: {
      unsigned bits = int_bits(d);
      Reg ua = zext(a(), bits), ub = zext(b(), bits), p = reg(RC::P);
      I("setp.lt.u64", p, ua, ub);
      if (in.op == Op::MinUI) I("selp.b64", x, a(), b(), p);
      else I("selp.b64", x, b(), a(), p);
      return;
    }
    case Op::ShLI: case Op::ShRSI: case Op::ShRUI: {
      unsigned bits = int_bits(d);
      Reg out = reg(RC::P), cnt = as_u32(b());
      I("setp.ge.u64", out, b(), bits);
      Reg v = in.op == Op::ShRUI ? zext(a(), bits) : a();
      I(in.op == Op::ShLI ? "shl.b64" : in.op == Op::ShRSI ? "shr.s64" : "shr.u64", x, v, cnt);
      I("selp.b64", x, 0, x, out);
      canon(x, d);
      return;
    }
    case Op::CmpI: {
      DType od = ty(op(in, 0)).elem;
      if (!is_int_like(od)) return fail(in);
      std::string_view pr = m_.attr_word(in, "predicate");
      static const char* cmp[] = {"eq", "ne", "lt", "le", "gt", "ge", "lt", "le", "gt", "ge"};
      int k = cmpi_predicate(pr);
      if (k < 0) return fail(in, {RefusalCode::Attribute, "arith.cmpi predicate '" + std::string(pr) + "'"});
      Reg p = reg(RC::P);
      if (k >= 6) {
        unsigned bits = od == DType::I1 ? 1 : int_bits(od);
        I(std::string("setp.") + cmp[k] + ".u64", p, zext(a(), bits), zext(b(), bits));
      } else {
        I(std::string("setp.") + cmp[k] + ".s64", p, a(), b());
      }
      I("selp.b64", x, 1, 0, p);
      return;
    }
    case Op::Select: {
      Reg p = pred_of(op(in, 0));
      RC c = x.c;
      I(c == RC::F ? "selp.f32" : c == RC::FD ? "selp.f64" : "selp.b64", x, sreg(op(in, 1)), sreg(op(in, 2)), p);
      return;
    }
    case Op::IndexCast: case Op::ExtSI: case Op::TruncI: case Op::IndexCastUI: case Op::ExtUI: {
      DType sd = ty(op(in, 0)).elem;
      if (!is_int_like(sd)) return fail(in);
      if (in.op == Op::ExtUI || in.op == Op::IndexCastUI) {
        Reg z = zext(a(), sd == DType::I1 ? 1 : int_bits(sd));
        I("mov.b64", x, z);
      } else {
        I("mov.b64", x, a());
      }
      canon(x, d);
      return;
    }
    case Op::Bitcast: {
      DType sd = ty(op(in, 0)).elem;
      unsigned sb = dtype_bytes(sd), db = dtype_bytes(d);
      if (sb != db || (sb != 4 && sb != 8) || sd == DType::F16 || sd == DType::BF16) return fail(in);
      if (sd == DType::F32) {
        Reg r = reg(RC::R);
        I("mov.b32", r, a());
        I("cvt.u64.u32", x, r);
      } else if (sd == DType::F64) {
        I("mov.b64", x, a());
      } else {
        I("mov.b64", x, a());
      }
      canon(x, d);
      return;
    }
    case Op::FPToSI: case Op::FPToUI: {
      DType sd = ty(op(in, 0)).elem;
      if (!is_int_like(d)) return fail(in);
      // Saturating, NaN -> 0 (as fcvtzs / the CPU targets), then wrapped to d.
      if (sd == DType::F64) I("cvt.rzi.s64.f64", x, a());
      else if (sd == DType::F32 || sd == DType::F16 || sd == DType::BF16) I("cvt.rzi.s64.f32", x, a());
      else return fail(in);
      canon(x, d);
      return;
    }
    default:
      return fail(in);
  }
}

// Float scalars: f32 and f64 ops, f16 / bf16 rounded to their type after
// each op (they hold exact values in .f32 registers).
void Gen::scalar_float(const Inst& in) {
  ValueId res = in.res;
  DType d = ty(res).elem;
  Reg x = sreg(res);
  bool f64 = d == DType::F64;
  bool narrow = d == DType::F16 || d == DType::BF16;
  const char* ft = f64 ? "f64" : "f32";
  auto a = [&] { return sreg(op(in, 0)); };
  auto b = [&] { return sreg(op(in, 1)); };
  auto fin = [&] {
    if (narrow) I("mov.f32", x, round_lane(d, x));
  };
  switch (in.op) {
    case Op::AddF: case Op::SubF: case Op::MulF: case Op::DivF: {
      if (!f64) {
        Bin k = in.op == Op::AddF ? Bin::Add : in.op == Op::SubF ? Bin::Sub : in.op == Op::MulF ? Bin::Mul : Bin::Div;
        I("mov.f32", x, bin(k, DType::F32, a(), b()));
        fin();
        return;
      }
      const char* n = in.op == Op::AddF ? "add.rn.f64" : in.op == Op::SubF ? "sub.rn.f64" : in.op == Op::MulF ? "mul.rn.f64" : "div.rn.f64";
      I(n, x, a(), b());
      return;
    }
    case Op::MaximumF: case Op::MinimumF: {
      // std::max / std::min when ordered; a NaN operand gives the quiet NaN.
      Reg lt = reg(RC::P), nan = reg(RC::P);
      if (in.op == Op::MaximumF) I(std::string("setp.lt.") + ft, lt, a(), b());
      else I(std::string("setp.lt.") + ft, lt, b(), a());
      I(std::string("selp.") + ft, x, b(), a(), lt);
      I(std::string("setp.nan.") + ft, nan, a(), b());
      I(std::string("selp.") + ft, x, f64 ? f64imm(0x7ff8000000000000ull) : f32imm(0x7fc00000u), x, nan);
      return;
    }
    case Op::NegF:
      if (f64) {
        Reg r = reg(RC::RD);
        I("mov.b64", r, a());
        I("xor.b64", r, r, (unsigned long long)(uint64_t(1) << 63));
        I("mov.b64", x, r);
      } else {
        I("mov.f32", x, unary(Op::TNeg, DType::F32, a()));
      }
      return;
    case Op::CmpF: {
      DType od = ty(op(in, 0)).elem;
      bool o64 = od == DType::F64;
      if (od != DType::F32 && od != DType::F64 && od != DType::F16 && od != DType::BF16) return fail(in);
      std::string_view pr = m_.attr_word(in, "predicate");
      static const std::pair<const char*, const char*> map[] = {
          {"oeq", "eq"}, {"one", "ne"}, {"olt", "lt"}, {"ole", "le"}, {"ogt", "gt"}, {"oge", "ge"},
          {"ueq", "equ"}, {"une", "neu"}, {"ult", "ltu"}, {"ule", "leu"}, {"ugt", "gtu"}, {"uge", "geu"},
          {"ord", "num"}, {"uno", "nan"}};
      if (pr == "false" || pr == "true") {
        I("mov.b64", x, pr == "true" ? 1 : 0);
        return;
      }
      for (auto& [k, v] : map)
        if (pr == k) {
          Reg p = reg(RC::P);
          I(std::string("setp.") + v + (o64 ? ".f64" : ".f32"), p, a(), b());
          I("selp.b64", x, 1, 0, p);
          return;
        }
      return fail(in, {RefusalCode::Attribute, "arith.cmpf predicate '" + std::string(pr) + "'"});
    }
    case Op::SIToFP: case Op::UIToFP: {
      DType sd = ty(op(in, 0)).elem;
      if (!is_int_like(sd)) return fail(in);
      Reg s = a();
      if (in.op == Op::UIToFP) {
        if (int_bits(sd) >= 64) return fail(in);
        Reg z = reg(RC::RD);
        I("and.b64", z, s, (unsigned long long)((uint64_t(1) << (sd == DType::I1 ? 1 : int_bits(sd))) - 1));
        s = z;
      }
      // int -> double -> the type, as the interpreter rounds.
      Reg dd = f64 ? x : reg(RC::FD);
      I("cvt.rn.f64.s64", dd, s);
      if (!f64) {
        I("cvt.rn.f32.f64", x, dd);
        fin();
      }
      return;
    }
    case Op::ExtF: case Op::TruncF: {
      DType sd = ty(op(in, 0)).elem;
      bool s64 = sd == DType::F64;
      if (s64 == f64) {
        I(f64 ? "mov.f64" : "mov.f32", x, a());
      } else if (s64) {
        I("cvt.rn.f32.f64", x, a());
      } else {
        I("cvt.f64.f32", x, a());
      }
      fin();
      return;
    }
    case Op::Bitcast: {
      DType sd = ty(op(in, 0)).elem;
      if (dtype_bytes(sd) != dtype_bytes(d) || narrow) return fail(in);
      if (f64) {
        I("mov.b64", x, a());
      } else {
        Reg r = as_u32(a());
        I("mov.b32", x, r);
      }
      return;
    }
    default:
      return fail(in);
  }
}

// pto.load_scalar %p[%i] / pto.store_scalar %v, %p[%i]: one element of GM.
void Gen::load_store_scalar(const Inst& in) {
  bool load = in.op == Op::LoadScalar;
  ValueId p = op(in, load ? 0 : 1), i = op(in, load ? 1 : 2);
  const Type& pt = ty(p);
  DType e = pt.elem;
  if (pt.kind != TypeKind::Ptr || !has_regs(load ? ty(in.res) : ty(op(in, 0))) ||
      !(is_int_like(e) || e == DType::F32 || e == DType::F64 || e == DType::F16 || e == DType::BF16))
    return fail(in);
  unsigned es = std::max(1u, dtype_bytes(e));
  // Every thread computes every scalar, but a GM element that one
  // statement writes and a later one reads (a counter in memory) must be
  // the same for all of them: thread 0 alone stores, and the barrier
  // planner puts a bar.sync between the store and the accesses to global
  // memory on either side of it (any address: no owner mapping).
  Access gm;
  gm.space = 1, gm.lo = 0, gm.hi = INT64_MAX, gm.write = !load;
  access({gm});
  Reg addr = reg(RC::RD);
  I("mad.lo.s64", addr, sreg(i), es, sreg(p));
  scalar_elem(load, e, "global", mem(addr), sreg(load ? in.res : op(in, 0)), load ? Reg{} : thread0());
}

// tgetval ins(%t, %k) / tsetval ins(%k, %v) outs(%t) (plan_scalar_mem):
// element k of the tile's storage in shared memory, k clamped into the
// tile (the interpreter reports one outside it). Every thread reads the
// element; thread 0 alone writes it, and the barrier planner orders both
// against the tile ops around (an access with no owner mapping).
void Gen::tile_value(const Inst& in) {
  ScalarMemPlan p;
  Refusal why;
  if (!plan_scalar_mem(m_, in, p, why)) return fail(in, why);
  if (!has_regs(ty(p.val))) return fail(in);
  access({tile_access(p.ptr, p.store)});
  Reg k = reg(RC::RD), a = reg(RC::R);
  I("min.u64", k, sreg(p.idx), uint64_t(p.limit - 1));
  I("cvt.u32.u64", a, k);
  I("mad.lo.u32", a, a, p.bytes, val(p.ptr).r[0]);
  scalar_elem(!p.store, p.elem, "shared", mem(a), sreg(p.val), p.store ? thread0() : Reg{});
}

// A predicate true in thread 0 alone: the one that stores a scalar every
// thread computed.
Reg Gen::thread0() {
  Reg p = reg(RC::P);
  I("setp.eq.u32", p, tid_, 0);
  return p;
}

// One element of type e at `at` in state space `sp`: loaded into x (the
// scalar's register form: canonical integers, f16 / bf16 as their f32
// value), or x stored, by the threads where `only` holds (none: all).
void Gen::scalar_elem(bool load, DType e, const char* sp, const std::string& at, Reg x, Reg only) {
  unsigned es = std::max(1u, dtype_bytes(e));
  const std::string s(sp);
  if (load) {
    if (e == DType::F32) I("ld." + s + ".f32", x, at);
    else if (e == DType::F64) I("ld." + s + ".f64", x, at);
    else if (e == DType::F16 || e == DType::BF16) {
      Reg h = reg(RC::H);
      I("ld." + s + ".b16", h, at);
      I("mov.f32", x, lane_from_bits(e, h));
    } else {
      const bool sg = !dtype_is_unsigned(e);
      const std::string t = es == 8 ? "u64" : std::string(sg ? "s" : "u") + std::to_string(es * 8);
      if (es == 8) {
        I("ld." + s + "." + t, x, at);
      } else {
        Reg r = reg(RC::R);
        I("ld." + s + "." + t, r, at);
        I(sg ? "cvt.s64.s32" : "cvt.u64.u32", x, r);
      }
      canon(x, e);
    }
    return;
  }
  auto st = [&](const std::string& op, const O& v) {
    if (only) IP(only, false, "st." + s + "." + op, at, v);
    else I("st." + s + "." + op, at, v);
  };
  if (e == DType::F32) st("f32", x);
  else if (e == DType::F64) st("f64", x);
  else if (e == DType::F16 || e == DType::BF16) st("b16", copy_bits16(e, x));
  else if (es == 8) st("u64", x);
  else st(es == 4 ? "u32" : es == 2 ? "u16" : "u8", as_u32(x));
}

// store_scalar is a copy (the interpreter's store_f_bits): a NaN keeps the
// top of its payload without the quiet bit being forced, so a signalling
// f16 / bf16 NaN loaded and stored again is the same bits; only a payload
// that would vanish becomes the quiet NaN. Other values round as lanes do.
Reg Gen::copy_bits16(DType e, Reg v) {
  unsigned mb = e == DType::F16 ? 10 : 7;
  Reg h = bits_from_lane(e, v), b = reg(RC::R), n = reg(RC::R), s = reg(RC::R), hn = reg(RC::H);
  Reg zero = reg(RC::P), nan = reg(RC::P);
  I("mov.b32", b, v);
  I("shr.u32", n, b, 23 - mb);
  I("and.b32", n, n, (1u << mb) - 1);
  I("setp.eq.u32", zero, n, 0);
  I("selp.b32", n, 1u << (mb - 1), n, zero);
  I("or.b32", n, n, e == DType::F16 ? 0x7c00u : 0x7f80u);
  I("shr.u32", s, b, 16);
  I("and.b32", s, s, 0x8000u);
  I("or.b32", n, n, s);
  I("cvt.u16.u32", hn, n);
  I("setp.nan.f32", nan, v, v);
  I("selp.b16", h, hn, h, nan);
  return h;
}

bool Gen::lower_special(const Inst& in, InstId) {
  if (in.op != Op::LoadScalar && in.op != Op::StoreScalar) return false;
  mark(in);
  load_store_scalar(in);
  return true;
}

// ---- views --------------------------------------------------------------------------

void Gen::view(const Inst& in) {
  switch (in.op) {
    case Op::MakeTensorView: {
      unsigned rank = (in.n_ins - 1u) / 2u;
      const Type& rt = ty(in.res);
      if (!has_regs(rt) || rt.rank != rank) return fail(in, {RefusalCode::Shape, "a view whose rank differs from its type"});
      Val& v = vals_[in.res];
      v.r.clear();
      v.r.push_back(sreg(op(in, 0)));
      for (unsigned k = 0; k < 2 * rank; ++k) v.r.push_back(sreg(op(in, 1 + k)));
      return;
    }
    case Op::PartitionView: {
      unsigned rank = (in.n_ins - 1u) / 2u;
      ValueId src = op(in, 0);
      const Type& rt = ty(in.res);
      if (!has_regs(rt) || rt.rank != rank || ty(src).rank != rank)
        return fail(in, {RefusalCode::Shape, "a partition whose rank differs from its view's"});
      unsigned es = std::max(1u, dtype_bytes(rt.elem));
      Val& s = val(src);
      Reg base = reg(RC::RD);
      I("mov.b64", base, s.r[0]);
      for (unsigned k = 0; k < rank; ++k) {
        Reg t = reg(RC::RD);
        I("mul.lo.s64", t, sreg(op(in, 1 + k)), s.r[1 + rank + k]);
        I("mad.lo.s64", base, t, es, base);
      }
      Val& v = vals_[in.res];
      v.r.clear();
      v.r.push_back(base);
      for (unsigned k = 0; k < rank; ++k) v.r.push_back(sreg(op(in, 1 + rank + k)));
      for (unsigned k = 0; k < rank; ++k) v.r.push_back(vals_[src].r[1 + rank + k]);
      return;
    }
    case Op::AddPtr: {
      unsigned es = std::max(1u, dtype_bytes(ty(op(in, 0)).elem));
      I("mad.lo.s64", sreg(in.res), sreg(op(in, 1)), es, sreg(op(in, 0)));
      return;
    }
    case Op::GetTensorViewDim: {
      int64_t k;
      ValueId v = op(in, 0);
      unsigned rank = ty(v).rank;
      if (!int_constant(m_, op(in, 1), k) || k < 0 || k >= int64_t(rank))
        return fail(in, {RefusalCode::Operands, "pto.get_tensor_view_dim with a dimension that is not a constant in range"});
      I("mov.b64", sreg(in.res), val(v).r[1 + k]);
      return;
    }
    case Op::SetValidShape: {
      ValueId t = op(in, 0);
      const Type& tt = ty(t);
      Val& v = val(t);
      Reg r = clamp_count(op(in, 1), tt.rows, false);
      Reg c = clamp_count(op(in, 2), tt.cols, false);
      I("mov.b32", v.r[1], r);
      I("mov.b32", v.r[2], c);
      return;
    }
    case Op::Subset: case Op::Subview: {
      ValueId t = op(in, 0);
      const Type& st = ty(t);
      const Type& rt = ty(in.res);
      bool valid_ops = false;
      Refusal why;
      if (!plan_row_subset(m_, in, valid_ops, why)) return fail(in, why);
      unsigned es = std::max(1u, dtype_bytes(st.elem));
      Val& s = val(t);
      Val& v = val(in.res);
      Reg off = reg(RC::RD);
      I("mad.lo.s64", off, sreg(op(in, 1)), st.cols, sreg(op(in, 2)));
      Reg o32 = as_u32(off);
      I("mad.lo.s32", v.r[0], o32, es, s.r[0]);
      I("mov.b32", v.r[1], rt.vrow < 0 ? rt.rows : rt.vrow);
      I("mov.b32", v.r[2], rt.vcol < 0 ? rt.cols : rt.vcol);
      int64_t r0, c0;
      if (s.off >= 0 && int_constant(m_, op(in, 1), r0) && int_constant(m_, op(in, 2), c0) && r0 >= 0 && c0 >= 0 &&
          r0 < st.rows && c0 < st.cols)
        v.off = s.off + (r0 * st.cols + c0) * es;
      if (valid_ops) {
        Reg r = clamp_count(op(in, 3), rt.rows, false);
        Reg c = clamp_count(op(in, 4), rt.cols, false);
        I("mov.b32", v.r[1], r);
        I("mov.b32", v.r[2], c);
      }
      return;
    }
    default:
      return fail(in);
  }
}

// A subview window that is not whole rows: its copy in shared memory
// (plan_smem) and its valid extents (static, or its explicit ones clamped
// to its sizes); false when it has no storage.
bool Gen::window_view(const Inst& in) {
  InstId id = current_inst();
  if (id == kNone || smem_plan_.off[id] == kNone) return false;
  const Type& t = ty(in.res);
  Val& v = val(in.res);
  I("add.u32", v.r[0], smem_, smem_plan_.off[id]);
  v.off = smem_plan_.off[id];
  if (in.n_ins == 5) {
    I("mov.b32", v.r[1], clamp_count(op(in, 3), t.rows, false));
    I("mov.b32", v.r[2], clamp_count(op(in, 4), t.cols, false));
  } else {
    I("mov.b32", v.r[1], t.vrow < 0 ? t.rows : std::min(t.vrow, t.rows));
    I("mov.b32", v.r[2], t.vcol < 0 ? t.cols : std::min(t.vcol, t.cols));
  }
  return true;
}

// The tile's shared address and valid extents: static, or run-time counts
// clamped (a negative count: the whole tile).
void Gen::alloc(const Inst& in, InstId id) {
  const Type& t = ty(in.res);
  if (t.rows <= 0 || t.cols <= 0) return fail(in, {RefusalCode::Shape, "a tile of dynamic shape"});
  Val& v = val(in.res);
  uint32_t off = smem_plan_.off[id];
  if (off == kNone) {
    v.off = -1;  // in registers only (a fused region's private tile): never addressed
    I("mov.b32", v.r[0], 0);
  } else {
    I("add.u32", v.r[0], smem_, off);
    if (!reshaped_[in.res]) v.off = off;
  }
  unsigned k = (in.flags & kInstHasAddr) ? 1 : 0;
  auto valid = [&](bool present, int32_t stat, int32_t phys, Reg dst) {
    if (present) I("mov.b32", dst, clamp_count(op(in, k++), phys, true));
    else I("mov.b32", dst, stat < 0 ? phys : std::min(stat, phys));
  };
  valid(in.flags & kInstHasValidRow, t.vrow, t.rows, v.r[1]);
  valid(in.flags & kInstHasValidCol, t.vcol, t.cols, v.r[2]);
}

}  // namespace ptoas::cg::ptx
