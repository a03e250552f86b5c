// The PTX generator's core (gen.h): text and registers, the kernel entry
// (DESIGN §5 / PTX_CONTRACT: parameters in order, .reqntid, static shared
// memory), the driver's control-flow hooks and compile_function.
#include "gen.h"

#include <cctype>
#include <cstdio>
#include <cstring>

#include "cpu_frame.h"
#include "ops.h"
#include "diag.h"

namespace ptoas::cg::ptx {

namespace {

constexpr const char* kRcPrefix[kRcCount] = {"%p", "%h", "%r", "%rd", "%f", "%fd"};
constexpr const char* kRcDecl[kRcCount] = {".pred", ".b16", ".b32", ".b64", ".f32", ".f64"};

bool ptx_ident(std::string_view s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == '$')) return false;
  for (char c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_' || c == '$')) return false;
  return true;
}

}  // namespace

std::string rname(Reg r) { return kRcPrefix[unsigned(r.c)] + std::to_string(r.n); }

std::string f32imm(uint32_t bits) {
  char b[16];
  std::snprintf(b, sizeof b, "0f%08X", bits);
  return b;
}

std::string f64imm(uint64_t bits) {
  char b[24];
  std::snprintf(b, sizeof b, "0d%016llX", (unsigned long long)bits);
  return b;
}

std::string fimm(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return f32imm(b);
}

std::string mem(Reg base, int64_t off) {
  if (off == 0) return "[" + rname(base) + "]";
  return "[" + rname(base) + (off > 0 ? "+" : "") + std::to_string(off) + "]";
}

std::string vec(const std::vector<Reg>& rs) {
  std::string s = "{";
  for (size_t i = 0; i < rs.size(); ++i) s += (i ? ", " : "") + rname(rs[i]);
  return s + "}";
}

Gen::Gen(const Module& m, InstId fn, const Target& t, const CodegenOptions& o, Diag& d, const GpuArch& arch)
    : Lowering(m), m_(m), fn_(fn), t_(t), o_(o), d_(d), arch_(arch) {
  vals_.resize(m.values.size());
  reshaped_.assign(m.values.size(), 0);
  regs_only_.assign(m.insts.size(), 0);
  version_ = arch.min_version;
  out_ = &body_;
}

Reg Gen::reg(RC c) { return Reg{c, ++nreg_[unsigned(c)]}; }

void Gen::emit(const std::string& s) {
  if (over_limit_) return;  // refused already: the text is dropped
  *out_ += '\t';
  *out_ += s;
  *out_ += '\n';
}

std::string Gen::new_label() { return "$L__" + std::to_string(++nlabels_); }

void Gen::bind(const std::string& l) { *out_ += l + ":\n"; }

Reg Gen::imm64(int64_t v) {
  Reg r = reg(RC::RD);
  I("mov.b64", r, (long long)v);
  return r;
}

Reg Gen::imm32(int64_t v) {
  Reg r = reg(RC::R);
  I("mov.b32", r, (long long)v);
  return r;
}

Reg Gen::immf(uint32_t bits) {
  Reg r = reg(RC::F);
  I("mov.f32", r, f32imm(bits));
  return r;
}

// ---- the driver's hooks --------------------------------------------------------

void Gen::mark(const Inst& in) {
  // The size limit of one function's code (--code-limit), on the text.
  if (!over_limit_ && body_.size() + cold_.size() + hoist_.size() > o_.code_limit) {
    const Inst& f = m_.inst(fn_);
    d_.error(in.loc, 0, "the PTX of function @" + std::string(m_.attr_word(f, "sym_name")) + " passes " +
                            std::to_string(o_.code_limit) + " bytes here (the code limit) [limit]");
    over_limit_ = true;
    ok_ = false;
  }
  if (!m_.src) return;
  LineCol lc = m_.src->line_col(in.loc);
  if (lc.line == last_line_ && lc.col == last_col_) return;
  last_line_ = lc.line;
  last_col_ = lc.col;
  emit(".loc 1 " + std::to_string(lc.line) + " " + std::to_string(lc.col));
}

void Gen::fail(const Inst& in, const Refusal& r) {
  unsupported(m_, in, d_, t_, r);
  ok_ = false;
}

