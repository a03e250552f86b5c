// IR rewriting helpers for the passes (ir_edit.h).
#include "ir_edit.h"

#include <string>

namespace ptoas::opt {

std::vector<InstId> function_defs(const Module& m) {
  std::vector<InstId> out;
  if (m.body == kNone) return out;
  for (InstId id : region_list(m, m.body)) {
    const Inst& in = m.insts[id];
    if (in.op != Op::Func || in.n_regions == 0) continue;
    // The passes read a region as one block in order; a function with
    // unstructured control flow (^blocks and cf branches) is left as written.
    bool blocks = false;
    walk(m, in.region, [&](InstId x, RegionId) { blocks |= m.insts[x].op == Op::Block; });
    if (!blocks) out.push_back(id);
  }
  return out;
}

std::vector<RegionId> function_regions(const Module& m, InstId fn) {
  std::vector<RegionId> out{m.insts[fn].region};
  walk(m, m.insts[fn].region, [&](InstId id, RegionId) {
    for (unsigned k = 0; k < m.insts[id].n_regions; ++k) out.push_back(m.insts[id].region + k);
  });
  return out;
}

void drop_listed(Module& m, const std::vector<RegionId>& regions, const std::vector<uint8_t>& drop) {
  for (RegionId r : regions) {
    std::vector<InstId> keep;
    for (InstId id : region_list(m, r))
      if (!drop[id]) keep.push_back(id);
    if (keep.size() != m.regions[r].inst_count) set_region_list(m, r, keep);
  }
}

bool has_explicit_addresses(const Module& m, InstId fn) {
  bool found = false;
  walk(m, m.insts[fn].region, [&](InstId id, RegionId) {
    const Inst& in = m.insts[id];
    if (in.op == Op::AllocTile && (in.flags & kInstHasAddr)) found = true;
  });
  return found;
}

std::vector<InstId> region_list(const Module& m, RegionId r) {
  const Region& reg = m.regions[r];
  return {m.region_insts.begin() + reg.inst_begin,
          m.region_insts.begin() + reg.inst_begin + reg.inst_count};
}

void set_region_list(Module& m, RegionId r, const std::vector<InstId>& ids) {
  Region& reg = m.regions[r];
  if (ids.size() <= reg.inst_count) {  // shrinking: reuse the range
    std::copy(ids.begin(), ids.end(), m.region_insts.begin() + reg.inst_begin);
  } else {
    reg.inst_begin = uint32_t(m.region_insts.size());
    m.region_insts.insert(m.region_insts.end(), ids.begin(), ids.end());
  }
  reg.inst_count = uint32_t(ids.size());
}

std::vector<uint32_t> use_counts(const Module& m) {
  std::vector<uint32_t> n(m.values.size(), 0);
  if (m.body == kNone) return n;
  walk(m, m.body, [&](InstId id, RegionId) {
    const Inst& in = m.insts[id];
    if (in.op == Op::Func) return;  // its operand range holds result types
    for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) {
      ValueId v = m.operands[in.opnd + i];
      if (v < n.size()) ++n[v];
    }
  });
  return n;
}

void Subst::rewrite(Module& m, InstId id) const {
  if (!any_) return;
  const Inst& in = m.insts[id];
  if (in.op == Op::Func) return;  // its operand range holds result types
  // An opaque statement prints its own text, which names its operands: it
  // keeps them (they stay in use, so nothing removes them).
  if (op_info(in.op).syn == Syn::Opaque) return;
  for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) {
    ValueId& v = m.operands[in.opnd + i];
    v = get(v);
  }
}

void Subst::finish(Module& m) const {
  if (!any_ || m.body == kNone) return;
  std::vector<InstId> listed;
  walk(m, m.body, [&](InstId id, RegionId) { listed.push_back(id); });
  for (InstId id : listed) rewrite(m, id);
}

