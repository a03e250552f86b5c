// The CCE backend's lowering (docs/cce_backend.md §2): one function as C++
// statements through the shared driver (lowering.h). scf becomes C++ loops
// and ifs; the values the driver copies (iter_args, yields, results) are
// variables declared at the top of the function; tiles are Tile objects
// placed by the NPU memory plan (opt/mem_plan.h) or the program's own
// addresses (level3); every tile op is one PTO-ISA call, destination first.
#include <string>
#include <unordered_map>

#include "cce.h"
#include "cce_names.h"
#include "ir_edit.h"
#include "lowering.h"
#include "mem_plan.h"
#include "ops.h"
#include "pipes.h"
#include "tile_layout.h"
#include "tile_plan.h"

namespace ptoas::cg::cce {

namespace {

// A GM view as the C++ sees it: its pointer, and per dimension its extent
// and stride as C++ expressions (with the constant when known).
struct Dim {
  std::string expr;
  int64_t value = -1;  // -1: known only at run time
};
struct View {
  std::string ptr;
  DType elem = DType::None;
  std::vector<Dim> shape, stride;
  std::string layout = "pto::Layout::ND";
};

class CceLower : public Lowering {
 public:
  CceLower(const Module& m, InstId fn, const Target& t, Diag& d)
      : Lowering(m), m_(m), fn_(fn), t_(t), d_(d), names_(m) {}

  bool run(FuncCode& out);

 private:
  const Module& m_;
  InstId fn_;
  const Target& t_;
  Diag& d_;
  Names names_;
  opt::TilePlan plan_;
  std::string o_;
  unsigned depth_ = 1;
  bool ok_ = true;
  bool has_sync_ = false;
  std::vector<uint8_t> hoisted_;       // by ValueId: declared at the top, assigned later
  std::vector<uint8_t> tail_barrier_;  // by InstId: a PIPE_ALL barrier right before a return
  std::unordered_map<ValueId, View> views_;
  std::unordered_map<ValueId, int64_t> consts_;
  // The UB (or other tile memory) address of a tile from alloc_tile or a
  // row subset of one, as a C++ expression: where a subview starts.
  std::unordered_map<ValueId, std::string> tile_addr_;

  void line(const std::string& s) { o_ += std::string(2 * depth_, ' ') + s + "\n"; }
  const std::string& nm(ValueId v) { return names_.of(v); }
  ValueId opnd(const Inst& in, unsigned i) const { return m_.operand(in, i); }
  DType elem(ValueId v) const { return m_.type_of(v).elem; }

  void prepare();
  std::string signature();
  Dim dim(ValueId v) {
    auto it = consts_.find(v);
    return it != consts_.end() ? Dim{std::to_string(it->second), it->second} : Dim{nm(v), -1};
  }
  void declare(ValueId v, const std::string& init);
  std::string tile_ctor_args(const Type& t, const std::string& vr, const std::string& vc);

  // ---- driver hooks ----
  bool lower_special(const Inst& in, InstId id) override;
  void mark(const Inst&) override {}
  void fail(const Inst& in, const Refusal& r = {}) override {
    std::string w = r.what.empty() ? "op " + std::string(op_info(in.op).name) : r.what;
    d_.error(in.loc, 0, w + " is not supported on " + std::string(t_.name) + " [" +
                            std::string(refusal_code_name(r.code)) + "]");
    ok_ = false;
  }
  void copy_values(const std::vector<ValueId>& from, const std::vector<ValueId>& to) override;
  void lower_return(const Inst& in) override {
    line(in.n_ins == 1 ? "return " + nm(opnd(in, 0)) + ";" : "return;");
  }
  bool returns_values() const override { return true; }
  void begin_for(const Inst& in, ValueId iv) override;
  void end_for(const Inst&, ValueId) override { close(); }
  void begin_if(const Inst& in) override {
    line("if (" + nm(opnd(in, 0)) + ") {");
    ++depth_;
  }
  void else_if(const Inst& in) override {
    if (in.n_regions < 2) return;
    --depth_;
    line("} else {");
    ++depth_;
  }
  void end_if(const Inst&) override { close(); }
  void begin_while(const Inst&) override {
    line("while (true) {");
    ++depth_;
  }
  void test_while(const Inst&, const Inst& cond) override { line("if (!" + nm(opnd(cond, 0)) + ") break;"); }
  void end_while(const Inst&) override { close(); }
  void close() {
    --depth_;
    line("}");
  }
  void scalar(const Inst& in) override;
  void view(const Inst& in) override;
  void alloc(const Inst& in, InstId id) override;
  void row_subset(const Inst& in);
  void tile_value(const Inst& in);