// A parallel copy: every source read before any destination is written.
void Gen::copy_values(const std::vector<ValueId>& from, const std::vector<ValueId>& to) {
  std::vector<std::pair<Reg, Reg>> moves;
  for (size_t k = 0; k < from.size() && k < to.size(); ++k) {
    if (from[k] == to[k]) continue;
    const Type& ft = ty(from[k]);
    if (!has_regs(ft) || !has_regs(ty(to[k]))) {
      ok_ = false;
      d_.error(m_.values[to[k]].loc, 0,
               "values of type " + std::string(m_.types.text(m_.values[to[k]].type)) + " are not supported on " + std::string(t_.name) + " [unsupported-type]");
      continue;
    }
    Val& s = val(from[k]);
    Val& d = val(to[k]);
    for (size_t i = 0; i < s.r.size() && i < d.r.size(); ++i) moves.push_back({s.r[i], d.r[i]});
  }
  std::vector<Reg> tmp;
  for (auto& mv : moves) {
    Reg t = reg(mv.first.c);
    I(std::string("mov.") + (mv.first.c == RC::P ? "pred" : mv.first.c == RC::F ? "f32" : mv.first.c == RC::FD ? "f64" : mv.first.c == RC::RD ? "b64" : mv.first.c == RC::H ? "b16" : "b32"), t, mv.first);
    tmp.push_back(t);
  }
  for (size_t i = 0; i < moves.size(); ++i) {
    RC c = moves[i].second.c;
    I(std::string("mov.") + (c == RC::P ? "pred" : c == RC::F ? "f32" : c == RC::FD ? "f64" : c == RC::RD ? "b64" : c == RC::H ? "b16" : "b32"), moves[i].second, tmp[i]);
  }
}

void Gen::lower_return(const Inst&) {
  I("ret");
}

// scf.for: a signed loop; a step <= 0 runs nothing, an increment that
// overflows ends the loop (lowering.h).
void Gen::begin_for(const Inst& in, ValueId iv) {
  flush();
  std::string top = new_label(), exit = new_label();
  Reg lb = sreg(op(in, 0)), ub = sreg(op(in, 1)), step = sreg(op(in, 2));
  Reg i = sreg(iv);
  I("mov.b64", i, lb);
  Reg p = reg(RC::P);
  I("setp.le.s64", p, step, 0);
  bra_if(p, false, exit);
  bind(top);
  Reg q = reg(RC::P);
  I("setp.ge.s64", q, i, ub);
  bra_if(q, false, exit);
  for_labels_.push_back({top, exit});
}

void Gen::end_for(const Inst& in, ValueId iv) {
  flush();
  auto [top, exit] = for_labels_.back();
  for_labels_.pop_back();
  Reg i = sreg(iv), step = sreg(op(in, 2));
  Reg n = reg(RC::RD);
  I("add.s64", n, i, step);
  Reg p = reg(RC::P);
  I("setp.lt.s64", p, n, i);  // overflow (the step is positive)
  bra_if(p, false, exit);
  I("mov.b64", i, n);
  bra(top);
  bind(exit);
}

void Gen::begin_if(const Inst& in) {
  flush();
  if_else_.push_back(new_label());
  if_end_.push_back(new_label());
  bra_if(pred_of(op(in, 0)), true, if_else_.back());
}

void Gen::else_if(const Inst&) {
  flush();
  bra(if_end_.back());
  bind(if_else_.back());
}

void Gen::end_if(const Inst&) {
  flush();
  bind(if_end_.back());
  if_else_.pop_back();
  if_end_.pop_back();
}

void Gen::begin_while(const Inst&) {
  flush();
  while_top_.push_back(new_label());
  while_end_.push_back(new_label());
  bind(while_top_.back());
}

void Gen::test_while(const Inst&, const Inst& cond) {
  flush();
  bra_if(pred_of(op(cond, 0)), true, while_end_.back());
}

void Gen::end_while(const Inst&) {
  flush();
  bra(while_top_.back());
  bind(while_end_.back());
  while_top_.pop_back();
  while_end_.pop_back();
}

// ---- the entry ------------------------------------------------------------------

