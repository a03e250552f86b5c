// NPU-specific rules that mirror the official tool's op verifiers and passes
// (the reject corpus, PTOAS_COMPAT §2.5). Messages keep the official
// wording (`'pto.x' op ...`) so that its CHECK lines match.
//
// Per instruction: tput_async/tget_async flat 1-D GM memrefs; tget_scale_addr
// dst in scaling; textract A5 vec->vec ND layout; tpop_from_aic/aiv dynamic
// valid shape; initialize_l2l_pipe local_addr provenance. (The tile-op rules
// of thistogram, tinsert, tgather and tquant are in verify_tile_*.cpp.)
// Across functions: reserve_buffer auto=false vs memref.alloc (PlanMemory),
// complete peer init pairs, consistent split usage per pipe direction, and
// explicit nosplit vs the users' split.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "verify.h"

namespace ptoas {
namespace verify_detail {
namespace {

Loc loc(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  if (!t || (t->kind != TypeKind::TileBuf && t->kind != TypeKind::Memref)) return Loc::None;
  return t->loc;
}

bool nd_layout(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  if (!t || t->kind != TypeKind::TileBuf) return true;
  return t->blayout == BLayout::RowMajor && t->slayout == SLayout::NoneBox;
}

std::string lower(std::string_view s) {
  std::string o(s);
  for (char& ch : o)
    if (ch >= 'A' && ch <= 'Z') ch = char(ch - 'A' + 'a');
  return o;
}

// A static, contiguous, rank-1 memref in GM. Non-memref operands pass.
bool flat_gm_memref(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  if (!t || t->kind != TypeKind::Memref) return true;
  if (t->rank != 1 || t->dims == kNone) return false;
  if (c.m.types.dim(c.vtype_id(v), 0) < 0) return false;
  if (t->loc != Loc::Gm && t->loc != Loc::None) return false;
  std::string_view text = c.m.types.text(c.vtype_id(v));
  size_t s = text.find("strided<");
  if (s != std::string_view::npos) {
    // Only a unit stride keeps it contiguous.
    std::string_view rest = text.substr(s + 8);
    std::string norm;
    for (char ch : rest) {
      if (ch == '>') break;
      if (ch != ' ') norm += ch;
    }
    if (norm.rfind("[1]", 0) != 0) return false;
  }
  return true;
}

bool is_pipe_init(Op op) {
  return op == Op::AicInitializePipe || op == Op::AivInitializePipe ||
         op == Op::InitializeL2LPipe || op == Op::InitializeL2G2LPipe;
}

// Direction of a frontend pipe user: 0 cube->vector, 1 vector->cube, -1 none.
int pipe_dir(Op op) {
  switch (op) {
    case Op::TPushToAiv:
    case Op::TPopFromAic:
    case Op::TFreeFromAic:
      return 0;
    case Op::TPushToAic:
    case Op::TPopFromAiv:
    case Op::TFreeFromAiv:
      return 1;
    default:
      return -1;
  }
}

std::string strip_at(std::string s) {
  if (!s.empty() && s[0] == '@') s.erase(0, 1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

}  // namespace

void verify_npu_inst(Ctx& c, InstId id) {
  const Inst* ip = c.inst(id);
  if (!ip) return;
  const Inst& in = *ip;
  auto out0 = [&]() { return in.n_outs ? c.operand(in, in.n_ins) : kNone; };
  switch (in.op) {
    case Op::TPutAsync:
    case Op::TGetAsync: {
      const char* role[] = {"dst", "src"};
      for (unsigned i = 0; i < 2 && i < c.n_operands(in); ++i) {
        if (!flat_gm_memref(c, c.operand(in, i))) {
          c.error(in.loc, q(in.op) + " op expects " + role[i] +
                              " to be a static flat contiguous logical 1D GM memref");
          break;
        }
      }
      break;
    }
    case Op::TGetScaleAddr: {
      Loc l = loc(c, out0());
      if (l != Loc::None && l != Loc::Scaling)
        c.error(in.loc, "'pto.tget_scale_addr' op expects dst to be in the scaling address space");
      break;
    }
    case Op::TExtract: {
      if (c.arch != Arch::A5 || in.n_ins < 1 || in.n_outs < 1) break;
      ValueId src = c.operand(in, 0), dst = out0();
      if (loc(c, src) == Loc::Vec && loc(c, dst) == Loc::Vec &&
          (!nd_layout(c, src) || !nd_layout(c, dst)))
        c.error(in.loc, "'pto.textract' op expects A5 vec->vec textract src/dst to use ND layout "
                        "(blayout=row_major, slayout=none_box)");
      break;
    }
    case Op::TPopFromAic:
    case Op::TPopFromAiv: {
      if (in.n_ins + in.n_outs == 0) break;
      const Type* t = c.vtype(c.result(in, 0));
      if (t && t->kind == TypeKind::TileBuf && (t->vrow != kDyn || t->vcol != kDyn))
        c.error(in.loc, q(in.op) + " op expects tile result to have dynamic validShape (?, ?) "
                                   "when valid_row/valid_col operands are provided");
      break;
    }
    case Op::InitializeL2LPipe: {
      if (c.n_operands(in) < 1) break;
      if (c.body(in).find("flag_base") != std::string_view::npos ||
          c.m.find_attr(in, "flag_base"))
        break;
      const Inst* d = c.def_of(c.operand(in, 0));
      if (!d || (d->op != Op::ReserveBuffer && d->op != Op::ImportReservedBuffer))
        c.error(in.loc, "'pto.initialize_l2l_pipe' op requires local_addr to come from "
                        "pto.reserve_buffer or pto.import_reserved_buffer when 'flag_base' is "
                        "not explicit");
      break;
    }
    default:
      break;
  }
}

void verify_npu_module(Ctx& c) {
  struct FnInfo {
    InstId fn;
    std::string name;
    std::vector<InstId> inits, users, allocs;
    std::vector<std::pair<std::string, InstId>> reserves;               // name, inst
    std::vector<std::pair<std::string, std::string>> imports;           // name, peer
  };
  std::vector<FnInfo> fns;
  std::unordered_map<std::string, size_t> by_name;
  bool any_npu = false;
  for (InstId f : module_functions(c)) {
    FnInfo fi;
    fi.fn = f;
    fi.name = c.symbol(c.m.insts[f], "sym_name");
    std::vector<InstId> ids;
    collect_nested(c, f, ids);
    for (InstId id : ids) {
      const Inst& in = c.m.insts[id];
      if (is_pipe_init(in.op)) fi.inits.push_back(id);
      else if (pipe_dir(in.op) >= 0) fi.users.push_back(id);
      else if (in.op == Op::MemrefAlloc) fi.allocs.push_back(id);
      else if (in.op == Op::ReserveBuffer) fi.reserves.push_back({c.kv(in, "name"), id});
      else if (in.op == Op::ImportReservedBuffer)
        fi.imports.push_back({c.kv(in, "name"), strip_at(c.kv(in, "peer_func"))});
      else continue;
      any_npu = true;
    }
    if (!fi.name.empty()) by_name.emplace(fi.name, fns.size());
    fns.push_back(std::move(fi));
  }
  if (!any_npu) return;

  // reserve_buffer auto = false: PlanMemory must not have local allocations left.
  if (c.opts.level != Level::Level3) {
    for (const FnInfo& fi : fns) {
      bool manual = false;
      for (auto& [name, id] : fi.reserves)
        if (lower(c.kv(c.m.insts[id], "auto")) == "false") manual = true;
      if (!manual) continue;
      for (InstId a : fi.allocs) {
        const Inst& in = c.m.insts[a];
        const Type* t = c.vtype(c.result(in, 0));
        if (t && t->kind == TypeKind::Memref && t->loc == Loc::Gm) continue;
        c.error(in.loc, "'memref.alloc' op cannot use pto.reserve_buffer with auto = false when "
                        "local memref.alloc still requires PlanMemory allocation");
        break;
      }
    }
  }

  // Complete peer init pairs for inits fed by reserve/import buffers.
  for (const FnInfo& fi : fns) {
    for (InstId init : fi.inits) {
      const Inst& in = c.m.insts[init];
      bool complete = true, fed = false;
      for (unsigned i = 0; i < c.n_operands(in); ++i) {
        const Inst* d = c.def_of(c.operand(in, i));
        if (!d) continue;
        if (d->op == Op::ReserveBuffer) {
          fed = true;
          std::string name = c.kv(*d, "name");
          bool found = false;
          for (const FnInfo& g : fns) {
            if (&g == &fi || g.inits.empty()) continue;
            for (auto& [n, peer] : g.imports)
              if (n == name && peer == fi.name) found = true;
          }
          if (!found) complete = false;
        } else if (d->op == Op::ImportReservedBuffer) {
          fed = true;
          std::string name = c.kv(*d, "name");
          std::string peer = strip_at(c.kv(*d, "peer_func"));
          auto p = by_name.find(peer);
          bool found = false;
          if (p != by_name.end() && !fns[p->second].inits.empty())
            for (auto& [n, id] : fns[p->second].reserves)
              if (n == name) found = true;
          if (!found) complete = false;
        }
      }
      if (fed && !complete)
        c.error(in.loc, "'pto.initialize_l2l_pipe' op requires a complete peer init pair when "
                        "local_addr comes from pto.reserve_buffer or pto.import_reserved_buffer");
    }
  }

  // Peer groups (functions linked by import_reserved_buffer peer_func).
  std::vector<size_t> parent(fns.size());
  for (size_t i = 0; i < fns.size(); ++i) parent[i] = i;
  auto find = [&](size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (size_t i = 0; i < fns.size(); ++i)
    for (auto& [n, peer] : fns[i].imports) {
      auto p = by_name.find(peer);
      if (p != by_name.end()) parent[find(i)] = find(p->second);
    }
  std::map<size_t, std::vector<size_t>> groups;
  for (size_t i = 0; i < fns.size(); ++i) groups[find(i)].push_back(i);

  for (auto& [root, members] : groups) {
    std::vector<InstId> inits, users;
    for (size_t i : members) {
      inits.insert(inits.end(), fns[i].inits.begin(), fns[i].inits.end());
      users.insert(users.end(), fns[i].users.begin(), fns[i].users.end());
    }
    if (inits.empty() || users.empty()) continue;
    // Split values per direction must agree.
    bool conflict = false;
    for (int dir = 0; dir < 2 && !conflict; ++dir) {
      std::set<std::string> splits;
      for (InstId u : users) {
        const Inst& in = c.m.insts[u];
        if (pipe_dir(in.op) != dir) continue;
        std::string s = c.kv(in, "split");
        splits.insert(s.empty() ? "0" : s);
      }
      if (splits.size() > 1) conflict = true;
    }
    if (conflict) {
      c.error(c.m.insts[inits[0]].loc, "'pto.initialize_l2l_pipe' op conflicting pipe split "
                                        "usage across peer pipe init ops");
      continue;
    }
    // Explicit nosplit against the users' split.
    for (InstId init : inits) {
      const Inst& in = c.m.insts[init];
      std::string ns = lower(c.kv(in, "nosplit"));
      if (ns != "true" && ns != "false") continue;
      for (InstId u : users) {
        std::string s = c.kv(c.m.insts[u], "split");
        if (s.empty()) s = "0";
        if (ns == "false" && s == "0") {
          c.error(in.loc, "'pto.initialize_l2l_pipe' op explicit 'nosplit = false' conflicts "
                          "with downstream users that require split = 0");
          break;
        }
        if (ns == "true" && s != "0") {
          c.error(in.loc, "'pto.initialize_l2l_pipe' op explicit 'nosplit = true' conflicts "
                          "with downstream users that require split = " + s);
          break;
        }
      }
    }
  }
}

}  // namespace verify_detail
}  // namespace ptoas
