// Persistent SIMT fragments, as the official VPTO backend materializes them
// (PTOAS 0.60: pto-promote-persistent-fragment-loops, the persistent
// fragment analysis, pto-materialize-simt-persistent-fragment).
//
// A kernel may keep per-thread values alive across its pto.section.simt
// launches: `%f = llvm.alloca %n x T {pto.persistent}` outside the sections,
// written and read by llvm.store / llvm.load (through constant
// llvm.getelementptr offsets) inside them. The backend turns every element
// into a register slot (pto.keep at the end of a section, pto.resume at the
// start of the next), so the accesses must resolve to fixed elements:
//   - the alloca: in a kernel entry, outside any section, before outlining;
//     T an integer of up to 64 bits or f16/bf16/f32; a constant count > 0
//   - the pointer is only offset (GEP base, one constant index), loaded
//     from or stored to (never stored as a value)
//   - every access sits directly in a section's body block, is T or a 2- or
//     4-lane vector of T (not volatile or atomic), aligned, within bounds
//   - one section (the init section) dominates every accessing section; it
//     stores each element before loading it, and the elements it stores are
//     the only ones any access may touch
//   - sections the init section dominates launch with its dimensions
//   - the elements fit in 123 slots (a 64-bit element takes an even pair)
// Loops around an access are fully unrolled first (the promote pass): this
// check unrolls them virtually, evaluating their induction variables, so
// `%f[%i]` in a constant loop resolves as it will. Like the backend, it
// stops at the first problem of a function.
#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "int_eval.h"
#include "opaque_text.h"
#include "verify.h"

namespace ptoas {
namespace verify_detail {
namespace {

constexpr int64_t kSlotLimit = 123;
constexpr size_t kMaxVirtualOps = 1u << 17;  // unrolling beyond this: give up silently

// Byte size of a scalar LLVM type spelling; 0 when unknown.
int64_t scalar_bytes(std::string_view t) {
  if (t == "f16" || t == "bf16") return 2;
  if (t == "f32") return 4;
  if (t == "f64") return 8;
  if (t.size() >= 2 && t[0] == 'i') {
    int64_t bits = 0;
    for (char ch : t.substr(1)) {
      if (ch < '0' || ch > '9' || bits > 4096) return 0;
      bits = bits * 10 + (ch - '0');
    }
    return bits == 0 ? 0 : (bits + 7) / 8;
  }
  return 0;
}
bool supported_scalar(std::string_view t) {
  if (t == "f16" || t == "bf16" || t == "f32") return true;
  int64_t b = scalar_bytes(t);
  return !t.empty() && t[0] == 'i' && b > 0 && b <= 8;
}
// `vector<4xf32>` -> lanes 4, elem "f32"; false when `t` is no vector type.
// `fixed` is false for a scalable or multi-dimensional vector.
bool vector_parts(std::string_view t, int64_t& lanes, std::string& elem, bool& fixed) {
  if (t.rfind("vector<", 0) != 0 || t.back() != '>') return false;
  std::string_view b = t.substr(7, t.size() - 8);
  fixed = false;
  size_t x = b.find('x');
  if (x == std::string_view::npos || x == 0) return true;
  lanes = 0;
  for (char ch : b.substr(0, x)) {
    if (ch < '0' || ch > '9' || lanes > (1 << 20)) return true;
    lanes = lanes * 10 + (ch - '0');
  }
  elem = std::string(b.substr(x + 1));
  fixed = elem.find('x') == std::string::npos;
  return true;
}

using Env = std::vector<std::pair<ValueId, int64_t>>;  // induction variable -> its value

// One op of the function as it is after full unrolling: loops around
// fragment accesses are replaced by copies of their bodies, one per
// iteration, with the induction variable bound in `env`.
struct VOp {
  InstId inst;
  int parent;       // enclosing VOp (a region op that stays), -1: the function body
  unsigned region;  // which region of the parent
  int env;          // index into envs_
};

class FragmentCheck {
 public:
  FragmentCheck(Ctx& c, InstId fn) : c_(c), fn_(fn) {}

