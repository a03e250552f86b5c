// Rules of the VPTO cube-side micro-instructions, as the official op
// verifiers state them (PTOAS 0.60, lib/PTO/IR/VPTO):
//   pto.mte_l0c_{gm,ub,l1}  the structured accumulator store: its clauses
//                           (dst_mode, unit_flag, pre_quant, pre_relu with
//                           clip, nz2nd/nz2dn/nz2nz, loop3, sat, atomic) and
//                           how they agree with the source and destination
//                           element types
//   pto.mad*                tf32_mode only on f32, hif8 on both inputs or
//                           neither, sat/nosat only on floating types
//   pto.raw_fill_l1         an L1 destination, 16- or 32-bit fill words
// The ops are opaque (their text is kept): clauses are read from it
// (opaque_text.h), operand types from the values.
#include <algorithm>
#include <string>

#include "int_eval.h"
#include "opaque_text.h"
#include "verify.h"

namespace ptoas {
namespace verify_detail {
namespace {

// A pointer operand's element type and address space (`!pto.ptr<f16>` is in
// gm). Empty fields when `v` is not a !pto.ptr.
struct PtrParts {
  std::string elem, space;
  bool ok = false;
};

PtrParts ptr_of(const Ctx& c, ValueId v) {
  PtrParts p;
  if (v != kNone) p.ok = ptr_parts(c.type_text(v), p.elem, p.space);
  return p;
}

// The official diagnostics name an address space by both its spellings.
std::string space_name(const std::string& s) {
  if (s == "ub" || s == "vec") return "vec/ub";
  if (s == "l1" || s == "mat") return "mat/l1";
  if (s == "l0a" || s == "left") return "left/l0a";
  if (s == "l0b" || s == "right") return "right/l0b";
  if (s == "l0c" || s == "acc") return "acc/l0c";
  if (s == "fb" || s == "scaling") return "scaling/fb";
  if (s == "bt" || s == "bias") return "bias/bt";
  return s;
}
bool is_space(const std::string& s, const char* a, const char* b) { return s == a || s == b; }

bool float_scalar(std::string_view t) { return t == "f16" || t == "bf16" || t == "f32"; }
// Integer spelling parts: "i16" -> ('i', 16), "ui8" -> ('u', 8), "si4" -> ('s', 4).
bool int_parts(std::string_view t, char& sign, unsigned& bits) {
  if (t.rfind("ui", 0) == 0) sign = 'u', t.remove_prefix(2);
  else if (t.rfind("si", 0) == 0) sign = 's', t.remove_prefix(2);
  else if (t.rfind("i", 0) == 0) sign = 'i', t.remove_prefix(1);
  else return false;
  if (t.empty() || t.size() > 3) return false;
  bits = 0;
  for (char ch : t) {
    if (ch < '0' || ch > '9') return false;
    bits = bits * 10 + unsigned(ch - '0');
  }
  return true;
}
bool is_fp8_family(std::string_view t) {
  return t.rfind("f8", 0) == 0 || t == "!pto.hif8" || t == "!pto.hif8x2";
}
bool float_like(std::string_view t) {
  return (t.size() > 1 && t[0] == 'f' && t[1] >= '0' && t[1] <= '9') || t == "bf16" ||
         t.rfind("!pto.hif8", 0) == 0 || t.rfind("!pto.f8", 0) == 0 || t.rfind("!pto.f4", 0) == 0;
}

// ---- pre_quant modes -----------------------------------------------------------------
// Destination families: the element types a mode writes.
enum class Dst : uint8_t { Any, F32, F16, BF16, I32, I16, I8, I4, FP8 };
struct QuantMode {
  const char* name;
  bool from_f32, from_i32;  // source element types the mode converts
  Dst dst;
};
// clang-format off
constexpr QuantMode kQuantModes[] = {
    {"no_convert", false, false, Dst::Any},
    {"f32_f16", true, false, Dst::F16},              {"f32_bf16", true, false, Dst::BF16},
    {"qf322hif8_pre_vec", true, false, Dst::FP8},    {"qf322hif8_pre_scalar", true, false, Dst::FP8},
    {"qf322hif8_pre_hybrid_vec", true, false, Dst::FP8}, {"qf322hif8_pre_hybrid_scalar", true, false, Dst::FP8},
    {"qf322fp8_pre_vec", true, false, Dst::FP8},     {"qf322fp8_pre_scalar", true, false, Dst::FP8},
    {"qf322f32_pre_vec", true, false, Dst::F32},     {"qf322f32_pre_scalar", true, false, Dst::F32},
    {"qf162b8_pre_vec", true, false, Dst::I8},       {"qf162b8_pre_scalar", true, false, Dst::I8},
    {"qf162s4_pre_vec", true, false, Dst::I4},       {"qf162s4_pre_scalar", true, false, Dst::I4},
    {"qf322b8_pre_vec", true, false, Dst::I8},       {"qf322b8_pre_scalar", true, false, Dst::I8},
    {"qf322s4_pre_vec", true, false, Dst::I4},       {"qf322s4_pre_scalar", true, false, Dst::I4},
    {"qf322f16_pre_vec", true, false, Dst::F16},     {"qf322f16_pre_scalar", true, false, Dst::F16},
    {"qf322bf16_pre_vec", true, false, Dst::BF16},   {"qf322bf16_pre_scalar", true, false, Dst::BF16},
    {"deqs32_int_vec", false, true, Dst::I32},       {"deqs32_int_scalar", false, true, Dst::I32},
    {"req8_vec", false, true, Dst::I8},              {"req8_scalar", false, true, Dst::I8},
    {"deqf16_vec", false, true, Dst::F16},           {"deqf16_scalar", false, true, Dst::F16},
    {"deqs16_vec", false, true, Dst::I16},           {"deqs16_scalar", false, true, Dst::I16},
    {"qf162s16_pre_vec", false, true, Dst::I16},     {"qf162s16_pre_scalar", false, true, Dst::I16},
    {"qs322bf16_pre_vec", false, true, Dst::BF16},   {"qs322bf16_pre_scalar", false, true, Dst::BF16},
    {"req4_vec", false, false, Dst::I4},             {"req4_scalar", false, false, Dst::I4},
};
// clang-format on

bool in_family(std::string_view t, Dst d) {
  char sign = 0;
  unsigned bits = 0;
  bool is_int = int_parts(t, sign, bits);
  switch (d) {
    case Dst::Any: return true;
    case Dst::F32: return t == "f32";
    case Dst::F16: return t == "f16";
    case Dst::BF16: return t == "bf16";
    case Dst::I32: return is_int && bits == 32;
    case Dst::I16: return is_int && bits == 16 && sign != 'u';
    case Dst::I8: return is_int && bits == 8;
    case Dst::I4: return is_int && bits == 4 && sign != 'u';
    case Dst::FP8: return is_fp8_family(t);
  }
  return false;
}

class AccStore {
 public:
  AccStore(Ctx& c, const Inst& in) : c_(c), in_(in), body_(c.body(in)) {}

