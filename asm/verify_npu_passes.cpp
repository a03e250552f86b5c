// The rules of the official tool's passes (not of its op verifiers), which
// it applies while it lowers a verified module: ptoas applies them when it
// generates code (verify_npu_pipeline, called by the driver after the front
// end when the output is not the IR itself).
//
//   lowering of frontend pipes   aic/aiv_initialize_pipe become
//                                initialize_l2l_pipe (A5) or
//                                initialize_l2g2l_pipe (A2/A3, or a
//                                gm_slot_tensor: GlobalTensor entries)
//   split inference              the inits of one logical pipe (peers that
//                                share a reserved buffer) agree on nosplit
//                                and on what their tpush/tpop users ask
//   reserved-buffer resolution   every pipe init fed by reserve_buffer /
//                                import_reserved_buffer has exactly one peer
//                                in another function, and the peer pairs of
//                                a function fit in its 16 hardware flag ids
//   inttoptr uses                a pointer made from an integer is only read
//                                or written through load/store_scalar
//   implicit tmp tiles           verify_implicit_tmp.cpp (level 3)
//   subview legalization         at level 3 a pto.subview becomes an
//                                address in its parent tile, which a tile
//                                passed in as a function argument has not
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "verify_npu.h"
#include "verify_tile_util.h"

namespace ptoas {
namespace verify_detail {
namespace {

constexpr int kMaxFlagIds = 16;

// One initialize_l2l_pipe / initialize_l2g2l_pipe, written or lowered from a
// frontend init.
struct PipeInit {
  InstId id = kNone;  // the op (or the frontend init it comes from)
  InstId func = kNone;
  bool l2l = true;
  int64_t dir = 0, slot_size = 0, slot_num = 0;
  std::optional<int64_t> local_slots, flag_base, frontend_id;
  std::optional<bool> nosplit;
  bool global_only = false;
  ValueId local = kNone, peer = kNone;
  std::vector<int64_t> splits;  // the split of every tpush/tpop/talloc/tfree on it
};

// (owner function, reserved buffer name, direction); global-only pipes key
// on their frontend id instead of a buffer.
using PeerKey = std::tuple<InstId, std::string, int64_t>;

enum class Usage { Unknown, SplitOnly, NoSplitOnly, Mixed };

Usage usage_of(const PipeInit& p) {
  bool ns = false, sp = false;
  for (int64_t s : p.splits) (s == 0 ? ns : sp) = true;
  return ns && sp ? Usage::Mixed : ns ? Usage::NoSplitOnly : sp ? Usage::SplitOnly : Usage::Unknown;
}

class PassRules {
 public:
  PassRules(Ctx& c, const NpuIndex& ix) : c_(c), ix_(ix) {}

  void run() {
    if (!lower_frontend_inits()) return;
    collect_explicit_inits();
    if (!pipes_.empty()) {
      order_pipes();
      if (!infer_split()) return;
      if (!resolve_reserved_buffers()) return;
    }
    check_inttoptr_uses();
    check_subviews();
  }

 private:
  Ctx& c_;
  const NpuIndex& ix_;
  std::vector<PipeInit> pipes_;

  const Inst& I(InstId id) const { return c_.m.insts[id]; }
  std::string name(const PipeInit& p) const {
    return p.l2l ? "'pto.initialize_l2l_pipe' op " : "'pto.initialize_l2g2l_pipe' op ";
  }
  void err(const PipeInit& p, const std::string& m) { c_.error(I(p.id).loc, name(p) + m); }

  int64_t attr_int(InstId id, std::string_view k, int64_t dflt) {
    int64_t v = dflt;
    kv_int(c_, I(id), k, v);
    return v;
  }

