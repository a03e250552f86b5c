// A small builder for interpreter tests: declares GM buffers, loads them into
// tiles, runs ops written as DPS text, stores tiles back and runs the kernel
// through the front end and ptoas::rt::Interpreter::run_block.
//
//   ih::Kernel k;
//   std::string T = ih::tile("vec", 2, 8, "f32");
//   int a = k.buf(std::vector<float>{...}), o = k.buf(std::vector<float>(16));
//   k.load("%a", T, a, 2, 8);
//   k.alloc("%d", T);
//   k.op("pto.texp ins(%a : " + T + ") outs(%d : " + T + ")");
//   k.store("%d", T, o, 2, 8);
//   REQUIRE(k.run());
//   auto out = k.get<float>(o);
//
// Loads and stores move a rows x cols window (the tile's valid region at that
// moment) between a row-major GM buffer and the tile. `init_full` fills a
// dynamic-valid tile completely and then narrows its valid region, so a test
// can check what an op leaves outside the region (`store_full` reads the
// whole tile back).
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "diag.h"
#include "frontend.h"
#include "interp.h"
#include "ir.h"

namespace ih {

// A tile type in the compact spelling: tile("vec", 4, 8, "f32", "valid=?x?").
inline std::string tile(const std::string& loc, int rows, int cols, const std::string& dt,
                        const std::string& extra = "") {
  return "!pto.tile_buf<" + loc + ", " + std::to_string(rows) + "x" + std::to_string(cols) + "x" +
         dt + (extra.empty() ? "" : ", " + extra) + ">";
}

inline uint32_t fbits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bitsf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Hex literal of a float for arith.constant (exact bit pattern).
inline std::string hexf(float f) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%08X", fbits(f));
  return b;
}
inline std::string hex16(uint16_t h) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%04X", unsigned(h));
  return b;
}

struct Kernel {
  std::string arch = "a3";
  bool level3 = false;  // --pto-level=level3: alloc_tile addr = ...
  std::vector<std::vector<uint8_t>> bufs;
  std::vector<std::string> elem;  // per buffer: the pointer element type
  std::string body;
  std::map<long long, bool> consts;
  int uniq = 0;
  std::string diags, err;

  template <class T>
  int buf(const std::vector<T>& data, const std::string& dt) {
    std::vector<uint8_t> b(data.size() * sizeof(T));
    if (!data.empty()) std::memcpy(b.data(), data.data(), b.size());
    bufs.push_back(std::move(b));
    elem.push_back(dt);
    return int(bufs.size()) - 1;
  }
  int buf(const std::vector<float>& d) { return buf(d, "f32"); }

  std::string c(long long v) {
    consts[v] = true;
    return v < 0 ? "%icm" + std::to_string(-v) : "%ic" + std::to_string(v);
  }

  void line(const std::string& s) { body += "    " + s + "\n"; }
  void op(const std::string& s) { line(s); }

  // %name = arith.constant <lit> : <type>
  void scalar(const std::string& name, const std::string& type, const std::string& lit) {
    line(name + " = arith.constant " + lit + " : " + type);
  }

  std::string view(int b, int rows, int cols, int ld) {
    std::string p = "%p" + std::to_string(b);
    std::string n = std::to_string(++uniq);
    const std::string& dt = elem[size_t(b)];
    line("%tv" + n + " = pto.make_tensor_view " + p + ", shape = [" + c(rows) + ", " + c(cols) +
         "], strides = [" + c(ld) + ", " + c(1) + "] : !pto.tensor_view<?x?x" + dt + ">");
    line("%pv" + n + " = pto.partition_view %tv" + n + ", offsets = [" + c(0) + ", " + c(0) +
         "], sizes = [" + c(rows) + ", " + c(cols) + "] : !pto.tensor_view<?x?x" + dt +
         "> -> !pto.partition_tensor_view<" + std::to_string(rows) + "x" + std::to_string(cols) +
         "x" + dt + ">");
    return "%pv" + n;
  }
  std::string pview_type(int b, int rows, int cols) {
    return "!pto.partition_tensor_view<" + std::to_string(rows) + "x" + std::to_string(cols) + "x" +
           elem[size_t(b)] + ">";
  }

