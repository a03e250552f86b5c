// Spellings of the CCE C++ (cce_names.h).
#include "cce_names.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "ops.h"

namespace ptoas::cg::cce {

namespace {

// C++ keywords and the names the emitted file or the PTO-ISA headers
// define at namespace scope; a .pto value with one of them gets a `v_`
// prefix.
constexpr std::string_view kReserved[] = {
    "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class",
    "const", "constexpr", "continue", "default", "delete", "do", "double", "else", "enum", "explicit",
    "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "namespace",
    "new", "not", "nullptr", "operator", "or", "private", "protected", "public", "register", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "template", "this", "throw", "true",
    "try", "typedef", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while",
    "xor", "T", "half", "bfloat16_t", "pto", "Tile", "GlobalTensor", "Shape", "Stride", "Layout",
    "TileType", "BLayout", "SLayout", "PadValue", "CompactMode", "main", "mode", "int8_t", "int16_t",
    "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "pipe_t", "event_t",
    "PTOAutoSyncTailMode", "ptoas_auto_sync_tail", "ptoas_bitcast",
};

bool reserved(std::string_view s) {
  if (s.size() >= 2 && s[0] == '_' && (s[1] == '_' || std::isupper((unsigned char)s[1]))) return true;
  if (s.substr(0, 5) == "PIPE_" || s.substr(0, 8) == "EVENT_ID") return true;
  // The ops' call names (TADD ...) and macros (TASSIGN).
  if (s.size() > 1 && s[0] == 'T' && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isupper((unsigned char)c) || std::isdigit((unsigned char)c) || c == '_';
      }))
    return true;
  return std::find(std::begin(kReserved), std::end(kReserved), s) != std::end(kReserved);
}

std::string ident(std::string_view raw) {
  std::string s;
  for (char c : raw) s += std::isalnum((unsigned char)c) || c == '_' ? c : '_';
  if (s.empty() || std::isdigit((unsigned char)s[0])) s = "v" + s;
  if (reserved(s)) s = "v_" + s;
  return s;
}

// Upper-case: `lt` -> `LT` (CmpMode's enumerators).
std::string upper(std::string_view w) {
  std::string s(w);
  for (char& c : s) c = char(std::toupper((unsigned char)c));
  return s;
}

}  // namespace

bool Names::take(const std::string& s) {
  auto it = std::lower_bound(taken_.begin(), taken_.end(), s);
  if (it != taken_.end() && *it == s) return false;
  taken_.insert(it, s);
  return true;
}

std::string Names::fresh(std::string_view base) {
  std::string b = ident(base);
  if (take(b)) return b;
  for (unsigned k = 1;; ++k) {
    std::string s = b + "_" + std::to_string(k);
    if (take(s)) return s;
  }
}

const std::string& Names::of(ValueId v) {
  if (by_value_.size() <= v) by_value_.resize(std::max(size_t(v) + 1, m_.values.size()));
  if (by_value_[v].empty()) {
    std::string_view n = m_.str(m_.values[v].name);
    by_value_[v] = fresh(n.empty() ? "v" + std::to_string(v) : n);
  }
  return by_value_[v];
}

std::string scalar_type(DType d) {
  switch (d) {
    case DType::F32: return "float";
    case DType::F16: return "half";
    case DType::BF16: return "bfloat16_t";
    case DType::F64: return "double";
    case DType::I1: return "bool";
    case DType::I8: return "int8_t";
    case DType::U8: return "uint8_t";
    case DType::I16: return "int16_t";
    case DType::U16: return "uint16_t";
    case DType::I32: return "int32_t";
    case DType::U32: return "uint32_t";
    case DType::I64: case DType::Index: return "int64_t";
    case DType::U64: return "uint64_t";
    default: return {};
  }
}

std::string_view tile_type_name(Loc l) {
  switch (l) {
    case Loc::Vec: return "TileType::Vec";
    case Loc::Mat: return "TileType::Mat";
    case Loc::Left: return "TileType::Left";
    case Loc::Right: return "TileType::Right";
    case Loc::Acc: return "TileType::Acc";
    case Loc::Bias: return "TileType::Bias";
    case Loc::Scaling: return "TileType::Scaling";
    default: return {};
  }
}

std::string tile_type(const Type& t) {
  static constexpr std::string_view kS[] = {"SLayout::NoneBox", "SLayout::RowMajor", "SLayout::ColMajor"};
  static constexpr std::string_view kPad[] = {"PadValue::Null", "PadValue::Zero", "PadValue::Max", "PadValue::Min"};
  static constexpr std::string_view kCompact[] = {"CompactMode::Null", "CompactMode::Normal",
                                                  "CompactMode::RowPlusOne"};
  bool col = t.blayout == BLayout::ColMajor ||
             (t.cols == 1 && t.rows > 1 && t.slayout == SLayout::NoneBox);
  auto ext = [](int32_t v) { return v == kDyn ? std::string("-1") : std::to_string(v); };
  std::string s = "Tile<" + std::string(tile_type_name(t.loc)) + ", " + scalar_type(t.elem) + ", " +
                  std::to_string(t.rows) + ", " + std::to_string(t.cols) + ", " +
                  (col ? "BLayout::ColMajor" : "BLayout::RowMajor") + ", " + ext(t.vrow) + ", " + ext(t.vcol) +
                  ", " + std::string(kS[unsigned(t.slayout) % 3]) + ", " + std::to_string(t.fractal) + ", " +
                  std::string(kPad[t.pad % 4]) + ", " + std::string(kCompact[t.compact % 3]) + ">";
  return s;
}

