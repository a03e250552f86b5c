// Helpers of the NPU rule files (verify_npu.h): the instruction index, kernel
// kinds, the roles of an Opaque statement's operands, attribute values.
#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "int_eval.h"
#include "verify_npu.h"

namespace ptoas {
namespace verify_detail {

namespace {

bool word_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_' || ch == '.';
}

bool name_char(char ch) { return word_char(ch) || ch == '$' || ch == '#' || ch == '-'; }

}  // namespace

NpuIndex::NpuIndex(const Ctx& c) {
  const Module& m = c.m;
  const size_t n = m.insts.size();
  parent.assign(n, kNone);
  func.assign(n, kNone);
  region.assign(n, kNone);
  pos.assign(n, 0);
  users.assign(m.values.size(), {});
  by_op.assign(size_t(Op::Count), {});
  is_param.assign(m.values.size(), 0);
  if (m.body == kNone || m.body >= m.regions.size()) return;
  std::vector<uint8_t> seen(n, 0);
  struct Item {
    InstId id, parent, func;
    RegionId region;
    uint32_t pos;
  };
  std::vector<Item> stack;
  auto push_region = [&](RegionId r, InstId par, InstId fn) {
    const Region& reg = m.regions[r];
    size_t avail = reg.inst_begin < m.region_insts.size() ? m.region_insts.size() - reg.inst_begin : 0;
    size_t cnt = std::min<size_t>(reg.inst_count, avail);
    for (size_t i = cnt; i-- > 0;) {
      InstId id = m.region_insts[reg.inst_begin + i];
      if (id < n) stack.push_back({id, par, fn, r, uint32_t(i)});
    }
  };
  push_region(m.body, kNone, kNone);
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    if (seen[it.id]) continue;
    seen[it.id] = 1;
    const Inst& in = m.insts[it.id];
    if (in.op >= Op::Count) continue;
    order.push_back(it.id);
    by_op[size_t(in.op)].push_back(it.id);
    parent[it.id] = it.parent;
    func[it.id] = it.func;
    region[it.id] = it.region;
    pos[it.id] = it.pos;
    for (unsigned i = 0; i < c.n_operands(in); ++i) {
      ValueId v = c.operand(in, i);
      if (v != kNone) users[v].push_back(it.id);
    }
    InstId fn = it.func;
    if (in.op == Op::Func) {
      fn = it.id;
      if (in.n_regions > 0) {
        funcs.push_back(it.id);
        std::string name = c.symbol(in, "sym_name");
        if (!name.empty()) func_by_name.emplace(name, it.id);
        size_t r0 = size_t(in.region);
        if (r0 < m.regions.size())
          for (ValueId a : c.region_args(m.regions[r0]))
            if (a != kNone && a < is_param.size()) is_param[a] = 1;
      }
    }
    for (unsigned r = in.n_regions; r-- > 0;) {
      size_t k = size_t(in.region) + r;
      if (k < m.regions.size()) push_region(RegionId(k), it.id, fn);
    }
  }
}

InstId NpuIndex::func_named(std::string_view name) const {
  if (!name.empty() && name[0] == '@') name.remove_prefix(1);
  if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
    name = name.substr(1, name.size() - 2);
  auto f = func_by_name.find(std::string(name));
  return f == func_by_name.end() ? kNone : f->second;
}

InstId NpuIndex::enclosing(const Ctx& c, InstId id, Op op) const {
  for (InstId p = id < parent.size() ? parent[id] : kNone; p != kNone && p < parent.size();
       p = parent[p])
    if (c.m.insts[p].op == op) return p;
  return kNone;
}

KernelKind kernel_kind(const Ctx& c, const Inst& fn) {
  std::string k = c.kv(fn, "pto.kernel_kind");
  if (k.find("cube") != std::string::npos) return KernelKind::Cube;
  if (k.find("vector") != std::string::npos) return KernelKind::Vector;
  return KernelKind::None;
}

