// Frontend pipes: pto.aic_initialize_pipe / pto.aiv_initialize_pipe and the
// data ops that name a pipe by its id (talloc_to_*, tpush_to_*,
// tpop_from_*, tfree_from_*), with the fixpipe contract an
// acc_push_epilogue adds (set_quant_scalar/vector, the peer consumer's
// tpop types). These are the official tool's op verifiers: they run on
// every input. The rules of the passes that lower these ops (peer pairs,
// flag ids, split usage) are in verify_npu_passes.cpp.
//
// Directions: C2V (cube produces, vector consumes: dir_mask bit 1) and V2C
// (bit 2). talloc/tpush run on the producer side, tpop/tfree on the
// consumer side.
#include <map>
#include <optional>

#include "verify_npu.h"

namespace ptoas {
namespace verify_detail {
namespace {

// Attribute names of the fixpipe hardware that the PTO IR surface does not publish.
constexpr std::string_view kUnpublished[] = {
    "stPhase",    "st_phase",         "atomicType",     "atomic_type", "subBlockId",
    "subBlockid", "sub_blockid",      "clipReluMode",   "clip_relu_mode",
    "isChannelSplit", "is_channel_split", "channelSplit", "channel_split"};

bool is_init(Op op) { return op == Op::AicInitializePipe || op == Op::AivInitializePipe; }

// The data ops: which kernel side runs them and which direction they use.
struct DataOpInfo {
  KernelKind side;
  bool c2v;
  bool consumer;  // tpop / tfree
};
std::optional<DataOpInfo> data_op(Op op) {
  switch (op) {
    case Op::TAllocToAiv: return DataOpInfo{KernelKind::Cube, true, false};
    case Op::TPushToAiv: return DataOpInfo{KernelKind::Cube, true, false};
    case Op::TPopFromAic: return DataOpInfo{KernelKind::Vector, true, true};
    case Op::TFreeFromAic: return DataOpInfo{KernelKind::Vector, true, true};
    case Op::TAllocToAic: return DataOpInfo{KernelKind::Vector, false, false};
    case Op::TPushToAic: return DataOpInfo{KernelKind::Vector, false, false};
    case Op::TPopFromAiv: return DataOpInfo{KernelKind::Cube, false, true};
    case Op::TFreeFromAiv: return DataOpInfo{KernelKind::Cube, false, true};
    default: return std::nullopt;
  }
}

const char* side_name(KernelKind k) { return k == KernelKind::Cube ? "cube" : "vector"; }

bool odd_split(int64_t s) { return s == 3 || s == 4; }

// Quantization modes of acc_push_epilogue (the frontend's v1 set).
bool scalar_quant(std::string_view q) {
  return q == "deqf16_scalar" || q == "req8_scalar" || q == "qf322b8_pre_scalar" ||
         q == "qf322f16_pre_scalar" || q == "qf322bf16_pre_scalar" ||
         q == "qs322bf16_pre_scalar" || q == "qf322hif8_pre_scalar" || q == "qf322fp8_pre_scalar";
}
bool vector_quant(std::string_view q) {
  return q == "deqf16_vec" || q == "req8_vec" || q == "qf322b8_pre_vec" || q == "qs322bf16_pre_vec";
}
bool known_quant(std::string_view q) {
  return q == "no_convert" || q == "f32_f16" || q == "f32_bf16" || scalar_quant(q) || vector_quant(q);
}
bool a5_only_quant(std::string_view q) {
  return q == "qs322bf16_pre_scalar" || q == "qs322bf16_pre_vec" || q == "qf322hif8_pre_scalar" ||
         q == "qf322fp8_pre_scalar";
}

bool is_i32_width(DType d) { return d == DType::I32 || d == DType::U32 || d == DType::SI32; }

// What the accumulator may hold for a mode, and what the consumer receives.
bool producer_ok(std::string_view q, DType d) {
  if (q == "no_convert") return d == DType::F32 || is_i32_width(d);
  if (q == "req8_scalar" || q == "req8_vec" || q == "deqf16_scalar" || q == "deqf16_vec" ||
      q == "qs322bf16_pre_scalar" || q == "qs322bf16_pre_vec")
    return is_i32_width(d);
  return d == DType::F32;
}
bool consumer_ok(std::string_view q, DType d) {
  if (q == "no_convert") return d == DType::F32 || is_i32_width(d);
  if (q == "f32_f16" || q == "deqf16_scalar" || q == "deqf16_vec" || q == "qf322f16_pre_scalar")
    return d == DType::F16;
  if (q == "f32_bf16" || q == "qf322bf16_pre_scalar" || q == "qs322bf16_pre_scalar" ||
      q == "qs322bf16_pre_vec")
    return d == DType::BF16;
  // Explicitly signed or unsigned bytes: a signless i8 does not say which.
  if (q == "req8_scalar" || q == "qf322b8_pre_scalar") return d == DType::SI8 || d == DType::U8;
  if (q == "req8_vec" || q == "qf322b8_pre_vec") return d == DType::SI8;
  if (q == "qf322hif8_pre_scalar") return d == DType::HiF8;
  if (q == "qf322fp8_pre_scalar") return d == DType::F8E4M3 || d == DType::F8E4M3FN;
  return true;
}

bool layout_ok(std::string_view layout, const Type& t) {
  if (t.kind != TypeKind::TileBuf || t.loc != Loc::Vec) return false;
  if (layout == "nz2nd") return t.blayout == BLayout::RowMajor && t.slayout == SLayout::NoneBox;
  if (layout == "nz2dn") return t.blayout == BLayout::ColMajor && t.slayout == SLayout::NoneBox;
  if (layout == "nz2nz") return t.blayout == BLayout::ColMajor && t.slayout == SLayout::RowMajor;
  return true;
}

// A frontend init's attributes and named operands.
struct Init {
  InstId id = kNone;
  int64_t pid = 0, dir = 0, slot_size = 0, slot_num = 0, local_slots = 0;
  bool has_slot_num = false, has_local_slots = false;
  ValueId gm_buf = kNone, gm_tensor = kNone, c2v = kNone, v2c = kNone;
  bool fixpipe = false;
  std::optional<bool> nosplit;
  std::string layout, quant, relu;
};

class PipeRules {
 public:
  PipeRules(Ctx& c, const NpuIndex& ix) : c_(c), ix_(ix) {}

