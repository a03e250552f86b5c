// target_diff cases: input values of every element type, kernel text helpers,
// and the elementwise / tile-scalar / unary / row- and column-expand cases
// for f32, f16, bf16, i32, u32, i16, u16, i8 and u8 over the shape classes.
#include <algorithm>
#include <cstring>

#include "elem.h"
#include "target_diff_case.h"

namespace x86diff {

using namespace ptoas;

namespace {

uint64_t g_rng = 0x9E3779B97F4A7C15ull;

const uint32_t kF32Special[] = {
    0x7fc00000u, 0xffc00000u, 0x7fa00001u /* sNaN */, 0x7fc12345u, 0xff812345u,  // NaNs
    0x7f800000u, 0xff800000u,                                                      // +-Inf
    0x00000000u, 0x80000000u,                                                      // +-0
    0x00000001u, 0x807fffffu, 0x00400000u,                                         // subnormals
    0x3f800000u, 0xbfc00000u, 0x7f7fffffu, 0xff7fffffu, 0x00800000u, 0x40490fdbu};
const uint32_t kF16Special[] = {
    0x7e00u, 0xfe00u, 0x7d01u /* sNaN */, 0x7e55u, 0xfc01u /* -sNaN */, 0x7fffu,  // NaNs
    0x7c00u, 0xfc00u,                                                           // +-Inf
    0x0000u, 0x8000u,                                                           // +-0
    0x0001u, 0x83ffu, 0x0200u,                                                  // subnormals
    0x3c00u, 0xbe00u, 0x7bffu, 0xfbffu, 0x0400u, 0x4248u};
const uint32_t kBF16Special[] = {
    0x7fc0u, 0xffc0u, 0x7fa1u /* sNaN */, 0x7fc5u, 0xff81u /* -sNaN */, 0x7fffu,  // NaNs
    0x7f80u, 0xff80u,                                                           // +-Inf
    0x0000u, 0x8000u,                                                           // +-0
    0x0001u, 0x807fu, 0x0040u,                                                  // subnormals
    0x3f80u, 0xbfc0u, 0x7f7fu, 0xff7fu, 0x0080u, 0x4049u};
const uint32_t kI32Special[] = {0x80000000u, 0x7fffffffu, 0xffffffffu, 0u, 1u, 0x80000001u, 0x00010000u, 0xfffe0000u};
const uint32_t kU32Special[] = {0x80000000u, 0x7fffffffu, 0xffffffffu, 0u, 1u, 0xfffffffeu, 0x00010000u};
const uint32_t kI16Special[] = {0x8000u, 0x7fffu, 0xffffu, 0u, 1u, 0x8001u, 0x0100u, 0xff00u};
const uint32_t kU16Special[] = {0xffffu, 0x8000u, 0x7fffu, 0u, 1u, 0xfffeu, 0x0100u};
const uint32_t kI8Special[] = {0x80u, 0x7fu, 0xffu, 0u, 1u, 0x81u, 0x10u};
const uint32_t kU8Special[] = {0xffu, 0x80u, 0x7fu, 0u, 1u, 0xfeu};

template <size_t N>
uint64_t pick(const uint32_t (&v)[N]) {
  return v[rnd() % N];
}

// A random finite float of `bits` (16: f16, bf16 when exp_bits is 8) with
// its exponent field in [lo, hi].
uint64_t finite(unsigned man_bits, unsigned total, unsigned lo, unsigned hi) {
  uint64_t sign = uint64_t(rnd() & 1) << (total - 1);
  uint64_t e = lo + rnd() % (hi - lo + 1);
  return sign | e << man_bits | (rnd() & ((1u << man_bits) - 1));
}

}  // namespace

uint32_t rnd() {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return uint32_t(g_rng >> 11);
}

uint64_t sample(DType d) {
  bool special = rnd() % 10 < 4;
  bool wide = rnd() % 3 == 0;  // any finite exponent, not only moderate ones
  switch (d) {
    case DType::F32: {
      if (special) return pick(kF32Special);
      float f = float(int32_t(rnd() % 2000001) - 1000000) / 997.0f;
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    case DType::F16: return special ? pick(kF16Special) : wide ? finite(10, 16, 0, 30) : finite(10, 16, 10, 20);
    case DType::BF16: return special ? pick(kBF16Special) : wide ? finite(7, 16, 0, 254) : finite(7, 16, 118, 136);
    case DType::I32: return special ? pick(kI32Special) : rnd();
    case DType::U32: return special ? pick(kU32Special) : rnd();
    case DType::I16: return special ? pick(kI16Special) : rnd() & 0xffffu;
    case DType::U16: return special ? pick(kU16Special) : rnd() & 0xffffu;
    case DType::I8: return special ? pick(kI8Special) : rnd() & 0xffu;
    case DType::U8: return special ? pick(kU8Special) : rnd() & 0xffu;
    default: return uint64_t(rnd()) << 32 | rnd();
  }
}

uint64_t load_elem(const std::vector<uint8_t>& buf, DType d, size_t i) {
  unsigned e = dtype_bytes(d);
  uint64_t v = 0;
  std::memcpy(&v, buf.data() + i * e, e);
  return v;
}

void store_elem(std::vector<uint8_t>& buf, DType d, size_t i, uint64_t bits) {
  std::memcpy(buf.data() + i * dtype_bytes(d), &bits, dtype_bytes(d));
}

Buffer make_buffer(const std::string& name, DType d, size_t n, size_t ld, bool output) {
  Buffer b;
  b.name = name;
  b.elem = d;
  b.data.resize(n * dtype_bytes(d));
  b.output = output;
  b.ld = ld;
  for (size_t i = 0; i < n; ++i) store_elem(b.data, d, i, output ? 0xDEADBEEFDEADBEEFull : sample(d));
  return b;
}

rt::Arg scalar_arg(DType d, uint64_t bits) {
  rt::Arg a;
  if (dtype_is_float(d)) {
    a.kind = rt::Arg::Kind::Float;
    float f;
    uint32_t b32 = uint32_t(bits);
    if (d == DType::F16) f = rt::f16_bits_to_f32(uint16_t(bits));
    else if (d == DType::BF16) f = rt::bf16_bits_to_f32(uint16_t(bits));
    else std::memcpy(&f, &b32, 4);
    a.f = f;
    return a;
  }
  a.kind = rt::Arg::Kind::Int;
  unsigned sh = 64 - 8 * dtype_bytes(d);
  a.i = dtype_is_unsigned(d) ? int64_t((bits << sh) >> sh) : (int64_t(bits << sh) >> sh);
  return a;
}

Case abc_case(const std::string& name, const std::string& text, DType in, DType out, size_t n, size_t ld,
              DType sdt, uint64_t sbits) {
  Case c;
  c.name = name;
  c.text = text;
  c.bufs.push_back(make_buffer("a", in, n, ld, false));
  c.bufs.push_back(make_buffer("b", in, n, ld, false));
  c.bufs.push_back(make_buffer("c", out, n, ld, true));
  for (int i = 0; i < 3; ++i) c.params.push_back(Param{i, {}});
  c.params.push_back(Param{-1, scalar_arg(sdt, sbits)});
  return c;
}

std::string tile_ty(int r, int c, const std::string& dt, bool dn, const char* valid) {
  return "!pto.tile_buf<vec, " + std::to_string(r) + "x" + std::to_string(c) + "x" + dt + ", valid=" + valid +
         (dn ? ", blayout=col_major>" : ">");
}

std::string view(const std::string& name, const std::string& p, const std::string& shape,
                 const std::string& strides, const std::string& dt) {
  std::string tv = "!pto.tensor_view<?x?x" + dt + ">";
  std::string pv = "!pto.partition_tensor_view<?x?x" + dt + ">";
  return "  %" + name + "v = pto.make_tensor_view %" + p + ", shape = [" + shape + "], strides = [" + strides +
         "] : " + tv + "\n  %" + name + "p = pto.partition_view %" + name + "v, offsets = [%c0, %c0], sizes = [" +
         shape + "] : " + tv + " -> " + pv + "\n";
}

std::string load(const std::string& view, const std::string& tile, const std::string& tty, const std::string& dt,
                 const std::string& vr, const std::string& vc) {
  std::string pv = "!pto.partition_tensor_view<?x?x" + dt + ">";
  return "  %" + tile + " = pto.alloc_tile valid_row = " + vr + " valid_col = " + vc + " : " + tty + "\n" +
         "  pto.tload ins(%" + view + "p : " + pv + ") outs(%" + tile + " : " + tty + ")\n";
}

std::string kernel_head(const std::vector<std::string>& ptrs, const std::string& dt, DType sdt, const Shape& s,
                        size_t ld) {
  std::string k = "func.func @k(";
  for (const std::string& p : ptrs) k += "%" + p + ": !pto.ptr<" + dt + ">, ";
  k += "%s: " + std::string(dtype_name(sdt)) + ") attributes {pto.entry} {\n";
  k += "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n";
  k += "  %R = arith.constant " + std::to_string(s.vr) + " : index\n";
  k += "  %C = arith.constant " + std::to_string(s.vc) + " : index\n";
  k += "  %ld = arith.constant " + std::to_string(ld) + " : index\n";
  return k;
}

const std::vector<DType>& lane_types() {
  static const std::vector<DType> v = {DType::F32, DType::F16, DType::BF16, DType::I32, DType::U32,
                                       DType::I16, DType::U16, DType::I8,  DType::U8};
  return v;
}

int round32(int n, DType d) {
  int per = 32 / int(dtype_bytes(d));
  return n > 1 ? (n + per - 1) / per * per : n;
}

namespace {

enum Kind { Bin, TileScalar, ScalarTile, Unary, ExpandS };

struct OpCase {
  const char* op;
  Kind kind;
  bool fl, in;      // float / integer dtypes the avx2 backend covers
  bool shift;       // b (or the scalar) is a shift amount: 0..bits-1
  bool divide = false;  // integer divisors nonzero (the interpreter's error)
};

const OpCase kOps[] = {
    {"tadd", Bin, true, true, false},         {"tsub", Bin, true, true, false},
    {"tmul", Bin, true, true, false},         {"tdiv", Bin, true, true, false, true},
    {"tmax", Bin, true, true, false},         {"tmin", Bin, true, true, false},
    {"tand", Bin, false, true, false},        {"tor", Bin, false, true, false},
    {"txor", Bin, false, true, false},        {"tshl", Bin, false, true, true},
    {"tshr", Bin, false, true, true},         {"tadds", TileScalar, true, true, false},
    {"tsubs", TileScalar, true, true, false}, {"tmuls", TileScalar, true, true, false},
    {"tdivs", TileScalar, true, true, false, true}, {"tdivs", ScalarTile, true, true, false, true},
    {"tmaxs", TileScalar, true, true, false}, {"tmins", TileScalar, true, true, false},
    {"tands", TileScalar, false, true, false}, {"tors", TileScalar, false, true, false},
    {"txors", TileScalar, false, true, false}, {"tshls", TileScalar, false, true, true},
    {"tshrs", TileScalar, false, true, true},  {"texpands", ExpandS, true, true, false},
    {"tneg", Unary, true, true, false},       {"trelu", Unary, true, true, false},
    {"tabs", Unary, true, true, false},       {"tnot", Unary, false, true, false},
    {"tsqrt", Unary, true, false, false},     {"trecip", Unary, true, false, false},
    {"texp", Unary, true, false, false},      {"tlog", Unary, true, false, false},
    {"trsqrt", Unary, true, false, false},    {"tpow", Bin, true, false, false},
    {"tpows", TileScalar, true, false, false},
};

const char* const kExpandOps[] = {"trowexpandadd", "trowexpandsub", "trowexpandmul", "trowexpanddiv",
                                  "trowexpandmax", "trowexpandmin", "tcolexpandadd", "tcolexpandsub",
                                  "tcolexpandmul", "tcolexpanddiv", "tcolexpandmax", "tcolexpandmin",
                                  "trowexpandexpdif", "tcolexpandexpdif"};

std::vector<std::string> g_skipped;  // op/dtype pairs the op table refuses

}  // namespace

bool pick_arch(const std::string& op, DType d, Arch& arch) {
  const OpInfo& info = op_info(lookup_op("pto." + op));
  if (info.dtypes_a3 & dt_bit(d)) arch = Arch::A3;
  else if (info.dtypes_a5 & dt_bit(d)) arch = Arch::A5;
  else {
    std::string p = op + " " + std::string(dtype_name(d));
    if (std::find(g_skipped.begin(), g_skipped.end(), p) == g_skipped.end()) g_skipped.push_back(p);
    return false;
  }
  return true;
}

bool narrow_float(DType d) { return d == DType::F16 || d == DType::BF16; }

namespace {

// The type of %s: the element type when the op reads it, else f32 (f16 /
// bf16 scalar parameters travel as uint16_t bit patterns).
DType scalar_type(DType d, bool used) { return narrow_float(d) && !used ? DType::F32 : d; }

std::string kernel_head(const Shape& s, const std::string& dt, int ld, DType sdt) {
  return x86diff::kernel_head({"a", "b", "c"}, dt, sdt, s, size_t(ld));
}

std::string store_end(const std::string& tile, const std::string& tty, const std::string& dt) {
  return "  pto.tstore ins(%" + tile + " : " + tty + ") outs(%cp : !pto.partition_tensor_view<?x?x" + dt +
         ">)\n  return\n}\n";
}

// tload a, b (and b into the destination c, so untouched elements show) ->
// op -> tstore c. dn: column-major tiles from / to column-major views.
std::string elt_kernel(const OpCase& o, const Shape& s, DType d, bool dn) {
  std::string dt(dtype_name(d));
  int rows = dn ? round32(s.rows, d) : s.rows, cols = dn ? s.cols : round32(s.cols, d);
  std::string tile = tile_ty(rows, cols, dt, dn);
  bool uses_scalar = o.kind == TileScalar || o.kind == ScalarTile || o.kind == ExpandS;
  std::string k = kernel_head(s, dt, dn ? s.rows + 3 : s.cols + 3, scalar_type(d, uses_scalar));
  for (const char* p : {"a", "b", "c"}) k += view(p, p, "%R, %C", dn ? "%c1, %ld" : "%ld, %c1", dt);
  k += load("a", "ta", tile, dt, "%R", "%C") + load("b", "tb", tile, dt, "%R", "%C") +
       load("b", "tc", tile, dt, "%R", "%C");
  std::string op = std::string("  pto.") + o.op;
  // bf16 tpow / tpows exist only as A5's high-precision form, which takes a
  // scratch tile (the official verifier's rule): a copy of a serves.
  bool pow_hp = d == DType::BF16 && (!std::strcmp(o.op, "tpow") || !std::strcmp(o.op, "tpows"));
  std::string tmp, hp, tmp_ty = tile_ty(rows, round32(cols, d), dt, false);
  if (pow_hp) {  // the scratch is row-major whatever the operands' layout
    k += "  %tt = pto.alloc_tile valid_row = %R valid_col = %C : " + tmp_ty + "\n";
    tmp = ", %tt", hp = " {precisionType = #pto<pow_precision high_precision>}";
  }
  switch (o.kind) {
    case Bin:
      k += op + " ins(%ta, %tb" + tmp + " : " + tile + ", " + tile + (pow_hp ? ", " + tmp_ty : "") + ") outs(%tc : " +
           tile + ")" + hp + "\n";
      break;
    case TileScalar:
      k += op + " ins(%ta, %s" + tmp + " : " + tile + ", " + dt + (pow_hp ? ", " + tmp_ty : "") + ") outs(%tc : " +
           tile + ")" + hp + "\n";
      break;
    case ScalarTile: k += op + " ins(%s, %ta : " + dt + ", " + tile + ") outs(%tc : " + tile + ")\n"; break;
    case Unary: k += op + " ins(%ta : " + tile + ") outs(%tc : " + tile + ")\n"; break;
    case ExpandS: k += op + " ins(%s : " + dt + ") outs(%tc : " + tile + ")\n"; break;
  }
  return k + store_end("tc", tile, dt);
}

// trowexpand<op> / tcolexpand<op>: a full, b a column (row) operand; swap:
// the column (row) operand first; plain: trowexpand / tcolexpand of b.
std::string expand_kernel(const std::string& op, bool row, const Shape& s, DType d, bool swap, bool plain) {
  std::string dt(dtype_name(d));
  int cols = round32(s.cols, d);
  std::string ta = tile_ty(s.rows, cols, dt, false);
  std::string tb = row ? tile_ty(s.rows, 1, dt, round32(s.rows, d) == s.rows && s.rows > 1, "?x1")
                       : tile_ty(1, cols, dt, false, "1x?");
  std::string k = kernel_head(s, dt, s.cols + 3, scalar_type(d, false));
  k += view("a", "a", "%R, %C", "%ld, %c1", dt) + view("ab", "b", "%R, %C", "%ld, %c1", dt) +
       view("c", "c", "%R, %C", "%ld, %c1", dt);
  k += row ? view("b", "b", "%R, %c1", "%c1, %ld", dt) : view("b", "b", "%c1, %C", "%ld, %c1", dt);
  k += load("a", "ta", ta, dt, "%R", "%C") + load("ab", "tc", ta, dt, "%R", "%C");
  k += row ? load("b", "tb", tb, dt, "%R", "%c1") : load("b", "tb", tb, dt, "%c1", "%C");
  std::string o = "  pto." + op;
  if (plain) k += o + " ins(%tb : " + tb + ") outs(%tc : " + ta + ")\n";
  else if (swap) k += o + " ins(%tb, %ta : " + tb + ", " + ta + ") outs(%tc : " + ta + ")\n";
  else k += o + " ins(%ta, %tb : " + ta + ", " + tb + ") outs(%tc : " + ta + ")\n";
  return k + store_end("tc", ta, dt);
}

}  // namespace

std::vector<uint64_t> scalars(DType d, bool shift) {
  unsigned bits = 8 * dtype_bytes(d);
  if (shift) return {0, 1, 3, bits - 1};
  switch (d) {
    case DType::F32: return {0x40200000u, 0x80000000u, 0x7fc00000u, 0x7f800000u, 0x00000003u, 0xc0490fdbu};
    case DType::F16: return {0x3e00u, 0x8000u, 0x7e01u, 0x7c00u, 0x0001u, 0xc248u};
    case DType::BF16: return {0x3fc0u, 0x8000u, 0x7fc1u, 0xff80u, 0x0001u, 0xc049u};
    case DType::I32: return {5u, 0xffffffffu, 0x80000000u, 0x7fffffffu};
    case DType::U32: return {5u, 0xffffffffu, 0x80000000u, 0u};
    case DType::I16: return {5u, 0xffffu, 0x8000u, 0x7fffu};
    case DType::U16: return {5u, 0xffffu, 0x8000u, 0u};
    case DType::I8: return {5u, 0xffu, 0x80u, 0x7fu};
    default: return {5u, 0xffu, 0x80u, 0u};  // U8
  }
}

namespace {

void add_elt(std::vector<Case>& out, const OpCase& o, const Shape& s, DType d, bool dn, Arch arch) {
  bool uses_scalar = o.kind == TileScalar || o.kind == ScalarTile || o.kind == ExpandS;
  std::string dt(dtype_name(d));
  std::string text = elt_kernel(o, s, d, dn);
  size_t ld = size_t(dn ? s.rows + 3 : s.cols + 3), n = ld * size_t((dn ? s.vc : s.vr) + 1);
  bool transcendental = !std::strcmp(o.op, "texp") || !std::strcmp(o.op, "tlog") || !std::strcmp(o.op, "trsqrt");
  unsigned bits = 8 * dtype_bytes(d);
  std::vector<uint64_t> scs = uses_scalar ? scalars(d, o.shift) : std::vector<uint64_t>{0};
  if (o.divide && o.kind == TileScalar && !dtype_is_float(d)) std::erase(scs, uint64_t(0));
  for (uint64_t sc : scs) {
    std::string name = std::string(o.op) + (o.kind == ScalarTile ? "(scalar first)" : "") + " " + dt + " " +
                       s.name + (dn ? " DN" : "");
    if (uses_scalar) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " s=0x%llx", (unsigned long long)sc);
      name += buf;
    }
    Case c = abc_case(name, text, d, d, n, ld, scalar_type(d, uses_scalar), sc);
    c.arch = arch;
    if (o.shift && o.kind == Bin)  // shift amounts within the element's bits
      for (size_t i = 0; i < n; ++i) store_elem(c.bufs[1].data, d, i, rnd() % bits);
    // Integer divisors: random, 0 made 1, and -1 often (MIN / -1 wraps).
    if (o.divide && !dtype_is_float(d) && o.kind != TileScalar) {
      int b = o.kind == ScalarTile ? 0 : 1;
      for (size_t i = 0; i < n; ++i) {
        uint64_t v = i % 7 == 3 ? ~uint64_t(0) : rnd();
        if ((v & ((bits >= 64 ? 0 : uint64_t(1) << bits) - 1)) == 0) v = 1;
        store_elem(c.bufs[size_t(b)].data, d, i, v);
      }
    }
    // f16 / bf16 texp, tlog, trsqrt: the JIT rounds double -> f32 -> f16,
    // the interpreter double -> f16 (DESIGN §6): 1 ULP. tpow: exp(y log|x|)
    // in double against std::pow: 1 ULP in every type.
    bool pw = !std::strcmp(o.op, "tpow") || !std::strcmp(o.op, "tpows");
    c.ulp_tol = (transcendental && narrow_float(d)) || pw ? 1 : 0;
    out.push_back(std::move(c));
  }
}

// Every f16 / bf16 input of the unary ops: 16 cases of 32 x 128 inputs,
// a counting up from chunk * 4096.
void add_exhaustive(std::vector<Case>& out, const OpCase& o, DType d, Arch arch) {
  const Shape s{"all", 32, 128, 32, 128};
  size_t ld = size_t(s.cols + 3), n = ld * size_t(s.vr + 1);
  bool transcendental = !std::strcmp(o.op, "texp") || !std::strcmp(o.op, "tlog") || !std::strcmp(o.op, "trsqrt");
  std::string text = elt_kernel(o, s, d, false);
  for (unsigned chunk = 0; chunk < 16; ++chunk) {
    char first[8];
    std::snprintf(first, sizeof first, "%04x", chunk << 12);
    Case c = abc_case(std::string(o.op) + " " + std::string(dtype_name(d)) + " all inputs from 0x" + first, text, d,
                      d, n, ld, DType::F32, 0);
    c.arch = arch;
    for (int r = 0; r < s.vr; ++r)
      for (int k = 0; k < s.cols; ++k)
        store_elem(c.bufs[0].data, d, size_t(r) * ld + size_t(k), (chunk << 12) + unsigned(r * s.cols + k));
    c.ulp_tol = transcendental ? 1 : 0;
    out.push_back(std::move(c));
  }
}

// A float of `d` in [-12, 12] (f16: [-6, 6], so that exp of a difference
// stays finite mostly).
uint64_t moderate(DType d) {
  float f = float(int32_t(rnd() % 24001) - 12000) / (d == DType::F16 ? 2000.0f : 1000.0f);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return d == DType::F32 ? b : d == DType::F16 ? rt::f32_to_f16_bits(f) : rt::f32_to_bf16_bits(f);
}

}  // namespace

