// Op table storage and name lookup.
#include "ops.h"

#include <array>
#include <string>

namespace ptoas {

namespace {

constexpr OpInfo kOps[] = {
#define OP(id, name, syn, sem, tier, ins, outs, a3, a5, pipe) \
  {name, Syn::syn, Sem::sem, tier, ins, outs, a3, a5, PipeRule::pipe},
#include "ops.def"
#undef OP
};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == size_t(Op::Count));

// ORDER DTYPE
constexpr std::string_view kDTypeNames[] = {
    "none", "f32", "f16", "bf16", "f64", "i1", "i8", "ui8", "i16", "ui16",
    "i32", "ui32", "i64", "ui64", "f8E4M3", "f8E4M3FN", "f8E5M2",
    "!pto.hif8", "!pto.f8E8M0", "!pto.f4E1M2x2", "!pto.f4E2M1x2",
    "si8", "si16", "si32", "si64", "index"};
static_assert(sizeof(kDTypeNames) / sizeof(kDTypeNames[0]) == size_t(DType::Count));

constexpr unsigned kDTypeBytes[] = {0, 4, 2, 2, 8, 1, 1, 1, 2, 2, 4, 4, 8, 8, 1, 1, 1,
                                    1, 1, 1, 1, 1, 2, 4, 8, 8};
static_assert(sizeof(kDTypeBytes) / sizeof(kDTypeBytes[0]) == size_t(DType::Count));

// The name index, built at compile time (a process compiles one small file,
// so a table built at start-up cost more than all the lookups it served).
// Keys: after the first '.', '_' and '.' are the same character, so
// `pto.tmatmul_acc` finds `pto.tmatmul.acc` and `pto.tstore.fp` finds
// `pto.tstore_fp`; tile instructions are also keyed without the dialect
// prefix (the assembly form), as if after `pto.`.
constexpr size_t kMaxKey = 40;

struct IndexEntry {
  char key[kMaxKey];
  uint8_t len;
  Op op;
  constexpr std::string_view view() const { return {key, len}; }
};

// Writes `s` as a key into e: '_' becomes '.' from `from` on.
constexpr void set_key(IndexEntry& e, std::string_view s, size_t from, Op op) {
  for (size_t i = 0; i < s.size(); ++i) e.key[i] = i >= from && s[i] == '_' ? '.' : s[i];
  e.len = uint8_t(s.size());
  e.op = op;
}

constexpr size_t after_dot(std::string_view s) {
  size_t dot = s.find('.');
  return dot == std::string_view::npos ? s.size() : dot + 1;
}

constexpr bool has_bare_form(std::string_view name) {
  return name.substr(0, 5) == "pto.t" || name.substr(0, 5) == "pto.m";
}

constexpr size_t index_size() {
  size_t n = 3;  // return, call, builtin.module
  for (const OpInfo& o : kOps) n += has_bare_form(o.name) ? 2 : 1;
  return n;
}

constexpr auto kIndex = [] {
  std::array<IndexEntry, index_size()> a{};
  size_t n = 0;
  for (size_t i = 0; i < size_t(Op::Count); ++i) {
    std::string_view name = kOps[i].name;
    set_key(a[n++], name, after_dot(name), Op(i));
    if (has_bare_form(name)) set_key(a[n++], name.substr(4), 0, Op(i));
  }
  set_key(a[n++], "return", 0, Op::Return);
  // The func dialect's short forms inside a function body (MLIR's default
  // dialect there): `return`, `call @f(...)`.
  set_key(a[n++], "call", 0, Op::Call);
  set_key(a[n++], "builtin.module", after_dot("builtin.module"), Op::Module);
  return a;
}();

// An open-addressing hash table over kIndex, also built at compile time
// (the binder looks an op up per statement).
constexpr uint32_t key_hash(std::string_view k) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (char c : k) h = (h ^ uint8_t(c)) * 16777619u;
  return h;
}

constexpr size_t kSlots = [] {
  size_t n = 1;
  while (n < 2 * kIndex.size()) n *= 2;
  return n;
}();
constexpr uint16_t kEmptySlot = 0xffff;
static_assert(kIndex.size() < kEmptySlot);

constexpr auto kSlotTable = [] {
  std::array<uint16_t, kSlots> t{};
  for (uint16_t& x : t) x = kEmptySlot;
  for (size_t i = 0; i < kIndex.size(); ++i) {
    size_t s = key_hash(kIndex[i].view()) & (kSlots - 1);
    while (t[s] != kEmptySlot) s = (s + 1) & (kSlots - 1);
    t[s] = uint16_t(i);
  }
  return t;
}();

// Every name fits a key, and no two entries share a key (an entry's probe
// sequence, up to its own slot, passes every earlier entry with its key).
constexpr bool index_is_sound() {
  for (const OpInfo& o : kOps)
    if (std::string_view(o.name).size() > kMaxKey) return false;
  for (size_t i = 0; i < kIndex.size(); ++i)
    for (size_t s = key_hash(kIndex[i].view()) & (kSlots - 1); kSlotTable[s] != i; s = (s + 1) & (kSlots - 1))
      if (kIndex[kSlotTable[s]].view() == kIndex[i].view()) return false;
  return true;
}
static_assert(index_is_sound(), "an op name is longer than kMaxKey, or two ops share a lookup key");

}  // namespace

const OpInfo& op_info(Op op) { return kOps[size_t(op)]; }

Op lookup_op(std::string_view spelling) {
  // The key as set_key spells it. A bare mnemonic (`tmatmul_acc`) is keyed
  // as if after `pto.`: every '_' is '.'.
  IndexEntry k{};
  if (spelling.size() > kMaxKey) return Op::Count;  // longer than any op name
  size_t dot = spelling.find('.');
  set_key(k, spelling, dot == std::string_view::npos ? 0 : dot + 1, Op::Count);
  for (size_t s = key_hash(k.view()) & (kSlots - 1); kSlotTable[s] != kEmptySlot; s = (s + 1) & (kSlots - 1))
    if (kIndex[kSlotTable[s]].view() == k.view()) return kIndex[kSlotTable[s]].op;
  // `a5vm.vlds`: the earlier dialect name of the VPTO micro-instructions
  // (the official docs' sample still writes it); they print as `pto.`.
  if (spelling.substr(0, 5) == "a5vm.") {
    Op op = lookup_op("pto." + std::string(spelling.substr(5)));
    if (op != Op::Count && (op_info(op).sem == Sem::Vpto || op_info(op).sem == Sem::Sync)) return op;
  }
  return Op::Count;
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
         d == DType::F8E4M3 || d == DType::F8E4M3FN || d == DType::F8E5M2 ||
         (d >= DType::HiF8 && d <= DType::F4E2M1x2);
}
bool dtype_is_int(DType d) {
  return (d >= DType::I8 && d <= DType::U64) || (d >= DType::SI8 && d <= DType::SI64);
}
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
