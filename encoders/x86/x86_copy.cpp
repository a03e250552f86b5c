// x86-64 code generation: 2-D copies between any two layouts (tload /
// tstore of boxed tiles, tmov), with vector moves wherever both sides hold
// a run of elements contiguously.
//
// An element's address on either side is a row part plus a column part:
// for a tile, tile_elem_index splits that way in every layout (the parts
// come from per-row and per-column offset tables built in scratch below
// rsp); for a rank-2 view, r * row stride + c * column stride. A run is
// `L` consecutive columns starting at a multiple of L (or rows, for
// column-major storage) that are adjacent in memory on both sides: an NZ
// tile's inner box rows, a view's rows when its column stride is 1. Runs
// move as one xmm / ymm / zmm; what is left of a line, and layouts with
// no common run, move element by element through the same tables (no
// per-element index arithmetic).
#include "tile_layout.h"
#include "x86_gen.h"

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

// The widest vector (bytes: 64 with avx512, 32, 16; 0: none) whose
// elements form runs on every tile side along the given axis.
int Gen::run_bytes(const CopySide (&side)[2], unsigned es, bool down) const {
  for (int vb : {64, 32, 16}) {
    if (vb == 64 && !z()) continue;
    if (vb % int(es)) continue;
    bool ok = true;
    for (const CopySide& s : side)
      if (!s.view) ok &= tile_runs(ty(s.v), vb / es, down);
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

// Copies r8 x r9 (rows x columns) elements of es bytes from side 0 to side
// 1; at most one side is a view, and the caller has capped r8 / r9 to
// max_rows / max_cols. Clobbers every general register but rbp, r14, r15
// and V0.
void Gen::copy_grid(const Inst& in, const CopySide (&side)[2], unsigned es, int64_t max_rows, int64_t max_cols) {
  // Scratch: a tile side's row table, then its column table.
  int tab[2][2] = {{-1, -1}, {-1, -1}};
  uint32_t size = 0;
  for (int k = 0; k < 2; ++k) {
    if (side[k].view) continue;
    tab[k][0] = int(size);
    size += uint32_t((max_rows * 4 + 63) / 64 * 64);
    tab[k][1] = int(size);
    size += uint32_t((max_cols * 4 + 63) / 64 * 64);
  }
  stack_scratch(size);
  for (int k = 0; k < 2; ++k) {
    if (side[k].view) continue;
    mm_table(in, ty(side[k].v), true, r8, tab[k][0]);
    mm_table(in, ty(side[k].v), false, r9, tab[k][1]);
  }
  if (!ok_) return;
  // Bases: r10 (side 0), r11 (side 1); a view's strides in bytes: r12
  // (rows), rbx (columns).
  int vs = side[0].view ? 0 : side[1].view ? 1 : -1;
  for (int k = 0; k < 2; ++k) {
    const Reg64& b = k ? r11 : r10;
    if (side[k].view) mov(b, q(side[k].v, 0));
    else tile_ptr(b, side[k].v);
  }
  int ls = es == 8 ? 3 : es == 4 ? 2 : es == 2 ? 1 : 0;
  if (vs >= 0) {
    mov(r12, q(side[vs].v, 3));
    mov(rbx, q(side[vs].v, 4));
    if (ls) {
      shl(r12, ls);
      shl(rbx, ls);
    }
  }
  // One loop nest: `down` runs go along columns of the tile (outer loop
  // over columns). vb = 0: element by element.
  auto nest = [&](bool down, int vb) {
    const Reg64 &outer_n = down ? r9 : r8, &inner_n = down ? r8 : r9;
    const Reg64* line[2] = {&rcx, &rdx};  // each side's address of the current line
    const Reg64* at[2] = {&rax, &rdi};    // each side's offset within it
    int64_t l = vb ? vb / int(es) : 0;
    Label outer, inner_vec, inner_elem, next, end;
    xor_(r13d, r13d);
    L(outer);
    cmp(r13, outer_n);
    jge(end, T_NEAR);
    for (int k = 0; k < 2; ++k) {
      const Reg64& a = *line[k];
      if (side[k].view) {
        mov(a, r13);
        imul(a, down ? rbx : r12);
      } else {
        mov(a.cvt32(), dword[rsp + tab[k][down ? 1 : 0] + r13 * 4]);
      }
      add(a, k ? r11 : r10);
    }
    xor_(esi, esi);
    auto offsets = [&](bool vec) {
      for (int k = 0; k < 2; ++k) {
        const Reg64& a = *at[k];
        if (!side[k].view) {
          mov(a.cvt32(), dword[rsp + tab[k][down ? 0 : 1] + rsi * 4]);
        } else if (vec) {  // the run's stride is one element (checked by the caller)
          lea(a, ptr[rsi * int(es)]);
        } else {
          mov(a, rsi);
          imul(a, down ? r12 : rbx);
        }
      }
    };
    if (l) {
      L(inner_vec);
      lea(rax, ptr[rsi + int(l)]);
      cmp(rax, inner_n);
      jg(inner_elem, T_NEAR);
      offsets(true);
      Xmm v = vb == 64 ? Xmm(Zmm(0)) : vb == 32 ? Xmm(Ymm(0)) : xmm0;
      vmovups(v, ptr[rcx + rax]);
      vmovups(ptr[rdx + rdi], v);
      add(rsi, int(l));
      jmp(inner_vec, T_NEAR);
    }
    L(inner_elem);
    cmp(rsi, inner_n);
    jge(next, T_NEAR);
    offsets(false);
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
  Label done;
  int across = run_bytes(side, es, false), down = run_bytes(side, es, true);
  if (vs < 0) {
    if (across) nest(false, across);
    else if (down) nest(true, down);
    else nest(false, 0);
  } else {
    // A view's runs exist at run time: its stride along the run is 1.
    Label not_across, not_down;
    if (across) {
      cmp(q(side[vs].v, 4), 1);
      jne(not_across, T_NEAR);
      nest(false, across);
      jmp(done, T_NEAR);
      L(not_across);
    }
    if (down) {
      cmp(q(side[vs].v, 3), 1);
      jne(not_down, T_NEAR);
      nest(true, down);
      jmp(done, T_NEAR);
      L(not_down);
    }
    nest(false, 0);
  }
  L(done);
  add(rsp, size);
}

// tload / tstore of a boxed tile: the pad fill of the whole storage, then
// the overlap of the valid region and the view.
void Gen::tcopy_boxed(const Inst& in, ValueId t, ValueId v, bool load) {
  const ptoas::Type& tt = ty(t);
  const ptoas::Type& vt = ty(v);
  unsigned rank = (p_.slots[v].count - 1u) / 2u;
  unsigned es = dtype_bytes(tt.elem);
  if (vt.kind == TypeKind::Ptr || rank != 2 || dtype_bytes(vt.elem) != es || vt.elem != tt.elem ||
      (es != 1 && es != 2 && es != 4) || tt.rows <= 0 || tt.cols <= 0)
    return fail(in, std::string(load ? "pto.tload into" : "pto.tstore from") +
                        " a boxed tile with this view or element type");
  if (load) {
    if (tt.pad != 0 && tt.pad != 1) return fail(in, "pto.tload into a boxed tile with a pad value");
    tile_ptr(rdi, t);
    mov(rcx, int64_t(tile_storage_bytes(tt)));
    xor_(eax, eax);
    rep();
    stosb();
  }
  mov(r8, q(t, 1));
  mov(r9, q(t, 2));
  clamp(r8, tt.rows);
  clamp(r9, tt.cols);
  mov(rcx, q(v, 1));
  cmp(r8, rcx);
  cmovg(r8, rcx);
  mov(rcx, q(v, 2));
  cmp(r9, rcx);
  cmovg(r9, rcx);
  CopySide tile{t, false}, view{v, true};
  if (load) copy_grid(in, {view, tile}, es, tt.rows, tt.cols);
  else copy_grid(in, {tile, view}, es, tt.rows, tt.cols);
}

// tmov between tiles of one element type (any layouts): dst[r, c] = src[r, c]
// over dst's valid region (capped by both tiles' shapes).
void Gen::tmov(const Inst& in) {
  ValueId s, d;
  bool skip;
  std::string why;
  if (!plan_tmov(m_, in, s, d, skip, why)) return fail(in, why);
  if (skip) return;
  const ptoas::Type& st = ty(s);
  const ptoas::Type& dt = ty(d);
  int64_t rows = std::min(st.rows, dt.rows), cols = std::min(st.cols, dt.cols);
  if (rows <= 0 || cols <= 0) return fail(in, "a tile of dynamic shape or odd element size");
  mov(r8, q(d, 1));
  mov(r9, q(d, 2));
  clamp(r8, rows);
  clamp(r9, cols);
  copy_grid(in, {CopySide{s, false}, CopySide{d, false}}, dtype_bytes(dt.elem), rows, cols);
}

}  // namespace ptoas::cg::x86::gen
