// exec_diff inputs (exec_inputs.h).
#include "exec_inputs.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "elem.h"
#include "int_eval.h"

using namespace ptoas;

namespace execdiff {

uint64_t hash64(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

bool ScalarTable::load(const std::string& path, std::string& err) {
  std::ifstream in(path);
  if (!in) {
    err = "cannot read " + path;
    return false;
  }
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ws(line);
    Row r;
    if (!(ws >> r.suffix >> r.function)) {
      err = path + ":" + std::to_string(n) + ": expected 'path-suffix function name=value...'";
      return false;
    }
    for (std::string kv; ws >> kv;) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) {
        err = path + ":" + std::to_string(n) + ": expected name=value, got '" + kv + "'";
        return false;
      }
      std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
      if (k == "blocks") r.blocks = std::stoll(v);
      else r.values[k] = v;
    }
    rows.push_back(std::move(r));
  }
  return true;
}

std::vector<const ScalarTable::Row*> ScalarTable::find(const std::string& path, const std::string& fn) const {
  std::vector<const Row*> out;
  for (const Row& r : rows) {
    bool tail = path.size() >= r.suffix.size() && path.compare(path.size() - r.suffix.size(), r.suffix.size(), r.suffix) == 0;
    if (tail && (r.function == "*" || r.function == fn)) out.push_back(&r);
  }
  return out;
}

namespace {

// What a kernel does with one integer parameter (the first role found wins,
// in the order of this enum).
enum class Role {
  ValidExtent, ViewShape, PartitionSize, Offset, LoopLower, LoopUpper, LoopStep, ViewStride,
  DerivedOffset,  // used in arithmetic that gives an offset: 0 keeps the offset in range
  None
};

struct ParamUse {
  Role role = Role::None;
  int64_t value = 1;
  // ViewStride: the view and the dimension, resolved after the shapes.
  InstId view = kNone;
  unsigned dim = 0;
};

unsigned view_rank(const Module& m, const Inst& in) { return m.type_of(in.res).rank; }

}  // namespace

std::vector<bool> index_buffers(const Module& m, InstId fn) {
  const Region& body = m.region(m.inst(fn), 0);
  std::vector<bool> out(body.arg_count, false);
  each_inst(m, fn, [&](InstId, const Inst& in) {
    if (in.op != Op::LoadScalar || in.n_ins < 1) return;
    ValueId p = m.operand(in, 0);
    for (int guard = 0; guard < 64 && m.values[p].def != kNone; ++guard) {  // back through addptr
      const Inst& d = m.inst(m.values[p].def);
      if (d.op != Op::AddPtr || d.n_ins < 1) break;
      p = m.operand(d, 0);
    }
    DType e = m.type_of(p).elem;
    bool integer = dtype_is_int(e) || e == DType::Index;
    for (unsigned i = 0; i < body.arg_count; ++i)
      if (integer && m.region_arg(body, i) == p) out[i] = true;
  });
  return out;
}

std::vector<bool> read_only_buffers(const Module& m, InstId fn) {
  const Region& body = m.region(m.inst(fn), 0);
  std::vector<bool> ro(body.arg_count, false);
  if (body.arg_count > 64) return ro;
  // The parameters each pointer or view value is reached from (a mask).
  std::unordered_map<ValueId, uint64_t> from;
  for (unsigned i = 0; i < body.arg_count; ++i) from[m.region_arg(body, i)] = uint64_t(1) << i;
  uint64_t written = 0;
  each_inst(m, fn, [&](InstId, const Inst& in) {
    for (unsigned k = 0; k < unsigned(in.n_ins + in.n_outs); ++k) {
      auto it = from.find(m.operand(in, k));
      if (it == from.end()) continue;
      uint64_t mask = it->second;
      switch (in.op) {
        case Op::MakeTensorView: case Op::PartitionView: case Op::AddPtr: case Op::Subset:
        case Op::MemrefReinterpretCast:  // a view or pointer into the same buffer
          for (unsigned r = 0; r < in.n_res; ++r) from[in.res + r] |= mask;
          break;
        case Op::GetTensorViewDim: break;
        case Op::TLoad: case Op::MGather:  // their GM operands are sources
          if (k >= in.n_ins) written |= mask;
          break;
        case Op::LoadScalar:
          if (k != 0) written |= mask;
          break;
        default: written |= mask;  // a store, a call, a loop's carried value: maybe written
      }
    }
  });
  for (unsigned i = 0; i < body.arg_count; ++i) ro[i] = !(written >> i & 1);
  return ro;
}

