// Communication ops (the official op verifiers): point-to-point
// pto.comm.tput/tget through a staging tile, the collectives
// (tbroadcast/tgather/tscatter/treduce over a group of GM views), signals
// (tnotify/twait/ttest), the SDMA async transfers (tput_async/tget_async,
// tprefetch_async, build_async_session) and pto.cmo.cacheinvalid.
//
// Spellings (operand roles, verify_npu.h):
//   pto.comm.tput(%dst, %src, buf(%ping[, %pong]) : ...)
//   pto.comm.tbroadcast(%src, recv(%ping[, %pong]), group(%g0, ...) : ...) {root = N}
//   pto.comm.treduce(%dst, %acc, recv(%ping[, %pong]), group(...) : ...)
//   pto.comm.tput_async(%dst, %src, %session : ...) -> !pto.async_event
#include "verify_npu.h"

namespace ptoas {
namespace verify_detail {
namespace {

bool gm_view(const Type& t) { return t.kind == TypeKind::TensorView || t.kind == TypeKind::PartitionView; }

class CommRules {
 public:
  CommRules(Ctx& c, const NpuIndex& ix) : c_(c), ix_(ix) {}

  void run() {
    for (InstId id : ix_.order) {
      if (c_.stop()) return;
      const Inst& in = c_.m.insts[id];
      switch (in.op) {
        case Op::CommTPut: case Op::CommTGet: transfer(in); break;
        case Op::CommTBroadcast: case Op::CommTGather: case Op::CommTScatter: collective(in); break;
        case Op::CommTReduce: reduce(in); break;
        case Op::CommTNotify: case Op::CommTWait: signal(in); break;
        case Op::CommTPutAsync: case Op::CommTGetAsync: async_transfer(in); break;
        case Op::TPrefetchAsync: flat_1d(in, c_.operand(in, 0), "src"); break;
        case Op::CommBuildAsyncSession: session(in); break;
        case Op::CmoCacheInvalid: cmo(in); break;
        default: break;
      }
    }
  }

 private:
  Ctx& c_;
  const NpuIndex& ix_;

  bool err(const Inst& in, const std::string& msg) {
    c_.error(in.loc, q(in.op) + " op " + msg);
    return false;
  }
  DType elem(ValueId v) {
    const Type* t = c_.vtype(v);
    return t ? t->elem : DType::None;
  }

  // A tensor_view / partition_view with a usable shape. Dynamic extents
  // only where the op allows them, and then only on a partition view.
  bool global(const Inst& in, ValueId v, const std::string& name, bool allow_dynamic) {
    const Type* t = c_.vtype(v);
    if (!t || !gm_view(*t)) return err(in, "expects " + name + " to be a tensor_view or partition_view");
    std::vector<int64_t> dims = value_dims(c_, v);
    if (dims.empty()) return err(in, "expects " + name + " to have rank >= 1");
    for (int64_t d : dims) {
      if (d == kDyn) {
        if (!allow_dynamic) return err(in, "does not support dynamic dimensions on " + name);
        if (t->kind != TypeKind::PartitionView)
          return err(in, "allows dynamic dimensions on " + name + " only for partition_tensor_view");
        continue;
      }
      if (d <= 0) return err(in, "expects every static dimension of " + name + " to be positive");
    }
    return true;
  }

  bool staging(const Inst& in, ValueId v, const std::string& name) {
    const Type* t = c_.vtype(v);
    if (!t || t->kind != TypeKind::TileBuf) return err(in, "expects " + name + " to be a tile_buf");
    if (t->loc != Loc::Vec) return err(in, "expects " + name + " to be in vec address space");
    if (t->rows <= 0 || t->cols <= 0) return err(in, "expects " + name + " to have a positive static shape");
    return true;
  }

  bool ping_pong(const Inst& in, ValueId ping, ValueId pong, const std::string& pn, const std::string& qn) {
    if (!staging(in, ping, pn)) return false;
    if (pong == kNone) return true;
    if (!staging(in, pong, qn)) return false;
    if (c_.vtype_id(ping) != c_.vtype_id(pong))
      return err(in, "expects " + pn + " and " + qn + " to have identical types");
    return true;
  }

