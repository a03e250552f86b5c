// Buffers with addresses: pto.reserve_buffer / pto.import_reserved_buffer
// (their op verifiers and the build-level rules the official driver checks
// before any pass), pto.alloc_multi_tile / pto.multi_tile_get (multi-
// buffered tiles: !pto.multi_tile_buf<slot, count=N>), and the alignment of
// constant local addresses (alloc_tile addr, tassign, alloc_multi_tile addr).
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "verify_npu.h"

namespace ptoas {
namespace verify_detail {
namespace {

// Capacity and base alignment of the memories a reserve_buffer may use.
struct MemSpec {
  int64_t capacity = 0, align = 1;
};
MemSpec reserve_spec(Arch arch, Loc l) {
  if (l == Loc::Vec) return {arch == Arch::A5 ? 253952 : 196608, 256};
  if (l == Loc::Mat) return {524288, 256};
  return {};
}

// Alignment of a constant tile address in each local memory (PTO-ISA's
// TASSIGN granularity: 32 bytes, 512 for the L0 buffers); 0: not checked.
int64_t tile_addr_align(Loc l) {
  switch (l) {
    case Loc::Vec: case Loc::Mat: case Loc::Bias: case Loc::Scaling: return 32;
    case Loc::Left: case Loc::Right: case Loc::Acc: return 512;
    default: return 0;
  }
}

// The 8-bit and 4-bit float storage formats.
bool low_precision(DType d) {
  return d == DType::F8E4M3 || d == DType::F8E4M3FN || d == DType::F8E5M2 || d == DType::HiF8 ||
         d == DType::F8E8M0 || d == DType::F4E1M2x2 || d == DType::F4E2M1x2;
}

Loc loc_word(std::string_view w) {
  if (w.empty()) return Loc::None;
  if (w.rfind("#pto.address_space<", 0) == 0 || w.front() == '<') {
    size_t a = w.find('<'), b = w.rfind('>');
    if (a != std::string_view::npos && b != std::string_view::npos && b > a) w = w.substr(a + 1, b - a - 1);
  }
  for (unsigned i = 0; i <= unsigned(Loc::None); ++i)
    if (loc_name(Loc(i)) == w) return Loc(i);
  if (w == "ub") return Loc::Vec;
  return Loc::None;
}

// Top-level comma-separated parts of the text between the outer <...>.
std::vector<std::string> type_params(std::string_view text) {
  std::vector<std::string> parts;
  size_t open = text.find('<');
  if (open == std::string_view::npos || text.back() != '>') return parts;
  std::string_view in = text.substr(open + 1, text.size() - open - 2);
  int depth = 0;
  std::string cur;
  for (char ch : in) {
    if (ch == '<' || ch == '(' || ch == '[') ++depth;
    if (ch == '>' || ch == ')' || ch == ']') --depth;
    if (ch == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
      continue;
    }
    if (ch != ' ' || depth > 0) cur += ch;
  }
  parts.push_back(cur);
  for (std::string& p : parts) {
    size_t b = p.find_first_not_of(' '), e = p.find_last_not_of(' ');
    p = b == std::string::npos ? std::string() : p.substr(b, e - b + 1);
  }
  return parts;
}

// The slot of a !pto.multi_tile_buf: `<vec, 16x16xf16, ..., count=N>` or
// `<!pto.tile_buf<...>, count=N>`.
struct MultiTile {
  bool ok = false;
  int64_t count = -1;
  Loc loc = Loc::None;
  DType elem = DType::None;
  int64_t rows = 0, cols = 0;
  bool row_plus_one = false, dyn_vrow = false, dyn_vcol = false;
};

std::string_view kv_part(std::string_view part, std::string_view key) {
  if (part.rfind(key, 0) != 0) return {};
  std::string_view rest = part.substr(key.size());
  size_t i = rest.find_first_not_of(' ');
  if (i == std::string_view::npos || rest[i] != '=') return {};
  rest = rest.substr(i + 1);
  i = rest.find_first_not_of(' ');
  return i == std::string_view::npos ? std::string_view() : rest.substr(i);
}

void read_shape(std::string_view s, MultiTile& mt) {
  // 16x16xf16: dims then the element type.
  size_t x1 = s.find('x'), x2 = x1 == std::string_view::npos ? x1 : s.find('x', x1 + 1);
  if (x2 == std::string_view::npos) return;
  mt.rows = std::atoll(std::string(s.substr(0, x1)).c_str());
  mt.cols = std::atoll(std::string(s.substr(x1 + 1, x2 - x1 - 1)).c_str());
  mt.elem = parse_dtype(s.substr(x2 + 1));
}

void read_tile_fields(const std::vector<std::string>& parts, size_t from, MultiTile& mt) {
  for (size_t i = from; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    if (auto v = kv_part(p, "loc"); !v.empty()) mt.loc = loc_word(v);
    if (auto v = kv_part(p, "dtype"); !v.empty()) mt.elem = parse_dtype(v);
    if (auto v = kv_part(p, "rows"); !v.empty()) mt.rows = std::atoll(std::string(v).c_str());
    if (auto v = kv_part(p, "cols"); !v.empty()) mt.cols = std::atoll(std::string(v).c_str());
    if (auto v = kv_part(p, "v_row"); !v.empty()) mt.dyn_vrow = v == "?";
    if (auto v = kv_part(p, "v_col"); !v.empty()) mt.dyn_vcol = v == "?";
    if (auto v = kv_part(p, "valid"); !v.empty()) {
      mt.dyn_vrow = v.rfind("?", 0) == 0;
      mt.dyn_vcol = v.size() >= 2 && v.substr(v.size() - 1) == "?";
    }
    if (auto v = kv_part(p, "compact"); !v.empty()) mt.row_plus_one = v == "2" || v == "row_plus_one";
  }
}

MultiTile multi_tile(std::string_view text) {
  MultiTile mt;
  if (text.rfind("!pto.multi_tile_buf<", 0) != 0) return mt;
  std::vector<std::string> parts = type_params(text);
  if (parts.size() < 2) return mt;
  for (const std::string& p : parts)
    if (auto v = kv_part(p, "count"); !v.empty()) mt.count = std::atoll(std::string(v).c_str());
  if (parts[0].rfind("!pto.tile_buf<", 0) == 0) {
    std::vector<std::string> inner = type_params(parts[0]);
    if (inner.empty()) return mt;
    if (inner[0].find('=') == std::string::npos) {  // compact spelling inside
      mt.loc = loc_word(inner[0]);
      if (inner.size() > 1) read_shape(inner[1], mt);
      read_tile_fields(inner, 2, mt);
    } else {
      read_tile_fields(inner, 0, mt);
    }
  } else {
    mt.loc = loc_word(parts[0]);
    read_shape(parts[1], mt);
    read_tile_fields(parts, 2, mt);
  }
  mt.ok = true;
  return mt;
}

class BufferRules {
 public:
  BufferRules(Ctx& c, const NpuIndex& ix) : c_(c), ix_(ix) {}