  // ---- frontend inits as the lowering rewrites them ----------------------------------
  bool lower_frontend_inits() {
    bool ok = true;
    std::set<InstId> aic_funcs, aiv_funcs;
    for (InstId id : ix_.order) {
      const Inst& in = I(id);
      if (in.op != Op::AicInitializePipe && in.op != Op::AivInitializePipe) continue;
      (in.op == Op::AicInitializePipe ? aic_funcs : aiv_funcs).insert(ix_.func[id]);
    }
    for (InstId f : aic_funcs)
      if (f != kNone && aiv_funcs.count(f)) {
        c_.error(I(f).loc, "'func.func' op cannot mix pto.aic_initialize_pipe and "
                           "pto.aiv_initialize_pipe in one function");
        ok = false;
      }
    // The data ops of each (function, pipe id): the lowering hands them the pipe.
    std::map<std::pair<InstId, int64_t>, std::vector<int64_t>> splits;
    for (Op op : {Op::TAllocToAiv, Op::TAllocToAic, Op::TPushToAiv, Op::TPushToAic, Op::TPopFromAic,
                  Op::TPopFromAiv, Op::TFreeFromAic, Op::TFreeFromAiv})
      for (InstId x : ix_.of(op))
        splits[{ix_.func[x], attr_int(x, "id", 0)}].push_back(attr_int(x, "split", 0));
    for (InstId id : ix_.order) {
      const Inst& in = I(id);
      if (in.op != Op::AicInitializePipe && in.op != Op::AivInitializePipe) continue;
      std::vector<std::string> roles = operand_roles(c_, in);
      PipeInit p;
      p.id = id;
      p.func = ix_.func[id];
      p.dir = attr_int(id, "dir_mask", 0);
      p.slot_size = attr_int(id, "slot_size", 0);
      p.slot_num = attr_int(id, "slot_num", p.dir == 3 ? 4 : 8);
      p.frontend_id = attr_int(id, "id", 0);
      bool ns = false;
      if (kv_bool(c_, in, "nosplit", ns)) p.nosplit = ns;
      ValueId gm_tensor = role_operand(c_, in, roles, "gm_slot_tensor");
      ValueId gm_buf = role_operand(c_, in, roles, "gm_slot_buffer");
      ValueId c2v = role_operand(c_, in, roles, "c2v_consumer_buf");
      ValueId v2c = role_operand(c_, in, roles, "v2c_consumer_buf");
      if (gm_tensor != kNone) {
        p.l2l = false;
        p.global_only = true;
      } else {
        p.local = p.dir == 2 ? v2c : c2v;
        if (p.dir == 3) p.peer = v2c;
        if (c_.arch == Arch::A5) {
          p.l2l = true;
        } else {
          p.l2l = false;
          int64_t ls = 0;
          p.local_slots = kv_int(c_, in, "local_slot_num", ls) ? ls : p.slot_num;
          if (gm_buf == kNone) {
            c_.error(in.loc, q(in.op) + " op requires 'gm_slot_buffer' when lowering to a2/a3");
            ok = false;
            continue;
          }
        }
        if (p.local == kNone) {
          c_.error(in.loc, q(in.op) + " op requires local consumer buffer operands for local FIFO "
                                      "pipe lowering");
          ok = false;
          continue;
        }
      }
      if (auto f = splits.find({p.func, *p.frontend_id}); f != splits.end()) p.splits = f->second;
      pipes_.push_back(std::move(p));
    }
    return ok;
  }

  void collect_explicit_inits() {
    for (InstId id : ix_.order) {
      const Inst& in = I(id);
      if (in.op != Op::InitializeL2LPipe && in.op != Op::InitializeL2G2LPipe) continue;
      PipeInit p;
      p.id = id;
      p.func = ix_.func[id];
      p.l2l = in.op == Op::InitializeL2LPipe;
      p.dir = attr_int(id, "dir_mask", 0);
      p.slot_size = attr_int(id, "slot_size", 0);
      p.slot_num = attr_int(id, "slot_num", 0);
      int64_t v = 0;
      if (kv_int(c_, in, "local_slot_num", v)) p.local_slots = v;
      if (kv_int(c_, in, "flag_base", v)) p.flag_base = v;
      if (kv_int(c_, in, "__pto.frontend_id", v)) p.frontend_id = v;
      bool ns = false;
      if (kv_bool(c_, in, "nosplit", ns)) p.nosplit = ns;
      // Operands: [gm_addr,] local_addr [, peer_local_addr].
      unsigned first = p.l2l ? 0 : 1, n = in.n_ins;
      p.local = n > first ? c_.operand(in, first) : kNone;
      p.peer = n > first + 1 ? c_.operand(in, first + 1) : kNone;
      p.global_only = !p.l2l && p.local == kNone;
      ValueId pipe = in.n_res ? c_.result(in, 0) : kNone;
      if (pipe != kNone && pipe < ix_.users.size())
        for (InstId u : ix_.users[pipe]) {
          Op op = I(u).op;
          if (op == Op::TPush || op == Op::TPop || op == Op::TAlloc || op == Op::TFree)
            p.splits.push_back(attr_int(u, "split", 0));
        }
      pipes_.push_back(std::move(p));
    }
  }

