// target_diff cases: tload / tstore through views of rank 1 to 5 (the official
// GlobalTensor is 5-D). A view of rank n addresses tile element (r, c) at
// c * stride[n-1] plus r split over dimensions 0 .. n-2 in row-major order
// (runtime/interp/ops_memory.cpp). Each kernel loads a rank-n partition of
// one tensor into a tile and stores the tile through a rank-n partition of
// another, so both directions run; the partitions start at non-zero
// offsets, and their strides are packed, padded (a gap after every
// dimension), strided (last stride 2: no vector runs) or transposed (the
// last dimension outermost in memory), in and out in different styles.
// Tiles: ND, DN and the boxed NZ / ZN layouts, f32 / f16 / i8 (and u16,
// i32 for a few); then the official sample's 1x1x16x16x16 f32 view into a
// 256x16 tile, a rank-6 view (refused), and views of static shape.
#include <algorithm>
#include <string>
#include <vector>

#include "target_diff_case.h"

namespace x86diff {

namespace {

enum class Strides { Packed, Padded, Strided, Transposed };
const char* const kStrideName[] = {"packed", "padded", "strided", "transposed"};

struct ViewSpec {
  std::vector<int64_t> size, off, dim, stride;  // partition sizes / offsets, tensor shape / strides
  size_t elems = 0;                             // the tensor's extent in elements
};

// A tensor around a partition of `size` at offsets 1, 0, 1, 0, .. (the
// tensor one larger than the partition in every dimension).
ViewSpec make_spec(const std::vector<int64_t>& size, Strides s) {
  ViewSpec v;
  size_t n = size.size();
  v.size = size;
  for (size_t k = 0; k < n; ++k) {
    v.off.push_back(k % 2 == 0 ? 1 : 0);
    v.dim.push_back(size[k] + 1);
  }
  v.stride.assign(n, 1);
  if (s == Strides::Transposed && n >= 2) {
    // The row dimensions packed among themselves, the column one outermost.
    v.stride[n - 2] = 1;
    for (size_t k = n - 2; k-- > 0;) v.stride[k] = v.stride[k + 1] * v.dim[k + 1];
    v.stride[n - 1] = v.stride[0] * v.dim[0];
  } else {
    v.stride[n - 1] = s == Strides::Strided ? 2 : 1;
    for (size_t k = n - 1; k-- > 0;)
      v.stride[k] = v.stride[k + 1] * v.dim[k + 1] + (s == Strides::Packed ? 0 : int64_t(k % 3 + 1));
  }
  size_t last = 0;
  for (size_t k = 0; k < n; ++k) last += size_t((v.dim[k] - 1) * v.stride[k]);
  v.elems = last + 1;
  return v;
}

std::string join(const std::vector<std::string>& xs) {
  std::string s;
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i];
  return s;
}

// The partition's type: `stat`, its static shape.
std::string part_type(const ViewSpec& v, const std::string& dt, bool stat) {
  std::string q;
  for (int64_t s : v.size) q += (stat ? std::to_string(s) : std::string("?")) + "x";
  return "!pto.partition_tensor_view<" + q + dt + ">";
}

// The make_tensor_view + partition_view of spec v on pointer %p as %<name>p
// (constants %k<N> declared by the caller).
std::string nd_view(const std::string& name, const std::string& p, const ViewSpec& v, const std::string& dt,
                    bool stat) {
  auto consts = [](const std::vector<int64_t>& xs) {
    std::vector<std::string> out;
    for (int64_t x : xs) out.push_back("%k" + std::to_string(x));
    return join(out);
  };
  std::string q;
  for (size_t i = 0; i < v.size.size(); ++i) q += "?x";
  std::string tv = "!pto.tensor_view<" + q + dt + ">", pv = part_type(v, dt, stat);
  return "  %" + name + "v = pto.make_tensor_view %" + p + ", shape = [" + consts(v.dim) + "], strides = [" +
         consts(v.stride) + "] : " + tv + "\n  %" + name + "p = pto.partition_view %" + name + "v, offsets = [" +
         consts(v.off) + "], sizes = [" + consts(v.size) + "] : " + tv + " -> " + pv + "\n";
}

struct Layout {
  const char* name;
  const char* attrs;
};
const Layout kLayouts[] = {{"nd", ", blayout=row_major, slayout=none_box"},
                           {"dn", ", blayout=col_major, slayout=none_box"},
                           {"nz", ", blayout=col_major, slayout=row_major"},
                           {"zn", ", blayout=row_major, slayout=col_major"}};

// tload a rank-n partition of %a (style `in`) into a TRxTC tile, tstore it
// through a partition of %c of the same shape (style `out`).
void add_view_copy(std::vector<Case>& out, const std::string& dt, const Layout& lay, const std::vector<int64_t>& size,
                   Strides in, Strides outs, int TR, int TC, bool stat = false, const char* loc = "mat") {
  DType d = ptoas::parse_dtype(dt);
  ViewSpec a = make_spec(size, in), c = make_spec(size, outs);
  int64_t rows = 1;
  for (size_t k = 0; k + 1 < size.size(); ++k) rows *= size[k];
  int64_t cols = size.back();
  std::vector<int64_t> ks = {rows, cols};
  for (const ViewSpec* v : {&a, &c})
    for (const std::vector<int64_t>* xs : {&v->size, &v->off, &v->dim, &v->stride})
      ks.insert(ks.end(), xs->begin(), xs->end());
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  std::string tile = "!pto.tile_buf<" + std::string(loc) + ", " + std::to_string(TR) + "x" + std::to_string(TC) +
                     "x" + dt + ", valid=?x?" + lay.attrs + ">";
  std::string k = "func.func @k(%a: !pto.ptr<" + dt + ">, %c: !pto.ptr<" + dt + ">) attributes {pto.entry} {\n";
  for (int64_t x : ks) k += "  %k" + std::to_string(x) + " = arith.constant " + std::to_string(x) + " : index\n";
  k += nd_view("a", "a", a, dt, stat) + nd_view("c", "c", c, dt, stat);
  std::string pv = part_type(a, dt, stat);
  k += "  %t = pto.alloc_tile valid_row = %k" + std::to_string(rows) + " valid_col = %k" + std::to_string(cols) +
       " : " + tile + "\n";
  k += "  pto.tload ins(%ap : " + pv + ") outs(%t : " + tile + ")\n";
  k += "  pto.tstore ins(%t : " + tile + ") outs(%cp : " + pv + ")\n  return\n}\n";
  std::string shape;
  for (size_t i = 0; i < size.size(); ++i) shape += (i ? "x" : "") + std::to_string(size[i]);
  std::string name = "view rank " + std::to_string(size.size()) + " " + dt + " " + shape + " " +
                     kStrideName[int(in)] + "->" + lay.name + "->" + kStrideName[int(outs)] + (stat ? " static" : "");
  Case cs;
  cs.name = name;
  cs.text = k;
  cs.bufs.push_back(make_buffer("a", d, a.elems, 0, false));
  cs.bufs.push_back(make_buffer("c", d, c.elems + 16, 0, true));
  cs.params = {Param{0, {}}, Param{1, {}}};
  out.push_back(std::move(cs));
}

}  // namespace

