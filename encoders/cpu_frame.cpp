// The CPU frame plan (cpu_frame.h).
#include "cpu_frame.h"

#include "int_eval.h"
#include "mem_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "tile_layout.h"
#include "tile_plan.h"

namespace ptoas::cg {

namespace {

// v rounded once to nearest even as f16 (bf: bf16) bits, as the
// interpreter's round_to does from the double; a NaN is the quiet one.
uint16_t half_bits(double v, bool bf) {
  const int mb = bf ? 7 : 10, eb = bf ? 8 : 5, bias = (1 << (eb - 1)) - 1;
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0, inf = uint16_t(((1 << eb) - 1) << mb);
  if (std::isnan(v)) return uint16_t(sign | inf | (1 << (mb - 1)));
  double a = std::fabs(v);
  if (std::isinf(a)) return uint16_t(sign | inf);
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);                              // a = f * 2^e, f in [0.5, 1)
  int q = std::max(e - 1 - mb, 1 - bias - mb);    // the quantum: mb bits below the leading one, or subnormal
  double r = std::nearbyint(std::ldexp(a, -q));  // ties to even
  if (r < double(1 << mb)) return uint16_t(sign | uint16_t(r));  // subnormal
  int E = q + mb;
  if (r >= double(2 << mb)) r /= 2, ++E;
  int biased = E + bias;
  if (biased >= (1 << eb) - 1) return uint16_t(sign | inf);
  return uint16_t(sign | (biased << mb) | (uint16_t(r) - (1 << mb)));
}

}  // namespace

bool constant_bits(const Module& m, const Inst& in, uint64_t& bits) {
  const Attr* a = m.find_attr(in, "value");
  const Type& rt = m.type_of(in.res);
  DType d = rt.elem;
  if (rt.kind != TypeKind::Scalar || !a) return false;
  bits = 0;
  if (dtype_is_float(d)) {
    bool half = d == DType::F16 || d == DType::BF16;
    if (d != DType::F32 && d != DType::F64 && !half) return false;
    std::string text(m.str(a->text));
    if (a->kind == AttrKind::Int && text.find("0x") != std::string::npos) {
      bits = d == DType::F64 ? uint64_t(a->ival) : half ? uint64_t(uint16_t(a->ival)) : uint64_t(uint32_t(a->ival));
      return true;
    }
    double v = a->kind == AttrKind::Int ? double(a->ival) : std::strtod(text.c_str(), nullptr);
    if (half) {
      bits = half_bits(v, d == DType::BF16);
      return true;
    }
    if (d == DType::F32) {
      float f = float(v);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      bits = b;
    } else {
      std::memcpy(&bits, &v, 8);
    }
    return true;
  }
  int64_t v = 0;
  if (a->kind == AttrKind::Bool) v = a->ival;
  else if (a->kind == AttrKind::Int) v = wrap_int(d, a->ival);
  else if (a->kind == AttrKind::Float) v = int64_t(a->fval);
  bits = uint64_t(v);
  return true;
}

unsigned slot_count(const Type& t) {
  switch (t.kind) {
    case TypeKind::Scalar: return 1;
    case TypeKind::Ptr: return 1;
    case TypeKind::TensorView:
    case TypeKind::PartitionView: return 1 + 2u * t.rank;
    case TypeKind::TileBuf: return 3;
    default: return 0;
  }
}

void unsupported(const Module& m, const Inst& in, Diag& diag, const Target& t, const Refusal& r) {
  std::string msg;
  if (!r.what.empty()) {
    msg = r.what + " is not supported on " + std::string(t.name);
  } else {
    // Named by the type that decides: the result's, else the destination's,
    // else the first operand's. A scalar or a tile by its element type; a
    // vector, view or anything else by its whole type (its element type
    // alone would say that e.g. i16 is unsupported when vectors are).
    ValueId v = kNone;
    if (in.n_res) v = in.res;
    else if (in.n_outs) v = m.operand(in, in.n_ins);
    else if (in.n_ins) v = m.operand(in, 0);
    std::string on = "with dtype none";
    if (v != kNone) {
      const Type& ty = m.type_of(v);
      if (ty.kind == TypeKind::Scalar || ty.kind == TypeKind::TileBuf)
        on = "with dtype " + std::string(ty.elem == DType::None ? "none" : dtype_name(ty.elem));
      else
        on = "on " + std::string(m.types.text(m.values[v].type));
    }
    msg = "op " + std::string(op_name(in.op)) + " " + on + " is not supported on " +
          std::string(t.name);
  }
  diag.error(in.loc, 0, msg + " [" + std::string(refusal_code_name(r.code)) + "]");
}

