// The row programs' code (row.h): the loop over rows, per row the ops in
// program order on registers, the reductions across lanes and warps, and
// the tiles' shared memory read at first use and written back at the end
// of the row. Column predicates, one-row operands and the views' vector
// tests do not depend on the row: they are hoisted before the loop.
#include <algorithm>
#include <functional>

#include "ops.h"
#include "row.h"
#include "tile_geometry.h"

namespace ptoas::cg::ptx {

namespace {

unsigned log2u(unsigned x) {
  unsigned l = 0;
  while ((1u << l) < x) ++l;
  return l;
}

struct TS {
  ValueId v = kNone;
  Cls cls = Cls::Elem;
  DType d = DType::F32;
  Geo geo;
  bool storage = false;  // lives in shared memory (not a private register tile)
  bool vec = false;      // chunks move as one vector in shared memory
  Reg cqo;               // hoisted: cq * cs
  // Per row.
  Reg raddr, rin;
  bool loaded = false, dirty = false;
  int last_write = -1;
  std::vector<Reg> lane, bits;
};

struct VS {
  ValueId v = kNone;
  DType d = DType::F32;
  unsigned es = 4, rank = 2;
  Reg rows, cols;  // .b32, clamped
  Reg vec_ok;      // predicate: vector access allowed
  Reg sb;          // last stride in bytes (.b64)
  Reg cqb;         // cq * last stride in bytes (.b64)
  Reg raddr;       // per row: the row's address (.b64)
  Reg rin;         // per row: r < rows
};

struct RowEmit {
  Gen& g;
  const RPlan& p;
  std::map<ValueId, TS> ts;
  std::map<ValueId, VS> vs;
  std::map<std::pair<std::string, int64_t>, Reg> colp_;  // (bound, column offset) -> c < bound
  std::map<ValueId, Reg> scal_;
  Reg q, cq, gi, r;
  unsigned span = 0;  // columns per chunk step: V * 32 * G

  RowEmit(Gen& gen, const RPlan& plan) : g(gen), p(plan) {}

  std::string* body = nullptr;
  template <class F>
  auto hoisted(F&& f) {
    std::string* keep = g.out_;
    g.out_ = &g.hoist_;
    auto r = f();
    g.out_ = keep;
    return r;
  }

  std::map<std::pair<Reg, Reg>, Reg> pand_;
  Reg pand(Reg a, Reg b) {
    if (!a) return b;
    if (!b) return a;
    auto key = a < b ? std::make_pair(a, b) : std::make_pair(b, a);
    auto it = pand_.find(key);
    if (it != pand_.end()) return it->second;
    Reg x = g.reg(RC::P);
    g.I("and.pred", x, a, b);
    if (g.out_ != &g.hoist_) pand_[key] = x;  // a hoisted one would be made in the prologue only
    return x;
  }
  Reg pandn(Reg a, Reg b) {  // a and not b
    Reg x = g.reg(RC::P);
    Reg nb = g.reg(RC::P);
    g.I("not.pred", nb, b);
    g.I("and.pred", x, a, nb);
    return x;
  }
  // Column offset of chunk k, element j (added to cq).
  int64_t coff(unsigned k, unsigned j) const { return int64_t(k) * span + j; }
  // Hoisted predicate cq + off < bound (bound: a .b32 register or a constant).
  Reg colp(const O& bound, int64_t off) {
    auto key = std::make_pair(bound.s, off);
    auto it = colp_.find(key);
    if (it != colp_.end()) return it->second;
    Reg x = hoisted([&] {
      Reg c = g.reg(RC::R), pr = g.reg(RC::P);
      g.I("add.s32", c, cq, (long long)off);
      g.I("setp.lt.s32", pr, c, bound);
      return pr;
    });
    colp_[key] = x;
    return x;
  }

  // ---- setup ---------------------------------------------------------------------
  void setup() {
    unsigned G = p.G, V = p.V;
    span = V * 32 * G;
    hoisted([&] {
      q = g.reg(RC::R), cq = g.reg(RC::R), gi = g.reg(RC::R);
      g.I("and.b32", q, g.tid_, 32 * G - 1);
      g.I("shr.u32", gi, g.tid_, log2u(32 * G));
      g.I("mul.lo.s32", cq, q, V);
      return 0;
    });
    for (ValueId t : p.tiles) {
      TS s;
      s.v = t;
      s.cls = p.cls.at(t);
      s.d = g.ty(t).elem;
      s.geo = g.geo(t);
      s.storage = !p.is_priv(t);
      int64_t off = g.static_off(t);
      unsigned es = s.geo.es;
      s.vec = V > 1 && s.storage && s.geo.cs == es && off >= 0 && off % (V * es) == 0 && (s.geo.rs % (V * es)) == 0 &&
              s.geo.cols % int32_t(V) == 0;
      if (s.cls != Cls::Col && s.storage)
        s.cqo = hoisted([&] {
          Reg x = g.reg(RC::R);
          g.I("mul.lo.s32", x, cq, (long long)s.geo.cs);
          return x;
        });
      ts[t] = s;
    }
    for (ValueId v : p.views) setup_view(v);
    for (ValueId t : p.tiles)
      if (ts[t].cls == Cls::Row) hoisted([&] { return load_row_tile(ts[t]), 0; });
  }

