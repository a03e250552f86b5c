// libptoas_codegen driver (codegen.h): dispatch to the target encoder, the
// listing, C headers and JIT images. Target-neutral. (The line table is
// DWARF, written with the object: x86/x86_elf.cpp, docs/debug_info.md.)
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "codegen.h"
#include "plan.h"
#include "sve/sve.h"
#include "x86/x86.h"

namespace ptoas::cg {

namespace {

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

opt::TargetDesc opt_target(Target t) {
  opt::TargetDesc d;
  d.vector_bytes = t == Target::Avx512 ? 64 : 32;
  d.vector_regs = t == Target::Avx512 ? 32 : 16;
  d.fusable = is_x86(t) ? x86::fusable_op : sve::fusable_op;
  return d;
}

bool compile_module(const Module& m, Target t, ModuleCode& out, Diag& diag) {
  out = ModuleCode{};
  out.target = t;
  if (is_x86(t)) out.rodata = x86::rodata();
  bool ok = true;
  for (InstId fn : defined_functions(m)) {
    FuncCode f;
    if (!(is_x86(t) ? x86::compile_function(m, fn, t, f, diag) : sve::compile_function(m, fn, f, diag))) {
      ok = false;
      if (diag.too_many()) break;
      continue;
    }
    out.funcs.push_back(std::move(f));
  }
  return ok;
}

bool write_object(const Module& m, const ModuleCode& code, std::string& out, std::string& err) {
  return is_x86(code.target) ? x86::write_elf(m, code, out, err) : sve::write_elf(m, code, out, err);
}

std::string asm_listing(const Module& m, const ModuleCode& code) {
  std::vector<uint64_t> off = layout(code);
  // x86: Intel syntax from Zydis, '#' comments; sve: LLVM's AArch64 syntax,
  // '//' comments.
  const bool x86t = is_x86(code.target);
  const std::string cmt = x86t ? "#" : "//";
  std::string o = cmt + " ptoas --target=" + std::string(target_name(code.target)) + " listing of " +
                  src_name(m) + (x86t ? " (Intel syntax; addresses are .text offsets)\n"
                                      : " (addresses are .text offsets)\n");
  o += x86t ? "\t.intel_syntax noprefix\n\t.text\n" : "\t.arch\tarmv8.2-a+sve+fp16+bf16\n\t.text\n";
  for (size_t k = 0; k < code.funcs.size(); ++k) {
    const FuncCode& f = code.funcs[k];
    o += "\n";
    if (f.global) o += "\t.globl\t" + f.name + "\n";
    o += "\t.type\t" + f.name + ",@function\n";
    o += "\t.p2align\t4\n" + f.name + ":\n";
    std::vector<std::pair<uint64_t, std::string>> insts;
    if (x86t) {
      for (const x86::DecodedInst& d : x86::decode(f.code.data(), f.code.size(), off[k])) insts.push_back({d.offset, d.text});
    } else {
      for (const sve::DecodedInst& d : sve::decode(f.code.data(), f.code.size(), off[k])) insts.push_back({d.offset, d.text});
    }
    size_t li = 0;
    for (const auto& [offset, text] : insts) {
      while (li < f.lines.size() && f.lines[li].offset <= offset) {
        if (m.src) {
          LineCol lc = m.src->line_col(f.lines[li].src_loc);
          o += "\t" + cmt + " " + src_name(m) + ":" + std::to_string(lc.line) + ": " +
               trim(m.src->line_text(lc.line)) + "\n";
        }
        ++li;
      }
      o += "\t" + text + "\n";
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

bool build_jit_image(const Module& m, InstId fn, Target t, JitImage& out, Diag& diag) {
  FuncCode f;
  if (!(is_x86(t) ? x86::compile_function(m, fn, t, f, diag) : sve::compile_function(m, fn, f, diag))) return false;
  out = JitImage{};
  out.kernel_offset = 0;
  std::vector<uint8_t>& b = out.bytes;
  b = f.code;
  const uint8_t x86_pad = 0xCC;
  // AArch64 padding: udf #0 words (the image is 4-byte aligned already).
  while (b.size() % 16) {
    if (is_x86(t)) {
      b.push_back(x86_pad);
    } else {
      for (int k = 0; k < 4; ++k) b.push_back(0);
    }
  }
  out.thunk_offset = b.size();
  std::vector<uint8_t> thunk;
  std::string err;
  bool ok = is_x86(t) ? x86::packed_thunk(m, fn, out.thunk_offset, out.kernel_offset, thunk, err)
                      : sve::packed_thunk(m, fn, out.thunk_offset, out.kernel_offset, thunk, err);
  if (!ok) {
    diag.error(m.inst(fn).loc, 0, err);
    return false;
  }
  b.insert(b.end(), thunk.begin(), thunk.end());
  out.n_slots = m.region(m.inst(fn), 0).arg_count + 2;
  if (!is_x86(t)) return true;
  while (b.size() % 64) b.push_back(x86_pad);
  size_t consts = b.size();
  std::vector<uint8_t> ro = x86::rodata();
  b.insert(b.end(), ro.begin(), ro.end());
  if (f.rodata_fixup != kNoFixup) {
    int32_t rel = int32_t(int64_t(consts) - int64_t(f.rodata_fixup + 4));
    std::memcpy(b.data() + f.rodata_fixup, &rel, 4);
  }
  return true;
}

}  // namespace ptoas::cg