void view_cases(std::vector<Case>& out) {
  // Row dimensions (all but the last) per rank; the last is the columns.
  const std::vector<std::vector<int64_t>> rows_of[5] = {
      {{}},
      {{5}, {32}},
      {{2, 5}, {3, 1}, {1, 7}},
      {{2, 2, 3}, {1, 3, 2}, {3, 1, 1}},
      {{2, 1, 2, 3}, {1, 1, 2, 7}, {1, 2, 1, 1}}};
  const int64_t cols_of[] = {1, 7, 16, 33, 64};
  unsigned pick = 0;
  for (int rank = 1; rank <= 5; ++rank)
    for (const char* dt : {"f32", "f16", "i8"})
      for (const Layout& lay : kLayouts)
        for (int st = 0; st < 4; ++st) {
          const std::vector<std::vector<int64_t>>& rs = rows_of[rank - 1];
          std::vector<int64_t> size = rs[pick % rs.size()];
          size.push_back(cols_of[pick % 5]);
          ++pick;
          add_view_copy(out, dt, lay, size, Strides(st), Strides((st + 1 + rank) % 4), 32, 64);
        }
  // Other element sizes' runs (u16, i32) through rank-4 and rank-3 views.
  for (const Layout& lay : kLayouts) {
    add_view_copy(out, "u16", lay, {2, 3, 2, 21}, Strides::Padded, Strides::Packed, 32, 64);
    add_view_copy(out, "i32", lay, {4, 5, 64}, Strides::Packed, Strides::Transposed, 32, 64);
  }
  // The official sample (tests/samples/Partition5D): a 1x1x16x16x16 f32
  // partition into a 256x16 tile, and the same boxed.
  add_view_copy(out, "f32", kLayouts[0], {1, 1, 16, 16, 16}, Strides::Packed, Strides::Packed, 256, 16);
  add_view_copy(out, "f32", kLayouts[2], {1, 1, 16, 16, 16}, Strides::Padded, Strides::Packed, 256, 16);
  add_view_copy(out, "f32", kLayouts[0], {1, 1, 16, 16, 16}, Strides::Packed, Strides::Padded, 256, 16, false, "vec");
  // Rank 6 is refused with a message that says so (the interpreter runs it).
  add_view_copy(out, "f32", kLayouts[0], {1, 2, 1, 2, 2, 9}, Strides::Packed, Strides::Padded, 32, 64);
  out.back().expect_refused = true;
  out.back().refuse_word = "pto.tload from a view of rank 6";
  // Static partition shapes in the types.
  for (int rank = 1; rank <= 5; ++rank) {
    std::vector<int64_t> size(size_t(rank - 1), 2);
    size.push_back(9);
    add_view_copy(out, "f32", kLayouts[rank % 2], size, Strides::Padded, Strides::Packed, 32, 64, true);
  }
}

}  // namespace x86diff
