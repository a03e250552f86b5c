#include "micro.h"

#include <map>
#include <unordered_map>

#include "ir.h"
#include "ops.h"
#include "pipes.h"
#include "tile_layout.h"

namespace ptoas::cce_model {

struct MicroModule {
  std::unique_ptr<SourceFile> src;
  Module m;
  std::unique_ptr<rt::Interpreter> interp;
  InstId fn = kNone;
  int pipe = 1;
  bool no_effect = false;  // moves no data (treshape, ops without a pipe)
  // Per operand of the op, in DPS order (ins then outs): its storage bytes
  // (tiles) -- what the race detector checks.
  std::vector<size_t> tile_bytes;
};

namespace {

// ---- the attribute table ----------------------------------------------------------------

struct AttrRowInfo {
  const char* key;
  const char* ir_kind;  // null: an int attribute
  std::vector<const char*> words;
  long long def = 0;
};

const std::vector<AttrRowInfo>& attr_rows() {
  static const std::vector<AttrRowInfo> rows = [] {
    std::vector<AttrRowInfo> r;
    std::map<std::string, size_t> by_enum;
#define PTO_ATTR_ENUM(Key, IrKind, CppEnum) \
  by_enum[#CppEnum] = r.size();             \
  r.push_back({#Key, #IrKind, {}, 0});
#define PTO_ATTR_WORD(CppEnum, X, Word) r[by_enum[#CppEnum]].words.push_back(Word);
#define PTO_ATTR_INT(Key, CppType, Default) r.push_back({#Key, nullptr, {}, (long long)(Default)});
#include "pto/model/attr_enums.def"
    return r;
  }();
  return rows;
}

// The int attributes op `name` always takes, in table order.
std::vector<size_t> int_attr_rows(std::string_view name) {
  std::vector<size_t> out;
  const auto& rows = attr_rows();
  auto add = [&](const char* op, const char* key) {
    if (name != op) return;
    for (size_t i = 0; i < rows.size(); ++i)
      if (!rows[i].ir_kind && std::string_view(rows[i].key) == key) out.push_back(i);
  };
#define PTO_ATTR_OP(OpName, Key) add(OpName, #Key);
#include "pto/model/attr_enums.def"
  return out;
}

// ---- matching the call's operands to the op's DPS signature ---------------------------

char kind_letter(const PtoModelArg& a) {
  switch (a.kind) {
    case PTO_ARG_TILE: return 't';
    case PTO_ARG_GM: return 'g';
    default: return 's';
  }
}

// Matches `args[i..]` to signature `sig` (one alternative); fills `letters`.
bool match(std::string_view sig, size_t si, const std::vector<const PtoModelArg*>& args,
           size_t ai, std::string& letters) {
  if (si >= sig.size()) return ai == args.size();
  char c = sig[si];
  if (c == '*') {
    for (size_t k = ai; k < args.size(); ++k) letters += kind_letter(*args[k]);
    return true;
  }
  bool opt = si + 1 < sig.size() && sig[si + 1] == '?';
  size_t next = si + (opt ? 2 : 1);
  if (ai < args.size()) {
    char k = kind_letter(*args[ai]);
    bool ok = c == k || (k == 's' && (c == 's' || c == 'i'));
    if (ok) {
      size_t mark = letters.size();
      letters += c;
      if (match(sig, next, args, ai + 1, letters)) return true;
      letters.resize(mark);
    }
  }
  return opt && match(sig, next, args, ai, letters);
}

bool match_any(std::string_view sigs, const std::vector<const PtoModelArg*>& args,
               std::string& letters) {
  size_t start = 0;
  while (true) {
    size_t bar = sigs.find('|', start);
    std::string_view alt = sigs.substr(start, bar == std::string_view::npos ? sigs.npos : bar - start);
    letters.clear();
    if (match(alt, 0, args, 0, letters)) return true;
    if (bar == std::string_view::npos) return false;
    start = bar + 1;
  }
}

const char* blayout_word(int b) { return b == 1 ? "col_major" : "row_major"; }
const char* slayout_word(int s) { return s == 1 ? "row_major" : s == 2 ? "col_major" : "none_box"; }

std::string tile_type_text(const PtoModelArg& a) {
  std::string t = "!pto.tile_buf<loc=" + std::string(loc_name(Loc(a.tile_type))) +
                  ", dtype=" + std::string(dtype_name(DType(a.dtype))) +
                  ", rows=" + std::to_string(a.rows) + ", cols=" + std::to_string(a.cols) +
                  // A dynamic valid extent stays dynamic (its value an operand of
                  // the alloc): the verifier checks static extents only, and the
                  // interpreter checks the values when it runs, as in the program.
                  ", v_row=" + (a.vrows_t == -1 ? std::string("?") : std::to_string(a.vrow)) +
                  ", v_col=" + (a.vcols_t == -1 ? std::string("?") : std::to_string(a.vcol)) +
                  ", blayout=" + blayout_word(a.blayout) + ", slayout=" + slayout_word(a.slayout) +
                  ", fractal=" + std::to_string(a.fractal) + ", pad=" + std::to_string(a.pad);
  if (a.compact) t += ", compact=" + std::to_string(a.compact);
  return t + ">";
}

std::string dims_text(const int64_t* d, const char* elem) {
  std::string s;
  for (int i = 0; i < 5; ++i) s += std::to_string(d[i]) + "x";
  return s + elem;
}

std::unordered_map<std::string, std::shared_ptr<const MicroModule>>& cache() {
  static std::unordered_map<std::string, std::shared_ptr<const MicroModule>> c;
  return c;
}
uint64_t g_built = 0;

}  // namespace

uint64_t modules_built() { return g_built; }
void clear_module_cache() { cache().clear(); }

bool prepare_op(const char* ir_name, const PtoModelArg* a, int n, Arch arch, PreparedOp& out,
                std::string& err) {
  Op op = lookup_op(ir_name);
  if (op == Op::Count) {
    err = "unknown op " + std::string(ir_name);
    return false;
  }
  const OpInfo& info = op_info(op);
  const auto& rows = attr_rows();
  // Attributes: enums name their row; the op's int attributes are its
  // last scalars.
  std::vector<const PtoModelArg*> opnds;
  std::vector<const PtoModelArg*> enums;
  for (int i = 0; i < n; ++i) (a[i].kind == PTO_ARG_ENUM ? enums : opnds).push_back(&a[i]);
  // The op's int attributes are its last scalars, as many as the emitter
  // passed (it passes those the IR has): the fewest that leave operands
  // fitting the op's signature (so TTRI(d, x) is the diagonal x).
  std::vector<std::pair<size_t, int64_t>> ints;
  std::vector<size_t> int_rows = int_attr_rows(info.name);
  std::string_view outs_sig = info.outs, ins_sig = info.ins;
  size_t req = 0, opt = 0;
  if (outs_sig == "*") {
    req = 1;
  } else {
    for (size_t i = 0; i < outs_sig.size(); ++i)
      if (outs_sig[i] != '?') (i + 1 < outs_sig.size() && outs_sig[i + 1] == '?' ? opt : req)++;
  }
  size_t n_outs = SIZE_MAX;
  std::string out_letters, in_letters;
  std::vector<const PtoModelArg*> all = opnds;
  for (size_t n_int = 0; n_int <= int_rows.size() && n_outs == SIZE_MAX; ++n_int) {
    if (n_int > all.size()) continue;
    bool ints_ok = true;
    for (size_t k = 0; k < n_int; ++k) ints_ok &= all[all.size() - n_int + k]->kind == PTO_ARG_INT;
    if (!ints_ok) continue;
    opnds.assign(all.begin(), all.end() - long(n_int));
    for (size_t k = req; k <= req + opt && k <= opnds.size(); ++k) {
      std::vector<const PtoModelArg*> o(opnds.begin(), opnds.begin() + long(k)),
          i(opnds.begin() + long(k), opnds.end());
      if ((outs_sig == "*" || match_any(outs_sig, o, out_letters)) && match_any(ins_sig, i, in_letters)) {
        if (outs_sig == "*") match(std::string_view("*"), 0, o, 0, out_letters);
        n_outs = k;
        for (size_t j = 0; j < n_int; ++j) ints.push_back({int_rows[j], all[opnds.size() + j]->ival});
        break;
      }
    }
  }
  if (n_outs == SIZE_MAX) {
    std::string kinds;
    for (auto* p : all) kinds += kind_letter(*p);
    err = "operands (" + kinds + ") match neither outs '" + std::string(outs_sig) + "' nor ins '" +
          std::string(ins_sig) + "' of " + std::string(info.name);
    return false;
  }
  // DPS order: ins then outs.
  std::vector<const PtoModelArg*> dps(opnds.begin() + n_outs, opnds.end());
  dps.insert(dps.end(), opnds.begin(), opnds.begin() + n_outs);
  std::string letters = in_letters + out_letters;
  size_t n_ins = opnds.size() - n_outs;
  DType scalar_elem = DType::None;
  for (auto* p : dps)
    if (p->kind == PTO_ARG_TILE) {
      scalar_elem = DType(p->dtype);
      break;
    }

  std::string params, body, ins_names, ins_types, outs_names, outs_types;
  std::map<int64_t, std::string> consts;
  auto cst = [&](int64_t v) -> std::string {
    auto it = consts.find(v);
    if (it != consts.end()) return it->second;
    std::string name = "%k" + std::to_string(consts.size());
    consts[v] = name;
    body += "    " + name + " = arith.constant " + std::to_string(v) + " : index\n";
    return name;
  };
  std::map<std::string, std::string> tile_names;
  out.args.clear();
  out.accesses.clear();
  std::vector<std::string> names(dps.size()), types(dps.size());
  for (size_t i = 0; i < dps.size(); ++i) {
    const PtoModelArg& x = *dps[i];
    bool is_out = i >= n_ins;
    if (x.kind == PTO_ARG_TILE) {
      if (!x.assigned) {
        err = "tile operand " + std::to_string(i + 1) + " was never given an address (TASSIGN)";
        return false;
      }
      if (x.tile_type < 0 || x.tile_type > 6) {
        err = "bad tile type";
        return false;
      }
      std::string ty = tile_type_text(x);
      std::string key = std::to_string(x.tile_type) + "@" + std::to_string(x.offset) + ":" + ty + ":" +
                        std::to_string(x.vrow) + "x" + std::to_string(x.vcol);
      auto it = tile_names.find(key);
      if (it == tile_names.end()) {
        std::string nm = "%t" + std::to_string(tile_names.size());
        std::string addr = "%a" + std::to_string(tile_names.size());
        body += "    " + addr + " = arith.constant " + std::to_string(x.offset) + " : i64\n";
        std::string valid;
        if (x.vrows_t == -1) valid += " valid_row = " + cst(x.vrow);
        if (x.vcols_t == -1) valid += " valid_col = " + cst(x.vcol);
        body += "    " + nm + " = pto.alloc_tile addr = " + addr + valid + " : " + ty + "\n";
        it = tile_names.emplace(key, nm).first;
      }
      names[i] = it->second;
      types[i] = ty;
    } else if (x.kind == PTO_ARG_GM) {
      const char* elem = dtype_name(DType(x.dtype)).data();
      std::string pn = "%g" + std::to_string(i);
      if (!params.empty()) params += ", ";
      params += pn + ": !pto.ptr<" + std::string(dtype_name(DType(x.dtype))) + ">";
      std::string shp, str, zeros;
      int64_t max_off = 0;
      bool empty = false;
      for (int d = 0; d < 5; ++d) {
        if (x.stride[d] < 0) {
          err = "a GM tensor with a negative stride is not supported by the model";
          return false;
        }
        if (x.shape[d] <= 0) empty = true;
        else max_off += (x.shape[d] - 1) * x.stride[d];
        shp += (d ? ", " : "") + cst(x.shape[d]);
        str += (d ? ", " : "") + cst(x.stride[d]);
        zeros += (d ? ", " : "") + cst(0);
      }
      std::string tv = "%v" + std::to_string(i), pv = "%p" + std::to_string(i);
      std::string tvt = std::string("!pto.tensor_view<?x?x?x?x?x") + elem + ">";
      std::string pvt = "!pto.partition_tensor_view<" + dims_text(x.shape, elem) + ">";
      body += "    " + tv + " = pto.make_tensor_view " + pn + ", shape = [" + shp + "], strides = [" +
              str + "] : " + tvt + "\n";
      body += "    " + pv + " = pto.partition_view " + tv + ", offsets = [" + zeros + "], sizes = [" +
              shp + "] : " + tvt + " -> " + pvt + "\n";
      names[i] = pv;
      types[i] = pvt;
      rt::Arg arg;
      arg.kind = rt::Arg::Kind::Ptr;
      arg.data = static_cast<uint8_t*>(x.ptr);
      arg.bytes = empty ? 0 : size_t(max_off + 1) * dtype_bytes(DType(x.dtype));
      out.args.push_back(arg);
      uint64_t lo = uint64_t(reinterpret_cast<uintptr_t>(x.ptr));
      out.accesses.push_back({kGm, is_out, lo, lo + arg.bytes});
    } else {
      // The C++ scalar's own type where a tile of the op shares its class
      // (tsels: an f32 scalar, an i8 mask first); else the first tile's
      // (a literal `1` passed to a float op).
      DType t = letters[i] == 'i' ? DType::Index : scalar_elem;
      if (letters[i] != 'i' && DType(x.dtype) != DType::None && DType(x.dtype) != t)
        for (auto* p : dps)
          if (p->kind == PTO_ARG_TILE && dtype_is_float(DType(p->dtype)) == dtype_is_float(DType(x.dtype)) &&
              dtype_is_int(DType(p->dtype)) == dtype_is_int(DType(x.dtype))) {
            t = DType(x.dtype);
            break;
          }
      if (t == DType::None) t = DType(x.dtype);
      std::string pn = "%s" + std::to_string(i);
      if (!params.empty()) params += ", ";
      params += pn + ": " + std::string(dtype_name(t));
      names[i] = pn;
      types[i] = std::string(dtype_name(t));
      rt::Arg arg;
      bool fl = t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::F64;
      arg.kind = fl ? rt::Arg::Kind::Float : rt::Arg::Kind::Int;
      arg.f = x.kind == PTO_ARG_FLOAT ? x.fval : double(x.ival);
      arg.i = x.kind == PTO_ARG_FLOAT ? int64_t(x.fval) : x.ival;
      out.args.push_back(arg);
    }
    std::string& nm = is_out ? outs_names : ins_names;
    std::string& tt = is_out ? outs_types : ins_types;
    if (!nm.empty()) {
      nm += ", ";
      tt += ", ";
    }
    nm += names[i];
    tt += types[i];
  }
  std::string attrs;
  for (auto* e : enums) {
    if (e->key < 0 || size_t(e->key) >= rows.size() || !rows[e->key].ir_kind ||
        e->ival < 0 || size_t(e->ival) >= rows[e->key].words.size()) {
      err = "an attribute argument outside the table";
      return false;
    }
    const AttrRowInfo& r = rows[e->key];
    attrs += std::string(attrs.empty() ? "" : ", ") + r.key + " = #pto<" + r.ir_kind + " " +
             r.words[e->ival] + ">";
  }
  for (auto& [row, v] : ints)
    attrs += std::string(attrs.empty() ? "" : ", ") + rows[row].key + " = " + std::to_string(v) + " : i32";
  std::string text = "module {\n  func.func @m(" + params + ") {\n" + body + "    " +
                     std::string(info.name);
  if (!ins_names.empty()) text += " ins(" + ins_names + " : " + ins_types + ")";
  if (!outs_names.empty()) text += " outs(" + outs_names + " : " + outs_types + ")";
  if (!attrs.empty()) text += " {" + attrs + "}";
  text += "\n    return\n  }\n}\n";
  std::string key = std::string(arch == Arch::A5 ? "a5\n" : "a3\n") + text;

  auto& c = cache();
  auto it = c.find(key);
  if (it == c.end()) {
    auto mm = std::make_shared<MicroModule>();
    mm->src = std::make_unique<SourceFile>(std::string("<model ") + ir_name + ">", text);
    FrontendOptions fo;
    fo.arch_from_cli = true;
    fo.arch = arch;
    fo.level = Level::Level3;
    Diag diag(mm->src.get());
    if (!run_frontend(*mm->src, fo, mm->m, diag)) {
      err = "the op's one-op module does not verify:\n" + diag.text() + "the module:\n" + text;
      return false;
    }
    ++g_built;
    mm->interp = std::make_unique<rt::Interpreter>(mm->m);
    std::string ferr;
    mm->fn = mm->interp->find_function("m", ferr);
    if (mm->fn == kNone) {
      err = ferr;
      return false;
    }
    // The op: the one instruction of its kind in the function.
    for (const Inst& in : mm->m.insts)
      if (in.op == op) {
        // Ops without a pipe of their own (no tile or GM effect) queue on S.
        Pipe p = op_pipe(mm->m, in, arch);
        mm->pipe = p == Pipe::None || p == Pipe::All ? int(Pipe::S) : int(p);
        mm->no_effect = p == Pipe::None || op == Op::TReshape;
        for (unsigned k = 0; k < in.n_ins + in.n_outs; ++k) {
          const Type& t = mm->m.type_of(mm->m.operand(in, k));
          mm->tile_bytes.push_back(t.kind == TypeKind::TileBuf ? tile_storage_bytes(t) : 0);
        }
        break;
      }
    it = c.emplace(key, std::move(mm)).first;
  }
  out.mod = it->second;
  out.pipe = it->second->pipe;
  if (it->second->no_effect) {
    out.accesses.clear();
    return true;
  }
  for (size_t i = 0; i < dps.size() && i < it->second->tile_bytes.size(); ++i)
    if (dps[i]->kind == PTO_ARG_TILE)
      out.accesses.push_back({uint8_t(dps[i]->tile_type), i >= n_ins, dps[i]->offset,
                              dps[i]->offset + it->second->tile_bytes[i]});
  return true;
}

bool run_op(const PreparedOp& op, const rt::TileArenas& arenas, int64_t bi, int64_t bn,
            std::string& err) {
  return op.mod->interp->run_block(op.mod->fn, op.args, bi, bn, arenas, err);
}

}  // namespace ptoas::cce_model
