// Op table storage and name lookup.
#include "ops.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace ptoas {

namespace {

constexpr OpInfo kOps[] = {
#define OP(id, name, syn, sem, tier, ins, outs, a3, a5) \
  {name, Syn::syn, Sem::sem, tier, ins, outs, a3, a5},
#include "ops.def"
#undef OP
};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == size_t(Op::Count));

// ORDER DTYPE
constexpr std::string_view kDTypeNames[] = {
    "none", "f32", "f16", "bf16", "f64", "i1", "i8", "ui8", "i16", "ui16",
    "i32", "ui32", "i64", "ui64", "f8E4M3", "f8E4M3FN", "f8E5M2", "index"};
static_assert(sizeof(kDTypeNames) / sizeof(kDTypeNames[0]) == size_t(DType::Count));

constexpr unsigned kDTypeBytes[] = {0, 4, 2, 2, 8, 1, 1, 1, 2, 2, 4, 4, 8, 8, 1, 1, 1, 8};
static_assert(sizeof(kDTypeBytes) / sizeof(kDTypeBytes[0]) == size_t(DType::Count));

// Lookup key: after the first '.', '_' and '.' are the same character, so
// `pto.tmatmul_acc` finds `pto.tmatmul.acc` and `pto.tstore.fp` finds
// `pto.tstore_fp`.
std::string lookup_key(std::string_view s) {
  std::string k(s);
  size_t dot = k.find('.');
  if (dot == std::string::npos) return k;
  for (size_t i = dot + 1; i < k.size(); ++i)
    if (k[i] == '_') k[i] = '.';
  return k;
}

// Searchable with a string_view (lookup_op runs once per statement; no
// temporary string per lookup).
struct KeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

struct OpIndex {
  std::unordered_map<std::string, Op, KeyHash, std::equal_to<>> map;
  OpIndex() {
    for (size_t i = 0; i < size_t(Op::Count); ++i) {
      Op op = Op(i);
      std::string_view name = kOps[i].name;
      map.emplace(lookup_key(name), op);
      // Assembly form: tile instructions without the dialect prefix.
      if (name.substr(0, 5) == "pto.t" || name.substr(0, 5) == "pto.m") {
        std::string bare(name.substr(4));
        map.emplace(lookup_key("pto." + bare).substr(4), op);
      }
    }
    map.emplace("return", Op::Return);
    map.emplace("builtin.module", Op::Module);
  }
};

const OpIndex& op_index() {
  static const OpIndex idx;
  return idx;
}

}  // namespace

const OpInfo& op_info(Op op) { return kOps[size_t(op)]; }

Op lookup_op(std::string_view spelling) {
  const auto& m = op_index().map;
  // The key as lookup_key spells it, built in a stack buffer. A bare
  // mnemonic (`tmatmul_acc`) is keyed as if after `pto.`: every '_' is '.'.
  char buf[64];
  if (spelling.size() > sizeof buf) return Op::Count;  // longer than any op name
  size_t dot = spelling.find('.');
  size_t from = dot == std::string_view::npos ? 0 : dot + 1;
  for (size_t i = 0; i < spelling.size(); ++i)
    buf[i] = i >= from && spelling[i] == '_' ? '.' : spelling[i];
  auto it = m.find(std::string_view(buf, spelling.size()));
  return it == m.end() ? Op::Count : it->second;
}

std::string_view dtype_name(DType d) { return kDTypeNames[size_t(d)]; }

DType parse_dtype(std::string_view s) {
  for (size_t i = 1; i < size_t(DType::Count); ++i)
    if (kDTypeNames[i] == s) return DType(i);
  // MLIR also spells unsigned types `ui8`; the docs use `u8`.
  if (s == "u8") return DType::U8;
  if (s == "u16") return DType::U16;
  if (s == "u32") return DType::U32;
  if (s == "u64") return DType::U64;
  return DType::None;
}

unsigned dtype_bytes(DType d) { return kDTypeBytes[size_t(d)]; }

bool dtype_is_float(DType d) {
  return d == DType::F32 || d == DType::F16 || d == DType::BF16 || d == DType::F64 ||
         d == DType::F8E4M3 || d == DType::F8E4M3FN || d == DType::F8E5M2;
}
bool dtype_is_int(DType d) { return d >= DType::I8 && d <= DType::U64; }
bool dtype_is_unsigned(DType d) {
  return d == DType::U8 || d == DType::U16 || d == DType::U32 || d == DType::U64;
}

std::string dtype_set_text(uint32_t mask) {
  std::string out;
  for (size_t i = 1; i < size_t(DType::Count); ++i) {
    if (!(mask & (1u << i))) continue;
    if (!out.empty()) out += ", ";
    out += kDTypeNames[i];
  }
  return out;
}

}  // namespace ptoas
