// The backend a program is compiled for, and the checks of the official
// VPTO backend's passes.
//
// The official tool compiles with its EmitC backend (PTO-ISA C++) or its
// VPTO backend (A5 micro-instructions, LLVM IR): --pto-backend=emitc|vpto
// decides, else a module's pto.backend attribute ("emitc" or "vpto", any
// case; a nested module's own attribute for its functions), else emitc
// (an invalid value is for the module rules to report, with the nested
// modules' own rules; it selects nothing here). Its VPTO-only outputs
// (--emit-vpto, --emit-vpto-llvm-ir) require the VPTO backend. ptoas has
// no VPTO backend, but a program that backend would refuse must still be
// refused here, at the same op and for the same reason
// (docs/language.md, "The VPTO backend's checks"): so where the VPTO backend
// is in effect the verifier runs what its passes check:
//   - async SDMA sessions (pto.comm.*_async, sessions, events): EmitC only
//   - high-level CMO/fence ops: lowered to pto.dcci/pto.dsb first (LLVM
//     lowering; not for --emit-vpto, which stops before it)
//   - pto.section.simt: a launch of 1..2048 threads (SIMT outlining)
//   - persistent SIMT fragments (verify_simt_fragment.cpp)
//   - tload/tstore on A2/A3: a unit innermost GM stride (DMA lowering)
//   - textract vec->mat on A5: only to an ND mat tile (tile-op templates)
//   - a child module has a kernel kind, written or inferable from its ops
//   - packed (vector<2xf16>/vector<2xbf16>) atomics: the old value unused
#include <cctype>
#include <string>
#include <vector>

#include "int_eval.h"
#include "verify.h"

namespace ptoas {
namespace verify_detail {
namespace {

// The offset of `needle` in the source outside `//` comments (the top
// module's attributes have no instruction to point at), else 0.
uint32_t source_offset(const Ctx& c, std::string_view needle) {
  if (!c.m.src) return 0;
  std::string_view t = c.m.src->text();
  for (size_t i = 0; i + needle.size() <= t.size(); ++i) {
    if (t[i] == '/' && i + 1 < t.size() && t[i + 1] == '/') {
      size_t nl = t.find('\n', i);
      if (nl == std::string_view::npos) break;
      i = nl;
      continue;
    }
    if (t.compare(i, needle.size(), needle) == 0) return uint32_t(i);
  }
  return 0;
}

enum class BackendKind : uint8_t { None, EmitC, Vpto };

// A module's pto.backend: None when absent or invalid.
BackendKind module_backend(const Ctx& c, const Attr* a) {
  if (!a || a->kind != AttrKind::String || a->word == kNone) return BackendKind::None;
  std::string v = lower(c.m.str(a->word));
  return v == "emitc" ? BackendKind::EmitC : v == "vpto" ? BackendKind::Vpto : BackendKind::None;
}

const Attr* top_attr(const Ctx& c, std::string_view key) {
  for (const NamedAttr& na : c.m.module_attrs)
    if (c.m.str(na.key) == key && na.value < c.m.attr_values.size()) return &c.m.attr(na.value);
  return nullptr;
}

const Attr* inst_attr(const Ctx& c, const Inst& in, std::string_view key) {
  if (size_t(in.attrs) + in.n_attrs > c.m.attrs.size()) return nullptr;
  return c.m.find_attr(in, key);
}

class BackendChecker {
 public:
  explicit BackendChecker(Ctx& c) : c_(c) {}

