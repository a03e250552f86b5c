// pto.load_scalar / pto.store_scalar: one element of global memory through a
// pointer and an element index (PTOAS 0.60's PTOOps.td: a GM pointer, an
// index, a value of the pointer's element type).
#include "verify.h"

namespace ptoas::verify_detail {

namespace {

// The pointer operand: a !pto.ptr to global memory; returns its element type.
bool check_pointer(Ctx& c, const Inst& in, unsigned k, DType& elem) {
  const Type* t = c.vtype(c.operand(in, k));
  if (!t || t->kind != TypeKind::Ptr) {
    c.error(in.loc, q(in.op) + " expects operand #" + std::to_string(k) + " to be a !pto.ptr, got " +
                        c.type_text(c.operand(in, k)));
    return false;
  }
  if (t->loc != Loc::None && t->loc != Loc::Gm) {
    c.error(in.loc, q(in.op) + " expects a global-memory pointer, got " + c.type_text(c.operand(in, k)));
    return false;
  }
  elem = t->elem;
  return true;
}

bool check_index(Ctx& c, const Inst& in, unsigned k) {
  const Type* t = c.vtype(c.operand(in, k));
  if (t && is_index_or_int(*t)) return true;
  c.error(in.loc, q(in.op) + " expects the element index (operand #" + std::to_string(k) +
                      ") to be an index or integer, got " + c.type_text(c.operand(in, k)));
  return false;
}

bool same_elem(Ctx& c, const Inst& in, ValueId v, DType elem, const char* what) {
  const Type* t = c.vtype(v);
  if (t && t->kind == TypeKind::Scalar && t->elem == elem) return true;
  c.error(in.loc, q(in.op) + " expects " + what + " to have the pointer's element type " +
                      std::string(dtype_name(elem)) + ", got " + c.type_text(v));
  return false;
}

}  // namespace

void verify_scalar_mem_inst(Ctx& c, InstId id) {
  const Inst* p = c.inst(id);
  if (!p || (p->op != Op::LoadScalar && p->op != Op::StoreScalar)) return;
  const Inst& in = *p;
  const bool load = in.op == Op::LoadScalar;
  const unsigned want = load ? 2 : 3;
  if (c.n_operands(in) != want || in.n_res != (load ? 1 : 0)) {
    c.error(in.loc, q(in.op) + (load ? " takes a pointer and an index (%p[%i]) and has one result"
                                     : " takes a value, a pointer and an index (%v, %p[%i]) and has no result"));
    return;
  }
  DType elem;
  const unsigned ptr = load ? 0 : 1;
  if (!check_pointer(c, in, ptr, elem) || !check_index(c, in, ptr + 1)) return;
  if (load) same_elem(c, in, c.result(in, 0), elem, "the result");
  else same_elem(c, in, c.operand(in, 0), elem, "the stored value");
}

}  // namespace ptoas::verify_detail