  void run() {
    for (InstId id : ix_.of(Op::ReserveBuffer)) ++reserves_[{ix_.func[id], c_.kv(I(id), "name")}];
    for (InstId id : ix_.of(Op::ImportReservedBuffer))
      ++imports_[{ix_.func[id], c_.kv(I(id), "name"), ix_.func_named(c_.kv(I(id), "peer_func"))}];
    for (InstId id : ix_.order) {
      if (c_.stop()) return;
      switch (I(id).op) {
        case Op::ReserveBuffer: reserve(id); break;
        case Op::ImportReservedBuffer: import(id); break;
        case Op::AllocMultiTile: alloc_multi(id); break;
        case Op::MultiTileGet: multi_get(id); break;
        case Op::AllocTile: alloc_tile(id); break;
        case Op::TAssign: tassign(id); break;
        default: break;
      }
    }
    plan_memory_manual_reserve();
  }

 private:
  Ctx& c_;
  const NpuIndex& ix_;
  std::map<std::pair<InstId, std::string>, unsigned> reserves_;          // (function, name)
  std::map<std::tuple<InstId, std::string, InstId>, unsigned> imports_;  // (function, name, peer)

  const Inst& I(InstId id) const { return c_.m.insts[id]; }
  void err(InstId id, const std::string& msg) { c_.error(I(id).loc, q(I(id).op) + " op " + msg); }

  // addr must be non-negative and aligned for the tile's memory.
  void check_addr(InstId id, ValueId addr, Loc l) {
    int64_t a = 0, align = tile_addr_align(l);
    if (align == 0 || !const_int(c_, addr, a)) return;
    if (a < 0) return err(id, "addr must be non-negative, got " + std::to_string(a));
    if (a % align != 0)
      err(id, "addr must be aligned to " + std::to_string(align) +
                  " bytes for local tile memory space, got " + std::to_string(a));
  }