  // alloc_tile; vr/vc >= 0 become valid_row/valid_col operands (for ?x? types).
  void alloc(const std::string& name, const std::string& ty, int vr = -1, int vc = -1) {
    std::string ops;
    if (vr >= 0) ops += " valid_row = " + c(vr);
    if (vc >= 0) ops += " valid_col = " + c(vc);
    line(name + " = pto.alloc_tile" + ops + " : " + ty);
  }
  void set_valid(const std::string& name, const std::string& ty, int vr, int vc) {
    line("pto.set_validshape " + name + ", " + c(vr) + ", " + c(vc) + " : " + ty);
  }

  // Allocates `name` and loads rows x cols of buffer b (row stride ld).
  void load(const std::string& name, const std::string& ty, int b, int rows, int cols,
            bool dynamic = false, int ld = -1) {
    if (dynamic) alloc(name, ty, rows, cols);
    else alloc(name, ty);
    load_into(name, ty, b, rows, cols, ld);
  }
  void load_into(const std::string& name, const std::string& ty, int b, int rows, int cols,
                 int ld = -1) {
    std::string v = view(b, rows, cols, ld < 0 ? cols : ld);
    line("pto.tload ins(" + v + " : " + pview_type(b, rows, cols) + ") outs(" + name + " : " + ty +
         ")");
  }
  void store(const std::string& name, const std::string& ty, int b, int rows, int cols,
             int ld = -1) {
    std::string v = view(b, rows, cols, ld < 0 ? cols : ld);
    line("pto.tstore ins(" + name + " : " + ty + ") outs(" + v + " : " +
         pview_type(b, rows, cols) + ")");
  }
  // For a valid=?x? tile: allocate R x C valid, load all of buffer b, then
  // narrow the valid region to vr x vc.
  void init_full(const std::string& name, const std::string& ty, int b, int R, int C, int vr,
                 int vc) {
    alloc(name, ty, R, C);
    load_into(name, ty, b, R, C);
    set_valid(name, ty, vr, vc);
  }
  // Widens a valid=?x? tile back to R x C and stores all of it to buffer b.
  void store_full(const std::string& name, const std::string& ty, int b, int R, int C) {
    set_valid(name, ty, R, C);
    store(name, ty, b, R, C);
  }

  std::string text() const {
    std::string params;
    for (size_t i = 0; i < bufs.size(); ++i) {
      if (i) params += ", ";
      params += "%p" + std::to_string(i) + ": !pto.ptr<" + elem[i] + ">";
    }
    std::string pre;
    for (auto& kv : consts) {
      long long v = kv.first;
      pre += "    " + std::string(v < 0 ? "%icm" + std::to_string(-v) : "%ic" + std::to_string(v)) +
             " = arith.constant " + std::to_string(v) + " : index\n";
    }
    return "module attributes {pto.target_arch = \"" + arch + "\"} {\n  func.func @k(" + params +
           ") attributes {pto.entry} {\n" + pre + body + "    return\n  }\n}\n";
  }

  // Front end + one block. False with diags/err set on failure.
  bool run() {
    std::string t = text();
    ptoas::SourceFile src("t.pto", t);
    ptoas::Diag d(&src);
    ptoas::Module m;
    ptoas::FrontendOptions o;
    if (level3) o.level = ptoas::Level::Level3;
    if (!ptoas::run_frontend(src, o, m, d)) {
      diags = d.text();
      err = "front end failed:\n" + diags + "\n" + t;
      return false;
    }
    ptoas::rt::Interpreter in(m);
    ptoas::InstId fn = in.find_function("", err);
    if (fn == ptoas::kNone) return false;
    std::vector<ptoas::rt::Arg> args;
    for (auto& b : bufs) {
      ptoas::rt::Arg a;
      a.kind = ptoas::rt::Arg::Kind::Ptr;
      a.data = b.data();
      a.bytes = b.size();
      args.push_back(a);
    }
    return in.run_block(fn, args, 0, 1, err);
  }