  void run() {
    std::vector<InstId> body;
    collect_nested(c_, fn_, body);
    for (InstId id : body)
      if (c_.m.insts[id].op == Op::LlvmAlloca && persistent(c_.m.insts[id])) allocas_.push_back(id);
    if (allocas_.empty()) return;
    if (!is_entry()) return err(allocas_[0], "must be defined in a PTO kernel entry");
    index_structure(body);
    if (!pointer_uses(body)) return;
    for (InstId a : allocas_)
      if (!alloca_shape(a)) return;
    envs_.push_back({});
    if (!expand(region_of_fn(), -1, 0, 0)) return;  // too large to unroll here: say nothing
    std::vector<std::vector<int64_t>> residents(allocas_.size());
    for (size_t k = 0; k < allocas_.size(); ++k)
      if (!fragment(k, residents[k])) return;
    slots(residents);
  }

 private:
  struct Shape {
    std::string elem;
    int64_t elem_bytes = 0, total = 0;
  };
  struct Access {
    int vop;
    int section;  // the enclosing section VOp
    int64_t first_elem;
    unsigned lanes;
    bool store;
  };

  Ctx& c_;
  InstId fn_;
  std::vector<InstId> allocas_;
  std::vector<Shape> shapes_;
  std::unordered_map<InstId, InstId> parent_;      // static parent (kNone: the function body)
  std::unordered_set<ValueId> pointers_;           // alloca results and the GEPs over them
  std::unordered_set<InstId> wraps_access_;        // region ops around a fragment op
  std::vector<VOp> vops_;
  std::vector<Env> envs_;
  size_t steps_ = 0;  // loop iterations unrolled so far

  void err(InstId id, const std::string& msg) {
    const Inst& in = c_.m.insts[id];
    std::string what = in.op == Op::LlvmAlloca || in.op == Op::LlvmLoad || in.op == Op::LlvmStore ||
                               in.op == Op::VpSectionSimt
                           ? "persistent SIMT fragment "
                           : "";
    c_.error(in.loc, q(in.op) + " op " + what + msg);
  }

  bool persistent(const Inst& in) const {
    if (size_t(in.attrs) + in.n_attrs <= c_.m.attrs.size() && c_.m.find_attr(in, "pto.persistent")) return true;
    std::string_view b = c_.body(in);
    size_t brace = b.find('{');
    return brace != std::string_view::npos && find_word(b, "pto.persistent", brace, false) != std::string_view::npos;
  }

  static bool marked_entry(const Ctx& c, const Inst& f) {
    if (size_t(f.attrs) + f.n_attrs > c.m.attrs.size()) return false;
    for (const char* k : {"pto.entry", "pto.kernel", "hacc.entry", "pto.aicore"})
      if (c.m.find_attr(f, k)) return true;
    return false;
  }
  // A function marked as an entry; without any marker in the module, every
  // public function is one.
  bool is_entry() const {
    const Inst& f = c_.m.insts[fn_];
    if (marked_entry(c_, f)) return true;
    for (InstId g : module_functions(c_))
      if (marked_entry(c_, c_.m.insts[g])) return false;
    std::string_view vis = c_.attr_text(f, "sym_visibility");
    return vis.find("private") == std::string_view::npos;
  }

  const Region* region_of_fn() const { return c_.region(c_.m.insts[fn_], 0); }

  void index_structure(const std::vector<InstId>& body) {
    std::vector<std::pair<InstId, InstId>> stack{{fn_, kNone}};
    (void)body;
    while (!stack.empty()) {
      auto [id, par] = stack.back();
      stack.pop_back();
      const Inst& in = c_.m.insts[id];
      if (id != fn_) parent_[id] = par;
      for (unsigned r = 0; r < in.n_regions; ++r)
        if (const Region* reg = c_.region(in, r))
          for (InstId x : c_.region_insts(*reg))
            if (x < c_.m.insts.size() && !parent_.count(x)) stack.push_back({x, id == fn_ ? kNone : id});
    }
  }

