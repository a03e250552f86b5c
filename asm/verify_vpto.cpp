// Rules of the two layers below tile ops: the VPTO micro-instructions
// (Sem::Vpto) and the VMI ops (Sem::Vmi). Both are bound as opaque ops
// (their text is kept); their operands and results carry real types, which
// are read back from their text (vpto_types.h). The rules are those of the
// official verifiers that the 0.60 reject files exercise, stated on types:
// register sizes, lane counts and element types that must agree, and the
// few enumerated attributes with a closed set of values.
#include <string>

#include "verify.h"
#include "vpto_types.h"

namespace ptoas {
namespace verify_detail {

namespace {

bool is_low_precision(std::string_view e) {
  return e.substr(0, 2) == "f8" || e == "!pto.hif8" || e == "!pto.f8E8M0" ||
         e.substr(0, 7) == "!pto.f4";
}
bool is_float_elem(std::string_view e) {
  return e.substr(0, 1) == "f" || e == "bf16" || e == "!pto.bf16x2" || is_low_precision(e);
}
bool is_int_elem(std::string_view e) {
  return e.substr(0, 1) == "i" || e.substr(0, 2) == "ui" || e.substr(0, 2) == "si";
}

// The first `key = N` integer inside a VMI layout, or `dflt`.
int64_t layout_int(std::string_view text, std::string_view key, int64_t dflt) {
  size_t at = text.find("#pto.vmi.layout<");
  if (at == std::string_view::npos) return dflt;
  size_t k = text.find(key, at);
  if (k == std::string_view::npos) return dflt;
  size_t i = k + key.size();
  while (i < text.size() && (text[i] == ' ' || text[i] == '=')) ++i;
  bool neg = i < text.size() && text[i] == '-';
  if (neg) ++i;
  int64_t v = 0;
  bool any = false;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') v = v * 10 + (text[i++] - '0'), any = true;
  return any ? (neg ? -v : v) : dflt;
}

class VptoChecker {
 public:
  VptoChecker(Ctx& c, const Inst& in) : c_(c), in_(in), name_(op_name(in.op)) {}

  // Every value of a VPTO/VMI type defined by `in` (results; a function's
  // parameters) is well formed.
  void check_defined_types() {
    for (unsigned i = 0; i < in_.n_res; ++i) check_type(c_.result(in_, i));
    if (in_.op == Op::Func && in_.n_regions > 0)
      if (const Region* r = c_.region(in_, 0))
        for (ValueId v : c_.region_args(*r)) check_type(v);
  }

  void check_op() {
    collect();
    const Sem sem = op_info(in_.op).sem;
    if (sem == Sem::Vmi) vmi_rules();
    if (sem == Sem::Vpto) vpto_rules();
  }

 private:
  Ctx& c_;
  const Inst& in_;
  std::string_view name_;
  std::vector<ValueId> ops_, res_;

  void err(const std::string& msg) { c_.error(in_.loc, "'" + std::string(name_) + "' op " + msg); }
  VType vt(ValueId v) const { return v == kNone ? VType{} : parse_vtype(c_.m.types.text(c_.vtype_id(v))); }
  std::string text(ValueId v) const { return c_.type_text(v); }

  void collect() {
    for (unsigned i = 0; i < c_.n_operands(in_); ++i) ops_.push_back(c_.operand(in_, i));
    for (unsigned i = 0; i < in_.n_res; ++i) res_.push_back(c_.result(in_, i));
  }

  void check_type(ValueId v) {
    if (v == kNone) return;
    std::string t = text(v);
    VType x = parse_vtype(t);
    uint32_t at = c_.m.values[v].loc;
    switch (x.kind) {
      case VKind::VReg:
        if (x.lanes <= 0) c_.error(at, "'" + t + "' expected a positive element count");
        else if (x.elem_bits && x.lanes * x.elem_bits != 2048)
          c_.error(at, "'" + t + "' is not a 256-byte vector register: " + std::to_string(x.lanes) +
                           " x " + std::to_string(x.elem_bits) + " bits");
        break;
      case VKind::Mask:
        if (x.elem != "b8" && x.elem != "b16" && x.elem != "b32")
          c_.error(at, "'" + t + "' mask granularity must be b8, b16 or b32");
        break;
      case VKind::VmiVReg:
        if (x.lanes <= 0) c_.error(at, "'" + t + "' expected a positive element count");
        check_layout(at, t);
        break;
      case VKind::VmiMask:
        if (x.lanes <= 0) c_.error(at, "'" + t + "' expected a positive element count");
        else if (x.elem == "pred" && t.find("#pto.vmi.layout") != std::string::npos)
          c_.error(at, "'" + t + "': a pred mask must not carry layout");
        else if (x.elem != "pred" && x.elem != "b8" && x.elem != "b16" && x.elem != "b32")
          c_.error(at, "'" + t + "' mask element must be pred, b8, b16 or b32");
        check_layout(at, t);
        break;
      default:
        break;
    }
  }