  void run() {
    cli_ = !c_.opts.backend_from_cli ? BackendKind::None : c_.opts.backend_vpto ? BackendKind::Vpto : BackendKind::EmitC;
    BackendKind top = module_backend(c_, top_attr(c_, "pto.backend"));
    // Children of the top module decide when it says nothing (the first one
    // that names a backend).
    BackendKind child = BackendKind::None;
    if (c_.m.body != kNone && c_.m.body < c_.m.regions.size())
      walk(c_.m.regions[c_.m.body], cli_ != BackendKind::None ? cli_ : top, true, child);
    BackendKind effective = cli_ != BackendKind::None ? cli_ : top != BackendKind::None ? top : child;
    // After an error (an invalid pto.backend among them) the backend it
    // would have selected is unknown: say nothing more.
    if (!c_.opts.vpto_emit.empty() && effective != BackendKind::Vpto && c_.ok) {
      std::string why = cli_ == BackendKind::EmitC ? " (--pto-backend=emitc is in effect)" : "";
      uint32_t at = source_offset(c_, "pto.backend");  // a scan of the whole text: only for the error
      c_.error(at ? at : source_offset(c_, "module"),
               "VPTO-specific flags (--emit-" + c_.opts.vpto_emit +
                   ") require --pto-backend=vpto or pto.backend = \"vpto\"" + why);
    }
  }

 private:
  Ctx& c_;
  BackendKind cli_ = BackendKind::None;

  // Functions get the backend of the nearest module naming one (the
  // command line's wins). Nested modules are rare and shallow; the walk
  // recurses on modules only.
  void walk(const Region& r, BackendKind inherited, bool top_level, BackendKind& first_child) {
    for (InstId id : c_.region_insts(r)) {
      if (c_.stop()) return;
      const Inst* in = c_.inst(id);
      if (!in) continue;
      if (in->op == Op::Module) {
        BackendKind own = module_backend(c_, inst_attr(c_, *in, "pto.backend"));
        if (top_level && first_child == BackendKind::None) first_child = own;
        BackendKind b = cli_ != BackendKind::None ? cli_ : own != BackendKind::None ? own : inherited;
        if (top_level && b == BackendKind::Vpto) kernel_kind(id);
        for (unsigned k = 0; k < in->n_regions; ++k)
          if (const Region* body = c_.region(*in, k)) walk(*body, b, false, first_child);
      } else if (in->op == Op::Func && in->n_regions > 0) {
        if (inherited == BackendKind::Vpto) vpto_function(id);
      }
    }
  }

  void vpto_function(InstId fn) {
    std::vector<InstId> body;
    collect_nested(c_, fn, body);
    std::vector<char> used(c_.m.values.size(), 0);
    for (InstId id : body) {
      const Inst& in = c_.m.insts[id];
      for (unsigned k = 0; k < c_.n_operands(in); ++k) {
        ValueId v = c_.operand(in, k);
        if (v < used.size()) used[v] = 1;
      }
    }
    for (InstId id : body) {
      if (c_.stop()) return;
      const Inst& in = c_.m.insts[id];
      switch (in.op) {
        case Op::CommBuildAsyncSession: case Op::CommTPutAsync: case Op::CommTGetAsync:
        case Op::CommWaitAsyncEvent: case Op::CommTestAsyncEvent:
          c_.error(in.loc, q(in.op) + " op is not supported by the VPTO backend: async SDMA session operations "
                                      "currently require the EmitC backend");
          break;
        case Op::CmoCacheInvalid: case Op::FenceBarrierAll:
          if (c_.opts.vpto_emit != "vpto")
            c_.error(in.loc, q(in.op) + " op is not supported by the VPTO backend yet: high-level CMO/fence ops "
                                        "must be lowered to `pto.dcci` or `pto.dsb` before VPTO LLVM lowering");
          break;
        case Op::VpSectionSimt: section_threads(in); break;
        case Op::VpAtomicAdd: case Op::VpAtomicAnd: case Op::VpAtomicCas: case Op::VpAtomicExch:
        case Op::VpAtomicMax: case Op::VpAtomicMin: case Op::VpAtomicSub: {
          // The LLVM lowering of packed (two-lane f16/bf16) atomics returns
          // no old value on the CANN 9.0.0-beta.1 intrinsics.
          ValueId r = c_.result(in, 0);
          std::string t = r == kNone ? "" : c_.type_text(r);
          if (r < used.size() && used[r] && (t == "vector<2xf16>" || t == "vector<2xbf16>"))
            c_.error(in.loc, q(in.op) + " op does not support using the old value result for packed atomics "
                                        "on beta.1 (CANN 9.0.0-beta.1): the packed " + t +
                                        " atomics return nothing there");
          break;
        }
        case Op::TLoad: case Op::TStore:
          if (c_.arch == Arch::A3) unit_stride(in);
          break;
        case Op::TExtract:
          if (c_.arch == Arch::A5) extract_template(in);
          break;
        default:
          break;
      }
    }
    if (!c_.stop()) verify_simt_fragments(c_, fn);
  }