  void run() {
    src_ = ptr_of(c_, c_.operand(in_, 0));
    dst_ = ptr_of(c_, c_.operand(in_, 1));
    duplicates();
    if (in_.op == Op::VpMteL0cUb) ub_form();
    unit_flag();
    pre_quant();
    pre_relu();
    layout();
  }

 private:
  Ctx& c_;
  const Inst& in_;
  std::string_view body_;
  PtrParts src_, dst_;

  void err(const std::string& msg) { c_.error(in_.loc, q(in_.op) + " op " + msg); }
  size_t at(std::string_view w) const { return find_word(body_, w); }
  bool clause(std::string_view w, std::string_view& inside) const {
    size_t p = at(w);
    return p != std::string_view::npos && paren_after(body_, p + w.size(), inside);
  }
  int count(std::string_view w) const {
    int n = 0;
    for (size_t p = find_word(body_, w); p != std::string_view::npos; p = find_word(body_, w, p + 1)) ++n;
    return n;
  }
  std::string type_of(std::string_view name) const {
    ValueId v = operand_named(c_.m, in_, name);
    return v == kNone ? std::string() : c_.type_text(v);
  }
  bool const_of(std::string_view name, int64_t& out) const {
    ValueId v = operand_named(c_.m, in_, name);
    return v != kNone && int_constant(c_.m, v, out);
  }
  static std::string quoted_type(const std::string& t) { return "'" + t + "'"; }