std::vector<std::string> operand_roles(const Ctx& c, const Inst& in) {
  std::string_view b = c.body(in);
  std::vector<std::string> roles, stack;
  std::string_view last_word;
  size_t last_word_end = std::string_view::npos;
  for (size_t i = 0; i < b.size();) {
    char ch = b[i];
    if (ch == '"') {
      size_t j = i + 1;
      while (j < b.size() && b[j] != '"') j += b[j] == '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    if (ch == '-' && i + 1 < b.size() && b[i + 1] == '>') {
      i += 2;
      continue;
    }
    if (ch == '(' || ch == '[' || ch == '<' || ch == '{') {
      std::string label = stack.empty() ? std::string() : stack.back();
      if (ch == '[') label = "[";
      else if (ch == '(' && last_word_end == i) label = std::string(last_word);
      stack.push_back(std::move(label));
      ++i;
      continue;
    }
    if (ch == ')' || ch == ']' || ch == '>' || ch == '}') {
      if (!stack.empty()) stack.pop_back();
      ++i;
      continue;
    }
    if (ch == '%') {
      size_t j = i + 1;
      while (j < b.size() && name_char(b[j])) ++j;
      size_t k = i;
      while (k > 0 && b[k - 1] == ' ') --k;
      std::string role = stack.empty() ? std::string() : stack.back();
      if (k > 0 && b[k - 1] == '=') {
        size_t e = k - 1;
        while (e > 0 && b[e - 1] == ' ') --e;
        size_t s = e;
        while (s > 0 && word_char(b[s - 1])) --s;
        role = std::string(b.substr(s, e - s));
      }
      roles.push_back(std::move(role));
      i = j;
      continue;
    }
    if (word_char(ch)) {
      size_t j = i;
      while (j < b.size() && word_char(b[j])) ++j;
      last_word = b.substr(i, j - i);
      last_word_end = j;
      i = j;
      continue;
    }
    ++i;
  }
  if (roles.size() != c.n_operands(in)) return {};
  return roles;
}

ValueId role_operand(const Ctx& c, const Inst& in, const std::vector<std::string>& roles,
                     std::string_view role, unsigned k) {
  for (size_t i = 0; i < roles.size(); ++i)
    if (roles[i] == role && k-- == 0) return c.operand(in, unsigned(i));
  return kNone;
}

unsigned role_count(const std::vector<std::string>& roles, std::string_view role) {
  unsigned n = 0;
  for (const std::string& r : roles) n += r == role;
  return n;
}

bool kv_int(const Ctx& c, const Inst& in, std::string_view key, int64_t& out) {
  std::string v = c.kv(in, key);
  if (v.empty()) return false;
  const char* s = v.c_str();
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(s, &end, 0);
  if (end == s || errno != 0) return false;
  out = x;
  return true;
}

bool kv_bool(const Ctx& c, const Inst& in, std::string_view key, bool& out) {
  std::string v = lower(c.kv(in, key));
  if (v != "true" && v != "false") return false;
  out = v == "true";
  return true;
}

bool const_int(const Ctx& c, ValueId v, int64_t& out) {
  return v != kNone && int_constant(c.m, v, out);
}

std::vector<int64_t> value_dims(const Ctx& c, ValueId v) {
  std::vector<int64_t> d;
  const Type* t = c.vtype(v);
  if (!t) return d;
  if (t->kind == TypeKind::TileBuf) return {t->rows, t->cols};
  if (t->kind != TypeKind::TensorView && t->kind != TypeKind::PartitionView &&
      t->kind != TypeKind::Memref)
    return d;
  if (t->dims == kNone) return d;
  TypeId id = c.vtype_id(v);
  for (unsigned i = 0; i < t->rank; ++i) d.push_back(c.m.types.dim(id, i));
  return d;
}

std::string lower(std::string_view s) {
  std::string o(s);
  for (char& ch : o)
    if (ch >= 'A' && ch <= 'Z') ch = char(ch - 'A' + 'a');
  return o;
}

}  // namespace verify_detail
}  // namespace ptoas
