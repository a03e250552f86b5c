// Interpreter core: control flow, scalar arithmetic, views, tile allocation
// and dispatch to the op families (ops_*.cpp).
#include "exec.h"
#include "int_eval.h"
#include "mem_plan.h"
#include "ops_common.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "diag.h"
#include "worker_pool.h"

namespace ptoas::rt {

namespace {
constexpr int kMaxCallDepth = 64;
thread_local int g_call_depth = 0;

// Interprets the text of an arith.constant for type `t` (docs/language.md D6:
// a hex literal with a float type is a bit pattern).
RtValue constant_value(const Module& m, const Inst& in, const Type& t) {
  const Attr* a = m.find_attr(in, "value");
  RtValue v;
  if (!a) return v;
  std::string text(m.str(a->text));
  bool is_hex = text.find("0x") != std::string::npos;
  if (t.kind == TypeKind::Scalar && dtype_is_float(t.elem)) {
    if (a->kind == AttrKind::Int && is_hex) {
      // The bits as written, a signalling NaN's too (the CPU targets'
      // slots hold them).
      uint8_t buf[8];
      uint64_t bits = uint64_t(a->ival);
      std::memcpy(buf, &bits, 8);
      bool own = t.elem == DType::F16 || t.elem == DType::BF16 || t.elem == DType::F64;
      v.f = load_f_bits(buf, own ? t.elem : DType::F32);
    } else if (a->kind == AttrKind::Int) {
      v.f = round_to(t.elem, double(a->ival));
    } else {
      v.f = round_to(t.elem, std::strtod(text.c_str(), nullptr));
    }
    return v;
  }
  if (a->kind == AttrKind::Bool) v.i = a->ival;
  else if (a->kind == AttrKind::Int) v.i = t.kind == TypeKind::Scalar ? wrap_to(t.elem, a->ival) : a->ival;
  else if (a->kind == AttrKind::Float) v.i = int64_t(a->fval);
  return v;
}

}  // namespace

bool is_float(DType d) { return dtype_is_float(d); }

// ---- layouts: asm/tile_layout.h ------------------------------------------------------

uint8_t* TileAcc::at(int64_t r, int64_t c) const {
  if (r < 0 || c < 0 || r >= t->rows || c >= t->cols)
    throw RtError{"tile element (" + std::to_string(r) + ", " + std::to_string(c) + ") is outside the " +
                      std::to_string(t->rows) + "x" + std::to_string(t->cols) + " tile",
                  loc};
  if (phys) return base + tile_elem_index(*phys, r0 + r, c0 + c) * esize;
  return base + tile_elem_index(*t, r, c) * esize;
}

double pad_value_f(const Type& t) {
  switch (t.pad) {
    case 2: return INFINITY;
    case 3: return -INFINITY;
    default: return 0;
  }
}

int64_t pad_value_i(const Type& t) {
  bool u = dtype_is_unsigned(t.elem);
  unsigned bits = dtype_bytes(t.elem) * 8;
  if (t.pad == 2) return u ? (bits >= 64 ? -1 : int64_t((uint64_t(1) << bits) - 1))
                           : (bits >= 64 ? INT64_MAX : int64_t((uint64_t(1) << (bits - 1)) - 1));
  if (t.pad == 3) return u ? 0 : (bits >= 64 ? INT64_MIN : -int64_t(uint64_t(1) << (bits - 1)));
  return 0;
}

ArenaSizes arena_sizes(Arch arch) {
  ArenaSizes s{};
  for (size_t l = 0; l < 8; ++l) s.bytes[l] = tile_memory_bytes(arch, Loc(l));
  return s;
}

// ---- Exec ------------------------------------------------------------------------

Exec::Exec(const Module& mod, const std::vector<Arg>& a, int64_t bi, int64_t bn, bool pr,
           const TileArenas* ext)
    : m(mod), block_idx(bi), block_num(bn), args(a), probe(pr) {
  vals.resize(m.values.size());
  own_slot.assign(m.values.size(), kNone);
  sizes = arena_sizes(m.arch);
  alloc_offset.assign(m.insts.size(), kNone);
  if (ext)
    for (int l = 0; l < 7; ++l) arena_base[l] = ext->base[l];
  else if (!probe)
    for (int l = 0; l < 7; ++l) {
      arena[l].assign(sizes.bytes[l], 0);
      arena_base[l] = arena[l].data();
    }
}

RtTile& Exec::tile_desc(const Inst& in, ValueId v) {
  const RtValue& rv = vals[v];
  if (rv.ref == kNone || rv.ref >= tiles.size() || m.type_of(v).kind != TypeKind::TileBuf)
    fail(in, "operand %" + std::string(m.str(m.values[v].name)) + " is not a tile buffer");
  return tiles[rv.ref];
}

TileAcc Exec::tile(const Inst& in, ValueId v) {
  RtTile& d = tile_desc(in, v);
  const Type& t = m.types.get(d.type);
  const Type* phys = d.phys == kNone ? nullptr : &m.types.get(d.phys);
  size_t l = size_t(d.loc);
  if (l >= 7 || d.offset > sizes.bytes[l] || sizes.bytes[l] - d.offset < tile_storage_bytes(phys ? *phys : t))
    fail(in, "tile %" + std::string(m.str(m.values[v].name)) + " lies outside its tile memory");
  // (The probe has no arena: base is then meaningless and never used.)
  uint8_t* base = probe ? nullptr : arena_base[l] + d.offset;
  TileAcc a{base, &t, t.elem, std::max(1u, dtype_bytes(t.elem)), d.vrow, d.vcol, in.loc, phys, d.r0, d.c0};
  return a;
}

double Exec::scalar_f(const Inst& in, ValueId v) {
  const Type& t = m.type_of(v);
  if (t.kind != TypeKind::Scalar) fail(in, "expected a scalar operand");
  return dtype_is_float(t.elem) ? vals[v].f : double(vals[v].i);
}

int64_t Exec::scalar_i(const Inst& in, ValueId v) {
  const Type& t = m.type_of(v);
  if (t.kind != TypeKind::Scalar) fail(in, "expected a scalar operand");
  return dtype_is_float(t.elem) ? int64_t(vals[v].f) : vals[v].i;
}

const RtView& Exec::view(const Inst& in, ValueId v) {
  const RtValue& rv = vals[v];
  if (rv.ref == kNone || rv.ref >= views.size())
    fail(in, "operand %" + std::string(m.str(m.values[v].name)) + " is not a GM view");
  return views[rv.ref];
}

uint8_t* Exec::gm_at(const Inst& in, const RtView& v, int64_t elem_off, unsigned esize, size_t n,
                     const char* what) {
  int64_t b;
  bool over = __builtin_mul_overflow(elem_off, int64_t(esize), &b) || __builtin_add_overflow(b, v.boff, &b);
  if (over || !v.lo || b < 0 || uint64_t(b) > size_t(v.hi - v.lo) || size_t(v.hi - v.lo) - uint64_t(b) < n) {
    std::string arg = v.param >= 0 ? " (" + param_name(v.param) + ")" : "";
    fail(in, std::string(what) + " outside the buffer passed for this view" + arg);
  }
  return v.lo + b;
}

RtView& Exec::new_view(ValueId v) {
  uint32_t& s = own_slot[v];
  if (s == kNone) {
    s = uint32_t(views.size());
    views.emplace_back();
  }
  vals[v].ref = s;
  return views[s];
}

RtTile& Exec::new_tile(ValueId v) {
  uint32_t& s = own_slot[v];
  if (s == kNone) {
    s = uint32_t(tiles.size());
    tiles.emplace_back();
  }
  vals[v].ref = s;
  return tiles[s];
}

std::string Exec::param_name(int i) const {
  if (entry_fn == kNone || i < 0 || unsigned(i) >= m.region(m.inst(entry_fn), 0).arg_count)
    return "parameter #" + std::to_string(i);
  return "parameter %" + std::string(m.str(m.values[m.region_arg(m.region(m.inst(entry_fn), 0), unsigned(i))].name));
}

void Exec::bind_params(InstId fn, std::vector<RtValue>& out) {
  entry_fn = fn;
  const Inst& f = m.inst(fn);
  const Region& r = m.region(f, 0);
  out.assign(r.arg_count, RtValue{});
  for (unsigned i = 0; i < r.arg_count; ++i) {
    ValueId pv = m.region_arg(r, i);
    const Type& t = m.type_of(pv);
    const Arg* a = i < args.size() ? &args[i] : nullptr;
    if (t.kind == TypeKind::Ptr) {
      RtView v;
      v.elem = t.elem;
      v.param = int(i);
      if (a && a->kind == Arg::Kind::Ptr && a->data) {
        v.lo = a->data;
        v.hi = a->data + a->bytes;
      }
      new_view(pv) = v;
      out[i].ref = vals[pv].ref;
    } else if (t.kind == TypeKind::Scalar) {
      if (a) {
        if (dtype_is_float(t.elem)) out[i].f = a->kind == Arg::Kind::Float ? round_to(t.elem, a->f) : double(a->i);
        else out[i].i = a->kind == Arg::Kind::Int ? wrap_to(t.elem, a->i) : int64_t(a->f);
      }
    } else {
      throw RtError{"parameter %" + std::string(m.str(m.values[pv].name)) +
                        " has a type the interpreter cannot pass: " + std::string(m.types.text(m.values[pv].type)),
                    f.loc};
    }
  }
}

std::vector<RtValue> Exec::call(InstId fn, const std::vector<RtValue>& a) {
  const Inst& f = m.inst(fn);
  if (f.n_regions == 0) throw RtError{"function has no body", f.loc};
  if (++g_call_depth > kMaxCallDepth) {
    --g_call_depth;
    throw RtError{"call depth exceeds " + std::to_string(kMaxCallDepth), f.loc};
  }
  bool returned = false;
  std::vector<RtValue> res;
  try {
    res = run_region(m.region(f, 0), a, &returned);
  } catch (...) {
    --g_call_depth;
    throw;
  }
  --g_call_depth;
  return res;
}

template <class Dst>
void Exec::bind_all(unsigned n, Dst dst, const std::vector<RtValue>& src) {
  n = std::min<unsigned>(n, unsigned(src.size()));
  // Every descriptor is copied out before any slot is written.
  std::vector<RtTile> tcopy(n);
  std::vector<RtView> vcopy(n);
  std::vector<uint8_t> kind(n, 0);  // 0 plain value, 1 tile, 2 view
  for (unsigned i = 0; i < n; ++i) {
    const RtValue& x = src[i];
    TypeKind k = m.type_of(dst(i)).kind;
    if (x.ref == kNone) continue;
    if (k == TypeKind::TileBuf && x.ref < tiles.size()) {
      tcopy[i] = tiles[x.ref];
      kind[i] = 1;
    } else if ((k == TypeKind::Ptr || k == TypeKind::TensorView || k == TypeKind::PartitionView) &&
               x.ref < views.size()) {
      vcopy[i] = views[x.ref];
      kind[i] = 2;
    }
  }
  for (unsigned i = 0; i < n; ++i) {
    ValueId v = dst(i);
    RtValue x = src[i];
    if (kind[i] == 1) {
      new_tile(v) = tcopy[i];
      x.ref = vals[v].ref;
    } else if (kind[i] == 2) {
      new_view(v) = vcopy[i];
      x.ref = vals[v].ref;
    }
    vals[v] = x;
  }
}

void Exec::bind(ValueId v, const RtValue& x) {
  bind_all(1, [v](unsigned) { return v; }, std::vector<RtValue>{x});
}

std::vector<RtValue> Exec::run_region(const Region& r, const std::vector<RtValue>& a,
                                      bool* returned) {
  bind_all(r.arg_count, [&](unsigned i) { return m.region_arg(r, i); }, a);
  std::vector<RtValue> term;
  bool stop = false;
  for (unsigned i = 0; i < r.inst_count && !stop; ++i) {
    const Inst& in = m.inst(m.region_inst(r, i));
    if ((++steps & 255) == 0 && (deadline || cancel_after)) {
      if (deadline && Interpreter::Clock::now() > *deadline) {
        char s[32];
        std::snprintf(s, sizeof s, "%g", limit_s);
        fail(in, std::string("the time limit of ") + s + " s was exceeded");
      }
      if (cancel_after && cancel_after->load(std::memory_order_relaxed) < block_idx) throw Cancelled{};
    }
    exec_inst(in, term, stop, returned);
  }
  return term;
}

InstId Exec::find_callee(const Inst& in) {
  std::string_view callee = m.attr_word(in, "callee");
  const Region& body = m.regions[m.body];
  for (unsigned i = 0; i < body.inst_count; ++i) {
    InstId id = m.region_inst(body, i);
    const Inst& f = m.inst(id);
    if (f.op == Op::Func && m.attr_word(f, "sym_name") == callee) return id;
  }
  fail(in, "call to unknown function @" + std::string(callee));
}

void Exec::exec_inst(const Inst& in, std::vector<RtValue>& term, bool& stop, bool* returned) {
  const OpInfo& info = op_info(in.op);
  switch (info.syn) {
    case Syn::Return:
      term.clear();
      for (unsigned i = 0; i < in.n_ins; ++i) term.push_back(opnd(in, i));
      stop = true;
      if (returned) *returned = true;
      return;
    case Syn::Yield:
    case Syn::Condition:
      term.clear();
      for (unsigned i = 0; i < in.n_ins; ++i) term.push_back(opnd(in, i));
      stop = true;
      return;
    case Syn::Call: {
      InstId fn = find_callee(in);
      std::vector<RtValue> a;
      for (unsigned i = 0; i < in.n_ins; ++i) a.push_back(opnd(in, i));
      std::vector<RtValue> r = call(fn, a);
      bind_all(in.n_res, [&](unsigned i) { return ValueId(in.res + i); }, r);
      return;
    }
    case Syn::For: {
      int64_t lb = opnd(in, 0).i, ub = opnd(in, 1).i, st = opnd(in, 2).i;
      if (st <= 0) fail(in, "scf.for step must be positive, got " + std::to_string(st));
      std::vector<RtValue> carried;
      for (unsigned i = 3; i < in.n_ins; ++i) carried.push_back(opnd(in, i));
      const Region& body = m.region(in, 0);
      for (int64_t iv = lb; iv < ub; iv += st) {
        std::vector<RtValue> a;
        RtValue ivv;
        ivv.i = iv;
        a.push_back(ivv);
        a.insert(a.end(), carried.begin(), carried.end());
        bool ret = false;
        std::vector<RtValue> y = run_region(body, a, &ret);
        if (ret) { term = y; stop = true; if (returned) *returned = true; return; }
        if (y.size() == carried.size()) carried = y;
        if (iv > INT64_MAX - st) break;
      }
      bind_all(in.n_res, [&](unsigned i) { return ValueId(in.res + i); }, carried);
      return;
    }
    case Syn::Fuse: {
      // The body's plain sequential meaning: what opt/fuse.cpp promises.
      run_region(m.region(in, 0), {}, nullptr);
      return;
    }
    case Syn::If: {
      bool c = opnd(in, 0).i != 0;
      if (!c && in.n_regions < 2) return;
      bool ret = false;
      std::vector<RtValue> y = run_region(m.region(in, c ? 0 : 1), {}, &ret);
      if (ret) { term = y; stop = true; if (returned) *returned = true; return; }
      bind_all(in.n_res, [&](unsigned i) { return ValueId(in.res + i); }, y);
      return;
    }
    case Syn::While: {
      std::vector<RtValue> cur;
      for (unsigned i = 0; i < in.n_ins; ++i) cur.push_back(opnd(in, i));
      for (uint64_t guard = 0;; ++guard) {
        if (guard > (uint64_t(1) << 40)) fail(in, "scf.while does not terminate");
        std::vector<RtValue> c = run_region(m.region(in, 0), cur, nullptr);
        if (c.empty()) fail(in, "scf.while's before region ended without scf.condition");
        std::vector<RtValue> fwd(c.begin() + 1, c.end());
        if (c[0].i == 0) {
          bind_all(in.n_res, [&](unsigned i) { return ValueId(in.res + i); }, fwd);
          return;
        }
        cur = run_region(m.region(in, 1), fwd, nullptr);
      }
    }
    case Syn::Const: case Syn::ArithBin: case Syn::ArithUn: case Syn::ArithCmp:
    case Syn::ArithSelect: case Syn::ArithCast: case Syn::NoArgs:
      exec_scalar(in);
      return;
    case Syn::MakeTensorView: case Syn::PartitionView: case Syn::GetDim: case Syn::AddPtr:
      exec_view(in);
      return;
    case Syn::Subset: case Syn::SetValidShape:
      exec_tile_view(in);
      return;
    case Syn::AllocTile:
      exec_alloc(in);
      return;
    case Syn::Module: case Syn::Func:
      return;
    case Syn::Block:
      fail(in, "unstructured control flow (block " + std::string(m.attr_word(in, "label")) +
                   ") is not supported by the interpreter");
    case Syn::Dps:
    case Syn::Opaque:
      if (info.sem == Sem::Sync) return;  // ordering only: a no-op here
      if (in.op == Op::Subview) return exec_tile_view(in);
      // One memory, coherent, in program order: invalidating a data cache
      // or fencing every pipe changes nothing.
      if (in.op == Op::CmoCacheInvalid || in.op == Op::FenceBarrierAll) return;
      if (probe) {
        if (in.op == Op::TExtract || in.op == Op::TInsert) check_move_offsets(*this, in);
        return;
      }
      if (Handler h = handlers()[size_t(in.op)]) {
        h(*this, in);
        return;
      }
      fail(in, "op " + std::string(info.name) + " is not supported by the interpreter");
  }
}

void Exec::exec_scalar(const Inst& in) {
  const Type& rt = m.type_of(in.res);
  RtValue& out = vals[in.res];
  DType d = rt.elem;
  bool fl = rt.kind == TypeKind::Scalar && dtype_is_float(d);
  switch (in.op) {
    case Op::Constant:
      if (rt.kind != TypeKind::Scalar) fail(in, "only scalar constants can be interpreted");
      out = constant_value(m, in, rt);
      return;
    case Op::GetBlockIdx: out.i = block_idx; return;
    case Op::GetBlockNum: out.i = block_num; return;
    case Op::GetSubblockIdx: out.i = 0; return;
    case Op::GetSubblockNum: out.i = 1; return;
    default: break;
  }
  auto a = [&](unsigned i) -> RtValue& { return opnd(in, i); };

  switch (in.op) {
    case Op::AddI: case Op::SubI: case Op::MulI: case Op::DivSI: case Op::RemSI:
    case Op::CeilDivSI: case Op::FloorDivSI: case Op::DivUI: case Op::RemUI: case Op::MinSI:
    case Op::MaxSI: case Op::MinUI: case Op::MaxUI: case Op::AndI: case Op::OrI: case Op::XOrI:
    case Op::ShLI: case Op::ShRSI: case Op::ShRUI:
      switch (eval_int_bin(in.op, d, a(0).i, a(1).i, out.i)) {
        case IntFault::None: return;
        case IntFault::DivByZero: fail(in, "integer division by zero");
        case IntFault::DivOverflow: fail(in, "integer division overflow");
        case IntFault::BadShift: fail(in, "shift amount out of range");
        case IntFault::NotFoldable: break;
      }
      return;
    // NaN results pinned to the left operand's NaN, else the right's, as
    // for tile ops (the compiler's operand order must not decide).
    case Op::AddF: out.f = round_to(d, ops::nan_first(a(0).f, a(1).f, a(0).f + a(1).f)); return;
    case Op::SubF: out.f = round_to(d, ops::nan_first(a(0).f, a(1).f, a(0).f - a(1).f)); return;
    case Op::MulF: out.f = round_to(d, ops::nan_first(a(0).f, a(1).f, a(0).f * a(1).f)); return;
    case Op::DivF: out.f = round_to(d, ops::nan_first(a(0).f, a(1).f, a(0).f / a(1).f)); return;
    case Op::MaximumF: {
      double x = a(0).f, y = a(1).f;
      out.f = (std::isnan(x) || std::isnan(y)) ? NAN : std::max(x, y);
      return;
    }
    case Op::MinimumF: {
      double x = a(0).f, y = a(1).f;
      out.f = (std::isnan(x) || std::isnan(y)) ? NAN : std::min(x, y);
      return;
    }
    case Op::NegF: out.f = -a(0).f; return;
    case Op::CmpI: {
      std::string_view p = m.attr_word(in, "predicate");
      bool ok;
      out.i = eval_int_cmp(p, opnd_type(in, 0).elem, a(0).i, a(1).i, ok);
      if (!ok) fail(in, "unknown arith.cmpi predicate '" + std::string(p) + "'");
      return;
    }
    case Op::CmpF: {
      std::string_view p = m.attr_word(in, "predicate");
      double x = a(0).f, y = a(1).f;
      bool uno = std::isnan(x) || std::isnan(y);
      bool r;
      if (p == "false") r = false;
      else if (p == "true") r = true;
      else if (p == "oeq") r = !uno && x == y;
      else if (p == "ogt") r = !uno && x > y;
      else if (p == "oge") r = !uno && x >= y;
      else if (p == "olt") r = !uno && x < y;
      else if (p == "ole") r = !uno && x <= y;
      else if (p == "one") r = !uno && x != y;
      else if (p == "ord") r = !uno;
      else if (p == "ueq") r = uno || x == y;
      else if (p == "ugt") r = uno || x > y;
      else if (p == "uge") r = uno || x >= y;
      else if (p == "ult") r = uno || x < y;
      else if (p == "ule") r = uno || x <= y;
      else if (p == "une") r = uno || x != y;
      else if (p == "uno") r = uno;
      else fail(in, "unknown arith.cmpf predicate '" + std::string(p) + "'");
      out.i = r;
      return;
    }
    case Op::Select:
      bind(in.res, a(0).i ? a(1) : a(2));  // a view or tile gets its own copy
      return;
    case Op::IndexCast: case Op::ExtSI: case Op::TruncI: case Op::IndexCastUI: case Op::ExtUI:
      out.i = eval_int_cast(in.op, opnd_type(in, 0).elem, d, a(0).i);
      return;
    case Op::SIToFP: out.f = round_to(d, double(a(0).i)); return;
    case Op::UIToFP: {
      const Type& st = opnd_type(in, 0);
      unsigned bits = dtype_bytes(st.elem) * 8;
      uint64_t v = bits >= 64 ? uint64_t(a(0).i) : uint64_t(a(0).i) & ((uint64_t(1) << bits) - 1);
      out.f = round_to(d, double(v));
      return;
    }
    case Op::FPToSI: case Op::FPToUI: {
      double v = std::trunc(a(0).f);
      if (!(v > -9.3e18 && v < 9.3e18)) fail(in, "float to integer conversion out of range");
      out.i = wrap_to(d, int64_t(v));
      return;
    }
    // A conversion quiets a signalling NaN (round_to leaves f64 as it is).
    case Op::ExtF: case Op::TruncF: out.f = round_to(d, quiet_nan(a(0).f)); return;
    case Op::Bitcast: {  // bits for bits, a signalling NaN's too
      const Type& st = opnd_type(in, 0);
      uint64_t bits = 0;
      if (dtype_is_float(st.elem)) {
        uint8_t buf[8] = {};
        store_f_bits(buf, st.elem, a(0).f);
        std::memcpy(&bits, buf, 8);
      } else {
        bits = uint64_t(a(0).i);
      }
      uint8_t buf[8];
      std::memcpy(buf, &bits, 8);
      if (fl) out.f = load_f_bits(buf, d);
      else out.i = load_i(buf, d);
      return;
    }
    default:
      fail(in, "op " + std::string(op_name(in.op)) + " is not supported by the interpreter");
  }
}

void Exec::check_view(const Inst& in, const RtView& v) {
  if (v.rank == 0) return;
  // Byte offsets of the first and the last element (strides are >= 0, so
  // these are the lowest and highest), every step checked: the probe's
  // answer is what native code trusts.
  int64_t esize = std::max(1u, dtype_bytes(v.elem));
  int64_t span = 0;  // elements from the first to the last
  bool empty = false, over = false;
  for (int k = 0; k < v.rank; ++k) {
    if (v.shape[k] == 0) empty = true;
    int64_t d;
    if (v.shape[k] > 0)
      over |= __builtin_mul_overflow(v.shape[k] - 1, v.stride[k], &d) || __builtin_add_overflow(span, d, &span);
  }
  int64_t last = 0, end = 0;
  over = over || __builtin_mul_overflow(span, esize, &last) || __builtin_add_overflow(last, v.boff, &last) ||
         __builtin_add_overflow(last, esize, &end);
  if (over && !empty)
    fail(in, "the view's addresses overflow 64 bits (offset " + std::to_string(v.boff) +
                 " bytes, shape and strides too large)");
  if (!extents || v.param < 0 || size_t(v.param) >= extents->size()) return;
  // The probe: a view that starts before its parameter's buffer can never
  // be passed one (the pointer is the buffer's start). An empty view
  // reaches nothing but still gives an output its shape.
  if (!empty && v.boff < 0) {
    int64_t before = (-(v.boff + 1)) / esize + 1;
    fail(in, "the view starts " + std::to_string(before) + (before == 1 ? " element" : " elements") +
                 " before the array passed for " + param_name(v.param));
  }
  ViewTrace& e = (*extents)[size_t(v.param)];
  int64_t total = empty ? 0 : end / esize + (end % esize != 0);
  if (!e.seen || total > e.max_elems) {
    e.max_elems = std::max(e.max_elems, total);
    e.records.push_back({total, in.op == Op::MakeTensorView, v.elem, std::vector<int64_t>(v.shape, v.shape + v.rank)});
  }
  e.seen = true;
}

void Exec::exec_view(const Inst& in) {
  switch (in.op) {
    case Op::MakeTensorView:
    case Op::PartitionView: {
      RtView v = view(in, in_id(in, 0));
      const int src_rank = v.rank;
      const std::array<int64_t, 8> src_shape = std::to_array(v.shape), src_stride = std::to_array(v.stride);
      unsigned rank = (in.n_ins - 1u) / 2u;
      if (rank > 8) fail(in, "views have at most 8 dimensions");
      const Type& rt = m.type_of(in.res);
      v.elem = rt.elem;
      v.rank = int(rank);
      if (in.op == Op::MakeTensorView) {
        for (unsigned k = 0; k < rank; ++k) {
          v.shape[k] = opnd(in, 1 + k).i;
          v.stride[k] = opnd(in, 1 + rank + k).i;
          if (v.shape[k] < 0 || v.stride[k] < 0) fail(in, "negative view shape or stride");
        }
      } else {
        if (int(rank) != src_rank) fail(in, "partition rank differs from the view's rank");
        int64_t off = 0;
        for (unsigned k = 0; k < rank; ++k) {
          int64_t o = opnd(in, 1 + k).i, s = opnd(in, 1 + rank + k).i, e = 0, d = 0;
          bool ovf = __builtin_add_overflow(o, s, &e);
          if (o < 0 || s < 0 || ovf || e > src_shape[k])
            fail(in, "partition [" + std::to_string(o) + ", " + (ovf ? "overflow" : std::to_string(e)) +
                         ") exceeds dimension " + std::to_string(k) + " of size " + std::to_string(src_shape[k]));
          if (__builtin_mul_overflow(o, src_stride[k], &d) || __builtin_add_overflow(off, d, &off))
            fail(in, "partition offset " + std::to_string(o) + " times stride " + std::to_string(src_stride[k]) +
                         " in dimension " + std::to_string(k) + " overflows 64 bits");
          v.shape[k] = s;
        }
        int64_t b;
        if (__builtin_mul_overflow(off, int64_t(std::max(1u, dtype_bytes(v.elem))), &b) ||
            __builtin_add_overflow(v.boff, b, &v.boff))
          fail(in, "the partition's offset of " + std::to_string(off) + " elements overflows 64 bits");
      }
      check_view(in, v);
      new_view(in.res) = v;
      return;
    }
    case Op::AddPtr: {
      RtView v = view(in, in_id(in, 0));
      int64_t n = opnd(in, 1).i, b;
      if (__builtin_mul_overflow(n, int64_t(std::max(1u, dtype_bytes(v.elem))), &b) ||
          __builtin_add_overflow(v.boff, b, &v.boff))
        fail(in, "addptr by " + std::to_string(n) + " elements overflows 64 bits");
      new_view(in.res) = v;
      return;
    }
    case Op::GetTensorViewDim: {
      const RtView& v = view(in, in_id(in, 0));
      int64_t k = opnd(in, 1).i;
      if (k < 0 || k >= v.rank) fail(in, "dimension index out of range");
      vals[in.res].i = v.shape[k];
      return;
    }
    default:
      fail(in, "internal: not a view op");
  }
}

void Exec::exec_alloc(const Inst& in) {
  const Type& t = m.type_of(in.res);
  RtTile d;
  d.loc = t.loc;
  d.type = m.values[in.res].type;
  d.vrow = t.vrow;
  d.vcol = t.vcol;
  unsigned k = 0;
  int64_t addr = -1;
  if (in.flags & kInstHasAddr) {
    addr = opnd(in, k++).i;
    // A negative address is not "no address": it would be bump-allocated.
    if (addr < 0)
      fail(in, "tile at addr " + std::to_string(addr) + ": a tile address must not be negative");
  }
  if (in.flags & kInstHasValidRow) d.vrow = int32_t(std::clamp<int64_t>(opnd(in, k++).i, -1, 1 << 24));
  if (in.flags & kInstHasValidCol) d.vcol = int32_t(std::clamp<int64_t>(opnd(in, k++).i, -1, 1 << 24));
  if (d.vrow < 0) d.vrow = t.rows;
  if (d.vcol < 0) d.vcol = t.cols;
  if (d.vrow > t.rows || d.vcol > t.cols) fail(in, "valid shape exceeds the tile");
  if (t.elem >= DType::HiF8 && t.elem <= DType::F4E2M1x2)
    fail(in, "tiles of " + std::string(dtype_name(t.elem)) +
                 " (a storage format) are not supported by the interpreter");
  size_t loc = size_t(t.loc);
  if (loc >= 7) fail(in, "tile location not supported by the interpreter");
  size_t bytes = tile_storage_bytes(t);
  if (in.flags & kInstHasAddr) {
    if (bytes > sizes.bytes[loc] || uint64_t(addr) > sizes.bytes[loc] - bytes)
      fail(in, "tile at addr " + std::to_string(addr) + " (" + std::to_string(bytes) +
                   " bytes) does not fit the " + std::string(loc_name(t.loc)) + " memory of " +
                   std::to_string(sizes.bytes[loc]) + " bytes");
    d.offset = uint32_t(addr);
  } else {
    InstId id = InstId(&in - m.insts.data());
    if (alloc_offset[id] == kNone) {
      const bool pl = planned && !planned->empty() && (*planned)[id] != kNone;
      size_t off = pl ? size_t((*planned)[id]) : (bump[loc] + 63) & ~size_t(63);
      if (off + bytes > sizes.bytes[loc])
        fail(in, "tile memory overflow: the " + std::string(loc_name(t.loc)) + " tiles need " +
                     std::to_string(off + bytes) + " bytes, the " +
                     (m.arch == Arch::A5 ? "a5" : "a3") + " " + std::string(loc_name(t.loc)) +
                     " memory holds " + std::to_string(sizes.bytes[loc]));
      alloc_offset[id] = uint32_t(off);
      bump[loc] = std::max(bump[loc], off + bytes);
    }
    d.offset = alloc_offset[id];
  }
  new_tile(in.res) = d;
}

const HandlerTable& handlers() {
  static const HandlerTable table = [] {
    HandlerTable t{};
    register_memory_ops(t);
    register_elementwise_ops(t);
    register_reduce_ops(t);
    register_expand_ops(t);
    register_matmul_ops(t);
    register_move_ops(t);
    register_convert_ops(t);
    register_misc_ops(t);
    return t;
  }();
  return table;
}

// ---- Interpreter -------------------------------------------------------------------

Interpreter::Interpreter(const Module& m) : m_(m) {
  if (m.opt_level < 1) return;
  for (const Inst& in : m.insts)
    if (in.op == Op::Call) return;
  planned_.assign(m.insts.size(), kNone);
  const Region& body = m.regions[m.body];
  for (unsigned i = 0; i < body.inst_count; ++i) {
    InstId fn = m.region_inst(body, i);
    if (m.inst(fn).op != Op::Func || m.inst(fn).n_regions == 0) continue;
    opt::TilePlan tp = opt::plan_tiles(m, fn, true);
    for (size_t k = 0; k < tp.offset.size() && k < planned_.size(); ++k)
      if (tp.offset[k] != kNone) planned_[k] = tp.offset[k];
  }
}

InstId Interpreter::find_function(std::string_view name, std::string& err) const {
  const Region& body = m_.regions[m_.body];
  InstId only = kNone, entry = kNone;
  unsigned defs = 0;
  for (unsigned i = 0; i < body.inst_count; ++i) {
    InstId id = m_.region_inst(body, i);
    const Inst& f = m_.inst(id);
    if (f.op != Op::Func || f.n_regions == 0) continue;
    if (!name.empty() && m_.attr_word(f, "sym_name") == name) return id;
    ++defs;
    only = id;
    if (m_.find_attr(f, "pto.entry")) entry = id;
  }
  if (!name.empty()) {
    err = "no function named '" + std::string(name) + "'";
    return kNone;
  }
  if (entry != kNone) return entry;
  if (defs == 1) return only;
  err = defs == 0 ? "the module defines no function"
                  : "the module defines several functions and none has pto.entry; pick one with "
                    "--function";
  return kNone;
}

namespace {
std::string located(const Module& m, const RtError& e) {
  if (!m.src) return "runtime error: " + e.msg;
  LineCol lc = m.src->line_col(e.loc);
  return m.src->name() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col) +
         ": runtime error: " + e.msg;
}
}  // namespace

