// Decoding arithmetic, memory and warp-level instructions (decoder.h).
#include "decoder.h"

namespace ptoas::ptx {

namespace {

constexpr Ty kInts[] = {Ty::B16, Ty::B32, Ty::B64, Ty::U16, Ty::U32, Ty::U64, Ty::S16, Ty::S32, Ty::S64};
bool is_int16_64(Ty t) { return std::find(std::begin(kInts), std::end(kInts), t) != std::end(kInts); }
bool is_fp(Ty t) { return t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2 || t == Ty::F32 || t == Ty::F64; }

struct Named {
  const char* name;
  Op op;
};
constexpr Named kArith[] = {
    {"add", Op::Add},     {"sub", Op::Sub},     {"mul", Op::Mul},       {"mad", Op::Mad},     {"fma", Op::Fma},
    {"div", Op::Div},     {"rem", Op::Rem},     {"min", Op::Min},       {"max", Op::Max},     {"abs", Op::Abs},
    {"neg", Op::Neg},     {"and", Op::And},     {"or", Op::Or},         {"xor", Op::Xor},     {"not", Op::Not},
    {"cnot", Op::Cnot},   {"shl", Op::Shl},     {"shr", Op::Shr},       {"shf", Op::Shf},     {"bfe", Op::Bfe},
    {"bfi", Op::Bfi},     {"popc", Op::Popc},   {"clz", Op::Clz},       {"brev", Op::Brev},   {"prmt", Op::Prmt},
    {"lop3", Op::Lop3},   {"setp", Op::Setp},   {"selp", Op::Selp},     {"slct", Op::Slct},   {"cvt", Op::Cvt},
    {"rcp", Op::Rcp},     {"sqrt", Op::Sqrt},   {"rsqrt", Op::Rsqrt},   {"ex2", Op::Ex2},     {"lg2", Op::Lg2},
    {"sin", Op::Sin},     {"cos", Op::Cos},     {"tanh", Op::Tanh},     {"testp", Op::Testp}, {"copysign", Op::Copysign},
};

}  // namespace

bool Decoder::arith() {
  in.op = Op::Nop;
  for (const Named& n : kArith)
    if (base == n.name) in.op = n.op;
  if (in.op == Op::Nop) return fail("unknown instruction '" + std::string(opc.text) + "'");
  Op op = in.op;
  // Setp first: its compare word must not be read as anything else.
  if (op == Op::Setp) {
    if (mods.empty() || !cmp_word(mods.front(), in.cmp)) return fail("setp needs a compare operator (setp.lt.s32)");
    mods.erase(mods.begin());
    if (take("and")) in.boolop = BoolOp::And;
    else if (take("or")) in.boolop = BoolOp::Or;
    else if (take("xor")) in.boolop = BoolOp::Xor;
    flag("ftz", F_FTZ);
    if (!one_type({}) || !done()) return false;
    if (in.type == Ty::Pred || in.type == Ty::B8 || in.type == Ty::U8 || in.type == Ty::S8 || in.type == Ty::B128)
      return fail("setp does not compare this type");
    size_t k = ops.size() > 1 && ops[1].piped ? 2 : 1;
    size_t need = k + 2 + (in.boolop != BoolOp::None ? 1 : 0);
    if (!count(need, need)) return false;
    if (!pdst(0)) return false;
    if (k == 2) {
      if (!pdst(1)) return false;
    } else {
      sink();
    }
    if (!src(k, in.type) || !src(k + 1, in.type)) return false;
    if (in.boolop != BoolOp::None && !psrc(k + 2)) return false;
    return true;
  }
  in.rnd = take_rnd();
  flag("ftz", F_FTZ);
  flag("sat", F_SAT);
  flag("approx", F_APPROX);
  flag("full", F_FULL);
  flag("relu", F_RELU);
  flag("satfinite", F_SATFINITE);
  flag("NaN", F_NAN);
  flag("xorsign", F_XORSIGN);
  flag("abs", F_ABS);
  if (op == Op::Mul || op == Op::Mad) {
    flag("hi", F_HI);
    flag("lo", F_LO);
    flag("wide", F_WIDE);
  }
  if (take("cc")) return fail("carry chains (.cc) are not supported by the PTX interpreter");
  if (op == Op::Testp) {
    if (!take_mode({"finite", "infinite", "number", "notanumber", "normal", "subnormal"})) return fail("testp needs a test (.finite, .infinite, .number, .notanumber, .normal, .subnormal)");
    if (!one_type({Ty::F32, Ty::F64}) || !done() || !count(2, 2)) return false;
    return pdst(0) && src(1, in.type);
  }
  if (op == Op::Shf) {
    if (take("l")) in.flags |= F_LEFT;
    else if (!take("r")) return fail("shf needs .l or .r");
    if (take("wrap")) in.flags |= F_WRAP;
    else if (!take("clamp")) return fail("shf needs .wrap or .clamp");
    if (!one_type({Ty::B32}) || !done() || !count(4, 4)) return false;
    return dst(0) && src(1, Ty::B32) && src(2, Ty::B32) && src(3, Ty::U32);
  }
  if (op == Op::Prmt) {
    static const char* k[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
    for (int i = 0; i < 6; ++i)
      if (take(k[i])) return fail("prmt's ." + std::string(k[i]) + " mode is not supported; the default mode is");
    if (!one_type({Ty::B32}) || !done() || !count(4, 4)) return false;
    return dst(0) && src(1, Ty::B32) && src(2, Ty::B32) && src(3, Ty::B32);
  }
  std::vector<Ty> types = take_types();
  if (op == Op::Cvt) {
    if (types.size() != 2) return fail("cvt needs a destination and a source type (cvt.rn.f32.s32)");
    in.type = types[0];
    in.type2 = types[1];
    if (!done()) return false;
    Ty d = in.type, a = in.type2;
    if (d == Ty::Pred || a == Ty::Pred || d == Ty::B128 || a == Ty::B128 || a == Ty::F16x2 || a == Ty::BF16x2 ||
        a == Ty::TF32)
      return fail(std::string("cvt") + ty_name(d) + ty_name(a) + " is not supported");
    bool pair = d == Ty::F16x2 || d == Ty::BF16x2;
    if (pair && a != Ty::F32) return fail("cvt to a packed pair converts two .f32 values");
    if (d == Ty::TF32 && a != Ty::F32) return fail("cvt to .tf32 converts an .f32 value");
    bool dflt = ty_float(d), aflt = ty_float(a);
    bool int_rnd = in.rnd >= Rnd::RNI;
    if (dflt && aflt) {
      bool narrowing = ty_bytes(d) < ty_bytes(a) || d == Ty::BF16 || d == Ty::BF16x2 || d == Ty::TF32 ||
                       (d == Ty::F16 && a == Ty::BF16) || (d == Ty::F16x2);
      if (narrowing && (in.rnd == Rnd::None || int_rnd))
        return fail("a narrowing float cvt needs .rn, .rz, .rm or .rp");
      if (in.rnd == Rnd::RNA && d != Ty::TF32) return fail(".rna is for cvt.rna.tf32.f32");
      if (!narrowing && in.rnd != Rnd::None && !int_rnd && d != a)
        return fail("a widening float cvt takes no rounding modifier");
    } else if (dflt && !aflt) {
      if (in.rnd == Rnd::None || int_rnd) return fail("cvt from an integer to a float needs .rn, .rz, .rm or .rp");
    } else if (!dflt && aflt) {
      if (!int_rnd) return fail("cvt from a float to an integer needs .rni, .rzi, .rmi or .rpi");
    } else if (in.rnd != Rnd::None) {
      return fail("cvt between integers takes no rounding modifier");
    }
    if (!count(pair ? 3 : 2, pair ? 3 : 2)) return false;
    if (!dst(0) || !src(1, a)) return false;
    return !pair || src(2, a);
  }
  if (op == Op::Slct) {
    if (types.size() != 2 || (types[1] != Ty::S32 && types[1] != Ty::F32))
      return fail("slct needs a value type and .s32 or .f32 (slct.f32.s32)");
    in.type = types[0];
    in.type2 = types[1];
    if (!done() || !count(4, 4)) return false;
    return dst(0) && src(1, in.type) && src(2, in.type) && src(3, in.type2);
  }
  if (types.size() != 1) return fail("'" + std::string(opc.text) + "' needs exactly one type");
  in.type = types[0];
  Ty t = in.type;
  if (!done()) return false;
  bool flt = is_fp(t);
  switch (op) {
    case Op::Add: case Op::Sub: case Op::Mul:
      if (!flt && !is_int16_64(t)) return fail(std::string("type ") + ty_name(t) + " is not supported here");
      if (!flt && !(in.flags & (F_HI | F_WIDE))) in.flags |= F_LO;
      if (flt && in.flags & (F_HI | F_LO | F_WIDE)) return fail(".hi/.lo/.wide are for integers");
      if ((in.flags & F_WIDE) && ty_bytes(t) == 8) return fail("mul.wide takes 16- or 32-bit operands");
      return count(3, 3) && dst(0) && src(1, t) && src(2, t);
    case Op::Mad: case Op::Fma:
      if (!flt && (op == Op::Fma || !is_int16_64(t))) return fail(std::string("type ") + ty_name(t) + " is not supported here");
      if (!flt && !(in.flags & (F_HI | F_WIDE))) in.flags |= F_LO;
      if ((in.flags & F_WIDE) && ty_bytes(t) == 8) return fail("mad.wide takes 16- or 32-bit operands");
      if (flt && in.rnd == Rnd::None && !(t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2)) {
        if (op == Op::Fma) return fail("fma needs a rounding modifier (fma.rn.f32)");
        in.rnd = Rnd::RN;
      }
      if (flt) in.op = Op::Fma;
      return count(4, 4) && dst(0) && src(1, t) && src(2, t) && src(3, t);
    case Op::Div:
      if (flt) {
        if (t != Ty::F32 && t != Ty::F64) return fail("div takes .f32 or .f64");
        if (!(in.flags & (F_APPROX | F_FULL)) && in.rnd == Rnd::None) return fail("div.f32 needs .approx, .full or .rn");
      } else if (!is_int16_64(t)) {
        return fail("div does not take this type");
      }
      return count(3, 3) && dst(0) && src(1, t) && src(2, t);
    case Op::Rem:
      if (!is_int16_64(t)) return fail("rem takes integer types");
      return count(3, 3) && dst(0) && src(1, t) && src(2, t);
    case Op::Min: case Op::Max:
      if (!flt && !is_int16_64(t)) return fail("min/max do not take this type");
      if (!count(3, 4) || !dst(0) || !src(1, t) || !src(2, t)) return false;
      return ops.size() == 3 || src(3, t);
    case Op::Abs: case Op::Neg:
      if (!flt && !is_int16_64(t)) return fail("abs/neg do not take this type");
      return count(2, 2) && dst(0) && src(1, t);
    case Op::And: case Op::Or: case Op::Xor:
      if (t == Ty::Pred) return count(3, 3) && pdst(0) && psrc(1) && psrc(2);
      if (!is_int16_64(t)) return fail("bitwise operations take .b16/.b32/.b64/.pred");
      return count(3, 3) && dst(0) && src(1, t) && src(2, t);
    case Op::Not: case Op::Cnot:
      if (t == Ty::Pred && op == Op::Not) return count(2, 2) && pdst(0) && psrc(1);
      if (!is_int16_64(t)) return fail("not/cnot take .b16/.b32/.b64");
      return count(2, 2) && dst(0) && src(1, t);
    case Op::Shl: case Op::Shr:
      if (!is_int16_64(t)) return fail("shifts take 16-, 32- or 64-bit integer types");
      return count(3, 3) && dst(0) && src(1, t) && src(2, Ty::U32);
    case Op::Bfe:
      if (t != Ty::U32 && t != Ty::S32 && t != Ty::U64 && t != Ty::S64) return fail("bfe takes .u32/.s32/.u64/.s64");
      return count(4, 4) && dst(0) && src(1, t) && src(2, Ty::U32) && src(3, Ty::U32);
    case Op::Bfi:
      if (t != Ty::B32 && t != Ty::B64) return fail("bfi takes .b32/.b64");
      return count(5, 5) && dst(0) && src(1, t) && src(2, t) && src(3, Ty::U32) && src(4, Ty::U32);
    case Op::Popc: case Op::Clz: case Op::Brev:
      if (t != Ty::B32 && t != Ty::B64) return fail("popc/clz/brev take .b32/.b64");
      return count(2, 2) && dst(0) && src(1, t);
    case Op::Lop3:
      if (t != Ty::B32 && t != Ty::B64) return fail("lop3 takes .b32/.b64");
      if (!count(5, 5) || !dst(0) || !src(1, t) || !src(2, t) || !src(3, t)) return false;
      if (ops[4].o.kind != Opnd::Imm) return fail_at(ops[4], "lop3's table is a constant");
      return src(4, Ty::B32);
    case Op::Selp:
      if (t == Ty::Pred) return fail("selp selects values, not predicates");
      return count(4, 4) && dst(0) && src(1, t) && src(2, t) && psrc(3);
    case Op::Rcp: case Op::Sqrt:
      if (t != Ty::F32 && t != Ty::F64) return fail("rcp/sqrt take .f32/.f64");
      if (!(in.flags & F_APPROX) && in.rnd == Rnd::None) return fail("rcp/sqrt need .approx or a rounding modifier");
      return count(2, 2) && dst(0) && src(1, t);
    case Op::Rsqrt: case Op::Ex2: case Op::Lg2: case Op::Sin: case Op::Cos: case Op::Tanh:
      if (!(in.flags & F_APPROX)) return fail("'" + std::string(base) + "' needs .approx");
      if (t != Ty::F32 && !(t == Ty::F64 && op == Op::Rsqrt) &&
          !((op == Op::Ex2 || op == Op::Tanh) && (t == Ty::F16 || t == Ty::BF16 || t == Ty::F16x2 || t == Ty::BF16x2)))
        return fail(std::string("type ") + ty_name(t) + " is not supported for '" + std::string(base) + "'");
      return count(2, 2) && dst(0) && src(1, t);
    case Op::Copysign:
      if (t != Ty::F32 && t != Ty::F64) return fail("copysign takes .f32/.f64");
      return count(3, 3) && dst(0) && src(1, t) && src(2, t);
    default: break;
  }
  return fail("unknown instruction '" + std::string(opc.text) + "'");
}

bool Decoder::memory() {
  if (base == "prefetch" || base == "prefetchu") {
    in.op = Op::Nop;
    mods.clear();
    return count(1, 1);
  }
  if (base == "mov") {
    in.op = Op::Mov;
    if (!one_type({}) || !done() || !count(2, 2)) return false;
    Ty t = in.type;
    if (ops[0].o.kind == Opnd::Vec || ops[1].o.kind == Opnd::Vec) {
      // Unpack (mov.b32 {lo, hi}, r) or pack (mov.b64 r, {lo, hi}).
      size_t i = ops[0].o.kind == Opnd::Vec ? 0 : 1;
      size_t n = ops[i].elems.size();
      if (t != Ty::B32 && t != Ty::B64 && t != Ty::B16) return fail("pack/unpack moves take .b16/.b32/.b64");
      if (n != 2 && n != 4) return fail("a packed move has 2 or 4 parts");
      if (ty_bytes(t) / n == 0) return fail("too many parts for this type");
      in.mode = i == 0 ? 1 : 2;
      in.vec = uint8_t(n);
      Ty part = ty_bytes(t) / n == 1 ? Ty::B8 : ty_bytes(t) / n == 2 ? Ty::B16 : Ty::B32;
      if (i == 0) return vec(0, n, true, part) && src(1, t);
      return dst(0) && vec(1, n, false, part);
    }
    if (t == Ty::Pred) return pdst(0) && psrc(1);
    if (ops[1].o.kind == Opnd::Imm && ops[1].o.sym_space == Space::Param)
      return fail_at(ops[1], "the address of a kernel parameter is not supported; read it with ld.param");
    return dst(0) && src(1, t);
  }
  if (base == "ld" || base == "st") {
    in.op = base == "ld" ? Op::Ld : Op::St;
    in.space = take_space();
    take("nc");
    if (take("v2")) in.vec = 2;
    else if (take("v4")) in.vec = 4;
    else if (take("v8")) return fail(".v8 vectors are not supported");
    if (!one_type({}) || !done() || !count(2, 2)) return false;
    Ty t = in.type;
    if (t == Ty::Pred || t == Ty::B128) return fail(std::string(ty_name(t)) + " loads and stores are not supported");
    if (in.vec * ty_bytes(t) > 16) return fail("a vector access is at most 16 bytes");
    if (in.op == Op::St && in.space == Space::Param) return fail("kernel parameters are read-only (st.param)");
    if (in.op == Op::St && in.space == Space::Const) return fail("st.const: the constant space is read-only");
    if (in.op == Op::Ld) {
      if (in.vec > 1 ? !vec(0, in.vec, true, t) : !dst(0)) return false;
      return addr(1, in.space);
    }
    if (!addr(0, in.space)) return false;
    return in.vec > 1 ? vec(1, in.vec, false, t) : src(1, t);
  }
  if (base == "cvta") {
    in.op = take("to") ? Op::CvtaTo : Op::Cvta;
    in.space = take_space();
    if (in.space == Space::Generic || in.space == Space::Param) return fail("cvta needs .global, .shared, .local or .const");
    if (!one_type({Ty::U32, Ty::U64}) || !done() || !count(2, 2)) return false;
    if (ops[1].o.kind == Opnd::Imm && ops[1].o.sym_space != Space::Generic && ops[1].o.sym_space != in.space &&
        !(ops[1].o.sym_space == Space::Const && in.space == Space::Global))
      return fail_at(ops[1], "this variable is not in the cvta's state space");
    return dst(0) && src(1, in.type);
  }
  if (base == "cp") {
    if (!take("async")) return fail("only cp.async is supported");
    if (take("commit_group")) {
      in.op = Op::CpCommit;
      return done() && count(0, 0);
    }
    if (take("wait_group")) {
      in.op = Op::CpWait;
      if (!done() || !count(1, 1)) return false;
      if (ops[0].o.kind != Opnd::Imm || ops[0].o.imm < 0 || ops[0].o.imm > 64)
        return fail_at(ops[0], "cp.async.wait_group takes a constant group count");
      return src(0, Ty::U32);
    }
    if (take("wait_all")) {
      in.op = Op::CpWait;
      in.flags |= F_ALL;
      return done() && count(0, 0);
    }
    in.op = Op::CpAsync;
    if (take("cg")) in.flags |= F_CP_CG;
    else if (!take("ca")) return fail("cp.async needs .ca or .cg");
    if (!(take("shared") || take("shared::cta") || take("shared::cluster")) || !take("global"))
      return fail("cp.async copies .shared.global");
    if (!done() || !count(3, 4)) return false;
    if (!addr(0, Space::Shared) || !addr(1, Space::Global)) return false;
    if (ops[2].o.kind != Opnd::Imm || (ops[2].o.imm != 4 && ops[2].o.imm != 8 && ops[2].o.imm != 16))
      return fail_at(ops[2], "cp.async copies 4, 8 or 16 bytes");
    if ((in.flags & F_CP_CG) && ops[2].o.imm != 16) return fail_at(ops[2], "cp.async.cg copies 16 bytes");
    if (!src(2, Ty::U32)) return false;
    if (ops.size() == 4) {
      if (ops[3].o.kind == Opnd::Pred) {
        in.mode = 1;  // ignore-src predicate
        return psrc(3);
      }
      return src(3, Ty::U32);
    }
    return true;
  }
  // atom / red
  in.op = Op::Atom;
  bool red = base == "red";
  in.space = take_space();
  if (in.space != Space::Global && in.space != Space::Shared && in.space != Space::Generic)
    return fail("atomics work on .global, .shared or generic addresses");
  if (!take_mode({"add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas"})) return fail("'" + std::string(base) + "' needs an operation (.add, .min, .max, .exch, .cas, ...)");
  if (!one_type({Ty::B32, Ty::B64, Ty::U32, Ty::U64, Ty::S32, Ty::S64, Ty::F32, Ty::F64}) || !done()) return false;
  AtomOp a = AtomOp(in.mode);
  bool f = ty_float(in.type);
  if (f && a != AtomOp::Add && a != AtomOp::Exch) return fail("float atomics are .add (and .exch on .b types)");
  if (red) {
    if (a == AtomOp::Cas || a == AtomOp::Exch) return fail("red does not exchange");
    if (!count(2, 2)) return false;
    sink();
    return addr(0, in.space) && src(1, in.type);
  }
  size_t n = a == AtomOp::Cas ? 4 : 3;
  if (!count(n, n) || !dst(0) || !addr(1, in.space) || !src(2, in.type)) return false;
  return n == 3 || src(3, in.type);
}

bool Decoder::warp() {
  if (base == "activemask") {
    in.op = Op::Activemask;
    return one_type({Ty::B32}) && done() && count(1, 1) && dst(0);
  }
  if (base == "shfl") {
    in.op = Op::Shfl;
    if (!take("sync")) return fail("shfl without .sync is not supported (sm_70 and later need shfl.sync)");
    if (!take_mode({"up", "down", "bfly", "idx"})) return fail("shfl.sync needs .up, .down, .bfly or .idx");
    if (!one_type({Ty::B32}) || !done()) return false;
    size_t k2 = ops.size() > 1 && ops[1].piped ? 2 : 1;
    if (!count(k2 + 4, k2 + 4) || !dst(0)) return false;
    if (k2 == 2) {
      if (!pdst(1)) return false;
    } else {
      sink();
    }
    return src(k2, Ty::B32) && src(k2 + 1, Ty::B32) && src(k2 + 2, Ty::B32) && src(k2 + 3, Ty::B32);
  }
  if (base == "vote") {
    in.op = Op::Vote;
    if (!take("sync")) return fail("vote without .sync is not supported (sm_70 and later need vote.sync)");
    if (!take_mode({"all", "any", "uni", "ballot"})) return fail("vote.sync needs .all, .any, .uni or .ballot");
    bool ballot = VoteMode(in.mode) == VoteMode::Ballot;
    if (!one_type({ballot ? Ty::B32 : Ty::Pred}) || !done() || !count(3, 3)) return false;
    if (ballot ? !dst(0) : !pdst(0)) return false;
    return psrc(1) && src(2, Ty::B32);
  }
  if (base == "redux") {
    in.op = Op::Redux;
    if (!take("sync")) return fail("redux needs .sync");
    // The AtomOp order: .inc and .dec are not redux operations.
    if (take("inc") || take("dec") || !take_mode({"add", "min", "max", "inc", "dec", "and", "or", "xor"}))
      return fail("redux.sync needs .add, .min, .max, .and, .or or .xor");
    if (!one_type({Ty::U32, Ty::S32, Ty::B32}) || !done() || !count(3, 3)) return false;
    return dst(0) && src(1, in.type) && src(2, Ty::B32);
  }
  if (base == "ldmatrix") {
    in.op = Op::Ldmatrix;
    if (!take("sync") || !take("aligned") || !take("m8n8"))
      return fail("ldmatrix.sync.aligned.m8n8 is the supported form");
    if (take("x1")) in.vec = 1;
    else if (take("x2")) in.vec = 2;
    else if (take("x4")) in.vec = 4;
    else return fail("ldmatrix needs .x1, .x2 or .x4");
    flag("trans", F_TRANS);
    in.space = take_space();
    if (in.space != Space::Shared && in.space != Space::Generic) return fail("ldmatrix reads shared memory");
    if (!one_type({Ty::B16}) || !done() || !count(2, 2)) return false;
    return vec(0, in.vec, true, Ty::B32) && addr(1, in.space);
  }
  // mma
  in.op = Op::Mma;
  if (!take("sync") || !take("aligned")) return fail("mma needs .sync.aligned");
  if (take("m16n8k16")) in.mode = uint8_t(MmaShape::M16N8K16);
  else if (take("m16n8k8")) in.mode = uint8_t(MmaShape::M16N8K8);
  else if (take("m16n8k32")) in.mode = uint8_t(MmaShape::M16N8K32);
  else if (take("m16n16k16")) in.mode = uint8_t(MmaShape::M16N16K16Wave);
  else return fail("mma shapes supported: .m16n8k16, .m16n8k8, .m16n8k32");
  if (!take("row") || !take("col")) return fail("mma needs .row.col");
  flag("satfinite", F_SATFINITE);
  std::vector<Ty> t = take_types();
  if (!done()) return false;
  if (t.size() != 4) return fail("mma needs four types (.f32.bf16.bf16.f32)");
  in.type = t[0];
  in.type2 = t[1];
  in.type3 = t[2];
  MmaShape sh = MmaShape(in.mode);
  bool i8 = (t[1] == Ty::S8 || t[1] == Ty::U8) && (t[2] == Ty::S8 || t[2] == Ty::U8);
  bool h = (t[1] == Ty::F16 && t[2] == Ty::F16) || (t[1] == Ty::BF16 && t[2] == Ty::BF16);
  bool tf = t[1] == Ty::TF32 && t[2] == Ty::TF32;
  size_t na = 0, nb = 0;
  if (sh == MmaShape::M16N16K16Wave) {
    if (!h || t[0] != Ty::F32 || t[3] != Ty::F32) return fail("the wave-level m16n16k16 takes f16 or bf16 into f32");
    if (!count(4, 4)) return false;
    // wave64 (MFMA): A, B 2 regs, C, D 4; wave32 (WMMA): 8 each.
    size_t nd = ops[0].elems.size() == 8 ? 8 : 4, nab = nd == 8 ? 8 : 2;
    return vec(0, nd, true, Ty::B32) && vec(1, nab, false, Ty::B32) && vec(2, nab, false, Ty::B32) &&
           vec(3, nd, false, Ty::B32);
  }
  if (i8 && t[0] == Ty::S32 && t[3] == Ty::S32 && (sh == MmaShape::M16N8K32 || sh == MmaShape::M16N8K16)) {
    na = sh == MmaShape::M16N8K32 ? 4 : 2;
    nb = sh == MmaShape::M16N8K32 ? 2 : 1;
  } else if (h && t[0] == Ty::F32 && t[3] == Ty::F32 && (sh == MmaShape::M16N8K16 || sh == MmaShape::M16N8K8)) {
    na = sh == MmaShape::M16N8K16 ? 4 : 2;
    nb = sh == MmaShape::M16N8K16 ? 2 : 1;
  } else if (tf && t[0] == Ty::F32 && t[3] == Ty::F32 && sh == MmaShape::M16N8K8) {
    na = 4;
    nb = 2;
  } else {
    return fail("unsupported mma form '" + std::string(opc.text) + "'");
  }
  if ((in.flags & F_SATFINITE) && !i8) return fail(".satfinite is for the integer mma here");
  if (!count(4, 4)) return false;
  return vec(0, 4, true, Ty::B32) && vec(1, na, false, Ty::B32) && vec(2, nb, false, Ty::B32) &&
         vec(3, 4, false, Ty::B32);
}

}  // namespace ptoas::ptx
