// x86-64 tmatmul through register-blocked micro-kernels (GotoBLAS-style
// panels): Gen::matmul_blocked, the path Gen::matmul takes unless its
// scratch would not fit (x86/matmul.cpp, matmul_gather). See x86/gen.h and
// docs/x86_backend.md.
#include "tile_layout.h"
#include "gen.h"

namespace ptoas::cg::x86::gen {

namespace {
int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
// A row-major unboxed tile of 32-bit elements, 16 of whose rows span less
// than a 32-bit displacement: element (r, c) is at r cols 4 + c 4.
bool plain_rm(const ptoas::Type& t) {
  return t.slayout == SLayout::NoneBox && t.blayout == BLayout::RowMajor && t.rows > 0 && t.cols > 0 &&
         dtype_bytes(t.elem) == 4 && t.cols * 4 * 16 < (int64_t(1) << 30);
}
}  // namespace

// GotoBLAS-style: MR-row panels of A times NR-column panels of B, MR x
// NV accumulators over k (avx2 6 x 2 ymm, avx512 8 x 2 zmm), row panels
// outer. f32 row- or column-major A is read in place (only a partial last
// panel of a dynamic shape is packed), as is f32 row-major B whose rows
// hold whole panels; other operands are packed (per k, MR or NR values
// widened to 32-bit lanes) in scratch below rsp. Rows and columns past m /
// n are computed from padding and never stored. Row-major 32-bit C, cin
// and bias are addressed by their row strides, other layouts through
// per-row / per-column offset tables (mm_table): moved as vectors where
// their columns are adjacent, else gathered (and C scattered).
// mm_blocking plans it (matmul_in_place asks it too), matmul_blocked
// emits it.
bool Gen::mm_blocking(const MmOps& o, MmBlocking& bl) const {
  const ptoas::Type &at = ty(o.a), &bt = ty(o.b), &ct = ty(o.c);
  // avx512 8 rows, not 12: a Zen 4 runs one zmm FMA a cycle (two ymm
  // halves), so 16 accumulators already hide the latency, and 12 rows of
  // an A read in place at a 4 KiB row stride are 12 lines in one 8-way L1
  // set (gemm_1024 avx512 0.82-0.84 -> 0.91 of the peak).
  const int LN = lanes(), MR = z() ? 8 : 6, NR = 2 * LN;
  int64_t ms = std::min(at.rows, ct.rows), ks = std::min(at.cols, bt.rows), ns = std::min(bt.cols, ct.cols);
  if (o.cin != kNone) {
    ms = std::min<int64_t>(ms, ty(o.cin).rows);
    ns = std::min<int64_t>(ns, ty(o.cin).cols);
  }
  if (o.bias != kNone) ns = std::min<int64_t>(ns, ty(o.bias).cols);
  int64_t mp = round_up(ms, MR), np = round_up(ns, NR);
  int64_t size = 0;
  auto take = [&](int64_t bytes) {
    int64_t at_ = size;
    size += round_up(bytes, 64);
    return int(at_);
  };
  // Direct A (f32 none_box): the micro-kernels broadcast a[i0 + r, k] at
  // a + i0 si + r si + k sk; only a partial last row panel is packed.
  bool direct = at.elem == DType::F32 && at.slayout == SLayout::NoneBox;
  bool arm = at.blayout == BLayout::RowMajor;
  int64_t si = (arm ? at.cols : 1) * 4, sk = (arm ? 1 : at.rows) * 4;
  // bf16 / f16 A laid out as vectors along its rows (or columns): widened
  // once into an f32 copy of the tile, which is then direct A. Packing
  // transposed 8 x 8 blocks of 6 rows (avx2) cost about 55 instructions
  // per 48 values, the copy 3 per 8.
  bool widen = !o.i32 && (at.elem == DType::BF16 || at.elem == DType::F16) && at.slayout == SLayout::NoneBox &&
               (arm ? at.cols : at.rows) % LN == 0 && at.rows * at.cols * 4 <= (int64_t(256) << 10);
  if (widen) direct = true;
  // A boxed f32 A whose rows are evenly spaced and whose k values lie in
  // runs of 8 (NZ: 16 x 8 boxes, so rows 32 bytes apart down the whole
  // tile and the runs rows x 32 apart) is direct too: the k loop takes a
  // run per step of 8 and jumps to the next. Packed, its 8 x 8 transposes
  // of 6 rows cost gemm_nz_128 some 5 % of its time.
  int64_t kg = 0;
  AxisMap ar, ac;
  if (!direct && !o.i32 && at.elem == DType::F32 && at.slayout != SLayout::NoneBox && axis_map(at, true, ar) &&
      axis_map(at, false, ac) && (ar.shift == 63 || ar.box == (ar.mask + 1) * ar.unit) && ac.shift == 3 &&
      ac.mask == 7 && ac.unit == 1 && ar.unit > 0 && ac.box > 0) {
    direct = true;
    si = ar.unit * 4;
    sk = 4;
    kg = ac.box * 4;
  }
  if (direct && si * MR + sk * 4 + kg > (int64_t(1) << 30)) direct = false;
  if (!direct) kg = 0;
  widen = widen && direct;
  // Direct B (f32 row-major whose rows hold whole NR-column panels): the
  // micro-kernels load b[k, j0 + c] at b + k sb + (j0 + c) 4; nothing is
  // packed.
  bool direct_b = !o.i32 && bt.elem == DType::F32 && plain_rm(bt) && bt.cols % NR == 0;
  // C, cin and bias row-major 32-bit: addressed by their row stride, no
  // tables.
  bool pC = plain_rm(ct), pI = o.cin != kNone && plain_rm(ty(o.cin)), pZ = o.bias != kNone && plain_rm(ty(o.bias));
  // A direct panel of rem_s = ms % MR rows (the static shape's last one)
  // has its own micro-kernel; a dynamic shape's other partial panels are
  // packed and computed as MR rows.
  bl = MmBlocking{};
  bl.mr = MR;
  bl.nr = NR;
  bl.rem_s = direct ? int(ms % MR) : 0;
  bl.si = si;
  bl.sk = sk;
  bl.sb = bt.cols * 4;
  bl.kg = kg;
  bl.direct = direct;
  bl.direct_b = direct_b;
  bl.widen = widen;
  // A's k values adjacent in runs of 8 (B's down a column): packed by
  // 8 x 8 transposes.
  bl.tr = tile_runs(at, 8, false);
  bl.trb = tile_runs(bt, 8, true);
  bl.pc = pC;
  bl.pi = pI;
  bl.pz = pZ;
  bl.cin_own = o.cin != kNone && !pI && !same_layout(ty(o.cin), ct);
  bl.o_aw = widen ? take(at.rows * at.cols * 4) : -1;
  bl.o_ap = take((direct ? MR : mp) * ks * 4 + 8 * MR * 4);
  bl.o_bp = direct_b ? 0 : take(np * ks * 4 + 8 * NR * 4);
  // i8: k in pairs, two i16 in a dword (vpmaddwd); the k tables get an
  // entry k repeating k - 1.
  bl.o_ra = take((mp + LN) * 4);
  bl.o_ca = take((ks + 1) * 4);
  bl.o_rb = direct_b ? 0 : take((ks + 1) * 4);
  bl.o_cb = direct_b ? 0 : take((np + LN) * 4);
  bl.o_rc = pC ? -1 : take(ms * 4);
  bl.o_cc = pC ? -1 : take((np + LN) * 4);
  bl.o_ri = bl.cin_own ? take(ms * 4) : bl.o_rc;
  bl.o_ci = bl.cin_own ? take((np + LN) * 4) : bl.o_cc;
  bl.o_cz = o.bias != kNone && !pZ ? take((np + LN) * 4) : -1;
  bl.o_sp = take(64);                    // tile base addresses: a, b, c, cin, bias; packed k steps
  bl.o_row = take(8 * std::max(MR, 8));  // line addresses (transposed packing)
  bl.o_st = take(16);                    // A's and B's row strides in bytes (mm_strided_)
  bl.o_pf = take(48);                    // the next blocks' prefetch (mm_prefetch_setup)
  bl.micro_tiles = std::max<int64_t>(1, mp / MR * (np / NR));
  bl.size = size;
  return size_t(size) <= kMaxTileArenaBytes;
}

int64_t Gen::mm_b_halves(const ptoas::Type& bt) const {
  AxisMap ac;
  if (!z() || bt.elem != DType::F32 || tile_runs(bt, lanes(), false) || !tile_runs(bt, lanes() / 2, false) ||
      !axis_map(bt, false, ac) || ac.shift != 3 || ac.mask != 7 || ac.unit != 1 || ac.box <= 0)
    return 0;
  return ac.box * 4;
}

bool Gen::matmul_blocked(const Inst& in, const MmOps& o) {
  MmBlocking bl;
  if (!mm_blocking(o, bl)) return false;
  const ptoas::Type &at = ty(o.a), &bt = ty(o.b), &ct = ty(o.c);
  const int LN = lanes(), MR = bl.mr, NV = 2, NR = bl.nr, NACC = MR * NV, rem_s = bl.rem_s;
  const int64_t si = bl.si, sk = bl.sk, sb = bl.sb, size = bl.size;
  const bool direct = bl.direct, direct_b = bl.direct_b, pC = bl.pc, pI = bl.pi, pZ = bl.pz, tr = bl.tr,
             trb = bl.trb, cin_own = bl.cin_own, pair = o.i32;
  const int oAp = bl.o_ap, oBp = bl.o_bp, oRA = bl.o_ra, oCA = bl.o_ca, oRB = bl.o_rb, oCB = bl.o_cb,
            oRC = bl.o_rc, oCC = bl.o_cc, oRI = bl.o_ri, oCI = bl.o_ci, oCZ = bl.o_cz, oSp = bl.o_sp,
            oRow = bl.o_row, oSt = bl.o_st, oPf = bl.o_pf;
  const int KS = pair ? 2 : 1;
  // A (B) read in place at its view's row stride: sva (svb) the view.
  const ValueId sva = mm_strided_view(o.a), svb = mm_strided_view(o.b);
  // What the packing and the micro-kernels read as A: its widened copy
  // (bl.widen: an f32 tile of A's layout, at its own strides) or A.
  ptoas::Type atk = at;
  if (bl.widen) atk.elem = DType::F32;
  const DType aek = atk.elem;
  const ValueId sva_k = bl.widen ? kNone : sva;
  if (svb != kNone && direct_b) {
    fail(in, {RefusalCode::Layout, "internal: a run-time row stride for a B read as panels"});
    return true;
  }
  stack_scratch(uint32_t(size));  // a multiple of 64: the frame's alignment stays
  ValueId bases[5] = {o.a, o.b, o.c, o.cin, o.bias};
  for (int i = 0; i < 5; ++i)
    if (bases[i] != kNone) {
      tile_ptr(rax, bases[i]);
      mov(qword[rsp + oSp + 8 * i], rax);
    }
  auto base = [&](int i) { return qword[rsp + oSp + 8 * i]; };
  // The row strides in bytes of A and B read in place: their view's while
  // their slot points into it (matmul_in_place), else the tile's own.
  for (int i = 0; i < 2; ++i) {
    ValueId t = bases[i], v = i ? svb : sva;
    if (v == kNone) continue;
    int64_t es = dtype_bytes(ty(t).elem);
    Label set;
    mov(rax, q(v, 3));
    imul(rax, rax, int(es));
    cmp(q(t, 0), int32_t(p_.alloc_offset[m_.values[t].def]));
    jne(set);
    mov(eax, uint32_t(ty(t).cols * es));
    L(set);
    mov(qword[rsp + oSt + 8 * i], rax);
  }
  mm_prefetch_setup(bl.o_pf);
  // (A's tables are built where A is packed.)
  if (!direct_b) {
    mm_table(in, bt, true, r10, oRB, kNone, svb != kNone ? oSt + 8 : -1);
    mm_table(in, bt, false, r9, oCB);
  }
  if (!pC) {
    mm_table(in, ct, true, r8, oRC);
    mm_table(in, ct, false, r9, oCC);
  }
  if (cin_own) {
    mm_table(in, ty(o.cin), true, r8, oRI);
    mm_table(in, ty(o.cin), false, r9, oCI);
  }
  if (oCZ >= 0) mm_table(in, ty(o.bias), false, r9, oCZ);
  if (!ok_) return true;
  auto pair_table = [&](int t) {  // entry k repeats k - 1
    mov(eax, dword[rsp + t + r10 * 4 - 4]);
    mov(dword[rsp + t + r10 * 4], eax);
  };
  if (pair) pair_table(oRB);
  auto kp = [&]() { return qword[rsp + oSp + 40]; };
  lea(rax, ptr[r10 + KS - 1]);
  if (pair) shr(rax, 1);
  mov(kp(), rax);
  // lo = the i16 pair (lo, hi) of two sign-extended i32 lanes (i8: k, k + 1).
  auto pair_up = [&](const Xmm& lo, const Xmm& hi) {
    vpslld(lo, lo, 16);
    vpsrld(lo, lo, 16);
    vpslld(hi, hi, 16);
    vlogic(Bin::Or, lo, lo, hi);
  };
  Xmm v0 = V(0), idx = V(7);

  // Transposed packing: qword[rsp + oRow + 8 l] = base + table[min(r12 +
  // l, rdx)] for the panel's lines l (rows of A, columns of B); Ymm(l - g)
  // = 8 elements of line l at offset rcx; an 8 x 8 transpose of Ymm0-7
  // (Ymm8-15 scratch), handing out k step kk's vector.
  auto k_head = [&](Label& top, Label& done) {  // for r11 = 0 .. r10 - 1 (the packing loops over k)
    xor_(r11d, r11d);
    L(top);
    cmp(r11, r10);
    jge(done, T_NEAR);
  };
  auto line_addrs = [&](int table, int count) {
    for (int l = 0; l < count; ++l) {
      lea(rax, ptr[r12 + l]);
      cmp(rax, rdx);
      cmovg(rax, rdx);
      mov(eax, dword[rsp + table + rax * 4]);
      add(rax, rbx);
      mov(qword[rsp + oRow + 8 * l], rax);
    }
  };
  auto load8 = [&](DType e, int g, int count) {
    for (int l = 0; l < count; ++l) {
      mov(rax, qword[rsp + oRow + 8 * (g + l)]);
      vld_e(e, Ymm(l), rax + rcx, false, true);
    }
  };
  auto transpose8 = [&](const std::function<void(int, const Ymm&)>& put) {
    transpose8x8(pair, [&](int kk, const Ymm& y) {
      if (!pair) {
        put(kk, y);
      } else if (kk % 2) {  // packed step kk / 2
        pair_up(Ymm(9), y);
        put(kk / 2, Ymm(9));
      }
    });
  };

  // ---- widen A: its valid region into the f32 copy, line by line (rows
  // of a row-major A, columns of a column-major one), LN values a step
  // along the line (the tile's extent along it is a multiple of LN, so
  // the last step reads inside the tile or the view covering it; the
  // lanes past the valid region are never read). Then A's slot points
  // at the copy. ----
  if (bl.widen) {
    const bool arm = at.blayout == BLayout::RowMajor;
    const Reg64 &lines = arm ? r8 : r10, &along = arm ? r10 : r8;
    const int64_t es = dtype_bytes(at.elem), line_bytes = arm ? si : sk;
    Label ln, ln_done, el, next;
    // Only the lines' offsets: along a line the values are es apart.
    if (arm) mm_table(in, at, true, r8, oRA, kNone, sva != kNone ? oSt : -1);
    else mm_table(in, at, false, r10, oCA);
    mov(rbx, base(0));
    lea(rdi, ptr[rsp + bl.o_aw]);
    xor_(r12d, r12d);
    L(ln);
    cmp(r12, lines);
    jge(ln_done, T_NEAR);
    mov(edx, dword[rsp + (arm ? oRA : oCA) + r12 * 4]);
    add(rdx, rbx);
    xor_(r11d, r11d);
    cmp(r11, along);
    jge(next, T_NEAR);
    L(el);
    vld_e(o.ae, V(0), rdx + r11 * int(es), false, true);
    vmovups(ptr[rdi + r11 * 4], V(0));
    add(r11, LN);
    cmp(r11, along);
    jl(el, T_NEAR);
    L(next);
    add(rdi, uint32_t(line_bytes));
    inc(r12);
    jmp(ln, T_NEAR);
    L(ln_done);
    lea(rax, ptr[rsp + bl.o_aw]);
    mov(base(0), rax);
  }

  // ---- pack A: per MR-row panel, per k, the panel's MR values (direct
  // A: only the last, partial panel) ----
  {
    Label pa, pa_done, pk, pk_done;
    mov(rbx, base(0));
    lea(rsi, ptr[rsp + oAp]);
    if (direct) {  // no partial panel, or one of rem_s rows: nothing to pack
      mov(rax, r8);
      mov(ecx, MR);
      xor_(edx, edx);
      div(rcx);
      imul(r12, rax, MR);
      test(rdx, rdx);
      jz(pa_done, T_NEAR);
      if (rem_s) {
        cmp(rdx, rem_s);
        je(pa_done, T_NEAR);
      }
    } else {
      xor_(r12d, r12d);
    }
    mm_table(in, atk, true, r8, oRA, kNone, sva_k != kNone ? oSt : -1);
    mm_table(in, atk, false, r10, oCA);
    if (pair) pair_table(oCA);
    L(pa);
    cmp(r12, r8);
    jge(pa_done, T_NEAR);
    if (tr) {
      // Rows i0 + r (at most m - 1: the padding rows repeat a valid one)
      // as 8 k values each, transposed to 8 k steps of MR values, 8 rows
      // at a time.
      mov(rdi, rsi);
      lea(rdx, ptr[r8 - 1]);
      line_addrs(oRA, MR);
      k_head(pk, pk_done);
      mov(ecx, dword[rsp + oCA + r11 * 4]);
      for (int g = 0; g < MR; g += 8) {
        int rows = std::min(8, MR - g);
        load8(aek, g, rows);
        transpose8([&](int kk, const Ymm& y) {
          // avx2 (one group of 6): 8 lanes, the 2 past MR overwritten by
          // the next k; avx512 (8 + 4): exact.
          if (rows == 4) vmovups(ptr[rsi + (kk * MR + g) * 4], Xmm(y.getIdx()));
          else vmovups(ptr[rsi + (kk * MR + g) * 4], y);
        });
      }
      add(rsi, 8 / KS * MR * 4);
      add(r11, 8);
      jmp(pk, T_NEAR);
      L(pk_done);
      mov(rax, kp());
      imul(rax, rax, MR * 4);
      lea(rsi, ptr[rdi + rax]);
    } else {
      mov(rcx, r8);
      sub(rcx, r12);
      clamp(rcx, MR);
      tail_mask_rcx();
      vmovups(idx, ptr[rsp + oRA + r12 * 4]);
      k_head(pk, pk_done);
      for (int h = 0; h < KS; ++h) {  // k (and k + 1)
        Xmm d = V(2 * h);
        mov(eax, dword[rsp + oCA + r11 * 4 + 4 * h]);
        add(rax, rbx);
        gather_ps(d, rax, idx, 1);
        mm_widen(aek, d);
      }
      if (pair) pair_up(v0, V(2));
      vmovups(ptr[rsi], v0);  // the lanes past MR are overwritten next
      add(rsi, MR * 4);
      add(r11, KS);
      jmp(pk, T_NEAR);
      L(pk_done);
    }
    add(r12, MR);
    jmp(pa, T_NEAR);
    L(pa_done);
  }
  // ---- pack B: per NR-column panel, per k, the panel's NR values ----
  if (!direct_b) {
    bool adj = tile_runs(bt, LN, false);
    const int64_t halves = pair ? 0 : mm_b_halves(bt);
    Label pb, pb_done, pk, pk_done, same_panel;
    mov(rbx, base(1));
    lea(rsi, ptr[rsp + oBp]);
    mov(r13, kp());
    imul(r13, r13, NR * 4);  // panel bytes
    xor_(r12d, r12d);
    L(pb);
    cmp(r12, r9);
    jge(pb_done, T_NEAR);
    mov(rdi, r12);
    and_(rdi, NR - 1);
    lea(rdi, ptr[rsi + rdi * 4]);
    Label part;
    if ((adj || halves) && !trb && !pair) {
      // Whole panels (j0 + W NR <= n) as NR values per k, two k a step:
      // the per-vector loop below spent a table load, a mask and a loop
      // test on every 8 values (gemm_bf16_1024 avx2: B's packing 5 % of
      // the time). W = 2 panels where one panel's row is half a cache
      // line (avx2, 16-bit B with contiguous rows): one pass reads each
      // line of B once. Down a column strip, B's rows (4 KiB apart in
      // gemm_bf16_1024) fall in two L1 sets, and a second pass for the
      // other half of each line found it evicted.
      const int64_t es = dtype_bytes(bt.elem);
      const bool contiguous = bt.slayout == SLayout::NoneBox && bt.blayout == BLayout::RowMajor;
      const int W = contiguous && NR * es == 32 ? 2 : 1, NVW = NV * W;
      Label k2, k1, kdone;
      mov(rax, r9);
      sub(rax, r12);
      cmp(rax, W * NR);
      jl(part, T_NEAR);
      mov(edx, dword[rsp + oCB + r12 * 4]);
      add(rdx, rbx);
      if (!contiguous) {
        mov(ecx, dword[rsp + oCB + r12 * 4 + LN * 4]);
        add(rcx, rbx);
      }
      // Vector v of the W panels' row at k: its source and its place.
      // `halves`: two runs of LN / 2, that many bytes apart.
      auto src = [&](int v) { return contiguous ? rdx + rax + int(v * LN * es) : (v ? rcx : rdx) + rax; };
      auto load = [&](int i, int v) {
        if (!halves) return vld_e(o.ae, V(i), src(v), false, true);
        vmovups(Ymm(i), ptr[src(v)]);
        vinsertf64x4(Zmm(i), Zmm(i), ptr[src(v) + int(halves)], 1);
      };
      auto dst = [&](int v, int u) {
        int disp = u * NR * 4 + v % NV * LN * 4;
        return v / NV ? ptr[rdi + r13 + disp] : ptr[rdi + disp];
      };
      xor_(r11d, r11d);
      L(k2);
      lea(rax, ptr[r11 + 1]);
      cmp(rax, r10);
      jge(k1, T_NEAR);
      for (int u = 0; u < 2; ++u) {
        mov(eax, dword[rsp + oRB + r11 * 4 + 4 * u]);
        for (int v = 0; v < NVW; ++v) load(u * NVW + v, v);
      }
      for (int u = 0; u < 2; ++u)
        for (int v = 0; v < NVW; ++v) vmovups(dst(v, u), V(u * NVW + v));
      add(rdi, 2 * NR * 4);
      add(r11, 2);
      jmp(k2, T_NEAR);
      L(k1);
      cmp(r11, r10);
      jge(kdone, T_NEAR);
      mov(eax, dword[rsp + oRB + r11 * 4]);
      for (int v = 0; v < NVW; ++v) load(v, v);
      for (int v = 0; v < NVW; ++v) vmovups(dst(v, 0), V(v));
      L(kdone);
      for (int w = 0; w < W; ++w) add(rsi, r13);
      add(r12, W * NR);
      jmp(pb, T_NEAR);
    }
    L(part);
    if (trb) {
      // Columns j0 .. j0 + 7 (at most n - 1) as 8 k values each,
      // transposed to 8 k steps of 8 columns.
      lea(rdx, ptr[r9 - 1]);
      line_addrs(oCB, 8);
      k_head(pk, pk_done);
      mov(ecx, dword[rsp + oRB + r11 * 4]);
      load8(o.ae, 0, 8);
      transpose8([&](int kk, const Ymm& y) { vmovups(ptr[rdi + kk * NR * 4], y); });
      add(rdi, 8 / KS * NR * 4);
      add(r11, 8);
    } else {
      mov(rcx, r9);
      sub(rcx, r12);
      clamp(rcx, LN);
      tail_mask_rcx();
      if (adj) {
        mov(edx, dword[rsp + oCB + r12 * 4]);
        add(rdx, rbx);
      } else {
        vmovups(idx, ptr[rsp + oCB + r12 * 4]);
      }
      k_head(pk, pk_done);
      for (int h = 0; h < KS; ++h) {  // k (and k + 1)
        Xmm d = V(2 * h);
        mov(eax, dword[rsp + oRB + r11 * 4 + 4 * h]);
        if (adj) {
          vld_e(o.ae, d, rdx + rax, true, true);
        } else {
          add(rax, rbx);
          gather_ps(d, rax, idx, 1);
          mm_widen(o.ae, d);
        }
      }
      if (pair) pair_up(v0, V(2));
      vmovups(ptr[rdi], v0);
      add(rdi, NR * 4);
      add(r11, KS);
    }
    jmp(pk, T_NEAR);
    L(pk_done);
    add(r12, trb ? 8 : LN);
    test(r12d, NR - 1);
    jnz(same_panel, T_NEAR);
    add(rsi, r13);
    L(same_panel);
    jmp(pb, T_NEAR);
    L(pb_done);
    if (pair) {  // odd k: B's k = k half of the last packed step is 0
      Label even, zl;
      test(r10b, 1);
      jz(even, T_NEAR);
      mov(rax, kp());
      dec(rax);
      imul(rax, rax, NR * 4);
      lea(rsi, ptr[rsp + oBp + rax]);
      xor_(r12d, r12d);
      L(zl);
      for (int v = 0; v < NV; ++v) {
        vmovups(v0, ptr[rsi + v * LN * 4]);
        vpslld(v0, v0, 16);
        vpsrld(v0, v0, 16);
        vmovups(ptr[rsi + v * LN * 4], v0);
      }
      add(rsi, r13);
      add(r12, NR);
      cmp(r12, r9);
      jl(zl, T_NEAR);
      L(even);
    }
  }

  // ---- micro-kernels ----
  // Registers: accumulators from AB, B vectors from BB, then the A
  // broadcast, the i8 vpmaddwd product; after the k loop tv / ix (loaded cin or
  // bias, an offset vector). avx512 keeps the accumulators in zmm8-23:
  // gather / scatter indices stay below 16 (Bochs faults on higher ones).
  const int AB = z() ? 8 : 0, BB = z() ? 0 : NACC;
  Xmm tv = V(BB), ix = V(BB + 1), av = V(BB + NV), pv = V(BB + NV + 1);
  auto accv = [&](int r, int v) { return V(AB + r * NV + v); };
  // k step u of a 4-step group over mr rows: A at rax (packed: u MR 4 +
  // r 4; direct: u sk + r si), B at rdx (packed: + u NR 4; direct: + u sb).
  // A panel of fewer rows than MR spreads its k steps over `sets`
  // accumulator sets (set s: rows s mr ..): 2 x 2 chains alone would wait
  // on the FMA latency.
  // Direct A at its view's row stride (sva): rbx = si, the rows as a
  // base and rbx or r11 times 1, 2, 4 or 8. avx2: rax = row 0, r11 = row
  // 3; avx512: r10 = row 3, rax = row 8, r11 = -si.
  const bool dyn_a = direct && sva_k != kNone;
  auto a_row = [&](int r) -> RegExp {
    static constexpr int8_t ymm_rows[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {0, 4}, {1, 2}};
    static constexpr int8_t zmm_rows[12][2] = {{0, -8}, {1, -2}, {1, -1}, {1, 0}, {1, 1},  {1, 2},
                                               {0, -2}, {0, -1}, {0, 0},  {0, 1}, {0, 2}, {1, 8}};
    const int8_t* e = z() ? zmm_rows[r] : ymm_rows[r];
    const Reg64& p = e[0] == 0 ? rax : z() ? r10 : r11;
    if (e[1] == 0) return RegExp(p);
    return p + (e[1] > 0 ? rbx : r11) * std::abs(e[1]);
  };
  auto step = [&](int u, bool packed, int mr, int sets) {
    int ar = u % sets * mr;
    for (int v = 0; v < NV; ++v)
      vmovups(V(BB + v), ptr[rdx + (direct_b ? u * sb : u * NR * 4) + v * LN * 4]);
    for (int r = 0; r < mr; ++r) {
      RegExp a = packed ? rax + (u * MR + r) * 4 : dyn_a ? a_row(r) + u * sk : rax + (u * sk + r * si);
      if (o.i32) vpbroadcastd(av, dword[a]);
      else vbroadcastss(av, dword[a]);
      for (int v = 0; v < NV; ++v) {
        Xmm acc = accv(ar + r, v);
        if (o.i32) {
          vpmaddwd(pv, V(BB + v), av);  // two k steps
          vpaddd(acc, acc, pv);
        } else {
          vfmadd231ps(acc, V(BB + v), av);
        }
      }
    }
  };
  // The output side of the tile in slot bi: plain (addressed by its row
  // stride), or through its row table (-1: row 0, the bias) and column
  // table, moved as vectors where its columns are adjacent.
  struct Side {
    int bi;
    bool plain, adj;
    int64_t srow;
    int roff, coff;
  };
  auto side = [&](int bi, ValueId v, bool plain, int roff, int coff) {
    const ptoas::Type& t = ty(v);
    return Side{bi, plain, plain || tile_runs(t, LN, false), t.cols * 4, roff, coff};
  };
  Side sC = side(2, o.c, pC, oRC, oCC), sI{}, sZ{};
  if (o.cin != kNone) sI = side(3, o.cin, pI, oRI, oCI);
  if (o.bias != kNone) sZ = side(4, o.bias, pZ, -1, oCZ);
  // p = row r13 of a plain side (the bias: its only row).
  auto row0 = [&](const Reg64& p, const Side& s) {
    if (s.bi == 4) {
      mov(p, base(4));
    } else {
      imul(p, r13, int(s.srow));
      add(p, base(s.bi));
    }
  };
  // Element (r13 + r, r12 + jv) of a side: at rax + rdx + the returned
  // displacement (not adjacent: rax + ix's lanes).
  auto elem = [&](const Side& s, int r, int jv) -> int64_t {
    if (s.bi == 4 || s.plain) {
      row0(rax, s);
    } else {
      mov(eax, dword[rsp + s.roff + r13 * 4 + r * 4]);
      add(rax, base(s.bi));
    }
    if (s.plain) lea(rdx, ptr[r12 * 4 + jv * 4]);
    else if (s.adj) mov(edx, dword[rsp + s.coff + r12 * 4 + jv * 4]);
    else vmovups(ix, ptr[rsp + s.coff + r12 * 4 + jv * 4]);
    return s.plain && s.bi != 4 ? r * s.srow : 0;
  };
  auto load_in = [&](const Side& s, int r, int jv, bool masked) {
    int64_t d = elem(s, r, jv);
    if (s.adj) vld(tv, ptr[rax + rdx + d], masked);
    else gather_ps(tv, rax, ix, 1);
  };
  // Output (r, v): cin + acc / acc + bias, stored (masked: the tail mask's
  // lanes, rbx of them).
  auto out_vec = [&](int r, int v, bool masked) {
    Xmm acc = accv(r, v);
    int jv = v * LN;
    if (o.cin != kNone) {
      load_in(sI, r, jv, masked);
      o.i32 ? vpaddd(acc, tv, acc) : vaddps(acc, tv, acc);
    }
    if (o.bias != kNone) {
      load_in(sZ, r, jv, masked);
      o.i32 ? vpaddd(acc, acc, tv) : vaddps(acc, acc, tv);
    }
    int64_t d = elem(sC, r, jv);
    if (sC.adj) vst(ptr[rax + rdx + d], acc, masked);
    else mm_scatter(acc, ix, masked ? &rbx : nullptr);
  };
  // A whole MR x NR block whose sides are all plain: each side's corner
  // address once (rbx: C, rcx: cin, rdx: bias), then vectors at constant
  // displacements.
  bool all_plain = pC && (o.cin == kNone || pI) && (o.bias == kNone || pZ);
  auto out_block_plain = [&]() {
    auto corner = [&](const Reg64& p, const Side& s) {
      row0(p, s);
      lea(p, ptr[p + r12 * 4]);
    };
    corner(rbx, sC);
    if (o.cin != kNone) corner(rcx, sI);
    if (o.bias != kNone) corner(rdx, sZ);
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < NV; ++v) {
        Xmm acc = accv(r, v);
        if (o.cin != kNone) {
          vmovups(tv, ptr[rcx + r * sI.srow + v * LN * 4]);
          o.i32 ? vpaddd(acc, tv, acc) : vaddps(acc, tv, acc);
        }
        if (o.bias != kNone) {
          vmovups(tv, ptr[rdx + v * LN * 4]);
          o.i32 ? vpaddd(acc, acc, tv) : vaddps(acc, acc, tv);
        }
        vmovups(ptr[rbx + r * sC.srow + v * LN * 4], acc);
      }
  };
  // Row panels outer (the A panel stays in L1), column panels inner.
  Label jp, ip_next, ip, done;
  lea(rdi, ptr[rsp + oAp]);
  xor_(r13d, r13d);  // i0
  L(ip);
  cmp(r13, r8);
  jge(done, T_NEAR);
  if (direct_b) mov(rsi, base(1));  // B's panel j0: rsi + j0 4
  else lea(rsi, ptr[rsp + oBp]);
  xor_(r12d, r12d);  // j0
  L(jp);
  cmp(r12, r9);
  jge(ip_next, T_NEAR);
  mm_prefetch_step(oPf);
  for (int i = 0; i < NACC; ++i) vxorps(V(AB + i), V(AB + i), V(AB + i));
  auto kloop = [&](bool packed, int mr) {
    Label l4, rem, l1, kd;
    const int sets = std::min(MR / mr, 4);
    int64_t ak = packed ? MR * 4 : sk, bk = direct_b ? sb : NR * 4;
    // A in runs of 8 k (bl.kg): a run per loop step, then the next run;
    // the steps left over lie in one run, ak apart.
    const int U = bl.kg && !packed ? 8 : 4;
    if (direct_b) lea(rdx, ptr[rsi + r12 * 4]);
    else mov(rdx, rsi);
    mov(rcx, kp());
    cmp(rcx, U);
    jl(rem, T_NEAR);
    L(l4);
    sched_range([&] {
      for (int u = 0; u < U; ++u) step(u, packed, mr, sets);
    });
    add(rax, uint32_t(U == 8 ? bl.kg : 4 * ak));
    if (dyn_a && !packed) add(z() ? r10 : r11, uint32_t(U * ak));
    add(rdx, uint32_t(U * bk));
    sub(rcx, U);
    cmp(rcx, U);
    jge(l4, T_NEAR);
    L(rem);
    test(rcx, rcx);
    jz(kd, T_NEAR);
    L(l1);
    step(0, packed, mr, 1);
    add(rax, uint32_t(ak));
    if (dyn_a && !packed) add(z() ? r10 : r11, uint32_t(ak));
    add(rdx, uint32_t(bk));
    dec(rcx);
    jnz(l1, T_NEAR);
    L(kd);
    for (int s = 1; s < sets; ++s)
      for (int r = 0; r < mr; ++r)
        for (int v = 0; v < NV; ++v) {
          Xmm acc = accv(r, v), part = accv(s * mr + r, v);
          o.i32 ? vpaddd(acc, acc, part) : vaddps(acc, acc, part);
        }
  };
  if (direct) {
    Label part, packed, kdone;
    auto in_place = [&](int mr) {  // A's rows i0 .. i0 + mr - 1 read in place
      if (dyn_a) {
        mov(rbx, qword[rsp + oSt]);
        mov(rax, r13);
        imul(rax, rbx);
        add(rax, base(0));
        const Reg64& p3 = z() ? r10 : r11;
        lea(p3, ptr[rbx + rbx * 2]);
        add(p3, rax);
        if (z()) {
          lea(rax, ptr[rax + rbx * 8]);
          mov(r11, rbx);
          neg(r11);
        }
      } else {
        imul(rax, r13, int(si));
        add(rax, base(0));
      }
      kloop(false, mr);
      jmp(kdone, T_NEAR);
    };
    mov(rax, r8);
    sub(rax, r13);
    cmp(rax, MR);
    jl(part, T_NEAR);
    in_place(MR);
    L(part);
    if (rem_s) {
      cmp(rax, rem_s);
      jne(packed, T_NEAR);
      in_place(rem_s);
    }
    L(packed);
    mov(rax, rdi);
    kloop(true, MR);
    L(kdone);
  } else {
    mov(rax, rdi);
    kloop(true, MR);
  }
  {
    Label part, stored;
    mov(rax, r8);
    sub(rax, r13);
    cmp(rax, MR);
    jl(part, T_NEAR);
    mov(rax, r9);
    sub(rax, r12);
    cmp(rax, NR);
    jl(part, T_NEAR);
    if (all_plain) {
      out_block_plain();
    } else {
      if (!sC.adj || (o.cin != kNone && !sI.adj) || (o.bias != kNone && !sZ.adj)) {
        mov(ecx, LN);
        tail_mask_rcx();
      }
      for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) out_vec(r, v, false);
    }
    jmp(stored, T_NEAR);
    L(part);
    for (int r = 0; r < MR; ++r) {
      Label next;
      mov(rax, r13);
      add(rax, r);
      cmp(rax, r8);
      jge(stored, T_NEAR);
      for (int v = 0; v < NV; ++v) {
        mov(rcx, r9);
        sub(rcx, r12);
        if (v) {
          sub(rcx, v * LN);
          jle(next, T_NEAR);
        }
        clamp(rcx, LN);
        mov(rbx, rcx);
        tail_mask_rcx();
        out_vec(r, v, true);
      }
      L(next);
    }
    L(stored);
  }
  if (direct_b) {
    add(r12, NR);
  } else {
    mov(rax, kp());
    imul(rax, rax, NR * 4);
    add(rsi, rax);  // the next B panel
    add(r12, NR);
  }
  jmp(jp, T_NEAR);
  L(ip_next);
  if (!direct) {  // the next A panel (direct: only the last one is packed)
    mov(rax, kp());
    imul(rax, rax, MR * 4);
    add(rdi, rax);
  }
  add(r13, MR);
  jmp(ip, T_NEAR);
  L(done);
  add(rsp, uint32_t(size));
  return true;
}

}  // namespace ptoas::cg::x86::gen