bool Interpreter::run_block(InstId fn, const std::vector<Arg>& args, int64_t block_idx,
                            int64_t block_num, std::string& err) const {
  return run_block(fn, args, block_idx, block_num, TileArenas{}, err);
}

namespace {

// Runs the entry function fn on ex, under the time limit if there is one.
void run_entry(Exec& ex, InstId fn, const Interpreter::Clock::time_point* deadline, double limit_s) {
  ex.deadline = deadline;
  ex.limit_s = limit_s;
  std::vector<RtValue> params;
  ex.bind_params(fn, params);
  ex.call(fn, params);
}

}  // namespace

bool Interpreter::run_block(InstId fn, const std::vector<Arg>& args, int64_t block_idx,
                            int64_t block_num, const TileArenas& arenas, std::string& err) const {
  try {
    Exec ex(m_, args, block_idx, block_num, false, arenas.base[0] ? &arenas : nullptr);
    ex.planned = &planned_;
    run_entry(ex, fn, has_deadline_ ? &deadline_ : nullptr, limit_s_);
    return true;
  } catch (const RtError& e) {
    err = located(m_, e);
    return false;
  } catch (const std::bad_alloc&) {
    err = "runtime error: out of memory";
    return false;
  }
}

bool Interpreter::probe_views(InstId fn, const std::vector<Arg>& args, int64_t block_num,
                              std::vector<ViewExtent>& out, std::string& err, unsigned threads) const {
  const Inst& f = m_.inst(fn);
  out.assign(f.n_regions ? m_.region(f, 0).arg_count : 0, ViewExtent{});
  // No buffers: views track byte offsets from their parameter's start.
  std::vector<Arg> a = args;
  for (Arg& x : a)
    if (x.kind == Arg::Kind::Ptr) {
      x.data = nullptr;
      x.bytes = 0;
    }
  // The blocks are independent here (no memory): each probes on its own,
  // on as many threads as the machine has, and the results are merged in
  // block order, so the extents and the error (the lowest failing block's)
  // are those of a serial probe.
  const int64_t blocks = std::max<int64_t>(1, block_num);
  std::vector<std::vector<Exec::ViewTrace>> traces(static_cast<size_t>(blocks));
  std::vector<std::string> errs(static_cast<size_t>(blocks));
  std::atomic<int64_t> next{0}, failed{blocks};
  auto work = [&] {
    for (int64_t b; (b = next++) < blocks && b < failed.load();) {
      std::string& e = errs[size_t(b)];
      try {
        Exec ex(m_, a, b, block_num, true);
        ex.planned = &planned_;
        traces[size_t(b)].assign(out.size(), Exec::ViewTrace{});
        ex.extents = &traces[size_t(b)];
        ex.cancel_after = &failed;
        run_entry(ex, fn, has_deadline_ ? &deadline_ : nullptr, limit_s_);
        continue;
      } catch (const RtError& x) {
        e = located(m_, x);
        if (block_num > 1) e += " (block " + std::to_string(b) + " of " + std::to_string(block_num) + ")";
      } catch (const std::bad_alloc&) {
        e = "runtime error: out of memory in block " + std::to_string(b);
      } catch (const Exec::Cancelled&) {
        continue;  // after a failed block: its result is not used
      }
      for (int64_t lo = failed.load(); b < lo && !failed.compare_exchange_weak(lo, b);) {
      }
    }
  };
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  unsigned nt = unsigned(std::min<int64_t>(blocks, threads ? threads : hw));
  run_on_workers(nt - 1, work);  // the launcher's threads (fewer if they cannot be started: this one does the rest)
  if (failed.load() < blocks) {
    err = errs[size_t(failed.load())];
    return false;
  }
  for (const std::vector<Exec::ViewTrace>& tr : traces)
    for (size_t k = 0; k < out.size(); ++k) {
      ViewExtent& e = out[k];
      for (const Exec::ViewRecord& r : tr[k].records) {
        if (e.seen && r.total <= e.max_elems) continue;
        e.max_elems = std::max(e.max_elems, r.total);
        if (r.from_tensor || !e.seen) {
          e.shape = r.shape;
          e.elem = r.elem;
        }
        e.seen = true;
      }
    }
  return true;
}

}  // namespace ptoas::rt
