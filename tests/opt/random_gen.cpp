// The random PTO program generator (random_gen.h).
#include "random_gen_impl.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace opt_rand::detail {

std::string fmt_double(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6e", v);
  return b;
}

std::string Gen::scalar_const(double v, bool hex_ok) {
  std::string n = fresh("q");
  std::string lit;
  if (p_.et == ET::I32) {
    lit = std::to_string(int64_t(v));
  } else if (p_.et == ET::F32) {
    if (hex_ok && r_.chance(0.3)) {
      char b[16];
      std::snprintf(b, sizeof b, "0x%08X", f2u(float(v)));
      lit = b;
    } else {
      lit = fmt_double(v);
      if (double(float(std::strtod(lit.c_str(), nullptr))) != double(float(v))) {
        char b[16];
        std::snprintf(b, sizeof b, "0x%08X", f2u(float(v)));
        lit = b;
      }
    }
  } else {  // f16: hex bits or a short decimal
    char b[16];
    std::snprintf(b, sizeof b, "0x%04X", f2h(float(v)));
    lit = (hex_ok && r_.chance(0.4)) ? std::string(b) : fmt_double(double(h2f(f2h(float(v)))));
  }
  line(n + " = arith.constant " + lit + " : " + et());
  return n;
}

// The scalar pool: the constants the simplifier knows (1, 0, -0, 2, 0.5, 3,
// -1), a random one, the scalar parameter, foldable arithmetic on constants
// and duplicated arithmetic (CSE).
void Gen::make_scalars(bool in_body) {
  std::vector<double> special = {1.0, 0.0, 2.0, 0.5, 3.0, -1.0};
  if (p_.et == ET::I32) special = {1, 0, 2, 3, -1, 7, -5};
  int n = !p_.consts ? 0 : in_body ? r_.range(0, 2) : r_.range(2, 5);
  std::vector<std::string> made;
  for (int i = 0; i < n; ++i) {
    double v = r_.chance(0.75) ? r_.pick(special)
               : p_.et == ET::I32 ? double(r_.range(-1000, 1000))
                                   : double(float((r_.unit() - 0.5) * 8));
    if (p_.et != ET::I32 && r_.chance(0.1)) v = -0.0;
    made.push_back(scalar_const(v, true));
  }
  if (!in_body && p_.has_scalar) made.push_back("%s");
  if (p_.et == ET::F16 || made.empty()) {  // no scalar arith on f16 (x86 refuses it)
    for (auto& s : made) scalars_.push_back(s);
    return;
  }
  std::string sfx = p_.et == ET::I32 ? "i" : "f";
  std::vector<std::string> ops = {"add", "sub", "mul"};
  if (p_.et == ET::F32) ops.push_back("div");
  if (p_.et == ET::F32) { ops.push_back("maximum"); ops.push_back("minimum"); }
  int k = r_.range(0, 3);
  for (int i = 0; i < k; ++i) {
    std::string a = r_.pick(made), b = r_.pick(made);
    std::string op = r_.pick(ops);
    std::string opname = op == "maximum" || op == "minimum" ? "arith." + op + "f" : "arith." + op + sfx;
    std::string x = fresh("a");
    line(x + " = " + opname + " " + a + ", " + b + " : " + et());
    made.push_back(x);
    if (r_.chance(0.5)) {  // the same computation again: CSE
      std::string y = fresh("a");
      line(y + " = " + opname + " " + a + ", " + b + " : " + et());
      made.push_back(y);
    }
  }
  if (p_.et == ET::F32 && r_.chance(0.3)) {  // -0.0 made by arithmetic
    std::string z = scalar_const(0.0, false), x = fresh("a");
    line(x + " = arith.negf " + z + " : f32");
    made.push_back(x);
  }
  for (auto& s : made) scalars_.push_back(s);
}

std::string Gen::pick_scalar() { return r_.pick(scalars_); }

int Gen::pick_defined(bool col) {
  std::vector<int> c;
  for (size_t i = 0; i < tiles_.size(); ++i)
    if (tiles_[i].col == col && !tiles_[i].wide && !tiles_[i].row && tiles_[i].defined && int(i) != tmp_)
      c.push_back(int(i));
  return c.empty() ? -1 : r_.pick(c);
}
int Gen::pick_any(bool col) {
  std::vector<int> c;
  for (size_t i = 0; i < tiles_.size(); ++i)
    if (tiles_[i].col == col && !tiles_[i].wide && !tiles_[i].row && int(i) != tmp_) c.push_back(int(i));
  return r_.pick(c);
}
// A destination: often one of the sources (in place), else any tile.
int Gen::pick_dst(bool col, int src) {
  if (src >= 0 && r_.chance(0.35)) return src;
  return pick_any(col);
}

std::string Gen::valid_args(bool col) const {
  std::string vrow = p_.shape == Shape::Static ? "" : "valid_row = " + vr_ + " ";
  std::string vcol = (!col && (p_.shape == Shape::RowsDyn || p_.shape == Shape::Grid)) ? "valid_col = " + vc_ + " " : "";
  return vrow + vcol;
}