  void duplicates() {
    if (count("sat") + count("nosat") > 1) err("duplicate sat/nosat clause");
    if (in_.op != Op::VpMteL0cGm && at("atomic") != std::string_view::npos)
      err("atomic is only supported for mte_l0c_gm");
  }

  // mte_l0c_ub: L0C to UB, one destination (dst_mode(%sub_blockid)) or the
  // dual split_m / split_n forms, which take no transform clause.
  void ub_form() {
    if (src_.ok && dst_.ok && !(is_space(src_.space, "l0c", "acc") && is_space(dst_.space, "ub", "vec")))
      err("requires ACC source and UB destination");
    std::string_view mode;
    if (!clause("dst_mode", mode)) return;
    if (!mode.empty() && mode[0] == '%') {
      int64_t id = 0;
      if (const_of(mode, id) && (id < 0 || id > 1)) err("sub_blockid must be 0 or 1");
      return;
    }
    if (mode != "split_m" && mode != "split_n") {
      err("expected dst_mode(%sub_blockid), dst_mode(split_m), or dst_mode(split_n), got dst_mode(" +
          std::string(mode) + ")");
      return;
    }
    std::string_view ignored;
    bool nz2dn_stride = clause("nz2dn", ignored) || at("loop0_src_stride") != std::string_view::npos;
    bool nz2nz_split = clause("nz2nz", ignored) || at("split") != std::string_view::npos;
    if (at("pre_quant") != std::string_view::npos || at("pre_relu") != std::string_view::npos ||
        nz2dn_stride || nz2nz_split || at("loop3") != std::string_view::npos) {
      err("dual destination mode cannot be combined with pre_quant, pre_relu, clip, nz2dn, nz2nz, or loop3");
      return;
    }
    if (at("nz2dn") != std::string_view::npos || at("nz2nz") != std::string_view::npos)
      return err("dual destination mode requires normal or nz2nd layout");
    int64_t v = 0;
    ValueId m = c_.operand(in_, 2), n = c_.operand(in_, 3);
    if (mode == "split_m" && m != kNone && int_constant(c_.m, m, v) && v % 2 != 0)
      err("split-M dual destination requires m to be even, got m = " + std::to_string(v));
    if (mode == "split_n" && n != kNone && int_constant(c_.m, n, v) && v % 32 != 0)
      err("split-N dual destination requires n to be a multiple of 32, got n = " + std::to_string(v));
  }

  void unit_flag() {
    std::string_view f;
    if (clause("unit_flag", f) && f != "check_only" && f != "check_and_clear")
      err("unit_flag expects 'check_only' or 'check_and_clear', got '" + std::string(f) + "'");
  }

