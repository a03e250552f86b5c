// Tile storage aliasing (tile_alias.h).
#include "tile_alias.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "int_eval.h"
#include "ir_edit.h"
#include "tile_layout.h"

namespace ptoas::opt {

namespace {

bool tile_value(const Module& m, ValueId v) { return m.type_of(v).kind == TypeKind::TileBuf; }

// The operands of a region's terminator (scf.yield / scf.condition), or an
// empty list when it has none.
std::vector<ValueId> terminator_operands(const Module& m, const Region& r) {
  std::vector<ValueId> out;
  if (!r.inst_count) return out;
  const Inst& t = m.inst(m.region_inst(r, r.inst_count - 1));
  if (t.op != Op::Yield && t.op != Op::Condition) return out;
  for (unsigned i = 0; i < t.n_ins; ++i) out.push_back(m.operand(t, i));
  return out;
}

struct UnionFind {
  std::vector<uint32_t> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  uint32_t find(uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  }
  void unite(uint32_t a, uint32_t b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

}  // namespace

TileAliases::TileAliases(const Module& m, InstId fn) {
  cls_.assign(m.values.size(), kNone);
  const Inst& f = m.inst(fn);
  if (!f.n_regions) return;
  UnionFind uf(m.values.size());
  std::vector<ValueId> tiles;
  auto note = [&](ValueId v) {
    if (tile_value(m, v)) tiles.push_back(v);
  };
  auto unite = [&](ValueId a, ValueId b) {
    if (tile_value(m, a) && tile_value(m, b)) uf.unite(a, b);
  };
  auto unite_lists = [&](const std::vector<ValueId>& a, const std::vector<ValueId>& b, size_t from_a = 0) {
    for (size_t k = 0; k + from_a < a.size() && k < b.size(); ++k) unite(a[k + from_a], b[k]);
  };
  const Region& body = m.region(f, 0);
  for (unsigned i = 0; i < body.arg_count; ++i) note(m.region_arg(body, i));
  struct Addressed {
    InstId id;
    Loc loc;
    int64_t lo, hi;  // lo < 0: not a constant address
  };
  std::vector<Addressed> addressed;
  walk(m, f.region, [&](InstId id, RegionId) {
    const Inst& in = m.inst(id);
    for (unsigned r = 0; r < in.n_res; ++r) note(in.res + r);
    for (unsigned k = 0; k < in.n_regions; ++k) {
      const Region& rg = m.region(in, k);
      for (unsigned a = 0; a < rg.arg_count; ++a) note(m.region_arg(rg, a));
    }
    std::vector<ValueId> res;
    for (unsigned r = 0; r < in.n_res; ++r) res.push_back(in.res + r);
    switch (in.op) {
      case Op::AllocTile:
        if (in.flags & kInstHasAddr) {
          const Type& t = m.type_of(in.res);
          int64_t addr = -1;
          int_constant(m, m.operand(in, 0), addr);
          addressed.push_back({id, t.loc, addr, addr < 0 ? -1 : addr + int64_t(tile_storage_bytes(t))});
        }
        return;
      case Op::TReshape:
        if (in.n_ins >= 1 && in.n_outs == 1) unite(m.operand(in, 0), m.operand(in, in.n_ins));
        return;
      case Op::If:
        for (unsigned k = 0; k < in.n_regions; ++k) unite_lists(res, terminator_operands(m, m.region(in, k)));
        return;
      case Op::For: {
        const Region& b = m.region(in, 0);
        std::vector<ValueId> args;
        for (unsigned a = 1; a < b.arg_count; ++a) args.push_back(m.region_arg(b, a));
        std::vector<ValueId> inits;
        for (unsigned k = 3; k < in.n_ins; ++k) inits.push_back(m.operand(in, k));
        unite_lists(args, inits);
        unite_lists(args, terminator_operands(m, b));
        unite_lists(args, res);
        return;
      }
      case Op::While: {
        if (in.n_regions < 2) return;
        const Region &before = m.region(in, 0), &after = m.region(in, 1);
        std::vector<ValueId> bargs, aargs, inits;
        for (unsigned a = 0; a < before.arg_count; ++a) bargs.push_back(m.region_arg(before, a));
        for (unsigned a = 0; a < after.arg_count; ++a) aargs.push_back(m.region_arg(after, a));
        for (unsigned k = 0; k < in.n_ins; ++k) inits.push_back(m.operand(in, k));
        unite_lists(bargs, inits);
        unite_lists(bargs, terminator_operands(m, after));
        std::vector<ValueId> cond = terminator_operands(m, before);
        unite_lists(cond, res, 1);
        unite_lists(cond, aargs, 1);
        return;
      }
      default:
        // Anything else that makes a tile from tiles (pto.subset, calls,
        // opaque ops): its results may name any of its tile operands.
        if (in.op == Op::Func) return;
        for (ValueId r : res)
          for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k) unite(r, m.operand(in, k));
        return;
    }
  });
  // Tiles at explicit addresses: overlapping ranges (or an address that is
  // not a constant) share storage.
  for (size_t i = 0; i < addressed.size(); ++i)
    for (size_t j = i + 1; j < addressed.size(); ++j) {
      const Addressed &a = addressed[i], &b = addressed[j];
      if (a.loc != b.loc) continue;
      if (a.lo < 0 || b.lo < 0 || (a.lo < b.hi && b.lo < a.hi)) uf.unite(m.inst(a.id).res, m.inst(b.id).res);
    }
  std::sort(tiles.begin(), tiles.end());
  tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
  std::vector<uint32_t> id_of_root(m.values.size(), kNone), members;
  for (ValueId v : tiles) {
    uint32_t r = uf.find(v);
    if (id_of_root[r] == kNone) {
      id_of_root[r] = uint32_t(allocs_.size());
      allocs_.emplace_back();
      members.push_back(0);
    }
    cls_[v] = id_of_root[r];
    ++members[cls_[v]];
  }
  single_.assign(allocs_.size(), 0);
  for (ValueId v : tiles) {
    InstId d = m.values[v].def;
    if (d == kNone || m.inst(d).op != Op::AllocTile) continue;
    allocs_[cls_[v]].push_back(d);
    single_[cls_[v]] = members[cls_[v]] == 1;
  }
}

bool TileAliases::writes_alias(const Module& m, const Inst& in, ValueId v) const {
  if (op_info(in.op).syn != Syn::Dps) return false;
  for (unsigned i = 0; i < in.n_outs; ++i)
    if (may_alias(m.operand(in, in.n_ins + i), v)) return true;
  return false;
}

bool TileAliases::mentions_alias(const Module& m, const Inst& in, ValueId v) const {
  if (in.op == Op::Func) return false;
  for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i)
    if (may_alias(m.operand(in, i), v)) return true;
  return false;
}

// ---- bindings ----------------------------------------------------------------------

namespace {

InstId meet(InstId a, InstId b) { return a == b ? a : kNone; }

// One walk over the function in program order, with the binding of each
// tile value in `cur` and every change logged, so that the two arms of an
// scf.if and a loop's entry and end can be compared and merged. A loop body
// is walked once: every tile that a treshape inside it rebinds, and every
// region argument, starts unknown there, so what holds in that walk holds
// in every iteration.
struct BindWalk {
  const Module& m;
  std::vector<InstId>& out;
  std::vector<InstId> cur;
  std::vector<std::pair<ValueId, InstId>> log;  // (value, its binding before the change)