bool param_passing(const Module& m, InstId fn, const FramePlan& p, std::vector<ParamPass>& out,
                   std::string& why) {
  out.clear();
  const Region& body = m.region(m.inst(fn), 0);
  for (unsigned i = 0; i < body.arg_count; ++i) {
    ValueId v = m.region_arg(body, i);
    const Type& t = m.type_of(v);
    if (p.slots[v].first < 0) continue;
    uint32_t slot = uint32_t(p.slots[v].first);
    if (t.kind == TypeKind::Ptr) {
      out.push_back({slot, DType::I64, false});
    } else if (t.elem == DType::F16 || t.elem == DType::BF16) {
      out.push_back({slot, DType::U16, false});  // a uint16_t bit pattern (DESIGN §5)
    } else if (dtype_is_float(t.elem)) {
      if (t.elem != DType::F32 && t.elem != DType::F64) {
        why = "a " + std::string(dtype_name(t.elem)) + " scalar parameter";
        return false;
      }
      out.push_back({slot, t.elem, true});
    } else {
      out.push_back({slot, t.elem, false});
    }
  }
  out.push_back({p.block_idx_slot, DType::I64, false});
  out.push_back({p.block_num_slot, DType::I64, false});
  return true;
}

std::vector<std::pair<uint32_t, uint32_t>> slot_copies(const FramePlan& p, const std::vector<ValueId>& from,
                                                      const std::vector<ValueId>& to) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (size_t k = 0; k < std::min(from.size(), to.size()); ++k) {
    const Slot &a = p.slots[from[k]], &b = p.slots[to[k]];
    if (a.first < 0 || b.first < 0) continue;
    for (unsigned s = 0; s < std::min(a.count, b.count); ++s)
      out.emplace_back(uint32_t(a.first) + s, uint32_t(b.first) + s);
  }
  return out;
}

// The arena's part after the 7 memories' tiles: subview windows' copies.
constexpr size_t kWindowBucket = 7;

