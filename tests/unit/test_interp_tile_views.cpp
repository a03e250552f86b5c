// Interpreter: tiles made from tiles without a copy (pto.subview windows
// and runs of whole rows) and element access (pto.tsetval / pto.tgetval),
// against hand-computed values.
#include <catch2/catch.hpp>

#include "interp_harness.h"

namespace {

std::vector<float> iota_f(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[size_t(i)] = float(i);
  return v;
}

// Loads a rows x cols f32 parent of type P (0, 1, 2, ... row-major), adds
// 1000 through `%s = pto.subview %a[r, c] sizes [R, C] : P -> S`, stores the
// whole parent; returns it.
std::vector<float> add_through_subview(const std::string& P, int rows, int cols, const std::string& S, int r,
                                       int c, int R, int C, int vr = -1, int vc = -1) {
  ih::Kernel k;
  int a = k.buf(iota_f(rows * cols)), o = k.buf(std::vector<float>(size_t(rows * cols)));
  k.load("%a", P, a, rows, cols);
  std::string valid = vr < 0 ? "" : " valid [" + k.c(vr) + ", " + k.c(vc) + "]";
  k.op("%s = pto.subview %a[" + k.c(r) + ", " + k.c(c) + "] sizes [" + std::to_string(R) + ", " +
       std::to_string(C) + "]" + valid + " : " + P + " -> " + S);
  k.scalar("%k", "f32", "1000.0");
  k.op("pto.tadds ins(%s, %k : " + S + ", f32) outs(%s : " + S + ")");
  k.store("%a", P, o, rows, cols);
  IH_RUN(k);
  return k.get<float>(o);
}

}  // namespace

TEST_CASE("interp subview of whole rows writes its parent's rows", "[interp]") {
  auto out = add_through_subview(ih::tile("vec", 4, 8, "f32"), 4, 8, ih::tile("vec", 2, 8, "f32"), 1, 0, 2, 8);
  for (int i = 0; i < 32; ++i) CHECK(out[size_t(i)] == float(i) + (i >= 8 && i < 24 ? 1000.f : 0.f));
}

TEST_CASE("interp subview window keeps its parent's row stride", "[interp]") {
  // Rows 1..2, columns 4..11 of a 4x16 tile.
  auto out = add_through_subview(ih::tile("vec", 4, 16, "f32"), 4, 16, ih::tile("vec", 2, 8, "f32"), 1, 4, 2, 8);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 16; ++c) {
      bool in = r >= 1 && r < 3 && c >= 4 && c < 12;
      CHECK(out[size_t(r * 16 + c)] == float(r * 16 + c) + (in ? 1000.f : 0.f));
    }
}

TEST_CASE("interp subview window of a column-major tile", "[interp]") {
  std::string P = ih::tile("vec", 16, 8, "f32", "blayout=col_major");
  std::string S = ih::tile("vec", 4, 2, "f32", "blayout=col_major");
  auto out = add_through_subview(P, 16, 8, S, 3, 5, 4, 2);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c) {
      bool in = r >= 3 && r < 7 && c >= 5 && c < 7;
      CHECK(out[size_t(r * 8 + c)] == float(r * 8 + c) + (in ? 1000.f : 0.f));
    }
}

TEST_CASE("interp subview's explicit valid extents narrow what its ops touch", "[interp]") {
  auto out = add_through_subview(ih::tile("vec", 4, 16, "f32"), 4, 16, ih::tile("vec", 2, 8, "f32", "valid=1x3"),
                                 1, 4, 2, 8, 1, 3);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 16; ++c) {
      bool in = r == 1 && c >= 4 && c < 7;
      CHECK(out[size_t(r * 16 + c)] == float(r * 16 + c) + (in ? 1000.f : 0.f));
    }
}

TEST_CASE("interp subview of a subview composes the windows", "[interp]") {
  ih::Kernel k;
  std::string P = ih::tile("vec", 8, 16, "f32"), S1 = ih::tile("vec", 4, 8, "f32"), S2 = ih::tile("vec", 2, 4, "f32");
  int a = k.buf(iota_f(128)), o = k.buf(std::vector<float>(128));
  k.load("%a", P, a, 8, 16);
  k.op("%s1 = pto.subview %a[" + k.c(2) + ", " + k.c(4) + "] sizes [4, 8] : " + P + " -> " + S1);
  k.op("%s2 = pto.subview %s1[" + k.c(1) + ", " + k.c(2) + "] sizes [2, 4] : " + S1 + " -> " + S2);
  k.scalar("%k", "f32", "1000.0");
  k.op("pto.tadds ins(%s2, %k : " + S2 + ", f32) outs(%s2 : " + S2 + ")");
  k.store("%a", P, o, 8, 16);
  IH_RUN(k);
  auto out = k.get<float>(o);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 16; ++c) {
      bool in = r >= 3 && r < 5 && c >= 6 && c < 10;
      CHECK(out[size_t(r * 16 + c)] == float(r * 16 + c) + (in ? 1000.f : 0.f));
    }
}