  // The passes walk initialize_l2l_pipe ops first, then initialize_l2g2l_pipe.
  void order_pipes() {
    std::unordered_map<InstId, size_t> at;
    for (size_t i = 0; i < ix_.order.size(); ++i) at[ix_.order[i]] = i;
    std::stable_sort(pipes_.begin(), pipes_.end(), [&](const PipeInit& a, const PipeInit& b) {
      return std::make_pair(!a.l2l, at[a.id]) < std::make_pair(!b.l2l, at[b.id]);
    });
  }

  std::optional<PeerKey> buffer_key(ValueId v, InstId func, int64_t dir) {
    const Inst* d = c_.def_of(v);
    if (!d) return std::nullopt;
    if (d->op == Op::ReserveBuffer) return PeerKey{func, c_.kv(*d, "name"), dir};
    if (d->op == Op::ImportReservedBuffer) {
      InstId owner = ix_.func_named(c_.kv(*d, "peer_func"));
      if (owner == kNone) return std::nullopt;
      return PeerKey{owner, c_.kv(*d, "name"), dir};
    }
    return std::nullopt;
  }

  // Keys of a pipe init; `recorded` tells whether any came from a buffer.
  std::vector<PeerKey> keys_of(const PipeInit& p, size_t index) {
    std::vector<PeerKey> keys;
    if (p.global_only) {
      std::string id = p.frontend_id ? std::to_string(*p.frontend_id) : "#" + std::to_string(index);
      keys.push_back({kNone, "id_" + id, p.dir});
      return keys;
    }
    auto add = [&](ValueId v, int64_t dir) {
      if (v == kNone) return;
      if (auto k = buffer_key(v, p.func, dir)) keys.push_back(*k);
    };
    if (p.dir == 3) {
      add(p.local, 1);
      add(p.peer, 2);
    } else {
      add(p.local, p.dir);
    }
    return keys;
  }

  // Connected components of the inits that share a key, each in discovery order.
  std::vector<std::vector<size_t>> components(const std::vector<std::vector<PeerKey>>& keys,
                                              const std::vector<bool>& member) {
    std::map<PeerKey, std::vector<size_t>> by_key;
    for (size_t i = 0; i < pipes_.size(); ++i)
      if (member[i])
        for (const PeerKey& k : keys[i]) {
          auto& v = by_key[k];
          if (std::find(v.begin(), v.end(), i) == v.end()) v.push_back(i);
        }
    std::vector<std::vector<size_t>> adj(pipes_.size());
    for (auto& [k, v] : by_key)
      for (size_t a = 0; a < v.size(); ++a)
        for (size_t b = a + 1; b < v.size(); ++b) {
          adj[v[a]].push_back(v[b]);
          adj[v[b]].push_back(v[a]);
        }
    std::vector<std::vector<size_t>> out;
    std::vector<bool> seen(pipes_.size(), false);
    for (size_t root = 0; root < pipes_.size(); ++root) {
      if (!member[root] || seen[root]) continue;
      seen[root] = true;
      std::vector<size_t> comp, stack{root};
      while (!stack.empty()) {
        size_t cur = stack.back();
        stack.pop_back();
        comp.push_back(cur);
        for (size_t n : adj[cur])
          if (!seen[n]) {
            seen[n] = true;
            stack.push_back(n);
          }
      }
      out.push_back(std::move(comp));
    }
    return out;
  }

