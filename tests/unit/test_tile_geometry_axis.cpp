// encoders/tile_geometry.h AxisMap: a tile's element offset is a row part plus a
// column part, for every layout the encoders address through it (checked
// against the interpreter's tile_elem_index at every element).
#include <catch2/catch.hpp>

#include <string>

#include "frontend.h"
#include "ir.h"
#include "tile_geometry.h"
#include "tile_layout.h"

using namespace ptoas;

TEST_CASE("AxisMap row part + column part is the interpreter's element offset", "[lower]") {
  const char* const tiles[] = {
      "!pto.tile_buf<vec, 16x24xf32>",
      "!pto.tile_buf<vec, 16x24xf16, blayout=col_major>",
      "!pto.tile_buf<vec, 1x40xi8>",
      "!pto.tile_buf<mat, 32x80xf32, blayout=row_major, slayout=col_major>",
      "!pto.tile_buf<mat, 64x32xi8, blayout=col_major, slayout=row_major>",
      "!pto.tile_buf<left, 32x32xbf16, blayout=col_major, slayout=row_major>",
      "!pto.tile_buf<right, 32x64xbf16, blayout=row_major, slayout=col_major>",
      "!pto.tile_buf<acc, 32x64xf32, blayout=col_major, slayout=row_major, fractal=1024>",
  };
  for (const char* tt : tiles) {
    std::string text = std::string("module attributes {pto.target_arch = \"a5\"} {\n  func.func @k() {\n    %t = pto.alloc_tile : ") +
                       tt + "\n    return\n  }\n}\n";
    SourceFile src("axis.pto", text);
    Diag diag(&src);
    Module m;
    FrontendOptions opts;
    REQUIRE(run_frontend(src, opts, m, diag, nullptr));
    const Type* t = nullptr;
    for (const Inst& in : m.insts)
      if (in.op == Op::AllocTile) t = &m.type_of(in.res);
    REQUIRE(t);
    cg::AxisMap rows, cols;
    INFO(tt);
    REQUIRE(cg::axis_map(*t, true, rows));
    REQUIRE(cg::axis_map(*t, false, cols));
    int64_t es = dtype_bytes(t->elem);
    int bad = 0;
    for (int64_t r = 0; r < t->rows; ++r)
      for (int64_t c = 0; c < t->cols; ++c)
        bad += rows.at(r) + cols.at(c) != tile_elem_index(*t, r, c) * es;
    CHECK(bad == 0);
  }
}
