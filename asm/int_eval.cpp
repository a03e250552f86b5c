// Integer scalar semantics shared by the interpreter and constant folding
// (int_eval.h).
#include "int_eval.h"

#include <algorithm>
#include <climits>

namespace ptoas {

int64_t wrap_int(DType d, int64_t v) {
  switch (d) {
    case DType::I1: return v & 1;
    case DType::I8: case DType::SI8: return int8_t(uint8_t(v));
    case DType::U8: return uint8_t(v);
    case DType::I16: case DType::SI16: return int16_t(uint16_t(v));
    case DType::U16: return uint16_t(v);
    case DType::I32: case DType::SI32: return int32_t(uint32_t(v));
    case DType::U32: return uint32_t(v);
    default: return v;
  }
}

unsigned int_width(DType d) {
  if (d == DType::I1) return 1;
  if (d == DType::Index) return 64;
  return dtype_bytes(d) * 8;
}

namespace {

uint64_t unsigned_view(DType d, int64_t v) {
  unsigned bits = int_width(d);
  return bits >= 64 ? uint64_t(v) : uint64_t(v) & ((uint64_t(1) << bits) - 1);
}

int64_t div_floor(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

IntFault eval_int_bin(Op op, DType d, int64_t a, int64_t b, int64_t& out) {
  switch (op) {
    case Op::AddI: out = wrap_int(d, int64_t(uint64_t(a) + uint64_t(b))); return IntFault::None;
    case Op::SubI: out = wrap_int(d, int64_t(uint64_t(a) - uint64_t(b))); return IntFault::None;
    case Op::MulI: out = wrap_int(d, int64_t(uint64_t(a) * uint64_t(b))); return IntFault::None;
    case Op::DivSI: case Op::RemSI: case Op::CeilDivSI: case Op::FloorDivSI:
      if (b == 0) return IntFault::DivByZero;
      if (a == INT64_MIN && b == -1) return IntFault::DivOverflow;
      if (op == Op::DivSI) out = wrap_int(d, a / b);
      else if (op == Op::RemSI) out = wrap_int(d, a % b);
      else if (op == Op::FloorDivSI) out = wrap_int(d, div_floor(a, b));
      else out = wrap_int(d, -div_floor(-a, b));
      return IntFault::None;
    case Op::DivUI: case Op::RemUI: {
      uint64_t x = unsigned_view(d, a), y = unsigned_view(d, b);
      if (y == 0) return IntFault::DivByZero;
      out = wrap_int(d, int64_t(op == Op::DivUI ? x / y : x % y));
      return IntFault::None;
    }
    case Op::MinSI: out = std::min(a, b); return IntFault::None;
    case Op::MaxSI: out = std::max(a, b); return IntFault::None;
    case Op::MinUI: out = unsigned_view(d, a) < unsigned_view(d, b) ? a : b; return IntFault::None;
    case Op::MaxUI: out = unsigned_view(d, a) > unsigned_view(d, b) ? a : b; return IntFault::None;
    case Op::AndI: out = a & b; return IntFault::None;
    case Op::OrI: out = a | b; return IntFault::None;
    case Op::XOrI: out = wrap_int(d, a ^ b); return IntFault::None;
    case Op::ShLI: case Op::ShRSI: case Op::ShRUI: {
      if (b < 0 || b >= int64_t(d == DType::Index ? 64 : dtype_bytes(d) * 8)) return IntFault::BadShift;
      if (op == Op::ShLI) out = wrap_int(d, int64_t(uint64_t(a) << b));
      else if (op == Op::ShRSI) out = a >> b;
      else out = wrap_int(d, int64_t(unsigned_view(d, a) >> b));
      return IntFault::None;
    }
    default: return IntFault::NotFoldable;
  }
}

bool eval_int_cmp(std::string_view p, DType d, int64_t x, int64_t y, bool& ok) {
  ok = true;
  uint64_t ux = unsigned_view(d, x), uy = unsigned_view(d, y);
  if (p == "eq") return x == y;
  if (p == "ne") return x != y;
  if (p == "slt") return x < y;
  if (p == "sle") return x <= y;
  if (p == "sgt") return x > y;
  if (p == "sge") return x >= y;
  if (p == "ult") return ux < uy;
  if (p == "ule") return ux <= uy;
  if (p == "ugt") return ux > uy;
  if (p == "uge") return ux >= uy;
  ok = false;
  return false;
}

int64_t eval_int_cast(Op op, DType s, DType d, int64_t v) {
  if (op == Op::ExtUI || op == Op::IndexCastUI) v = int64_t(unsigned_view(s, v));
  return wrap_int(d, v);
}

bool int_constant(const Module& m, ValueId v, int64_t& out) {
  if (v >= m.values.size() || m.values[v].def == kNone) return false;
  const Inst& in = m.insts[m.values[v].def];
  if (in.op != Op::Constant) return false;
  const Type& t = m.type_of(v);
  if (t.kind != TypeKind::Scalar || !(dtype_is_int(t.elem) || t.elem == DType::Index || t.elem == DType::I1))
    return false;
  const Attr* a = m.find_attr(in, "value");
  if (!a || (a->kind != AttrKind::Int && a->kind != AttrKind::Bool)) return false;
  out = wrap_int(t.elem, a->ival);
  return true;
}

}  // namespace ptoas
