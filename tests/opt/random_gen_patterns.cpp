// The random program generator's patterns from real programs (Program's
// feature flags, random_gen.h). Each is what a miscompile of a real kernel
// looked like while the op chain alone never produced it:
//   * tiles naming one storage: `treshape t -> a` of the same type (a read
//     and written like any tile afterwards, in and across fused regions),
//     and the norm kernels' R x 1 -> 1 x R -> op -> R x 1 round trip
//     around a row reduction (a fused region read the reshaped tile at the
//     wrong place);
//   * a tile yielded by scf.if, and one carried by scf.for (through an
//     scf.if inside too): the backends copied only the tile's address;
//   * a tile written twice in a row (the first write dead);
//   * rank 3-5 views (leading extents of 1) for tload and tstore;
//   * level 3: every tile at an explicit address, some at the same one;
//   * GM scalars (pto.load_scalar / pto.store_scalar) between tile ops on
//     the same buffers.
// Everything here draws from r3_ (the GM scalars from r4_), so a seed's
// other lines stay as they were.
#include <cstdio>

#include "random_gen_impl.h"

namespace opt_rand::detail {

void Gen::pick_patterns() {
  Program& p = p_;
  p.aliases = r3_.chance(0.35) && (allowed_ & kAliases);
  p.control_tiles = r3_.chance(0.3) && (allowed_ & kControlTiles);
  p.twice = r3_.chance(0.2) && (allowed_ & kTwice);
  p.high_rank = r3_.chance(0.25) && (allowed_ & kHighRank);
  p.level3 = r3_.chance(0.12) && (allowed_ & kLevel3);
  p.scalar_mem = r4_.chance(0.3) && (allowed_ & kScalarMem);
}

int Gen::add_tile(const std::string& name, bool col, int taint) {
  Tile t;
  t.name = name;
  t.col = col;
  t.defined = true;
  t.taint = taint;
  tiles_.push_back(t);
  return int(tiles_.size()) - 1;
}

int Gen::join(int a, int b, bool exact) {
  int g = tiles_[size_t(a)].group;
  if (g < 0) {
    g = int(groups_.size());
    groups_.push_back(Group{{a}, true});
    tiles_[size_t(a)].group = g;
  }
  int h = tiles_[size_t(b)].group;
  if (h == g) return g;
  std::vector<int> moved = h < 0 ? std::vector<int>{b} : groups_[size_t(h)].tiles;
  if (h >= 0) {
    groups_[size_t(g)].exact = groups_[size_t(g)].exact && groups_[size_t(h)].exact;
    groups_[size_t(h)].tiles.clear();
  }
  for (int t : moved) {
    tiles_[size_t(t)].group = g;
    groups_[size_t(g)].tiles.push_back(t);
  }
  groups_[size_t(g)].exact = groups_[size_t(g)].exact && exact;
  return g;
}

void Gen::sync_groups(size_t from_line) {
  for (size_t i = from_line; i < lines_.size(); ++i) {
    const std::string& text = lines_[i].second;
    size_t at = text.find("outs(%");
    if (at == std::string::npos) continue;
    size_t nb = at + 5, ne = text.find_first_of(" :)", nb);
    std::string name = text.substr(nb, ne - nb);
    for (size_t k = 0; k < tiles_.size(); ++k) {
      if (tiles_[k].name != name || tiles_[k].group < 0) continue;
      const Tile src = tiles_[k];
      const Group& g = groups_[size_t(src.group)];
      for (int m : g.tiles) {
        Tile& t = tiles_[size_t(m)];
        if (g.exact) {
          t.defined = src.defined, t.taint = src.taint, t.padded = src.padded;
        } else {
          t.defined = t.defined || src.defined;
          t.taint |= src.taint;
          t.padded = false;
        }
      }
    }
  }
}

std::string Gen::view_t(const View& v) const {
  if (v.col) return colpart_t();
  std::string t = part_t();
  if (v.rank <= 2) return t;
  std::string lead;
  for (int k = v.split ? 3 : 2; k < v.rank; ++k) lead += "1x";
  size_t at = t.find('<') + 1;
  if (!v.split) return t.substr(0, at) + lead + t.substr(at);
  // the row extent (R or ?) becomes R/2 x 2
  size_t x = t.find('x', at);
  return t.substr(0, at) + lead + std::to_string(p_.R / 2) + "x2" + t.substr(x);
}

// ---- storage shared by name -------------------------------------------------------

// Called for aliases or level3 programs: level 3 shares storage by giving a
// tile an earlier tile's address, the others by a treshape.
void Gen::alias_tiles() {
  int n = r3_.range(1, 2);
  for (int i = 0; i < n; ++i) {
    bool col = r3_.chance(0.3);
    std::vector<int> c;
    for (size_t k = 0; k < tiles_.size(); ++k)
      if (tiles_[k].col == col && !tiles_[k].wide && !tiles_[k].row && int(k) != tmp_) c.push_back(int(k));
    if (c.empty()) continue;
    int t = r3_.pick(c);
    std::string T = col ? colt_ : fullt_, name = fresh(col ? "ua" : "ta");
    line(name + " = pto.alloc_tile " + valid_args(col) + ": " + T);
    int a = add_tile(name, col, tiles_[size_t(t)].taint);
    tiles_[size_t(a)].defined = tiles_[size_t(t)].defined;
    if (p_.level3 && (!p_.aliases || r3_.chance(0.5))) {
      same_addr_[name] = tiles_[size_t(t)].name;  // place_tiles gives it t's address
    } else {
      line("pto.treshape ins(" + tiles_[size_t(t)].name + " : " + T + ") outs(" + name + " : " + T + ")");
    }
    join(t, a, true);
  }
}

bool Gen::col_row_round_trip() {
  int c = pick_defined(true);
  if (c < 0 || tiles_[size_t(c)].group >= 0) return false;
  std::string rowr = "!pto.tile_buf<vec, 1x" + std::to_string(p_.R) + "x" + et() + ", valid=?x?>";
  std::string valid = "valid_row = %c1 valid_col = " + vr_ + " ";
  std::string rw = fresh("rw"), rx = fresh("rx"), cc = fresh("cc");
  const Tile& src = tiles_[size_t(c)];
  line(rw + " = pto.alloc_tile " + valid + ": " + rowr);
  line("pto.treshape ins(" + src.name + " : " + colt_ + ") outs(" + rw + " : " + rowr + ")");
  line(rx + " = pto.alloc_tile " + valid + ": " + rowr);
  if (!scalars_.empty() && r3_.chance(0.7)) {
    std::string op = r3_.pick(std::vector<std::string>{"tmuls", "tadds", "tmaxs"});
    line("pto." + op + " ins(" + rw + ", " + r3_.pick(scalars_) + " : " + rowr + ", " + et() + ") outs(" + rx + " : " +
         rowr + ")");
  } else {
    std::string op = r3_.pick(std::vector<std::string>{"tabs", "tneg"});
    line("pto." + op + " ins(" + rw + " : " + rowr + ") outs(" + rx + " : " + rowr + ")");
  }
  line(cc + " = pto.alloc_tile " + valid_args(true) + ": " + colt_);
  line("pto.treshape ins(" + rx + " : " + rowr + ") outs(" + cc + " : " + colt_ + ")");
  add_tile(cc, true, tiles_[size_t(c)].taint);
  p_.n_ops += 2;
  return true;
}

// ---- tiles yielded by control flow ------------------------------------------------

bool Gen::if_yields_tile() {
  int a = pick_defined(false), b = pick_defined(false), A = pick_defined(false), B = pick_defined(false);
  if (a < 0 || b < 0 || A < 0 || B < 0 || A == B) return false;
  std::string T = fullt_;
  std::vector<std::string> bins = {"tadd", "tsub", "tmul", "tmax", "tmin"};
  std::string cd = fresh("cd"), y = fresh("y");
  std::string lhs = r3_.pick(std::vector<std::string>{ti_, "%bid", "%m"});
  std::string pred = r3_.pick(std::vector<std::string>{"slt", "sge", "eq", "ne"});
  line(cd + " = arith.cmpi " + pred + ", " + lhs + ", " + r3_.pick(std::vector<std::string>{"%c1", "%cR"}) + " : index");
  line(y + " = scf.if " + cd + " -> (" + T + ") {");
  ind_ += "  ";
  const std::string &na = tiles_[size_t(a)].name, &nb = tiles_[size_t(b)].name;
  line("pto." + r3_.pick(bins) + " ins(" + na + ", " + nb + " : " + T + ", " + T + ") outs(" + tiles_[size_t(A)].name +
       " : " + T + ")");
  line("scf.yield " + tiles_[size_t(A)].name + " : " + T);
  ind_.resize(ind_.size() - 2);
  line("} else {");
  ind_ += "  ";
  line("pto." + r3_.pick(bins) + " ins(" + nb + ", " + na + " : " + T + ", " + T + ") outs(" + tiles_[size_t(B)].name +
       " : " + T + ")");
  line("scf.yield " + tiles_[size_t(B)].name + " : " + T);
  ind_.resize(ind_.size() - 2);
  line("}");
  int taint = tiles_[size_t(a)].taint | tiles_[size_t(b)].taint;
  tiles_[size_t(A)].taint |= taint;
  tiles_[size_t(B)].taint |= taint;
  tiles_[size_t(A)].padded = tiles_[size_t(B)].padded = false;
  int yt = add_tile(y, false, tiles_[size_t(A)].taint | tiles_[size_t(B)].taint);
  join(A, B, false);
  join(A, yt, false);
  p_.n_ops += 2;
  return true;
}

bool Gen::for_yields_tile() {
  int A = pick_defined(false), X = pick_defined(false), B = pick_defined(false);
  if (A < 0 || X < 0 || B < 0) return false;
  std::string T = fullt_;
  std::string op = r3_.pick(std::vector<std::string>{"tadd", "tsub", "tmax", "tmin"});
  std::string ck = fresh("ck"), k = fresh("k"), acc = fresh("acc"), fr = fresh("fr");
  line(ck + " = arith.constant " + std::to_string(r3_.range(1, 3)) + " : index");
  const std::string& nx = tiles_[size_t(X)].name;
  bool pingpong = r3_.chance(0.5);
  int C = A;
  std::string c2;
  if (pingpong) {
    c2 = fresh("ctwo");
    line(c2 + " = arith.constant 2 : index");
  }
  line(fr + " = scf.for " + k + " = %c0 to " + ck + " step %c1 iter_args(" + acc + " = " + tiles_[size_t(A)].name +
       ") -> (" + T + ") {");
  ind_ += "  ";
  auto step = [&](int dst) {
    line("pto." + op + " ins(" + acc + ", " + nx + " : " + T + ", " + T + ") outs(" + tiles_[size_t(dst)].name + " : " +
         T + ")");
  };
  if (!pingpong) {
    step(B);
    line("scf.yield " + tiles_[size_t(B)].name + " : " + T);
  } else {
    std::string rm = fresh("rm"), ev = fresh("ev"), pn = fresh("pn");
    line(rm + " = arith.remsi " + k + ", " + c2 + " : index");
    line(ev + " = arith.cmpi eq, " + rm + ", %c0 : index");
    line(pn + " = scf.if " + ev + " -> (" + T + ") {");
    ind_ += "  ";
    step(B);
    line("scf.yield " + tiles_[size_t(B)].name + " : " + T);
    ind_.resize(ind_.size() - 2);
    line("} else {");
    ind_ += "  ";
    step(C);
    line("scf.yield " + tiles_[size_t(C)].name + " : " + T);
    ind_.resize(ind_.size() - 2);
    line("}");
    line("scf.yield " + pn + " : " + T);
  }
  ind_.resize(ind_.size() - 2);
  line("}");
  int taint = tiles_[size_t(A)].taint | tiles_[size_t(X)].taint | tiles_[size_t(B)].taint;
  for (int t : {A, B, C}) tiles_[size_t(t)].taint |= taint, tiles_[size_t(t)].padded = false;
  int ft = add_tile(fr, false, taint);
  join(A, B, false);
  join(A, ft, false);
  p_.n_ops += 2;
  return true;
}

bool Gen::write_twice() {
  int d = pick_any(false), a = pick_defined(false), b = pick_defined(false);
  if (a < 0 || b < 0 || a == d || b == d) return false;
  int gd = tiles_[size_t(d)].group;
  if (gd >= 0 && (tiles_[size_t(a)].group == gd || tiles_[size_t(b)].group == gd)) return false;
  std::string T = fullt_;
  const std::string& nd = tiles_[size_t(d)].name;
  // A tload first: it pads the whole tile, the op after it writes only the
  // valid region, so the pad stays (and wide-tile ops read it).
  std::vector<int> inputs;
  for (size_t i = 0; i < views_.size(); ++i)
    if (!views_[i].col && !p_.bufs[size_t(views_[i].buf)].output) inputs.push_back(int(i));
  bool pad_first = !inputs.empty() && r3_.chance(0.5);
  if (pad_first) {
    const View& w = views_[size_t(r3_.pick(inputs))];
    line("pto.tload ins(" + w.name + " : " + view_t(w) + ") outs(" + nd + " : " + T + ")");
  } else if (!scalars_.empty())
    line("pto.texpands ins(" + r3_.pick(scalars_) + " : " + et() + ") outs(" + nd + " : " + T + ")");
  else
    line("pto.tabs ins(" + tiles_[size_t(a)].name + " : " + T + ") outs(" + nd + " : " + T + ")");
  line("pto." + r3_.pick(std::vector<std::string>{"tadd", "tmul", "tmax"}) + " ins(" + tiles_[size_t(a)].name + ", " +
       tiles_[size_t(b)].name + " : " + T + ", " + T + ") outs(" + nd + " : " + T + ")");
  tiles_[size_t(d)].defined = true;
  tiles_[size_t(d)].padded = pad_first;
  tiles_[size_t(d)].taint = tiles_[size_t(a)].taint | tiles_[size_t(b)].taint;
  p_.n_ops += 2;
  return true;
}

bool Gen::pattern_op() {
  if (p_.scalar_mem && r4_.chance(0.2) && scalar_mem_op()) return true;
  if (p_.aliases && r3_.chance(0.25) && col_row_round_trip()) return true;
  if (p_.control_tiles && r3_.chance(0.15)) return r3_.chance(0.5) ? if_yields_tile() : for_yields_tile();
  if (p_.twice && r3_.chance(0.1)) return write_twice();
  return false;
}

// ---- GM scalars ---------------------------------------------------------------------

// The element at the first or the last row and column of the body's region
// in a full buffer (this block's and iteration's): read from an input, or from an output after
// this body stored it, as the scalar of a tile-scalar op; or an input's
// element there patched into an output, which a later tload of a stored
// view of it reads (the official PyPTO kernels' index reads and write
// maps; the backends keep a loaded NaN's bits).
bool Gen::scalar_mem_op() {
  std::vector<int> src, dst;
  for (size_t i = 0; i < views_.size(); ++i) {
    const View& v = views_[i];
    if (v.col) continue;
    bool out = p_.bufs[size_t(v.buf)].output;
    if (out) dst.push_back(int(i));
    if (!out || v.stored) src.push_back(int(i));
  }
  int a = pick_defined(false);
  if (src.empty() || a < 0) return false;
  const Buf& sb = p_.bufs[size_t(views_[size_t(r4_.pick(src))].buf)];
  std::string P = "!pto.ptr<" + et() + ">", ix0 = fresh("ix"), ix = fresh("ix"), e = fresh("e");
  std::string r = r0_, c = k0_;
  if (r4_.chance(0.5)) {  // the region's last element instead
    std::string r1 = fresh("ix"), c1 = fresh("ix");
    r = fresh("ix"), c = fresh("ix");
    line(r1 + " = arith.addi " + r0_ + ", " + vr_ + " : index");
    line(r + " = arith.subi " + r1 + ", %c1 : index");
    line(c1 + " = arith.addi " + k0_ + ", " + vc_ + " : index");
    line(c + " = arith.subi " + c1 + ", %c1 : index");
  }
  line(ix0 + " = arith.muli " + r + ", %n : index");
  line(ix + " = arith.addi " + ix0 + ", " + c + " : index");
  line(e + " = pto.load_scalar %" + sb.name + "[" + ix + "] : " + P + " -> " + et());
  if (!sb.output && !dst.empty() && r4_.chance(0.4)) {
    const Buf& db = p_.bufs[size_t(views_[size_t(r4_.pick(dst))].buf)];
    line("pto.store_scalar " + e + ", %" + db.name + "[" + ix + "] : " + P + ", " + et());
    p_.n_ops += 1;
    return true;
  }
  int d = r4_.chance(0.4) ? a : pick_any(false);
  const Tile &ta = tiles_[size_t(a)], &td = tiles_[size_t(d)];
  std::string T = ty(ta);
  std::string op = r4_.pick(std::vector<std::string>{"tadds", "tmuls", "tsubs"});
  line("pto." + op + " ins(" + ta.name + ", " + e + " : " + T + ", " + et() + ") outs(" + td.name + " : " + T + ")");
  wrote(d, ta.taint | (sb.output ? sb.taint : 0));
  p_.n_ops += 2;
  return true;
}

// ---- views of rank 3-5 --------------------------------------------------------------

// Leading extents of 1, or (when every row tile is whole, so a tile's first
// row is even) the rows split as (m/2) x 2 below them, as the official
// samples' 1x1x16x16x16 views walk 256 rows through two dimensions.
void Gen::high_rank_views() {
  line("%mn = arith.muli %m, %n : index");
  bool can_split = p_.m % p_.R == 0;
  if (can_split) {
    line("%hr2 = arith.constant 2 : index");
    line("%hrR = arith.constant " + std::to_string(p_.R / 2) + " : index");
    line("%hrm = arith.divui %m, %hr2 : index");
    line("%hrn = arith.muli %n, %hr2 : index");
  }
  for (size_t i = 0; i < p_.bufs.size(); ++i) {
    const Buf& b = p_.bufs[i];
    if (b.col_out) {
      tv_rank_.push_back("");
      tv_rank_n_.push_back(2);
      tv_split_.push_back(false);
      continue;
    }
    int r = r3_.range(3, 5);
    bool split = can_split && r3_.chance(0.75);
    std::string shape, strides, ty = "!pto.tensor_view<";
    for (int k = split ? 3 : 2; k < r; ++k) shape += "%c1, ", strides += "%mn, ", ty += "?x";
    ty += split ? "?x?x?x" + et() + ">" : "?x?x" + et() + ">";
    std::string tv = "%q" + b.name;
    std::string rows = split ? "%hrm, %hr2, %n], strides = [" + strides + "%hrn, %n, %c1] : "
                             : "%m, %n], strides = [" + strides + "%n, %c1] : ";
    line(tv + " = pto.make_tensor_view %" + b.name + ", shape = [" + shape + rows + ty);
    tv_rank_.push_back(tv);
    tv_rank_n_.push_back(r);
    tv_split_.push_back(split);
  }
}

int Gen::high_rank_partition(int view) {
  const View w = views_[size_t(view)];
  if (w.col || size_t(w.buf) >= tv_rank_.size() || tv_rank_[size_t(w.buf)].empty()) return -1;
  int r = tv_rank_n_[size_t(w.buf)];
  std::string off, sz, tvt = "!pto.tensor_view<";
  for (int k = 2; k < r; ++k) off += "%c0, ", sz += "%c1, ", tvt += "?x";
  tvt += "?x?x" + et() + ">";
  View v = w;
  v.rank = r;
  v.split = tv_split_[size_t(w.buf)];
  v.name = fresh("pr");
  std::string rows = r0_ + ", " + k0_ + "], sizes = [" + sz + vr_ + ", " + vc_;
  if (v.split) {
    off.clear(), sz.clear(), tvt = "!pto.tensor_view<";
    for (int k = 3; k < r; ++k) off += "%c0, ", sz += "%c1, ", tvt += "?x";
    tvt += "?x?x?x" + et() + ">";
    std::string h = fresh("hr");
    line(h + " = arith.divui " + r0_ + ", %hr2 : index");
    rows = h + ", %c0, " + k0_ + "], sizes = [" + sz + "%hrR, %hr2, " + vc_;
  }
  line(v.name + " = pto.partition_view " + tv_rank_[size_t(w.buf)] + ", offsets = [" + off + rows + "] : " + tvt +
       " -> " + view_t(v));
  views_.push_back(v);
  return int(views_.size()) - 1;
}

// ---- level 3 ----------------------------------------------------------------------

void Gen::place_tiles() {
  constexpr int kSlot = 4096;  // the largest tile: 16 x 64 f32
  std::map<std::string, int> addr_of;
  int next = 0;
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [ind, text] : lines_) {
    size_t at = text.find(" = pto.alloc_tile ");
    if (at == std::string::npos) {
      out.push_back({ind, text});
      continue;
    }
    std::string name = text.substr(0, at);
    auto same = same_addr_.find(name);
    int addr = same != same_addr_.end() && addr_of.count(same->second) ? addr_of[same->second] : (next++) * kSlot;
    addr_of[name] = addr;
    std::string c = fresh("addr");
    out.push_back({ind, c + " = arith.constant " + std::to_string(addr) + " : i64"});
    std::string rest = text.substr(at + 18);
    out.push_back({ind, name + " = pto.alloc_tile addr = " + c + " " + rest});
  }
  lines_ = out;
}

}  // namespace opt_rand::detail