  void pre_quant() {
    std::string_view inside;
    if (!clause("pre_quant", inside)) return;
    std::vector<std::string_view> items = split_items(inside);
    std::string mode = clause_item(inside, "mode");
    const QuantMode* qm = nullptr;
    for (const QuantMode& k : kQuantModes)
      if (mode == k.name) qm = &k;
    if (!qm) return err("invalid pre_quant mode '" + mode + "'");
    if (mode == "no_convert") return;
    std::string payload = items.empty() || items[0][0] != '%' ? std::string() : type_of(items[0]);
    if (payload.empty()) return err("pre_quant requires payload and mode together");
    bool vec = mode.size() > 4 && mode.compare(mode.size() - 4, 4, "_vec") == 0;
    if (vec) {
      PtrParts p = ptr_of(c_, operand_named(c_.m, in_, items[0]));
      if (!p.ok || !is_space(p.space, "fb", "scaling"))
        return err("vector pre_quant mode requires scaling pointer payload, got " + payload);
      if (!float_scalar(p.elem))
        return err("vector pre_quant mode requires scaling pointer element type to be f16, bf16, or f32, got " +
                   p.elem);
    } else if (!float_scalar(payload)) {
      return err("scalar pre_quant mode requires f16/bf16/f32 payload, got " + payload);
    }
    if (!src_.ok || !dst_.ok) return;
    if (src_.elem != "f32" && src_.elem != "i32")
      return err("pre_quant requires source element type to be f32 or i32, got " + quoted_type(src_.elem));
    bool src_ok = src_.elem == "f32" ? qm->from_f32 : qm->from_i32;
    if (!src_ok || !in_family(dst_.elem, qm->dst))
      err("pre_quant mode " + mode + " is incompatible with source element type " + quoted_type(src_.elem) +
          " and destination element type " + quoted_type(dst_.elem));
  }

  void pre_relu() {
    std::string_view inside;
    if (!clause("pre_relu", inside)) return;
    std::vector<std::string_view> items = split_items(inside);
    std::string mode = clause_item(inside, "mode");
    std::string payload = !items.empty() && items[0][0] == '%' ? type_of(items[0]) : std::string();
    bool has_payload = !items.empty() && items[0][0] == '%';
    if (mode == "no_relu" || mode == "normal_relu") {
      if (has_payload) err("pre_relu mode " + mode + " does not accept a payload");
    } else if (mode == "scalar_relu") {
      if (!has_payload) err("scalar_relu requires payload");
      else if (!float_scalar(payload)) err("scalar_relu requires f16/bf16/f32 payload, got " + payload);
    } else if (mode == "vector_relu") {
      PtrParts p = has_payload ? ptr_of(c_, operand_named(c_.m, in_, items[0])) : PtrParts{};
      if (!has_payload) err("vector_relu requires payload");
      else if (!p.ok || !is_space(p.space, "fb", "scaling")) err("vector_relu requires scaling pointer payload");
      else if (!float_scalar(p.elem))
        err("vector_relu requires scaling pointer element type to be f16, bf16, or f32, got " + p.elem);
    } else if (mode == "pwl") {
      err("pwl is not supported for target_profile " + std::string(op_name(in_.op).substr(4)));
    } else {
      err("invalid pre_relu mode '" + mode + "'");
    }
    std::string clip = clause_item(inside, "clip");
    if (!clip.empty() && dst_.ok) check_clip(type_of(clip));
  }

  void check_clip(const std::string& clip) {
    if (clip.empty()) return;
    const std::string& d = dst_.elem;
    char ds = 0, cs = 0;
    unsigned db = 0, cb = 0;
    bool cint = int_parts(clip, cs, cb);
    if (d == "f16") {
      if (clip != "f16") err("clip for f16 destination requires f16 payload, got " + clip);
    } else if (int_parts(d, ds, db) && ds == 'u' && db == 8) {
      if (!(cint && cb == 16 && cs != 's')) err("clip for ui8 destination requires ui16/signless i16 payload, got " + clip);
    } else if (int_parts(d, ds, db) && ds != 'u' && (db == 4 || db == 8 || db == 16)) {
      if (!(cint && cs != 'u' && (cb == 4 || cb == 8 || cb == 16)))
        err("clip for signed 4/8/16-bit destination requires signed/signless i4/i8/i16 payload, got " + clip);
    } else {
      err("clip requires destination element type to be f16, ui8, or signed 4/8/16-bit integer, got " +
          quoted_type(d));
    }
  }