  // Every tile op is one call (lower_special); the families are never reached.
  void tcopy(const Inst& in, ValueId, ValueId, bool) override { call(in); }
  void row_reduce(const Inst& in) override { call(in); }
  void col_reduce(const Inst& in) override { call(in); }
  void tfillpad(const Inst& in) override { call(in); }
  void twindow(const Inst& in) override { call(in); }
  void ttrans(const Inst& in) override { call(in); }
  void tconcat(const Inst& in) override { call(in); }
  void treshape(const Inst& in, ValueId, ValueId) override { call(in); }
  void tcmp(const Inst& in) override { call(in); }
  void tsel(const Inst& in) override { call(in); }
  void fused(const Inst& in) override { call(in); }
  void tcvt(const Inst& in) override { call(in); }
  void tmov(const Inst& in) override { call(in); }
  void ttri(const Inst& in) override { call(in); }
  void tci(const Inst& in) override { call(in); }
  void matmul(const Inst& in) override { call(in); }
  void row_expand(const Inst& in) override { call(in); }
  void col_expand(const Inst& in) override { call(in); }
  void elementwise(const Inst& in) override { call(in); }

  void call(const Inst& in);
  void sync(const Inst& in, InstId id);
  void func_call(const Inst& in);
  void scalar_mem(const Inst& in) override;
  std::string operand_arg(const Inst& in, unsigned i);
  std::string scalar_expr(const Inst& in);
};

std::string memory_name(Loc l) {
  static constexpr const char* kNames[] = {"UB", "L1", "L0A", "L0B", "L0C", "the bias table", "the scaling buffer"};
  return unsigned(l) < 7 ? kNames[unsigned(l)] : "memory";
}

// ---- setup ------------------------------------------------------------------------

void CceLower::prepare() {
  hoisted_.assign(m_.values.size(), 0);
  tail_barrier_.assign(m_.insts.size(), 0);
  const Inst& f = m_.inst(fn_);
  opt::walk(m_, f.region, [&](InstId id, RegionId r) {
    const Inst& in = m_.inst(id);
    if (op_info(in.op).sem == Sem::Sync) has_sync_ = true;
    if (in.op == Op::Constant && m_.type_of(in.res).kind == TypeKind::Scalar &&
        !dtype_is_float(m_.type_of(in.res).elem)) {
      if (const Attr* a = m_.find_attr(in, "value"); a && a->kind == AttrKind::Int) consts_[in.res] = a->ival;
    }
    if (in.op == Op::For || in.op == Op::If || in.op == Op::While) {
      for (unsigned i = 0; i < in.n_res; ++i) hoisted_[in.res + i] = 1;
      for (unsigned k = 0; k < in.n_regions; ++k) {
        const Region& rg = m_.region(in, k);
        for (unsigned a = in.op == Op::For ? 1 : 0; a < rg.arg_count; ++a) hoisted_[m_.region_arg(rg, a)] = 1;
      }
    }
    if (in.op == Op::Return) {
      const Region& rg = m_.regions[r];
      for (unsigned i = 1; i < rg.inst_count; ++i)
        if (m_.region_inst(rg, i) == id) {
          InstId prev = m_.region_inst(rg, i - 1);
          SyncOp s;
          if (decode_sync(m_, m_.inst(prev), s) && s.kind == SyncOp::Kind::Barrier && s.src == Pipe::All)
            tail_barrier_[prev] = 1;
        }
    }
  });
}

std::string CceLower::tile_ctor_args(const Type& t, const std::string& vr, const std::string& vc) {
  if (t.vrow == kDyn && t.vcol == kDyn) return "(" + vr + ", " + vc + ")";
  if (t.vrow == kDyn) return "(" + vr + ")";
  if (t.vcol == kDyn) return "(" + vc + ")";
  return {};
}

// `T name = init;` of a hoisted value (a tile: its full extent until assigned).
void CceLower::declare(ValueId v, const std::string& init) {
  const Type& t = m_.type_of(v);
  std::string ty = value_type(m_, v);
  if (ty.empty()) {
    d_.error(m_.values[v].loc, 0, "a value of type " + std::string(m_.types.text(m_.values[v].type)) +
                                      " is not supported on cce [unsupported-type]");
    ok_ = false;
    return;
  }
  if (t.kind == TypeKind::TileBuf)
    line(ty + " " + nm(v) + tile_ctor_args(t, std::to_string(t.rows), std::to_string(t.cols)) + ";");
  else
    line(ty + " " + nm(v) + " = " + init + ";");
}

std::string CceLower::signature() {
  const Inst& f = m_.inst(fn_);
  const Region& body = m_.region(f, 0);
  std::string s;
  for (unsigned i = 0; i < body.arg_count; ++i) {
    ValueId a = m_.region_arg(body, i);
    std::string ty = value_type(m_, a);
    if (ty.empty()) {
      d_.error(m_.values[a].loc, 0, "a parameter of type " + std::string(m_.types.text(m_.values[a].type)) +
                                        " is not supported on cce [unsupported-type]");
      ok_ = false;
      continue;
    }
    // A tile parameter is the caller's Tile object (its assignment and
    // valid extent), by reference.
    bool tile = m_.type_of(a).kind == TypeKind::TileBuf;
    s += (i ? ", " : "") + ty + (tile ? "& " : " ") + nm(a);
  }
  return s;
}

bool CceLower::run(FuncCode& out) {
  const Inst& f = m_.inst(fn_);
  out.name = std::string(m_.attr_word(f, "sym_name"));
  // One scalar result at most (C++ returns one value); the kernel entry
  // returns void.
  std::string ret = "void";
  if (f.n_outs == 1) ret = scalar_type(m_.types.get(m_.type_lists[f.opnd]).kind == TypeKind::Scalar
                                           ? m_.types.get(m_.type_lists[f.opnd]).elem : DType::None);
  if (f.n_outs && is_entry(m_, fn_)) {
    // Only the lone unmarked definition gets here (the verifier refuses a
    // marked entry with results): cce makes it the kernel, which returns void.
    d_.error(f.loc, 0, "PTO entry functions must return void: '@" + out.name + "' is the kernel (the only "
                       "function, none is marked pto.entry) and returns a value");
    return false;
  }
  if (f.n_outs > 1 || ret.empty()) {
    d_.error(f.loc, 0, std::string(f.n_outs > 1 ? "a function with several results" :
                                   "a function result of this type") +
                           " is not supported on cce [unsupported-control]");
    return false;
  }
  prepare();
  opt::PlanParams pp = opt::npu_plan_params(m_.arch);
  plan_ = opt::plan_tiles(m_, fn_, true, &pp);
  if (plan_.over_loc != kNone) {
    Loc l = Loc(plan_.over_loc);
    InstId last = plan_.over_tiles.back();
    d_.error(m_.inst(last).loc, 0,
             "the tiles live here do not fit in " + memory_name(l) + ": " +
                 std::to_string(plan_.over_bytes) + " bytes needed, " +
                 std::to_string(pp.capacity[plan_.over_loc]) + " on " + (m_.arch == Arch::A5 ? "a5" : "a3"));
    for (InstId t : plan_.over_tiles)
      d_.note(m_.inst(t).loc, 0,
              "live: %" + std::string(m_.str(m_.values[m_.inst(t).res].name)) + " (" +
                  std::to_string(tile_storage_bytes(m_.type_of(m_.inst(t).res))) + " bytes)");
    return false;
  }
  for (size_t v = 0; v < hoisted_.size(); ++v)
    if (hoisted_[v]) declare(ValueId(v), scalar_type(m_.type_of(ValueId(v)).elem) + "()");
  std::string sig = signature();
  lower_region(m_.region(f, 0));
  if (!ok_) return false;

  std::string_view kind = m_.attr_word(f, "pto.kernel_kind");
  bool entry = is_entry(m_, fn_);
  std::string head;
  const char* guard = kind == "vector" ? "__DAV_VEC__" : kind == "cube" ? "__DAV_CUBE__" : nullptr;
  if (guard) head += std::string("#if defined(") + guard + ")\n";
  head += entry ? "__global__ AICORE " : is_private(m_, fn_) ? "static AICORE " : "AICORE ";
  head += ret + " ";
  head += out.name + "(" + sig + ") {\n";
  head += "  using T = float;\n";
  if (kind == "vector") head += "  set_mask_norm();\n  set_vector_mask(-1, -1);\n";
  out.text = head + o_ + "}\n" + (guard ? "#endif\n" : "") + "\n";
  out.global = entry;
  return true;
}

// ---- structure ---------------------------------------------------------------------

void CceLower::copy_values(const std::vector<ValueId>& from, const std::vector<ValueId>& to) {
  // Parallel assignment: through temporaries when a target is also a source.
  bool overlap = false;
  for (ValueId t : to)
    for (ValueId f : from) overlap |= t == f;
  size_t n = std::min(from.size(), to.size());
  if (!overlap) {
    for (size_t k = 0; k < n; ++k)
      if (from[k] != to[k]) line(nm(to[k]) + " = " + nm(from[k]) + ";");
    return;
  }
  std::vector<std::string> tmp;
  for (size_t k = 0; k < n; ++k) {
    tmp.push_back(names_.fresh(nm(to[k]) + "_next"));
    line("auto " + tmp.back() + " = " + nm(from[k]) + ";");
  }
  for (size_t k = 0; k < n; ++k) line(nm(to[k]) + " = " + tmp[k] + ";");
}

void CceLower::begin_for(const Inst& in, ValueId iv) {
  std::string ty = value_type(m_, iv);
  std::string step = nm(opnd(in, 2));
  auto st = consts_.find(opnd(in, 2));
  // A step <= 0 runs no iteration (lowering.h): tested unless it is a
  // positive constant.
  std::string guard = st != consts_.end() && st->second > 0 ? "" : step + " > 0 && ";
  line("for (" + ty + " " + nm(iv) + " = " + nm(opnd(in, 0)) + "; " + guard + nm(iv) + " < " + nm(opnd(in, 1)) +
       "; " + nm(iv) + " += " + step + ") {");
  ++depth_;
}

bool CceLower::lower_special(const Inst& in, InstId id) {
  const OpInfo& info = op_info(in.op);
  if (info.sem == Sem::Sync) {
    sync(in, id);
    return true;
  }
  if (in.op == Op::TGetVal || in.op == Op::TSetVal) {
    tile_value(in);
    return true;
  }
  if (in.op == Op::Call) {
    func_call(in);
    return true;
  }
  if (info.syn == Syn::Dps && info.sem != Sem::Struct) {
    call(in);
    return true;
  }
  if (in.op == Op::LoadScalar || in.op == Op::StoreScalar) {
    scalar_mem(in);
    return true;
  }
  // A subview goes the driver's way to view(), as on every target.
  if (info.syn == Syn::Opaque && info.sem != Sem::Struct && in.op != Op::Subview) {
    fail(in, {RefusalCode::Operands, ""});
    return true;
  }
  return false;
}

void CceLower::sync(const Inst& in, InstId id) {
  SyncOp s;
  if (!decode_sync(m_, in, s)) return fail(in, {RefusalCode::Operands, "this form of " + std::string(op_name(in.op))});
  if (s.kind == SyncOp::Kind::Barrier) {
    if (tail_barrier_[id]) return line("ptoas_auto_sync_tail(PTOAutoSyncTailMode::kBarrierAll);");
    return line("pipe_barrier(" + std::string(pipe_name(s.src)) + ");");
  }
  std::string ev = s.id >= 0 ? "EVENT_ID" + std::to_string(s.id) : "(event_t)(" + nm(s.dyn) + ")";
  line(std::string(s.kind == SyncOp::Kind::Set ? "set_flag(" : "wait_flag(") + std::string(pipe_name(s.src)) + ", " +
       std::string(pipe_name(s.dst)) + ", " + ev + ");");
}

// One GM element through the kernel's `__gm__ T*` pointer: a scalar access,
// as PTO-ISA C++ writes it.
void CceLower::scalar_mem(const Inst& in) {
  if (in.op == Op::LoadScalar) {
    std::string ty = value_type(m_, in.res);
    if (ty.empty()) return fail(in, {RefusalCode::Type, ""});
    return line("const " + ty + " " + nm(in.res) + " = " + nm(opnd(in, 0)) + "[" + nm(opnd(in, 1)) + "];");
  }
  line(nm(opnd(in, 1)) + "[" + nm(opnd(in, 2)) + "] = " + nm(opnd(in, 0)) + ";");
}

// tgetval ins(%t, %k) -> %v / tsetval ins(%k, %v) outs(%t): PTO-ISA's
// Tile::GetValue / SetValue, element k of the tile's storage.
void CceLower::tile_value(const Inst& in) {
  const bool get = in.op == Op::TGetVal;
  if (unsigned(in.n_ins) + in.n_outs != (get ? 2u : 3u) || in.n_res != (get ? 1 : 0))
    return fail(in, {RefusalCode::Operands, "this form of " + std::string(op_name(in.op))});
  ValueId t = get ? opnd(in, 0) : opnd(in, 2), k = opnd(in, get ? 1 : 0), v = get ? in.res : opnd(in, 1);
  const Type& tt = m_.type_of(t);
  const Type& vt = m_.type_of(v);
  std::string ty = value_type(m_, v);
  if (tt.kind != TypeKind::TileBuf || vt.kind != TypeKind::Scalar || vt.elem != tt.elem || ty.empty())
    return fail(in, {RefusalCode::Operands, std::string(op_name(in.op)) + " with a value not of the tile's element type"});
  if (get) return line("const " + ty + " " + nm(v) + " = " + nm(t) + ".GetValue(" + nm(k) + ");");
  line(nm(t) + ".SetValue(" + nm(k) + ", " + nm(v) + ");");
}

void CceLower::func_call(const Inst& in) {
  std::string ty = in.n_res == 1 ? value_type(m_, in.res) : std::string();
  if (in.n_res > 1 || (in.n_res == 1 && (ty.empty() || m_.type_of(in.res).kind != TypeKind::Scalar)))
    return fail(in, {RefusalCode::Control, "a call with several or non-scalar results"});
  std::string callee(m_.attr_word(in, "callee"));
  if (!callee.empty() && callee[0] == '@') callee.erase(0, 1);
  std::string s = callee + "(";
  for (unsigned i = 0; i < unsigned(in.n_ins + in.n_outs); ++i) s += (i ? ", " : "") + nm(opnd(in, i));
  line((in.n_res ? "const " + ty + " " + nm(in.res) + " = " : std::string()) + s + ");");
}

// ---- scalars -----------------------------------------------------------------------

std::string unsigned_of(DType d) {
  switch (d) {
    case DType::I8: case DType::U8: return "uint8_t";
    case DType::I16: case DType::U16: return "uint16_t";
    case DType::I32: case DType::U32: return "uint32_t";
    case DType::I1: return "bool";
    default: return "uint64_t";
  }
}

std::string CceLower::scalar_expr(const Inst& in) {
  DType d = m_.type_of(in.res).elem;
  std::string ty = scalar_type(d);
  auto a = [&](unsigned i) { return nm(opnd(in, i)); };
  DType od = in.n_ins ? elem(opnd(in, 0)) : d;
  std::string u = unsigned_of(od), ot = scalar_type(od);
  // Integer arithmetic wraps (as the interpreter's): through the unsigned type.
  auto wrap = [&](const char* op) { return ty + "(" + u + "(" + a(0) + ") " + op + " " + u + "(" + a(1) + "))"; };
  switch (in.op) {
    case Op::Constant: {
      const Attr* v = m_.find_attr(in, "value");
      return v ? literal(*v, d) : std::string();
    }
    case Op::GetBlockIdx: return "int64_t(get_block_idx())";
    case Op::GetBlockNum: return "int64_t(get_block_num())";
    case Op::GetSubblockIdx: return "int64_t(get_subblockid())";
    case Op::GetSubblockNum: return "int64_t(get_subblockdim())";
    case Op::AddI: return wrap("+");
    case Op::SubI: return wrap("-");
    case Op::MulI: return wrap("*");
    case Op::AndI: return wrap("&");
    case Op::OrI: return wrap("|");
    case Op::XOrI: return wrap("^");
    case Op::DivSI: return a(0) + " / " + a(1);
    case Op::RemSI: return a(0) + " % " + a(1);
    case Op::DivUI: return ty + "(" + u + "(" + a(0) + ") / " + u + "(" + a(1) + "))";
    case Op::RemUI: return ty + "(" + u + "(" + a(0) + ") % " + u + "(" + a(1) + "))";
    case Op::CeilDivSI:
      return a(0) + " / " + a(1) + " + ((" + a(0) + " % " + a(1) + " != 0) && ((" + a(0) + " < 0) == (" + a(1) +
             " < 0)))";
    case Op::FloorDivSI:
      return a(0) + " / " + a(1) + " - ((" + a(0) + " % " + a(1) + " != 0) && ((" + a(0) + " < 0) != (" + a(1) +
             " < 0)))";
    case Op::MinSI: return "(" + a(0) + " < " + a(1) + " ? " + a(0) + " : " + a(1) + ")";
    case Op::MaxSI: return "(" + a(0) + " > " + a(1) + " ? " + a(0) + " : " + a(1) + ")";
    case Op::MinUI: return "(" + u + "(" + a(0) + ") < " + u + "(" + a(1) + ") ? " + a(0) + " : " + a(1) + ")";
    case Op::MaxUI: return "(" + u + "(" + a(0) + ") > " + u + "(" + a(1) + ") ? " + a(0) + " : " + a(1) + ")";
    case Op::ShLI: return ty + "(" + u + "(" + a(0) + ") << " + a(1) + ")";
    case Op::ShRSI: return a(0) + " >> " + a(1);
    case Op::ShRUI: return ty + "(" + u + "(" + a(0) + ") >> " + a(1) + ")";
    case Op::AddF: return ty + "(" + a(0) + " + " + a(1) + ")";
    case Op::SubF: return ty + "(" + a(0) + " - " + a(1) + ")";
    case Op::MulF: return ty + "(" + a(0) + " * " + a(1) + ")";
    case Op::DivF: return ty + "(" + a(0) + " / " + a(1) + ")";
    case Op::NegF: return ty + "(-" + a(0) + ")";
    case Op::MaximumF: case Op::MinimumF: {
      const char* c = in.op == Op::MaximumF ? " > " : " < ";
      return "(" + a(0) + " != " + a(0) + " || " + a(1) + " != " + a(1) + " ? " + ty + "(__builtin_nanf(\"\")) : " +
             a(0) + c + a(1) + " ? " + a(0) + " : " + a(1) + ")";
    }
    case Op::CmpI: {
      std::string_view p = m_.attr_word(in, "predicate");
      bool uns = p.size() > 1 && p[0] == 'u';
      std::string x = uns ? u + "(" + a(0) + ")" : a(0), y = uns ? u + "(" + a(1) + ")" : a(1);
      std::string_view rel = p.size() >= 2 ? p.substr(p.size() - 2) : p;
      const char* op = p == "eq" ? " == " : p == "ne" ? " != " : rel == "lt" ? " < " : rel == "le" ? " <= " :
                       rel == "gt" ? " > " : rel == "ge" ? " >= " : nullptr;
      return op ? x + op + y : std::string();
    }
    case Op::CmpF: {
      std::string_view p = m_.attr_word(in, "predicate");
      std::string uno = "(" + a(0) + " != " + a(0) + " || " + a(1) + " != " + a(1) + ")";
      if (p == "false") return "false";
      if (p == "true") return "true";
      if (p == "ord") return "!" + uno;
      if (p == "uno") return uno;
      if (p.size() != 3) return {};
      std::string_view rel = p.substr(1);
      const char* op = rel == "eq" ? " == " : rel == "ne" ? " != " : rel == "lt" ? " < " : rel == "le" ? " <= " :
                       rel == "gt" ? " > " : rel == "ge" ? " >= " : nullptr;
      if (!op) return {};
      std::string c = "float(" + a(0) + ")" + op + "float(" + a(1) + ")";
      return p[0] == 'o' ? "(!" + uno + " && " + c + ")" : "(" + uno + " || " + c + ")";
    }
    case Op::Select: return a(0) + " ? " + a(1) + " : " + a(2);
    case Op::IndexCast: case Op::ExtSI: case Op::TruncI: case Op::SIToFP: case Op::FPToSI: case Op::FPToUI:
    case Op::ExtF: case Op::TruncF:
      return ty + "(" + a(0) + ")";
    case Op::IndexCastUI: case Op::ExtUI: case Op::UIToFP: return ty + "(" + u + "(" + a(0) + "))";
    case Op::Bitcast: return "ptoas_bitcast<" + ty + ">(" + a(0) + ")";
    default: return {};
  }
}

void CceLower::scalar(const Inst& in) {
  if (in.n_res != 1) return fail(in);
  const Type& rt = m_.type_of(in.res);
  // A select of tiles picks a Tile object (its address and valid extent).
  if (in.op == Op::Select && rt.kind == TypeKind::TileBuf && in.n_ins == 3) {
    std::string ty = value_type(m_, in.res);
    if (ty.empty() || value_type(m_, opnd(in, 1)) != ty || value_type(m_, opnd(in, 2)) != ty)
      return fail(in, {RefusalCode::Type, "arith.select of tiles of different types"});
    line(ty + " " + nm(in.res) + " = " + nm(opnd(in, 0)) + " ? " + nm(opnd(in, 1)) + " : " + nm(opnd(in, 2)) + ";");
    return;
  }
  if (rt.kind != TypeKind::Scalar || scalar_type(rt.elem).empty())
    return fail(in, {RefusalCode::Type, "op " + std::string(op_name(in.op)) + " with a result of type " +
                                            std::string(m_.types.text(m_.values[in.res].type))});
  std::string e = scalar_expr(in);
  if (e.empty()) return fail(in, {RefusalCode::Attribute, ""});
  line("const " + scalar_type(rt.elem) + " " + nm(in.res) + " = " + e + ";");
}

// ---- views ---------------------------------------------------------------------------

void CceLower::view(const Inst& in) {
  switch (in.op) {
    case Op::MakeTensorView: {
      const Type& t = m_.type_of(in.res);
      unsigned rank = t.rank;
      if (rank > 5) return fail(in, {RefusalCode::Shape, "a tensor view of rank above 5"});
      View v;
      v.ptr = nm(opnd(in, 0));
      v.elem = t.elem;
      for (unsigned i = 0; i < rank; ++i) v.shape.push_back(dim(opnd(in, 1 + i)));
      for (unsigned i = 0; i < rank; ++i) v.stride.push_back(dim(opnd(in, 1 + rank + i)));
      std::string_view l = m_.attr_word(in, "layout");
      if (l == "dn" || l == "DN") v.layout = "pto::Layout::DN";
      if (l == "nz" || l == "NZ") v.layout = "pto::Layout::NZ";
      views_[in.res] = v;
      return;
    }
    case Op::PartitionView: {
      auto it = views_.find(opnd(in, 0));
      if (it == views_.end()) return fail(in, {RefusalCode::Operands, "a partition of this view"});
      const View base = it->second;
      unsigned rank = unsigned(base.shape.size());
      View v = base;
      std::string off;
      for (unsigned i = 0; i < rank; ++i) {
        Dim o = dim(opnd(in, 1 + i));
        v.shape[i] = dim(opnd(in, 1 + rank + i));
        if (o.value == 0) continue;
        const Dim& s = base.stride[i];
        off += (off.empty() ? "" : " + ") + (s.value == 1 ? o.expr : o.expr + " * " + s.expr);
      }
      std::string name = nm(in.res);
      std::string ty = scalar_type(v.elem);
      if (ty.empty()) return fail(in, {RefusalCode::Type, ""});
      v.ptr = names_.fresh(name + "_ptr");
      bool plain = off.find(' ') == std::string::npos;
      line("__gm__ " + ty + "* " + v.ptr + " = " + base.ptr +
           (off.empty() ? "" : plain ? " + " + off : " + (" + off + ")") + ";");
      views_[in.res] = v;
      // The GlobalTensor: five dimensions, leading ones padded with 1 and
      // their strides with the outermost extent times its stride.
      std::vector<Dim> sh(5, Dim{"1", 1}), st(5);
      Dim outer = rank ? Dim{"(" + v.shape[0].expr + " * " + v.stride[0].expr + ")",
                             v.shape[0].value >= 0 && v.stride[0].value >= 0 ? v.shape[0].value * v.stride[0].value : -1}
                       : Dim{"1", 1};
      for (unsigned i = 0; i < 5; ++i) {
        if (i + rank < 5) {
          st[i] = outer;
        } else {
          sh[i] = v.shape[i + rank - 5];
          st[i] = v.stride[i + rank - 5];
        }
      }
      auto args = [](const std::vector<Dim>& ds, std::string& tmpl, std::string& dyn) {
        for (const Dim& d : ds) {
          tmpl += (tmpl.empty() ? "" : ", ") + (d.value >= 0 ? std::to_string(d.value) : std::string("-1"));
          if (d.value < 0) dyn += (dyn.empty() ? "" : ", ") + d.expr;
        }
      };
      std::string shape_t, shape_dyn, stride_t, stride_dyn;
      args(sh, shape_t, shape_dyn);
      args(st, stride_t, stride_dyn);
      std::string gt = names_.fresh(name + "_t");
      line("using " + gt + " = GlobalTensor<" + ty + ", pto::Shape<" + shape_t + ">, pto::Stride<" + stride_t +
           ">, " + v.layout + ">;");
      if (shape_dyn.empty() && stride_dyn.empty())
        line(gt + " " + name + "(" + v.ptr + ");");
      else
        line(gt + " " + name + "(" + v.ptr + ", pto::Shape<" + shape_t + ">(" + shape_dyn + "), pto::Stride<" +
             stride_t + ">(" + stride_dyn + "));");
      return;
    }
    case Op::GetTensorViewDim: {
      auto it = views_.find(opnd(in, 0));
      auto c = consts_.find(opnd(in, 1));
      if (it == views_.end() || c == consts_.end() || c->second < 0 || size_t(c->second) >= it->second.shape.size())
        return fail(in, {RefusalCode::Operands, ""});
      line("const int64_t " + nm(in.res) + " = " + it->second.shape[size_t(c->second)].expr + ";");
      return;
    }
    case Op::AddPtr: {
      std::string ty = value_type(m_, in.res);
      if (ty.empty()) return fail(in, {RefusalCode::Type, ""});
      line(ty + " " + nm(in.res) + " = " + nm(opnd(in, 0)) + " + " + nm(opnd(in, 1)) + ";");
      return;
    }
    case Op::SetValidShape:
      line(nm(opnd(in, 0)) + ".SetValidShape(" + nm(opnd(in, 1)) + ", " + nm(opnd(in, 2)) + ");");
      return;
    case Op::Subset: case Op::Subview:
      return row_subset(in);
    default:
      return fail(in);
  }
}

void CceLower::alloc(const Inst& in, InstId id) {
  const Type& t = m_.type_of(in.res);
  std::string ty = value_type(m_, in.res);
  if (ty.empty()) return fail(in, {RefusalCode::Type, "a tile of type " + std::string(m_.types.text(m_.values[in.res].type))});
  unsigned k = 0;
  std::string addr;
  if (in.flags & kInstHasAddr) addr = nm(opnd(in, k++));
  std::string vr = in.flags & kInstHasValidRow ? nm(opnd(in, k++)) : std::to_string(t.rows);
  std::string vc = in.flags & kInstHasValidCol ? nm(opnd(in, k++)) : std::to_string(t.cols);
  if (addr.empty()) {
    if (plan_.offset[id] == kNone) return fail(in, {RefusalCode::Limit, "a tile the memory plan did not place"});
    addr = std::to_string(plan_.offset[id]);
  }
  line(ty + " " + nm(in.res) + tile_ctor_args(t, vr, vc) + ";");
  line("TASSIGN(" + nm(in.res) + ", " + addr + ");");
  tile_addr_[in.res] = addr;
}

// A row run of a tile (plan_row_subset): a tile of the result's type at the
// parent's address plus the run's offset, as the official lowering places
// a subview; explicit valid extents clamped to the sizes.
void CceLower::row_subset(const Inst& in) {
  bool valid_ops = false;
  Refusal why;
  if (!plan_row_subset(m_, in, valid_ops, why)) return fail(in, why);
  auto a = tile_addr_.find(opnd(in, 0));
  if (a == tile_addr_.end())
    return fail(in, {RefusalCode::Operands, std::string(op_name(in.op)) +
                                                " of a tile whose address is not known where it is taken (a "
                                                "parameter, or a tile carried by a loop or a branch)"});
  const Type& rt = m_.type_of(in.res);
  std::string ty = value_type(m_, in.res);
  if (ty.empty()) return fail(in, {RefusalCode::Type, ""});
  auto extent = [&](unsigned k, int32_t size) {
    if (!valid_ops) return std::to_string(k == 0 ? (rt.vrow < 0 ? rt.rows : rt.vrow) : (rt.vcol < 0 ? rt.cols : rt.vcol));
    std::string x = nm(opnd(in, 3 + k)), n = std::to_string(size);
    return "(" + x + " < 0 ? 0 : " + x + " > " + n + " ? " + n + " : " + x + ")";
  };
  std::string addr = names_.fresh(nm(in.res) + "_addr");
  unsigned es = std::max(1u, dtype_bytes(rt.elem));
  line("const uint64_t " + addr + " = " + a->second + " + (uint64_t)(" + nm(opnd(in, 1)) + " * " +
       std::to_string(rt.cols) + " + " + nm(opnd(in, 2)) + ") * " + std::to_string(es) + ";");
  line(ty + " " + nm(in.res) + tile_ctor_args(rt, extent(0, rt.rows), extent(1, rt.cols)) + ";");
  line("TASSIGN(" + nm(in.res) + ", " + addr + ");");
  tile_addr_[in.res] = addr;
}

// ---- tile ops --------------------------------------------------------------------------

std::string CceLower::operand_arg(const Inst& in, unsigned i) {
  ValueId v = opnd(in, i);
  const Type& t = m_.type_of(v);
  if (t.kind == TypeKind::PartitionView && !views_.count(v)) {
    fail(in, {RefusalCode::Operands, "a GM operand that is not a partition view"});
    return {};
  }
  return nm(v);
}

void CceLower::call(const Inst& in) {
  const OpInfo& info = op_info(in.op);
  if (info.syn != Syn::Dps) return fail(in);
  std::vector<std::string> attrs;
  std::string bad;
  if (!attr_args(m_, in, attrs, bad))
    return fail(in, {RefusalCode::Attribute, "the value of attribute " + bad + " of " + std::string(info.name)});
  std::vector<std::string> outs, ins;
  for (unsigned i = 0; i < in.n_outs; ++i) outs.push_back(operand_arg(in, in.n_ins + i));
  for (unsigned i = 0; i < in.n_ins; ++i) ins.push_back(operand_arg(in, i));
  if (!ok_) return;
  // taddc / tsubc: two calls, as the official tool writes them; the second
  // reads the first's result (a V-pipe RAW: barrier on A3 when the program
  // is synchronised).
  if ((in.op == Op::TAddC || in.op == Op::TSubC) && ins.size() == 3 && outs.size() == 1) {
    if (opnd(in, 2) == opnd(in, in.n_ins) || opnd(in, 1) == opnd(in, in.n_ins))
      return fail(in, {RefusalCode::Operands, std::string(info.name) + " whose destination is its second or third source"});
    line((in.op == Op::TAddC ? "TADD(" : "TSUB(") + outs[0] + ", " + ins[0] + ", " + ins[1] + ");");
    if (has_sync_ && m_.arch == Arch::A3) line("pipe_barrier(PIPE_V);");
    line("TADD(" + outs[0] + ", " + outs[0] + ", " + ins[2] + ");");
    return;
  }
  std::string s = call_name(in.op) + "(";
  bool first = true;
  for (auto* list : {&outs, &ins, &attrs})
    for (const std::string& a : *list) {
      s += (first ? "" : ", ") + a;
      first = false;
    }
  line(s + ");");
}

}  // namespace

bool compile_function(const Module& m, InstId fn, const Target& t, const CodegenOptions&, FuncCode& out, Diag& diag) {
  CceLower g(m, fn, t, diag);
  return g.run(out);
}

}  // namespace ptoas::cg::cce