  bool group(const Inst& in, const std::vector<std::string>& roles) {
    unsigned n = role_count(roles, "group");
    if (n == 0) return err(in, "expects at least one group operand");
    TypeId first = c_.vtype_id(role_operand(c_, in, roles, "group"));
    for (unsigned i = 0; i < n; ++i) {
      ValueId g = role_operand(c_, in, roles, "group", i);
      if (!global(in, g, "group[" + std::to_string(i) + "]", false)) return false;
      if (c_.vtype_id(g) != first) return err(in, "expects all group operands to have identical types");
    }
    return true;
  }

  bool root_in_group(const Inst& in, const std::vector<std::string>& roles) {
    int64_t root = 0;
    kv_int(c_, in, "root", root);
    if (root < 0 || root >= int64_t(role_count(roles, "group")))
      return err(in, "expects root to index into group operands");
    return true;
  }

  void transfer(const Inst& in) {
    std::vector<std::string> roles = operand_roles(c_, in);
    ValueId dst = role_operand(c_, in, roles, ""), src = role_operand(c_, in, roles, "", 1);
    ValueId ping = role_operand(c_, in, roles, "buf"), pong = role_operand(c_, in, roles, "buf", 1);
    if (roles.empty() || dst == kNone || src == kNone || ping == kNone) return;
    if (!global(in, dst, "dst", true) || !global(in, src, "src", true) ||
        !ping_pong(in, ping, pong, "ping", "pong"))
      return;
    if (elem(dst) != elem(src)) return (void)err(in, "expects src and dst to have the same element type");
    if (value_dims(c_, dst) != value_dims(c_, src))
      return (void)err(in, "expects src and dst to have the same static/dynamic shape signature");
    if (elem(ping) != elem(src)) err(in, "expects staging tile element type to match src/dst");
  }

  // tbroadcast reads src; tgather writes dst; tscatter reads src.
  void collective(const Inst& in) {
    std::vector<std::string> roles = operand_roles(c_, in);
    ValueId view = role_operand(c_, in, roles, "");
    ValueId ping = role_operand(c_, in, roles, "recv"), pong = role_operand(c_, in, roles, "recv", 1);
    if (roles.empty() || view == kNone || ping == kNone) return;
    std::string name = in.op == Op::CommTGather ? "dst" : "src";
    if (!global(in, view, name, false) || !ping_pong(in, ping, pong, "ping", "pong") ||
        !group(in, roles) || !root_in_group(in, roles))
      return;
    ValueId g0 = role_operand(c_, in, roles, "group");
    if (in.op == Op::CommTBroadcast ? c_.vtype_id(view) != c_.vtype_id(g0) : elem(view) != elem(g0))
      return (void)err(in, in.op == Op::CommTBroadcast ? "expects src type to match group member type"
                                                       : "expects " + name + " element type to match group member type");
    if (elem(ping) != elem(view)) err(in, "expects staging tile element type to match " + name);
  }

  void reduce(const Inst& in) {
    std::vector<std::string> roles = operand_roles(c_, in);
    ValueId dst = role_operand(c_, in, roles, ""), acc = role_operand(c_, in, roles, "", 1);
    ValueId ping = role_operand(c_, in, roles, "recv"), pong = role_operand(c_, in, roles, "recv", 1);
    if (roles.empty() || dst == kNone || acc == kNone || ping == kNone) return;
    if (!global(in, dst, "dst", false) || !staging(in, acc, "acc") || !staging(in, ping, "recv_ping") ||
        !ping_pong(in, ping, pong, "recv_ping", "recv_pong") || !group(in, roles) ||
        !root_in_group(in, roles))
      return;
    if (elem(dst) != elem(role_operand(c_, in, roles, "group")))
      return (void)err(in, "expects dst element type to match group member type");
    if (c_.vtype_id(acc) != c_.vtype_id(ping))
      return (void)err(in, "expects acc and recv_ping to have identical types");
    if (elem(acc) != elem(dst)) err(in, "expects accumulator/receive tiles to match dst element type");
  }