  void run() {
    for (Op op : {Op::AicInitializePipe, Op::AivInitializePipe})
      for (InstId id : ix_.of(op)) {
        inits_.emplace(id, read_init(id));
        by_id_[{ix_.func[id], inits_.at(id).pid}].push_back(id);
        by_func_[ix_.func[id]].push_back(id);
      }
    for (InstId id : ix_.of(Op::TPopFromAic)) pops_[{ix_.func[id], pipe_id(id)}].push_back(id);
    for (InstId id : ix_.of(Op::TPushToAiv)) pushes_[{ix_.func[id], pipe_id(id)}].push_back(id);
    for (InstId id : ix_.of(Op::ImportReservedBuffer)) imports_[c_.kv(I(id), "name")].push_back(id);
    for (InstId id : ix_.order) {
      if (c_.stop()) return;
      const Inst& in = c_.m.insts[id];
      if (is_init(in.op)) check_init(id);
      else if (auto d = data_op(in.op)) check_data(id, *d);
      else if (in.op == Op::SetQuantScalar || in.op == Op::SetQuantVector) check_set_quant(id);
    }
  }

 private:
  Ctx& c_;
  const NpuIndex& ix_;
  std::unordered_map<InstId, Init> inits_;
  // Keyed by (function, pipe id): inits, tpop_from_aic, tpush_to_aiv.
  std::map<std::pair<InstId, int64_t>, std::vector<InstId>> by_id_, pops_, pushes_;
  std::unordered_map<InstId, std::vector<InstId>> by_func_;               // inits per function
  std::unordered_map<std::string, std::vector<InstId>> imports_;          // by buffer name

  const std::vector<InstId>& keyed(const std::map<std::pair<InstId, int64_t>, std::vector<InstId>>& m,
                                   InstId fn, int64_t pid) const {
    static const std::vector<InstId> none;
    auto f = m.find({fn, pid});
    return f == m.end() ? none : f->second;
  }
  const std::vector<InstId>& inits_of(InstId fn) const {
    static const std::vector<InstId> none;
    auto f = by_func_.find(fn);
    return f == by_func_.end() ? none : f->second;
  }

  const Inst& I(InstId id) const { return c_.m.insts[id]; }
  void err(InstId id, const std::string& msg) { c_.error(I(id).loc, q(I(id).op) + " op " + msg); }

  Init read_init(InstId id) {
    const Inst& in = I(id);
    Init r;
    r.id = id;
    kv_int(c_, in, "id", r.pid);
    kv_int(c_, in, "dir_mask", r.dir);
    kv_int(c_, in, "slot_size", r.slot_size);
    r.has_slot_num = kv_int(c_, in, "slot_num", r.slot_num);
    if (!r.has_slot_num) r.slot_num = r.dir == 3 ? 4 : 8;
    r.has_local_slots = kv_int(c_, in, "local_slot_num", r.local_slots);
    bool ns = false;
    if (kv_bool(c_, in, "nosplit", ns)) r.nosplit = ns;
    std::vector<std::string> roles = operand_roles(c_, in);
    r.gm_buf = role_operand(c_, in, roles, "gm_slot_buffer");
    r.gm_tensor = role_operand(c_, in, roles, "gm_slot_tensor");
    r.c2v = role_operand(c_, in, roles, "c2v_consumer_buf");
    r.v2c = role_operand(c_, in, roles, "v2c_consumer_buf");
    r.fixpipe = !c_.kv(in, "acc_push_epilogue").empty();
    if (r.fixpipe) {
      r.layout = c_.kv(in, "layout");
      r.quant = c_.kv(in, "quant");
      r.relu = c_.kv(in, "relu");
    }
    return r;
  }