  void setup_view(ValueId v) {
    VS s;
    s.v = v;
    const Type& t = g.ty(v);
    s.d = t.elem;
    s.es = std::max(1u, dtype_bytes(t.elem));
    s.rank = t.rank;
    const Val& x = g.val(v);
    hoisted([&] {
      // rows = prod(shape[0 .. n-2]), cols = shape[n-1], clamped to 2^31 - 1.
      Reg rows = g.reg(RC::RD);
      g.I("mov.b64", rows, 1);
      for (unsigned k = 0; k + 1 < s.rank; ++k) g.I("mul.lo.s64", rows, rows, x.r[1 + k]);
      auto clamp = [&](Reg a) {
        Reg c = g.reg(RC::RD);
        g.I("min.s64", c, a, 0x7fffffff);
        g.I("max.s64", c, c, 0);
        return g.as_u32(c);
      };
      s.rows = clamp(rows);
      s.cols = clamp(x.r[s.rank]);
      s.sb = g.reg(RC::RD);
      g.I("mul.lo.s64", s.sb, x.r[1 + s.rank + s.rank - 1], s.es);
      s.cqb = g.reg(RC::RD);
      g.I("mul.wide.s32", s.cqb, cq, 1);
      g.I("mul.lo.s64", s.cqb, s.cqb, s.sb);
      // Vector access: last stride 1, the base and every other stride a
      // multiple of the chunk's bytes.
      s.vec_ok = g.reg(RC::P);
      if (p.V > 1) {
        Reg acc = g.reg(RC::RD), t2 = g.reg(RC::RD);
        g.I("mov.b64", acc, x.r[0]);
        for (unsigned k = 0; k + 1 < s.rank; ++k) {
          g.I("mul.lo.s64", t2, x.r[1 + s.rank + k], s.es);
          g.I("or.b64", acc, acc, t2);
        }
        g.I("and.b64", acc, acc, p.V * s.es - 1);
        Reg a = g.reg(RC::P), b = g.reg(RC::P);
        g.I("setp.eq.s64", a, acc, 0);
        g.I("setp.eq.s64", b, x.r[1 + s.rank + s.rank - 1], 1);
        g.I("and.pred", s.vec_ok, a, b);
      } else {
        g.I("setp.ne.u32", s.vec_ok, g.tid_, g.tid_);  // false
      }
      return 0;
    });
    vs[v] = s;
  }

  // ---- addresses -------------------------------------------------------------------
  Reg tile_rin(TS& s) {
    if (!s.rin) {
      s.rin = g.reg(RC::P);
      g.I("setp.lt.s32", s.rin, r, s.geo.rows);
    }
    return s.rin;
  }
  // Row address of tile s (+ cq * cs for element tiles).
  Reg tile_raddr(TS& s) {
    if (s.raddr) return s.raddr;
    const Val& v = g.val(s.v);
    s.raddr = g.reg(RC::R);
    g.I("mad.lo.s32", s.raddr, r, (long long)s.geo.rs, v.r[0]);
    if (s.cls != Cls::Col) g.I("add.s32", s.raddr, s.raddr, s.cqo);
    return s.raddr;
  }
  // The row of view s: r split over the dimensions but the last one.
  Reg view_raddr(VS& s) {
    if (s.raddr) return s.raddr;
    const Val& v = g.val(s.v);
    s.raddr = g.reg(RC::RD);
    s.rin = g.reg(RC::P);
    g.I("setp.lt.s32", s.rin, r, s.rows);
    Reg off = g.reg(RC::RD);
    if (s.rank == 1) {
      g.I("mov.b64", off, 0);
    } else if (s.rank == 2) {
      Reg r64 = g.as_u64(r, false);
      g.I("mul.lo.s64", off, r64, v.r[1 + s.rank]);
    } else {
      Reg rem = g.as_u64(r, false);
      g.I("mov.b64", off, 0);
      for (int k = int(s.rank) - 2; k >= 0; --k) {
        Reg dim = g.reg(RC::RD), d1 = g.reg(RC::RD), qt = g.reg(RC::RD), md = g.reg(RC::RD);
        g.I("max.s64", dim, v.r[1 + k], 1);
        g.I("mov.b64", d1, dim);
        g.I("div.u64", qt, rem, d1);
        g.I("rem.u64", md, rem, d1);
        g.I("mad.lo.s64", off, md, v.r[1 + s.rank + k], off);
        rem = qt;
      }
    }
    g.I("mad.lo.s64", s.raddr, off, s.es, v.r[0]);
    return s.raddr;
  }

  // ---- tile contents ------------------------------------------------------------
  unsigned nlane(const TS& s) const { return s.cls == Cls::Col ? 1 : p.K * p.V; }