  void check_layout(uint32_t at, const std::string& t) {
    if (layout_int(t, "slots", 1) <= 0)
      c_.error(at, "'" + t + "': the layout requires slots to be omitted or positive");
    if (layout_int(t, "num_groups", 1) <= 0)
      c_.error(at, "'" + t + "': the layout requires num_groups to be positive");
    if (layout_int(t, "deinterleaved", 2) <= 0)
      c_.error(at, "'" + t + "': the layout requires deinterleaved to be positive");
  }

  // VMI data values (vregs) among operands and results.
  std::vector<VType> vmi_data() const {
    std::vector<VType> out;
    for (ValueId v : ops_) if (VType x = vt(v); x.kind == VKind::VmiVReg) out.push_back(x);
    for (ValueId v : res_) if (VType x = vt(v); x.kind == VKind::VmiVReg) out.push_back(x);
    return out;
  }
  VType first_of(const std::vector<ValueId>& vs, VKind k) const {
    for (ValueId v : vs) if (VType x = vt(v); x.kind == k) return x;
    return {};
  }

  void same_lanes_and_elem(bool elem_too) {
    std::vector<VType> d = vmi_data();
    for (size_t i = 1; i < d.size(); ++i) {
      if (d[i].lanes != d[0].lanes) return err("requires all VMI data values to have the same logical lane count");
      if (elem_too && d[i].elem != d[0].elem) return err("requires all VMI data values to have the same element type");
    }
  }

  void one_of(std::string_view key, std::initializer_list<std::string_view> ok, const std::string& msg) {
    std::string v = c_.kv(in_, key);
    if (v.empty()) return;
    for (std::string_view o : ok) if (v == o) return;
    err(msg + ", got '" + v + "'");
  }