  template <class T>
  std::vector<T> get(int b) const {
    const std::vector<uint8_t>& x = bufs[size_t(b)];
    std::vector<T> out(x.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), x.data(), out.size() * sizeof(T));
    return out;
  }
};

// Runs k and requires success, printing the kernel and error otherwise.
#define IH_RUN(k)                                  \
  do {                                             \
    bool ih_ok_ = (k).run();                       \
    INFO((k).err << "\n" << (k).text());           \
    REQUIRE(ih_ok_);                               \
  } while (0)

// Runs k and requires a runtime error containing `substr`.
#define IH_FAILS(k, substr)                                   \
  do {                                                        \
    bool ih_ok_ = (k).run();                                  \
    INFO((k).err << "\n" << (k).text());                      \
    REQUIRE_FALSE(ih_ok_);                                    \
    CHECK((k).err.find(substr) != std::string::npos);         \
    CHECK((k).err.find("front end failed") == std::string::npos); \
  } while (0)

// Bitwise float equality (distinguishes -0 / +0, any NaN equals any NaN).
inline bool same(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return fbits(a) == fbits(b);
}

inline size_t dt_size(const std::string& dt) {
  if (dt == "f32" || dt == "i32" || dt == "ui32") return 4;
  if (dt == "f16" || dt == "bf16" || dt == "i16" || dt == "ui16") return 2;
  if (dt == "i64" || dt == "ui64") return 8;
  return 1;
}

// One op on R x C vec tiles: every source is loaded from `srcs` (type dt),
// then `OP ins(%s0, %s1, ... [, extra] [attrs] : T, ... [, extra types])
// outs(%d : D)` runs and dst (R x C of dst_dt) is returned as O values.
struct OpSpec {
  std::string op, dt = "f32", dst_dt, attrs, extra_ins, extra_types, arch = "a3";
  int R = 1, C = 8;
  std::vector<std::string> lines;  // emitted before the op (scalar constants ...)
};

template <class O, class E>
std::vector<O> run_op(const OpSpec& s, const std::vector<std::vector<E>>& srcs,
                      std::string* err = nullptr) {
  Kernel k;
  k.arch = s.arch;
  std::string T = tile("vec", s.R, s.C, s.dt);
  std::string ddt = s.dst_dt.empty() ? s.dt : s.dst_dt;
  std::string D = tile("vec", s.R, s.C, ddt);
  std::vector<int> ids;
  for (auto& v : srcs) ids.push_back(k.buf(v, s.dt));
  int o = k.buf(std::vector<uint8_t>(size_t(s.R * s.C) * dt_size(ddt)), ddt);
  std::string names, types;
  for (size_t i = 0; i < ids.size(); ++i) {
    std::string n = "%s" + std::to_string(i);
    k.load(n, T, ids[i], s.R, s.C);
    names += (i ? ", " : "") + n;
    types += (i ? ", " : "") + T;
  }
  if (!s.extra_ins.empty()) {
    names += (names.empty() ? "" : ", ") + s.extra_ins;
    types += (types.empty() ? "" : ", ") + s.extra_types;
  }
  for (auto& l : s.lines) k.line(l);
  k.alloc("%d", D);
  k.op(s.op + " ins(" + names + (s.attrs.empty() ? "" : " " + s.attrs) + " : " + types +
       ") outs(%d : " + D + ")");
  k.store("%d", D, o, s.R, s.C);
  bool ok = k.run();
  if (err) {
    *err = k.err;
  } else {
    INFO(k.err << "\n" << k.text());
    REQUIRE(ok);
  }
  if (!ok) return {};
  return k.get<O>(o);
}

}  // namespace ih
