// libptoas_codegen driver (codegen.h): a module through the target's
// descriptor (target.h), the listing, C headers and JIT images.
// Target-neutral: nothing here names a target.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "codegen.h"
#include "elf_writer.h"
#include "refusal.h"

namespace ptoas::cg {

namespace {

std::vector<uint64_t> layout(const ModuleCode& code) {
  std::vector<uint64_t> off;
  uint64_t pos = 0;
  for (const FuncCode& f : code.funcs) {
    pos = (pos + 15) & ~uint64_t(15);
    off.push_back(pos);
    pos += f.code.size();
  }
  return off;
}

std::string trim(std::string_view s) {
  size_t a = 0, e = s.size();
  while (a < e && (s[a] == ' ' || s[a] == '\t')) ++a;
  while (e > a && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return std::string(s.substr(a, e - a));
}

std::string src_name(const Module& m) {
  if (!m.src) return "<input>";
  std::string n = m.src->name();
  size_t sl = n.find_last_of('/');
  return sl == std::string::npos ? n : n.substr(sl + 1);
}

bool c_ident(std::string_view s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
}

}  // namespace

std::vector<InstId> defined_functions(const Module& m) {
  std::vector<InstId> out;
  if (m.body == kNone) return out;
  const Region& body = m.regions[m.body];
  for (unsigned i = 0; i < body.inst_count; ++i) {
    InstId id = m.region_inst(body, i);
    const Inst& f = m.inst(id);
    if (f.op == Op::Func && f.n_regions > 0) out.push_back(id);
  }
  return out;
}

// No target lowers the layers below tile ops (VPTO micro-instructions, VMI
// ops) yet. Their registers, masks and on-chip pointers would otherwise be
// refused one by one as values the frame cannot hold; one message at the
// first such op names the layer instead. A pto.vecscope only delimits
// micro-instructions, so the first op inside it is named when there is one.
static bool refuse_lower_layers(const Module& m, const Target& t, Diag& diag) {
  const Inst* at = nullptr;
  for (const Inst& in : m.insts) {
    Sem s = op_info(in.op).sem;
    if (s != Sem::Vpto && s != Sem::Vmi) continue;
    bool scope = in.op == Op::VpVecscope || in.op == Op::VpStrictVecscope;
    if (!at || (!scope && (at->op == Op::VpVecscope || at->op == Op::VpStrictVecscope))) at = &in;
    if (!scope) break;
  }
  if (!at) return true;
  bool vmi = op_info(at->op).sem == Sem::Vmi;
  diag.error(at->loc, 0, std::string(vmi ? "the VMI operation " : "the VPTO micro-instruction ") +
                             std::string(op_name(at->op)) + " is not supported on " + std::string(t.name) +
                             " yet [" + std::string(refusal_code_name(RefusalCode::Layer)) + "]");
  return false;
}

bool compile_module(const Module& m, const Target& t, ModuleCode& out, Diag& diag, const CodegenOptions& o) {
  out = ModuleCode{};
  out.target = &t;
  if (!t.compile) {
    diag.error_global("target " + std::string(t.name) + " is not implemented yet (use --emit=ir)");
    return false;
  }
  if (!refuse_lower_layers(m, t, diag)) return false;
  // A nested module is a compile unit of its own in the official tool (one
  // per pto.backend); no target here compiles one (its functions would be
  // left out silently).
  if (m.body != kNone)
    for (unsigned i = 0; i < m.regions[m.body].inst_count; ++i) {
      const Inst& in = m.inst(m.region_inst(m.regions[m.body], i));
      if (in.op != Op::Module) continue;
      diag.error(in.loc, 0, "a nested module is not supported on " + std::string(t.name) + " yet [" +
                                std::string(refusal_code_name(RefusalCode::Control)) + "]");
      return false;
    }
  if (t.rodata) out.rodata = t.rodata();
  bool ok = true;
  for (InstId fn : defined_functions(m)) {
    FuncCode f;
    if (!t.compile(m, fn, t, o, f, diag)) {
      ok = false;
      if (diag.too_many()) break;
      continue;
    }
    out.funcs.push_back(std::move(f));
  }
  return ok;
}

bool build_output(const Module& m, const ModuleCode& code, Output& out, std::string& err) {
  const Target& t = *code.target;
  if (t.build_output) return t.build_output(m, code, out, err);
  if (t.output != OutputKind::Text) {
    err = "target " + std::string(t.name) + " writes no object";
    return false;
  }
  out = Output{.kind = Output::Kind::Text};
  for (const FuncCode& f : code.funcs) out.text += f.text;
  return true;
}

bool write_object(const Module& m, const ModuleCode& code, std::string& out, std::string& err) {
  Output o;
  if (!build_output(m, code, o, err)) return false;
  if (o.kind == Output::Kind::Text) {
    out = std::move(o.text);
    return true;
  }
  if (o.kind == Output::Kind::Bytes) {
    out.assign(o.bytes.begin(), o.bytes.end());
    return true;
  }
  return serialize_elf(o.object, out, err);
}

std::string asm_listing(const Module& m, const ModuleCode& code) {
  const Target& t = *code.target;
  if (t.listing) return t.listing(m, code);
  if (!t.decode) {  // a text target: its text is its listing
    std::string o, err;
    write_object(m, code, o, err);
    return o;
  }
  std::vector<uint64_t> off = layout(code);
  const std::string cmt(t.asm_comment);
  std::string o = cmt + " ptoas --target=" + std::string(t.name) + " listing of " + src_name(m) + " (" +
                  (t.isa == Isa::X86_64 ? "Intel syntax; " : "") + "addresses are .text offsets)\n";
  o += t.asm_preamble;
  for (size_t k = 0; k < code.funcs.size(); ++k) {
    const FuncCode& f = code.funcs[k];
    o += "\n";
    if (f.global) o += "\t.globl\t" + f.name + "\n";
    o += "\t.type\t" + f.name + ",@function\n";
    o += "\t.p2align\t4\n" + f.name + ":\n";
    size_t li = 0;
    for (const ListedInst& d : t.decode(f.code.data(), f.code.size(), off[k])) {
      while (li < f.lines.size() && f.lines[li].offset <= d.offset) {
        if (m.src) {
          LineCol lc = m.src->line_col(f.lines[li].src_loc);
          o += "\t" + cmt + " " + src_name(m) + ":" + std::to_string(lc.line) + ": " +
               trim(m.src->line_text(lc.line)) + "\n";
        }
        ++li;
      }
      o += "\t" + d.text + "\n";
    }
    o += "\t.size\t" + f.name + ", " + std::to_string(f.code.size()) + "\n";
  }
  if (!code.rodata.empty()) {
    o += "\n\t.section\t.rodata\n\t.p2align\t6\n.Lpto_consts:\n";
    for (size_t i = 0; i < code.rodata.size(); i += 16) {
      o += "\t.byte\t";
      for (size_t j = i; j < std::min(code.rodata.size(), i + 16); ++j) {
        char h[8];
        std::snprintf(h, sizeof h, "%s0x%02x", j == i ? "" : ", ", code.rodata[j]);
        o += h;
      }
      o += "\n";
    }
  }
  o += "\t.section\t.note.GNU-stack,\"\",@progbits\n";
  return o;
}

bool c_header(const Module& m, std::string& out, Diag& diag) {
  std::string guard = "PTOAS_KERNEL_H";
  out = "/* C prototypes of the kernels in " + src_name(m) +
        ", generated by ptoas (DESIGN §5 ABI). */\n#ifndef " + guard + "\n#define " + guard +
        "\n#include <stdbool.h>\n#include <stdint.h>\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  bool ok = true;
  for (InstId fn : defined_functions(m)) {
    const Inst& f = m.inst(fn);
    if (m.attr_word(f, "sym_visibility") == "private") continue;
    std::string line = "void " + std::string(m.attr_word(f, "sym_name")) + "(";
    const Region& body = m.region(f, 0);
    for (unsigned i = 0; i < body.arg_count; ++i) {
      ValueId v = m.region_arg(body, i);
      const Type& t = m.type_of(v);
      std::string ct;
      auto scalar = [&](DType d) -> std::string {
        switch (d) {
          case DType::F32: return "float";
          case DType::F64: return "double";
          case DType::F16: case DType::BF16: return "uint16_t";
          case DType::I1: return "bool";
          case DType::I8: return "int8_t";
          case DType::U8: return "uint8_t";
          case DType::I16: return "int16_t";
          case DType::U16: return "uint16_t";
          case DType::I32: return "int32_t";
          case DType::U32: return "uint32_t";
          case DType::I64: case DType::Index: return "int64_t";
          case DType::U64: return "uint64_t";
          default: return "";
        }
      };
      if (t.kind == TypeKind::Ptr) {
        std::string e = t.elem == DType::I1 ? "uint8_t" : scalar(t.elem);
        if (!e.empty()) ct = e + "*";
      } else if (t.kind == TypeKind::Scalar) {
        ct = scalar(t.elem);
      }
      if (ct.empty()) {
        diag.error(f.loc, 0, "parameter %" + std::string(m.str(m.values[v].name)) + " of type " +
                                 std::string(m.types.text(m.values[v].type)) +
                                 " has no C spelling (CPU kernels take !pto.ptr and scalars)");
        ok = false;
        continue;
      }
      std::string name(m.str(m.values[v].name));
      if (!c_ident(name) || name == "block_idx" || name == "block_num") name = "arg" + std::to_string(i);
      line += ct + " " + name + ", ";
    }
    line += "int64_t block_idx, int64_t block_num);\n";
    out += line;
  }
  out += "\n#ifdef __cplusplus\n}\n#endif\n#endif\n";
  return ok;
}

bool build_jit_image(const Module& m, InstId fn, const Target& t, JitImage& out, Diag& diag,
                     const CodegenOptions& o) {
  if (!t.compile || !t.packed_thunk) {
    diag.error(m.inst(fn).loc, 0, "target " + std::string(t.name) + " has no JIT");
    return false;
  }
  FuncCode f;
  if (!t.compile(m, fn, t, o, f, diag)) return false;
  out = JitImage{};
  out.kernel_offset = 0;
  std::vector<uint8_t>& b = out.bytes;
  b = f.code;
  while (b.size() % 16) b.push_back(t.code_pad);  // AArch64: udf #0 words (the code is 4-byte aligned)
  out.thunk_offset = b.size();
  std::vector<uint8_t> thunk;
  std::string err;
  if (!t.packed_thunk(m, fn, out.thunk_offset, out.kernel_offset, thunk, err)) {
    diag.error(m.inst(fn).loc, 0, err);
    return false;
  }
  b.insert(b.end(), thunk.begin(), thunk.end());
  out.n_slots = m.region(m.inst(fn), 0).arg_count + 2;
  if (!t.rodata) return true;
  while (b.size() % 64) b.push_back(t.code_pad);
  size_t consts = b.size();
  std::vector<uint8_t> ro = t.rodata();
  b.insert(b.end(), ro.begin(), ro.end());
  if (f.rodata_fixup != kNoFixup) {
    int32_t rel = int32_t(int64_t(consts) - int64_t(f.rodata_fixup + 4));
    std::memcpy(b.data() + f.rodata_fixup, &rel, 4);
  }
  return true;
}

}  // namespace ptoas::cg