bool Gen::run(FuncCode& out) {
  const Inst& f = m_.inst(fn_);
  std::string name(m_.attr_word(f, "sym_name"));
  out.name = name;
  out.global = m_.attr_word(f, "sym_visibility") != "private";
  if (!ptx_ident(name)) {
    d_.error(f.loc, 0, "function name '" + name + "' is not a PTX identifier [unsupported-control]");
    return false;
  }
  const Region& body = m_.region(f, 0);
  // Parameters (PTX_CONTRACT "Kernel ABI").
  std::string params, loads;
  for (unsigned i = 0; i < body.arg_count; ++i) {
    ValueId v = m_.region_arg(body, i);
    const Type& t = ty(v);
    std::string pn = name + "_param_" + std::to_string(i);
    std::string pt;
    std::string ld;
    if (t.kind == TypeKind::Ptr) {
      pt = ".u64";
    } else if (t.kind == TypeKind::Scalar) {
      switch (t.elem) {
        case DType::Index: case DType::I64: case DType::U64: pt = ".u64"; break;
        case DType::I32: case DType::U32: pt = ".u32"; break;
        case DType::I16: case DType::U16: case DType::F16: case DType::BF16: pt = ".b16"; break;
        case DType::I8: case DType::U8: case DType::I1: pt = ".u8"; break;
        case DType::F32: pt = ".f32"; break;
        case DType::F64: pt = ".f64"; break;
        default: break;
      }
    }
    if (pt.empty()) {
      d_.error(f.loc, 0, "parameter %" + std::string(m_.str(m_.values[v].name)) + " of type " +
                             std::string(m_.types.text(m_.values[v].type)) +
                             " cannot be passed to a PTX kernel (only !pto.ptr and scalars) [unsupported-type]");
      ok_ = false;
      continue;
    }
    params += std::string(params.empty() ? "" : ",\n") + "\t.param " + pt + " " + pn;
    Reg r = sreg(v);
    if (t.kind == TypeKind::Ptr) {
      Reg raw = reg(RC::RD);
      I("ld.param.u64", raw, "[" + pn + "]");
      I("cvta.to.global.u64", r, raw);
      continue;
    }
    switch (t.elem) {
      case DType::F32: I("ld.param.f32", r, "[" + pn + "]"); break;
      case DType::F64: I("ld.param.f64", r, "[" + pn + "]"); break;
      case DType::F16: case DType::BF16: {
        Reg h = reg(RC::H);
        I("ld.param.b16", h, "[" + pn + "]");
        I("mov.f32", r, lane_from_bits(t.elem, h));
        break;
      }
      case DType::Index: case DType::I64: case DType::U64: I("ld.param.u64", r, "[" + pn + "]"); break;
      case DType::I32: case DType::U32: {
        Reg x = reg(RC::R);
        I("ld.param.u32", x, "[" + pn + "]");
        I(t.elem == DType::I32 ? "cvt.s64.s32" : "cvt.u64.u32", r, x);
        break;
      }
      case DType::I16: case DType::U16: {
        Reg h = reg(RC::H);
        I("ld.param.b16", h, "[" + pn + "]");
        I(t.elem == DType::I16 ? "cvt.s64.s16" : "cvt.u64.u16", r, h);
        break;
      }
      default: {  // i8, u8, i1 as .u8
        Reg x = reg(RC::R);
        I("ld.param.u8", x, "[" + pn + "]");
        I("cvt.u64.u32", r, x);
        canon(r, t.elem);
        break;
      }
    }
  }
  std::string param_code;
  param_code.swap(body_);
  // Thread geometry.
  tid_ = reg(RC::R);
  lane_ = reg(RC::R);
  warp_ = reg(RC::R);
  smem_ = reg(RC::R);
  I("mov.u32", tid_, "%tid.x");
  I("and.b32", lane_, tid_, 31);
  I("shr.u32", warp_, tid_, 5);
  for (unsigned k = 0; k < 5; ++k) {
    lane_bit_[k] = reg(RC::P);
    Reg b = reg(RC::R);
    I("and.b32", b, lane_, 1u << k);
    I("setp.ne.u32", lane_bit_[k], b, 0);
  }
  alias_ = std::make_unique<opt::TileAliases>(m_, fn_);
  walk_region(m_, body, [&](InstId, const Inst& in) {
    if (in.op == Op::TReshape && in.n_ins >= 1 && in.n_outs == 1) reshaped_[m_.operand(in, in.n_ins)] = 1;
  });
  if (!plan_smem(*this, smem_plan_)) return false;
  if (smem_plan_.bytes) I("mov.u32", smem_, "pto_smem");
  std::string prologue;
  prologue.swap(body_);
  if (smem_plan_.bytes) {  // the tiles start zeroed, as the interpreter's
    Reg a = reg(RC::R), z = reg(RC::R), p = reg(RC::P);
    std::string top = new_label(), done = new_label();
    I("mov.b32", z, 0);
    I("shl.b32", a, tid_, 4);
    bind(top);
    I("setp.ge.u32", p, a, smem_plan_.bytes);
    bra_if(p, false, done);
    Reg sa = reg(RC::R);
    I("add.u32", sa, smem_, a);
    I("st.shared.v4.b32", mem(sa), "{" + rname(z) + ", " + rname(z) + ", " + rname(z) + ", " + rname(z) + "}");
    I("add.u32", a, a, 16 * kThreads);
    bra(top);
    bind(done);
    I("bar.sync", 0);
  }
  lower_region(body);
  I("ret");
  if (!ok_) return false;
  // Declarations, then the code.
  std::string o = "\n// .pto function @" + name + "\n";
  bool dynamic = dynamic_smem_ = smem_plan_.bytes > kMaxSharedBytes;
  if (dynamic)  // PTX_CONTRACT.md: the launch gives this much dynamic shared memory
    o += "// pto.dynamic_shared_bytes " + std::to_string(smem_plan_.bytes) + "\n";
  o += std::string(out.global ? ".visible .entry " : ".entry ") + name + "(\n" + params + (params.empty() ? "" : "\n") + ")\n";
  o += ".reqntid " + std::to_string(kThreads) + ", 1, 1\n{\n";
  for (unsigned c = 0; c < kRcCount; ++c)
    if (nreg_[c]) o += "\t.reg " + std::string(kRcDecl[c]) + " " + kRcPrefix[c] + "<" + std::to_string(nreg_[c] + 1) + ">;\n";
  if (smem_plan_.bytes && !dynamic) o += "\t.shared .align 128 .b8 pto_smem[" + std::to_string(smem_plan_.bytes) + "];\n";
  o += param_code + prologue + body_ + cold_ + "}\n";
  out.text = std::move(o);
  // The note for build_output: the .version this entry needs.
  out.target_note = std::to_string(version_);
  return true;
}

}  // namespace ptoas::cg::ptx