  void alloc_tile(InstId id) {
    const Inst& in = I(id);
    if (!(in.flags & kInstHasAddr) || in.n_res == 0) return;
    const Type* t = c_.vtype(c_.result(in, 0));
    if (t && t->kind == TypeKind::TileBuf) check_addr(id, c_.operand(in, 0), t->loc);
  }

  // `%r = pto.tassign %tile, %addr : T -> T`
  void tassign(InstId id) {
    const Inst& in = I(id);
    if (c_.n_operands(in) < 2) return;
    const Type* t = c_.vtype(c_.operand(in, 0));
    if (!t || t->kind != TypeKind::TileBuf) return;
    if (in.n_res && c_.vtype_id(c_.result(in, 0)) != c_.vtype_id(c_.operand(in, 0)) &&
        c_.vtype(c_.result(in, 0)) && c_.vtype(c_.result(in, 0))->kind == TypeKind::TileBuf)
      return err(id, "result type must match tile operand type");
    check_addr(id, c_.operand(in, 1), t->loc);
  }

  void reserve(InstId id) {
    const Inst& in = I(id);
    int64_t size = 0, base = 0;
    kv_int(c_, in, "size", size);
    bool has_base = kv_int(c_, in, "base", base);
    bool automatic = true;
    kv_bool(c_, in, "auto", automatic);
    Loc l = loc_word(c_.kv(in, "location"));
    std::string name = c_.kv(in, "name");
    // The op verifier.
    if (ix_.func[id] == kNone) return err(id, "must be nested under a func.func");
    if (size <= 0) return err(id, "expects 'size' to be greater than 0");
    if (l != Loc::Vec && l != Loc::Mat)
      return err(id, "expects 'location' to be #pto.address_space<vec> or #pto.address_space<mat>");
    if (!automatic && !has_base) return err(id, "expects 'base' when 'auto' is false");
    if (has_base && base < 0) return err(id, "expects 'base' to be non-negative when present");
    if (reserves_[{ix_.func[id], name}] > 1)
      return err(id, "requires 'name' to be unique within the function");
    // The driver's build-level rules: PlanMemory places automatic buffers
    // at levels 1 and 2; level 3 has no planner, so every base is explicit.
    auto bare = [&](const std::string& m) { c_.error(in.loc, m); };
    if (c_.opts.level != Level::Level3) {
      if (automatic) {
        if (has_base)
          bare("unexpected 'base' on auto reserve_buffer: level1/level2 assign it in pto-plan-memory");
        return;
      }
      return bare("pto.reserve_buffer with explicit 'base' (auto = false) is not supported when "
                  "--pto-level=level1 or level2; use --pto-level=level3 or set auto = true");
    }
    if (automatic || !has_base)
      return bare("pto.reserve_buffer requires 'auto = false' and explicit 'base' when "
                  "--pto-level=level3");
    MemSpec spec = reserve_spec(c_.arch, l);
    if (base % spec.align != 0)
      return bare("expects 'base' to be aligned to " + std::to_string(spec.align) + " bytes for " +
                  std::string(loc_name(l)));
    if (base > spec.capacity || size > spec.capacity - base)
      bare("reserved range exceeds " + std::string(loc_name(l)) + " capacity: base " +
           std::to_string(base) + " + size " + std::to_string(size) + " > " +
           std::to_string(spec.capacity) + " bytes");
  }

  void import(InstId id) {
    const Inst& in = I(id);
    if (ix_.func[id] == kNone) return err(id, "must be nested under a func.func");
    std::string peer = c_.kv(in, "peer_func"), name = c_.kv(in, "name");
    InstId pf = ix_.func_named(peer);
    if (pf == kNone) return err(id, "expects 'peer_func' to reference an existing func.func");
    if (imports_[{ix_.func[id], name, pf}] > 1)
      return err(id, "requires (name, peer_func) to be unique within the function");
    if (reserves_.count({pf, name}) == 0) err(id, "expects matching peer reserve_buffer to exist");
  }

