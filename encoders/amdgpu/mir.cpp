// Printing the machine IR (mir.h) as assembler text.
#include "mir.h"

namespace ptoas::cg::amdgpu {

std::string op_text(const MFunc& f, const MOp& o) {
  if (o.kind == MOp::Text) return o.text;
  const VReg& r = f.regs[o.reg];
  const char* c = r.file == RegFile::V ? "v" : "s";
  int p = r.phys < 0 ? 0 : r.phys;
  std::string s;
  if (o.part != 0xff || r.dwords == 1) s = c + std::to_string(p + (o.part == 0xff ? 0 : o.part));
  else s = std::string(c) + "[" + std::to_string(p) + ":" + std::to_string(p + r.dwords - 1) + "]";
  if (o.mod & 2) s = "|" + s + "|";
  if (o.mod & 1) s = "-" + s;
  return s;
}

std::string label_name(const std::string& prefix, int32_t n) { return ".L" + prefix + "_" + std::to_string(n); }

std::string print_body(const MFunc& f, const std::string& label_prefix) {
  std::string out;
  auto label = [&](int32_t l) { return label_name(label_prefix, l); };
  for (const MInst& mi : f.code) {
    switch (mi.kind) {
      case MInst::Label: out += label(mi.label) + ":\n"; continue;
      case MInst::Loc: out += "  .loc 1 " + std::to_string(mi.line) + " " + std::to_string(mi.col) + "\n"; continue;
      case MInst::Op: break;
    }
    out += "  " + mi.op;
    bool first = true;
    for (const MOp& o : mi.ops) {
      out += first ? " " : ", ";
      out += op_text(f, o);
      first = false;
    }
    if (mi.label >= 0) out += (first ? " " : ", ") + label(mi.label);
    if (!mi.tail.empty()) out += " " + mi.tail;
    out += "\n";
  }
  return out;
}

}  // namespace ptoas::cg::amdgpu