  // V bits registers from memory at `addr` (vector when v > 1).
  std::vector<Reg> ld_bits(DType d, const std::string& space, const std::string& addr, unsigned n, Reg pred,
                           uint32_t init_bits) {
    unsigned es = dtype_bytes(d);
    RC bc = es == 2 ? RC::H : RC::R;
    std::vector<Reg> b;
    for (unsigned j = 0; j < n; ++j) {
      b.push_back(g.reg(bc));
      g.I(es == 2 ? "mov.b16" : "mov.b32", b.back(), (long long)init_bits);
    }
    unsigned bytes = es * n;
    if (n == 1) {
      std::string t = es == 1 ? "u8" : es == 2 ? "b16" : "b32";
      if (pred) g.IP(pred, false, "ld." + space + "." + t, b[0], addr);
      else g.I("ld." + space + "." + t, b[0], addr);
      return b;
    }
    if (es >= 2 ? n <= 4 : n < 4) {  // .v2 / .v4 of the element
      std::string o = "ld." + space + ".v" + std::to_string(n) + (es == 1 ? ".u8" : es == 2 ? ".b16" : ".b32");
      if (pred) g.IP(pred, false, o, vec(b), addr);
      else g.I(o, vec(b), addr);
      return b;
    }
    // Words of 4 bytes, split into elements.
    unsigned words = bytes / 4;
    std::vector<Reg> w;
    for (unsigned i = 0; i < words; ++i) {
      w.push_back(g.reg(RC::R));
      g.I("mov.b32", w.back(), 0);
    }
    std::string o = "ld." + space + (words > 1 ? ".v" + std::to_string(words) : std::string()) + ".b32";
    if (pred) g.IP(pred, false, o, words > 1 ? vec(w) : rname(w[0]), addr);
    else g.I(o, words > 1 ? vec(w) : rname(w[0]), addr);
    // Where the load did not happen the words are 0; keep init_bits there.
    for (unsigned j = 0; j < n; ++j) {
      Reg x = g.reg(bc);
      if (es == 2) {
        Reg lo = g.reg(RC::H), hi = g.reg(RC::H);
        g.I("mov.b32", "{" + rname(lo) + ", " + rname(hi) + "}", w[j / 2]);
        x = (j & 1) ? hi : lo;
      } else {
        g.I("bfe.u32", x, w[j / 4], 8 * (j % 4), 8);
      }
      if (pred) g.I(es == 2 ? "selp.b16" : "selp.b32", b[j], x, b[j], pred);
      else b[j] = x;
    }
    return b;
  }

  void st_bits(DType d, const std::string& space, const std::string& addr, const std::vector<Reg>& b, Reg pred) {
    unsigned es = dtype_bytes(d), n = unsigned(b.size());
    auto put = [&](const std::string& o, const std::string& v) {
      if (pred) g.IP(pred, false, o, addr, v);
      else g.I(o, addr, v);
    };
    if (n == 1) {
      put("st." + space + "." + (es == 1 ? "u8" : es == 2 ? "b16" : "b32"), rname(b[0]));
      return;
    }
    if (es >= 2 ? n <= 4 : n < 4) {
      put("st." + space + ".v" + std::to_string(n) + (es == 1 ? ".u8" : es == 2 ? ".b16" : ".b32"), vec(b));
      return;
    }
    unsigned words = es * n / 4;
    std::vector<Reg> w;
    for (unsigned i = 0; i < words; ++i) {
      w.push_back(g.reg(RC::R));
      if (es == 2) {
        g.I("mov.b32", w.back(), "{" + rname(b[2 * i]) + ", " + rname(b[2 * i + 1]) + "}");
      } else {
        g.I("and.b32", w.back(), b[4 * i], 255);
        for (unsigned j = 1; j < 4; ++j) g.I("bfi.b32", w.back(), b[4 * i + j], w.back(), 8 * j, 8);
      }
    }
    put("st." + space + (words > 1 ? ".v" + std::to_string(words) : std::string()) + ".b32", words > 1 ? vec(w) : rname(w[0]));
  }

  Reg zero_lane(DType d) {
    Reg x = g.reg(g.lane_rc(d));
    g.I(Gen::float_lane(d) ? "mov.f32" : "mov.b32", x, Gen::float_lane(d) ? fimm(0.0f) : "0");
    return x;
  }

  // One-row operands: (0, c) of every chunk, before the loop.
  void load_row_tile(TS& s) {
    const Val& v = g.val(s.v);
    Reg a = g.reg(RC::R);
    g.I("add.s32", a, v.r[0], s.cqo);
    s.lane.assign(nlane(s), Reg{});
    s.bits.assign(nlane(s), Reg{});
    for (unsigned k = 0; k < p.K; ++k) {
      if (s.vec) {
        Reg pr = colp(O((long long)s.geo.cols), coff(k, 0));
        auto b = ld_bits(s.d, "shared", mem(a, coff(k, 0) * s.geo.cs), p.V, pr, 0);
        for (unsigned j = 0; j < p.V; ++j) s.bits[k * p.V + j] = b[j], s.lane[k * p.V + j] = g.lane_from_bits(s.d, b[j]);
        continue;
      }
      for (unsigned j = 0; j < p.V; ++j) {
        Reg pr = colp(O((long long)s.geo.cols), coff(k, j));
        auto b = ld_bits(s.d, "shared", mem(a, coff(k, j) * s.geo.cs), 1, pr, 0);
        s.bits[k * p.V + j] = b[0];
        s.lane[k * p.V + j] = g.lane_from_bits(s.d, b[0]);
      }
    }
    s.loaded = true;
  }

  // The row's values of tile s, from shared memory at the first use.
  void ensure(TS& s) {
    if (s.loaded || s.cls == Cls::Row) return;
    s.loaded = true;
    unsigned n = nlane(s);
    s.lane.assign(n, Reg{});
    s.bits.assign(n, Reg{});
    if (!s.storage) {
      for (unsigned i = 0; i < n; ++i) s.lane[i] = zero_lane(s.d);
      return;
    }
    Reg a = tile_raddr(s), rin = tile_rin(s);
    if (s.cls == Cls::Col) {
      auto b = ld_bits(s.d, "shared", mem(a), 1, rin, 0);
      s.bits[0] = b[0];
      s.lane[0] = g.lane_from_bits(s.d, b[0]);
      return;
    }
    for (unsigned k = 0; k < p.K; ++k) {
      if (s.vec) {
        Reg pr = pand(rin, colp(O((long long)s.geo.cols), coff(k, 0)));
        auto b = ld_bits(s.d, "shared", mem(a, coff(k, 0) * s.geo.cs), p.V, pr, 0);
        for (unsigned j = 0; j < p.V; ++j) s.bits[k * p.V + j] = b[j], s.lane[k * p.V + j] = g.lane_from_bits(s.d, b[j]);
        continue;
      }
      for (unsigned j = 0; j < p.V; ++j) {
        Reg pr = pand(rin, colp(O((long long)s.geo.cols), coff(k, j)));
        auto b = ld_bits(s.d, "shared", mem(a, coff(k, j) * s.geo.cs), 1, pr, 0);
        s.bits[k * p.V + j] = b[0];
        s.lane[k * p.V + j] = g.lane_from_bits(s.d, b[0]);
      }
    }
  }