  // ---- split inference ----------------------------------------------------------------
  bool infer_split() {
    std::vector<std::vector<PeerKey>> keys;
    for (size_t i = 0; i < pipes_.size(); ++i) keys.push_back(keys_of(pipes_[i], i));
    std::vector<bool> all(pipes_.size(), true);
    for (const std::vector<size_t>& comp : components(keys, all)) {
      std::optional<bool> expl, inferred;
      for (size_t i : comp) {
        const PipeInit& p = pipes_[i];
        if (usage_of(p) == Usage::Mixed)
          return err(p, "cannot mix 'split = 0' with 'split = 1' or 'split = 2' on the same logical pipe"),
                 false;
        if (!p.nosplit) continue;
        if (expl && *expl != *p.nosplit)
          return err(p, "conflicting explicit 'nosplit' across peer pipe init ops"), false;
        expl = p.nosplit;
      }
      for (size_t i : comp) {
        Usage u = usage_of(pipes_[i]);
        if (u != Usage::SplitOnly && u != Usage::NoSplitOnly) continue;
        bool ns = u == Usage::NoSplitOnly;
        if (inferred && *inferred != ns)
          return err(pipes_[i], "conflicting pipe split usage across peer pipe init ops"), false;
        inferred = ns;
      }
      if (!expl || !inferred || *expl == *inferred) continue;
      for (size_t i : comp) {
        const PipeInit& p = pipes_[i];
        if (!p.nosplit || *p.nosplit == *inferred) continue;
        return err(p, *p.nosplit ? "explicit 'nosplit = true' conflicts with downstream users that "
                                   "require split = 1 or split = 2"
                                 : "explicit 'nosplit = false' conflicts with downstream users "
                                   "that require split = 0"),
               false;
      }
    }
    return true;
  }

  // ---- reserved buffers and flag ids ---------------------------------------------------
  struct Component {
    std::vector<size_t> ops;
    std::set<InstId> funcs;
    unsigned width = 2;
    std::optional<int64_t> flag_base, frontend_id;
    size_t order = 0;
  };

  bool resolve_reserved_buffers() {
    std::vector<std::vector<PeerKey>> keys;
    std::vector<bool> member(pipes_.size(), false);
    for (size_t i = 0; i < pipes_.size(); ++i) {
      const PipeInit& p = pipes_[i];
      keys.push_back(keys_of(p, i));
      member[i] = !keys.back().empty();
      if (!member[i] && !p.flag_base)
        return err(p, "requires local_addr to come from pto.reserve_buffer or "
                      "pto.import_reserved_buffer when 'flag_base' is not explicit"),
               false;
    }
    std::vector<Component> comps;
    const char* pair_msg = "requires a complete compatible peer init pair when local_addr comes "
                           "from pto.reserve_buffer or pto.import_reserved_buffer";
    for (std::vector<size_t>& ops : components(keys, member)) {
      const PipeInit& root = pipes_[ops[0]];
      if (!root.global_only && ops.size() != 2) return err(root, pair_msg), false;
      for (size_t k = 1; k < ops.size(); ++k) {
        const PipeInit& o = pipes_[ops[k]];
        if (std::tie(root.dir, root.slot_size, root.slot_num, root.local_slots, root.global_only) !=
            std::tie(o.dir, o.slot_size, o.slot_num, o.local_slots, o.global_only))
          return err(root, "requires peer pipe init ops to agree on direction and pipe shape"), false;
      }
      Component comp;
      comp.order = comps.size();
      comp.width = root.dir == 3 ? 4 : 2;
      for (size_t i : ops) {
        const PipeInit& p = pipes_[i];
        comp.funcs.insert(p.func);
        if (p.flag_base) {
          if (comp.flag_base && *comp.flag_base != *p.flag_base)
            return err(p, "conflicting explicit flag_base across peer pipe inits"), false;
          comp.flag_base = p.flag_base;
        }
      }
      if (!root.global_only && comp.funcs.size() != 2) return err(root, pair_msg), false;
      // Peers may use different frontend ids (one per function): the
      // component sorts by the first.
      for (size_t i : ops)
        if (!comp.frontend_id) comp.frontend_id = pipes_[i].frontend_id;
      comp.ops = std::move(ops);
      comps.push_back(std::move(comp));
    }
    std::stable_sort(comps.begin(), comps.end(), [&](const Component& a, const Component& b) {
      auto key = [&](const Component& x) {
        if (x.frontend_id) return std::make_tuple(0, *x.frontend_id, pipes_[x.ops[0]].dir, x.order);
        return std::make_tuple(1, int64_t(0), int64_t(0), x.order);
      };
      return key(a) < key(b);
    });
    return assign_flags(comps);
  }

