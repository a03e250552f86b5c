// Rules of the SIMT ops (code run per thread of a SIMT launch: a
// pto.simt_entry function or a pto.section.simt body), as the official op
// verifiers state them (PTOAS 0.60):
//   pto.keep / pto.resume   a slot in [0, 122]; a 64-bit value takes an even
//                           slot and the next one
//   pto.atomic_*            a GM or UB pointer whose element type is the
//                           value's; no i64 atomics in UB; the bitwise ones
//                           on integers; signedness only on integers
//   pto.redux_*             i32, f16 or f32; max/min of an integer name its
//                           signedness
//   pto.shuffle_*           i32, i64, f16, f32 or vector<2xf16> values, an
//                           i32 lane operand, width 16 or 32
#include <string>

#include "opaque_text.h"
#include "verify.h"

namespace ptoas {
namespace verify_detail {
namespace {

constexpr int64_t kKeepResumeSlots = 123;

// How many 32-bit registers a keep/resume value takes; 0 when the type has
// no mapping (the verifier then says nothing, as the official one).
int keep_registers(std::string_view t) {
  if (t == "f16" || t == "bf16" || t == "f32") return 1;
  size_t i = t.rfind("ui", 0) == 0 || t.rfind("si", 0) == 0 ? 2 : t.rfind("i", 0) == 0 ? 1 : 0;
  if (i == 0) return 0;
  int bits = 0;
  for (char ch : t.substr(i)) {
    if (ch < '0' || ch > '9' || bits > 1000) return 0;
    bits = bits * 10 + (ch - '0');
  }
  return bits <= 32 ? 1 : bits == 64 ? 2 : 0;
}

bool int_type(std::string_view t) { return keep_registers(t) != 0 && t != "f16" && t != "bf16" && t != "f32"; }
bool float_type(std::string_view t) { return t == "f16" || t == "bf16" || t == "f32"; }

void keep_resume(Ctx& c, const Inst& in) {
  ValueId v = in.op == Op::Keep ? c.operand(in, 0) : c.result(in, 0);
  if (v == kNone) return;
  int regs = keep_registers(c.type_text(v));
  std::string s = c.kv(in, "slot");
  if (regs == 0 || s.empty()) return;
  char* end = nullptr;
  long long slot = std::strtoll(s.c_str(), &end, 10);
  if (!end || *end != '\0') return;
  std::string op = q(in.op) + " op ";
  if (slot < 0 || slot >= kKeepResumeSlots)
    c.error(in.loc, op + "requires slot in range [0, " + std::to_string(kKeepResumeSlots - 1) + "], got " + s);
  else if (regs == 2 && slot % 2 != 0)
    c.error(in.loc, op + "requires an even slot for 64-bit keep/resume values, got slot " + s);
  else if (regs == 2 && slot + 1 >= kKeepResumeSlots)
    c.error(in.loc, op + "requires slot in range [0, " + std::to_string(kKeepResumeSlots - 2) +
                        "] for 64-bit keep/resume values, got " + s);
}

void atomic(Ctx& c, const Inst& in) {
  ValueId p = c.operand(in, 0), v = c.operand(in, 1), r = c.result(in, 0);
  if (p == kNone || v == kNone) return;
  std::string vt = c.type_text(v), elem, space;
  std::string op = q(in.op) + " op ";
  bool supported = vt == "i32" || vt == "i64" || float_type(vt) || vt == "vector<2xf16>" || vt == "vector<2xbf16>";
  if (!supported)
    return c.error(in.loc, op + "requires i32, i64, f16, bf16, f32, vector<2xf16> or vector<2xbf16> atomic "
                                "value type, got " + vt);
  if (r != kNone && c.type_text(r) != "!pto.unknown" && c.type_text(r) != vt)
    return c.error(in.loc, op + "requires atomic result type to match value type");
  if (!ptr_parts(c.type_text(p), elem, space)) return c.error(in.loc, op + "requires !pto.ptr pointer operand");
  if (elem != vt) return c.error(in.loc, op + "requires atomic value type to match pointer element type");
  bool ub = space == "ub" || space == "vec";
  if (space != "gm" && !ub) return c.error(in.loc, op + "requires GM or UB pointer, got " + space);
  if (ub && vt == "i64") return c.error(in.loc, op + "does not support i64 UB-space atomics");
  bool bitwise = in.op == Op::VpAtomicAnd;
  if (bitwise && !int_type(vt)) return c.error(in.loc, op + "requires integer type for bitwise atomics");
  std::string_view body = c.body(in);
  bool signedness = find_word(body, "signed") != std::string_view::npos ||
                    find_word(body, "unsigned") != std::string_view::npos;
  if (signedness && !int_type(vt))
    c.error(in.loc, op + "does not accept signedness for floating-point atomics");
}

void redux(Ctx& c, const Inst& in) {
  ValueId v = c.operand(in, 0);
  if (v == kNone) return;
  std::string t = c.type_text(v);
  std::string op = q(in.op) + " op ";
  if (t != "i32" && t != "f16" && t != "f32")
    return c.error(in.loc, op + "requires i32, f16 or f32 value/result type, got " + t);
  std::string_view body = c.body(in);
  bool signedness = find_word(body, "signed") != std::string_view::npos ||
                    find_word(body, "unsigned") != std::string_view::npos || !c.kv(in, "signedness").empty();
  if (t != "i32" && signedness) return c.error(in.loc, op + "does not accept signedness for floating-point redux");
  if (t == "i32" && !signedness && in.op != Op::ReduxAdd)
    c.error(in.loc, op + "requires explicit signedness for integer redux (signed or unsigned)");
}

void shuffle(Ctx& c, const Inst& in) {
  ValueId r = c.result(in, 0), ctl = c.operand(in, 1);
  std::string op = q(in.op) + " op ";
  std::string rt = r == kNone ? std::string() : c.type_text(r);
  if (!rt.empty() && rt != "!pto.unknown" && rt != "i32" && rt != "i64" && rt != "f16" && rt != "f32" &&
      rt != "vector<2xf16>")
    return c.error(in.loc, op + "requires i32, i64, f16, f32 or vector<2xf16> value/result type, got " + rt);
  const char* what = in.op == Op::VpShuffleIdx ? "index" : in.op == Op::VpShuffleBfly ? "mask" : "offset";
  if (ctl != kNone && c.type_text(ctl) != "i32")
    return c.error(in.loc, op + "requires " + what + " operand to be i32, got " + c.type_text(ctl));
  std::string w = c.kv(in, "width");
  if (!w.empty() && w != "16" && w != "32") c.error(in.loc, op + "requires width to be 16 or 32, got " + w);
}

}  // namespace

bool simt_launch_dims(const Ctx& c, const Inst& in, int64_t dims[3]) {
  std::string_view b = c.body(in);
  size_t open = b.find("<<<");
  if (open == std::string_view::npos) return false;
  size_t i = open + 3;
  for (int k = 0; k < 3; ++k) {
    while (i < b.size() && b[i] == ' ') ++i;
    bool neg = i < b.size() && b[i] == '-';
    if (neg) ++i;
    size_t d = i;
    int64_t v = 0;
    while (i < b.size() && b[i] >= '0' && b[i] <= '9' && v < (int64_t(1) << 40)) v = v * 10 + (b[i++] - '0');
    if (i == d) return false;
    dims[k] = neg ? -v : v;
    while (i < b.size() && b[i] == ' ') ++i;
    if (k < 2 && (i >= b.size() || b[i++] != ',')) return false;
  }
  return b.compare(i, 3, ">>>") == 0;
}

void verify_simt_inst(Ctx& c, InstId id) {
  const Inst* in = c.inst(id);
  if (!in) return;
  switch (in->op) {
    case Op::Keep: case Op::Resume:
      keep_resume(c, *in);
      break;
    case Op::VpAtomicAdd: case Op::VpAtomicAnd: case Op::VpAtomicCas: case Op::VpAtomicExch:
    case Op::VpAtomicMax: case Op::VpAtomicMin: case Op::VpAtomicSub:
      atomic(c, *in);
      break;
    case Op::ReduxAdd: case Op::ReduxMax: case Op::ReduxMin:
      redux(c, *in);
      break;
    case Op::VpShuffleIdx: case Op::VpShuffleUp: case Op::VpShuffleDown: case Op::VpShuffleBfly:
      shuffle(c, *in);
      break;
    default:
      break;
  }
}

}  // namespace verify_detail
}  // namespace ptoas