  // The pointer graph: which values are fragment pointers, how each is used.
  bool pointer_uses(const std::vector<InstId>& body) {
    for (InstId a : allocas_)
      if (ValueId r = c_.result(c_.m.insts[a], 0); r != kNone) pointers_.insert(r);
    std::vector<InstId> related(allocas_.begin(), allocas_.end());
    for (InstId id : body) {  // pre-order: a GEP's base is seen before its uses
      const Inst& in = c_.m.insts[id];
      for (unsigned i = 0; i < c_.n_operands(in); ++i) {
        ValueId v = c_.operand(in, i);
        if (!pointers_.count(v)) continue;
        related.push_back(id);
        if (in.op == Op::LlvmGetelementptr) {
          if (i != 0) return err(id, "persistent SIMT fragment pointer must be the base of llvm.getelementptr"), false;
          if (ValueId r = c_.result(in, 0); r != kNone) pointers_.insert(r);
        } else if (in.op == Op::LlvmStore) {
          if (i != 1) return err(id, "pointer must not be stored as a value"), false;
        } else if (in.op != Op::LlvmLoad) {
          return err(id, "unsupported use of persistent SIMT fragment pointer by '" + std::string(op_name(in.op)) +
                             "'"),
                 false;
        }
      }
    }
    for (InstId id : related) {
      for (InstId p = parent_.count(id) ? parent_[id] : kNone; p != kNone; p = parent_.count(p) ? parent_[p] : kNone) {
        if (c_.m.insts[p].op == Op::While) {
          c_.error(c_.m.insts[p].loc, "persistent fragment buffer is accessed inside scf.while, which cannot be "
                                      "fully unrolled; persistent fragment loops must use scf.for");
          return false;
        }
        wraps_access_.insert(p);
      }
    }
    return true;
  }

  bool alloca_shape(InstId a) {
    const Inst& in = c_.m.insts[a];
    Shape s;
    for (InstId p = parent_.count(a) ? parent_[a] : kNone; p != kNone; p = parent_.count(p) ? parent_[p] : kNone)
      if (c_.m.insts[p].op == Op::VpSectionSimt) return err(a, "must be defined outside pto.section.simt"), false;
    const Inst& f = c_.m.insts[fn_];
    if (size_t(f.attrs) + f.n_attrs <= c_.m.attrs.size() && c_.m.find_attr(f, "pto.simt_entry"))
      return err(a, "must be defined before SIMT outlining"), false;
    // `%n x T {pto.persistent} : (i32) -> !llvm.ptr`
    std::string_view b = c_.body(in);
    size_t x = find_word(b, "x");
    if (x != std::string_view::npos && x + 2 < b.size()) {
      size_t e = b.find_first_of(" {:", x + 2);
      s.elem = std::string(b.substr(x + 2, e == std::string_view::npos ? e : e - x - 2));
    }
    if (!supported_scalar(s.elem))
      return err(a, "requires an integer scalar element type up to 64 bits or f16/bf16/f32, got " + s.elem), false;
    int64_t n = 0;
    if (!eval(c_.operand(in, 0), {}, n, 0))
      return err(a, "element count must be a compile-time integer constant"), false;
    if (n <= 0) return err(a, "element count must be positive"), false;
    s.elem_bytes = scalar_bytes(s.elem);
    if (__builtin_mul_overflow(n, s.elem_bytes, &s.total)) return err(a, "byte size overflows signed i64"), false;
    shapes_.push_back(s);
    return true;
  }

  // Integer value of `v` with the induction variables of `env` bound,
  // folding the casts and arithmetic unrolling leaves behind.
  bool eval(ValueId v, const Env& env, int64_t& out, int depth) const {
    if (v == kNone || depth > 32) return false;
    for (const auto& [iv, val] : env)
      if (iv == v) return out = val, true;
    if (int_constant(c_.m, v, out)) return true;
    const Inst* d = c_.def_of(v);
    const Type* t = c_.vtype(v);
    if (!d || !t || t->kind != TypeKind::Scalar) return false;
    int64_t a = 0, b = 0;
    switch (d->op) {
      case Op::IndexCast: case Op::IndexCastUI: case Op::ExtSI: case Op::ExtUI: case Op::TruncI: {
        const Type* st = c_.vtype(c_.operand(*d, 0));
        if (!st || st->kind != TypeKind::Scalar || !eval(c_.operand(*d, 0), env, a, depth + 1)) return false;
        out = eval_int_cast(d->op, st->elem, t->elem, a);
        return true;
      }
      case Op::AddI: case Op::SubI: case Op::MulI:
        if (!eval(c_.operand(*d, 0), env, a, depth + 1) || !eval(c_.operand(*d, 1), env, b, depth + 1))
          return false;
        return eval_int_bin(d->op, t->elem, a, b, out) == IntFault::None;
      default:
        return false;
    }
  }