  int64_t pipe_id(InstId id) {
    int64_t v = 0;
    kv_int(c_, I(id), "id", v);
    return v;
  }
  int64_t split_of(InstId id) {
    int64_t v = 0;
    kv_int(c_, I(id), "split", v);
    return v;
  }

  bool unpublished_ok(InstId id) {
    for (std::string_view k : kUnpublished) {
      if (c_.kv(I(id), k).empty() && !has_attr(c_, I(id), k)) continue;
      err(id, "does not allow unpublished fixpipe attr '" + std::string(k) +
                  "'; STPhase / AtomicType / SubBlockId / ClipReluMode / IsChannelSplit are not "
                  "part of the PTOIR frontend surface");
      return false;
    }
    return true;
  }

  bool kernel_ok(InstId id, KernelKind want) {
    InstId fn = ix_.func[id];
    bool ok;
    if (fn != kNone && has_attr(c_, I(fn), "pto.tileop.helper")) ok = true;
    else if (ix_.enclosing(c_, id, Op::SectionCube) != kNone) ok = want == KernelKind::Cube;
    else if (ix_.enclosing(c_, id, Op::SectionVector) != kNone) ok = want == KernelKind::Vector;
    else ok = fn != kNone && kernel_kind(c_, I(fn)) == want;
    if (!ok) err(id, std::string("must be inside a ") + side_name(want) + " kernel function or section");
    return ok;
  }

  // The frontend inits of `id`'s function with pipe id `pid`.
  const std::vector<InstId>& inits_with_id(InstId id, int64_t pid) const {
    return keyed(by_id_, ix_.func[id], pid);
  }

  const Init* lookup_init(InstId id, int64_t pid) {
    const std::vector<InstId>& v = inits_with_id(id, pid);
    if (v.empty()) {
      err(id, "expects 'id' = " + std::to_string(pid) +
                  " to match a frontend initialize_pipe op in the same function");
      return nullptr;
    }
    if (v.size() > 1) {
      err(id, "expects 'id' = " + std::to_string(pid) +
                  " to match exactly one frontend initialize_pipe op in the same function");
      return nullptr;
    }
    return &inits_.at(v[0]);
  }

  // ---- initialize_pipe ------------------------------------------------------------
  void check_init(InstId id) {
    const Init& r = inits_.at(id);
    bool aic = I(id).op == Op::AicInitializePipe;
    if (!unpublished_ok(id) || !kernel_ok(id, aic ? KernelKind::Cube : KernelKind::Vector)) return;
    if (r.pid < 0) return err(id, "expects 'id' to be non-negative");
    if (inits_with_id(id, r.pid).size() > 1)
      return err(id, "requires 'id' to be unique across frontend initialize_pipe ops in the function");
    if (r.dir < 1 || r.dir > 3) return err(id, "expects 'dir_mask' to be 1, 2, or 3");
    if (r.slot_size <= 0) return err(id, "expects 'slot_size' to be greater than 0");
    if (r.slot_num <= 0) return err(id, "expects 'slot_num' to be greater than 0");
    if (r.gm_tensor != kNone) {
      if (!check_global_backing(id, r)) return;
      if (r.c2v == kNone && r.v2c == kNone) return;  // a GlobalTensor pipe: nothing local
    }
    if (r.c2v == kNone && r.v2c == kNone)
      return err(id, "expects local pipe init to provide at least one consumer buffer operand; "
                     "use 'gm_slot_tensor' for globaltensor pipe entries");
    if (r.dir == 1 && r.c2v == kNone) return err(id, "expects 'c2v_consumer_buf' when dir_mask is 1");
    if (r.dir == 2 && r.v2c == kNone) return err(id, "expects 'v2c_consumer_buf' when dir_mask is 2");
    if (r.dir == 3 && (r.c2v == kNone || r.v2c == kNone))
      return err(id, "expects both 'c2v_consumer_buf' and 'v2c_consumer_buf' when dir_mask is 3");
    if (r.has_local_slots) {
      if (c_.arch == Arch::A5)
        return err(id, "'local_slot_num' is only supported for a2/a3 frontend pipe lowering");
      if (r.local_slots <= 0) return err(id, "expects 'local_slot_num' to be greater than 0");
      if (r.local_slots > r.slot_num)
        return err(id, "expects 'local_slot_num' to be less than or equal to slot_num (" +
                           std::to_string(r.slot_num) + ") for dir_mask = " + std::to_string(r.dir));
    }
    if (!r.fixpipe) return;
    if (!check_init_fixpipe(id, r)) return;
    if (aic) check_producer_contract(id, r);
    else check_consumer_contract(id, r);
  }