  void alloc_multi(InstId id) {
    const Inst& in = I(id);
    if (in.n_res == 0) return;
    MultiTile mt = multi_tile(c_.m.types.text(c_.vtype_id(c_.result(in, 0))));
    if (!mt.ok) return err(id, "result must be `!pto.multi_tile_buf`");
    // The type's own verifier, then the op's.
    if (mt.count < 2)
      return c_.error(in.loc, "multi_tile_buf count must be >= 2 (got " + std::to_string(mt.count) + ")");
    if (mt.count > 16)
      return c_.error(in.loc, "multi_tile_buf count must be <= 16 (got " + std::to_string(mt.count) + ")");
    std::vector<std::string> roles = operand_roles(c_, in);
    ValueId addr = role_operand(c_, in, roles, "addr");
    if (low_precision(mt.elem))
      return err(id, "slot dtype " + std::string(dtype_name(mt.elem)) +
                         " is not supported by pto.alloc_multi_tile yet");
    check_addr(id, addr, mt.loc);
    if (mt.row_plus_one)
      return err(id, "multi_tile_buf slot uses row_plus_one compaction, whose padded storage "
                     "footprint exceeds product(shape) and would overlap adjacent multi-buffer "
                     "slots; use a compact (non-row_plus_one) slot layout or a single pto.alloc_tile");
    bool vr = role_count(roles, "valid_row") > 0, vc = role_count(roles, "valid_col") > 0;
    if (vr != mt.dyn_vrow)
      return err(id, std::string("valid_row operand ") + (mt.dyn_vrow ? "is required" : "must be absent") +
                         " because slot v_row is " + (mt.dyn_vrow ? "?" : std::to_string(mt.rows)));
    if (vc != mt.dyn_vcol)
      return err(id, std::string("valid_col operand ") + (mt.dyn_vcol ? "is required" : "must be absent") +
                         " because slot v_col is " + (mt.dyn_vcol ? "?" : std::to_string(mt.cols)));
    // Driver rules: planned slot addresses belong to PlanMemory; level 3
    // has no planner, so the base address is the user's.
    if (!c_.kv(in, "pto.multi_buffer_addrs").empty() || has_attr(c_, in, "pto.multi_buffer_addrs"))
      return c_.error(in.loc, "attribute 'pto.multi_buffer_addrs' is reserved for pto-plan-memory");
    if (c_.opts.level == Level::Level3 && addr == kNone)
      return c_.error(in.loc, "pto.alloc_multi_tile requires a base 'addr' operand when --pto-level=level3");
    if (c_.opts.level != Level::Level3 && addr != kNone)
      c_.error(in.loc, "unexpected 'addr' operand on pto.alloc_multi_tile: only supported when "
                       "--pto-level=level3");
  }

  // `%t = pto.multi_tile_get %mb[%slot] : !pto.multi_tile_buf<...> -> !pto.tile_buf<...>`
  void multi_get(InstId id) {
    const Inst& in = I(id);
    if (c_.n_operands(in) < 2) return;
    MultiTile mt = multi_tile(c_.m.types.text(c_.vtype_id(c_.operand(in, 0))));
    int64_t slot = 0;
    if (!mt.ok || !const_int(c_, c_.operand(in, 1), slot)) return;
    if (slot < 0 || slot >= mt.count)
      err(id, "constant slot " + std::to_string(slot) + " is out of range for multi_tile_buf count=" +
                  std::to_string(mt.count));
  }

  // PlanMemory (levels 1 and 2): a function that places a reserve_buffer
  // itself (auto = false) cannot also ask the planner for local memref.allocs.
  void plan_memory_manual_reserve() {
    if (c_.opts.level == Level::Level3) return;
    std::set<InstId> manual, reported;
    for (InstId x : ix_.of(Op::ReserveBuffer)) {
      bool automatic = true;
      if (kv_bool(c_, I(x), "auto", automatic) && !automatic) manual.insert(ix_.func[x]);
    }
    for (InstId x : ix_.of(Op::MemrefAlloc)) {
      const Inst& in = I(x);
      InstId fn = ix_.func[x];
      if (!manual.count(fn) || reported.count(fn)) continue;
      const Type* t = c_.vtype(c_.result(in, 0));
      if (t && t->kind == TypeKind::Memref && t->loc == Loc::Gm) continue;
      c_.error(in.loc, "'memref.alloc' op cannot use pto.reserve_buffer with auto = false when "
                       "local memref.alloc still requires PlanMemory allocation");
      reported.insert(fn);
    }
  }
};

}  // namespace

void verify_npu_buffers(Ctx& c, const NpuIndex& ix) { BufferRules(c, ix).run(); }

}  // namespace verify_detail
}  // namespace ptoas