  // Appends the VOps of region `r` (spliced into `parent`). false when the
  // unrolled program grows past kMaxVirtualOps.
  bool expand(const Region* r, int parent, unsigned region, int env) {
    if (!r) return true;
    for (InstId id : c_.region_insts(*r)) {
      if (vops_.size() > kMaxVirtualOps) return false;
      const Inst& in = c_.m.insts[id];
      int64_t lb = 0, ub = 0, st = 0;
      const Region* lr = in.op == Op::For ? c_.region(in, 0) : nullptr;
      std::vector<ValueId> args = lr ? c_.region_args(*lr) : std::vector<ValueId>{};
      if (in.op == Op::For && wraps_access_.count(id) && !args.empty() && eval(c_.operand(in, 0), envs_[env], lb, 0) &&
          eval(c_.operand(in, 1), envs_[env], ub, 0) && eval(c_.operand(in, 2), envs_[env], st, 0) && st > 0) {
        for (int64_t i = lb; i < ub;) {
          if (++steps_ > kMaxVirtualOps) return false;
          Env e = envs_[env];
          e.push_back({args[0], i});
          envs_.push_back(std::move(e));
          if (!expand(lr, parent, region, int(envs_.size() - 1))) return false;
          if (__builtin_add_overflow(i, st, &i)) break;
        }
        continue;
      }
      int self = int(vops_.size());
      vops_.push_back({id, parent, region, env});
      for (unsigned k = 0; k < in.n_regions; ++k)
        if (!expand(c_.region(in, k), self, k, env)) return false;
    }
    return true;
  }

  int section_of(int v) const {
    for (int p = vops_[v].parent; p >= 0; p = vops_[p].parent)
      if (c_.m.insts[vops_[p].inst].op == Op::VpSectionSimt) return p;
    return -1;
  }
  // In the unrolled program: does VOp `a` dominate VOp `b`?
  bool dominates(int a, int b) const {
    for (int x = b; x >= 0; x = vops_[x].parent)
      if (vops_[x].parent == vops_[a].parent && vops_[x].region == vops_[a].region) return a <= x;
    return false;
  }

  // The fragment a pointer value points into and the byte offset, resolved
  // under `env`; -1 when not a fragment pointer, -2 after an error.
  int resolve(ValueId v, const Env& env, int64_t& offset) {
    offset = 0;
    for (int guard = 0; guard < 256 && v != kNone; ++guard) {
      const Inst* d = c_.def_of(v);
      if (!d) return -1;
      InstId did = c_.m.values[v].def;
      if (d->op == Op::LlvmAlloca) {
        for (size_t k = 0; k < allocas_.size(); ++k)
          if (allocas_[k] == did) return int(k);
        return -1;
      }
      if (d->op != Op::LlvmGetelementptr) return -1;
      int64_t idx = 0, size = 0, bytes = 0;
      if (!gep_step(did, env, idx, size)) return -2;
      if (__builtin_mul_overflow(idx, size, &bytes) || __builtin_add_overflow(offset, bytes, &offset)) {
        err(did, "persistent fragment cumulative byte offset overflows signed i64");
        return -2;
      }
      v = c_.operand(*d, 0);
    }
    return -1;
  }