TEST_CASE("interp tload into a subview window pads and fills only the window", "[interp]") {
  ih::Kernel k;
  std::string P = ih::tile("vec", 4, 16, "f32"), S = ih::tile("vec", 2, 8, "f32", "valid=1x3, pad=1");
  int a = k.buf(iota_f(64)), src = k.buf(std::vector<float>{-1, -2, -3}), o = k.buf(std::vector<float>(64));
  k.load("%a", P, a, 4, 16);
  k.op("%s = pto.subview %a[" + k.c(2) + ", " + k.c(8) + "] sizes [2, 8] valid [" + k.c(1) + ", " + k.c(3) +
       "] : " + P + " -> " + S);
  k.load_into("%s", S, src, 1, 3);
  k.store("%a", P, o, 4, 16);
  IH_RUN(k);
  auto out = k.get<float>(o);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 16; ++c) {
      float want = float(r * 16 + c);
      if (r == 2 && c >= 8 && c < 11) want = -float(c - 7);
      else if (r >= 2 && c >= 8) want = 0;  // pad=1 (zero) inside the window
      CHECK(out[size_t(r * 16 + c)] == want);
    }
}

TEST_CASE("interp subview outside its parent is a located error", "[interp]") {
  ih::Kernel k;
  std::string P = ih::tile("vec", 4, 16, "f32"), S = ih::tile("vec", 2, 8, "f32");
  int a = k.buf(iota_f(64));
  k.load("%a", P, a, 4, 16);
  k.op("%s = pto.subview %a[" + k.c(3) + ", " + k.c(0) + "] sizes [2, 8] : " + P + " -> " + S);
  REQUIRE_FALSE(k.run());
  CHECK(k.err.find("outside the 4x16 tile") != std::string::npos);
}

TEST_CASE("interp tsetval and tgetval address the tile's storage order", "[interp]") {
  ih::Kernel k;
  std::string R = ih::tile("vec", 2, 8, "i32"), C = ih::tile("vec", 8, 2, "i32", "blayout=col_major");
  int o = k.buf(std::vector<int32_t>(16), "i32"), o2 = k.buf(std::vector<int32_t>(16), "i32");
  k.alloc("%r", R);
  k.alloc("%cm", C);
  k.scalar("%z", "i32", "0");
  k.op("pto.texpands ins(%z : i32) outs(%r : " + R + ")");
  k.op("pto.texpands ins(%z : i32) outs(%cm : " + C + ")");
  k.scalar("%v", "i32", "77");
  k.op("pto.tsetval ins(" + k.c(9) + ", %v : index, i32) outs(%r : " + R + ")");
  k.op("pto.tsetval ins(" + k.c(9) + ", %v : index, i32) outs(%cm : " + C + ")");
  // Read back through tgetval and write one past it: element 10.
  k.op("%g = pto.tgetval ins(%r, " + k.c(9) + " : " + R + ", index) outs : i32");
  k.scalar("%one", "i32", "1");
  k.op("%g1 = arith.addi %g, %one : i32");
  k.op("pto.tsetval ins(" + k.c(10) + ", %g1 : index, i32) outs(%r : " + R + ")");
  k.store("%r", R, o, 2, 8);
  k.store("%cm", C, o2, 8, 2);
  IH_RUN(k);
  auto out = k.get<int32_t>(o), out2 = k.get<int32_t>(o2);
  for (int i = 0; i < 16; ++i) CHECK(out[size_t(i)] == (i == 9 ? 77 : i == 10 ? 78 : 0));
  // Column-major 8x2: storage element 9 is (1, 1), row-major position 3.
  for (int i = 0; i < 16; ++i) CHECK(out2[size_t(i)] == (i == 3 ? 77 : 0));
}

TEST_CASE("interp tgetval outside the tile is a located error", "[interp]") {
  ih::Kernel k;
  std::string R = ih::tile("vec", 2, 8, "i32");
  int o = k.buf(std::vector<int32_t>(16), "i32");
  k.alloc("%r", R);
  k.op("%g = pto.tgetval ins(%r, " + k.c(16) + " : " + R + ", index) outs : i32");
  k.store("%r", R, o, 2, 8);
  REQUIRE_FALSE(k.run());
  CHECK(k.err.find("element 16 is outside the 2x8 tile") != std::string::npos);
}
