// Small generated kernels for sve_forms (sve_forms.h): every tile op of the
// classes the SVE backend lowers (elementwise, tile-scalar, unary, row and
// column expands, reductions, tcvt) on every lane type, row- and
// column-major, each between a tload and a tstore. Kernels the front end or
// the backend refuses are simply skipped by the caller.
#include <string>
#include <vector>

#include "ops.h"
#include "sve_forms.h"

namespace sveforms {

using ptoas::DType;

namespace {

const DType kLanes[] = {DType::F32, DType::F16, DType::BF16, DType::I32, DType::U32,
                        DType::I16, DType::U16, DType::I8,  DType::U8};

// 32 x 32 tiles: a whole number of 32-byte rows (and columns) in every
// lane type; a ragged 3 x 19 valid region so the predicated tails appear.
std::string tile(const std::string& dt, const char* shape = "32x32", bool col_major = false) {
  return "!pto.tile_buf<vec, " + std::string(shape) + "x" + dt + ", valid=?x?" +
         (col_major ? ", blayout=col_major>" : ">");
}

struct Kernel {
  std::string dt, out_dt;
  std::string body;

  std::string alloc(const std::string& name, const std::string& ty, const char* vr = "%R", const char* vc = "%C") {
    return "  %" + name + " = pto.alloc_tile valid_row = " + vr + " valid_col = " + vc + " : " + ty + "\n";
  }
  std::string text() const {
    std::string tv = "!pto.tensor_view<?x?x" + dt + ">", pv = "!pto.partition_tensor_view<?x?x" + dt + ">";
    std::string otv = "!pto.tensor_view<?x?x" + out_dt + ">", opv = "!pto.partition_tensor_view<?x?x" + out_dt + ">";
    std::string k = "func.func @k(%a: !pto.ptr<" + dt + ">, %c: !pto.ptr<" + out_dt + ">, %s: " + dt +
                    ") attributes {pto.entry} {\n"
                    "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
                    "  %R = arith.constant 3 : index\n  %C = arith.constant 19 : index\n"
                    "  %ld = arith.constant 40 : index\n";
    k += "  %av = pto.make_tensor_view %a, shape = [%R, %C], strides = [%ld, %c1] : " + tv + "\n";
    k += "  %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%R, %C] : " + tv + " -> " + pv + "\n";
    k += "  %cv = pto.make_tensor_view %c, shape = [%R, %C], strides = [%ld, %c1] : " + otv + "\n";
    k += "  %cp = pto.partition_view %cv, offsets = [%c0, %c0], sizes = [%R, %C] : " + otv + " -> " + opv + "\n";
    return k + body + "  return\n}\n";
  }
};

// tload %ta, `op` over tiles of `in_ty`, tstore %tc (of `out_ty`).
std::string around(Kernel& k, const std::string& in_ty, const std::string& out_ty, const std::string& op) {
  std::string pv = "!pto.partition_tensor_view<?x?x" + k.dt + ">";
  std::string opv = "!pto.partition_tensor_view<?x?x" + k.out_dt + ">";
  return k.alloc("ta", in_ty) + k.alloc("tb", in_ty) + k.alloc("tc", out_ty) +
         "  pto.tload ins(%ap : " + pv + ") outs(%ta : " + in_ty + ")\n" +
         "  pto.tload ins(%ap : " + pv + ") outs(%tb : " + in_ty + ")\n" + op +
         "  pto.tstore ins(%tc : " + out_ty + ") outs(%cp : " + opv + ")\n";
}

// The DPS operands of one signature alternative ("tt", "ts", "st", ...);
// optional operands (`x?`) left out.
std::string operands(const std::string& sig, const std::string& ty, const std::string& dt, std::string& types) {
  std::string ops;
  int tiles = 0;
  for (size_t i = 0; i < sig.size(); ++i) {
    if (i + 1 < sig.size() && sig[i + 1] == '?') {
      ++i;
      continue;
    }
    if (sig[i] == '?') continue;
    std::string o, t;
    if (sig[i] == 't') o = tiles++ == 0 ? "%ta" : "%tb", t = ty;
    else if (sig[i] == 's') o = "%s", t = dt;
    else return {};
    ops += (ops.empty() ? "" : ", ") + o;
    types += (types.empty() ? "" : ", ") + t;
  }
  return ops;
}

void elementwise(std::vector<GenKernel>& out, const ptoas::OpInfo& info, DType d, ptoas::Arch arch) {
  std::string dt(ptoas::dtype_name(d));
  std::string outs(info.outs);
  if (outs != "t") return;
  std::string sigs(info.ins);
  for (size_t a = 0; a <= sigs.size();) {
    size_t bar = sigs.find('|', a);
    if (bar == std::string::npos) bar = sigs.size();
    std::string sig = sigs.substr(a, bar - a);
    a = bar + 1;
    for (bool cm : {false, true}) {
      std::string ty = tile(dt, "32x32", cm), types;
      std::string ops = operands(sig, ty, dt, types);
      if (ops.empty()) continue;
      Kernel k{dt, dt, {}};
      k.body = around(k, ty, ty, "  " + std::string(info.name) + " ins(" + ops + " : " + types + ") outs(%tc : " + ty + ")\n");
      out.push_back({std::string(info.name) + " " + sig + " " + dt + (cm ? " col_major" : ""), k.text(), arch});
    }
  }
}

void expand(std::vector<GenKernel>& out, const ptoas::OpInfo& info, DType d, ptoas::Arch arch) {
  std::string dt(ptoas::dtype_name(d)), name(info.name);
  bool row = name.find("trowexpand") != std::string::npos;
  std::string ty = tile(dt), vty = row ? tile(dt, "32x1", true) : tile(dt, "1x32");
  bool plain = std::string(info.ins) == "t";
  Kernel k{dt, dt, {}};
  std::string pv = "!pto.partition_tensor_view<?x?x" + dt + ">";
  k.body = k.alloc("ta", ty) + k.alloc("tv", vty, row ? "%R" : "%c1", row ? "%c1" : "%C") + k.alloc("tc", ty) +
           "  pto.tload ins(%ap : " + pv + ") outs(%ta : " + ty + ")\n";
  std::string op = "  " + name;
  std::vector<std::string> forms;
  if (plain) forms.push_back(op + " ins(%tv : " + vty + ") outs(%tc : " + ty + ")\n");
  else {
    forms.push_back(op + " ins(%ta, %tv : " + ty + ", " + vty + ") outs(%tc : " + ty + ")\n");
    forms.push_back(op + " ins(%tv, %ta : " + vty + ", " + ty + ") outs(%tc : " + ty + ")\n");
  }
  for (size_t i = 0; i < forms.size(); ++i) {
    Kernel f = k;
    f.body += forms[i] + "  pto.tstore ins(%tc : " + ty + ") outs(%cp : " + pv + ")\n";
    out.push_back({name + " " + dt + (i ? " swapped" : ""), f.text(), arch});
  }
}

void reduce(std::vector<GenKernel>& out, const ptoas::OpInfo& info, DType d, ptoas::Arch arch) {
  std::string dt(ptoas::dtype_name(d)), name(info.name);
  bool row = name.find("trow") != std::string::npos;
  std::string ty = tile(dt), rty = row ? tile(dt, "32x1", true) : tile(dt, "1x32");
  std::string pv = "!pto.partition_tensor_view<?x?x" + dt + ">";
  for (bool tmp : {false, true}) {
    if (tmp && std::string(info.ins) != "tt?") continue;  // no scratch tile operand
    Kernel k{dt, dt, {}};
    k.body = k.alloc("ta", ty) + k.alloc("tt", ty) + k.alloc("tr", rty, row ? "%R" : "%c1", row ? "%c1" : "%C") +
             "  pto.tload ins(%ap : " + pv + ") outs(%ta : " + ty + ")\n" + "  " + name +
             (tmp ? " ins(%ta, %tt : " + ty + ", " + ty + ")" : " ins(%ta : " + ty + ")") + " outs(%tr : " + rty +
             ")\n";
    out.push_back({name + " " + dt + (tmp ? " tmp" : ""), k.text(), arch});
  }
}

void convert(std::vector<GenKernel>& out, DType from, DType to, ptoas::Arch arch) {
  std::string f(ptoas::dtype_name(from)), t(ptoas::dtype_name(to));
  for (bool cm : {false, true}) {
    Kernel k{f, t, {}};
    std::string ti = tile(f, "32x32", cm), to_ty = tile(t, "32x32", cm);
    k.body = around(k, ti, to_ty, "  pto.tcvt ins(%ta {rmode = #pto<round_mode RINT>} : " + ti + ") outs(%tc : " +
                                      to_ty + ")\n");
    out.push_back({"pto.tcvt " + f + " -> " + t + (cm ? " col_major" : ""), k.text(), arch});
  }
}

}  // namespace

std::vector<GenKernel> generated_kernels() {
  std::vector<GenKernel> out;
  for (unsigned o = 0; o < unsigned(ptoas::Op::Count); ++o) {
    const ptoas::OpInfo& info = ptoas::op_info(ptoas::Op(o));
    if (info.syn != ptoas::Syn::Dps) continue;
    for (DType d : kLanes) {
      // The arch whose dtype column admits d (a3 first); neither: the
      // verifier would refuse it anyway.
      ptoas::Arch arch = (info.dtypes_a3 & ptoas::dt_bit(d)) ? ptoas::Arch::A3 : ptoas::Arch::A5;
      if (!((info.dtypes_a3 | info.dtypes_a5) & ptoas::dt_bit(d))) continue;
      switch (info.sem) {
        case ptoas::Sem::EltBin: case ptoas::Sem::EltUnary: case ptoas::Sem::EltScalar:
          elementwise(out, info, d, arch);
          break;
        case ptoas::Sem::Expand: expand(out, info, d, arch); break;
        case ptoas::Sem::Reduce: reduce(out, info, d, arch); break;
        default: break;
      }
    }
  }
  for (DType from : kLanes)
    for (DType to : kLanes)
      for (ptoas::Arch arch : {ptoas::Arch::A3, ptoas::Arch::A5}) convert(out, from, to, arch);
  return out;
}

}  // namespace sveforms