void Gen::alloc_tiles() {
  int nfull = r_.range(2, 5), ncol = r_.range(1, 3);
  for (int i = 0; i < nfull + 1 + ncol; ++i) {
    Tile t;
    t.col = i > nfull;
    t.name = fresh(t.col ? "u" : "t");
    line(t.name + " = pto.alloc_tile " + valid_args(t.col) + ": " + (t.col ? colt_ : fullt_));
    tiles_.push_back(t);
  }
  tmp_ = nfull;  // the reductions' scratch operand, never read otherwise
  if (r_.chance(0.5)) {  // a 1 x C row: column reductions and expands
    Tile t;
    t.row = true;
    t.name = fresh("h");
    line(t.name + " = pto.alloc_tile valid_row = %c1 valid_col = " + vc_ + " : " + rowt_);
    tiles_.push_back(t);
  }
  if (p_.shape != Shape::Static && r_.chance(0.6)) {
    // a tile whose whole storage is valid: ops into it read their sources
    // past the sources' valid regions (docs/semantics.md §0: a source's
    // valid region is not consulted), so only tloaded tiles, whose rest is
    // the pad value, are its sources; a forwarded tload that leaves the
    // previous iteration's values there shows up
    Tile t;
    t.wide = true;
    t.name = fresh("g");
    line(t.name + " = pto.alloc_tile : " + widet_);
    tiles_.push_back(t);
  }
}

// A partition of tensor view `tv` at this body's tile; dup_index recomputes
// the row offset (the same value again: CSE) first.
std::string Gen::partition(const std::string& tv, bool col, bool dup_index) {
  std::string r0 = r0_;
  if (dup_index && p_.shape != Shape::Static) {
    r0 = fresh("i");
    line(r0 + " = arith.muli " + ti_ + ", %cR : index");
  }
  std::string v = fresh("p");
  std::string off, sz;
  if (col) {
    off = "[" + r0 + ", " + (p_.shape == Shape::Grid ? tj_ : std::string("%c0")) + "]";
    sz = "[" + vr_ + ", %c1]";
    line(v + " = pto.partition_view " + tv + ", offsets = " + off + ", sizes = " + sz + " : " + tv_t() +
         " -> " + colpart_t());
  } else {
    off = "[" + r0 + ", " + k0_ + "]";
    sz = "[" + vr_ + ", " + vc_ + "]";
    line(v + " = pto.partition_view " + tv + ", offsets = " + off + ", sizes = " + sz + " : " + tv_t() +
         " -> " + part_t());
  }
  return v;
}

void Gen::store(int tile, int view) {
  Tile& t = tiles_[size_t(tile)];
  View& v = views_[size_t(view)];
  line("pto.tstore ins(" + t.name + " : " + ty(t) + ") outs(" + v.name + " : " + view_t(v) + ")");
  p_.bufs[size_t(v.buf)].taint |= t.taint;
  // every view of this buffer at this tile now reads what was stored
  for (View& w : views_)
    if (w.buf == v.buf && w.col == v.col) w.stored = true;
  ++p_.n_ops;
}

void Gen::load(int view, int tile) {
  size_t mark = lines_.size();
  if (p_.twice && r3_.chance(0.15)) {  // an input's tile loaded first (a dead write)
    std::vector<int> c;
    for (size_t i = 0; i < views_.size(); ++i)
      if (views_[i].col == views_[size_t(view)].col && !p_.bufs[size_t(views_[i].buf)].output) c.push_back(int(i));
    if (!c.empty()) {
      const View& w = views_[size_t(r3_.pick(c))];
      line("pto.tload ins(" + w.name + " : " + view_t(w) + ") outs(" + tiles_[size_t(tile)].name + " : " +
           ty(tiles_[size_t(tile)]) + ")");
    }
  }
  Tile& t = tiles_[size_t(tile)];
  View& v = views_[size_t(view)];
  line("pto.tload ins(" + v.name + " : " + view_t(v) + ") outs(" + t.name + " : " + ty(t) + ")");
  t.defined = true;
  t.padded = true;
  t.taint = v.buf >= 0 && p_.bufs[size_t(v.buf)].output ? p_.bufs[size_t(v.buf)].taint : 0;
  ++p_.n_ops;
  sync_groups(mark);
}