  // nz2nd / nz2dn(%loop0_src_stride) / nz2nz(%split), loop3 and unit_flag.
  void layout() {
    bool loop3 = at("loop3") != std::string_view::npos;
    std::string_view inside;
    if (at("nz2dn") != std::string_view::npos) {
      std::string stride;
      if (clause("nz2dn", inside) && !inside.empty()) stride = std::string(inside);
      else if (clause("loop0_src_stride", inside)) stride = std::string(inside);
      if (stride.empty()) return err("nz2dn requires loop0_src_stride");
      int64_t v = 0;
      std::string_view f;
      if (clause("unit_flag", f) && !(const_of(stride, v) && v == 1))
        err("unit_flag must be off when nz2dn loop0_src_stride is not 1");
    } else if (at("nz2nz") != std::string_view::npos) {
      if (loop3) err("loop3 requires nz2nd or nz2dn");
      if (dst_.ok && dst_.elem != "f32")
        err("nz2nz requires destination element type to be f32, got " + quoted_type(dst_.elem));
    } else if (at("nz2nd") == std::string_view::npos && loop3) {
      err("loop3 requires nz2nd or nz2dn");
    }
  }
};

void mad_rules(Ctx& c, const Inst& in) {
  PtrParts l = ptr_of(c, c.operand(in, 0)), r = ptr_of(c, c.operand(in, 1)),
           d = ptr_of(c, c.operand(in, 2));
  if (!l.ok || !r.ok || !d.ok) return;
  std::string_view body = c.body(in);
  std::string_view ignored;
  size_t tf = find_word(body, "tf32_mode");
  if (tf != std::string_view::npos && paren_after(body, tf + 9, ignored) &&
      !(l.elem == "f32" && r.elem == "f32" && d.elem == "f32"))
    c.error(in.loc, q(in.op) + " op requires tf32_mode only for f32 lhs/rhs/dst element types, got " + l.elem +
                        ", " + r.elem + ", " + d.elem);
  if ((l.elem == "!pto.hif8") != (r.elem == "!pto.hif8"))
    c.error(in.loc, q(in.op) + " op requires lhs/rhs to both use hif8 or both use non-hif8 element types, got " +
                        l.elem + " and " + r.elem);
  bool sat = find_word(body, "sat") != std::string_view::npos || find_word(body, "nosat") != std::string_view::npos;
  if (sat && !(float_like(l.elem) && float_like(r.elem) && float_like(d.elem)))
    c.error(in.loc, q(in.op) + " op requires sat/nosat only for floating lhs/rhs/dst element types");
}

void raw_fill_l1(Ctx& c, const Inst& in) {
  PtrParts d = ptr_of(c, c.operand(in, 0));
  if (d.ok && !is_space(d.space, "l1", "mat"))
    c.error(in.loc, "'pto.raw_fill_l1' op requires dst in the mat/l1 address space, got " + space_name(d.space));
  std::string bits = c.kv(in, "fill_word_bits");
  if (!bits.empty() && bits != "16" && bits != "32")
    c.error(in.loc, "'pto.raw_fill_l1' op fill_word_bits must be 16 or 32, got " + bits);
}

}  // namespace

void verify_vpto_dma_inst(Ctx& c, InstId id) {
  const Inst* in = c.inst(id);
  if (!in) return;
  switch (in->op) {
    case Op::VpMteL0cGm: case Op::VpMteL0cUb: case Op::VpMteL0cL1:
      AccStore(c, *in).run();
      break;
    case Op::VpMad: case Op::VpMadMx: case Op::MadAcc: case Op::MadBias: case Op::MadMxAcc: case Op::MadMxBias:
      mad_rules(c, *in);
      break;
    case Op::VpRawFillL1:
      raw_fill_l1(c, *in);
      break;
    default:
      break;
  }
}

}  // namespace verify_detail
}  // namespace ptoas