ScalarChoice choose_scalars(const Module& m, InstId fn, const std::vector<const ScalarTable::Row*>& rows) {
  ScalarChoice out;
  const Region& body = m.region(m.inst(fn), 0);
  std::map<ValueId, unsigned> param_index;
  for (unsigned i = 0; i < body.arg_count; ++i) param_index[m.region_arg(body, i)] = i;
  std::vector<ParamUse> use(body.arg_count);
  // Values that are a parameter converted (index_cast, extsi, ...) count
  // as the parameter.
  each_inst(m, fn, [&](InstId, const Inst& in) {
    if (op_info(in.op).syn != Syn::ArithCast || in.n_ins != 1 || in.n_res != 1) return;
    if (auto it = param_index.find(m.operand(in, 0)); it != param_index.end()) param_index[in.res] = it->second;
  });
  // The parameters each arith result is computed from.
  std::map<ValueId, std::vector<unsigned>> from;
  each_inst(m, fn, [&](InstId, const Inst& in) {
    Syn y = op_info(in.op).syn;
    if ((y != Syn::ArithBin && y != Syn::ArithCast && y != Syn::ArithSelect) || in.n_res != 1) return;
    std::vector<unsigned>& f = from[in.res];
    for (unsigned k = 0; k < in.n_ins; ++k) {
      ValueId a = m.operand(in, k);
      if (auto it = param_index.find(a); it != param_index.end()) f.push_back(it->second);
      if (auto it = from.find(a); it != from.end()) f.insert(f.end(), it->second.begin(), it->second.end());
    }
  });
  auto offer = [&](ValueId v, Role r, int64_t value, InstId view = kNone, unsigned dim = 0) {
    if ((r == Role::Offset || r == Role::LoopLower) && !param_index.count(v))
      if (auto it = from.find(v); it != from.end())
        for (unsigned p : it->second)
          if (Role::DerivedOffset < use[p].role) use[p] = ParamUse{Role::DerivedOffset, 0, kNone, 0};
    auto it = param_index.find(v);
    if (it == param_index.end()) return;
    ParamUse& u = use[it->second];
    if (r < u.role || (r == u.role && r == Role::ValidExtent && value < u.value)) u = ParamUse{r, value, view, dim};
  };
  // Partition views by the tensor view they cut: their static sizes.
  std::map<ValueId, std::vector<InstId>> parts;
  each_inst(m, fn, [&](InstId id, const Inst& in) {
    if (in.op == Op::PartitionView && in.n_ins >= 1) parts[m.operand(in, 0)].push_back(id);
  });
  each_inst(m, fn, [&](InstId id, const Inst& in) {
    switch (in.op) {
      case Op::AllocTile: {
        const Type& t = m.type_of(in.res);
        unsigned k = (in.flags & kInstHasAddr) ? 1 : 0;
        if (in.flags & kInstHasValidRow) offer(m.operand(in, k++), Role::ValidExtent, t.rows);
        if (in.flags & kInstHasValidCol) offer(m.operand(in, k++), Role::ValidExtent, t.cols);
        break;
      }
      case Op::MakeTensorView: {
        unsigned r = view_rank(m, in);
        for (unsigned d = 0; d < r && 1 + d < in.n_ins; ++d) {
          int64_t ext = m.type_of(in.res).dims != kNone ? m.types.dim(m.values[in.res].type, d) : kDyn;
          for (InstId p : ext < 0 ? parts[in.res] : std::vector<InstId>{}) {
            TypeId pt = m.values[m.inst(p).res].type;
            if (m.types.get(pt).dims != kNone && d < m.types.get(pt).rank) ext = std::max(ext, m.types.dim(pt, d));
          }
          if (ext <= 0) ext = 16;
          offer(m.operand(in, 1 + d), Role::ViewShape, ext);
        }
        for (unsigned d = 0; d < r && 1 + r + d < in.n_ins; ++d)
          offer(m.operand(in, 1 + r + d), Role::ViewStride, 1, id, d);
        break;
      }
      case Op::PartitionView: {
        unsigned r = view_rank(m, in);
        for (unsigned d = 0; d < r && 1 + d < in.n_ins; ++d) offer(m.operand(in, 1 + d), Role::Offset, 0);
        for (unsigned d = 0; d < r && 1 + r + d < in.n_ins; ++d) {
          int64_t ext = m.types.dim(m.values[in.res].type, d);
          offer(m.operand(in, 1 + r + d), Role::PartitionSize, ext > 0 ? ext : 16);
        }
        break;
      }
      case Op::For:
        if (in.n_ins >= 3) {
          offer(m.operand(in, 0), Role::LoopLower, 0);
          offer(m.operand(in, 2), Role::LoopStep, 1);
          int64_t lb = 0, st = 1;
          int_constant(m, m.operand(in, 0), lb);
          int_constant(m, m.operand(in, 2), st);
          offer(m.operand(in, 1), Role::LoopUpper, lb + 2 * (st > 0 ? st : 1));
        }
        break;
      default:
        break;
    }
  });
  // The value of an index operand: a constant, or a parameter's choice.
  auto value_of = [&](ValueId v, int64_t& x) {
    if (int_constant(m, v, x)) return true;
    auto it = param_index.find(v);
    if (it == param_index.end() || use[it->second].role == Role::ViewStride) return false;
    x = use[it->second].value;
    return true;
  };
  // A stride parameter: the product of the shape dims after it (row-major).
  for (ParamUse& u : use) {
    if (u.role != Role::ViewStride) continue;
    const Inst& v = m.inst(u.view);
    unsigned r = view_rank(m, v);
    int64_t s = 1;
    for (unsigned d = u.dim + 1; d < r; ++d) {
      int64_t x;
      if (!value_of(m.operand(v, 1 + d), x) || x <= 0) x = 16;
      s *= x;
    }
    u.value = s;
  }
  for (unsigned i = 0; i < body.arg_count; ++i) {
    ValueId p = m.region_arg(body, i);
    const Type& t = m.type_of(p);
    std::string name(m.str(m.values[p].name));
    std::string value, how;
    const std::string* given = nullptr;
    for (const ScalarTable::Row* r : rows)
      if (auto it = r->values.find(name); it != r->values.end()) given = &it->second;
    for (const ScalarTable::Row* r : rows)
      if (r->blocks > 0) out.blocks = r->blocks;
    if (t.kind == TypeKind::Ptr) {
      // a buffer
    } else if (given) {
      value = *given, how = "table";
    } else if (t.kind == TypeKind::Scalar && dtype_is_float(t.elem)) {
      value = "0.75", how = "default";
    } else if (name.find("block_num") != std::string::npos) {
      value = "1", how = "block count";
    } else if (name.find("block_idx") != std::string::npos) {
      value = "0", how = "block index";
    } else if (t.elem == DType::I1) {
      value = "1", how = "default";
    } else {
      static const char* names[] = {"valid extent", "view shape", "partition size", "offset", "loop start",
                                    "loop end", "loop step", "view stride", "offset arithmetic", "default"};
      value = std::to_string(use[i].value), how = names[int(use[i].role)];
    }
    out.value.push_back(value);
    out.how.push_back(t.kind == TypeKind::Ptr ? "" : "%" + name + "=" + value + " (" + how + ")");
  }
  return out;
}