const std::vector<std::string>& skipped_pairs() { return g_skipped; }

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> v = {
      {"full", 8, 16, 8, 16},    {"ragged", 8, 24, 5, 13},  {"one_row", 1, 64, 1, 61},
      {"one_col", 16, 8, 16, 1}, {"width12", 4, 16, 4, 12}, {"width7", 3, 8, 3, 7},
      {"width33", 2, 40, 2, 33}, {"single", 1, 8, 1, 1},     {"big", 16, 128, 15, 125},
  };
  return v;
}

void elementwise_cases(std::vector<Case>& out) {
  for (const OpCase& o : kOps)
    for (DType d : lane_types()) {
      if (dtype_is_float(d) ? !o.fl : !o.in) continue;
      if (o.divide && d == DType::U32) continue;  // no u32 lanes for it (docs/x86_backend.md)
      Arch arch;
      if (!pick_arch(o.op, d, arch)) continue;
      if (narrow_float(d) && o.kind == Unary) add_exhaustive(out, o, d, arch);
      for (const Shape& s : shapes()) {
        add_elt(out, o, s, d, false, arch);
        if (s.rows % 8 == 0) add_elt(out, o, s, d, true, arch);
      }
    }
  for (DType d : lane_types())
    for (const Shape& s : shapes()) {
      std::string dt(dtype_name(d));
      size_t ld = size_t(s.cols + 3), n = ld * size_t(std::max(s.vr, s.vc) + 1);
      auto add = [&](const std::string& op, bool row, bool swap, bool plain) {
        Arch arch;
        if (!pick_arch(op, d, arch)) return;
        Case c = abc_case(op + (swap ? "(swapped) " : " ") + dt + " " + s.name,
                          expand_kernel(op, row, s, d, swap, plain), d, d, n, ld, scalar_type(d, false), 0);
        c.arch = arch;
        if (op.find("expdif") != std::string::npos) {
          // exp(a - b): differences mostly within the exp range, so that
          // the results are not all 0 or Inf; f16: the JIT's exp rounds
          // double -> f32 -> f16 (1 ULP, as texp).
          for (size_t b = 0; b < 2; ++b)
            for (size_t i = 0; i < n; ++i)
              if (rnd() % 4) store_elem(c.bufs[b].data, d, i, moderate(d));
          c.ulp_tol = narrow_float(d) ? 1 : 0;
          c.f16_rounds_often = true;  // a - b rounds to f16 first, then exp
        }
        out.push_back(std::move(c));
      };
      for (const char* e : kExpandOps) {
        if (!dtype_is_float(d) && std::strstr(e, "div")) continue;
        add(e, e[1] == 'r', false, false);
        add(e, e[1] == 'r', true, false);
      }
      add("trowexpand", true, false, true);
      add("tcolexpand", false, false, true);
    }
}

}  // namespace x86diff