void Gen::emit_op() {
  const size_t mark = lines_.size();
  if (pattern_op()) {
    --ops_left_;
    sync_groups(mark);
    return;
  }
  const bool f = p_.et != ET::I32;
  int kind = r_.range(0, 99);
  auto bin = [&](bool col) {
    int a = pick_defined(col), b = pick_defined(col);
    if (a < 0 || b < 0) return false;
    std::vector<std::string> ops = {"tadd", "tsub", "tmul", "tmax", "tmin"};
    if (f) ops.push_back("tdiv");
    std::string op = r_.pick(ops);
    int d = r_.chance(0.5) ? pick_dst(col, a) : pick_dst(col, b);
    const Tile &ta = tiles_[size_t(a)], &tb = tiles_[size_t(b)];
    std::string T = ty(ta);
    line("pto." + op + " ins(" + ta.name + ", " + tb.name + " : " + T + ", " + T + ") outs(" +
         tiles_[size_t(d)].name + " : " + T + ")");
    int taint = ta.taint | tb.taint;
    wrote(d, taint);
    return true;
  };
  auto scal = [&](bool col) {
    int a = pick_defined(col);
    if (a < 0) return false;
    std::vector<std::string> ops = {"tadds", "tmuls", "tadds", "tmuls", "tsubs", "tmaxs", "tmins"};
    if (f) { ops.push_back("tdivs"); ops.push_back("tdivs"); }
    std::string op = r_.pick(ops), s = pick_scalar();
    int d = pick_dst(col, a);
    const Tile& ta = tiles_[size_t(a)];
    std::string T = ty(ta);
    if (op == "tdivs" && r_.chance(0.3))
      line("pto.tdivs ins(" + s + ", " + ta.name + " : " + et() + ", " + T + ") outs(" +
           tiles_[size_t(d)].name + " : " + T + ")");
    else
      line("pto." + op + " ins(" + ta.name + ", " + s + " : " + T + ", " + et() + ") outs(" +
           tiles_[size_t(d)].name + " : " + T + ")");
    int taint = ta.taint;
    wrote(d, taint);
    return true;
  };
  auto unary = [&](bool col) {
    int a = pick_defined(col);
    if (a < 0) return false;
    std::vector<std::string> ops = {"tabs", "tneg", "trelu"};
    if (f) { ops.push_back("texp"); ops.push_back("tlog"); ops.push_back("tsqrt"); ops.push_back("texp"); }
    std::string op = r_.pick(ops);
    int d = pick_dst(col, a);
    std::string T = ty(tiles_[size_t(a)]);
    int taint = tiles_[size_t(a)].taint;
    std::string src = tiles_[size_t(a)].name;
    // keep exp / log / sqrt inputs sane most of the time (not only NaN / Inf out)
    if ((op == "tlog" || op == "tsqrt") && r_.chance(0.7)) {
      line("pto.tabs ins(" + src + " : " + T + ") outs(" + tiles_[size_t(d)].name + " : " + T + ")");
      src = tiles_[size_t(d)].name;
    } else if (op == "texp" && r_.chance(0.7) && !p_.consts) {  // exp(-|x|)
      line("pto.tabs ins(" + src + " : " + T + ") outs(" + tiles_[size_t(d)].name + " : " + T + ")");
      line("pto.tneg ins(" + tiles_[size_t(d)].name + " : " + T + ") outs(" + tiles_[size_t(d)].name + " : " + T + ")");
      src = tiles_[size_t(d)].name;
    } else if (op == "texp" && r_.chance(0.7)) {
      std::string c = scalar_const(p_.et == ET::F16 ? 8.0 : 40.0, false);
      line("pto.tmins ins(" + src + ", " + c + " : " + T + ", " + et() + ") outs(" + tiles_[size_t(d)].name +
           " : " + T + ")");
      src = tiles_[size_t(d)].name;
    }
    line("pto." + op + " ins(" + src + " : " + T + ") outs(" + tiles_[size_t(d)].name + " : " + T + ")");
    wrote(d, taint | (op == "texp" || op == "tlog" ? kTrans : 0));
    return true;
  };
  auto reduce = [&]() {
    int a = pick_defined(false);
    if (a < 0) return false;
    std::string op = r_.pick(std::vector<std::string>{"trowsum", "trowmax", "trowmin", "trowsum"});
    int d = pick_any(true);
    std::string ins = tiles_[size_t(a)].name + ", " + tiles_[size_t(tmp_)].name + " : " + fullt_ + ", " + fullt_;
    line("pto." + op + " ins(" + ins + ") outs(" + tiles_[size_t(d)].name + " : " + colt_ + ")");
    wrote(d, tiles_[size_t(a)].taint | (op == "trowsum" && f ? kSum : 0));
    return true;
  };
  // A row or column expand into tile d: the plain form copies the narrow
  // operand (type nt); the binary ones take the wide and the narrow tile in
  // either order.
  auto put_expand = [&](const std::string& op, bool plain, const Tile& wide, const Tile& narrow,
                        const std::string& nt, int d) {
    Tile& dt = tiles_[size_t(d)];
    if (plain) {
      line("pto." + op + " ins(" + narrow.name + " : " + nt + ") outs(" + dt.name + " : " + fullt_ + ")");
      dt.taint = narrow.taint;
    } else {
      if (r_.chance(0.25))  // the narrow operand first
        line("pto." + op + " ins(" + narrow.name + ", " + wide.name + " : " + nt + ", " + fullt_ + ") outs(" +
             dt.name + " : " + fullt_ + ")");
      else
        line("pto." + op + " ins(" + wide.name + ", " + narrow.name + " : " + fullt_ + ", " + nt + ") outs(" +
             dt.name + " : " + fullt_ + ")");
      dt.taint = wide.taint | narrow.taint;
    }
    dt.defined = true;
  };
  auto expand = [&]() {
    int a = pick_defined(false), c = pick_defined(true);
    if (a < 0 || c < 0) return false;
    std::vector<std::string> ops = {"trowexpandadd", "trowexpandsub", "trowexpandmul", "trowexpandmax",
                                    "trowexpandmin", "trowexpand"};
    if (f) { ops.push_back("trowexpanddiv"); ops.push_back("trowexpandsub"); }
    std::string op = r_.pick(ops);
    int d = pick_dst(false, a);
    const Tile &ta = tiles_[size_t(a)], &tc = tiles_[size_t(c)];
    put_expand(op, op == "trowexpand", ta, tc, colt_, d);
    return true;
  };
  auto mov = [&](bool col) {
    int a = pick_defined(col);
    if (a < 0) return false;
    int d = pick_any(col);
    std::string T = ty(tiles_[size_t(a)]);
    line("pto.tmov ins(" + tiles_[size_t(a)].name + " : " + T + ") outs(" + tiles_[size_t(d)].name + " : " + T +
         ")");
    wrote(d, tiles_[size_t(a)].taint);
    return true;
  };
  auto expands = [&](bool col) {
    int d = pick_any(col);
    line("pto.texpands ins(" + pick_scalar() + " : " + et() + ") outs(" + tiles_[size_t(d)].name + " : " +
         ty(tiles_[size_t(d)]) + ")");
    wrote(d, 0);
    return true;
  };
  auto ld = [&]() {
    // an input, or an output view stored earlier in this body (store->load)
    std::vector<int> c;
    for (size_t i = 0; i < views_.size(); ++i)
      if (!views_[i].col && (!p_.bufs[size_t(views_[i].buf)].output || views_[i].stored)) c.push_back(int(i));
    if (c.empty()) return false;
    int v = r_.pick(c);
    if (p_.high_rank && r3_.chance(0.4))
      if (int hv = high_rank_partition(v); hv >= 0) v = hv;
    if (p_.bufs[size_t(views_[size_t(v)].buf)].output && r_.chance(0.3)) {
      // a fresh partition of the same place (the same view again, or the alias)
      View w = views_[size_t(v)];
      w.rank = 2;
      bool alias = !tv_alias_[size_t(w.buf)].empty() && r_.chance(0.5);
      w.name = partition(alias ? tv_alias_[size_t(w.buf)] : tv_[size_t(w.buf)], false, r_.chance(0.5));
      views_.push_back(w);
      v = int(views_.size()) - 1;
    }
    load(v, pick_any(false));
    return true;
  };
  auto st = [&]() {
    bool col = r_.chance(0.25);
    int a = pick_defined(col);
    if (a < 0) return false;
    std::vector<int> c;
    for (size_t i = 0; i < views_.size(); ++i)
      if (views_[i].col == col && p_.bufs[size_t(views_[i].buf)].output) c.push_back(int(i));
    if (c.empty()) return false;
    int v = r_.pick(c);
    if (p_.high_rank && !col && r3_.chance(0.4))
      if (int hv = high_rank_partition(v); hv >= 0) v = hv;
    store(a, v);
    if (!col && r_.chance(0.3)) {
      // the first column of what was just stored, through an R x 1 view of
      // the full buffer: read into a column tile, or overwritten by one
      // (a later full load must see the merge, not the forwarded tile)
      const View& w = views_[size_t(v)];
      std::string cv = fresh("p");
      line(cv + " = pto.partition_view " + (tv_alias_[size_t(w.buf)].empty() || r_.chance(0.5) ? tv_[size_t(w.buf)] : tv_alias_[size_t(w.buf)]) +
           ", offsets = [" + r0_ + ", " + k0_ + "], sizes = [" + vr_ + ", %c1] : " + tv_t() + " -> " + colpart_t());
      int c = pick_defined(true);
      Buf& b = p_.bufs[size_t(w.buf)];
      if (c >= 0 && r_.chance(0.5)) {
        line("pto.tstore ins(" + tiles_[size_t(c)].name + " : " + colt_ + ") outs(" + cv + " : " + colpart_t() + ")");
        b.taint |= tiles_[size_t(c)].taint;
      } else {
        int d = pick_any(true);
        line("pto.tload ins(" + cv + " : " + colpart_t() + ") outs(" + tiles_[size_t(d)].name + " : " + colt_ + ")");
        wrote(d, b.taint);
      }
      ++p_.n_ops;
    }
    if (!col && r_.chance(0.5)) {  // and read it back at once
      int v2 = v;
      if (r_.chance(0.4)) {
        View w = views_[size_t(v)];
        w.rank = 2;
        bool alias = !tv_alias_[size_t(w.buf)].empty() && r_.chance(0.5);
        w.name = partition(alias ? tv_alias_[size_t(w.buf)] : tv_[size_t(w.buf)], false, r_.chance(0.5));
        views_.push_back(w);
        v2 = int(views_.size()) - 1;
      }
      int x = pick_any(false);
      load(v2, x);
      int w = -1;
      for (size_t i = 0; i < tiles_.size(); ++i)
        if (tiles_[i].wide) w = int(i);
      if (w >= 0 && r_.chance(0.6)) {
        // the whole tile that was read back (pad included) into the wide
        // tile, and maybe reduced over its whole rows right away and stored
        line("pto.tmov ins(" + tiles_[size_t(x)].name + " : " + fullt_ + ") outs(" + tiles_[size_t(w)].name + " : " +
             widet_ + ")");
        wrote(w, tiles_[size_t(x)].taint);
        if (r_.chance(0.6)) {
          std::string op = r_.pick(std::vector<std::string>{"trowsum", "trowmax", "trowmin"});
          int d = pick_any(true);
          line("pto." + op + " ins(" + tiles_[size_t(w)].name + ", " + tiles_[size_t(tmp_)].name + " : " + widet_ +
               ", " + fullt_ + ") outs(" + tiles_[size_t(d)].name + " : " + colt_ + ")");
          wrote(d, tiles_[size_t(w)].taint | (op == "trowsum" && p_.et != ET::I32 ? kSum : 0));
          for (size_t i = 0; i < views_.size(); ++i)
            if (views_[i].col && r_.chance(0.7)) {
              store(d, int(i));
              break;
            }
        }
      }
    }
    return true;
  };
  // ops into the wide tile (sources: tloaded tiles, or the wide tile), and
  // ops that read the wide tile into an ordinary one
  auto wide = [&]() {
    int w = -1;
    std::vector<int> src;
    for (size_t i = 0; i < tiles_.size(); ++i) {
      if (tiles_[i].wide) w = int(i);
      if ((tiles_[i].padded && !tiles_[i].col && int(i) != tmp_) || (tiles_[i].wide && tiles_[i].defined))
        src.push_back(int(i));
    }
    if (w < 0 || src.empty()) return false;
    if (tiles_[size_t(w)].defined && r_.chance(0.35)) {
      // a row reduction over the whole wide tile: the only way its part
      // outside the ordinary tiles' valid region reaches an output (the
      // stale columns of a grid's last column tile, say)
      std::string op = r_.pick(std::vector<std::string>{"trowsum", "trowmax", "trowmin"});
      int d = pick_any(true);
      line("pto." + op + " ins(" + tiles_[size_t(w)].name + ", " + tiles_[size_t(tmp_)].name + " : " + widet_ +
           ", " + fullt_ + ") outs(" + tiles_[size_t(d)].name + " : " + colt_ + ")");
      wrote(d, tiles_[size_t(w)].taint | (op == "trowsum" && p_.et != ET::I32 ? kSum : 0));
      return true;
    }
    int a = r_.pick(src), b = r_.pick(src);
    int d = w;
    if (tiles_[size_t(w)].defined && r_.chance(0.5)) {  // read the wide tile into an ordinary one
      a = w;
      b = pick_defined(false);
      if (b < 0) b = w;
      d = pick_any(false);
    }
    const Tile &ta = tiles_[size_t(a)], &tb = tiles_[size_t(b)];
    Tile& td = tiles_[size_t(d)];
    std::vector<std::string> bins = {"tadd", "tsub", "tmul", "tmax", "tmin"};
    int taint = ta.taint | tb.taint;
    if (r_.chance(0.6)) {
      line("pto." + r_.pick(bins) + " ins(" + ta.name + ", " + tb.name + " : " + ty(ta) + ", " + ty(tb) + ") outs(" +
           td.name + " : " + ty(td) + ")");
    } else if (r_.chance(0.5)) {
      line("pto." + r_.pick(std::vector<std::string>{"tabs", "tneg", "trelu"}) + " ins(" + ta.name + " : " + ty(ta) +
           ") outs(" + td.name + " : " + ty(td) + ")");
      taint = ta.taint;
    } else {
      line("pto." + r_.pick(std::vector<std::string>{"tadds", "tmuls", "tmaxs"}) + " ins(" + ta.name + ", " +
           pick_scalar() + " : " + ty(ta) + ", " + et() + ") outs(" + td.name + " : " + ty(td) + ")");
      taint = ta.taint;
    }
    td.defined = true;
    td.taint = taint;
    return true;
  };
  // column reductions into the row tile (from an ordinary tile, or over the
  // whole wide tile: its pad rows), column expands from it
  auto colops = [&]() {
    int h = -1, w = -1;
    for (size_t i = 0; i < tiles_.size(); ++i) {
      if (tiles_[i].row) h = int(i);
      if (tiles_[i].wide && tiles_[i].defined) w = int(i);
    }
    if (h < 0) return false;
    Tile& th = tiles_[size_t(h)];
    if (!th.defined || r_.chance(0.4)) {
      int a = w >= 0 && r_.chance(0.4) ? w : pick_defined(false);
      if (a < 0) return false;
      std::string op = r_.pick(std::vector<std::string>{"tcolsum", "tcolmax", "tcolmin", "tcolsum"});
      const Tile& ta = tiles_[size_t(a)];
      line("pto." + op + " ins(" + ta.name + " : " + ty(ta) + ") outs(" + th.name + " : " + rowt_ + ")");
      th.defined = true;
      th.taint = ta.taint | (op == "tcolsum" && f ? kSum : 0);
      return true;
    }
    int a = pick_defined(false);
    if (a < 0) return false;
    std::vector<std::string> ops = {"tcolexpandadd", "tcolexpandsub", "tcolexpandmul", "tcolexpandmax",
                                    "tcolexpandmin", "tcolexpand"};
    if (f) ops.push_back("tcolexpanddiv");
    std::string op = r_.pick(ops);
    int d = pick_dst(false, a);
    const Tile& ta = tiles_[size_t(a)];
    put_expand(op, op == "tcolexpand", ta, th, rowt_, d);
    return true;
  };
  bool done = false;
  if (kind < 12) done = ld();
  else if (kind < 22) done = st();
  else if (kind < 40) done = bin(false);
  else if (kind < 55) done = scal(false);
  else if (kind < 67) done = unary(false);
  else if (kind < 70) done = reduce();
  else if (kind < 73) done = wide();
  else if (kind < 79) done = expand();
  else if (kind < 84) done = colops();
  else if (kind < 87) done = mov(r_.chance(0.3));
  else if (kind < 89) done = expands(r_.chance(0.3));
  else if (kind < 92) done = bin(true);
  else if (kind < 95) done = scal(true);
  else if (kind < 97) done = unary(true);
  else {  // a dead op: a tile nobody reads afterwards unless chance has it
    int a = pick_defined(false);
    if (a >= 0) {
      int d = pick_any(false);
      line("pto.tmuls ins(" + tiles_[size_t(a)].name + ", " + pick_scalar() + " : " + fullt_ + ", " + et() +
           ") outs(" + tiles_[size_t(d)].name + " : " + fullt_ + ")");
      wrote(d, tiles_[size_t(a)].taint);
      done = true;
    }
  }
  if (done) {
    --ops_left_;
    ++p_.n_ops;
    repeat_last();
    if (!cvt_.empty() && r2_.chance(0.2)) cvt_round_trip();
    sync_groups(mark);
  }
}

