// The ops that make a tile from a tile without touching its data:
// pto.set_validshape, pto.subset and pto.subview. They run in the view
// probe too: its refusal is what keeps native code (which clamps a valid
// shape but takes a subset's offsets as they come) inside its tiles.
#include <algorithm>

#include "exec.h"
#include "opaque_text.h"

namespace ptoas::rt {

namespace {

// The storage layout a tile descriptor addresses: the window's parent, or
// the tile's own type.
const Type& storage_type(const Module& m, const RtTile& t) {
  return m.types.get(t.phys == kNone ? t.type : t.phys);
}

bool plain_row_major(const Type& t) { return t.slayout == SLayout::NoneBox && t.blayout == BLayout::RowMajor; }

}  // namespace

void Exec::exec_tile_view(const Inst& in) {
  switch (in.op) {
    case Op::SetValidShape: {
      RtTile& t = tile_desc(in, in_id(in, 0));
      const Type& ty = m.types.get(t.type);
      int64_t r = opnd(in, 1).i, c = opnd(in, 2).i;
      if (r < 0 || c < 0 || r > ty.rows || c > ty.cols)
        fail(in, "valid shape " + std::to_string(r) + "x" + std::to_string(c) +
                     " exceeds the tile's " + std::to_string(ty.rows) + "x" + std::to_string(ty.cols));
      t.vrow = int32_t(r);
      t.vcol = int32_t(c);
      return;
    }
    case Op::Subset: {
      RtTile t = tile_desc(in, in_id(in, 0));
      const Type& src = m.types.get(t.type);
      if (t.phys != kNone) fail(in, "pto.subset of a pto.subview window is not supported by the interpreter");
      if (!plain_row_major(src)) fail(in, "pto.subset is supported on row-major tiles only");
      int64_t r = opnd(in, 1).i, c = opnd(in, 2).i, re = 0, ce = 0;
      const Type& rt = m.type_of(in.res);
      if (r < 0 || c < 0 || __builtin_add_overflow(r, rt.rows, &re) || __builtin_add_overflow(c, rt.cols, &ce) ||
          re > src.rows || ce > src.cols)
        fail(in, "subset window is outside the tile");
      if (rt.cols != src.cols) fail(in, "pto.subset must keep whole rows to stay addressable");
      t.offset += uint32_t((r * src.cols + c) * dtype_bytes(src.elem));
      t.type = m.values[in.res].type;
      t.vrow = rt.vrow;
      t.vcol = rt.vcol;
      new_tile(in.res) = t;
      return;
    }
    case Op::Subview: {
      // pto.subview %src[r, c] sizes [R, C] (valid [vr, vc])?: the R x C
      // window of src from (r, c), sharing its storage.
      if (in.n_ins < 3 || in.n_res != 1) fail(in, "this form of pto.subview is not supported by the interpreter");
      RtTile t = tile_desc(in, in_id(in, 0));
      const Type& src = m.types.get(t.type);
      const Type& rt = m.type_of(in.res);
      int64_t R = rt.rows, C = rt.cols;
      if (bracket_pair(opaque_body(m, in), "sizes", R, C) && (R != rt.rows || C != rt.cols))
        fail(in, "pto.subview sizes [" + std::to_string(R) + ", " + std::to_string(C) + "] differ from its result's " +
                     std::to_string(rt.rows) + "x" + std::to_string(rt.cols) + " shape");
      if (rt.elem != src.elem) fail(in, "pto.subview changes the element type");
      int64_t r = opnd(in, 1).i, c = opnd(in, 2).i, re = 0, ce = 0;
      if (r < 0 || c < 0 || __builtin_add_overflow(r, R, &re) || __builtin_add_overflow(c, C, &ce) ||
          re > src.rows || ce > src.cols)
        fail(in, "pto.subview window [" + std::to_string(r) + ", " + std::to_string(r) + "+" + std::to_string(R) +
                     ") x [" + std::to_string(c) + ", " + std::to_string(c) + "+" + std::to_string(C) +
                     ") is outside the " + std::to_string(src.rows) + "x" + std::to_string(src.cols) + " tile");
      const Type& st = storage_type(m, t);
      const int64_t pr = t.r0 + r, pc = t.c0 + c;
      const unsigned es = std::max(1u, dtype_bytes(st.elem));
      RtTile out = t;
      out.type = m.values[in.res].type;
      if (pc == 0 && C == st.cols && plain_row_major(st) && plain_row_major(rt)) {
        // Whole rows of a row-major storage: a tile of its own from row pr.
        out.offset += uint32_t(pr * st.cols * es);
        out.phys = kNone;
        out.r0 = out.c0 = 0;
      } else {
        out.phys = t.phys == kNone ? t.type : t.phys;
        out.r0 = int32_t(pr);
        out.c0 = int32_t(pc);
      }
      auto extent = [&](unsigned k, int32_t stat, int64_t size) -> int32_t {
        if (in.n_ins >= 5) return int32_t(std::clamp<int64_t>(opnd(in, 3 + k).i, 0, size));
        return stat < 0 ? int32_t(size) : stat;
      };
      out.vrow = extent(0, rt.vrow, R);
      out.vcol = extent(1, rt.vcol, C);
      new_tile(in.res) = out;
      return;
    }
    default:
      fail(in, "internal: not a tile view op");
  }
}

}  // namespace ptoas::rt
