// Per-op operand checks for DPS tile ops, driven by the op table (ops.def):
//   * operand counts and classes against the ins/outs signatures
//     (t tile, g GM view, s scalar, i index/integer, p pointer; `?` optional,
//     `|` alternatives, `*` anything from there on);
//   * the element type of the op's checked tile against the arch's mask;
//   * scalar operands of tile-scalar ops have the tile element type;
//   * elementwise ops: sources have dst's element type and valid shape;
//   * matmul: operand locs (left/right/acc/bias) and (C, A, B) dtype triples;
// then the per-op rules of verify_tile_*.cpp.
#include <mutex>
#include <string>
#include <vector>

#include "verify_tile_util.h"

namespace ptoas {
namespace verify_detail {
namespace {

struct Letter {
  char kind;      // t g s i p
  bool optional;  // trailing '?'
};

struct Alt {
  std::vector<Letter> letters;
  bool star = false;  // '*': any number of any operands after the letters
  unsigned required() const {
    unsigned n = 0;
    for (const Letter& l : letters) n += !l.optional;
    return n;
  }
  bool count_ok(unsigned n) const {
    return n >= required() && (star || n <= letters.size());
  }
};

std::vector<Alt> parse_sig(const char* sig) {
  std::vector<Alt> alts(1);
  for (const char* p = sig ? sig : ""; *p; ++p) {
    char ch = *p;
    if (ch == '|') {
      alts.emplace_back();
    } else if (ch == '*') {
      alts.back().star = true;
    } else if (ch == '?') {
      if (!alts.back().letters.empty()) alts.back().letters.back().optional = true;
    } else if (ch != ' ') {
      alts.back().letters.push_back({ch, false});
    }
  }
  return alts;
}

// The op table's signatures, each parsed on its first use (this ran per
// instruction; parsing every op's at start-up cost more than a small file's
// whole verification).
struct OpSig {
  std::once_flag parsed;  // verifiers may run on several threads
  std::vector<Alt> ins, outs;
};
const OpSig& op_sig(Op op) {
  static OpSig sigs[static_cast<size_t>(Op::Count)];
  OpSig& s = sigs[size_t(op)];
  std::call_once(s.parsed, [&] {
    s.ins = parse_sig(op_info(op).ins);
    s.outs = parse_sig(op_info(op).outs);
  });
  return s;
}

std::string counts_text(const std::vector<Alt>& alts) {
  std::string s;
  for (size_t i = 0; i < alts.size(); ++i) {
    if (i) s += i + 1 == alts.size() ? " or " : ", ";
    const Alt& a = alts[i];
    unsigned lo = a.required(), hi = unsigned(a.letters.size());
    if (a.star) s += "at least " + std::to_string(lo);
    else if (lo == hi) s += std::to_string(lo);
    else s += std::to_string(lo) + " to " + std::to_string(hi);
  }
  return s;
}

const char* kind_text(char k) {
  switch (k) {
    case 't': return "a tile (tile_buf or local memref)";
    case 'g': return "a GM view (partition_tensor_view, tensor_view or gm memref)";
    case 's': return "a scalar";
    case 'i': return "an index or integer scalar";
    case 'p': return "a pointer";
    default: return "an operand";
  }
}

bool text_has(const Ctx& c, TypeId t, std::string_view what) {
  return t != kNone && c.m.types.text(t).find(what) != std::string_view::npos;
}

bool kind_ok(const Ctx& c, char k, ValueId v) {
  const Type* t = c.vtype(v);
  if (!t) return true;  // unknown: nothing to say
  TypeId tid = c.vtype_id(v);
  switch (k) {
    case 't':
      return is_tile_like(*t) || (t->kind == TypeKind::Other && text_has(c, tid, "tile"));
    case 'g':
      return is_gm_like(*t) || (t->kind == TypeKind::Other && text_has(c, tid, "tile_view"));
    case 's':
      return t->kind == TypeKind::Scalar;
    case 'i':
      return is_index_or_int(*t);
    case 'p':
      return t->kind == TypeKind::Ptr;
    default:
      return true;
  }
}

// Matches operands [first, first+n) of `in` against `alts`. Returns the index
// of the matching alternative, or -1 after reporting.
int match(Ctx& c, const Inst& in, const std::vector<Alt>& alts, unsigned first, unsigned n,
          const char* side) {
  int count_match = -1;
  for (size_t ai = 0; ai < alts.size(); ++ai) {
    const Alt& a = alts[ai];
    if (!a.count_ok(n)) continue;
    if (count_match < 0) count_match = int(ai);
    bool ok = true;
    for (unsigned i = 0; i < n && i < a.letters.size(); ++i)
      if (!kind_ok(c, a.letters[i].kind, c.operand(in, first + i))) ok = false;
    if (ok) return int(ai);
  }
  if (count_match < 0) {
    c.error(in.loc, q(in.op) + " expects " + counts_text(alts) + " " + side +
                        " operand" + (alts.size() == 1 && alts[0].letters.size() == 1 &&
                                              !alts[0].star
                                          ? ""
                                          : "s") +
                        ", got " + std::to_string(n));
    return -1;
  }
  const Alt& a = alts[size_t(count_match)];
  for (unsigned i = 0; i < n && i < a.letters.size(); ++i) {
    ValueId v = c.operand(in, first + i);
    if (!kind_ok(c, a.letters[i].kind, v)) {
      c.error(in.loc, q(in.op) + " " + side + " operand #" + std::to_string(i) + " must be " +
                          kind_text(a.letters[i].kind) + ", got " + c.type_text(v));
      break;
    }
  }
  return -1;
}

// Static valid shape of a tile-like operand (tile_buf valid dims, or a rank-2
// memref's dims). False when unknown or dynamic.
bool valid_shape(const Ctx& c, ValueId v, int64_t& r, int64_t& col) {
  const Type* t = c.vtype(v);
  if (!t) return false;
  if (t->kind == TypeKind::TileBuf) {
    if (t->vrow == kDyn || t->vcol == kDyn) return false;
    r = t->vrow;
    col = t->vcol;
    return true;
  }
  if (t->kind == TypeKind::Memref && t->rank == 2 && t->dims != kNone) {
    TypeId id = c.vtype_id(v);
    r = c.m.types.dim(id, 0);
    col = c.m.types.dim(id, 1);
    return r >= 0 && col >= 0;
  }
  return false;
}

DType elem_of(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  if (!t || (t->kind != TypeKind::TileBuf && t->kind != TypeKind::Memref)) return DType::None;
  return t->elem;
}

Loc loc_of(const Ctx& c, ValueId v) {
  const Type* t = c.vtype(v);
  if (!t || (t->kind != TypeKind::TileBuf && t->kind != TypeKind::Memref)) return Loc::None;
  return t->loc;
}

std::string dn(DType d) { return std::string(dtype_name(d)); }
std::string shape_text(int64_t r, int64_t col) {
  return std::to_string(r) + "x" + std::to_string(col);
}

bool is_fp8(DType d) { return (kFp8 & dt_bit(d)) != 0; }

void check_matmul(Ctx& c, const Inst& in) {
  bool acc = in.op == Op::TMatmulAcc || in.op == Op::TGemvAcc;
  bool bias = in.op == Op::TMatmulBias || in.op == Op::TGemvBias;
  if (in.op == Op::TMatmulMx || in.op == Op::TMatmulMxAcc || in.op == Op::TMatmulMxBias ||
      in.op == Op::TGemvMx || in.op == Op::TGemvMxAcc || in.op == Op::TGemvMxBias)
    return;
  unsigned ia = acc ? 1 : 0;
  ValueId a = c.operand(in, ia), b = c.operand(in, ia + 1);
  ValueId d = in.n_outs ? c.operand(in, in.n_ins) : kNone;
  struct Role {
    ValueId v;
    Loc want;
    const char* name;
  };
  std::vector<Role> roles = {{a, Loc::Left, "lhs"}, {b, Loc::Right, "rhs"}, {d, Loc::Acc, "dst"}};
  if (acc) roles.push_back({c.operand(in, 0), Loc::Acc, "accumulator input"});
  if (bias) roles.push_back({c.operand(in, 2), Loc::Bias, "bias"});
  for (const Role& r : roles) {
    Loc l = loc_of(c, r.v);
    if (l == Loc::None || l == r.want) continue;
    // PTOAS 0.60 takes operands still in L1 (tilelang's tload_mat test
    // multiplies two loc=mat tiles; the L0 moves are implicit).
    if (l == Loc::Mat && (r.want == Loc::Left || r.want == Loc::Right)) continue;
    c.error(in.loc, q(in.op) + " expects the " + r.name + " tile in loc=" +
                        std::string(loc_name(r.want)) + ", got loc=" + std::string(loc_name(l)));
    return;
  }
  DType ta = elem_of(c, a), tb = elem_of(c, b), tc = elem_of(c, d);
  if (ta == DType::None || tb == DType::None || tc == DType::None) return;
  bool ok = (tc == DType::I32 && ta == DType::I8 && tb == DType::I8) ||
            (tc == DType::F32 && ta == DType::F16 && tb == DType::F16) ||
            (tc == DType::F32 && ta == DType::BF16 && tb == DType::BF16) ||
            (tc == DType::F32 && ta == DType::F32 && tb == DType::F32) ||
            (c.arch == Arch::A5 && tc == DType::F32 && is_fp8(ta) && is_fp8(tb));
  if (!ok)
    c.error(in.loc, q(in.op) + " does not support (dst, lhs, rhs) element types (" + dn(tc) +
                        ", " + dn(ta) + ", " + dn(tb) + ") on " + std::string(c.arch_name()) +
                        "; expected (i32, i8, i8), (f32, f16, f16), (f32, bf16, bf16) or "
                        "(f32, f32, f32)" +
                        (c.arch == Arch::A5 ? " or (f32, fp8, fp8)" : ""));
}

}  // namespace

void verify_dps_inst(Ctx& c, InstId id) {
  const Inst* ip = c.inst(id);
  if (!ip) return;
  const Inst& in = *ip;
  const OpInfo& info = op_info(in.op);
  const int errors_before = c.diag.error_count();

  const std::vector<Alt>& ins_alts = op_sig(in.op).ins;
  const std::vector<Alt>& outs_alts = op_sig(in.op).outs;
  int ai = match(c, in, ins_alts, 0, in.n_ins, "ins");
  if (ai < 0) return;
  int ao = match(c, in, outs_alts, in.n_ins, in.n_outs, "outs");
  if (ao < 0) return;
  const Alt& ia = ins_alts[size_t(ai)];
  const Alt& oa = outs_alts[size_t(ao)];
  auto in_letter = [&](unsigned i) -> Letter {
    return i < ia.letters.size() ? ia.letters[i] : Letter{'*', true};
  };
  auto out_v = [&](unsigned i) { return c.operand(in, unsigned(in.n_ins) + i); };

  // ---- the checked tile and the arch's dtype mask ----
  ValueId checked = kNone;
  if (info.sem == Sem::Compare) {
    if (in.n_ins > 0 && in_letter(0).kind == 't') checked = c.operand(in, 0);
  } else if (info.sem == Sem::Matmul) {
    unsigned a = (in.op == Op::TMatmulAcc || in.op == Op::TGemvAcc) ? 1 : 0;
    if (a < in.n_ins) checked = c.operand(in, a);
  } else if (in.n_outs > 0 && !oa.letters.empty() && oa.letters[0].kind == 't') {
    checked = out_v(0);
  } else {
    for (unsigned i = 0; i < in.n_ins; ++i)
      if (in_letter(i).kind == 't') {
        checked = c.operand(in, i);
        break;
      }
  }
  uint32_t mask = c.arch == Arch::A5 ? info.dtypes_a5 : info.dtypes_a3;
  DType ce = elem_of(c, checked);
  if (mask != kAny && ce != DType::None && !(mask & dt_bit(ce))) {
    if (in.op == Op::TSel && c.arch == Arch::A3)
      c.error(in.loc, "'pto.tsel' op expects A2/A3 tsel src0, src1, and dst element type to be "
                      "i16/i32/f16/f32, got " + dn(ce));
    else
      c.error(in.loc, q(in.op) + " does not support element type " + dn(ce) + " on " +
                          std::string(c.arch_name()) + " (supported: " + dtype_set_text(mask) +
                          ")");
    return;
  }

  // ---- scalar operands are of the tile element type's class ----
  // PTOAS 0.60 takes another width of the same class (an i16 shift count on
  // an i32 tile, an f32 slope on an f16 tile); the CPU targets refuse the
  // mixed form by name, the interpreter and cce convert the scalar.
  if ((info.sem == Sem::EltScalar || info.sem == Sem::Compare || info.sem == Sem::Select) &&
      in.op != Op::TAxpy && in.op != Op::TCi && ce != DType::None) {
    for (unsigned i = 0; i < in.n_ins; ++i) {
      if (in_letter(i).kind != 's') continue;
      ValueId v = c.operand(in, i);
      const Type* t = c.vtype(v);
      if (!t || t->kind != TypeKind::Scalar || t->elem == ce) continue;
      if (dtype_is_float(t->elem) == dtype_is_float(ce) && dtype_is_int(t->elem) == dtype_is_int(ce))
        continue;
      c.error(in.loc, q(in.op) + " expects scalar operand #" + std::to_string(i) +
                          " to have the tile element type " + dn(ce) + " (or another " +
                          (dtype_is_float(ce) ? "float" : "integer") + " width), got " + dn(t->elem));
      return;
    }
  }

  // ---- elementwise: sources agree with dst ----
  bool eltwise = info.sem == Sem::EltBin || info.sem == Sem::EltUnary ||
                 info.sem == Sem::EltScalar;
  bool mixed_types = in.op == Op::TAddReluConv || in.op == Op::TAddDeqRelu ||
                     in.op == Op::TAxpy || in.op == Op::TPartAdd || in.op == Op::TPartMul ||
                     in.op == Op::TPartMax || in.op == Op::TPartMin;
  bool part = in.op == Op::TPartAdd || in.op == Op::TPartMul || in.op == Op::TPartMax ||
              in.op == Op::TPartMin;
  if (eltwise && in.n_outs > 0) {
    ValueId d = out_v(0);
    DType de = elem_of(c, d);
    int64_t dr = 0, dc = 0;
    bool dshape = valid_shape(c, d, dr, dc);
    for (unsigned i = 0; i < in.n_ins; ++i) {
      Letter l = in_letter(i);
      if (l.kind != 't' || l.optional) continue;
      ValueId s = c.operand(in, i);
      DType se = elem_of(c, s);
      if (!mixed_types && de != DType::None && se != DType::None && se != de) {
        c.error(in.loc, q(in.op) + " expects ins operand #" + std::to_string(i) +
                            " to have dst's element type " + dn(de) + ", got " + dn(se));
        return;
      }
      int64_t sr = 0, sc = 0;
      if (!part && dshape && valid_shape(c, s, sr, sc) && (sr != dr || sc != dc)) {
        c.error(in.loc, q(in.op) + " expects ins operand #" + std::to_string(i) +
                            " to have dst's valid shape " + shape_text(dr, dc) + ", got " +
                            shape_text(sr, sc));
        return;
      }
    }
  }

  switch (in.op) {
    // textract with `fp %f`: the fixpipe path out of the accumulator.
    case Op::TExtractFp: {
      const Type* st = in.n_ins > 1 ? c.vtype(c.operand(in, 0)) : nullptr;
      const Type* ft = in.n_ins > 1 ? c.vtype(c.operand(in, 1)) : nullptr;
      const Type* dt = in.n_outs > 0 ? c.vtype(out_v(0)) : nullptr;
      if (!st || !ft || !dt || st->kind != TypeKind::TileBuf || ft->kind != TypeKind::TileBuf ||
          dt->kind != TypeKind::TileBuf)
        break;
      if (st->loc != Loc::Acc) {
        c.error(in.loc, "'pto.textract' op expects fp form to use loc=acc src, got loc=" +
                            std::string(loc_name(st->loc)));
      } else if (ft->loc != Loc::Scaling) {
        c.error(in.loc, "'pto.textract' op expects fp to use loc=scaling, got loc=" +
                            std::string(loc_name(ft->loc)));
      } else if (c.arch == Arch::A5 && dt->loc != Loc::Mat && dt->loc != Loc::Vec) {
        c.error(in.loc, "'pto.textract' op expects A5 textract to use a supported src/dst loc pair: "
                        "acc->mat or acc->vec (got acc->" + std::string(loc_name(dt->loc)) + ")");
      } else if (c.arch == Arch::A5 &&
                 (st->blayout != BLayout::ColMajor || st->slayout != SLayout::RowMajor)) {
        c.error(in.loc, "'pto.textract' op expects A5 acc-source textract src to use "
                        "blayout=col_major and slayout=row_major");
      } else if (c.arch == Arch::A5) {
        // The fixpipe narrows: an f32 accumulator to f32/f16/bf16/8-bit
        // integers or 8-bit floats, an i32 one to f16/bf16/8-bit integers
        // (never to f32).
        DType se = st->elem, de = dt->elem;
        bool int8 = de == DType::I8 || de == DType::SI8 || de == DType::U8;
        bool half = de == DType::F16 || de == DType::BF16;
        bool f8 = is_fp8(de) || de == DType::HiF8;
        bool ok = se == DType::F32 ? (de == DType::F32 || half || int8 || f8)
                : (se == DType::I32 || se == DType::SI32) ? (half || int8)
                : false;
        if (!ok)
          c.error(in.loc, "'pto.textract' op expects A5 acc preQuantScalar textract element types to "
                          "be src=f32 with dst=f32/f16/bf16/i8/ui8/fp8/hif8, or src=i32 with dst=f16/bf16/i8/ui8, "
                          "got src=" + dn(se) + ", dst=" + dn(de));
      }
      break;
    }
    default:
      if (info.sem == Sem::Matmul) check_matmul(c, in);
      break;
  }
  if (c.diag.error_count() != errors_before) return;
  verify_tile_gather_inst(c, in);
  verify_tile_ops_inst(c, in);
  verify_tile_tmp_inst(c, in);
  verify_tile_matmul_inst(c, in);
  verify_tile_mem_inst(c, in);
}

}  // namespace verify_detail
}  // namespace ptoas