  // Element i of tile t's row (col tiles: their one value).
  Reg get(ValueId t, unsigned i) {
    TS& s = ts[t];
    ensure(s);
    return s.cls == Cls::Col ? s.lane[0] : s.lane[i];
  }
  // Writes element i of tile t where `pr` holds (an exact value of its type).
  void put(ValueId t, unsigned i, Reg v, Reg pr, int step, Reg bits = {}) {
    TS& s = ts[t];
    ensure(s);
    unsigned k = s.cls == Cls::Col ? 0 : i;
    if (pr) {
      Reg x = g.reg(s.lane[k].c);
      g.I(s.lane[k].c == RC::F ? "selp.f32" : "selp.b32", x, v, s.lane[k], pr);
      s.lane[k] = x;
      if (bits && s.bits[k]) {
        Reg y = g.reg(s.bits[k].c);
        g.I(y.c == RC::H ? "selp.b16" : "selp.b32", y, bits, s.bits[k], pr);
        s.bits[k] = y;
      } else {
        s.bits[k] = Reg{};
      }
    } else {
      s.lane[k] = v;
      s.bits[k] = bits;
    }
    s.dirty = true;
    s.last_write = step;
  }
  Reg bits_of(TS& s, unsigned i) {
    if (!s.bits[i]) s.bits[i] = g.bits_from_lane(s.d, s.lane[i]);
    if (s.bits[i].c == RC::R || s.bits[i].c == RC::H) return s.bits[i];
    return s.bits[i];
  }

  Reg valid_rows(ValueId t) { return g.val(t).r[1]; }
  Reg valid_cols(ValueId t) { return g.val(t).r[2]; }
  // r < the domain's valid rows, once per row for each valid-rows register
  // (the row's code is straight-line: a predicate made once holds below).
  std::map<Reg, Reg> rowp_;
  Reg rowp(ValueId dom) {
    Reg vr = valid_rows(dom);
    auto it = rowp_.find(vr);
    if (it != rowp_.end()) return it->second;
    Reg x = g.reg(RC::P);
    g.I("setp.lt.s32", x, r, vr);
    rowp_[vr] = x;
    return x;
  }
  Reg scal(ValueId s, DType d) {
    auto it = scal_.find(s);
    if (it != scal_.end()) return it->second;
    Reg x = hoisted([&] { return g.scalar_lane(s, d); });
    scal_[s] = x;
    return x;
  }
  // Hoisted min of two .b32 values.
  Reg min32(Reg a, Reg b) {
    return hoisted([&] {
      Reg x = g.reg(RC::R);
      g.I("min.s32", x, a, b);
      return x;
    });
  }