// A defined full tile through the other float type and back, in place
// (f32 -> bf16 / f16 -> f32 rounds, f16 -> f32 -> f16 is exact): the
// x86 fused regions take tcvt. Untainted tiles only: a rounding to 16 bits
// would magnify a tolerated difference.
void Gen::cvt_round_trip() {
  std::vector<int> c;
  for (size_t i = 0; i < tiles_.size(); ++i) {
    const Tile& t = tiles_[i];
    if (!t.col && !t.wide && !t.row && t.defined && !t.taint && int(i) != tmp_) c.push_back(int(i));
  }
  if (c.empty()) return;
  const Tile& t = tiles_[size_t(r2_.pick(c))];
  const char* rm = r2_.chance(0.5) ? "" : " {rmode = #pto<round_mode RINT>}";
  line("pto.tcvt ins(" + t.name + rm + " : " + fullt_ + ") outs(" + cvt_ + " : " + cvt_t_ + ")");
  line("pto.tcvt ins(" + cvt_ + " : " + cvt_t_ + ") outs(" + t.name + " : " + fullt_ + ")");
  p_.n_ops += 2;
}

// Sometimes the op just written again into another tile: the same value
// twice (tile CSE bait), or, after an in-place op, a different one (which
// must not be merged).
void Gen::repeat_last() {
  if (lines_.empty() || !r_.chance(0.12)) return;
  std::string t = lines_.back().second;
  if (t.rfind("pto.t", 0) != 0 || t.rfind("pto.tstore", 0) == 0 || t.rfind("pto.tload", 0) == 0) return;
  size_t at = t.find("outs(");
  if (at == std::string::npos) return;
  size_t nb = at + 5, ne = t.find(' ', nb);
  std::string old = t.substr(nb, ne - nb);
  int od = -1;
  for (size_t i = 0; i < tiles_.size(); ++i)
    if (tiles_[i].name == old) od = int(i);
  if (od < 0 || tiles_[size_t(od)].wide || tiles_[size_t(od)].row) return;
  int d = pick_any(tiles_[size_t(od)].col);
  line(t.substr(0, nb) + tiles_[size_t(d)].name + t.substr(ne));
  wrote(d, tiles_[size_t(od)].taint);
  ++p_.n_ops;
}