  // A VPTO kernel submodule: the official pipeline splits a child module
  // by the cube and vector ops it holds, giving each part its kernel kind
  // (VPTOSplitCVModule), then requires every child to carry one
  // (VPTONormalizeContainer). A child without pto.kernel_kind whose
  // functions hold no op that runs on a pipe has no kind to infer.
  void kernel_kind(InstId id) {
    const Inst& mod = c_.m.insts[id];
    if (inst_attr(c_, mod, "pto.kernel_kind")) return;
    std::vector<InstId> inside;
    collect_nested(c_, id, inside);
    for (InstId id : inside) {
      Sem sem = op_info(c_.m.insts[id].op).sem;
      if (sem != Sem::Struct && sem != Sem::Scalar && sem != Sem::View) return;
    }
    c_.error(mod.loc, "expected VPTO kernel submodule to carry 'pto.kernel_kind' (none is written, and "
                      "its functions hold no cube or vector op to infer one from)");
  }

  void section_threads(const Inst& in) {
    int64_t d[3];
    if (!simt_launch_dims(c_, in, d)) return;
    constexpr int64_t kMax = 2048;
    int64_t n = 1;
    for (int64_t x : d) {
      if (x <= 0 || n > kMax / x) {
        c_.error(in.loc, "'pto.section.simt' op SIMT launch dimensions must have a positive product no greater "
                         "than 2048, got (" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " +
                             std::to_string(d[2]) + ")");
        return;
      }
      n *= x;
    }
  }

  // The GM side of tload (src) / tstore (dst): a partition_view chain over a
  // make_tensor_view whose last stride must be the constant 1.
  void unit_stride(const Inst& in) {
    if (in.n_ins < 1 || in.n_outs < 1) return;
    ValueId view = in.op == Op::TLoad ? c_.operand(in, 0) : c_.operand(in, in.n_ins);
    const Inst* d = c_.def_of(view);
    if (!d || d->op != Op::PartitionView) return;
    for (int guard = 0; d && d->op == Op::PartitionView && guard < 64; ++guard) d = c_.def_of(c_.operand(*d, 0));
    if (!d || d->op != Op::MakeTensorView) return;
    unsigned n = c_.n_operands(*d);
    if (n < 3) return;
    int64_t v = 0;
    if (!int_constant(c_.m, c_.operand(*d, n - 1), v) || v != 1)
      c_.error(in.loc, q(in.op) + " op: A2/A3 DMA lowering requires a unit innermost stride (the tensor view's "
                                  "last stride must be the constant 1)");
  }

  void extract_template(const Inst& in) {
    if (in.n_ins < 1 || in.n_outs < 1) return;
    const Type* s = c_.vtype(c_.operand(in, 0));
    const Type* d = c_.vtype(c_.operand(in, in.n_ins));
    if (!s || !d || s->kind != TypeKind::TileBuf || d->kind != TypeKind::TileBuf) return;
    if (s->loc != Loc::Vec || d->loc != Loc::Mat) return;
    bool nd_src = s->blayout == BLayout::RowMajor && s->slayout == SLayout::NoneBox;
    if (!nd_src || d->slayout != SLayout::NoneBox)
      c_.error(in.loc, "NoMatchingTemplate: no legal template for op='pto.textract' target='a5': vec->mat "
                       "extraction needs an ND vec source and an ND mat destination (slayout=none_box)");
  }
};

}  // namespace

void verify_vpto_backend(Ctx& c) { BackendChecker(c).run(); }

}  // namespace verify_detail
}  // namespace ptoas