  bool assign_flags(const std::vector<Component>& comps) {
    std::map<InstId, std::vector<std::pair<int64_t, int64_t>>> used;  // per function: [begin, end)
    auto overlaps = [](std::pair<int64_t, int64_t> a, std::pair<int64_t, int64_t> b) {
      return a.first < b.second && b.first < a.second;
    };
    for (const Component& comp : comps) {
      const PipeInit& front = pipes_[comp.ops[0]];
      int64_t base = 0;
      if (comp.flag_base) {
        base = *comp.flag_base;
      } else {
        for (;;) {
          base += base % 2;
          std::pair<int64_t, int64_t> cand{base, base + comp.width};
          int64_t next = base + 2;
          bool conflict = false;
          for (InstId f : comp.funcs)
            for (auto& u : used[f])
              if (overlaps(cand, u)) {
                conflict = true;
                next = std::max(next, u.second + u.second % 2);
              }
          if (!conflict) break;
          base = next;
        }
      }
      std::pair<int64_t, int64_t> iv{base, base + comp.width};
      if (iv.second > kMaxFlagIds)
        return err(front, "requires all pipe components in a function to fit within " +
                              std::to_string(kMaxFlagIds) + " hardware flag ids"),
               false;
      for (InstId f : comp.funcs)
        for (auto& u : used[f])
          if (overlaps(iv, u))
            return err(front, "conflicting flag_base across peer pipe init components in the same "
                              "function"),
                   false;
      for (InstId f : comp.funcs) used[f].push_back(iv);
    }
    return true;
  }

  // ---- inttoptr ---------------------------------------------------------------------------
  void check_inttoptr_uses() {
    for (InstId id : ix_.order) {
      const Inst& in = I(id);
      if (in.op != Op::IntToPtr || in.n_res == 0) continue;
      ValueId p = c_.result(in, 0);
      if (p == kNone || p >= ix_.users.size()) continue;
      for (InstId u : ix_.users[p]) {
        const Inst& user = I(u);
        // The pointer is load_scalar's first operand and store_scalar's
        // second (`pto.store_scalar %v, %p[%i]`).
        unsigned ptr_at = user.op == Op::StoreScalar ? 1 : 0;
        bool ok = (user.op == Op::LoadScalar || user.op == Op::StoreScalar) &&
                  c_.operand(user, ptr_at) == p;
        for (unsigned k = 0; ok && k < c_.n_operands(user); ++k)
          if (k != ptr_at && c_.operand(user, k) == p) ok = false;
        if (ok) continue;
        c_.error(in.loc, "'pto.inttoptr' op result may only be used as the pointer operand of "
                         "pto.load_scalar or pto.store_scalar; found use by '" +
                             std::string(op_name(user.op)) + "'");
        c_.diag.note(user.loc, 0, "disallowed pto.inttoptr use here");
        break;
      }
    }
  }

  // ---- subview ---------------------------------------------------------------------------
  void check_subviews() {
    if (c_.opts.level != Level::Level3) return;
    for (InstId id : ix_.order) {
      const Inst& in = I(id);
      if (in.op != Op::Subview || c_.n_operands(in) == 0) continue;
      ValueId root = c_.operand(in, 0);
      for (unsigned guard = 0; guard < 64; ++guard) {
        const Inst* d = c_.def_of(root);
        if (!d || d->op != Op::Subview || c_.n_operands(*d) == 0) break;
        root = c_.operand(*d, 0);
      }
      if (root == kNone || root >= ix_.is_param.size() || !ix_.is_param[root]) continue;
      c_.error(in.loc, "failed to legalize operation 'pto.subview' that was explicitly marked "
                       "illegal: at --pto-level=level3 its source tile, a function argument, has "
                       "no address to take the subview from");
    }
  }
};

}  // namespace
}  // namespace verify_detail

bool verify_npu_pipeline(const Module& m, const FrontendOptions& opts, Diag& diag) {
  verify_detail::Ctx c(m, opts, diag);
  verify_detail::NpuIndex ix(c);
  verify_detail::PassRules(c, ix).run();
  verify_detail::verify_implicit_tmp(c);
  return c.ok;
}

}  // namespace ptoas
