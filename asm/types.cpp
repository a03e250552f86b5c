// Interning tables, canonical type spellings and Module helpers.
#include <cstring>

#include "ir.h"

namespace ptoas {

namespace {
// A fast multiply-mix hash over 8-byte words (names and spellings are short;
// std::hash's byte loop showed up in profiles).
uint32_t hash_str(std::string_view s) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  if (n) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0x94d049bb133111ebull;
    h ^= h >> 29;
  }
  h *= 0xff51afd7ed558ccdull;
  return uint32_t(h ^ (h >> 32));
}
}  // namespace

// The slot holding `s`, or the empty slot where it would go.
uint32_t StringTable::slot_of(std::string_view s, uint32_t h) const {
  uint32_t mask = uint32_t(slots_.size() - 1);
  for (uint32_t i = h & mask;; i = (i + 1) & mask) {
    StrId id = slots_[i];
    if (id == kNone || (hashes_[id] == h && strs_[id] == s)) return i;
  }
}

void StringTable::grow() {
  std::vector<StrId> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : old.size() * 2, kNone);
  uint32_t mask = uint32_t(slots_.size() - 1);
  for (StrId id : old) {
    if (id == kNone) continue;
    uint32_t i = hashes_[id] & mask;
    while (slots_[i] != kNone) i = (i + 1) & mask;
    slots_[i] = id;
  }
}

StrId StringTable::find(std::string_view s) const {
  if (slots_.empty()) return kNone;
  return slots_[slot_of(s, hash_str(s))];
}

StrId StringTable::intern(std::string_view s) {
  if ((strs_.size() + 1) * 2 > slots_.size()) grow();
  uint32_t h = hash_str(s);
  uint32_t i = slot_of(s, h);
  if (slots_[i] != kNone) return slots_[i];
  StrId id = StrId(strs_.size());
  strs_.emplace_back(s);
  hashes_.push_back(h);
  slots_[i] = id;
  return id;
}

size_t StringTable::bytes() const {
  size_t n = strs_.size() * sizeof(std::string) + hashes_.capacity() * 4 + slots_.capacity() * 4;
  for (const auto& s : strs_) n += s.capacity() > 15 ? s.capacity() + 1 : 0;
  return n;
}

namespace {
// ORDER LOC
constexpr std::string_view kLocNames[] = {"vec", "mat", "left", "right", "acc",
                                          "bias", "scaling", "gm", "none"};

void append_dims(std::string& s, const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    if (d < 0) s += '?';
    else s += std::to_string(d);
    s += 'x';
  }
}

void append_extent(std::string& s, int32_t v) {
  if (v == kDyn) s += '?';
  else s += std::to_string(v);
}
}  // namespace

std::string_view loc_name(Loc l) { return kLocNames[size_t(l)]; }

std::string type_spelling(const Type& t, const std::vector<int64_t>& dims) {
  std::string s;
  switch (t.kind) {
    case TypeKind::Scalar:
      return std::string(dtype_name(t.elem));
    case TypeKind::Ptr:
      return "!pto.ptr<" + std::string(dtype_name(t.elem)) + ">";
    case TypeKind::TensorView:
      s = "!pto.tensor_view<";
      append_dims(s, dims);
      return s + std::string(dtype_name(t.elem)) + ">";
    case TypeKind::PartitionView:
      s = "!pto.partition_tensor_view<";
      append_dims(s, dims);
      return s + std::string(dtype_name(t.elem)) + ">";
    case TypeKind::Vector:
      s = "vector<";
      append_dims(s, dims);
      return s + std::string(dtype_name(t.elem)) + ">";
    case TypeKind::TileBuf: {
      s = "!pto.tile_buf<" + std::string(loc_name(t.loc)) + ", ";
      s += std::to_string(t.rows) + "x" + std::to_string(t.cols) + "x" +
           std::string(dtype_name(t.elem));
      if (t.vrow != t.rows || t.vcol != t.cols) {
        s += ", valid=";
        append_extent(s, t.vrow);
        s += 'x';
        append_extent(s, t.vcol);
      }
      if (t.blayout != BLayout::RowMajor) s += ", blayout=col_major";
      if (t.slayout == SLayout::RowMajor) s += ", slayout=row_major";
      if (t.slayout == SLayout::ColMajor) s += ", slayout=col_major";
      if (t.fractal != 512) s += ", fractal=" + std::to_string(t.fractal);
      if (t.pad != 0) s += ", pad=" + std::to_string(t.pad);
      if (t.compact != 0) s += ", compact=" + std::to_string(t.compact);
      return s + ">";
    }
    case TypeKind::Memref:
    case TypeKind::Other:
      break;
  }
  return {};
}

TypeId TypeTable::intern(Type t, const std::vector<int64_t>& dims) {
  if (t.kind != TypeKind::Memref && t.kind != TypeKind::Other)
    t.text = strs_.intern(type_spelling(t, dims));
  auto it = by_text_.find(t.text);
  if (it != by_text_.end()) return it->second;
  if (!dims.empty()) {
    t.dims = uint32_t(dims_.size());
    t.rank = uint8_t(dims.size());
    dims_.insert(dims_.end(), dims.begin(), dims.end());
  }
  TypeId id = TypeId(types_.size());
  types_.push_back(t);
  by_text_.emplace(t.text, id);
  return id;
}

TypeId TypeTable::scalar(DType d) {
  Type t;
  t.kind = TypeKind::Scalar;
  t.elem = d;
  return intern(t);
}

size_t TypeTable::bytes() const {
  return types_.capacity() * sizeof(Type) + dims_.capacity() * sizeof(int64_t) +
         by_text_.size() * 32;
}

const Attr* Module::find_attr(const Inst& in, std::string_view key) const {
  for (unsigned i = 0; i < in.n_attrs; ++i) {
    const NamedAttr& na = attrs[in.attrs + i];
    if (str(na.key) == key) return &attr_values[na.value];
  }
  return nullptr;
}

std::string_view Module::attr_word(const Inst& in, std::string_view key) const {
  const Attr* a = find_attr(in, key);
  if (!a || a->word == kNone) return {};
  return str(a->word);
}

bool Module::has_entry_attr(const Inst& fn) const {
  for (std::string_view k : {"pto.entry", "pto.kernel", "hacc.entry", "pto.aicore"})
    if (const Attr* a = find_attr(fn, k); a && a->kind == AttrKind::Unit) return true;
  return false;
}

AttrId Module::intern_attr(const Attr& a) {
  auto it = attr_by_text.find(a.text);
  if (it != attr_by_text.end()) return it->second;
  AttrId id = AttrId(attr_values.size());
  attr_values.push_back(a);
  attr_by_text.emplace(a.text, id);
  return id;
}

size_t Module::bytes() const {
  return strings.bytes() + types.bytes() + attr_values.capacity() * sizeof(Attr) +
         attr_by_text.size() * 32 + insts.capacity() * sizeof(Inst) +
         values.capacity() * sizeof(Value) + regions.capacity() * sizeof(Region) +
         (operands.capacity() + region_insts.capacity() + region_args.capacity()) * 4 +
         attrs.capacity() * sizeof(NamedAttr);
}

}  // namespace ptoas