void Gen::emit_final_stores() {
  for (size_t i = 0; i < views_.size(); ++i) {
    const View& v = views_[i];
    if (!p_.bufs[size_t(v.buf)].output || v.stored) continue;
    if (v.name.empty()) continue;
    int a = pick_defined(v.col);
    if (a < 0) continue;
    store(a, int(i));
  }
}

// Wraps some runs of consecutive tile ops (at one nesting level) in
// pto.fuse { ... } regions: what the fusion pass makes, written by hand.
void Gen::wrap_fuse() {
  auto is_tile_op = [](const std::string& t) { return t.rfind("pto.t", 0) == 0; };
  std::vector<std::pair<std::string, std::string>> out;
  size_t i = 0;
  while (i < lines_.size()) {
    if (!is_tile_op(lines_[i].second)) {
      out.push_back(lines_[i++]);
      continue;
    }
    size_t j = i;
    while (j < lines_.size() && is_tile_op(lines_[j].second) && lines_[j].first == lines_[i].first) ++j;
    // [i, j) is a run: wrap a random sub-run of it
    size_t a = i + size_t(r_.range(0, int(j - i) - 1));
    size_t b = a + 1 + size_t(r_.range(0, int(j - a) - 1));
    bool wrap = r_.chance(0.7);
    for (size_t k = i; k < j; ++k) {
      if (wrap && k == a) out.push_back({lines_[k].first, "pto.fuse {"});
      out.push_back({(wrap && k >= a && k < b ? "  " : "") + lines_[k].first, lines_[k].second});
      if (wrap && k + 1 == b) out.push_back({lines_[k].first, "}"});
    }
    i = j;
  }
  lines_ = out;
}