  bool check_global_backing(InstId id, const Init& r) {
    if (r.gm_buf != kNone) {
      err(id, "'gm_slot_tensor' cannot be combined with 'gm_slot_buffer'");
      return false;
    }
    bool c2v = r.c2v != kNone, v2c = r.v2c != kNone;
    bool ok_c2v = r.dir == 1 && c2v && !v2c;
    bool ok_a3 = c_.arch != Arch::A5 && ((r.dir == 2 && !c2v && v2c) || (r.dir == 3 && c2v && v2c));
    if ((c2v || v2c) && !ok_c2v && !ok_a3) {
      err(id, "GM-backed tile pipe init supports dir_mask = 1 with 'c2v_consumer_buf' on all "
              "targets and dir_mask = 2/3 with matching consumer buffers only on a2/a3");
      return false;
    }
    const Type* t = c_.vtype(r.gm_tensor);
    if (!t || t->kind != TypeKind::TensorView) {
      err(id, "expects 'gm_slot_tensor' to be !pto.tensor_view");
      return false;
    }
    std::vector<int64_t> dims = value_dims(c_, r.gm_tensor);
    if (dims.empty()) {
      err(id, "expects 'gm_slot_tensor' to describe one slot entry tensor");
      return false;
    }
    uint64_t n = dtype_bytes(t->elem);
    for (int64_t d : dims) n = d < 0 ? 0 : n * uint64_t(d);
    if (n != 0 && n != uint64_t(r.slot_size) && n * 2 != uint64_t(r.slot_size)) {
      err(id, "expects 'slot_size' to equal gm_slot_tensor byte size or twice gm_slot_tensor byte "
              "size for split GlobalTensor entries (got slot_size = " + std::to_string(r.slot_size) +
              ", gm_slot_tensor byte size = " + std::to_string(n) + ")");
      return false;
    }
    if (r.c2v == kNone && r.v2c == kNone && r.has_local_slots) {
      err(id, "globaltensor pipe init does not use 'local_slot_num'");
      return false;
    }
    return true;
  }

  bool check_init_fixpipe(InstId id, const Init& r) {
    auto fail = [&](const std::string& m) {
      err(id, m);
      return false;
    };
    if (r.dir != 1)
      return fail("expects fixpipe pipe (with 'acc_push_epilogue') to have dir_mask = 1 (C2V only)");
    if (!r.nosplit.value_or(false))
      return fail("expects fixpipe pipe (with 'acc_push_epilogue') to have nosplit = true");
    if (r.c2v != kNone) {
      const Inst* d = c_.def_of(r.c2v);
      if (!d || (d->op != Op::ReserveBuffer && d->op != Op::ImportReservedBuffer))
        return fail("expects fixpipe pipe 'c2v_consumer_buf' to trace to reserve_buffer or "
                    "import_reserved_buffer for peer contract verification");
    }
    if (r.relu != "no_relu" && r.relu != "normal_relu")
      return fail("expects 'acc_push_epilogue.relu' to be 'no_relu' or 'normal_relu' in v1");
    if (!known_quant(r.quant))
      return fail("expects 'acc_push_epilogue.quant' to be one of the v1 allowed quantization modes");
    if (c_.arch != Arch::A5 && a5_only_quant(r.quant))
      return fail(r.quant.rfind("qs322bf16", 0) == 0
                      ? "expects 'qs322bf16_pre_*' quantization modes to be used only on A5 target"
                      : "expects 'qf322hif8_pre_scalar'/'qf322fp8_pre_scalar' to be used only on A5 target");
    return true;
  }

  // The buffer name and owner function a consumer buffer stands for.
  struct BufKey {
    std::string name;
    InstId owner = kNone;
    bool imported = false;
  };
  std::optional<BufKey> buf_key(ValueId v) {
    const Inst* d = c_.def_of(v);
    if (!d) return std::nullopt;
    InstId did = ValueId(d - c_.m.insts.data());
    if (d->op == Op::ReserveBuffer) return BufKey{c_.kv(*d, "name"), ix_.func[did], false};
    if (d->op == Op::ImportReservedBuffer)
      return BufKey{c_.kv(*d, "name"), ix_.func_named(c_.kv(*d, "peer_func")), true};
    return std::nullopt;
  }

  bool epilogues_match(InstId id, const Init& a, const Init& b, const char* peer, bool producer) {
    const char* me = producer ? "producer" : "consumer";
    const char* other = producer ? "consumer" : "producer";
    auto cmp = [&](const char* what, const std::string& x, const std::string& y) {
      if (x == y) return true;
      err(id, std::string("expects acc_push_epilogue.") + what + " to match peer " + peer + " (" +
                  me + " has " + x + ", " + other + " has " + y + ")");
      return false;
    };
    return cmp("layout", a.layout, b.layout) && cmp("quant", a.quant, b.quant) &&
           cmp("relu", a.relu, b.relu);
  }

