// Verifier: operand and result types of the `arith` ops, as MLIR's arith
// dialect checks them (issue 18 item 11). Without these rules `arith.addi`
// on an f32 and a view, or `arith.cmpi` on two tiles, reached the backends,
// which then refused them with messages about something else.
//
//   integer ops (addi ... shrui)   operands and result of the one stated type,
//                                  an integer or index (or a vector of them)
//   float ops (addf ... negf)      the same with a float type
//   cmpi / cmpf                    two operands of one integer / float type, a
//                                  known predicate; the result is i1
//   select                         an i1 condition, both values of the result type
//   casts                          the source and destination classes and widths
//                                  of each cast (index_cast: index <-> integer,
//                                  extsi: integer -> wider integer, ...)
//
// Values whose type the front end does not know (results of opaque NPU ops,
// `!pto.unknown`) are not checked: nothing is known to be wrong with them.
#include <array>

#include "verify.h"

namespace ptoas {
namespace verify_detail {
namespace {

bool unknown(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  return !t || (t->kind == TypeKind::Other && c.m.types.text(c.vtype_id(v)) == "!pto.unknown");
}

// The element type of a scalar or a vector; None for anything else.
DType elem_of(const Type& t) {
  return t.kind == TypeKind::Scalar || t.kind == TypeKind::Vector ? t.elem : DType::None;
}

bool int_like(DType d) { return d == DType::Index || d == DType::I1 || dtype_is_int(d); }
bool plain_int(DType d) { return d == DType::I1 || dtype_is_int(d); }  // not index

unsigned bit_width(DType d) { return d == DType::I1 ? 1 : dtype_bytes(d) * 8; }

bool is_float_op(Op op) {
  switch (op) {
    case Op::AddF: case Op::SubF: case Op::MulF: case Op::DivF: case Op::MaximumF:
    case Op::MinimumF: case Op::NegF: case Op::CmpF:
      return true;
    default:
      return false;
  }
}

constexpr std::array<std::string_view, 10> kCmpIPredicates = {
    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
constexpr std::array<std::string_view, 16> kCmpFPredicates = {
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};

std::string ordinal(unsigned i) { return "operand #" + std::to_string(i); }

class ArithChecker {
 public:
  ArithChecker(Ctx& c, const Inst& in) : c_(c), in_(in) {}

  void run() {
    const OpInfo& info = op_info(in_.op);
    switch (info.syn) {
      case Syn::ArithBin: case Syn::ArithUn: elementwise(); break;
      case Syn::ArithCmp: compare(); break;
      case Syn::ArithSelect: select(); break;
      case Syn::ArithCast: cast(); break;
      default: break;
    }
  }

 private:
  Ctx& c_;
  const Inst& in_;

  std::string name() const { return q(in_.op); }
  bool same_shape(TypeId a, TypeId b) const {
    const Type& ta = c_.m.types.get(a);
    const Type& tb = c_.m.types.get(b);
    if (ta.rank != tb.rank) return false;
    for (unsigned i = 0; i < ta.rank; ++i)
      if (c_.m.types.dim(a, i) != c_.m.types.dim(b, i)) return false;
    return true;
  }
  void error(const std::string& msg) { c_.error(in_.loc, msg); }

  bool operands_known(unsigned n) const {
    if (c_.n_operands(in_) < n) return false;
    for (unsigned i = 0; i < n; ++i)
      if (unknown(c_, c_.operand(in_, i))) return false;
    return true;
  }

  // The class the op's type must be in, checked on `t` (the stated type).
  bool class_ok(const Type& t, const std::string& what_type) {
    DType e = elem_of(t);
    bool fl = is_float_op(in_.op);
    if (fl ? dtype_is_float(e) : int_like(e)) return true;
    error(name() + (fl ? " works on floats (f16, bf16, f32, f64), not "
                       : " works on integers or index, not ") + what_type);
    return false;
  }

  // Every operand of the op's one type, the result's type.
  void elementwise() {
    unsigned n = op_info(in_.op).syn == Syn::ArithUn ? 1 : 2;
    ValueId r = c_.result(in_, 0);
    if (r == kNone || unknown(c_, r) || !operands_known(n)) return;
    TypeId rt = c_.vtype_id(r);
    if (!class_ok(*c_.vtype(r), c_.type_text(r))) return;
    for (unsigned i = 0; i < n; ++i) {
      ValueId v = c_.operand(in_, i);
      if (c_.vtype_id(v) != rt)
        error(name() + " " + ordinal(i) + " has type " + c_.type_text(v) +
              ", but the op's type is " + c_.type_text(r) +
              " (operands and result must have one type)");
    }
  }

  void compare() {
    if (!operands_known(2)) return;
    ValueId a = c_.operand(in_, 0), b = c_.operand(in_, 1);
    if (!class_ok(*c_.vtype(a), c_.type_text(a))) return;
    if (c_.vtype_id(a) != c_.vtype_id(b))
      error(name() + " compares values of one type, got " + c_.type_text(a) + " and " +
            c_.type_text(b));
    std::string_view p = c_.attr_text(in_, "predicate");
    bool known = false;
    if (in_.op == Op::CmpI) {
      for (std::string_view k : kCmpIPredicates) known = known || k == p;
    } else {
      for (std::string_view k : kCmpFPredicates) known = known || k == p;
    }
    if (!known)
      error(name() + " has no predicate " + quoted(p) +
            (in_.op == Op::CmpI ? " (eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge)"
                                : " (false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, "
                                  "uge, ult, ule, une, uno, true)"));
  }

  void select() {
    ValueId r = c_.result(in_, 0);
    if (r == kNone || !operands_known(3)) return;
    ValueId cond = c_.operand(in_, 0);
    DType ce = elem_of(*c_.vtype(cond));
    if (ce != DType::I1)
      error(name() + " expects an i1 condition, got " + c_.type_text(cond));
    if (unknown(c_, r)) return;
    for (unsigned i = 1; i < 3; ++i) {
      ValueId v = c_.operand(in_, i);
      if (c_.vtype_id(v) != c_.vtype_id(r))
        error(name() + " " + ordinal(i) + " has type " + c_.type_text(v) +
              ", but the op's type is " + c_.type_text(r));
    }
  }

  void cast() {
    ValueId r = c_.result(in_, 0);
    if (r == kNone || unknown(c_, r) || !operands_known(1)) return;
    ValueId v = c_.operand(in_, 0);
    const Type& st = *c_.vtype(v);
    const Type& dt = *c_.vtype(r);
    if (st.kind != dt.kind || (st.kind != TypeKind::Scalar && st.kind != TypeKind::Vector)) {
      error(name() + " casts a scalar to a scalar (or a vector to a vector), not " +
            c_.type_text(v) + " to " + c_.type_text(r));
      return;
    }
    if (st.kind == TypeKind::Vector && !same_shape(c_.vtype_id(v), c_.vtype_id(r))) {
      error(name() + " keeps the vector shape, not " + c_.type_text(v) + " to " + c_.type_text(r));
      return;
    }
    DType s = st.elem, d = dt.elem;
    std::string from_to = c_.type_text(v) + " to " + c_.type_text(r);
    auto need = [&](bool ok, const char* rule) {
      if (!ok) error(name() + " casts " + rule + ", not " + from_to);
    };
    switch (in_.op) {
      case Op::IndexCast: case Op::IndexCastUI:
        need((s == DType::Index && plain_int(d)) || (plain_int(s) && d == DType::Index),
             "index to an integer or an integer to index");
        break;
      case Op::ExtSI: case Op::ExtUI:
        need(plain_int(s) && plain_int(d) && bit_width(d) > bit_width(s),
             "an integer to a wider integer");
        break;
      case Op::TruncI:
        need(plain_int(s) && plain_int(d) && bit_width(d) < bit_width(s),
             "an integer to a narrower integer");
        break;
      case Op::SIToFP: case Op::UIToFP:
        need(plain_int(s) && dtype_is_float(d), "an integer to a float");
        break;
      case Op::FPToSI: case Op::FPToUI:
        need(dtype_is_float(s) && plain_int(d), "a float to an integer");
        break;
      case Op::ExtF:
        need(dtype_is_float(s) && dtype_is_float(d) && bit_width(d) > bit_width(s),
             "a float to a wider float");
        break;
      case Op::TruncF:
        need(dtype_is_float(s) && dtype_is_float(d) && bit_width(d) < bit_width(s),
             "a float to a narrower float");
        break;
      case Op::Bitcast:
        need((plain_int(s) || dtype_is_float(s)) && (plain_int(d) || dtype_is_float(d)) &&
                 bit_width(s) == bit_width(d),
             "between integer and float types of one bit width");
        break;
      default:
        break;
    }
  }
};

}  // namespace

void verify_arith_inst(Ctx& c, InstId id) {
  const Inst* in = c.inst(id);
  if (!in || in->op >= Op::Count || op_info(in->op).sem != Sem::Scalar) return;
  ArithChecker(c, *in).run();
}

}  // namespace verify_detail
}  // namespace ptoas
