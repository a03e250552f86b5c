// x86-64 code generation: scalar arith ops and the arithmetic of views and
// tile allocation (their checks are cpu_lowering.cpp's), in 8-byte frame
// slots (gen.h).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "gen.h"
#include "int_eval.h"

namespace ptoas::cg::x86::gen {

// ---- scalars -----------------------------------------------------------------

void Gen::scalar(const Inst& in) {
  ValueId res = in.res;
  const ptoas::Type& rt = ty(res);
  DType d = rt.elem;
  switch (in.op) {
    case Op::GetBlockIdx: mov(rax, qs(p_.block_idx_slot)); mov(q(res), rax); return;
    case Op::GetBlockNum: mov(rax, qs(p_.block_num_slot)); mov(q(res), rax); return;
    case Op::GetSubblockIdx: mov(qword[rbp + disp(sl(res))], 0); return;
    case Op::GetSubblockNum: mov(qword[rbp + disp(sl(res))], 1); return;
    case Op::Constant: {
      uint64_t bits;
      if (!constant_bits(m_, in, bits)) return fail(in);
      mov(rax, bits);
      mov(q(res), rax);
      return;
    }
    default: break;
  }
  if (rt.kind != TypeKind::Scalar && in.op != Op::Select) return fail(in);
  bool fl = dtype_is_float(d);
  bool f64 = d == DType::F64;
  auto ld2 = [&] {
    mov(rax, q(op(in, 0)));
    mov(rcx, q(op(in, 1)));
  };
  auto st = [&](const Reg64& r) { mov(q(res), r); };
  auto fld = [&](const Xmm& x, ValueId v) {
    if (f64) vmovsd(x, qword[rbp + disp(sl(v))]);
    else vmovss(x, dword[rbp + disp(sl(v))]);
  };
  auto fst = [&](const Xmm& x) {
    if (f64) vmovq(rax, x);
    else vmovd(eax, x);
    st(rax);
  };
  switch (in.op) {
    case Op::AddI: case Op::SubI: case Op::MulI: case Op::AndI: case Op::OrI: case Op::XOrI:
      if (!is_int_like(d)) return fail(in);
      ld2();
      if (in.op == Op::AddI) add(rax, rcx);
      else if (in.op == Op::SubI) sub(rax, rcx);
      else if (in.op == Op::MulI) imul(rax, rcx);
      else if (in.op == Op::AndI) and_(rax, rcx);
      else if (in.op == Op::OrI) or_(rax, rcx);
      else xor_(rax, rcx);
      canon(rax, d);
      st(rax);
      return;
    case Op::DivSI: case Op::RemSI: case Op::CeilDivSI: case Op::FloorDivSI: {
      if (!is_int_like(d)) return fail(in);
      // Division by zero gives 0 and INT64_MIN / -1 wraps (the interpreter
      // reports both as errors; native code has no error channel).
      Label zero, minus1, fin;
      ld2();
      test(rcx, rcx);
      jz(zero, T_NEAR);
      cmp(rcx, -1);
      je(minus1, T_NEAR);
      mov(r8, rax);
      cqo();
      idiv(rcx);
      if (in.op == Op::RemSI) {
        mov(rax, rdx);
      } else if (in.op == Op::FloorDivSI || in.op == Op::CeilDivSI) {
        test(rdx, rdx);
        jz(fin, T_NEAR);
        xor_(r8, rcx);  // sign bit: the operands' signs differ
        if (in.op == Op::FloorDivSI) {
          jns(fin, T_NEAR);
          dec(rax);
        } else {
          js(fin, T_NEAR);
          inc(rax);
        }
      }
      jmp(fin, T_NEAR);
      L(minus1);
      if (in.op == Op::RemSI) xor_(eax, eax);
      else neg(rax);
      jmp(fin, T_NEAR);
      L(zero);
      xor_(eax, eax);
      L(fin);
      canon(rax, d);
      st(rax);
      return;
    }
    case Op::DivUI: case Op::RemUI: {
      if (!is_int_like(d)) return fail(in);
      Label zero, fin;
      ld2();
      unsigned bits = int_bits(d);
      zext(rax, bits);
      zext(rcx, bits);
      test(rcx, rcx);
      jz(zero, T_NEAR);
      xor_(edx, edx);
      div(rcx);
      if (in.op == Op::RemUI) mov(rax, rdx);
      jmp(fin, T_NEAR);
      L(zero);
      xor_(eax, eax);
      L(fin);
      canon(rax, d);
      st(rax);
      return;
    }
    case Op::MinSI: case Op::MaxSI:
      if (!is_int_like(d)) return fail(in);
      ld2();
      cmp(rax, rcx);
      if (in.op == Op::MinSI) cmovg(rax, rcx);
      else cmovl(rax, rcx);
      st(rax);
      return;
    case Op::MinUI: case Op::MaxUI: {
      if (!is_int_like(d)) return fail(in);
      ld2();
      unsigned bits = int_bits(d);
      mov(r8, rax);
      mov(r9, rcx);
      zext(r8, bits);
      zext(r9, bits);
      mov(rdx, rcx);
      cmp(r8, r9);
      if (in.op == Op::MinUI) cmovb(rdx, rax);
      else cmova(rdx, rax);
      st(rdx);
      return;
    }
    case Op::ShLI: case Op::ShRSI: case Op::ShRUI: {
      if (!is_int_like(d)) return fail(in);
      Label zero, fin;
      unsigned bits = int_bits(d);
      ld2();
      cmp(rcx, int(bits));
      jae(zero, T_NEAR);  // out-of-range counts give 0 (an error in the interpreter)
      if (in.op == Op::ShLI) {
        shl(rax, cl);
      } else if (in.op == Op::ShRSI) {
        sar(rax, cl);
      } else {
        zext(rax, bits);
        shr(rax, cl);
      }
      jmp(fin, T_NEAR);
      L(zero);
      xor_(eax, eax);
      L(fin);
      canon(rax, d);
      st(rax);
      return;
    }
    case Op::AddF: case Op::SubF: case Op::MulF: case Op::DivF:
    case Op::MaximumF: case Op::MinimumF: {
      if (d != DType::F32 && d != DType::F64) return fail(in);
      fld(xmm0, op(in, 0));
      fld(xmm1, op(in, 1));
      if (in.op == Op::MaximumF || in.op == Op::MinimumF) {
        Label nan, fin;
        if (f64) vucomisd(xmm0, xmm1);
        else vucomiss(xmm0, xmm1);
        jp(nan, T_NEAR);
        // std::max(a, b) = (a < b) ? b : a; std::min(a, b) = (b < a) ? b : a.
        if (in.op == Op::MaximumF) f64 ? vmaxsd(xmm0, xmm1, xmm0) : vmaxss(xmm0, xmm1, xmm0);
        else f64 ? vminsd(xmm0, xmm1, xmm0) : vminss(xmm0, xmm1, xmm0);
        fst(xmm0);
        jmp(fin, T_NEAR);
        L(nan);
        mov(rax, f64 ? uint64_t(0x7ff8000000000000ull) : uint64_t(0x7fc00000u));
        st(rax);
        L(fin);
        return;
      }
      switch (in.op) {
        case Op::AddF: f64 ? vaddsd(xmm0, xmm0, xmm1) : vaddss(xmm0, xmm0, xmm1); break;
        case Op::SubF: f64 ? vsubsd(xmm0, xmm0, xmm1) : vsubss(xmm0, xmm0, xmm1); break;
        case Op::MulF: f64 ? vmulsd(xmm0, xmm0, xmm1) : vmulss(xmm0, xmm0, xmm1); break;
        default: f64 ? vdivsd(xmm0, xmm0, xmm1) : vdivss(xmm0, xmm0, xmm1); break;
      }
      fst(xmm0);
      return;
    }
    case Op::NegF:
      if (d != DType::F32 && d != DType::F64) return fail(in);
      mov(rax, q(op(in, 0)));
      btc(rax, f64 ? 63 : 31);
      st(rax);
      return;
    case Op::CmpI: {
      DType od = ty(op(in, 0)).elem;
      if (!is_int_like(od)) return fail(in);
      std::string_view pr = m_.attr_word(in, "predicate");
      ld2();
      bool uns = pr.size() && pr[0] == 'u';
      if (uns) {
        zext(rax, int_bits(od));
        zext(rcx, int_bits(od));
      }
      cmp(rax, rcx);
      if (pr == "eq") sete(al);
      else if (pr == "ne") setne(al);
      else if (pr == "slt") setl(al);
      else if (pr == "sle") setle(al);
      else if (pr == "sgt") setg(al);
      else if (pr == "sge") setge(al);
      else if (pr == "ult") setb(al);
      else if (pr == "ule") setbe(al);
      else if (pr == "ugt") seta(al);
      else if (pr == "uge") setae(al);
      else return fail(in, {RefusalCode::Attribute, "arith.cmpi predicate '" + std::string(pr) + "'"});
      movzx(eax, al);
      st(rax);
      return;
    }
    case Op::CmpF: {
      DType od = ty(op(in, 0)).elem;
      if (od != DType::F32 && od != DType::F64) return fail(in);
      bool o64 = od == DType::F64;
      std::string_view pr = m_.attr_word(in, "predicate");
      auto ld = [&](const Xmm& x, ValueId v) {
        if (o64) vmovsd(x, qword[rbp + disp(sl(v))]);
        else vmovss(x, dword[rbp + disp(sl(v))]);
      };
      ld(xmm0, op(in, 0));
      ld(xmm1, op(in, 1));
      auto ucom = [&](const Xmm& a, const Xmm& b) { o64 ? vucomisd(a, b) : vucomiss(a, b); };
      xor_(eax, eax);
      if (pr == "false") {
      } else if (pr == "true") {
        mov(eax, 1);
      } else if (pr == "oeq" || pr == "une") {
        ucom(xmm0, xmm1);
        if (pr == "oeq") { sete(al); setnp(cl); and_(al, cl); }
        else { setne(al); setp(cl); or_(al, cl); }
      } else if (pr == "ogt") { ucom(xmm0, xmm1); seta(al); }
      else if (pr == "oge") { ucom(xmm0, xmm1); setae(al); }
      else if (pr == "olt") { ucom(xmm1, xmm0); seta(al); }
      else if (pr == "ole") { ucom(xmm1, xmm0); setae(al); }
      else if (pr == "one") { ucom(xmm0, xmm1); setne(al); setnp(cl); and_(al, cl); }
      else if (pr == "ord") { ucom(xmm0, xmm1); setnp(al); }
      else if (pr == "uno") { ucom(xmm0, xmm1); setp(al); }
      else if (pr == "ueq") { ucom(xmm0, xmm1); sete(al); }
      else if (pr == "ugt") { ucom(xmm1, xmm0); setb(al); }
      else if (pr == "uge") { ucom(xmm1, xmm0); setbe(al); }
      else if (pr == "ult") { ucom(xmm0, xmm1); setb(al); }
      else if (pr == "ule") { ucom(xmm0, xmm1); setbe(al); }
      else return fail(in, {RefusalCode::Attribute, "arith.cmpf predicate '" + std::string(pr) + "'"});
      movzx(eax, al);
      st(rax);
      return;
    }
    case Op::Select:
      if (p_.slots[res].count != 1) return fail(in, {RefusalCode::Operands, "arith.select of views or tiles"});
      mov(rax, q(op(in, 1)));
      mov(rcx, q(op(in, 2)));
      test(byte[rbp + disp(sl(op(in, 0)))], 1);
      cmovz(rax, rcx);
      st(rax);
      return;
    case Op::IndexCast: case Op::ExtSI: case Op::TruncI: case Op::IndexCastUI: case Op::ExtUI: {
      DType sd = ty(op(in, 0)).elem;
      if (!is_int_like(d) || !is_int_like(sd)) return fail(in);
      mov(rax, q(op(in, 0)));
      if (in.op == Op::ExtUI || in.op == Op::IndexCastUI) zext(rax, sd == DType::I1 ? 1 : int_bits(sd));
      canon(rax, d);
      st(rax);
      return;
    }
    case Op::SIToFP: case Op::UIToFP: {
      DType sd = ty(op(in, 0)).elem;
      if ((d != DType::F32 && d != DType::F64) || !is_int_like(sd)) return fail(in);
      mov(rax, q(op(in, 0)));
      if (in.op == Op::UIToFP) {
        if (int_bits(sd) >= 64) return fail(in);
        zext(rax, int_bits(sd));
      }
      // int -> double -> f32, as the interpreter rounds (round_to of a double).
      vxorps(xmm0, xmm0, xmm0);
      vcvtsi2sd(xmm0, xmm0, rax);
      if (!f64) vcvtsd2ss(xmm0, xmm0, xmm0);
      fst(xmm0);
      return;
    }
    case Op::FPToSI: case Op::FPToUI: {
      DType sd = ty(op(in, 0)).elem;
      if ((sd != DType::F32 && sd != DType::F64) || !is_int_like(d)) return fail(in);
      if (sd == DType::F64) {
        vmovsd(xmm0, qword[rbp + disp(sl(op(in, 0)))]);
        vcvttsd2si(rax, xmm0);
      } else {
        vmovss(xmm0, dword[rbp + disp(sl(op(in, 0)))]);
        vcvttss2si(rax, xmm0);
      }
      canon(rax, d);
      st(rax);
      return;
    }
    case Op::ExtF: case Op::TruncF: {
      DType sd = ty(op(in, 0)).elem;
      if ((sd != DType::F32 && sd != DType::F64) || (d != DType::F32 && d != DType::F64))
        return fail(in);
      if (sd == d) {
        mov(rax, q(op(in, 0)));
        st(rax);
        return;
      }
      if (sd == DType::F32) {
        vmovss(xmm0, dword[rbp + disp(sl(op(in, 0)))]);
        vcvtss2sd(xmm0, xmm0, xmm0);
      } else {
        vmovsd(xmm0, qword[rbp + disp(sl(op(in, 0)))]);
        vcvtsd2ss(xmm0, xmm0, xmm0);
      }
      fst(xmm0);
      return;
    }
    case Op::Bitcast: {
      DType sd = ty(op(in, 0)).elem;
      unsigned sb = dtype_bytes(sd), db_ = dtype_bytes(d);
      if (sb != db_ || (sb != 2 && sb != 4 && sb != 8)) return fail(in);
      // The low bits, in the result's slot form: a float's (f16 / bf16 /
      // f32) zero-extended, an integer canonical.
      mov(rax, q(op(in, 0)));
      if (fl) zext(rax, sb * 8);
      else canon(rax, d);
      st(rax);
      return;
    }
    default:
      return fail(in);
  }
}

// ---- views and tiles: the arithmetic (the checks are cpu_lowering.cpp's) ----------

void Gen::store_imm(ValueId v, unsigned k, int64_t imm) { mov(qword[rbp + disp(sl(v, k))], int32_t(imm)); }

void Gen::store_count(ValueId v, unsigned k, ValueId count, int32_t limit) {
  mov(rax, q(count));
  mov(rcx, limit);
  test(rax, rax);
  cmovs(rax, rcx);
  cmp(rax, rcx);
  cmovg(rax, rcx);
  mov(q(v, k), rax);
}

void Gen::partition_view(const Inst& in, ValueId src, ValueId res, unsigned rank, unsigned es) {
  xor_(edx, edx);
  for (unsigned k = 0; k < rank; ++k) {
    mov(rax, q(op(in, 1 + k)));
    imul(rax, q(src, 1 + rank + k));
    add(rdx, rax);
    mov(rax, q(op(in, 1 + rank + k)));
    mov(q(res, 1 + k), rax);
    mov(rax, q(src, 1 + rank + k));
    mov(q(res, 1 + rank + k), rax);
  }
  imul(rdx, rdx, int(es));
  add(rdx, q(src, 0));
  mov(q(res, 0), rdx);
}

void Gen::add_ptr(const Inst& in, unsigned es) {
  mov(rax, q(op(in, 1)));
  imul(rax, rax, int(es));
  add(rax, q(op(in, 0), 0));
  mov(q(in.res), rax);
}

void Gen::store_valid(ValueId t, unsigned k, ValueId count, int32_t limit) {
  mov(rax, q(count));
  xor_(ecx, ecx);
  test(rax, rax);
  cmovs(rax, rcx);
  clamp(rax, limit);
  mov(q(t, 1 + k), rax);
}

void Gen::subset(const Inst& in, ValueId t, unsigned es) {
  const ptoas::Type& st = ty(t);
  const ptoas::Type& rt = ty(in.res);
  mov(rax, q(op(in, 1)));
  imul(rax, rax, st.cols);
  add(rax, q(op(in, 2)));
  imul(rax, rax, int(es));
  add(rax, q(t, 0));
  mov(q(in.res, 0), rax);
  mov(qword[rbp + disp(sl(in.res, 1))], rt.vrow < 0 ? rt.rows : rt.vrow);
  mov(qword[rbp + disp(sl(in.res, 2))], rt.vcol < 0 ? rt.cols : rt.vcol);
}

// One GM element at [ptr + idx * bytes], or a tile's at [r15 + tile + idx *
// bytes], through rdx.
void Gen::scalar_mem(const Inst& in, const ScalarMemPlan& p) {
  mov(rax, q(p.ptr));
  if (p.tile) add(rax, r15);
  mov(rcx, q(p.idx));
  if (p.limit > 0) {
    mov(rdx, p.limit - 1);
    cmp(rcx, rdx);
    cmova(rcx, rdx);
  }
  const int es = int(p.bytes);
  const RegExp at = rax + rcx * es;
  if (p.store) {
    mov(rdx, q(p.val));
    if (es == 1) mov(byte[at], dl);
    else if (es == 2) mov(word[at], dx);
    else if (es == 4) mov(dword[at], edx);
    else mov(qword[at], rdx);
    return;
  }
  if (es == 8) mov(rdx, qword[at]);
  else if (p.sign && es == 4) movsxd(rdx, dword[at]);
  else if (es == 4) mov(edx, dword[at]);
  else if (p.sign) movsx(rdx, es == 1 ? byte[at] : word[at]);
  else movzx(edx, es == 1 ? byte[at] : word[at]);
  if (p.bit) and_(edx, 1);
  mov(q(p.val), rdx);
}

}  // namespace ptoas::cg::x86::gen