  void signal(const Inst& in) {
    if (c_.n_operands(in) < 2) return;
    ValueId sig = c_.operand(in, 0), val = c_.operand(in, 1);
    if (!global(in, sig, "signal", false)) return;
    if (elem(sig) != DType::I32) return (void)err(in, "expects signal element type to be i32");
    const Type* t = c_.vtype(val);
    if (t && !(t->kind == TypeKind::Scalar && (t->elem == DType::I32 || t->elem == DType::U32 ||
                                               t->elem == DType::SI32)))
      err(in, in.op == Op::CommTNotify ? "expects value to be i32" : "expects cmp_value to be i32");
  }

  // Flat: a static shape whose every dimension but the last is 1.
  bool flat_1d(const Inst& in, ValueId v, const std::string& name) {
    const Type* t = c_.vtype(v);
    if (!t || !gm_view(*t)) return err(in, "expects " + name + " to be a tensor_view or partition_view");
    std::vector<int64_t> dims = value_dims(c_, v);
    if (dims.empty()) return err(in, "expects " + name + " to have rank >= 1");
    for (int64_t d : dims)
      if (d == kDyn) return err(in, "expects " + name + " to have a static shape");
    for (size_t i = 0; i + 1 < dims.size(); ++i)
      if (dims[i] != 1) return err(in, "expects " + name + " to be a static flat contiguous logical 1D GM view");
    return true;
  }

  void async_transfer(const Inst& in) {
    if (c_.n_operands(in) < 2) return;
    ValueId dst = c_.operand(in, 0), src = c_.operand(in, 1);
    if (elem(dst) == DType::None || elem(src) == DType::None)
      return (void)err(in, "expects src and dst to have element types");
    if (elem(dst) != elem(src)) return (void)err(in, "expects src and dst to have the same element type");
    if (!flat_1d(in, dst, "dst") || !flat_1d(in, src, "src")) return;
    if (value_dims(c_, dst) != value_dims(c_, src))
      err(in, "expects src and dst to have the same static shape");
  }

  void session(const Inst& in) {
    if (c_.n_operands(in) < 2) return;
    ValueId scratch = c_.operand(in, 0), ws = c_.operand(in, 1);
    const Type* t = c_.vtype(scratch);
    if (!t || t->kind != TypeKind::TileBuf) return (void)err(in, "expects scratch to be tile_buf type");
    if (t->loc != Loc::Vec) return (void)err(in, "expects scratch to be in vec address space");
    if (t->rows <= 0 || t->cols <= 0) return (void)err(in, "expects scratch to have a static shape");
    if (int64_t(t->rows) * t->cols * dtype_bytes(t->elem) < 8)
      return (void)err(in, "expects scratch to provide at least 8 bytes");
    const Type* w = c_.vtype(ws);
    if (!w || w->kind != TypeKind::Ptr) return (void)err(in, "expects workspace to be !pto.ptr type");
    if (dtype_bytes(w->elem) != 1 || !dtype_is_int(w->elem))
      return (void)err(in, "expects workspace element type to be an 8-bit integer");
    int64_t sync = 0;
    if (kv_int(c_, in, "sync_id", sync) && (sync < 0 || sync > 7)) err(in, "expects sync_id in range [0, 7]");
  }

  // `pto.cmo.cacheinvalid %addr single_cache_line : T` or `... all #pto.address_space<gm>`.
  void cmo(const Inst& in) {
    std::string_view body = c_.body(in);
    size_t sp = body.find("address_space<");
    if (sp != std::string_view::npos && body.find("address_space<gm>") == std::string_view::npos &&
        body.find("address_space<zero>") == std::string_view::npos)
      return (void)err(in, "only supports GM cache maintenance");
    if (c_.n_operands(in) == 0) return;
    const Type* t = c_.vtype(c_.operand(in, 0));
    bool gm = t && ((t->kind == TypeKind::Ptr && (t->loc == Loc::Gm || t->loc == Loc::None)) ||
                    gm_view(*t) || (t->kind == TypeKind::Memref && (t->loc == Loc::Gm || t->loc == Loc::None)));
    if (!gm) err(in, "single_cache_line address expects a GM pointer or GM tensor view");
  }
};

}  // namespace

void verify_comm(Ctx& c, const NpuIndex& ix) { CommRules(c, ix).run(); }

}  // namespace verify_detail
}  // namespace ptoas