  void vmi_rules() {
    switch (in_.op) {
      // Elementwise: every vector agrees in lanes and element type.
      case Op::VmiVadd: case Op::VmiVsub: case Op::VmiVmul: case Op::VmiVmax: case Op::VmiVmin:
      case Op::VmiVabs: case Op::VmiVneg: case Op::VmiVexp: case Op::VmiVln: case Op::VmiVsqrt:
      case Op::VmiVrelu: case Op::VmiAddf: case Op::VmiSubf: case Op::VmiMulf: case Op::VmiNegf:
      case Op::VmiMuli: case Op::VmiVsel: case Op::VmiVintlv: case Op::VmiVdintlv: case Op::VmiCompress:
        same_lanes_and_elem(true);
        break;
      case Op::VmiVdiv: {
        same_lanes_and_elem(true);
        VType r = first_of(res_, VKind::VmiVReg);
        if (r.kind == VKind::VmiVReg && r.elem != "f16" && r.elem != "f32")
          err("requires f16 or f32 VMI element type");
        break;
      }
      case Op::VmiVshl: case Op::VmiVshr: case Op::VmiVshls: case Op::VmiVshrs: case Op::VmiShrui:
      case Op::VmiShrsi: case Op::VmiShli: {
        same_lanes_and_elem(false);
        for (const VType& x : vmi_data())
          if (!is_int_elem(x.elem)) return err("requires integer VMI element type");
        break;
      }
      case Op::VmiVcvt: case Op::VmiExtf: case Op::VmiTruncf: case Op::VmiExtsi: case Op::VmiExtui:
      case Op::VmiTrunci: case Op::VmiFptosi: case Op::VmiFptoui: case Op::VmiSitofp:
        conversion();
        break;
      case Op::VmiVinterpretCast: case Op::VmiBitcast: {
        VType s = first_of(ops_, VKind::VmiVReg), r = first_of(res_, VKind::VmiVReg);
        if (s.kind == VKind::VmiVReg && r.kind == VKind::VmiVReg && s.elem_bits && r.elem_bits &&
            s.lanes * s.elem_bits != r.lanes * r.elem_bits)
          err("requires source and result to carry the same total number of bits");
        break;
      }
      case Op::VmiVbrc: case Op::VmiBroadcast: {
        VType r = first_of(res_, VKind::VmiVReg);
        if (ops_.empty() || r.kind != VKind::VmiVReg) break;
        const Type* t = c_.vtype(ops_[0]);
        std::string_view se;
        std::string st;
        if (t && t->kind == TypeKind::Scalar) se = st = std::string(dtype_name(t->elem));
        else if (VType s = vt(ops_[0]); s.kind == VKind::VmiVReg) se = st = std::string(s.elem);
        if (!se.empty() && (velem_bits(se) != r.elem_bits || is_float_elem(se) != is_float_elem(r.elem)))
          err("requires scalar or VMI vector input element type to match result element type");
        break;
      }
      case Op::VmiVci: {
        VType r = first_of(res_, VKind::VmiVReg);
        if (r.kind == VKind::VmiVReg && r.elem_bits != 8 && r.elem_bits != 16 && r.elem_bits != 32)
          err("'" + text(res_[0]) + "' expected an 8-bit, 16-bit, or 32-bit logical element type");
        one_of("order", {"ASC", "DESC"}, "requires order to be ASC or DESC");
        break;
      }
      case Op::VmiChannelSplit:
        if (res_.size() < 2) err("requires at least two channel results");
        break;
      case Op::VmiChannelMerge: {
        VType r = first_of(res_, VKind::VmiVReg);
        int64_t lanes = 0;
        bool same = true;
        std::string_view e;
        for (ValueId v : ops_) {
          VType x = vt(v);
          if (x.kind != VKind::VmiVReg) continue;
          lanes += x.lanes;
          if (e.empty()) e = x.elem;
          else same = same && e == x.elem;
        }
        if (r.kind == VKind::VmiVReg && lanes && (r.lanes != lanes || !same || r.elem != e))
          err("requires result lane count and element type to match merged channels");
        break;
      }
      case Op::VmiPack: case Op::VmiUnpack: {
        bool pack = in_.op == Op::VmiPack;
        const std::vector<ValueId>& logical = pack ? res_ : ops_;
        const std::vector<ValueId>& parts = pack ? ops_ : res_;
        if (logical.empty()) break;
        std::string t = text(logical[0]);
        if (vt(logical[0]).kind != VKind::VmiVReg && vt(logical[0]).kind != VKind::VmiMask) break;
        int64_t n = layout_int(t, "deinterleaved", 0);
        if (n > 0 && int64_t(parts.size()) != n)
          err("requires " + std::to_string(n) + " physical parts, got " + std::to_string(parts.size()));
        break;
      }
      default:
        break;
    }
    if (in_.op == Op::VmiVsel) {
      VType m = first_of(ops_, VKind::VmiMask), d = first_of(res_, VKind::VmiVReg);
      if (m.kind == VKind::VmiMask && d.kind == VKind::VmiVReg && m.elem != "pred" && d.elem_bits &&
          m.elem != "b" + std::to_string(d.elem_bits))
        err("requires mask granularity to match data element width");
    }
  }

  void conversion() {
    VType s = first_of(ops_, VKind::VmiVReg), r = first_of(res_, VKind::VmiVReg);
    if (s.kind == VKind::VmiVReg && r.kind == VKind::VmiVReg && s.lanes != r.lanes)
      err("requires source and result logical lane counts to match");
    std::string sat = c_.kv(in_, "saturate");
    if (!sat.empty() && sat != "SAT" && sat != "NOSAT")
      return err("saturate attr must be 'SAT' or 'NOSAT', got '" + sat + "'");
    if (s.kind != VKind::VmiVReg || r.kind != VKind::VmiVReg || !s.elem_bits || !r.elem_bits) return;
    bool sf = is_float_elem(s.elem), rf = is_float_elem(r.elem);
    bool narrowing = r.elem_bits < s.elem_bits || (sf && !rf);
    if (!sat.empty() && !narrowing)
      err("'saturate' attribute is only valid for fp-narrow / int-narrow conversions");
    if (sf && rf && r.elem_bits < s.elem_bits)
      one_of("rounding", {"R", "A", "H", "Z"},
             "rounding must be 'R' (nearest-even), 'A' (away-from-zero), 'H' (half-up), or 'Z' (toward-zero)");
  }

  // The string literals of the op's text, in order (`"A", "P0"`).
  std::vector<std::string> strings() const {
    std::vector<std::string> out;
    std::string_view b = c_.body(in_);
    for (size_t i = 0; i < b.size(); ++i) {
      if (b[i] == '{') break;  // the attribute dictionary has its own keys
      if (b[i] != '"') continue;
      size_t e = b.find('"', i + 1);
      if (e == std::string_view::npos) break;
      out.emplace_back(b.substr(i + 1, e - i - 1));
      i = e;
    }
    return out;
  }
  bool const_int(ValueId v, int64_t& out) const {
    const Inst* d = c_.def_of(v);
    if (!d || d->op != Op::Constant) return false;
    const Attr* a = c_.m.find_attr(*d, "value");
    if (!a || a->kind != AttrKind::Int) return false;
    out = a->ival;
    return true;
  }