  // aic side: the consumer function holds exactly one aiv init whose
  // c2v buffer is the reserve this init imports.
  void check_producer_contract(InstId id, const Init& r) {
    std::optional<BufKey> k = r.c2v != kNone ? buf_key(r.c2v) : std::nullopt;
    std::vector<InstId> peers;
    if (k && k->imported && k->owner != kNone)
      for (InstId iid : inits_of(k->owner)) {
        const Init& init = inits_.at(iid);
        if (I(iid).op != Op::AivInitializePipe || init.c2v == kNone) continue;
        std::optional<BufKey> pk = buf_key(init.c2v);
        if (pk && !pk->imported && pk->name == k->name) peers.push_back(iid);
      }
    if (peers.size() != 1)
      return err(id, "expects peer consumer function to contain a matching aiv_initialize_pipe "
                     "with the same consumer buffer contract");
    const Init& p = inits_.at(peers[0]);
    if (!p.fixpipe)
      return err(id, "expects peer consumer pipe init to also have 'acc_push_epilogue' for "
                     "fixpipe contract consistency");
    epilogues_match(id, r, p, "consumer", true);
  }

  // aiv side: traces the reserve to the producer's import and init, then
  // checks the tpops of this pipe against the mode and the producer's pushes.
  void check_consumer_contract(InstId id, const Init& r) {
    if (r.c2v == kNone) return err(id, "expects fixpipe consumer pipe to have 'c2v_consumer_buf'");
    std::optional<BufKey> k = buf_key(r.c2v);
    if (k && k->imported)
      return err(id, "expects consumer-side fixpipe pipe to use reserve_buffer, not "
                     "import_reserved_buffer");
    InstId me = ix_.func[id];
    if (!k) return;
    std::vector<InstId> imports;
    if (auto f = imports_.find(k->name); f != imports_.end())
      for (InstId x : f->second)
        if (ix_.func_named(c_.kv(I(x), "peer_func")) == me) imports.push_back(x);
    if (imports.empty())
      return err(id, "cannot find peer import_reserved_buffer for consumer buffer '" + k->name + "'");
    if (imports.size() > 1)
      return err(id, "finds multiple peer import_reserved_buffer ops for consumer buffer '" +
                         k->name + "'");
    InstId producer_fn = ix_.func[imports[0]];
    std::vector<InstId> producers;
    for (InstId iid : inits_of(producer_fn)) {
      const Init& init = inits_.at(iid);
      if (I(iid).op != Op::AicInitializePipe || init.c2v == kNone) continue;
      std::optional<BufKey> pk = buf_key(init.c2v);
      if (pk && pk->imported && pk->name == k->name && pk->owner == me) producers.push_back(iid);
    }
    if (producers.size() != 1)
      return err(id, "expects peer producer function to contain a matching aic_initialize_pipe "
                     "with the same consumer buffer contract");
    const Init& p = inits_.at(producers[0]);
    if (!p.fixpipe)
      return err(id, "expects peer producer pipe init to also have 'acc_push_epilogue' for "
                     "fixpipe contract consistency");
    if (!epilogues_match(id, r, p, "producer", false)) return;
    const std::vector<InstId>& pops = keyed(pops_, me, r.pid);
    if (pops.empty())
      return err(id, "expects at least one tpop_from_aic for fixpipe pipe id = " +
                         std::to_string(r.pid) + " to resolve the consumer entry type");
    TypeId tt = c_.vtype_id(c_.result(I(pops[0]), 0));
    for (InstId x : pops)
      if (c_.vtype_id(c_.result(I(x), 0)) != tt)
        return err(id, "expects all tpop_from_aic results for fixpipe pipe id = " +
                           std::to_string(r.pid) + " to use the same tile type");
    if (tt == kNone || c_.m.types.get(tt).kind != TypeKind::TileBuf)
      return err(id, "expects fixpipe consumer tpop result to be !pto.tile_buf");
    const Type& t = c_.m.types.get(tt);
    if (!consumer_ok(r.quant, t.elem))
      return err(id, "expects consumer element type to match acc_push_epilogue.quant " + r.quant);
    if (!layout_ok(r.layout, t))
      return err(id, "expects consumer tile layout to match acc_push_epilogue.layout " + r.layout);
    if (t.rows > 0 && t.cols > 0 && dtype_bytes(t.elem) > 0) {
      int64_t need = int64_t(t.rows) * t.cols * dtype_bytes(t.elem);
      if (r.slot_size < need)
        return err(id, "expects consumer-side fixpipe slot_size to be at least " +
                           std::to_string(need) + " bytes for the resolved post-fixpipe consumer entry");
      if (p.slot_size < need)
        return err(id, "expects peer producer fixpipe slot_size to be at least " +
                           std::to_string(need) + " bytes for the resolved post-fixpipe consumer entry");
    }
    for (InstId x : keyed(pushes_, producer_fn, p.pid)) {
      const Type* st = c_.vtype(c_.operand(I(x), 0));
      if (!st || st->kind != TypeKind::TileBuf) continue;
      bool ok = producer_ok(r.quant, st->elem) && consumer_ok(r.quant, t.elem) &&
                (r.quant != "no_convert" || st->elem == t.elem);
      if (!ok)
        return err(id, "expects producer source element type and consumer tpop result element "
                       "type to satisfy acc_push_epilogue.quant " + r.quant);
    }
  }