  BindWalk(const Module& mod, std::vector<InstId>& o) : m(mod), out(o), cur(mod.values.size(), kNone) {}

  void set(ValueId v, InstId b) {
    if (cur[v] == b) return;
    log.emplace_back(v, cur[v]);
    cur[v] = b;
  }
  // Undoes the changes since `mark`; returns each changed value with its
  // binding before the undo.
  std::unordered_map<ValueId, InstId> rollback(size_t mark) {
    std::unordered_map<ValueId, InstId> last;
    for (size_t i = log.size(); i-- > mark;) {
      auto [v, prev] = log[i];
      last.emplace(v, cur[v]);  // the first seen from the end is the final binding
      cur[v] = prev;
    }
    log.resize(mark);
    return last;
  }
  void record(const Inst& in) {
    for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) {
      ValueId v = m.operand(in, i);
      out[in.opnd + i] = tile_value(m, v) ? cur[v] : kNone;
    }
  }
  void kill_rebound(const Region& r) {
    for (unsigned a = 0; a < r.arg_count; ++a) set(m.region_arg(r, a), kNone);
    walk_region_tree(r, [&](const Inst& in) {
      if (in.op == Op::TReshape && in.n_outs == 1) set(m.operand(in, in.n_ins), kNone);
    });
  }
  template <class F>
  void walk_region_tree(const Region& r, F&& f) {
    for (unsigned i = 0; i < r.inst_count; ++i) {
      const Inst& in = m.inst(m.region_inst(r, i));
      f(in);
      for (unsigned k = 0; k < in.n_regions; ++k) walk_region_tree(m.region(in, k), f);
    }
  }
  // Walks r; the bindings of its terminator's operands.
  std::vector<InstId> region(const Region& r) {
    std::vector<InstId> term;
    for (unsigned i = 0; i < r.inst_count; ++i) {
      InstId id = m.region_inst(r, i);
      const Inst& in = m.inst(id);
      if ((in.op == Op::Yield || in.op == Op::Condition) && i + 1 == r.inst_count) {
        record(in);
        for (unsigned k = 0; k < in.n_ins; ++k) term.push_back(cur[m.operand(in, k)]);
        break;
      }
      inst(id, in);
    }
    return term;
  }
  void inst(InstId id, const Inst& in) {
    if (in.op == Op::Func) return;
    record(in);
    auto term_at = [](const std::vector<InstId>& t, size_t k) { return k < t.size() ? t[k] : kNone; };
    switch (in.op) {
      case Op::AllocTile:
        set(in.res, id);
        return;
      case Op::TReshape:
        if (in.n_ins >= 1 && in.n_outs == 1) set(m.operand(in, in.n_ins), cur[m.operand(in, 0)]);
        return;
      case Op::Fuse:
        for (unsigned k = 0; k < in.n_regions; ++k) region(m.region(in, k));
        return;
      case Op::If: {
        size_t mark = log.size();
        std::vector<InstId> y1 = region(m.region(in, 0));
        std::unordered_map<ValueId, InstId> a = rollback(mark);
        std::vector<InstId> y2;
        if (in.n_regions > 1) y2 = region(m.region(in, 1));
        std::unordered_map<ValueId, InstId> b = rollback(mark);
        std::vector<std::pair<ValueId, InstId>> merged;
        for (auto [v, x] : a) merged.emplace_back(v, meet(x, b.count(v) ? b[v] : cur[v]));
        for (auto [v, x] : b)
          if (!a.count(v)) merged.emplace_back(v, meet(x, cur[v]));
        std::sort(merged.begin(), merged.end());  // deterministic log order
        for (auto [v, x] : merged) set(v, x);
        for (unsigned r = 0; r < in.n_res; ++r) set(in.res + r, meet(term_at(y1, r), term_at(y2, r)));
        return;
      }
      case Op::For: {
        const Region& body = m.region(in, 0);
        size_t mark = log.size();
        kill_rebound(body);
        std::vector<InstId> y = region(body);
        std::unordered_map<ValueId, InstId> end = rollback(mark);
        std::vector<std::pair<ValueId, InstId>> merged(end.begin(), end.end());
        std::sort(merged.begin(), merged.end());
        for (auto [v, x] : merged) set(v, meet(cur[v], x));
        for (unsigned r = 0; r < in.n_res; ++r) {
          ValueId init = 3 + r < in.n_ins ? m.operand(in, 3 + r) : kNone;
          set(in.res + r, init == kNone ? kNone : meet(cur[init], term_at(y, r)));
        }
        return;
      }
      case Op::While: {
        if (in.n_regions < 2) return;
        const Region &before = m.region(in, 0), &after = m.region(in, 1);
        size_t mark = log.size();
        kill_rebound(before);
        kill_rebound(after);
        std::vector<InstId> c = region(before);
        size_t mid = log.size();
        for (unsigned a = 0; a < after.arg_count; ++a) set(m.region_arg(after, a), term_at(c, a + 1));
        region(after);
        rollback(mid);
        // The loop leaves from the end of its before region.
        std::unordered_map<ValueId, InstId> exit = rollback(mark);
        std::vector<std::pair<ValueId, InstId>> merged(exit.begin(), exit.end());
        std::sort(merged.begin(), merged.end());
        for (auto [v, x] : merged) set(v, x);
        for (unsigned r = 0; r < in.n_res; ++r) set(in.res + r, term_at(c, r + 1));
        return;
      }
      default:
        for (unsigned r = 0; r < in.n_res; ++r) set(in.res + r, kNone);
        return;
    }
  }
};

}  // namespace

TileBindings::TileBindings(const Module& m, InstId fn) {
  by_operand_.assign(m.operands.size(), kNone);
  const Inst& f = m.inst(fn);
  if (!f.n_regions) return;
  BindWalk w(m, by_operand_);
  w.region(m.region(f, 0));
}

}  // namespace ptoas::opt