  // `%base[IDX] : (...) -> !llvm.ptr, T`: the index and T's byte size.
  bool gep_step(InstId g, const Env& env, int64_t& idx, int64_t& size) {
    const Inst& in = c_.m.insts[g];
    std::string_view b = c_.body(in);
    size_t open = b.find('['), close = b.find(']');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
    std::vector<std::string_view> items = split_items(b.substr(open + 1, close - open - 1));
    if (items.size() != 1)
      return err(g, "persistent SIMT fragment currently requires llvm.getelementptr to have exactly one index"), false;
    if (items[0][0] == '%') {
      if (!eval(operand_named(c_.m, in, items[0]), env, idx, 0))
        return err(g, "persistent fragment GEP index must be a compile-time integer constant"), false;
    } else {
      char* end = nullptr;
      std::string lit(items[0]);
      idx = std::strtoll(lit.c_str(), &end, 10);
      if (!end || *end != '\0') return err(g, "persistent fragment GEP index must be a compile-time integer constant"), false;
    }
    std::string_view types = type_list_text(b);
    size_t comma = types.rfind(',');
    std::string_view elem = comma == std::string_view::npos ? std::string_view() : types.substr(comma + 1);
    while (!elem.empty() && elem.front() == ' ') elem.remove_prefix(1);
    size = scalar_bytes(elem);
    if (size == 0) return err(g, "GEP element type must have a non-zero fixed byte size, got " + std::string(elem)), false;
    return true;
  }

  bool record(int v, int64_t offset, size_t k, std::vector<Access>& out) {
    InstId id = vops_[v].inst;
    const Inst& in = c_.m.insts[id];
    const Shape& s = shapes_[k];
    int sec = section_of(v);
    if (sec < 0) return err(id, "access must be inside pto.section.simt"), false;
    if (vops_[v].parent != sec) {
      err(id, "access must be directly inside the single top-level block of the pto.section.simt body");
      return false;
    }
    bool store = in.op == Op::LlvmStore;
    std::string t = c_.type_text(store ? c_.operand(in, 0) : c_.result(in, 0));
    int64_t lanes = 1;
    std::string scalar = t;
    bool fixed = true;
    if (vector_parts(t, lanes, scalar, fixed)) {
      if (!fixed) return err(id, "vector access must be fixed-length and one-dimensional"), false;
      if (lanes != 2 && lanes != 4)
        return err(id, "currently supports only 2- or 4-lane vector accesses, got " + std::to_string(lanes) +
                           " lanes"),
               false;
      std::string_view b = c_.body(in);
      if (find_word(b, "volatile") != std::string_view::npos || find_word(b, "atomic") != std::string_view::npos)
        return err(id, "vector access cannot be volatile or atomic"), false;
    }
    if (!supported_scalar(scalar))
      return err(id, "access requires an integer scalar element type up to 64 bits or f16/bf16/f32, got " + scalar),
             false;
    if (scalar != s.elem)
      return err(id, "access element type " + scalar + " must match alloca element type " + s.elem), false;
    if (offset < 0 || offset % s.elem_bytes != 0)
      return err(id, "byte offset " + std::to_string(offset) + " must be non-negative and aligned to element byte size " +
                         std::to_string(s.elem_bytes)),
             false;
    int64_t end = 0;
    if (__builtin_add_overflow(offset, lanes * s.elem_bytes, &end) || end > s.total) {
      std::string lanes_text = lanes == 1 ? "" : " with " + std::to_string(lanes) + " scalar lane(s)";
      return err(id, "access at byte offset " + std::to_string(offset) + lanes_text + " exceeds allocation size " +
                         std::to_string(s.total)),
             false;
    }
    out.push_back({v, sec, offset / s.elem_bytes, unsigned(lanes), store});
    return true;
  }