  // ---- data ops ---------------------------------------------------------------------
  ValueId entry_of(InstId id, const DataOpInfo& d, const std::vector<std::string>& roles) {
    const Inst& in = I(id);
    bool result = in.op == Op::TPopFromAic || in.op == Op::TPopFromAiv || in.op == Op::TAllocToAiv ||
                  in.op == Op::TAllocToAic;
    (void)d;
    if (result) return in.n_res ? c_.result(in, 0) : kNone;
    return role_operand(c_, in, roles, "");
  }

  bool check_split(InstId id, const DataOpInfo& d, int64_t pid, int64_t split) {
    if (!kernel_ok(id, d.side)) return false;
    if (pid < 0) return err(id, "expects 'id' to be non-negative"), false;
    if (split < 0 || split > 4) return err(id, "expects 'split' to be 0, 1, 2, 3, or 4"), false;
    if (!odd_split(split)) return true;
    const Init* init = lookup_init(id, pid);
    if (!init) return false;
    if (!d.c2v && c_.arch == Arch::A5)
      return err(id, "supports odd V2C split modes (split = 3 or 4) only on a2/a3"), false;
    bool gm = init->gm_tensor != kNone || (c_.arch != Arch::A5 && init->gm_buf != kNone);
    ValueId buf = d.c2v ? init->c2v : init->v2c;
    if ((init->dir & (d.c2v ? 1 : 2)) == 0 || !gm || buf == kNone)
      return err(id, std::string("supports odd split modes (split = 3 or 4) only for a GM-backed "
                                 "tile pipe whose dir_mask enables ") +
                         (d.c2v ? "C2V" : "V2C") + " and provides the matching consumer buffer"),
             false;
    return true;
  }

  bool check_tensor_entry(InstId id, const Init& init, ValueId entry) {
    const Type* et = c_.vtype(entry);
    if (!et || et->kind != TypeKind::TensorView) return true;
    if (init.gm_tensor == kNone)
      return err(id, "expects 'id' = " + std::to_string(init.pid) +
                         " to reference initialize_pipe with 'gm_slot_tensor' when the pipe entry "
                         "is !pto.tensor_view"),
             false;
    const Type* st = c_.vtype(init.gm_tensor);
    if (!st || st->kind != TypeKind::TensorView)
      return err(id, "expects 'gm_slot_tensor' to be !pto.tensor_view"), false;
    if (st->elem != et->elem)
      return err(id, "expects pipe entry element type to match gm_slot_tensor element type"), false;
    std::vector<int64_t> sd = value_dims(c_, init.gm_tensor), ed = value_dims(c_, entry);
    if (sd.size() != ed.size())
      return err(id, "expects pipe entry rank to match gm_slot_tensor rank"), false;
    for (size_t i = 0; i < ed.size(); ++i)
      if (sd[i] >= 0 && ed[i] >= 0 && sd[i] != ed[i])
        return err(id, "expects pipe entry dimension " + std::to_string(i) +
                           " to match gm_slot_tensor dimension " + std::to_string(sd[i])),
               false;
    return true;
  }

  bool check_odd_tile_entry(InstId id, int64_t split, ValueId entry) {
    const Type* t = c_.vtype(entry);
    if (odd_split(split) && t && t->kind == TypeKind::TensorView)
      return err(id, "supports odd split modes (split = 3 or 4) only for tile entries; the pinned "
                     "pto-isa does not implement odd GlobalTensor offsets"),
             false;
    return true;
  }

  bool check_parity(InstId id, int64_t split, ValueId entry) {
    if (split == 0) return true;
    const Type* t = c_.vtype(entry);
    if (!t) return true;
    std::vector<int64_t> shape;
    if (t->kind == TypeKind::TileBuf) shape = {t->vrow, t->vcol};
    else if (t->kind == TypeKind::TensorView) shape = value_dims(c_, entry);
    if (shape.size() != 2) return true;
    bool rows = split == 1 || split == 3;
    int64_t n = shape[rows ? 0 : 1];
    if (n < 0) return true;
    bool odd = odd_split(split);
    if ((n % 2 != 0) == odd) return true;
    err(id, std::string("expects a statically ") + (odd ? "odd" : "even") + " valid-" +
                (rows ? "row" : "column") + " count for split = " + std::to_string(split));
    return false;
  }

