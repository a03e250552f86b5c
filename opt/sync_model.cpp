// The access model of NPU sync (sync_model.h).
#include "sync_model.h"

#include <algorithm>
#include <memory>

#include "int_eval.h"
#include "ir_edit.h"
#include "mem_plan.h"
#include "tile_alias.h"
#include "tile_layout.h"

namespace ptoas::opt {

namespace {

constexpr uint64_t kAll = ~uint64_t(0);

bool is_tile_type(const Type& t) { return t.kind == TypeKind::TileBuf; }

bool is_gm_type(const Type& t) {
  return t.kind == TypeKind::PartitionView || t.kind == TypeKind::TensorView || t.kind == TypeKind::Ptr ||
         (t.kind == TypeKind::Memref && (t.loc == Loc::Gm || t.loc == Loc::None));
}

}  // namespace

std::string_view space_name(uint8_t space) {
  static const char* const k[] = {"UB", "L1", "L0A", "L0B", "L0C", "BIAS", "FB", "GM"};
  return space < 8 ? k[space] : "?";
}

SyncModel::SyncModel(const Module& mod, InstId f) : m(mod), fn(f), arch(mod.arch) {
  size_t n = m.insts.size();
  ev_begin.assign(n, 0);
  ev_count.assign(n, 0);
  pre.assign(n, kNone);
  end.assign(n, 0);
  index.assign(n, kNone);
  home.assign(n, kNone);
  owner.assign(m.regions.size(), kNone);
  const Inst& fi = m.inst(fn);
  if (!fi.n_regions) return;
  // The CCE emitter's own plan (encoders/cce), so the ranges are its.
  PlanParams pp = npu_plan_params(m.arch);
  plan_offset_ = plan_tiles(m, fn, true, &pp).offset;
  TileAliases alias(m, fn);
  std::vector<InstId> order;
  // Pre-order numbering, homes and region owners.
  std::vector<std::pair<RegionId, InstId>> stack;
  owner[fi.region] = fn;
  walk(m, fi.region, [&](InstId id, RegionId r) {
    pre[id] = uint32_t(order.size());
    home[id] = r;
    order.push_back(id);
    const Inst& in = m.inst(id);
    for (unsigned k = 0; k < in.n_regions; ++k) owner[in.region + k] = id;
  });
  for (RegionId r : function_regions(m, fn)) {
    const Region& reg = m.regions[r];
    for (unsigned i = 0; i < reg.inst_count; ++i) index[m.region_inst(reg, i)] = i;
  }
  for (size_t i = order.size(); i-- > 0;) {
    const Inst& in = m.inst(order[i]);
    uint32_t e = uint32_t(i);
    for (unsigned k = 0; k < in.n_regions; ++k) {
      const Region& r = m.region(in, k);
      if (r.inst_count) e = std::max(e, end[m.region_inst(r, r.inst_count - 1)]);
    }
    end[order[i]] = e;
  }
  alias_ = &alias;
  for (InstId id : order) add_inst(id);
  alias_ = nullptr;
}

void SyncModel::tile_fp(ValueId v, bool write) {
  const Type& t = m.type_of(v);
  uint8_t space = uint8_t(t.loc);
  if (space >= kSpaceGm) return;
  uint32_t c = alias_->cls(v);
  if (c == kNone) {
    fps.push_back(Footprint{space, write, kNone, 0, kAll});
    return;
  }
  for (InstId a : alias_->allocs(c)) {
    const Inst& ai = m.inst(a);
    const Type& at = m.type_of(ai.res);
    uint64_t off = kAll;
    int64_t addr = 0;
    if (ai.flags & kInstHasAddr) {
      if (int_constant(m, m.operand(ai, 0), addr) && addr >= 0) off = uint64_t(addr);
    } else if (plan_offset_[a] != kNone) {
      off = plan_offset_[a];
    }
    if (off == kAll) fps.push_back(Footprint{uint8_t(at.loc), write, kNone, 0, kAll});
    else fps.push_back(Footprint{uint8_t(at.loc), write, kNone, off, off + std::max<uint64_t>(1, tile_storage_bytes(at))});
  }
}

// GM: the pointer a view is built on, and the bytes it covers when the
// offsets, sizes and strides are constants.
void SyncModel::gm_fp(ValueId v, bool write) {
  uint64_t lo = 0, hi = kAll;
  bool known = true;  // lo is still exact
  ValueId cur = v;
  for (int guard = 0; guard < 64; ++guard) {
    InstId d = m.values[cur].def;
    if (d == kNone) break;
    const Inst& in = m.inst(d);
    if (in.op == Op::PartitionView && in.n_ins >= 1) {
      ValueId tv = m.operand(in, 0);
      const Type& pt = m.type_of(m.result(in, 0));
      unsigned rank = pt.rank;
      InstId tvd = m.values[tv].def;
      bool ok = tvd != kNone && m.inst(tvd).op == Op::MakeTensorView && in.n_ins >= 1 + 2 * rank;
      unsigned eb = dtype_bytes(pt.elem);
      if (ok && eb) {
        const Inst& mk = m.inst(tvd);
        uint64_t first = 0, last = 0;
        for (unsigned k = 0; k < rank && ok; ++k) {
          int64_t off = 0, size = 0, stride = 0;
          ok = int_constant(m, m.operand(in, 1 + k), off) && int_constant(m, m.operand(in, 1 + rank + k), size) &&
               mk.n_ins >= 1 + 2 * rank && int_constant(m, m.operand(mk, 1 + rank + k), stride) && off >= 0 &&
               size > 0 && stride >= 0;
          first += uint64_t(off) * uint64_t(stride);
          last += uint64_t(off + size - 1) * uint64_t(stride);
        }
        if (ok) {
          lo = first * eb;
          hi = (last + 1) * eb;
        }
      }
      if (!ok) lo = 0, hi = kAll;
      cur = tv;
      continue;
    }
    if (in.op == Op::MakeTensorView && in.n_ins >= 1) {
      cur = m.operand(in, 0);
      continue;
    }
    if (in.op == Op::AddPtr && in.n_ins >= 2) {
      int64_t off = 0;
      unsigned eb = dtype_bytes(m.type_of(m.result(in, 0)).elem);
      if (known && hi != kAll && int_constant(m, m.operand(in, 1), off) && off >= 0 && eb) {
        lo += uint64_t(off) * eb;
        hi += uint64_t(off) * eb;
      } else {
        lo = 0, hi = kAll, known = false;
      }
      cur = m.operand(in, 0);
      continue;
    }
    // Any other view-making op (memref casts, subviews): the same root,
    // bytes unknown.
    if (in.n_ins >= 1 && is_gm_type(m.type_of(m.operand(in, 0)))) {
      lo = 0, hi = kAll, known = false;
      cur = m.operand(in, 0);
      continue;
    }
    break;
  }
  fps.push_back(Footprint{kSpaceGm, write, cur, lo, hi});
}

void SyncModel::add_inst(InstId id) {
  const Inst& in = m.inst(id);
  const OpInfo& info = op_info(in.op);
  if (info.sem == Sem::Sync) {
    SyncOp s;
    if (decode_sync(m, in, s) && s.kind != SyncOp::Kind::Barrier) has_manual_sync = true;
    return;
  }
  auto event = [&](Pipe p, auto&& fill) {
    uint32_t b = uint32_t(fps.size());
    fill();
    if (fps.size() == b) return;
    if (!ev_count[id]) ev_begin[id] = uint32_t(events.size());
    ++ev_count[id];
    events.push_back(SyncEvent{id, p, b, uint32_t(fps.size() - b)});
  };
  auto operand_fp = [&](ValueId v, bool write) {
    const Type& t = m.type_of(v);
    if (is_tile_type(t)) tile_fp(v, write);
    else if (is_gm_type(t)) gm_fp(v, write);
  };
  if (in.op == Op::TPut || in.op == Op::TGet) {
    // The library macro: an MTE2 read of the source, then an MTE3 write of
    // the destination (SYNC_NOTES #706). Operands: dst, src, ...
    if (in.n_ins >= 2) {
      event(Pipe::MTE2, [&] { operand_fp(m.operand(in, 1), false); });
      event(Pipe::MTE3, [&] { operand_fp(m.operand(in, 0), true); });
    }
    return;
  }
  if ((in.op == Op::LoadScalar && in.n_ins >= 1) || (in.op == Op::StoreScalar && in.n_ins >= 2)) {
    // One GM element on PIPE_S (the element index is not tracked: the whole
    // root's bytes from the pointer on), so a scalar read after a tstore
    // waits for MTE3 and a scalar write after a tload for MTE2.
    bool store = in.op == Op::StoreScalar;
    ValueId ptr = m.operand(in, store ? 1 : 0);
    if (is_gm_type(m.type_of(ptr))) event(Pipe::S, [&] { gm_fp(ptr, store); });
    return;
  }
  if (info.syn != Syn::Dps || in.op == Op::TReshape) return;
  Pipe p = op_pipe(m, in, arch);
  if (p == Pipe::All || p == Pipe::None) return;
  event(p, [&] {
    for (unsigned i = 0; i < in.n_ins; ++i) operand_fp(m.operand(in, i), false);
    for (unsigned i = 0; i < in.n_outs; ++i) operand_fp(m.operand(in, in.n_ins + i), true);
  });
}

// The first footprints of events a and b that conflict: overlapping bytes
// of one root, one of them a write (reads of L0C by two pipes conflict
// too: the official tool's rule); false when none do.
bool SyncModel::conflicting(uint32_t a, uint32_t b, const Footprint*& fa, const Footprint*& fb) const {
  const SyncEvent& ea = events[a];
  const SyncEvent& eb = events[b];
  for (uint32_t i = 0; i < ea.fp_count; ++i) {
    const Footprint& x = fps[ea.fp_begin + i];
    for (uint32_t j = 0; j < eb.fp_count; ++j) {
      const Footprint& y = fps[eb.fp_begin + j];
      if (x.space != y.space || x.root != y.root || x.hi <= y.lo || y.hi <= x.lo) continue;
      if (x.write || y.write || (x.space == uint8_t(Loc::Acc) && ea.pipe != eb.pipe)) {
        fa = &x;
        fb = &y;
        return true;
      }
    }
  }
  return false;
}

bool SyncModel::conflict(uint32_t a, uint32_t b) const {
  const Footprint *x, *y;
  return conflicting(a, b, x, y);
}

std::string SyncModel::describe(uint32_t producer, uint32_t consumer) const {
  const Footprint *px, *py;
  if (!conflicting(producer, consumer, px, py)) return "conflict";
  const Footprint& x = *px;
  const Footprint& y = *py;
  const char* kind = x.write ? (y.write ? "WAW" : "RAW") : (y.write ? "WAR" : "read/read");
  std::string where(space_name(x.space));
  if (x.space == kSpaceGm && x.root != kNone && m.values[x.root].name != kNone)
    where += " %" + std::string(m.str(m.values[x.root].name));
  uint64_t lo = std::max(x.lo, y.lo), hi = std::min(x.hi, y.hi);
  if (hi == kAll) where += " (address unknown)";
  else where += " bytes [" + std::to_string(lo) + ", " + std::to_string(hi) + ")";
  return std::string(kind) + " on " + where;
}

}  // namespace ptoas::opt
