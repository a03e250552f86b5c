// AArch64 scalar ops, views and tile allocation (sve/gen.h), with the same
// results as the x86 backend's and the interpreter's, including the cases
// native code has no error channel for (division by zero gives 0, shift
// counts out of range give 0).
#include "int_eval.h"
#include "gen.h"

namespace ptoas::cg::sve::gen {

void Gen::scalar(const Inst& in) {
  ValueId res = in.res;
  const ptoas::Type& rt = ty(res);
  DType d = rt.elem;
  switch (in.op) {
    case Op::GetBlockIdx: ldx_slot(X(0), p_.block_idx_slot); stx(X(0), res); return;
    case Op::GetBlockNum: ldx_slot(X(0), p_.block_num_slot); stx(X(0), res); return;
    case Op::GetSubblockIdx: stx(xzr(), res); return;
    case Op::GetSubblockNum: mov_imm(X(0), 1); stx(X(0), res); return;
    case Op::Constant: {
      uint64_t bits;
      if (!constant_bits(m_, in, bits)) return fail(in);
      mov_imm(X(0), bits);
      stx(X(0), res);
      return;
    }
    default: break;
  }
  if (rt.kind != TypeKind::Scalar && in.op != Op::Select) return fail(in);
  auto ld2 = [&] {
    ldx(X(0), op(in, 0));
    ldx(X(1), op(in, 1));
  };
  auto cset = [&](R x, Cond c) { I("CSINCXr", {x, xzr(), xzr(), int(c ^ 1)}); };
  switch (in.op) {
    case Op::AddI: case Op::SubI: case Op::MulI: case Op::AndI: case Op::OrI: case Op::XOrI:
      if (!is_int_like(d)) return fail(in);
      ld2();
      if (in.op == Op::AddI) I("ADDXrs", {X(0), X(0), X(1), 0});
      else if (in.op == Op::SubI) I("SUBXrs", {X(0), X(0), X(1), 0});
      else if (in.op == Op::MulI) I("MADDXrrr", {X(0), X(0), X(1), xzr()});
      else if (in.op == Op::AndI) I("ANDXrs", {X(0), X(0), X(1), 0});
      else if (in.op == Op::OrI) I("ORRXrs", {X(0), X(0), X(1), 0});
      else I("EORXrs", {X(0), X(0), X(1), 0});
      canon(X(0), d);
      stx(X(0), res);
      return;
    case Op::DivSI: case Op::RemSI: case Op::CeilDivSI: case Op::FloorDivSI: {
      if (!is_int_like(d)) return fail(in);
      // sdiv gives 0 for x / 0 and wraps INT64_MIN / -1, as the x86 code
      // does; the remainder of x / 0 is made 0 too.
      int zero = new_label(), fin = new_label();
      ld2();
      cbz(X(1), zero);
      I("SDIVXr", {X(2), X(0), X(1)});
      I("MSUBXrrr", {X(3), X(2), X(1), X(0)});  // x3 = a - q * b
      if (in.op == Op::RemSI) {
        mov(X(2), X(3));
      } else if (in.op != Op::DivSI) {
        cbz(X(3), fin);
        I("EORXrs", {X(4), X(0), X(1), 0});  // sign bit: the operands' signs differ
        int skip = new_label();
        if (in.op == Op::FloorDivSI) {
          I("SUBSXri", {xzr(), X(4), 0, 0});
          bcc(PL, skip);
          I("SUBXri", {X(2), X(2), 1, 0});
        } else {
          I("SUBSXri", {xzr(), X(4), 0, 0});
          bcc(MI, skip);
          I("ADDXri", {X(2), X(2), 1, 0});
        }
        bind(skip);
      }
      b(fin);
      bind(zero);
      mov(X(2), xzr());
      bind(fin);
      canon(X(2), d);
      stx(X(2), res);
      return;
    }
    case Op::DivUI: case Op::RemUI: {
      if (!is_int_like(d)) return fail(in);
      unsigned bits = int_bits(d);
      ld2();
      zext(X(0), bits);
      zext(X(1), bits);
      I("UDIVXr", {X(2), X(0), X(1)});
      if (in.op == Op::RemUI) {
        int fin = new_label();
        mov(X(3), X(2));
        mov(X(2), xzr());
        cbz(X(1), fin);
        I("MSUBXrrr", {X(2), X(3), X(1), X(0)});
        bind(fin);
      }
      canon(X(2), d);
      stx(X(2), res);
      return;
    }
    case Op::MinSI: case Op::MaxSI:
      if (!is_int_like(d)) return fail(in);
      ld2();
      I("SUBSXrs", {xzr(), X(0), X(1), 0});
      I("CSELXr", {X(0), X(0), X(1), int(in.op == Op::MinSI ? LT : GT)});
      stx(X(0), res);
      return;
    case Op::MinUI: case Op::MaxUI: {
      if (!is_int_like(d)) return fail(in);
      unsigned bits = int_bits(d);
      ld2();
      mov(X(2), X(0));
      mov(X(3), X(1));
      zext(X(2), bits);
      zext(X(3), bits);
      I("SUBSXrs", {xzr(), X(2), X(3), 0});
      I("CSELXr", {X(0), X(0), X(1), int(in.op == Op::MinUI ? LO : HI)});
      stx(X(0), res);
      return;
    }
    case Op::ShLI: case Op::ShRSI: case Op::ShRUI: {
      if (!is_int_like(d)) return fail(in);
      unsigned bits = int_bits(d);
      int zero = new_label(), fin = new_label();
      ld2();
      mov_imm(X(2), bits);
      I("SUBSXrs", {xzr(), X(1), X(2), 0});
      bcc(HS, zero);  // out-of-range counts give 0 (an error in the interpreter)
      if (in.op == Op::ShLI) {
        I("LSLVXr", {X(0), X(0), X(1)});
      } else if (in.op == Op::ShRSI) {
        I("ASRVXr", {X(0), X(0), X(1)});
      } else {
        zext(X(0), bits);
        I("LSRVXr", {X(0), X(0), X(1)});
      }
      b(fin);
      bind(zero);
      mov(X(0), xzr());
      bind(fin);
      canon(X(0), d);
      stx(X(0), res);
      return;
    }
    case Op::CmpI: {
      DType od = ty(op(in, 0)).elem;
      if (!is_int_like(od)) return fail(in);
      std::string_view pr = m_.attr_word(in, "predicate");
      ld2();
      if (pr.size() && pr[0] == 'u') {
        zext(X(0), int_bits(od));
        zext(X(1), int_bits(od));
      }
      static const Cond conds[] = {EQ, NE, LT, LE, GT, GE, LO, LS, HI, HS};  // cmpi_predicate's order
      int k = cmpi_predicate(pr);
      if (k < 0) return fail(in, {RefusalCode::Attribute, "arith.cmpi predicate '" + std::string(pr) + "'"});
      Cond c = conds[k];
      I("SUBSXrs", {xzr(), X(0), X(1), 0});
      cset(X(0), c);
      stx(X(0), res);
      return;
    }
    case Op::Select:
      if (p_.slots[res].count != 1) return fail(in, {RefusalCode::Operands, "arith.select of views or tiles"});
      ldx(X(0), op(in, 0));
      ldx(X(1), op(in, 1));
      ldx(X(2), op(in, 2));
      I("ANDSXri", {xzr(), X(0), 0x1000});  // tst x0, #1
      I("CSELXr", {X(0), X(1), X(2), int(NE)});
      stx(X(0), res);
      return;
    case Op::IndexCast: case Op::ExtSI: case Op::TruncI: case Op::IndexCastUI: case Op::ExtUI: {
      DType sd = ty(op(in, 0)).elem;
      if (!is_int_like(d) || !is_int_like(sd)) return fail(in);
      ldx(X(0), op(in, 0));
      if (in.op == Op::ExtUI || in.op == Op::IndexCastUI) zext(X(0), sd == DType::I1 ? 1 : int_bits(sd));
      canon(X(0), d);
      stx(X(0), res);
      return;
    }
    case Op::Bitcast: {
      DType sd = ty(op(in, 0)).elem;
      unsigned sb = dtype_bytes(sd), db = dtype_bytes(d);
      if (sb != db || (sb != 2 && sb != 4 && sb != 8)) return fail(in);
      // The low bits, in the result's slot form (x86/scalar.cpp).
      ldx(X(0), op(in, 0));
      if (dtype_is_float(d)) zext(X(0), sb * 8);
      else canon(X(0), d);
      stx(X(0), res);
      return;
    }
    default:
      return scalar_float(in);
  }
}

// Float scalar arithmetic, compares and conversions in s0 / d0.
void Gen::scalar_float(const Inst& in) {
  ValueId res = in.res;
  DType d = ty(res).elem;
  bool f64 = d == DType::F64;
  auto fld = [&](int n, ValueId v, bool dbl) {
    if (dbl) ldd(D(n), v);
    else lds(S(n), v);
  };
  auto fst = [&](int n, bool dbl) {  // f32 bits zero-extended in the slot, as x86 stores them
    if (dbl) I("FMOVDXr", {X(0), D(n)});
    else I("FMOVSWr", {W(0), S(n)});
    stx(X(0), res);
  };
  auto cset = [&](R x, Cond c) { I("CSINCXr", {x, xzr(), xzr(), int(c ^ 1)}); };
  switch (in.op) {
    case Op::AddF: case Op::SubF: case Op::MulF: case Op::DivF: case Op::MaximumF: case Op::MinimumF: {
      if (d != DType::F32 && d != DType::F64) return fail(in);
      fld(0, op(in, 0), f64);
      fld(1, op(in, 1), f64);
      const char* sfx = f64 ? "Drr" : "Srr";
      if (in.op == Op::MaximumF || in.op == Op::MinimumF) {
        int nan = new_label(), fin = new_label();
        I(f64 ? "FCMPDrr" : "FCMPSrr", {f64 ? D(0) : S(0), f64 ? D(1) : S(1)});
        bcc(VS, nan);
        // std::max(a, b) = (a < b) ? b : a; std::min(a, b) = (b < a) ? b : a.
        I(f64 ? "FCSELDrrr" : "FCSELSrrr",
          {f64 ? D(0) : S(0), f64 ? D(1) : S(1), f64 ? D(0) : S(0), int(in.op == Op::MaximumF ? MI : GT)});
        fst(0, f64);
        b(fin);
        bind(nan);
        mov_imm(X(0), f64 ? uint64_t(0x7ff8000000000000ull) : uint64_t(0x7fc00000u));
        stx(X(0), res);
        bind(fin);
        return;
      }
      std::string name = in.op == Op::AddF ? "FADD" : in.op == Op::SubF ? "FSUB" : in.op == Op::MulF ? "FMUL" : "FDIV";
      name += sfx;
      R a = f64 ? D(0) : S(0), bb = f64 ? D(1) : S(1);
      I(name.c_str(), {a, a, bb});
      fst(0, f64);
      return;
    }
    case Op::NegF:
      if (d != DType::F32 && d != DType::F64) return fail(in);
      ldx(X(0), op(in, 0));
      mov_imm(X(1), f64 ? uint64_t(1) << 63 : uint64_t(1) << 31);
      I("EORXrs", {X(0), X(0), X(1), 0});
      stx(X(0), res);
      return;
    case Op::CmpF: {
      DType od = ty(op(in, 0)).elem;
      if (od != DType::F32 && od != DType::F64) return fail(in);
      bool o64 = od == DType::F64;
      std::string_view pr = m_.attr_word(in, "predicate");
      fld(0, op(in, 0), o64);
      fld(1, op(in, 1), o64);
      I(o64 ? "FCMPDrr" : "FCMPSrr", {o64 ? D(0) : S(0), o64 ? D(1) : S(1)});
      // After fcmp an unordered pair sets C and V; the single conditions
      // below are false (ordered predicates) or true (unordered ones) then.
      if (pr == "false") mov(X(0), xzr());
      else if (pr == "true") mov_imm(X(0), 1);
      else if (pr == "oeq") cset(X(0), EQ);
      else if (pr == "une") cset(X(0), NE);
      else if (pr == "ogt") cset(X(0), GT);
      else if (pr == "oge") cset(X(0), GE);
      else if (pr == "olt") cset(X(0), MI);
      else if (pr == "ole") cset(X(0), LS);
      else if (pr == "ord") cset(X(0), VC);
      else if (pr == "uno") cset(X(0), VS);
      else if (pr == "ugt") cset(X(0), HI);
      else if (pr == "uge") cset(X(0), PL);
      else if (pr == "ult") cset(X(0), LT);
      else if (pr == "ule") cset(X(0), LE);
      else if (pr == "one" || pr == "ueq") {
        cset(X(0), pr == "one" ? MI : EQ);
        cset(X(1), pr == "one" ? GT : VS);
        I("ORRXrs", {X(0), X(0), X(1), 0});
      } else {
        return fail(in, {RefusalCode::Attribute, "arith.cmpf predicate '" + std::string(pr) + "'"});
      }
      stx(X(0), res);
      return;
    }
    case Op::SIToFP: case Op::UIToFP: {
      DType sd = ty(op(in, 0)).elem;
      if ((d != DType::F32 && d != DType::F64) || !is_int_like(sd)) return fail(in);
      ldx(X(0), op(in, 0));
      if (in.op == Op::UIToFP) {
        if (int_bits(sd) >= 64) return fail(in);
        zext(X(0), int_bits(sd));
      }
      // int -> double -> f32, as the interpreter rounds.
      I("SCVTFUXDri", {D(0), X(0)});
      if (!f64) I("FCVTSDr", {S(0), D(0)});
      fst(0, f64);
      return;
    }
    case Op::FPToSI: case Op::FPToUI: {
      DType sd = ty(op(in, 0)).elem;
      if ((sd != DType::F32 && sd != DType::F64) || !is_int_like(d)) return fail(in);
      fld(0, op(in, 0), sd == DType::F64);
      I(sd == DType::F64 ? "FCVTZSUXDr" : "FCVTZSUXSr", {X(0), sd == DType::F64 ? D(0) : S(0)});
      canon(X(0), d);
      stx(X(0), res);
      return;
    }
    case Op::ExtF: case Op::TruncF: {
      DType sd = ty(op(in, 0)).elem;
      if ((sd != DType::F32 && sd != DType::F64) || (d != DType::F32 && d != DType::F64)) return fail(in);
      if (sd == d) {
        ldx(X(0), op(in, 0));
        stx(X(0), res);
        return;
      }
      fld(0, op(in, 0), sd == DType::F64);
      if (sd == DType::F32) I("FCVTDSr", {D(0), S(0)});
      else I("FCVTSDr", {S(0), D(0)});
      fst(0, f64);
      return;
    }
    default:
      return fail(in);
  }
}

// ---- views and tiles -------------------------------------------------------------

void Gen::store_imm(ValueId v, unsigned k, int64_t imm) {
  mov_imm(X(0), uint64_t(imm));
  stx(X(0), v, k);
}

void Gen::store_count(ValueId v, unsigned k, ValueId count, int32_t limit) {
  ldx(X(0), count);
  mov_imm(X(1), uint64_t(limit));
  I("SUBSXri", {xzr(), X(0), 0, 0});
  I("CSELXr", {X(0), X(1), X(0), int(LT)});
  I("SUBSXrs", {xzr(), X(0), X(1), 0});
  I("CSELXr", {X(0), X(1), X(0), int(GT)});
  stx(X(0), v, k);
}

void Gen::partition_view(const Inst& in, ValueId src, ValueId res, unsigned rank, unsigned es) {
  mov(X(2), xzr());
  for (unsigned k = 0; k < rank; ++k) {
    ldx(X(0), op(in, 1 + k));
    ldx(X(1), src, 1 + rank + k);
    I("MADDXrrr", {X(2), X(0), X(1), X(2)});
    ldx(X(0), op(in, 1 + rank + k));
    stx(X(0), res, 1 + k);
    stx(X(1), res, 1 + rank + k);
  }
  mov_imm(X(1), es);
  ldx(X(0), src, 0);
  I("MADDXrrr", {X(0), X(2), X(1), X(0)});
  stx(X(0), res, 0);
}

void Gen::add_ptr(const Inst& in, unsigned es) {
  ldx(X(0), op(in, 1));
  mov_imm(X(1), es);
  ldx(X(2), op(in, 0), 0);
  I("MADDXrrr", {X(0), X(0), X(1), X(2)});
  stx(X(0), in.res);
}

void Gen::store_valid(ValueId t, unsigned k, ValueId count, int32_t limit) {
  ldx(X(0), count);
  mov_imm(X(1), uint64_t(limit));
  I("SUBSXri", {xzr(), X(0), 0, 0});
  I("CSELXr", {X(0), X(0), xzr(), int(GE)});  // negative -> 0
  I("SUBSXrs", {xzr(), X(0), X(1), 0});
  I("CSELXr", {X(0), X(0), X(1), int(LE)});   // clamped to the tile
  stx(X(0), t, 1 + k);
}

void Gen::subset(const Inst& in, ValueId t, unsigned es) {
  const ptoas::Type& st = ty(t);
  const ptoas::Type& rt = ty(in.res);
  ldx(X(0), op(in, 1));
  mov_imm(X(1), uint64_t(st.cols));
  ldx(X(2), op(in, 2));
  I("MADDXrrr", {X(0), X(0), X(1), X(2)});
  mov_imm(X(1), es);
  ldx(X(2), t, 0);
  I("MADDXrrr", {X(0), X(0), X(1), X(2)});
  stx(X(0), in.res, 0);
  mov_imm(X(0), uint64_t(rt.vrow < 0 ? rt.rows : rt.vrow));
  stx(X(0), in.res, 1);
  mov_imm(X(0), uint64_t(rt.vcol < 0 ? rt.cols : rt.vcol));
  stx(X(0), in.res, 2);
}

// One GM element at x0 = ptr + idx * bytes (a tile's: x19 + tile + idx *
// bytes), through x1.
void Gen::scalar_mem(const Inst& in, const ScalarMemPlan& p) {
  ldx(X(0), p.idx);
  if (p.limit > 0) {
    mov_imm(X(1), uint64_t(p.limit - 1));
    I("SUBSXrs", {xzr(), X(0), X(1), 0});
    I("CSELXr", {X(0), X(0), X(1), int(LS)});  // unsigned: a negative index is large
  }
  mov_imm(X(1), p.bytes);
  ldx(X(2), p.ptr);
  if (p.tile) I("ADDXrs", {X(2), X(2), X(19), 0});
  I("MADDXrrr", {X(0), X(0), X(1), X(2)});
  const unsigned es = p.bytes;
  if (p.store) {
    ldx(X(1), p.val);
    if (es == 8) I("STRXui", {X(1), X(0), 0});
    else I(es == 4 ? "STRWui" : es == 2 ? "STRHHui" : "STRBBui", {W(1), X(0), 0});
    return;
  }
  if (es == 8) I("LDRXui", {X(1), X(0), 0});
  else if (p.sign) I(es == 4 ? "LDRSWui" : es == 2 ? "LDRSHXui" : "LDRSBXui", {X(1), X(0), 0});
  else I(es == 4 ? "LDRWui" : es == 2 ? "LDRHHui" : "LDRBBui", {W(1), X(0), 0});
  if (p.bit) I("UBFMXri", {X(1), X(1), 0, 0});
  stx(X(1), p.val);
}

}  // namespace ptoas::cg::sve::gen