  void vpto_rules() {
    switch (in_.op) {
      case Op::VpVadd: case Op::VpVsub: case Op::VpVmul: case Op::VpVdiv: case Op::VpVmax:
      case Op::VpVmin: case Op::VpVexp: case Op::VpVabs: case Op::VpVneg: case Op::VpVrelu:
      case Op::VpVmuls: case Op::VpVadds: case Op::VpVmaxs: case Op::VpVmins: case Op::VpVsel:
        for (size_t i = 0; i < ops_.size(); ++i)
          if (VType x = vt(ops_[i]); x.kind == VKind::VReg && is_low_precision(x.elem))
            return err("operand #" + std::to_string(i) + " type must not use low-precision vector element type (" +
                       std::string(x.elem) + ")");
        break;
      case Op::VpVgather2: {
        VType r = first_of(res_, VKind::VReg), m = first_of(ops_, VKind::Mask);
        if (r.kind == VKind::VReg && m.kind == VKind::Mask && r.elem_bits == 16 && m.elem != "b16")
          err("mask type must be !pto.mask<b16>");
        if (ops_.size() > 1 && r.elem_bits == 16)
          if (VType o = vt(ops_[1]); o.kind == VKind::VReg && o.elem != "ui16" && o.elem != "i16")
            err("requires ui16/i16 offset vector elements");
        break;
      }
      case Op::VpVscatter: {
        VType d = ops_.empty() ? VType{} : vt(ops_[0]);
        VType o = ops_.size() > 2 ? vt(ops_[2]) : VType{};
        if (d.kind == VKind::VReg && o.kind == VKind::VReg && d.elem_bits == 8 && o.elem_bits != 16)
          err("requires 16-bit offset vector elements for 8-bit values");
        break;
      }
      case Op::VpVlds: case Op::VpVsts: case Op::VpVsstb: {
        // Post-update forms return the advanced base: same pointer type.
        unsigned base = in_.op == Op::VpVlds ? 0 : 1;
        for (ValueId r : res_)
          if (vt(r).kind == VKind::Ptr && base < ops_.size() && text(r) != text(ops_[base]))
            err("requires updated base result to match base type (" + text(ops_[base]) + "), got " + text(r));
        break;
      }
      case Op::VpVmulscvt: {
        std::vector<std::string> s = strings();
        if (s.size() >= 1 && s[0] != "A") err("currently only supports rnd A, got '" + s[0] + "'");
        if (s.size() >= 2 && s[1] != "EVEN" && s[1] != "ODD") err("part must be EVEN or ODD, got '" + s[1] + "'");
        break;
      }
      case Op::VpVcvt: {
        VType s = first_of(ops_, VKind::VReg), r = first_of(res_, VKind::VReg);
        std::string part = c_.kv(in_, "part");
        // The 8-bit float and packed 4-bit forms select parts P0..P3 instead.
        bool low = is_low_precision(s.elem) || is_low_precision(r.elem);
        if (!part.empty() && !low && s.elem_bits && r.elem_bits && part != "EVEN" && part != "ODD") {
          unsigned lo = std::min(s.elem_bits, r.elem_bits), hi = std::max(s.elem_bits, r.elem_bits);
          if ((lo == 8 && hi == 16) || (lo == 16 && hi == 32))
            err("part must be EVEN or ODD for 8/16 and 16/32 vcvt forms, got '" + part + "'");
        }
        break;
      }
      case Op::VpMteL1L0a: case Op::VpMteL1L0b: {
        static const char* kWhat[] = {"start_row", "start_col"};
        for (unsigned k = 0; k < 2; ++k) {
          int64_t v = 0;
          if (ops_.size() > 4 + k && const_int(ops_[4 + k], v) && v < 0)
            err(std::string(kWhat[k]) + " must be non-negative, got " + std::to_string(v));
        }
        break;
      }
      default:
        break;
    }
  }
};

}  // namespace

void verify_vpto_inst(Ctx& c, InstId id) {
  const Inst* in = c.inst(id);
  if (!in) return;
  VptoChecker k(c, *in);
  k.check_defined_types();
  Sem sem = op_info(in->op).sem;
  if (sem == Sem::Vpto || sem == Sem::Vmi) k.check_op();
  verify_vpto_dma_inst(c, id);
  verify_simt_inst(c, id);
  verify_extract_inst(c, id);
}

}  // namespace verify_detail
}  // namespace ptoas