  bool check_subblock(InstId id, int64_t split, ValueId sub, ValueId entry) {
    if (sub == kNone) return true;
    if (split == 0) return err(id, "expects 'aiv_subblockid' only when 'split' is 1, 2, 3, or 4"), false;
    const Type* t = c_.vtype(entry);
    if (t && t->kind == TypeKind::TensorView)
      return err(id, "does not support 'aiv_subblockid' for !pto.tensor_view pipe entries"), false;
    if (!t || t->kind != TypeKind::TileBuf || t->loc != Loc::Vec)
      return err(id, "expects 'aiv_subblockid' only on AIV-side vector tile pipe entries"), false;
    return true;
  }

  bool check_valid_operands(InstId id, const DataOpInfo& d, int64_t split, ValueId entry,
                            const std::vector<std::string>& roles) {
    unsigned n = role_count(roles, "");
    const Type* t = c_.vtype(entry);
    bool view = t && t->kind == TypeKind::TensorView;
    if (n == 1) return err(id, "expects valid_row and valid_col operands to be provided together"), false;
    if (d.c2v && odd_split(split) && n == 0 && !view)
      return err(id, "expects odd C2V split tpop to provide per-sub-core valid_row and valid_col "
                     "operands"),
             false;
    if (n == 0) return true;
    if (view) return err(id, "does not accept valid_row/valid_col when result is !pto.tensor_view"), false;
    if (!t || t->kind != TypeKind::TileBuf)
      return err(id, "expects tile result to be !pto.tile_buf when valid_row/valid_col operands "
                     "are provided"),
             false;
    if (t->vrow != kDyn || t->vcol != kDyn)
      return err(id, "expects tile result to have dynamic validShape (?, ?) when "
                     "valid_row/valid_col operands are provided"),
             false;
    return true;
  }

  void check_data(InstId id, const DataOpInfo& d) {
    const Inst& in = I(id);
    if (!unpublished_ok(id)) return;
    std::vector<std::string> roles = operand_roles(c_, in);
    int64_t pid = pipe_id(id), split = split_of(id);
    ValueId entry = entry_of(id, d, roles);
    ValueId sub = role_operand(c_, in, roles, "aiv_subblockid");
    if (!check_split(id, d, pid, split)) return;
    const Init* init = lookup_init(id, pid);
    if (!init) return;
    int64_t bit = d.c2v ? 1 : 2;
    if ((init->dir & bit) == 0)
      return err(id, "expects 'id' = " + std::to_string(pid) + " to reference initialize_pipe with "
                         "dir_mask = " + (d.c2v ? "1 or 3" : "2 or 3"));
    bool aic_fixpipe = I(init->id).op == Op::AicInitializePipe && init->fixpipe;
    bool aiv_fixpipe = I(init->id).op == Op::AivInitializePipe && init->fixpipe;
    switch (in.op) {
      case Op::TAllocToAiv:
        if (aic_fixpipe && split != 0) return err(id, "expects fixpipe TALLOC to have split = 0");
        if (check_odd_tile_entry(id, split, entry)) check_tensor_entry(id, *init, entry);
        return;
      case Op::TAllocToAic:
        if (check_odd_tile_entry(id, split, entry)) check_tensor_entry(id, *init, entry);
        return;
      case Op::TPushToAiv:
        if (!check_tensor_entry(id, *init, entry) || !check_odd_tile_entry(id, split, entry) ||
            !check_parity(id, split, entry))
          return;
        if (aic_fixpipe) check_push_fixpipe(id, *init, split, entry);
        return;
      case Op::TPushToAic:
        if (check_tensor_entry(id, *init, entry) && check_odd_tile_entry(id, split, entry))
          check_subblock(id, split, sub, entry);
        return;
      case Op::TPopFromAic:
      case Op::TPopFromAiv: {
        if (!check_odd_tile_entry(id, split, entry) || !check_tensor_entry(id, *init, entry)) return;
        if (!d.c2v && !check_parity(id, split, entry)) return;
        if (!check_valid_operands(id, d, split, entry, roles)) return;
        if (in.op == Op::TPopFromAiv || !check_subblock(id, split, sub, entry)) return;
        if (aiv_fixpipe) check_pop_fixpipe(id, *init, split, entry);
        return;
      }
      case Op::TFreeFromAic:
      case Op::TFreeFromAiv:
        if (aiv_fixpipe && split != 0) return err(id, "expects fixpipe TFREE to have split = 0");
        if (entry != kNone && check_odd_tile_entry(id, split, entry))
          check_tensor_entry(id, *init, entry);
        return;
      default:
        return;
    }
  }