std::string value_type(const Module& m, ValueId v) {
  const Type& t = m.type_of(v);
  switch (t.kind) {
    case TypeKind::Scalar: return scalar_type(t.elem);
    case TypeKind::Ptr: {
      std::string e = scalar_type(t.elem);
      return e.empty() ? e : "__gm__ " + e + "*";
    }
    case TypeKind::TileBuf: return tile_loc_ok(t) ? tile_type(t) : std::string();
    default: return {};
  }
}

bool tile_loc_ok(const Type& t) { return !tile_type_name(t.loc).empty() && !scalar_type(t.elem).empty(); }

namespace {

// The op's int attributes are always passed (attr_enums.def PTO_ATTR_OP):
// the model cannot tell an int attribute from an int operand otherwise.
bool takes_int(Op op, std::string_view key) {
  std::string_view name = op_name(op);
#define PTO_ATTR_OP(OpName, Key) \
  if (name == OpName && key == #Key) return true;
#include "pto/model/attr_enums.def"
  return false;
}

}  // namespace

bool attr_args(const Module& m, const Inst& in, std::vector<std::string>& out, std::string& bad) {
  out.clear();
  // Per enum row: is the key on the op, and which enumerator is its word.
  std::string_view key, want;
  bool matched = false;
  bool ok = true;
  auto finish = [&]() {
    if (!key.empty() && !want.empty() && !matched && ok) {
      bad = std::string(key);
      ok = false;
    }
  };
#define PTO_ATTR_ENUM(Key, IrKind, CppEnum)                                 \
  finish();                                                                 \
  key = #Key;                                                               \
  want = m.attr_word(in, #Key);                                             \
  if (want.empty() && std::string_view(#Key) == "sat_mode") want = m.attr_word(in, "satMode"); \
  matched = false;
#define PTO_ATTR_WORD(CppEnum, X, Word)                                     \
  if (!want.empty() && !matched && (want == Word || upper(want) == upper(Word))) { \
    out.push_back(#CppEnum "::" #X);                                        \
    matched = true;                                                         \
  }
#define PTO_ATTR_INT(Key, CppType, Default)                                 \
  finish();                                                                 \
  key = {};                                                                 \
  want = {};                                                                \
  if (const Attr* a = m.find_attr(in, #Key); a && (a->kind == AttrKind::Int || a->kind == AttrKind::Bool)) \
    out.push_back(std::to_string(a->ival));                                 \
  else if (a && a->kind == AttrKind::Unit) /* a bare key: set */            \
    out.push_back("1");                                                     \
  else if (takes_int(in.op, #Key))                                          \
    out.push_back(std::to_string(Default));
#include "pto/model/attr_enums.def"
  finish();
  return ok;
}

std::string literal(const Attr& a, DType d) {
  if (dtype_is_float(d)) {
    double v = a.kind == AttrKind::Float ? a.fval : double(a.ival);
    std::string f;
    if (std::isnan(v)) f = "__builtin_nanf(\"\")";
    else if (std::isinf(v)) f = v > 0 ? "__builtin_inff()" : "(-__builtin_inff())";
    else {
      char buf[40];
      std::snprintf(buf, sizeof buf, d == DType::F64 ? "%.17g" : "%.9g", v);
      f = buf;
      if (f.find_first_of(".en") == std::string::npos) f += ".0";
      if (d != DType::F64) f += "f";
    }
    return d == DType::F32 || d == DType::F64 ? f : scalar_type(d) + "(" + f + ")";
  }
  if (d == DType::I1) return a.ival ? "true" : "false";
  int64_t v = a.kind == AttrKind::Float ? int64_t(a.fval) : a.ival;
  if (d == DType::I64 || d == DType::Index) {
    if (v == INT64_MIN) return "INT64_MIN";
    if (v >= INT32_MIN && v <= INT32_MAX) return std::to_string(v);
    return std::to_string(v) + "ll";
  }
  if (d == DType::U64) return std::to_string(uint64_t(v)) + "ull";
  if (d == DType::U32) return std::to_string(uint32_t(v)) + "u";
  if (d == DType::I32) return v == INT32_MIN ? "INT32_MIN" : std::to_string(int32_t(v));
  return scalar_type(d) + "(" + std::to_string(v) + ")";
}

std::string call_name(Op op) {
  std::string_view n = op_name(op);
  if (n.substr(0, 4) == "pto.") n.remove_prefix(4);
  std::string s;
  for (char c : n) s += c == '.' ? '_' : char(std::toupper((unsigned char)c));
  return s;
}

}  // namespace ptoas::cg::cce