bool is_pure(const Module& m, const Inst& in) {
  if (in.n_regions || in.n_res != 1) return false;
  const OpInfo& info = op_info(in.op);
  switch (in.op) {
    case Op::DivSI: case Op::DivUI: case Op::RemSI: case Op::RemUI: case Op::CeilDivSI:
    case Op::FloorDivSI: case Op::ShLI: case Op::ShRSI: case Op::ShRUI:
    case Op::FPToSI: case Op::FPToUI:
      return false;  // may fail at run time: removing them would hide the error
    default: break;
  }
  if (info.sem == Sem::Scalar) return info.syn != Syn::Opaque;
  switch (info.syn) {
    case Syn::MakeTensorView: case Syn::PartitionView: case Syn::GetDim: case Syn::AddPtr:
      return true;
    default:
      (void)m;
      return false;
  }
}

bool float_constant(const Module& m, ValueId v, double& out) {
  if (v >= m.values.size() || m.values[v].def == kNone) return false;
  const Inst& in = m.insts[m.values[v].def];
  if (in.op != Op::Constant) return false;
  const Type& t = m.type_of(v);
  if (t.kind != TypeKind::Scalar || !dtype_is_float(t.elem)) return false;
  const Attr* a = m.find_attr(in, "value");
  // Hex bit patterns and integer spellings are left alone: only a plain
  // decimal float literal is read back exactly by strtod.
  if (!a || a->kind != AttrKind::Float) return false;
  out = a->fval;
  return true;
}

void make_int_constant(Module& m, InstId id, int64_t value) {
  Inst& in = m.insts[id];
  DType d = m.type_of(in.res).elem;
  Attr a;
  if (d == DType::I1) {
    a.kind = AttrKind::Bool;
    a.ival = value & 1;
    a.text = m.strings.intern(a.ival ? "true" : "false");
  } else {
    a.kind = AttrKind::Int;
    a.ival = value;
    a.text = m.strings.intern(std::to_string(value));
  }
  NamedAttr na{m.strings.intern("value"), m.intern_attr(a)};
  in.attrs = uint32_t(m.attrs.size());
  m.attrs.push_back(na);
  in.n_attrs = 1;
  in.op = Op::Constant;
  in.n_ins = 0;
  in.n_outs = 0;
  in.flags = 0;
}

bool is_tile(const Module& m, ValueId v) {
  return v < m.values.size() && m.type_of(v).kind == TypeKind::TileBuf;
}

}  // namespace ptoas::opt

namespace ptoas::opt {

namespace {

// The dynamic valid extents of a tile allocation: (row, col) operand
// values, kNone where static. False when v is not a plain allocation.
bool valid_operands(const Module& m, ValueId v, ValueId& row, ValueId& col) {
  if (m.values[v].def == kNone) return false;
  const Inst& a = m.insts[m.values[v].def];
  if (a.op != Op::AllocTile) return false;
  unsigned i = (a.flags & kInstHasAddr) ? 1 : 0;
  row = col = kNone;
  if (a.flags & kInstHasValidRow) row = m.operand(a, i++);
  if (a.flags & kInstHasValidCol) col = m.operand(a, i++);
  return true;
}

bool reshaped(const Module& m, ValueId v) {
  bool hit = false;
  walk(m, m.body, [&](InstId id, RegionId) {
    const Inst& in = m.insts[id];
    if (in.op == Op::SetValidShape && in.n_ins + in.n_outs > 0 && m.operand(in, 0) == v) hit = true;
  });
  return hit;
}

}  // namespace

bool same_tile_shape(const Module& m, ValueId a, ValueId b) {
  if (m.values[a].type != m.values[b].type) return false;
  ValueId ra, ca, rb, cb;
  if (!valid_operands(m, a, ra, ca) || !valid_operands(m, b, rb, cb)) return false;
  if (ra != rb || ca != cb) return false;
  if (ra == kNone && ca == kNone) {
    const Type& t = m.type_of(a);
    if (t.vrow == kDyn || t.vcol == kDyn) return false;
  }
  return !reshaped(m, a) && !reshaped(m, b);
}

bool full_static_tile(const Module& m, ValueId t) {
  const Type& ty = m.type_of(t);
  ValueId r, c;
  if (ty.kind != TypeKind::TileBuf || !valid_operands(m, t, r, c)) return false;
  if (r != kNone || c != kNone) return false;
  return ty.vrow == ty.rows && ty.vcol == ty.cols && !reshaped(m, t);
}

}  // namespace ptoas::opt
