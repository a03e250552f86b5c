// x86-64 code generation with Xbyak: the frame (prologue, parameters,
// epilogue, the JIT thunk), the structured control flow of the shared driver
// (labels and branches), and the entry points of x86.h. gen.h has the
// design; scalars and views are scalar.cpp's, tile ops the family files'.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "int_eval.h"
#include "gen.h"
#include "sched.h"
#include "zydis_lib.h"

namespace ptoas::cg::x86 {

namespace gen {

bool Gen::run(FuncCode& out) {
  lines_ = &out.lines;
  const Inst& f = m_.inst(fn_);
  mark(f);
  prologue();
  out.rodata_fixup = uint32_t(getSize() - 4);
  if (m_.opt_level >= 1) {  // GEMM operands in GM (x86/gemm_io.cpp); none with a tile at an explicit address
    bool addr;
    std::map<ValueId, int> uses = tile_uses(addr);
    if (!addr) {
      plan_mm_loads(uses);
      plan_mm_movs(uses);
      plan_acc_stores(uses);
    }
  }
  lower_region(m_.region(f, 0));
  L(epilogue_);
  vzeroupper();
  lea(rsp, ptr[rbp - 40]);
  pop(r15);
  pop(r14);
  pop(r13);
  pop(r12);
  pop(rbx);
  pop(rbp);
  ret();
  if (!ok_) return false;
  ready();
  out.code.assign(getCode(), getCode() + getSize());
  // -O2: a list schedule of each straight-line span (x86/sched.h);
  // --no-sched turns it off (the test of the scheduler: the same results
  // without it).
  if (m_.opt_level >= 2 && opts_.schedule) {
    std::string err;  // compile_function checked that Zydis loads
    schedule_x86(*zydis_lib(err), out.code, label_offs_, sched_ranges_, out.lines);
  }
  return true;
}

void Gen::prologue() {
  push(rbp);
  mov(rbp, rsp);
  push(rbx);
  push(r12);
  push(r13);
  push(r14);
  push(r15);
  uint64_t frame = uint64_t(p_.nslots) * 8 + 8 + p_.arena_bytes + 64;
  sub(rsp, uint32_t(frame));
  and_(rsp, -64);
  // Touch every page of the new frame, top down (stack growth, guard pages).
  if (frame >= 4096) {
    Label probe;
    mov(rax, rbp);
    L(probe);
    sub(rax, 4096);
    or_(qword[rax], 0);
    cmp(rax, rsp);
    ja(probe, T_NEAR);
  }
  mov(r15, rsp);
  // Parameters to their slots (SysV: integer class in rdi..r9, f32/f64 in
  // xmm0..7, the rest on the stack in order).
  static const Reg64 iregs[] = {rdi, rsi, rdx, rcx, r8, r9};
  unsigned ni = 0, nf = 0, nstack = 0;
  auto param = [&](uint32_t slot, DType d, bool is_float) {
    if (is_float) {
      if (nf < 8) {
        if (d == DType::F64) vmovq(rax, Xmm(int(nf)));
        else vmovd(eax, Xmm(int(nf)));
        ++nf;
      } else {
        mov(rax, qword[rbp + int(16 + 8 * nstack++)]);
        if (d != DType::F64) mov(eax, eax);
      }
    } else {
      if (ni < 6) mov(rax, iregs[ni++]);
      else mov(rax, qword[rbp + int(16 + 8 * nstack++)]);
      canon(rax, d);
    }
    mov(qs(slot), rax);
  };
  std::vector<ParamPass> params;
  std::string why;
  if (!param_passing(m_, fn_, p_, params, why)) fail(m_.inst(fn_), {RefusalCode::Type, why});
  for (const ParamPass& pp : params) param(pp.slot, pp.as, pp.is_float);
  // Zero the tiles that may be read before they are written (the
  // interpreter's tiles start zeroed): the whole arena at -O0.
  for (auto [lo, hi] : p_.zero_ranges) {
    lea(rdi, ptr[r15 + int(lo)]);
    mov(ecx, (hi - lo) / 8);
    xor_(eax, eax);
    rep();
    stosq();
  }
  // lea r14, [rip + rel32]: the rel32 is the rodata fixup (the last 4 bytes).
  db(0x4C);
  db(0x8D);
  db(0x35);
  dd(0);
}

bool Gen::lower_special(const Inst& in, InstId id) {
  if (std::binary_search(mm_elided_.begin(), mm_elided_.end(), id)) return true;  // emitted with its tmatmul
  if (auto a = acc_first_.find(id); a != acc_first_.end()) acc_redirect(in, a->second);
  if (auto s = acc_store_.find(id); s != acc_store_.end()) {
    acc_tstore(in, s->second);
    return true;
  }
  if (auto mm = mm_loads_.find(id); mm != mm_loads_.end()) {
    matmul_in_place(in, mm->second);
    return true;
  }
  return false;
}

void Gen::move_slot(uint32_t from, uint32_t to) {
  mov(rax, qs(from));
  mov(qs(to), rax);
}

void Gen::lower_return(const Inst&) { jmp(epilogue_, T_NEAR); }

// The labels of the structured construct being lowered (innermost last).
Gen::Ctl& Gen::open_ctl() {
  ctl_.push_back(std::make_unique<Ctl>());
  return *ctl_.back();
}

void Gen::close_ctl() { ctl_.pop_back(); }

void Gen::begin_for(const Inst& in, ValueId iv) {
  Ctl& c = open_ctl();
  mov(rax, q(op(in, 2)));
  test(rax, rax);
  jle(c.end, T_NEAR);  // step <= 0: no iterations (the interpreter reports an error)
  mov(rax, q(op(in, 0)));
  mov(q(iv), rax);
  L(c.top);
  mov(rax, q(iv));
  cmp(rax, q(op(in, 1)));
  jge(c.end, T_NEAR);
}

void Gen::end_for(const Inst& in, ValueId iv) {
  Ctl& c = *ctl_.back();
  mov(rax, q(iv));
  add(rax, q(op(in, 2)));
  jo(c.end, T_NEAR);
  mov(q(iv), rax);
  jmp(c.top, T_NEAR);
  L(c.end);
  close_ctl();
}

void Gen::begin_if(const Inst& in) {
  Ctl& c = open_ctl();  // top: the else branch
  test(byte[rbp + disp(sl(op(in, 0)))], 1);
  jz(c.top, T_NEAR);
}

void Gen::else_if(const Inst&) {
  Ctl& c = *ctl_.back();
  jmp(c.end, T_NEAR);
  L(c.top);
}

void Gen::end_if(const Inst&) {
  L(ctl_.back()->end);
  close_ctl();
}

void Gen::begin_while(const Inst&) { L(open_ctl().top); }

void Gen::test_while(const Inst&, const Inst& cond) {
  test(byte[rbp + disp(sl(op(cond, 0)))], 1);
  jz(ctl_.back()->end, T_NEAR);
}

void Gen::end_while(const Inst&) {
  Ctl& c = *ctl_.back();
  jmp(c.top, T_NEAR);
  L(c.end);
  close_ctl();
}

}  // namespace gen

using namespace gen;


bool compile_function(const Module& m, InstId fn, const Target& t, const CodegenOptions& o, FuncCode& out,
                      Diag& diag) {
  // The -O2 scheduler (Gen::run) and a listing decode with Zydis: whether
  // it loads is known before any code is generated.
  const bool schedule = m.opt_level >= 2 && o.schedule;
  std::string zerr;
  if ((schedule || o.listing) && !zydis_lib(zerr)) {
    diag.error_global("target " + std::string(t.name) + ": " +
                      (schedule ? "the list scheduler of -O2 needs Zydis: " + zerr +
                                      "; -O1 or --no-sched compile without it"
                                : "--emit=asm needs Zydis: " + zerr));
    return false;
  }
  FramePlan plan;
  if (!plan_frame(m, fn, t, plan, diag)) return false;
  if (plan.nslots > (1u << 24)) {
    diag.error(m.inst(fn).loc, 0, "the function has too many values for the x86 backend [limit]");
    return false;
  }
  const Inst& f = m.inst(fn);
  out.name = std::string(m.attr_word(f, "sym_name"));
  out.global = m.attr_word(f, "sym_visibility") != "private";
  out.code.clear();
  out.lines.clear();
  try {
    Gen g(m, fn, t, o, plan, diag);
    return g.run(out);
  } catch (const Xbyak::Error& e) {
    diag.error(f.loc, 0, std::string("x86 encoder: ") + e.what());
    return false;
  } catch (const std::bad_alloc&) {
    diag.error(f.loc, 0, "x86 encoder: out of memory");
    return false;
  } catch (const CodeLimitReached&) {  // reported where it was reached
    return false;
  }
}

std::vector<uint8_t> rodata() {
  std::vector<uint8_t> r(kRodataBytes, 0);
  auto put = [&](int off, uint32_t v) { std::memcpy(r.data() + off, &v, 4); };
  for (int i = 0; i < 8; ++i) put(kMaskTable + 4 * i, 0xffffffffu);
  put(kSignF32, 0x80000000u);
  put(kAbsF32, 0x7fffffffu);
  put(kOneF32, 0x3f800000u);
  put(kNegInfF32, 0xff800000u);
  put(kPosInfF32, 0x7f800000u);
  for (int i = 0; i < 16; ++i) put(kIota + 4 * i, uint32_t(i));
  for (int i = 0; i < 8; ++i) put(kBitSel + 4 * i, 1u << i);
  // One 64-byte vector constant: v (8 or 4 bytes, its bits) in every lane.
  auto splat = [&](int off, auto v) {
    for (size_t k = 0; k < 64 / sizeof v; ++k) std::memcpy(r.data() + off + sizeof v * k, &v, sizeof v);
  };
  for (int i = 0; i < kDConstCount; ++i) splat(dconst(i), dconst_bits(i));
  auto putf = [&](int idx, uint32_t bits) { splat(fconst(idx), bits); };
  auto putff = [&](int idx, float v) { splat(fconst(idx), v); };
  putff(kFExpMax, 89.0f);    // exp(89) overflows: +Inf
  putff(kFExpMin, -104.0f);  // exp(-104) < 2^-150 / 2: +0
  putff(kFLog2e, 1.44269504088896341f);
  putff(kFLn2Hi, 0.693359375f);       // 355/512: n * ln2_hi is exact for |n| <= 2^15
  putff(kFLn2Lo, -2.12194440e-4f);    // ln2 - ln2_hi
  double fact = 5040;
  for (int k = 7; k >= 0; --k) {  // 1/7! .. 1/0!
    putff(kFExpC + (7 - k), float(1.0 / fact));
    if (k) fact /= k;
  }
  putf(kI32Bias, 127);
  putff(kFExpFastMax, 86.0f);     // exp's common case: a normal result, 2^n normal
  putf(kFExpMagic, 0x4b400000u);  // 1.5 * 2^23
  putf(kFAbsMask, 0x7fffffffu);
  // exp's fast path: n = round(8 x log2e), r = x - n ln2/8 (the Cody-Waite
  // parts of ln2 scaled by 2^-3, so as exact), e^r = 1 + r u(r) with u
  // interpolating (e^r - 1) / r at the Chebyshev nodes of |r| <= 1.04
  // ln2/16 (the scale with the least relative error, 2^-25.0, once the
  // coefficients are rounded to f32). u of degree 3 (2^-32.4) was 7 %
  // slower on the softmax loop for the same 1 ULP bound (the table's
  // rounding dominates; 12 % of results not bit-identical, against 19 %).
  putff(kFExpLog2eN, 8.0f * 1.44269504088896341f);
  putff(kFLn2NHi, 0.693359375f / 8);
  putff(kFLn2NLo, -2.12194440e-4f / 8);
  putf(kFExpU, 0x3f000429u);
  putf(kFExpU + 1, 0x3e2aadffu);
  // 2^(j/8) rounded to f32, less j << 20: adding k << 20 (n in k's low
  // bits) then gives 2^(j/8) 2^m for n = 8m + j. Lanes 8-15 repeat 0-7:
  // a zmm vpermps indexes by n's low four bits.
  for (int i = 0; i < 16; ++i) {
    float t = float(std::exp2(double(i % 8) / 8));
    uint32_t b;
    std::memcpy(&b, &t, 4);
    put(fconst(kFExpTable) + 4 * i, b - (uint32_t(i % 8) << 20));
  }
  putf(kFBf16Bias, 0x00007fffu);
  putf(kFBf16Quiet, 0x00400000u);
  putf(kFLow8, 0x000000ffu);
  putf(kFHigh16, 0xffff0000u);
  for (int half : {0, 1}) {  // bytes 4i + 2 half, + 1 of each 16-byte lane, then zeros
    uint8_t* c = r.data() + fconst(half ? kFPickHigh16 : kFPickLow16);
    for (int b = 0; b < 64; ++b) c[b] = b % 16 < 8 ? uint8_t(4 * (b % 16 / 2) + 2 * half + b % 2) : 0x80;
  }
  {  // byte b of dword j of lane l: zero (the low half), else byte b - 2 of element 4 l + j
    uint8_t* c = r.data() + fconst(kFWidenBf16);
    for (int b = 0; b < 64; ++b) {
      int lane = b / 16 % 2, j = b % 16 / 4, q = b % 4;
      c[b] = q < 2 ? 0x80 : uint8_t(8 * lane + 2 * j + q - 2);
    }
  }
  return r;
}

bool packed_thunk(const Module& m, InstId fn, size_t thunk_pos, size_t kernel_pos,
                  std::vector<uint8_t>& out, std::string& err) {
  const Region& body = m.region(m.inst(fn), 0);
  // Classify: 0 = integer class, 1 = float (f32 / f64).
  std::vector<std::pair<int, bool>> cls;  // (class, is_f64)
  for (unsigned i = 0; i < body.arg_count; ++i) {
    const ptoas::Type& t = m.type_of(m.region_arg(body, i));
    bool fl = t.kind == TypeKind::Scalar && (t.elem == DType::F32 || t.elem == DType::F64);
    cls.push_back({fl ? 1 : 0, t.elem == DType::F64});
  }
  cls.push_back({0, false});
  cls.push_back({0, false});
  try {
    CodeGenerator g(4096, AutoGrow, &g_alloc);
    g.push(g.rbp);
    g.mov(g.rbp, g.rsp);
    g.push(g.rbx);
    g.sub(g.rsp, 8);
    g.mov(g.rbx, g.rdi);
    static const Reg64 iregs[] = {rdi, rsi, rdx, rcx, r8, r9};
    unsigned ni = 0, nf = 0;
    std::vector<unsigned> on_stack;
    std::vector<std::pair<unsigned, int>> in_ireg, in_freg;
    for (unsigned i = 0; i < cls.size(); ++i) {
      if (cls[i].first == 1 && nf < 8) in_freg.push_back({i, int(nf++)});
      else if (cls[i].first == 0 && ni < 6) in_ireg.push_back({i, int(ni++)});
      else on_stack.push_back(i);
    }
    uint32_t sbytes = uint32_t((on_stack.size() * 8 + 15) & ~size_t(15));
    if (sbytes) g.sub(g.rsp, sbytes);
    for (size_t k = 0; k < on_stack.size(); ++k) {
      g.mov(g.rax, g.qword[g.rbx + int(8 * on_stack[k])]);
      g.mov(g.qword[g.rsp + int(8 * k)], g.rax);
    }
    for (auto [i, r] : in_freg) g.vmovq(Xmm(r), g.qword[g.rbx + int(8 * i)]);
    for (auto [i, r] : in_ireg) g.mov(iregs[r], g.qword[g.rbx + int(8 * i)]);
    // call rel32 to the kernel.
    g.db(0xE8);
    int64_t rel = int64_t(kernel_pos) - int64_t(thunk_pos + g.getSize() + 4);
    g.dd(uint32_t(int32_t(rel)));
    g.lea(g.rsp, g.ptr[g.rbp - 8]);
    g.pop(g.rbx);
    g.pop(g.rbp);
    g.ret();
    g.ready();
    out.assign(g.getCode(), g.getCode() + g.getSize());
    return true;
  } catch (const Xbyak::Error& e) {
    err = std::string("x86 encoder: ") + e.what();
    return false;
  }
}

}  // namespace ptoas::cg::x86