  // ---- the steps -------------------------------------------------------------------
  void step(const RStep& s, int si);
  void load(const RStep& s, int si);
  void store(const RStep& s);
  void reduce(const RStep& s, int si, int red_slot);
  Reg comb(Bin k, DType d, Reg left, Reg right);
  void write_back();
  void run();
};

// ---- loads and stores of views ---------------------------------------------------------

void RowEmit::load(const RStep& s, int si) {
  TS& t = ts[s.dst];
  VS& w = vs[s.view];
  view_raddr(w);
  Reg rp = pand(rowp(s.dst), w.rin);
  Reg bound = min32(valid_cols(s.dst), w.cols);
  uint32_t pad = pad_bits(g.ty(s.dst));
  unsigned es = t.geo.es;
  t.loaded = true;
  t.lane.assign(p.K * p.V, Reg{});
  t.bits.assign(p.K * p.V, Reg{});
  Reg base = g.reg(RC::RD);
  g.I("add.s64", base, w.raddr, w.cqb);
  for (unsigned k = 0; k < p.K; ++k) {
    std::vector<Reg> b(p.V);
    Reg pf;
    if (p.V > 1) {
      pf = pand(pand(rp, w.vec_ok), colp(O(bound), coff(k, p.V - 1)));
      // Vector: the chunk at cq + off, consecutive (last stride 1).
      b = ld_bits(t.d, "global", mem(base, coff(k, 0) * es), p.V, pf, pad);
    }
    for (unsigned j = 0; j < p.V; ++j) {
      Reg pe = pand(rp, colp(O(bound), coff(k, j)));
      if (pf) pe = pandn(pe, pf);
      Reg a = g.reg(RC::RD);
      g.I("mad.lo.s64", a, (long long)coff(k, j), w.sb, base);
      auto e = ld_bits(t.d, "global", mem(a), 1, pe, pad);
      if (pf) {
        Reg x = g.reg(e[0].c);
        g.I(x.c == RC::H ? "selp.b16" : "selp.b32", x, b[j], e[0], pf);
        b[j] = x;
      } else {
        b[j] = e[0];
      }
    }
    for (unsigned j = 0; j < p.V; ++j) {
      t.bits[k * p.V + j] = b[j];
      t.lane[k * p.V + j] = g.lane_from_bits(t.d, b[j]);
    }
  }
  t.dirty = true;
  t.last_write = si;
}

void RowEmit::store(const RStep& s) {
  TS& t = ts[s.src];
  VS& w = vs[s.view];
  ensure(t);
  view_raddr(w);
  Reg rp = pand(rowp(s.src), w.rin);
  Reg bound = min32(valid_cols(s.src), w.cols);
  bool same = dtype_bytes(w.d) == dtype_bytes(t.d) && (w.d == t.d || Gen::float_lane(w.d) != Gen::float_lane(t.d) ||
                                                       !Gen::float_lane(w.d));
  unsigned es = w.es;
  Reg base = g.reg(RC::RD);
  g.I("add.s64", base, w.raddr, w.cqb);
  for (unsigned k = 0; k < p.K; ++k) {
    std::vector<Reg> b(p.V);
    for (unsigned j = 0; j < p.V; ++j) {
      unsigned i = k * p.V + j;
      if (same) b[j] = bits_of(t, i);
      else b[j] = g.bits_from_lane(w.d, g.round_lane(w.d, t.lane[i]));
      if (b[j].c == RC::F) {
        Reg x = g.reg(RC::R);
        g.I("mov.b32", x, b[j]);
        b[j] = x;
      }
    }
    Reg pf;
    if (p.V > 1) {
      pf = pand(pand(rp, w.vec_ok), colp(O(bound), coff(k, p.V - 1)));
      st_bits(w.d, "global", mem(base, coff(k, 0) * es), b, pf);
    }
    for (unsigned j = 0; j < p.V; ++j) {
      Reg pe = pand(rp, colp(O(bound), coff(k, j)));
      if (pf) pe = pandn(pe, pf);
      Reg a = g.reg(RC::RD);
      g.I("mad.lo.s64", a, (long long)coff(k, j), w.sb, base);
      st_bits(w.d, "global", mem(a), {b[j]}, pe);
    }
  }
}

// ---- reductions ------------------------------------------------------------------------

// left op right, left the earlier columns: max / min keep the first NaN,
// else the first extreme (strict comparison).
Reg RowEmit::comb(Bin k, DType d, Reg left, Reg right) {
  if (k == Bin::Add || k == Bin::Mul) return g.bin(k, d, left, right);
  if (!Gen::float_lane(d)) {
    bool s = d == DType::I8 || d == DType::I16 || d == DType::I32;
    Reg x = g.reg(RC::R);
    g.I(std::string(k == Bin::Max ? "max" : "min") + (s ? ".s32" : ".u32"), x, left, right);
    return x;
  }
  Reg num = g.reg(RC::P), take = g.reg(RC::P), x = g.reg(RC::F);
  g.I("setp.num.f32", num, left, left);
  if (k == Bin::Max) g.I("setp.gtu.and.f32", take, right, left, num);
  else g.I("setp.ltu.and.f32", take, right, left, num);
  g.I("selp.f32", x, right, left, take);
  return x;
}

void RowEmit::reduce(const RStep& s, int si, int slot) {
  TS& src = ts[s.src];
  DType d = src.d;
  bool fl = Gen::float_lane(d);
  Reg rp = rowp(s.src);
  Reg nz = g.reg(RC::P);
  g.I("setp.gt.s32", nz, valid_cols(s.src), 0);
  rp = pand(rp, nz);
  // The identity.
  Reg acc = g.reg(g.lane_rc(d));
  if (fl) {
    uint32_t id = s.red == Bin::Add ? 0x80000000u : s.red == Bin::Mul ? 0x3f800000u : s.red == Bin::Max ? 0xff800000u : 0x7f800000u;
    g.I("mov.f32", acc, f32imm(id));
  } else {
    bool sg = d == DType::I8 || d == DType::I16 || d == DType::I32;
    long long id = s.red == Bin::Add ? 0 : s.red == Bin::Mul ? 1 : s.red == Bin::Max ? (sg ? INT32_MIN : 0) : (sg ? INT32_MAX : -1);
    g.I("mov.b32", acc, id);
  }
  Reg bound = valid_cols(s.src);
  for (unsigned k = 0; k < p.K; ++k)
    for (unsigned j = 0; j < p.V; ++j) {
      Reg pe = colp(O(bound), coff(k, j));
      Reg x = get(s.src, k * p.V + j);
      Reg y = comb(s.red, fl ? DType::F32 : d, acc, x);
      Reg a2 = g.reg(acc.c);
      g.I(fl ? "selp.f32" : "selp.b32", a2, y, acc, pe);
      acc = a2;
    }
  // Across the warp: the lower lane's partial is the left one.
  for (int b = 4; b >= 0; --b) {
    Reg o = g.reg(acc.c);
    g.I("shfl.sync.bfly.b32", o, acc, 1 << b, 31, "0xffffffff");
    if (!fl && (s.red == Bin::Add || s.red == Bin::Mul)) {  // wrapping integers: the order does not matter
      acc = comb(s.red, d, acc, o);
      continue;
    }
    Reg l = g.reg(acc.c), rr = g.reg(acc.c);
    const char* sel = fl ? "selp.f32" : "selp.b32";
    g.I(sel, l, o, acc, g.lane_bit_[b]);
    g.I(sel, rr, acc, o, g.lane_bit_[b]);
    acc = comb(s.red, fl ? DType::F32 : d, l, rr);
  }
  if (p.G > 1) {  // across the group's warps, through shared memory
    int64_t base = int64_t(g.smem_plan_.red_off) + int64_t(slot) * kWarps * 4;
    Reg a = g.reg(RC::R), l0 = g.reg(RC::P);
    g.I("mad.lo.s32", a, g.warp_, 4, g.smem_);
    g.I("setp.eq.s32", l0, g.lane_, 0);
    g.IP(l0, false, fl ? "st.shared.f32" : "st.shared.b32", mem(a, base), acc);
    g.I("bar.sync", 0);
    Reg ga = g.reg(RC::R);
    g.I("mad.lo.s32", ga, gi, 4 * p.G, g.smem_);
    Reg tot;
    for (unsigned w = 0; w < p.G; ++w) {
      Reg x = g.reg(acc.c);
      g.I(fl ? "ld.shared.f32" : "ld.shared.b32", x, mem(ga, base + 4 * w));
      tot = w ? comb(s.red, fl ? DType::F32 : d, tot, x) : x;
    }
    acc = tot;
  }
  if (fl && s.red == Bin::Add) acc = g.bin(Bin::Add, DType::F32, g.immf(0), acc);  // the sum starts at +0
  Reg res = fl ? g.round_lane(ts[s.dst].d, acc) : g.round_lane(ts[s.dst].d, acc);
  put(s.dst, 0, res, rp, si);
}

// ---- one step ---------------------------------------------------------------------------

void RowEmit::step(const RStep& s, int si) {
  const Inst& in = *s.in;
  TS& dt = ts[s.dst];
  DType d = dt.d;
  Reg rp = rowp(s.dom);
  Reg vcols = valid_cols(s.dom);
  unsigned n = s.col ? 1 : p.K * p.V;
  for (unsigned i = 0; i < n; ++i) {
    unsigned k = i / p.V, j = i % p.V;
    Reg pe;
    if (s.col) {  // one value per row, where the row has a valid column
      Reg one = g.reg(RC::P);
      g.I("setp.gt.s32", one, vcols, 0);
      pe = pand(rp, one);
    } else {
      pe = pand(rp, colp(O(vcols), coff(k, j)));
    }
    Reg v, vbits;
    switch (s.k) {
      case RK::Elt: {
        const EltPlan& e = s.elt;
        const OpInfo& info = op_info(in.op);
        auto T = [&](unsigned t) { return get(e.tiles[t], i); };
        if (in.op == Op::TExpandS) {
          v = scal(e.scal, d);
        } else if (info.sem == Sem::EltUnary) {
          v = g.unary(in.op, d, T(0));
        } else {
          Bin bk;
          bin_of(in.op, bk);
          Reg a = T(0);
          Reg b = info.sem == Sem::EltBin ? T(1) : scal(e.scal, d);
          v = e.scalar_first ? g.bin(bk, d, b, a) : g.bin(bk, d, a, b);
        }
        if (Gen::float_lane(d)) v = g.round_lane(d, v);
        break;
      }
      case RK::Fused: {
        const FusedPlan& f = s.fus;
        auto X = [&](unsigned o) { return f.tile_of[o] < 0 ? scal(g.op(in, o), d) : get(f.tiles[f.tile_of[o]], i); };
        auto R = [&](Reg x) { return g.round_lane(d, x); };
        auto relu = [&](Reg x) {  // v > 0 ? v : 0 (NaN and -0 give +0)
          Reg pgt = g.reg(RC::P), y = g.reg(x.c);
          if (Gen::float_lane(d)) {
            g.I("setp.gt.f32", pgt, x, fimm(0.0f));
            g.I("selp.f32", y, x, fimm(0.0f), pgt);
          } else {
            g.I("max.s32", y, x, 0);
          }
          return y;
        };
        Reg dv = get(s.dst, i);
        switch (in.op) {
          case Op::TAddC: v = R(g.bin(Bin::Add, d, R(g.bin(Bin::Add, d, X(0), X(1))), X(2))); break;
          case Op::TSubC: v = R(g.bin(Bin::Add, d, R(g.bin(Bin::Sub, d, X(0), X(1))), X(2))); break;
          case Op::TAddSC: v = R(g.bin(Bin::Add, d, R(g.bin(Bin::Add, d, X(0), X(1))), X(2))); break;
          case Op::TSubSC: v = R(g.bin(Bin::Add, d, R(g.bin(Bin::Sub, d, X(0), X(1))), X(2))); break;
          case Op::TMulAddDst: v = R(g.bin(Bin::Add, d, R(g.bin(Bin::Mul, d, X(0), X(1))), dv)); break;
          case Op::TFusedMulAdd: v = R(g.bin(Bin::Add, d, R(g.bin(Bin::Mul, d, X(0), dv)), X(1))); break;
          case Op::TFusedMulAddRelu: v = relu(R(g.bin(Bin::Add, d, R(g.bin(Bin::Mul, d, X(0), dv)), X(1)))); break;
          case Op::TSubRelu: v = relu(R(g.bin(Bin::Sub, d, X(0), X(1)))); break;
          case Op::TLRelu: case Op::TPrelu: {  // x > 0 ? x : x * slope
            Reg x = X(0), pgt = g.reg(RC::P), y = g.reg(RC::F);
            Reg m = R(g.bin(Bin::Mul, d, x, X(1)));
            g.I("setp.gt.f32", pgt, x, fimm(0.0f));
            g.I("selp.f32", y, x, m, pgt);
            v = y;
            break;
          }
          case Op::TAxpy: {  // the product rounded to src's type
            DType sd = g.ty(f.tiles[f.tile_of[0] < 0 ? 0 : f.tile_of[0]]).elem;
            v = R(g.bin(Bin::Add, d, g.round_lane(sd, g.bin(Bin::Mul, d, X(1), X(0))), dv));
            break;
          }
          default: break;
        }
        break;
      }
      case RK::Cvt:
        v = g.cvt_lane(s.cvt, get(s.src, i));
        break;
      case RK::RowExp: case RK::ColExp: {
        const ExpandPlan& e = s.exp;
        if (e.plain) {
          v = get(e.s[0], i);
          vbits = ts[e.s[0]].bits.empty() ? Reg{} : ts[e.s[0]].bits[ts[e.s[0]].cls == Cls::Col ? 0 : i];
        } else {
          v = g.bin(e.bk, d, get(e.s[0], i), get(e.s[1], i));
          if (Gen::float_lane(d)) v = g.round_lane(d, v);
        }
        break;
      }
      case RK::Sel: {
        const SelPlan& sp = s.sel;
        Geo mg = g.geo(sp.mask);
        unsigned bitsz = mg.es * 8;
        Reg c = g.reg(RC::R), w = g.reg(RC::R), a = g.reg(RC::R), bit = g.reg(RC::R), pb = g.reg(RC::P);
        g.I("add.s32", c, cq, (long long)coff(k, j));
        g.I("shr.u32", w, c, log2u(bitsz));
        Reg rowa = g.reg(RC::R);
        g.I("mad.lo.s32", rowa, r, (long long)mg.rs, g.val(sp.mask).r[0]);
        g.I("mad.lo.s32", a, w, (long long)mg.cs, rowa);
        Reg word = g.reg(RC::R);
        g.I("mov.b32", word, 0);
        g.IP(pe, false, mg.es == 1 ? "ld.shared.u8" : mg.es == 2 ? "ld.shared.u16" : "ld.shared.u32", word, mem(a));
        g.I("and.b32", c, c, bitsz - 1);
        g.I("shr.u32", bit, word, c);
        g.I("and.b32", bit, bit, 1);
        g.I("setp.ne.u32", pb, bit, 0);
        Reg x = get(sp.a, i);
        Reg y = sp.scalar ? scal(sp.b, d) : get(sp.b, i);
        v = g.reg(x.c);
        g.I(x.c == RC::F ? "selp.f32" : "selp.b32", v, x, y, pb);
        // A select copies bits: an f16 / bf16 signalling NaN stays one (its
        // lane value would be quieted on the way back to 16 bits).
        if (d == DType::F16 || d == DType::BF16) {
          auto bits_of = [&](ValueId t, Reg lane) {
            const TS& st = ts[t];
            return st.bits.empty() ? g.bits_from_lane(d, lane) : st.bits[st.cls == Cls::Col ? 0 : i];
          };
          Reg xb = bits_of(sp.a, x), yb = sp.scalar ? g.copy_bits16(d, y) : bits_of(sp.b, y);
          if (xb.c == yb.c) {
            vbits = g.reg(xb.c);
            g.I(xb.c == RC::H ? "selp.b16" : "selp.b32", vbits, xb, yb, pb);
          }
        }
        break;
      }
      default:
        break;
    }
    if (!v) return;
    put(s.dst, i, v, pe, si, vbits);
  }
}

// ---- the end of a row -------------------------------------------------------------------

void RowEmit::write_back() {
  std::vector<TS*> order;
  for (auto& [v, s] : ts)
    if (s.dirty && s.storage && s.cls != Cls::Row) order.push_back(&s);
  std::sort(order.begin(), order.end(), [](TS* a, TS* b) { return a->last_write < b->last_write; });
  // A one-column value is stored by the group's first thread after every
  // thread of the group may have read the old one.
  for (TS* sp : order)
    if (sp->cls == Cls::Col) {
      if (p.G > 1) g.I("bar.sync", 0);
      else g.I("bar.warp.sync", "0xffffffff");
      break;
    }
  for (TS* sp : order) {
    TS& s = *sp;
    Reg a = tile_raddr(s), rin = tile_rin(s);
    if (s.cls == Cls::Col) {
      Reg q0 = g.reg(RC::P);
      g.I("setp.eq.s32", q0, q, 0);
      st_bits(s.d, "shared", mem(a), {bits_of(s, 0)}, pand(rin, q0));
      continue;
    }
    for (unsigned k = 0; k < p.K; ++k) {
      if (s.vec) {
        std::vector<Reg> b;
        for (unsigned j = 0; j < p.V; ++j) {
          Reg x = bits_of(s, k * p.V + j);
          if (x.c == RC::F) {
            Reg y = g.reg(RC::R);
            g.I("mov.b32", y, x);
            x = y;
          }
          b.push_back(x);
        }
        st_bits(s.d, "shared", mem(a, coff(k, 0) * s.geo.cs), b, pand(rin, colp(O((long long)s.geo.cols), coff(k, 0))));
        continue;
      }
      for (unsigned j = 0; j < p.V; ++j) {
        Reg x = bits_of(s, k * p.V + j);
        if (x.c == RC::F) {
          Reg y = g.reg(RC::R);
          g.I("mov.b32", y, x);
          x = y;
        }
        st_bits(s.d, "shared", mem(a, coff(k, j) * s.geo.cs), {x}, pand(rin, colp(O((long long)s.geo.cols), coff(k, j))));
      }
    }
  }
}

// ---- the loop over rows ------------------------------------------------------------------

void RowEmit::run() {
  std::string keep_hoist;
  keep_hoist.swap(g.hoist_);
  std::string* outer = g.out_;
  std::string body;
  g.out_ = &body;
  setup();
  // The rows: the most any op's domain has (a tload into a tile that
  // outlives the region pads the whole tile).
  Reg bound = hoisted([&] {
    Reg b = g.reg(RC::R);
    g.I("mov.b32", b, 0);
    for (const RStep& s : p.steps) {
      if (s.k == RK::Load && ts[s.dst].storage) g.I("max.s32", b, b, g.ty(s.dst).rows);
      else g.I("max.s32", b, b, valid_rows(s.dom));
    }
    return b;
  });
  unsigned ngroups = kWarps / p.G;
  std::string top = g.new_label(), end = g.new_label();
  r = g.reg(RC::R);
  Reg it;
  if (p.cross) {
    it = g.reg(RC::R);
    Reg nit = g.reg(RC::R);
    g.I("add.s32", nit, bound, ngroups - 1);
    g.I("shr.u32", nit, nit, log2u(ngroups));
    g.I("mov.b32", it, 0);
    g.bind(top);
    Reg px = g.reg(RC::P);
    g.I("setp.ge.s32", px, it, nit);
    g.bra_if(px, false, end);
    g.I("mad.lo.s32", r, it, ngroups, gi);
    bound = nit;
  } else {
    g.I("mov.b32", r, gi);
    g.bind(top);
    Reg px = g.reg(RC::P);
    g.I("setp.ge.s32", px, r, bound);
    g.bra_if(px, false, end);
  }
  int slot = 0;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const RStep& s = p.steps[i];
    g.mark(*s.in);
    switch (s.k) {
      case RK::Load: load(s, int(i)); break;
      case RK::Store: store(s); break;
      case RK::Red: reduce(s, int(i), slot++); break;
      default: step(s, int(i)); break;
    }
  }
  if (p.seq) g.I("bar.sync", 0);  // the whole row read before any of it is written
  write_back();
  if (p.cross) {
    g.I("bar.sync", 0);
    g.I("add.s32", it, it, 1);
  } else {
    g.I("add.s32", r, r, ngroups);
  }
  g.bra(top);
  g.bind(end);
  g.out_ = outer;
  *g.out_ += g.hoist_;
  *g.out_ += body;
  g.hoist_.swap(keep_hoist);
}

}  // namespace

