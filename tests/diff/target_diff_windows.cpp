// target_diff cases for two forms the PyPTO model kernels use that the
// elementwise generators never wrote: tgather's index form and pto.subview
// windows that are not runs of whole rows.
//
// tgather: the indices come from random input masked into [-n/4, 2^k -
// n/4) for a source of n elements (2^k >= 2n), so in-range, negative and
// past-the-end indices all occur, in every shape class for the dst.
//
// Windows: a 16 x 64 tile loaded whole, then windows of it (columns at the
// left and right edges, a ragged one in the middle, one element, a window
// of a window, a row of a window) scaled in place by the scalar, and the
// whole parent stored, so an element written through a window at the
// wrong place, or not written back, shows. The CPU targets keep such a
// window as a copy refreshed around each op (encoders/cpu_lowering.h).
#include <string>
#include <vector>

#include "target_diff_case.h"

namespace x86diff {

using namespace ptoas;

namespace {

std::string n(int64_t v) { return std::to_string(v); }

std::string idx_const(const std::string& name, int64_t v) { return "  %" + name + " = arith.constant " + n(v) + " : index\n"; }

// tgather ins(src, idx, tmp) outs(dst): src SR x SC of dt (row-major, whole),
// idx / dst the shape class s (valid s.vr x s.vc), i32 or ui32 indices.
void add_gather(std::vector<Case>& out, const std::string& dt, int SR, int SC, const Shape& s, bool unsigned_idx) {
  DType d = parse_dtype(dt);
  const std::string it = unsigned_idx ? "ui32" : "i32";
  const int64_t elems = int64_t(SR) * SC;
  int64_t span = 1;
  while (span < 2 * elems) span *= 2;
  const int64_t bias = unsigned_idx ? 0 : elems / 4;
  const std::string src = tile_ty(SR, SC, dt, false, (n(SR) + "x" + n(SC)).c_str());
  const std::string itile = tile_ty(s.rows, s.cols, it, false), dtile = tile_ty(s.rows, s.cols, dt, false);
  std::string k = "func.func @k(%a: !pto.ptr<" + dt + ">, %b: !pto.ptr<" + it + ">, %c: !pto.ptr<" + dt +
                  ">) attributes {pto.entry} {\n";
  k += idx_const("c0", 0) + idx_const("c1", 1) + idx_const("R", s.vr) + idx_const("C", s.vc) +
       idx_const("ld", s.cols + 3) + idx_const("SR", SR) + idx_const("SC", SC);
  k += view("a", "a", "%SR, %SC", "%SC, %c1", dt) + view("b", "b", "%R, %C", "%ld, %c1", it) +
       view("c", "c", "%R, %C", "%ld, %c1", dt);
  k += "  %ts = pto.alloc_tile : " + src + "\n";
  k += "  pto.tload ins(%ap : !pto.partition_tensor_view<?x?x" + dt + ">) outs(%ts : " + src + ")\n";
  k += load("b", "ti", itile, it, "%R", "%C") + load("c", "td", dtile, dt, "%R", "%C");
  k += "  %tt = pto.alloc_tile valid_row = %R valid_col = %C : " + itile + "\n";
  k += "  %m = arith.constant " + n(span - 1) + " : " + it + "\n";
  k += "  pto.tands ins(%ti, %m : " + itile + ", " + it + ") outs(%ti : " + itile + ")\n";
  if (bias) {
    k += "  %bias = arith.constant " + n(bias) + " : " + it + "\n";
    k += "  pto.tsubs ins(%ti, %bias : " + itile + ", " + it + ") outs(%ti : " + itile + ")\n";
  }
  k += "  pto.tgather ins(%ts, %ti, %tt : " + src + ", " + itile + ", " + itile + ") outs(%td : " + dtile + ")\n";
  k += "  pto.tstore ins(%td : " + dtile + ") outs(%cp : !pto.partition_tensor_view<?x?x" + dt + ">)\n  return\n}\n";
  Case c;
  c.name = "tgather " + dt + " from " + n(SR) + "x" + n(SC) + " " + it + " " + s.name;
  c.text = k;
  const size_t cn = size_t(s.cols + 3) * size_t(s.vr);
  c.bufs.push_back(make_buffer("a", d, size_t(elems), size_t(SC), false));
  c.bufs.push_back(make_buffer("b", unsigned_idx ? DType::U32 : DType::I32, cn, size_t(s.cols + 3), false));
  c.bufs.push_back(make_buffer("c", d, cn, size_t(s.cols + 3), true));
  for (int i = 0; i < 3; ++i) c.params.push_back(Param{i, {}});
  out.push_back(std::move(c));
}

struct Win {
  int r, c, rows, cols;
};

// A 16 x 64 tile of dt; each window w: tmuls by %s in place (its `inner`
// window, if any, scaled again), the whole tile stored.
void add_windows(std::vector<Case>& out, const std::string& dt, const std::vector<Win>& ws, const Win* inner,
                 const std::string& what) {
  DType d = parse_dtype(dt);
  const int PR = 16, PC = 64;
  const std::string pt = "!pto.tile_buf<vec, 16x64x" + dt + ">";
  std::string k = "func.func @k(%a: !pto.ptr<" + dt + ">, %b: !pto.ptr<" + dt + ">, %c: !pto.ptr<" + dt +
                  ">, %s: " + dt + ") attributes {pto.entry} {\n";
  k += idx_const("c0", 0) + idx_const("c1", 1) + idx_const("PR", PR) + idx_const("PC", PC) + idx_const("ld", PC + 3);
  k += view("a", "a", "%PR, %PC", "%ld, %c1", dt) + view("c", "c", "%PR, %PC", "%ld, %c1", dt);
  k += "  %t = pto.alloc_tile : " + pt + "\n";
  k += "  pto.tload ins(%ap : !pto.partition_tensor_view<?x?x" + dt + ">) outs(%t : " + pt + ")\n";
  int id = 0;
  auto window = [&](const std::string& parent, const std::string& ptype, const Win& w) {
    std::string name = "w" + n(id++);
    std::string wt = "!pto.tile_buf<vec, " + n(w.rows) + "x" + n(w.cols) + "x" + dt + ">";
    k += idx_const(name + "r", w.r) + idx_const(name + "c", w.c);
    k += "  %" + name + " = pto.subview %" + parent + "[%" + name + "r, %" + name + "c] sizes [" + n(w.rows) + ", " +
         n(w.cols) + "] : " + ptype + " -> " + wt + "\n";
    k += "  pto.tmuls ins(%" + name + ", %s : " + wt + ", " + dt + ") outs(%" + name + " : " + wt + ")\n";
    return std::pair{name, wt};
  };
  for (const Win& w : ws) {
    auto [name, wt] = window("t", pt, w);
    if (inner) window(name, wt, *inner);
  }
  k += "  pto.tstore ins(%t : " + pt + ") outs(%cp : !pto.partition_tensor_view<?x?x" + dt + ">)\n  return\n}\n";
  const size_t cn = size_t(PC + 3) * PR;
  const uint64_t two = d == DType::F32 ? 0x40000000u : d == DType::F16 ? 0x4000u : 3u;  // 2.0 or 3
  Case c = abc_case("subview window " + dt + " " + what, k, d, d, cn, size_t(PC + 3), d, two);
  out.push_back(std::move(c));
}

}  // namespace

void subview_gather_cases(std::vector<Case>& out) {
  for (const Shape& s : shapes()) {
    add_gather(out, "f32", 16, 32, s, false);
    add_gather(out, "i32", 3, 8, s, s.rows % 2 == 0);
  }
  add_gather(out, "f32", 1, 1024, shapes()[0], false);
  const std::vector<Win> edges = {{0, 0, 16, 24}, {0, 40, 16, 24}};
  const std::vector<Win> odd = {{3, 5, 7, 13}, {15, 63, 1, 1}, {0, 31, 16, 2}};
  const Win inner{1, 2, 3, 5}, one_row{4, 0, 1, 16};
  for (const char* dt : {"f32", "f16", "i16", "i32"}) {
    add_windows(out, dt, edges, nullptr, "edges");
    add_windows(out, dt, odd, nullptr, "odd");
    add_windows(out, dt, {{2, 8, 12, 40}}, &inner, "nested");
    add_windows(out, dt, {{0, 16, 16, 16}}, &one_row, "row of a window");
  }
}

}  // namespace x86diff