bool plan_frame(const Module& m, InstId fn, const Target& tg, FramePlan& p, Diag& diag) {
  const Inst& f = m.inst(fn);
  int errs = diag.error_count();
  p.slots.assign(m.values.size(), Slot{});
  p.alloc_offset.assign(m.insts.size(), kNone);
  p.nslots = 0;
  auto give = [&](ValueId v, const Inst& at) {
    const Type& t = m.type_of(v);
    unsigned n = slot_count(t);
    if (n == 0) {
      diag.error(at.loc, 0, "values of type " + std::string(m.types.text(m.values[v].type)) +
                                " are not supported on " + std::string(tg.name));
      n = 1;
    }
    p.slots[v] = Slot{int32_t(p.nslots), uint16_t(n)};
    p.nslots += n;
  };
  const Region& body = m.region(f, 0);
  for (unsigned i = 0; i < body.arg_count; ++i) {
    ValueId v = m.region_arg(body, i);
    const Type& t = m.type_of(v);
    if (t.kind != TypeKind::Ptr && t.kind != TypeKind::Scalar) {
      diag.error(f.loc, 0, "parameter %" + std::string(m.str(m.values[v].name)) + " of type " +
                               std::string(m.types.text(m.values[v].type)) +
                               " cannot be passed to a CPU kernel (only !pto.ptr and scalars)");
      continue;
    }
    give(v, f);
  }
  p.block_idx_slot = p.nslots++;
  p.block_num_slot = p.nslots++;
  unsigned max_temp = 1;
  size_t bump[8] = {}, top[8] = {};
  bool planned = m.opt_level >= 1;
  opt::TilePlan tp;
  if (planned) tp = opt::plan_tiles(m, fn, true);
  walk_region(m, body, [&](InstId id, const Inst& in) {
    for (unsigned r = 0; r < in.n_res; ++r) give(in.res + r, in);
    for (unsigned k = 0; k < in.n_regions; ++k) {
      const Region& rg = m.region(in, k);
      for (unsigned a = 0; a < rg.arg_count; ++a) {
        ValueId v = m.region_arg(rg, a);
        TypeKind tk = m.type_of(v).kind;
        if (tk != TypeKind::Scalar && tk != TypeKind::Ptr && tk != TypeKind::TileBuf)
          unsupported(m, in, diag, tg,
                      {RefusalCode::Type, "a region argument of type " + std::string(m.types.text(m.values[v].type))});
        give(v, in);
      }
    }
    // Scratch for slot_copies, which only control flow does: every slot a
    // terminator's operands or a region op's operands and results hold.
    unsigned need = 0;
    if (in.op != Op::Func)  // a nested function (refused later): its n_outs count result types
      for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k) need += slot_count(m.type_of(m.operand(in, k)));
    for (unsigned r = 0; r < in.n_res; ++r) need += slot_count(m.type_of(in.res + r));
    if (in.op == Op::Yield || in.op == Op::Condition || in.n_regions) max_temp = std::max(max_temp, need);
    if (WindowPlan wp; subview_window(m, in, wp)) {
      // A window that is not whole rows: storage of its own after every
      // memory's tiles (lowering.h), and two temporaries to keep its
      // valid extents while the whole window is copied.
      size_t off = (top[kWindowBucket] + 63) & ~size_t(63);
      p.alloc_offset[id] = uint32_t(std::min<size_t>(off, kMaxTileArenaBytes));
      top[kWindowBucket] = off + tile_storage_bytes(m.type_of(in.res));
      max_temp = std::max(max_temp, 2u);
      return;
    }
    if (in.op != Op::AllocTile) return;
    const Type& t = m.type_of(in.res);
    size_t loc = size_t(t.loc);
    if (loc >= 7 || t.rows <= 0 || t.cols <= 0) {
      unsupported(m, in, diag, tg, {RefusalCode::Shape, "this tile type"});
      return;
    }
    size_t bytes = tile_storage_bytes(t);
    size_t cap = tile_memory_bytes(m.arch, t.loc);
    if (in.flags & kInstHasAddr) {
      int64_t addr;
      if (!int_constant(m, m.operand(in, 0), addr) || addr < 0) {
        unsupported(m, in, diag, tg, {RefusalCode::Operands, "a tile address that is not a non-negative constant"});
        return;
      }
      if (size_t(addr) + bytes > cap) {
        diag.error(in.loc, 0, "tile at addr " + std::to_string(addr) + " (" + std::to_string(bytes) +
                                  " bytes) does not fit the " + std::string(loc_name(t.loc)) +
                                  " memory of " + std::to_string(cap) + " bytes");
        return;
      }
      p.alloc_offset[id] = uint32_t(addr);
      top[loc] = std::max(top[loc], size_t(addr) + bytes);
      return;
    }
    size_t off = planned && tp.offset[id] != kNone ? size_t(tp.offset[id]) : (bump[loc] + 63) & ~size_t(63);
    if (off + bytes > cap) {
      diag.error(in.loc, 0, "tile memory overflow: the " + std::string(loc_name(t.loc)) +
                                " tiles need " + std::to_string(off + bytes) + " bytes, the " +
                                (m.arch == Arch::A5 ? "a5 " : "a3 ") + std::string(loc_name(t.loc)) +
                                " memory holds " + std::to_string(cap));
      return;
    }
    p.alloc_offset[id] = uint32_t(off);
    bump[loc] = std::max(bump[loc], off + bytes);
    top[loc] = std::max(top[loc], off + bytes);
  });
  // Lay the locations out one after the other; rebase the slot offsets.
  size_t base[8] = {}, total = 0;
  for (size_t l = 0; l < 8; ++l) {
    base[l] = total;
    total += (top[l] + 63) & ~size_t(63);
  }
  if (total > kMaxTileArenaBytes) {
    diag.error(f.loc, 0, "the tiles of @" + std::string(m.attr_word(f, "sym_name")) + " need " +
                             std::to_string(total) + " bytes; the " + std::string(tg.name) +
                             " backend keeps tiles on the stack and allows at most " +
                             std::to_string(kMaxTileArenaBytes) + " [" + std::string(refusal_code_name(RefusalCode::Limit)) + "]");
  }
  p.arena_bytes = uint32_t(std::min(total, kMaxTileArenaBytes));
  p.zero_ranges.clear();
  if (!planned && p.arena_bytes) p.zero_ranges.emplace_back(0, p.arena_bytes);
  walk_region(m, body, [&](InstId id, const Inst& in) {
    if (in.op == Op::Subview && p.alloc_offset[id] != kNone) p.alloc_offset[id] += uint32_t(base[kWindowBucket]);
    if (in.op != Op::AllocTile || p.alloc_offset[id] == kNone) return;
    p.alloc_offset[id] += uint32_t(base[size_t(m.type_of(in.res).loc)]);
    if (!planned || !(tp.needs_zero[id] || (in.flags & kInstHasAddr))) return;
    uint32_t lo = p.alloc_offset[id] & ~7u;
    uint64_t hi = (uint64_t(p.alloc_offset[id]) + tile_storage_bytes(m.type_of(in.res)) + 7) & ~uint64_t(7);
    hi = std::min<uint64_t>(hi, p.arena_bytes);
    if (lo < hi) p.zero_ranges.emplace_back(lo, uint32_t(hi));
  });
  std::sort(p.zero_ranges.begin(), p.zero_ranges.end());
  std::vector<std::pair<uint32_t, uint32_t>> merged;
  for (auto r : p.zero_ranges) {
    if (!merged.empty() && r.first <= merged.back().second) merged.back().second = std::max(merged.back().second, r.second);
    else merged.push_back(r);
  }
  p.zero_ranges = std::move(merged);
  p.temp_first = p.nslots;
  p.temp_count = max_temp;
  p.nslots += max_temp;
  return diag.error_count() == errs;
}

}  // namespace ptoas::cg