// ---- the entry points -------------------------------------------------------------------

bool Gen::row_program(const std::vector<const Inst*>& ops, const Inst& at, Refusal& why, bool emit_code) {
  RPlan p;
  const Inst* region = at.op == Op::Fuse ? &at : nullptr;
  if (!plan_rows(*this, *alias_, ops, region, p, why)) return false;
  if (!emit_code) return true;
  // A tile written while another that shares its bytes is read: only as
  // one storage with one geometry (each element then read and written by
  // one thread); rows of other shapes belong to other warps.
  // Row r of a tile written in place over another of other geometry (tcvt
  // f32 -> bf16 at one address): taken when the written row lies within the
  // read rows up to r (it starts no later and its rows are no longer); then
  // every warp works on one row at a time, rows in order, reading the row
  // before anything of it is written.
  for (const RStep& s : p.steps) {
    if (s.dst == kNone || p.is_priv(s.dst)) continue;
    for (ValueId t : p.tiles) {
      if (t == s.dst || p.is_priv(t) || disjoint_or_same(t, s.dst, true)) continue;
      Geo gd = geo(s.dst), gt = geo(t);
      bool nd = gd.cs == gd.es && gt.cs == gt.es;
      if (ops.size() != 1 || !nd || val(t).off < 0 || val(s.dst).off < 0 || val(s.dst).off > val(t).off || gd.rs > gt.rs) {
        why = {RefusalCode::Operands, "op " + std::string(op_name(s.in->op)) + " writing a tile that shares storage with another of its tiles"};
        return false;
      }
      p.seq = true;
    }
  }
  if (p.seq) {
    p.G = kWarps;
    p.cross = true;
    p.K = (unsigned(std::max<int32_t>(1, [&] {
             int32_t c = 1;
             for (ValueId t : p.tiles)
               if (p.cls[t] != Cls::Col) c = std::max(c, ty(t).cols);
             return c;
           }())) + p.V * 32 * p.G - 1) / (p.V * 32 * p.G);
  }
  // Barriers: what the program touches in shared and global memory.
  std::vector<Access> acc;
  // A row's group owns the row whatever its width per thread (V) only when
  // the group is one warp: with G > 1 the warp that owns a column depends
  // on V as well, so a program of another V is another mapping (bar.sync).
  uint64_t sig = 0x9e3779b97f4a7c15ull * (p.G + 1);
  if (p.G > 1) sig = (sig ^ p.V) * 0x100000001b3ull;
  for (ValueId t : p.tiles) {
    if (p.is_priv(t)) continue;
    bool wr = false, rd = false;
    for (const RStep& s : p.steps) {
      wr |= s.dst == t;
      rd |= std::find(s.reads.begin(), s.reads.end(), t) != s.reads.end();
    }
    bool row = p.cls[t] == Cls::Row, col = p.cls[t] == Cls::Col;
    // A one-column value is read by every lane and written by the group's
    // first thread: other lanes (G = 1) or other warps (G > 1).
    uint64_t tsig = row || (col && p.G > 1) ? 0 : sig;
    unsigned rl = col ? 1000 : p.V, wl = col ? 1001 : p.V;
    if (rd || row) acc.push_back(tile_access(t, false, tsig, rl));
    if (wr) acc.push_back(tile_access(t, true, tsig, wl));
  }
  for (ValueId mk : p.masks) acc.push_back(tile_access(mk, false, 0, 0));
  for (const RStep& s : p.steps)
    if (s.k == RK::Load || s.k == RK::Store) {
      Access a;
      a.space = 1;
      a.lo = 0, a.hi = INT64_MAX;
      a.write = s.k == RK::Store;
      acc.push_back(a);
    }
  access(acc);
  RowEmit e(*this, p);
  e.run();
  return true;
}

}  // namespace ptoas::cg::ptx