void Gen::build() {
  Program& p = p_;
  int etk = r_.range(0, 9);
  p.et = etk < 7 ? ET::F32 : etk < 9 ? ET::F16 : ET::I32;
  p.shape = Shape(r_.range(0, 3));
  p.R = r_.chance(0.5) ? 16 : 8;
  if (p.et == ET::F16) p.R = 16;
  std::vector<int> cols = p.et == ET::F16 ? std::vector<int>{16, 32, 64} : std::vector<int>{8, 16, 32, 64};
  p.C = r_.pick(cols);
  switch (p.shape) {
    case Shape::Static: p.m = p.R; p.n = p.C; break;
    case Shape::RowsStaticCols: p.m = r_.range(1, 3 * p.R); p.n = p.C; break;
    case Shape::RowsDyn: p.m = r_.range(1, 3 * p.R); p.n = r_.range(1, p.C); break;
    case Shape::Grid: p.m = r_.range(1, 2 * p.R + 3); p.n = r_.range(1, 2 * p.C + 5); break;
  }
  if (r_.chance(0.2) && p.shape != Shape::Static) p.m = p.R * r_.range(1, 2);  // no ragged rows
  p.block_num = r_.range(1, 3);
  p.has_scalar = p.et == ET::F16 || (p.et == ET::F32 && r_.chance(0.7));
  p.consts = p.et != ET::F16 || r_.chance(0.3);
  p.fused = r_.chance(0.3);
  pick_patterns();
  if (p.has_scalar) {
    std::vector<float> sv = {1.0f, 0.0f, -0.0f, 2.0f, 0.5f, 3.0f, -1.5f, 1e-40f, 1e30f};
    p.scalar = r_.chance(0.6) ? r_.pick(sv) : float((r_.unit() - 0.5) * 10);
    if (r_.chance(0.03)) p.scalar = std::nanf("");
    if (p.et == ET::F16) p.scalar = h2f(f2h(p.scalar));
  }
  int nin = r_.range(1, 3), nout = r_.range(1, 3);
  bool colout = r_.chance(0.5);
  int64_t tn = p.shape == Shape::Grid ? (p.n + p.C - 1) / p.C : 1;
  for (int i = 0; i < nin; ++i) p.bufs.push_back(Buf{"x" + std::to_string(i), p.m, p.n, false, false, 0, {}});
  for (int i = 0; i < nout; ++i) p.bufs.push_back(Buf{"y" + std::to_string(i), p.m, p.n, true, false, 0, {}});
  if (colout) p.bufs.push_back(Buf{"z0", p.m, tn, true, true, 0, {}});
  fullt_ = full_t();
  widet_ = "!pto.tile_buf<vec, " + std::to_string(p.R) + "x" + std::to_string(p.C) + "x" + et_name(p.et) + ">";
  rowt_ = "!pto.tile_buf<vec, 1x" + std::to_string(p.C) + "x" + et_name(p.et) + ", valid=?x?>";
  colt_ = col_t();

  std::ostringstream head;
  head << "// opt_random_programs seed " << p.seed << ": " << et_name(p.et) << ", " << shape_name(p.shape) << ", "
       << p.R << "x" << p.C << " tiles, m=" << p.m << " n=" << p.n << ", " << p.block_num << " block(s)\n";
  head << "module attributes {pto.target_arch = \"a5\"} {\n  func.func @rand(";
  for (size_t i = 0; i < p.bufs.size(); ++i) head << (i ? ", " : "") << "%" << p.bufs[i].name << ": !pto.ptr<" << et() << ">";
  if (p.has_scalar) head << ", %s: " << et();
  head << ", %m: index, %n: index)\n      attributes {pto.kernel_kind = #pto.kernel_kind<vector>, pto.entry} {\n";

  line("%c0 = arith.constant 0 : index");
  line("%c1 = arith.constant 1 : index");
  if (p.shape != Shape::Static && r_.chance(0.5)) {  // a folded constant
    line("%cRh = arith.constant " + std::to_string(p.R / 2) + " : index");
    line("%cR = arith.addi %cRh, %cRh : index");
  } else {
    line("%cR = arith.constant " + std::to_string(p.R) + " : index");
  }
  line("%cC = arith.constant " + std::to_string(p.C) + " : index");
  line("%cRm1 = arith.constant " + std::to_string(p.R - 1) + " : index");
  line("%cCm1 = arith.constant " + std::to_string(p.C - 1) + " : index");
  line("%bid64 = pto.get_block_idx");
  line("%nb64 = pto.get_block_num");
  line("%bid = arith.index_cast %bid64 : i64 to index");
  line("%nb = arith.index_cast %nb64 : i64 to index");
  std::string tnv = "%c1";
  if (p.shape == Shape::Grid) {
    line("%ncr = arith.addi %n, %cCm1 : index");
    line("%tn = arith.divui %ncr, %cC : index");
    tnv = "%tn";
  }
  for (size_t i = 0; i < p.bufs.size(); ++i) {
    const Buf& b = p.bufs[i];
    std::string tv = "%v" + b.name;
    if (b.col_out)
      line(tv + " = pto.make_tensor_view %" + b.name + ", shape = [%m, " + tnv + "], strides = [" + tnv +
           ", %c1] {layout = #pto.layout<nd>} : " + tv_t());
    else
      line(tv + " = pto.make_tensor_view %" + b.name + ", shape = [%m, %n], strides = [%n, %c1] {layout = #pto.layout<nd>} : " +
           tv_t());
    tv_.push_back(tv);
    std::string alias;
    if (b.output && !b.col_out && r_.chance(0.4)) {  // a second view of the same buffer
      alias = "%w" + b.name;
      line(alias + " = pto.make_tensor_view %" + b.name +
           ", shape = [%m, %n], strides = [%n, %c1] {layout = #pto.layout<nd>} : " + tv_t());
    }
    tv_alias_.push_back(alias);
  }
  if (p.high_rank) high_rank_views();
  make_scalars(false);

  // the loop nest
  std::vector<std::string> closers;
  if (p.shape == Shape::Static) {
    r0_ = "%c0";
    k0_ = "%c0";
    vr_ = "%cR";
    vc_ = "%cC";
    ti_ = "%c0";
    tj_ = "%c0";
    // static: one block does the work (every block stores the same values)
  } else {
    line("%mr = arith.addi %m, %cRm1 : index");
    line("%tm = arith.divui %mr, %cR : index");
    line("scf.for %ti = %bid to %tm step %nb {");
    closers.push_back(ind_ + "}");
    ind_ += "  ";
    ti_ = "%ti";
    line("%r0 = arith.muli %ti, %cR : index");
    line("%rr = arith.subi %m, %r0 : index");
    line("%vr = arith.minui %rr, %cR : index");
    r0_ = "%r0";
    vr_ = "%vr";
    if (p.shape == Shape::Grid) {
      line("scf.for %tj = %c0 to %tn step %c1 {");
      closers.push_back(ind_ + "}");
      ind_ += "  ";
      line("%k0 = arith.muli %tj, %cC : index");
      line("%cr = arith.subi %n, %k0 : index");
      line("%vc = arith.minui %cr, %cC : index");
      k0_ = "%k0";
      vc_ = "%vc";
      tj_ = "%tj";
    } else {
      k0_ = "%c0";
      vc_ = p.shape == Shape::RowsDyn ? "%n" : "%cC";
      tj_ = "%c0";
    }
  }
  // body: views, tiles, scalars, the op chain, the last stores
  for (size_t i = 0; i < p.bufs.size(); ++i) {
    View v;
    v.buf = int(i);
    v.col = p.bufs[i].col_out;
    v.name = partition(tv_[i], v.col, r_.chance(0.2));
    views_.push_back(v);
  }
  alloc_tiles();
  if (p.aliases || p.level3) alias_tiles();
  if (p.et != ET::I32 && (p.et == ET::F16 || p.C >= 16) && r2_.chance(0.6)) {  // 16-bit tiles: 32-byte rows
    cvt_ = "%cvw";
    cvt_t_ = full_t(p.et == ET::F16 ? "f32" : r2_.chance(0.5) ? "bf16" : "f16");
    line(cvt_ + " = pto.alloc_tile " + valid_args(false) + ": " + cvt_t_);
  }
  if (r_.chance(0.5)) make_scalars(true);
  // start with a load or two
  int first = r_.range(1, 2);
  for (int i = 0; i < first; ++i) {
    std::vector<int> ins;
    for (size_t k = 0; k < views_.size(); ++k)
      if (!p.bufs[size_t(views_[k].buf)].output) ins.push_back(int(k));
    load(r_.pick(ins), pick_any(false));
  }
  ops_left_ = r_.range(2, 12);
  for (int guard = 0; ops_left_ > 0 && guard < 200; ++guard) emit_op();
  emit_final_stores();
  for (size_t i = closers.size(); i-- > 0;) {
    ind_.resize(ind_.size() - 2);
    line("}");
  }
  line("return");
  if (p.level3) place_tiles();
  if (p.fused) wrap_fuse();
  std::string body;
  for (auto& [ind, text] : lines_) body += ind + text + "\n";
  p.text = head.str() + body + "  }\n}\n";
}


