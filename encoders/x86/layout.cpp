// x86-64 code generation: 2-D copies between any two layouts (tload /
// tstore of boxed tiles, tmov), with vector moves wherever both sides hold
// a run of elements contiguously.
//
// An element's address on either side is a row part plus a column part:
// for a tile, tile_elem_index splits that way in every layout (the parts
// come from per-row and per-column offset tables built in scratch below
// rsp); for a rank-2 view, r * row stride + c * column stride; for a view
// of any other rank, c * its last stride plus a row part from a table of
// row offsets (r split over the other dimensions in row-major order, the
// interpreter's mapping, built by an odometer). A run is
// `L` consecutive columns starting at a multiple of L (or rows, for
// column-major storage) that are adjacent in memory on both sides: an NZ
// tile's inner box rows, a view's rows when its column stride is 1. Runs
// move as one xmm / ymm / zmm; what is left of a line, and layouts with
// no common run, move element by element through the same tables (no
// per-element index arithmetic).
#include "tile_layout.h"
#include "gen.h"

namespace ptoas::cg::x86::gen {

// Elements j .. j + l - 1 along a row (j a multiple of l) are adjacent in
// memory; `down`: along a column.
bool tile_runs(const ptoas::Type& t, int64_t l, bool down) {
  BLayout major = down ? BLayout::ColMajor : BLayout::RowMajor;
  if (t.slayout == SLayout::NoneBox) return t.blayout == major || (down ? t.cols : t.rows) == 1;
  if (t.slayout != (down ? SLayout::ColMajor : SLayout::RowMajor)) return false;
  int64_t ir, ic;
  tile_inner_box(t, ir, ic);
  return (down ? ir : ic) % l == 0;
}

// tile_runs for a copy side: a boxed tile indexed from an offset along the
// run has none (j + offset is not a multiple of l in general).
namespace {
bool side_runs(const ptoas::Type& t, ValueId start_along, int64_t l, bool down) {
  if (start_along != kNone && t.slayout != SLayout::NoneBox) return false;
  return tile_runs(t, l, down);
}
}  // namespace

bool same_layout(const ptoas::Type& x, const ptoas::Type& y) {
  return x.rows == y.rows && x.cols == y.cols && dtype_bytes(x.elem) == dtype_bytes(y.elem) &&
         x.blayout == y.blayout && x.slayout == y.slayout && x.fractal == y.fractal;
}

// The widest vector (bytes: 64 with avx512, 32, 16; 0: none) whose
// elements form runs on every tile side along the given axis.
int Gen::run_bytes(const CopySide (&side)[2], unsigned es, bool down) const {
  for (int vb : {64, 32, 16}) {
    if (vb == 64 && !z()) continue;
    if (vb % int(es)) continue;
    bool ok = true;
    for (const CopySide& s : side)
      if (!s.view) ok &= side_runs(ty(s.v), down ? s.row0 : s.col0, vb / es, down);
    if (ok) return vb;
  }
  return 0;
}

// Scratch below rsp, every page touched top down (as the prologue's probe).
void Gen::stack_scratch(uint32_t bytes) {
  Label probe, probed;
  mov(rax, rsp);
  sub(rsp, bytes);
  L(probe);
  sub(rax, 4096);
  cmp(rax, rsp);
  jb(probed, T_NEAR);
  or_(qword[rax], 0);
  jmp(probe, T_NEAR);
  L(probed);
  or_(qword[rsp], 0);
}

// The view's row offsets in bytes, one qword per row r < r8 at rsp + off:
// sum over dimensions k < rank - 1 of i_k * stride_k, (i_0 .. i_{rank-2})
// the row-major digits of r; r8 is at most the product of those shapes
// (tcopy_views), so the outermost digit never wraps. Clobbers rax, rcx,
// rdx, rdi, r10-r12.
void Gen::view_row_table(ValueId v, unsigned rank, int off) {
  static const Reg64 digit[] = {r10, r11, r12};  // i_1 .. i_3 (i_0 needs no counter)
  unsigned ves = dtype_bytes(ty(v).elem);
  int ls = ves == 8 ? 3 : ves == 4 ? 2 : ves == 2 ? 1 : 0;
  Label row, done;
  lea(rdi, ptr[rsp + off]);
  mov(rcx, r8);
  xor_(eax, eax);  // the row's offset in elements
  for (unsigned k = 1; k + 1 < rank; ++k) xor_(digit[k - 1].cvt32(), digit[k - 1].cvt32());
  test(rcx, rcx);
  jle(done, T_NEAR);
  L(row);
  mov(rdx, rax);
  if (ls) shl(rdx, ls);
  mov(qword[rdi], rdx);
  add(rdi, 8);
  dec(rcx);
  jz(done, T_NEAR);
  // The next row: the innermost digit steps; one that reaches its shape
  // goes back to 0 and carries into the next outer one.
  for (int k = int(rank) - 2; k >= 1; --k) {
    const Reg64& d = digit[k - 1];
    add(rax, q(v, 1 + rank + k));
    inc(d);
    cmp(d, q(v, 1 + k));
    jl(row, T_NEAR);
    mov(rdx, d);
    imul(rdx, q(v, 1 + rank + k));
    sub(rax, rdx);
    xor_(d.cvt32(), d.cvt32());
  }
  if (rank >= 2) add(rax, q(v, 1 + rank));
  jmp(row, T_NEAR);
  L(done);
}

// Copies r8 x r9 (rows x columns) elements of es bytes from side 0 to side
// 1; at most one side is a view, and the caller has capped r8 / r9 to
// max_rows / max_cols (a view of rank other than 2: to its rows, the
// product of every shape but the last, too). Clobbers every general
// register but rbp, r14, r15, and the vector registers (V0; Ymm0-15 in the
// transposed blocks).
void Gen::copy_grid(const Inst& in, const CopySide (&side)[2], unsigned es, int64_t max_rows, int64_t max_cols) {
  int vs = side[0].view ? 0 : side[1].view ? 1 : -1;
  unsigned rank = vs >= 0 ? (p_.slots[side[vs].v].count - 1u) / 2u : 2;
  bool row_tab = rank != 2;  // the view's row parts come from a table
  // Scratch: a tile side's row table, then its column table (then the
  // view's row table).
  int tab[2][2] = {{-1, -1}, {-1, -1}}, vtab = -1;
  uint32_t size = 0;
  for (int k = 0; k < 2; ++k) {
    if (side[k].view) continue;
    tab[k][0] = int(size);
    size += uint32_t((max_rows * 4 + 63) / 64 * 64);
    tab[k][1] = int(size);
    size += uint32_t((max_cols * 4 + 63) / 64 * 64);
  }
  if (row_tab) {
    vtab = int(size);
    size += uint32_t((max_rows * 8 + 63) / 64 * 64);
  }
  size += 64;  // the transposed blocks' bounds
  stack_scratch(size);
  for (int k = 0; k < 2; ++k) {
    if (side[k].view) continue;
    mm_table(in, ty(side[k].v), true, r8, tab[k][0], side[k].row0);
    mm_table(in, ty(side[k].v), false, r9, tab[k][1], side[k].col0);
  }
  if (!ok_) return;
  if (row_tab) view_row_table(side[vs].v, rank, vtab);
  // Bases: r10 (side 0), r11 (side 1); a view's strides in bytes: r12
  // (rows; not with a row table), rbx (columns).
  for (int k = 0; k < 2; ++k) {
    const Reg64& b = k ? r11 : r10;
    if (side[k].view) mov(b, q(side[k].v, 0));
    else tile_ptr(b, side[k].v);
  }
  int ls = es == 8 ? 3 : es == 4 ? 2 : es == 2 ? 1 : 0;
  if (vs >= 0 && !row_tab) {
    mov(r12, q(side[vs].v, 3));
    mov(rbx, q(side[vs].v, 4));
    if (ls) {
      shl(r12, ls);
      shl(rbx, ls);
    }
  } else if (vs >= 0) {
    mov(rbx, q(side[vs].v, 2 * rank));
    if (ls) shl(rbx, ls);
  }
  // Side k's row (row = true) or column part of index idx + plus, in out.
  auto part = [&](int k, bool row, const Reg64& idx, int plus, const Reg64& out) {
    if (!side[k].view) {
      mov(out.cvt32(), dword[rsp + tab[k][row ? 0 : 1] + idx * 4 + plus * 4]);
    } else if (row && row_tab) {
      mov(out, qword[rsp + vtab + idx * 8 + plus * 8]);
    } else {
      lea(out, ptr[idx + plus]);
      imul(out, row ? r12 : rbx);
    }
  };
  // Scratch slots: R and C rounded down to 8 (the transposed blocks).
  int r8s = int(size) - 16, c8s = int(size) - 8;
  // One loop nest over lines (rows; `down`: columns) r13 in [o_lo, o_hi),
  // and within a line over rsi in [i_lo, the line's end): vb-byte runs
  // while whole ones are left, then element by element.
  auto nest = [&](bool down, int vb, const Operand& o_hi, const Operand* o_lo = nullptr,
                  const Operand* i_lo = nullptr) {
    const Reg64& inner_n = down ? r8 : r9;
    const Reg64* line[2] = {&rcx, &rdx};  // each side's address of the current line
    const Reg64* at[2] = {&rax, &rdi};    // each side's offset within it
    int64_t l = vb ? vb / int(es) : 0;
    Label outer, inner_vec, inner_elem, next, end;
    if (o_lo) mov(r13, *o_lo);
    else xor_(r13d, r13d);
    L(outer);
    cmp(r13, o_hi);
    jge(end, T_NEAR);
    for (int k = 0; k < 2; ++k) {
      part(k, !down, r13, 0, *line[k]);
      add(*line[k], k ? r11 : r10);
    }
    if (i_lo) mov(rsi, *i_lo);
    else xor_(esi, esi);
    if (l) {
      L(inner_vec);
      lea(rax, ptr[rsi + int(l)]);
      cmp(rax, inner_n);
      jg(inner_elem, T_NEAR);
      for (int k = 0; k < 2; ++k) {
        if (side[k].view) lea(*at[k], ptr[rsi * int(es)]);  // the run's stride is one element (checked by the caller)
        else part(k, down, rsi, 0, *at[k]);
      }
      Xmm v = vb == 64 ? Xmm(Zmm(0)) : vb == 32 ? Xmm(Ymm(0)) : xmm0;
      vmovups(v, ptr[rcx + rax]);
      vmovups(ptr[rdx + rdi], v);
      add(rsi, int(l));
      jmp(inner_vec, T_NEAR);
    }
    L(inner_elem);
    cmp(rsi, inner_n);
    jge(next, T_NEAR);
    for (int k = 0; k < 2; ++k) part(k, down, rsi, 0, *at[k]);
    switch (es) {
      case 1: movzx(eax, byte[rcx + rax]); mov(byte[rdx + rdi], al); break;
      case 2: movzx(eax, word[rcx + rax]); mov(word[rdx + rdi], ax); break;
      case 4: mov(eax, dword[rcx + rax]); mov(dword[rdx + rdi], eax); break;
      default: mov(rax, qword[rcx + rax]); mov(qword[rdx + rdi], rax); break;
    }
    inc(rsi);
    jmp(inner_elem, T_NEAR);
    L(next);
    inc(r13);
    jmp(outer, T_NEAR);
    L(end);
  };
  // 32-bit elements whose runs go along rows on one side and down columns
  // on the other: 8 x 8 blocks (rows r13 .., columns rsi ..) loaded as 8
  // runs of side 0, transposed, stored as 8 runs of side 1; the right and
  // bottom strips element by element.
  auto transposed = [&](bool src_down) {
    mov(rax, r8);
    and_(rax, ~7);
    mov(qword[rsp + r8s], rax);
    mov(rax, r9);
    and_(rax, ~7);
    mov(qword[rsp + c8s], rax);
    Label rows, cols, next_row, end;
    xor_(r13d, r13d);
    L(rows);
    cmp(r13, qword[rsp + r8s]);
    jge(end, T_NEAR);
    xor_(esi, esi);
    L(cols);
    cmp(rsi, qword[rsp + c8s]);
    jge(next_row, T_NEAR);
    // Side k's fixed part (along its runs) of the block in rcx / rdx.
    part(0, src_down, src_down ? r13 : rsi, 0, rcx);
    add(rcx, r10);
    part(1, !src_down, src_down ? rsi : r13, 0, rdx);
    add(rdx, r11);
    for (int i = 0; i < 8; ++i) {  // line i: row r13 + i (or column rsi + i)
      part(0, !src_down, src_down ? rsi : r13, i, rax);
      vmovups(Ymm(i), ptr[rcx + rax]);
    }
    transpose8x8(false, [&](int j, const Ymm& y) {
      part(1, src_down, src_down ? r13 : rsi, j, rax);
      vmovups(ptr[rdx + rax], y);
    });
    add(rsi, 8);
    jmp(cols, T_NEAR);
    L(next_row);
    add(r13, 8);
    jmp(rows, T_NEAR);
    L(end);
    Address r8a = qword[rsp + r8s], c8a = qword[rsp + c8s];
    nest(false, 0, r8a, nullptr, &c8a);  // the right strip of the block rows
    nest(false, 0, r8, &r8a);            // the rows below
  };
  // Does side k (a tile) hold runs of 8 32-bit elements along rows (or down)?
  auto runs8 = [&](int k, bool down) {
    return es == 4 && !side[k].view && side_runs(ty(side[k].v), down ? side[k].row0 : side[k].col0, 8, down);
  };
  Label done;
  int across = run_bytes(side, es, false), down = run_bytes(side, es, true);
  if (vs < 0) {
    // A boxed side indexed from an offset (a textract / tinsert window)
    // has its runs when the offset is a multiple of the run length: that
    // is checked at run time, the runs' nest taken when it holds.
    CopySide bare[2] = {side[0], side[1]};
    for (CopySide& b : bare) b.row0 = b.col0 = kNone;
    for (bool dn : {false, true}) {
      int vb = run_bytes(bare, es, dn);
      if (!vb || vb == (dn ? down : across)) continue;
      Label unaligned;
      for (const CopySide& b : side) {
        ValueId o = dn ? b.row0 : b.col0;
        if (o == kNone || ty(b.v).slayout == SLayout::NoneBox) continue;
        test(q(o, 0), uint32_t(vb / int(es) - 1));
        jnz(unaligned, T_NEAR);
      }
      nest(dn, vb, dn ? r9 : r8);
      jmp(done, T_NEAR);
      L(unaligned);
    }
    if (across) nest(false, across, r8);
    else if (down) nest(true, down, r9);
    else if (runs8(0, false) && runs8(1, true)) transposed(false);
    else if (runs8(0, true) && runs8(1, false)) transposed(true);
    else nest(false, 0, r8);
  } else {
    // A view's runs exist at run time: its stride along the run is 1. A
    // view with a row table has runs along its rows only.
    int t = 1 - vs;
    int col_stride = int(2 * rank), row_stride = row_tab ? -1 : 3;
    Label not_across, not_down, not_tr1, not_tr2;
    auto when = [&](bool cond, int stride_slot, Label& skip, const std::function<void()>& body) {
      if (!cond || stride_slot < 0) return;
      cmp(q(side[vs].v, unsigned(stride_slot)), 1);
      jne(skip, T_NEAR);
      body();
      jmp(done, T_NEAR);
      L(skip);
    };
    when(across, col_stride, not_across, [&] { nest(false, across, r8); });
    when(down, row_stride, not_down, [&] { nest(true, down, r9); });
    // The tile's runs go one way, the view's the other.
    when(runs8(t, true), col_stride, not_tr1, [&] { transposed(vs == 1); });
    when(runs8(t, false), row_stride, not_tr2, [&] { transposed(vs == 0); });
    nest(false, 0, r8);
  }
  L(done);
  add(rsp, size);
}

// tload / tstore of a boxed tile: the pad fill of the whole storage (a
// load, unless the copy covers it all), then the overlap of the valid
// region and the view.
void Gen::tcopy_boxed(const Inst& in, ValueId t, ValueId v, bool load) {
  const ptoas::Type& tt = ty(t);
  unsigned es = dtype_bytes(tt.elem);
  unsigned rank = (p_.slots[v].count - 1u) / 2u;
  Refusal why;
  if (!boxed_copy_ok(m_, t, v, rank, load, why)) return fail(in, why);
  if (rank != 2) return tcopy_views(in, t, v, load);
  valid_rc(t, tt.rows, tt.cols);
  cap_by_view(v);
  if (load) {
    uint64_t bytes = tile_storage_bytes(tt);
    pad_fill(t, bytes, 1, 0, bytes == uint64_t(tt.rows) * uint64_t(tt.cols) * es);
  }
  CopySide tile{t, false}, view{v, true};
  if (load) copy_grid(in, {view, tile}, es, tt.rows, tt.cols);
  else copy_grid(in, {tile, view}, es, tt.rows, tt.cols);
}

// tload / tstore between tile t (any layout) and a view of rank 1 ..
// kMaxViewRank that tcopy and tcopy_boxed leave to it (rank 3 and up;
// rank 1 with a boxed tile): the pad fill of a load, then the overlap of
// the valid region and the view (its rows: the product of every shape but
// the last) through copy_grid, the view's rows from a table.
void Gen::tcopy_views(const Inst& in, ValueId t, ValueId v, bool load) {
  const ptoas::Type& tt = ty(t);
  unsigned es = dtype_bytes(tt.elem);
  unsigned rank = (p_.slots[v].count - 1u) / 2u;
  bool boxed = tt.slayout != SLayout::NoneBox;
  Refusal why;
  if (boxed ? !boxed_copy_ok(m_, t, v, rank, load, why) : !view_copy_ok(m_, t, v, rank, load, why))
    return fail(in, why);
  valid_rc(t, tt.rows, tt.cols);
  // rax = the view's rows, each shape taken in [0, tile rows] and the
  // product capped there too (no overflow: both factors fit 32 bits).
  mov(eax, 1);
  mov(rdx, tt.rows);
  xor_(esi, esi);
  for (unsigned k = 0; k + 1 < rank; ++k) {
    mov(rcx, q(v, 1 + k));
    test(rcx, rcx);
    cmovs(rcx, rsi);
    cmp(rcx, rdx);
    cmovg(rcx, rdx);
    imul(rax, rcx);
    cmp(rax, rdx);
    cmovg(rax, rdx);
  }
  cmp(r8, rax);
  cmovg(r8, rax);
  mov(rcx, q(v, rank));
  cmp(r9, rcx);
  cmovg(r9, rcx);
  if (load) {
    uint64_t bytes = tile_storage_bytes(tt), elems = uint64_t(tt.rows) * uint64_t(tt.cols);
    if (boxed) pad_fill(t, bytes, 1, 0, bytes == elems * es);
    else pad_fill(t, elems, es, pad_bits(tt), true);
  }
  CopySide tile{t, false}, view{v, true};
  if (load) copy_grid(in, {view, tile}, es, tt.rows, tt.cols);
  else copy_grid(in, {tile, view}, es, tt.rows, tt.cols);
}

// tmov between tiles of one element type (any layouts): dst[r, c] = src[r, c]
// over dst's valid region (capped by both tiles' shapes).
void Gen::tmov(const Inst& in, ValueId s, ValueId d) {
  const ptoas::Type& st = ty(s);
  const ptoas::Type& dt = ty(d);
  int64_t rows = std::min(st.rows, dt.rows), cols = std::min(st.cols, dt.cols);
  if (rows <= 0 || cols <= 0) return fail(in, {RefusalCode::Shape, "a tile of dynamic shape or odd element size"});
  valid_rc(d, rows, cols);
  // Two tiles of one layout whose storage is exactly their elements, the
  // whole of it moved (the usual mat -> left copy): one block copy.
  unsigned es = dtype_bytes(dt.elem);
  uint64_t bytes = tile_storage_bytes(dt);
  bool flat = same_layout(st, dt) && bytes == uint64_t(dt.rows) * uint64_t(dt.cols) * es;
  Label general, done;
  if (flat) {
    cmp(r8, dt.rows);
    jne(general, T_NEAR);
    cmp(r9, dt.cols);
    jne(general, T_NEAR);
    tile_ptr(rsi, s);
    tile_ptr(rdi, d);
    mov(rcx, bytes);
    rep();
    movsb();
    jmp(done, T_NEAR);
  }
  L(general);
  copy_grid(in, {CopySide{s, false}, CopySide{d, false}}, es, rows, cols);
  L(done);
}

}  // namespace ptoas::cg::x86::gen