  // One fragment: its accesses, init section, resident elements and carries.
  bool fragment(size_t k, std::vector<int64_t>& resident) {
    std::vector<Access> acc;
    for (int v = 0; v < int(vops_.size()); ++v) {
      const Inst& in = c_.m.insts[vops_[v].inst];
      if (in.op != Op::LlvmLoad && in.op != Op::LlvmStore && in.op != Op::LlvmGetelementptr) continue;
      ValueId p = c_.operand(in, in.op == Op::LlvmStore ? 1 : 0);
      if (!pointers_.count(p)) continue;
      int64_t off = 0;
      int f = resolve(p, envs_[vops_[v].env], off);
      if (f == -2) return false;
      if (f != int(k)) continue;
      if (in.op == Op::LlvmGetelementptr) {  // its own index must resolve too
        int64_t idx = 0, size = 0;
        if (!gep_step(vops_[v].inst, envs_[vops_[v].env], idx, size)) return false;
        continue;
      }
      if (!record(v, off, k, acc)) return false;
    }
    if (acc.empty())
      return err(allocas_[k], "requires at least one llvm.load or llvm.store inside pto.section.simt"), false;
    std::vector<int> secs;
    for (const Access& a : acc)
      if (std::find(secs.begin(), secs.end(), a.section) == secs.end()) secs.push_back(a.section);
    std::sort(secs.begin(), secs.end());
    int init = -1;
    for (int cand : secs) {
      bool all = true;
      for (int s : secs) all = all && (s == cand || dominates(cand, s));
      if (!all) continue;
      if (init >= 0) return err(allocas_[k], "has multiple init section candidates that dominate every access section"), false;
      init = cand;
    }
    if (init < 0) return err(allocas_[k], "requires a unique init section that dominates every access section"), false;
    std::set<int64_t> elems;
    for (const Access& a : acc) {
      if (a.section != init) continue;
      for (unsigned l = 0; l < a.lanes; ++l) {
        if (elems.count(a.first_elem + l)) continue;
        if (!a.store)
          return err(vops_[a.vop].inst, "element offset " + std::to_string(a.first_elem + l) +
                                            " must be initialized by a store before its first load in the init section"),
                 false;
        elems.insert(a.first_elem + l);
      }
    }
    if (elems.empty()) return err(vops_[init].inst, "init section must initialize at least one element"), false;
    for (const Access& a : acc)
      for (unsigned l = 0; l < a.lanes; ++l)
        if (!elems.count(a.first_elem + l))
          return err(vops_[a.vop].inst, "element offset " + std::to_string(a.first_elem + l) +
                                            " is not initialized by the init section and is not part of "
                                            "residentElements"),
                 false;
    int64_t id[3], sd[3];
    if (simt_launch_dims(c_, c_.m.insts[vops_[init].inst], id))
      for (int v = 0; v < int(vops_.size()); ++v) {
        const Inst& in = c_.m.insts[vops_[v].inst];
        if (v == init || in.op != Op::VpSectionSimt || !dominates(init, v) || !simt_launch_dims(c_, in, sd)) continue;
        if (sd[0] != id[0] || sd[1] != id[1] || sd[2] != id[2])
          return err(vops_[v].inst, "carry section launch dimensions (" + dims_text(sd) +
                                        ") must match init section dimensions (" + dims_text(id) + ")"),
                 false;
      }
    resident.assign(elems.begin(), elems.end());
    return true;
  }

  static std::string dims_text(const int64_t d[3]) {
    return std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]);
  }

  void slots(const std::vector<std::vector<int64_t>>& residents) {
    int64_t next = 0;
    std::string fname = c_.symbol(c_.m.insts[fn_], "sym_name");
    for (size_t k = 0; k < allocas_.size(); ++k) {
      const std::string& t = shapes_[k].elem;
      int64_t width = t[0] == 'i' && scalar_bytes(t) > 4 ? 2 : 1;
      for (int64_t elem : residents[k]) {
        int64_t slot = next;
        if (width == 2 && slot % 2 != 0) ++slot;
        if (slot > kSlotLimit - width)
          return err(allocas_[k], "slot allocation in function '" + fname + "' exceeds the " +
                                      std::to_string(kSlotLimit) + "-slot limit: element offset " +
                                      std::to_string(elem) + " of type '" + t + "' needs " + std::to_string(width) +
                                      " slot(s), next candidate slot is " + std::to_string(slot));
        next = slot + width;
      }
    }
  }
};

}  // namespace

void verify_simt_fragments(Ctx& c, InstId fn) {
  if (!c.inst(fn)) return;
  FragmentCheck(c, fn).run();
}

}  // namespace verify_detail
}  // namespace ptoas