// ---- input data -----------------------------------------------------------------

namespace {

struct Rng {
  uint64_t s;
  uint64_t next() {  // splitmix64
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
};

uint64_t special(DType d, Rng& r) {
  unsigned k = unsigned(r.next() % 6);
  switch (d) {
    case DType::F32: {
      static const uint32_t v[] = {0x7fc00000u, 0xff800000u, 0x7f800000u, 0x80000000u, 0x00000123u, 0x7fa00001u};
      return v[k];
    }
    case DType::F16: {
      static const uint16_t v[] = {0x7e00, 0xfc00, 0x7c00, 0x8000, 0x0003, 0x7d01};
      return v[k];
    }
    case DType::BF16: {
      static const uint16_t v[] = {0x7fc0, 0xff80, 0x7f80, 0x8000, 0x0012, 0x7fa1};
      return v[k];
    }
    case DType::F64: {
      static const uint64_t v[] = {0x7ff8000000000000ull, 0xfff0000000000000ull, 0x7ff0000000000000ull,
                                   0x8000000000000000ull, 0x0000000000000123ull, 0x7ff4000000000001ull};
      return v[k];
    }
    default: {
      unsigned bits = dtype_bytes(d) * 8;
      uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
      uint64_t v[] = {0, mask, mask >> 1, (mask >> 1) + 1, 1, mask - 1};
      return v[k] & mask;
    }
  }
}

}  // namespace

std::vector<uint8_t> input_bytes(DType d, size_t n, uint64_t seed, bool specials, uint64_t int_range) {
  unsigned es = std::max(1u, dtype_bytes(d));
  std::vector<uint8_t> out(n * es);
  Rng r{seed};
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits = 0;
    if (specials && r.next() % 32 == 0) {
      bits = special(d, r);
    } else {
      uint64_t x = r.next();
      float f = float(int32_t(x >> 40) - (1 << 23)) * 0x1p-21f;  // uniform in [-4, 4), 2^-21 apart
      switch (d) {
        case DType::F32: std::memcpy(&bits, &f, 4); break;
        case DType::F16: bits = rt::f32_to_f16_bits(f); break;
        case DType::BF16: bits = rt::f32_to_bf16_bits(f); break;
        case DType::F64: {
          double g = f;
          std::memcpy(&bits, &g, 8);
          break;
        }
        case DType::I1: bits = x & 1; break;
        default: bits = x % std::max<uint64_t>(int_range, 1); break;
      }
    }
    std::memcpy(out.data() + i * es, &bits, es);  // little-endian
  }
  return out;
}

}  // namespace execdiff