// ---- inputs ----------------------------------------------------------------------

uint32_t rand_f32_bits(Rng& r) {
  int k = r.range(0, 99);
  if (k < 60) return f2u(float((r.unit() - 0.5) * 8));
  if (k < 66) return f2u(float(r.range(-4, 4)));
  if (k < 70) return r.chance(0.5) ? 0x00000000u : 0x80000000u;                        // +-0
  if (k < 74) return (r.chance(0.5) ? 0x80000000u : 0) | 0x7F800000u;                  // +-Inf
  if (k < 78) return (r.chance(0.5) ? 0x80000000u : 0) | 0x7FC00000u | (r.next() & 0x3FFFFF);  // qNaN
  if (k < 79) return 0x7F800000u | (1 + (r.next() % 0x3FFFFF));                         // sNaN
  if (k < 84) return (r.chance(0.5) ? 0x80000000u : 0) | (1 + (r.next() % 0x7FFFFF));   // subnormal
  if (k < 90) return f2u(float((r.unit() - 0.5) * 2e30));                              // large
  if (k < 95) return f2u(float((r.unit() - 0.5) * 1e-30));                             // tiny normal
  return uint32_t(r.next());                                                            // any bits
}

uint16_t rand_f16_bits(Rng& r) {
  int k = r.range(0, 99);
  if (k < 65) return f2h(float((r.unit() - 0.5) * 8));
  if (k < 70) return r.chance(0.5) ? 0x0000 : 0x8000;
  if (k < 74) return uint16_t((r.chance(0.5) ? 0x8000 : 0) | 0x7C00);
  if (k < 78) return uint16_t((r.chance(0.5) ? 0x8000 : 0) | 0x7E00 | (r.next() & 0x1FF));
  if (k < 84) return uint16_t((r.chance(0.5) ? 0x8000 : 0) | (1 + r.next() % 0x3FF));
  if (k < 90) return f2h(float((r.unit() - 0.5) * 60000));
  return uint16_t(r.next());
}

