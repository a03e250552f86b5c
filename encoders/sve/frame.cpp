// AArch64 SVE code generation: the assembler (MCInsts, labels), the frame,
// control flow, scalar ops, views and tile allocation (sve/gen.h has the
// design; tile ops are in sve/elementwise.cpp), and the entry points of sve.h.
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "int_eval.h"
#include "sve.h"
#include "gen.h"

namespace ptoas::cg::sve {

namespace gen {

Gen::Gen(const Mc& mc, const Module& m, InstId fn, const Target& t, const CodegenOptions& o, const FramePlan& p,
         Diag& d)
    : CpuLowering(m, p), mc_(mc), m_(m), fn_(fn), tg_(t), p_(p), diag_(d), code_limit_(o.code_limit) {
  schedule_ = o.schedule;  // --no-sched: program order (the test of the scheduler: same results without it)
  for (int i = 0; i < 31; ++i) {
    x_[i] = mc.reg("X" + std::to_string(i));
    w_[i] = mc.reg("W" + std::to_string(i));
  }
  for (int i = 0; i < 32; ++i) {
    z_[i] = mc.reg("Z" + std::to_string(i));
    s_[i] = mc.reg("S" + std::to_string(i));
    d_[i] = mc.reg("D" + std::to_string(i));
  }
  for (int i = 0; i < 16; ++i) pr_[i] = mc.reg("P" + std::to_string(i));
  sp_ = mc.reg("SP");
  xzr_ = mc.reg("XZR");
  wzr_ = mc.reg("WZR");
}

// ---- the assembler ---------------------------------------------------------------

void Gen::put(const llvm::MCInst& mi) {
  uint32_t word = 0;
  std::string err;
  if (!mc_.encode(mi, word, err)) {
    diag_.error(m_.inst(fn_).loc, 0, "SVE encoder: " + err);
    ok_ = false;
  }
  code_.push_back(word);
}

void Gen::I(const char* name, std::initializer_list<O> ops) {
  llvm::MCInst mi;
  mi.setOpcode(mc_.opcode(name));
  for (const O& o : ops) mi.addOperand(o.reg ? llvm::MCOperand::createReg(unsigned(o.v)) : llvm::MCOperand::createImm(o.v));
  block_.push_back(mi);
}

int Gen::new_label() {
  labels_.push_back(-1);
  return int(labels_.size() - 1);
}

// A branch's offset in words fits its field: b 26 bits, b.cond and cbz 19.
bool Gen::branch_reaches(const llvm::MCInst& mi, int64_t words) {
  int bits = mi.getOpcode() == mc_.opcode("B") || mi.getOpcode() == mc_.opcode("BL") ? 26 : 19;
  if (words >= -(int64_t(1) << (bits - 1)) && words < (int64_t(1) << (bits - 1))) return true;
  if (ok_) diag_.error(m_.inst(fn_).loc, 0, "the function is too large for the SVE backend's branches");
  ok_ = false;
  return false;
}

void Gen::bind(int label) {
  schedule_block();
  labels_[size_t(label)] = int64_t(code_.size());
  // Re-encode the branches waiting for it, now with their offsets.
  for (size_t i = 0; i < fixes_.size();) {
    Fix& f = fixes_[i];
    if (f.label != label) {
      ++i;
      continue;
    }
    llvm::MCInst mi = f.inst;
    int64_t words = int64_t(code_.size()) - int64_t(f.at);
    branch_reaches(mi, words);
    mi.getOperand(mi.getNumOperands() - 1) = llvm::MCOperand::createImm(words);
    uint32_t word = 0;
    std::string err;
    if (!mc_.encode(mi, word, err)) {
      diag_.error(m_.inst(fn_).loc, 0, "SVE encoder: " + err);
      ok_ = false;
    }
    code_[f.at] = word;
    fixes_[i] = fixes_.back();
    fixes_.pop_back();
  }
}

void Gen::branch(const char* name, std::initializer_list<O> head, int label) {
  schedule_block();
  llvm::MCInst mi;
  mi.setOpcode(mc_.opcode(name));
  for (const O& o : head) mi.addOperand(o.reg ? llvm::MCOperand::createReg(unsigned(o.v)) : llvm::MCOperand::createImm(o.v));
  int64_t target = labels_[size_t(label)];
  if (target >= 0) {
    branch_reaches(mi, target - int64_t(code_.size()));
    mi.addOperand(llvm::MCOperand::createImm(target - int64_t(code_.size())));
    put(mi);
    return;
  }
  mi.addOperand(llvm::MCOperand::createImm(0));
  fixes_.push_back({code_.size(), mi, label});
  put(mi);
}

void Gen::b(int label) { branch("B", {}, label); }
void Gen::bcc(Cond c, int label) { branch("Bcc", {int(c)}, label); }
void Gen::cbz(R x, int label) { branch("CBZX", {x}, label); }
void Gen::cbnz(R x, int label) { branch("CBNZX", {x}, label); }
void Gen::branch_if_false(int xn, int label) {
  // tst + b.eq rather than tbz: its +-1 MiB reach instead of tbz's 32 KiB.
  I("ANDSXri", {xzr(), X(xn), 0x1000});  // tst x<xn>, #1 (the logical-immediate encoding of 1)
  bcc(EQ, label);
}

void Gen::mov_imm(R x, uint64_t v) {
  uint16_t h[4] = {uint16_t(v), uint16_t(v >> 16), uint16_t(v >> 32), uint16_t(v >> 48)};
  int ones = 0, zeros = 0;
  for (uint16_t c : h) ones += c == 0xffff, zeros += c == 0;
  if (ones > zeros) {  // movn then movk the chunks that are not 0xffff
    int first = 0;
    while (first < 3 && h[first] == 0xffff) ++first;
    I("MOVNXi", {x, int(uint16_t(~h[first])), 16 * first});
    for (int i = first + 1; i < 4; ++i)
      if (h[i] != 0xffff) I("MOVKXi", {x, x, int(h[i]), 16 * i});
    return;
  }
  int first = 0;
  while (first < 3 && h[first] == 0) ++first;
  if (v == 0) first = 0;
  I("MOVZXi", {x, int(h[first]), 16 * first});
  for (int i = first + 1; i < 4; ++i)
    if (h[i] != 0) I("MOVKXi", {x, x, int(h[i]), 16 * i});
}

void Gen::add_imm(R xd, R xn, int64_t v) {
  uint64_t a = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  const char* name = v < 0 ? "SUBXri" : "ADDXri";
  if (a < 4096) {
    I(name, {xd, xn, int64_t(a), 0});
  } else if (a < (uint64_t(1) << 24) && (a & 0xfff) == 0) {
    I(name, {xd, xn, int64_t(a >> 12), 12});
  } else if (a < (uint64_t(1) << 24)) {
    I(name, {xd, xn, int64_t(a >> 12), 12});
    I(name, {xd, xd, int64_t(a & 0xfff), 0});
  } else {
    mov_imm(X(16), uint64_t(v));
    I("ADDXrs", {xd, xn, X(16), 0});
  }
}

void Gen::slot_op(const char* name, R r, uint32_t slot, unsigned scale) {
  uint64_t off = uint64_t(slot) * 8;
  if (off / scale < 4096) {
    I(name, {r, X(28), int64_t(off / scale)});
    return;
  }
  add_imm(X(17), X(28), int64_t(off));
  I(name, {r, X(17), 0});
}

void Gen::canon(R x, DType d) {
  switch (d) {
    case DType::I1: I("UBFMXri", {x, x, 0, 0}); break;
    case DType::I8: case DType::SI8: I("SBFMXri", {x, x, 0, 7}); break;
    case DType::U8: I("UBFMXri", {x, x, 0, 7}); break;
    case DType::I16: case DType::SI16: I("SBFMXri", {x, x, 0, 15}); break;
    case DType::U16: I("UBFMXri", {x, x, 0, 15}); break;
    case DType::I32: case DType::SI32: I("SBFMXri", {x, x, 0, 31}); break;
    case DType::U32: I("UBFMXri", {x, x, 0, 31}); break;
    default: break;
  }
}

void Gen::zext(R x, unsigned bits) {
  if (bits < 64) I("UBFMXri", {x, x, 0, int(bits - 1)});
}

// ---- frame -------------------------------------------------------------------------

// The 96 bytes below the caller's sp: x29, x30, then x19..x28 in pairs.
constexpr int kSaveBytes = 96;

void Gen::prologue() {
  I("STPXpre", {sp(), X(29), X(30), sp(), -kSaveBytes / 8});
  I("ADDXri", {X(29), sp(), 0, 0});
  for (int k = 0; k < 5; ++k) I("STPXi", {X(19 + 2 * k), X(20 + 2 * k), sp(), 2 + 2 * k});
  uint64_t slots_bytes = (uint64_t(p_.nslots) * 8 + 63) & ~uint64_t(63);
  uint64_t frame = slots_bytes + p_.arena_bytes + 64;
  add_imm(X(16), sp(), -int64_t(frame));
  I("UBFMXri", {X(16), X(16), 6, 63});   // lsr #6
  I("UBFMXri", {X(16), X(16), 58, 57});  // lsl #6: 64-byte aligned
  if (frame >= 4096) {  // touch every page of the new frame, top down
    int probe = new_label();
    I("ADDXri", {X(17), X(29), 0, 0});
    bind(probe);
    I("SUBXri", {X(17), X(17), 1, 12});
    I("STRXui", {xzr(), X(17), 0});
    I("SUBSXrs", {xzr(), X(17), X(16), 0});
    bcc(HI, probe);
  }
  I("ADDXri", {sp(), X(16), 0, 0});
  I("ADDXri", {X(28), sp(), 0, 0});
  add_imm(X(19), sp(), int64_t(slots_bytes));
  // Parameters to their slots (AAPCS64: integers and pointers in x0..x7,
  // f32/f64 in v0..v7, the rest in 8-byte stack slots in order).
  unsigned ni = 0, nf = 0, nstack = 0;
  auto from_stack = [&](R x) {
    I("LDRXui", {x, X(29), int((kSaveBytes + 8 * nstack++) / 8)});
  };
  auto param = [&](uint32_t slot, DType d, bool is_float) {
    if (is_float) {
      if (nf < 8) {
        if (d == DType::F64) I("FMOVDXr", {X(16), D(int(nf))});
        else I("FMOVSWr", {W(16), S(int(nf))});
        ++nf;
      } else {
        from_stack(X(16));
        if (d != DType::F64) I("UBFMXri", {X(16), X(16), 0, 31});
      }
    } else {
      if (ni < 8) mov(X(16), X(int(ni++)));
      else from_stack(X(16));
      canon(X(16), d);
    }
    stx_slot(X(16), slot);
  };
  std::vector<ParamPass> params;
  std::string why;
  if (!param_passing(m_, fn_, p_, params, why)) fail(m_.inst(fn_), {RefusalCode::Type, why});
  for (const ParamPass& pp : params) param(pp.slot, pp.as, pp.is_float);
  // Zero the tiles that may be read before they are written.
  for (auto [lo, hi] : p_.zero_ranges) {
    int loop = new_label();
    add_imm(X(0), X(19), lo);
    mov_imm(X(1), (hi - lo) / 8);
    bind(loop);
    I("STRXpost", {X(0), xzr(), X(0), 8});
    I("SUBSXri", {X(1), X(1), 1, 0});
    bcc(NE, loop);
  }
}

void Gen::epilogue() {
  I("ADDXri", {sp(), X(29), 0, 0});
  for (int k = 0; k < 5; ++k) I("LDPXi", {X(19 + 2 * k), X(20 + 2 * k), sp(), 2 + 2 * k});
  I("LDPXpost", {sp(), X(29), X(30), sp(), kSaveBytes / 8});
  I("RET", {X(30)});
}

bool Gen::run(FuncCode& out) {
  lines_ = &out.lines;
  const Inst& f = m_.inst(fn_);
  mark(f);
  epilogue_ = new_label();
  prologue();
  lower_region(m_.region(f, 0));
  bind(epilogue_);
  epilogue();
  schedule_block();
  if (!ok_) return false;
  if (!fixes_.empty()) {
    diag_.error(f.loc, 0, "SVE encoder: a branch to a label that was never placed");
    return false;
  }
  return finish(out.code);
}

bool Gen::finish(std::vector<uint8_t>& bytes) {
  schedule_block();
  if (!ok_ || !fixes_.empty()) return false;
  bytes.resize(code_.size() * 4);
  for (size_t i = 0; i < code_.size(); ++i) {
    uint32_t w = code_[i];
    for (int k = 0; k < 4; ++k) bytes[4 * i + size_t(k)] = uint8_t(w >> (8 * k));
  }
  return true;
}

void Gen::move_slot(uint32_t from, uint32_t to) {
  ldx_slot(X(0), from);
  stx_slot(X(0), to);
}

void Gen::lower_return(const Inst&) { b(epilogue_); }

void Gen::begin_for(const Inst& in, ValueId iv) {
  auto [top, end] = open_ctl();
  ldx(X(0), op(in, 2));
  I("SUBSXri", {xzr(), X(0), 0, 0});
  bcc(LE, end);  // step <= 0: no iterations (the interpreter reports an error)
  ldx(X(0), op(in, 0));
  stx(X(0), iv);
  bind(top);
  ldx(X(0), iv);
  ldx(X(1), op(in, 1));
  I("SUBSXrs", {xzr(), X(0), X(1), 0});
  bcc(GE, end);
}

void Gen::end_for(const Inst& in, ValueId iv) {
  auto [top, end] = ctl_.back();
  ldx(X(0), iv);
  ldx(X(1), op(in, 2));
  I("ADDSXrs", {X(0), X(0), X(1), 0});
  bcc(VS, end);
  stx(X(0), iv);
  b(top);
  bind(end);
  ctl_.pop_back();
}

void Gen::begin_if(const Inst& in) {
  int els = open_ctl().first;
  ldx(X(0), op(in, 0));
  branch_if_false(0, els);
}

void Gen::else_if(const Inst&) {
  auto [els, end] = ctl_.back();
  b(end);
  bind(els);
}

void Gen::end_if(const Inst&) {
  bind(ctl_.back().second);
  ctl_.pop_back();
}

void Gen::begin_while(const Inst&) { bind(open_ctl().first); }

void Gen::test_while(const Inst&, const Inst& cond) {
  ldx(X(0), op(cond, 0));
  branch_if_false(0, ctl_.back().second);
}

void Gen::end_while(const Inst&) {
  auto [top, end] = ctl_.back();
  b(top);
  bind(end);
  ctl_.pop_back();
}

std::pair<int, int> Gen::open_ctl() {
  int top = new_label(), end = new_label();
  ctl_.push_back({top, end});
  return ctl_.back();
}

}  // namespace gen

using namespace gen;

bool compile_function(const Module& m, InstId fn, const Target& t, const CodegenOptions& o, FuncCode& out,
                      Diag& diag) {
  std::string err;
  const Mc* mc = a64_mc(&err);
  const Inst& f = m.inst(fn);
  if (!mc) {
    diag.error(f.loc, 0, err);
    return false;
  }
  FramePlan plan;
  if (!plan_frame(m, fn, t, plan, diag)) return false;
  if (plan.nslots > (1u << 24)) {
    diag.error(f.loc, 0, "the function has too many values for the SVE backend [limit]");
    return false;
  }
  out.name = std::string(m.attr_word(f, "sym_name"));
  out.global = m.attr_word(f, "sym_visibility") != "private";
  out.code.clear();
  out.lines.clear();
  try {
    Gen g(*mc, m, fn, t, o, plan, diag);
    return g.run(out);
  } catch (const CodeLimitReached&) {  // reported where it was reached
    return false;
  }
}

// void thunk(const uint64_t* args): every parameter from its 64-bit slot
// into its AAPCS64 place (x0..x7, d0..d7, then the stack), bl kernel.
bool packed_thunk(const Module& m, InstId fn, size_t thunk_pos, size_t kernel_pos, std::vector<uint8_t>& out,
                  std::string& err) {
  const Mc* mc = a64_mc(&err);
  if (!mc) return false;
  const Region& body = m.region(m.inst(fn), 0);
  std::vector<bool> fl;
  for (unsigned i = 0; i < body.arg_count; ++i) {
    const ptoas::Type& t = m.type_of(m.region_arg(body, i));
    fl.push_back(t.kind == TypeKind::Scalar && (t.elem == DType::F32 || t.elem == DType::F64));
  }
  fl.push_back(false);
  fl.push_back(false);
  Diag diag(nullptr);
  FramePlan none;
  Gen g(*mc, m, fn, target(), CodegenOptions{}, none, diag);
  unsigned ni = 0, nf = 0;
  std::vector<unsigned> on_stack;
  std::vector<std::pair<unsigned, int>> in_ireg, in_freg;
  for (unsigned i = 0; i < fl.size(); ++i) {
    if (fl[i] && nf < 8) in_freg.push_back({i, int(nf++)});
    else if (!fl[i] && ni < 8) in_ireg.push_back({i, int(ni++)});
    else on_stack.push_back(i);
  }
  g.I("STPXpre", {g.sp(), g.X(29), g.X(30), g.sp(), -4});
  g.I("ADDXri", {g.X(29), g.sp(), 0, 0});
  g.I("STRXui", {g.X(19), g.sp(), 2});
  g.mov(g.X(19), g.X(0));
  int64_t sbytes = int64_t((on_stack.size() * 8 + 15) & ~size_t(15));
  if (sbytes) g.add_imm(g.sp(), g.sp(), -sbytes);
  auto slot = [&](R r, unsigned i, bool dbl) {
    if (i < 4096) {
      g.I(dbl ? "LDRDui" : "LDRXui", {r, g.X(19), int(i)});
    } else {
      g.add_imm(g.X(17), g.X(19), int64_t(8) * i);
      g.I(dbl ? "LDRDui" : "LDRXui", {r, g.X(17), 0});
    }
  };
  for (size_t k = 0; k < on_stack.size(); ++k) {
    slot(g.X(16), on_stack[k], false);
    if (k < 4096) {
      g.I("STRXui", {g.X(16), g.sp(), int(k)});
    } else {
      g.add_imm(g.X(17), g.sp(), int64_t(8 * k));
      g.I("STRXui", {g.X(16), g.X(17), 0});
    }
  }
  for (auto [i, r] : in_freg) slot(g.D(r), i, true);
  for (auto [i, r] : in_ireg) slot(g.X(r), i, false);
  g.schedule_block();
  int64_t rel = (int64_t(kernel_pos) - int64_t(thunk_pos + g.size())) / 4;
  g.I("BL", {rel});
  g.I("ADDXri", {g.sp(), g.X(29), 0, 0});
  g.I("LDRXui", {g.X(19), g.sp(), 2});
  g.I("LDPXpost", {g.sp(), g.X(29), g.X(30), g.sp(), 4});
  g.I("RET", {g.X(30)});
  FuncCode fc;
  std::vector<LineEntry> lines;
  if (!g.finish(fc.code)) {
    err = "SVE encoder: the argument thunk did not encode";
    return false;
  }
  out = std::move(fc.code);
  return true;
}

}  // namespace ptoas::cg::sve