  void check_push_fixpipe(InstId id, const Init& init, int64_t split, ValueId tile) {
    const Type* t = c_.vtype(tile);
    if (!t || t->kind != TypeKind::TileBuf)
      return err(id, "expects fixpipe TPUSH source tile to be a tile type");
    if (t->loc != Loc::Acc) return err(id, "expects fixpipe TPUSH source tile to use loc=acc");
    if (split != 0) return err(id, "expects fixpipe TPUSH to have split = 0");
    if (!producer_ok(init.quant, t->elem))
      return err(id, "expects fixpipe TPUSH source element type to match acc_push_epilogue.quant "
                     "mode requirements");
    bool sc = scalar_quant(init.quant), vc = vector_quant(init.quant);
    if (!sc && !vc) return;
    // The quant state must be set earlier in the same block.
    RegionId r = ix_.region[id];
    int64_t pid = pipe_id(id);
    Op want = sc ? Op::SetQuantScalar : Op::SetQuantVector;
    if (r != kNone)
      for (InstId x : c_.region_insts(c_.m.regions[r])) {
        if (x == id) break;
        if (I(x).op == want && pipe_id(x) == pid) return;
      }
    err(id, std::string("expects a preceding pto.") + (sc ? "set_quant_scalar" : "set_quant_vector") +
                " with id = " + std::to_string(pid) + " in the same block");
  }

  void check_pop_fixpipe(InstId id, const Init& init, int64_t split, ValueId tile) {
    if (split != 0) return err(id, "expects fixpipe TPOP to have split = 0");
    const Type* t = c_.vtype(tile);
    if (!t || t->kind != TypeKind::TileBuf) return err(id, "expects fixpipe TPOP result to be a tile type");
    TypeId tt = c_.vtype_id(tile);
    int64_t pid = pipe_id(id);
    for (InstId x : keyed(pops_, ix_.func[id], pid))
      if (x != id && c_.vtype_id(c_.result(I(x), 0)) != tt)
        return err(id, "expects all tpop_from_aic results for fixpipe pipe id = " +
                           std::to_string(pid) + " to use the same tile type");
    if (!consumer_ok(init.quant, t->elem))
      return err(id, "expects consumer element type to match acc_push_epilogue.quant " + init.quant);
    if (!layout_ok(init.layout, *t))
      return err(id, "expects consumer tile layout to match acc_push_epilogue.layout " + init.layout);
  }

  // ---- set_quant_scalar / set_quant_vector -----------------------------------------------
  void check_set_quant(InstId id) {
    const Inst& in = I(id);
    if (!unpublished_ok(id)) return;
    bool sc = in.op == Op::SetQuantScalar;
    int64_t pid = pipe_id(id);
    const Init* init = lookup_init(id, pid);
    if (!init) return;
    if (I(init->id).op != Op::AicInitializePipe)
      return err(id, "expects 'id' = " + std::to_string(pid) +
                         " to reference an aic_initialize_pipe or lowered producer pipe");
    if (!init->fixpipe)
      return err(id, "expects 'id' = " + std::to_string(pid) +
                         " to reference a fixpipe pipe (with acc_push_epilogue)");
    if (sc && !scalar_quant(init->quant))
      return err(id, "expects 'id' = " + std::to_string(pid) +
                         " to reference a pipe with scalar quantization mode, but found non-scalar mode");
    if (!sc && !vector_quant(init->quant))
      return err(id, "expects 'id' = " + std::to_string(pid) +
                         " to reference a pipe with vector quantization mode, but found non-vector mode");
    const Type* t = c_.vtype(c_.operand(in, 0));
    if (sc) {
      if (t && !(t->kind == TypeKind::Scalar && t->elem == DType::F32))
        err(id, "expects 'scale' to be f32");
      return;
    }
    if (!t || t->kind != TypeKind::TileBuf) return err(id, "expects 'scaling_tile' to be a tile type");
    if (t->loc != Loc::Scaling) return err(id, "expects 'scaling_tile' to use loc=scaling");
    // On A5 SET_QUANT_VECTOR takes the scale values themselves. (A3 takes
    // packed 64-bit words, but 0.60 accepts an f16 payload on the default
    // arch: the Movfp sample; no A3 rule here.)
    if (c_.arch == Arch::A5 && t->elem != DType::F16 && t->elem != DType::BF16 &&
        t->elem != DType::F32)
      err(id, "expects 'scaling_tile' element type to be f16, bf16, or f32 on A5");
  }
};

}  // namespace

void verify_frontend_pipes(Ctx& c, const NpuIndex& ix) { PipeRules(c, ix).run(); }

}  // namespace verify_detail
}  // namespace ptoas