uint32_t rand_i32(Rng& r) {
  int k = r.range(0, 99);
  if (k < 70) return uint32_t(r.range(-100, 100));
  if (k < 75) return 0x7FFFFFFFu;
  if (k < 80) return 0x80000000u;
  return uint32_t(r.next());
}

}  // namespace opt_rand::detail

namespace opt_rand {

using namespace detail;

void fill_inputs(Program& p, Rng& r) {
  size_t es = et_bytes(p.et);
  for (Buf& b : p.bufs) {
    size_t n = size_t(b.rows + 1) * size_t(b.cols);
    b.data.assign(n * es, 0);
    for (size_t i = 0; i < n; ++i) {
      if (b.output) {  // a sentinel: 0x5A5A... is a plain number in every type
        std::memset(&b.data[i * es], 0x5A, es);
        continue;
      }
      if (p.et == ET::F16) {
        uint16_t h = rand_f16_bits(r);
        std::memcpy(&b.data[i * es], &h, 2);
      } else {
        uint32_t u = p.et == ET::F32 ? rand_f32_bits(r) : rand_i32(r);
        std::memcpy(&b.data[i * es], &u, 4);
      }
    }
  }
}

void generate(uint64_t seed, Program& p, unsigned allowed) { Gen(seed, p, allowed).build(); }

unsigned pattern_bit(const std::string& name) {
  if (name == "aliases") return kAliases;
  if (name == "control") return kControlTiles;
  if (name == "twice") return kTwice;
  if (name == "rank") return kHighRank;
  if (name == "level3") return kLevel3;
  if (name == "scalars") return kScalarMem;
  return 0;
}

}  // namespace opt_rand
