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
// NV accumulators over k (avx2 6 x 2 ymm, avx512 12 x 2 zmm), row panels
// outer. f32 row- or column-major A is read in place (only a partial last
// panel of a dynamic shape is packed), as is f32 row-major B whose rows
// hold whole panels; other operands are packed (per k, MR or NR values
// widened to 32-bit lanes) in scratch below rsp. Rows and columns past m /
// n are computed from padding and never stored. Row-major 32-bit C, cin
// and bias are addressed by their row strides, other layouts through
// per-row / per-column offset tables (mm_table): moved as vectors where
// their columns are adjacent, else gathered (and C scattered).
bool Gen::matmul_blocked(const Inst& in, const MmOps& o) {
  const ptoas::Type &at = ty(o.a), &bt = ty(o.b), &ct = ty(o.c);
  const int LN = lanes(), MR = z() ? 12 : 6, NV = 2, NR = NV * LN, NACC = MR * NV;
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
  if (direct && si * MR + sk * 4 > (int64_t(1) << 30)) direct = false;
  // A direct panel of rem_s = ms % MR rows (the static shape's last one)
  // has its own micro-kernel; a dynamic shape's other partial panels are
  // packed and computed as MR rows.
  const int rem_s = direct ? int(ms % MR) : 0;
  // Direct B (f32 row-major whose rows hold whole NR-column panels): the
  // micro-kernels load b[k, j0 + c] at b + k sb + (j0 + c) 4; nothing is
  // packed.
  const bool pair = o.i32;
  bool direct_b = !pair && bt.elem == DType::F32 && plain_rm(bt) && bt.cols % NR == 0;
  int64_t sb = bt.cols * 4;
  // C, cin and bias row-major 32-bit: addressed by their row stride, no
  // tables.
  bool pC = plain_rm(ct), pI = o.cin != kNone && plain_rm(ty(o.cin)), pZ = o.bias != kNone && plain_rm(ty(o.bias));
  // A's k values adjacent in runs of 8 (B's down a column): packed by
  // 8 x 8 transposes.
  bool tr = tile_runs(at, 8, false), trb = tile_runs(bt, 8, true);
  int oAp = take((direct ? MR : mp) * ks * 4 + 8 * MR * 4), oBp = direct_b ? 0 : take(np * ks * 4 + 8 * NR * 4);
  // i8: k in pairs, two i16 in a dword (vpmaddwd); the k tables get an
  // entry k repeating k - 1.
  const int KS = pair ? 2 : 1;
  int oRA = take((mp + LN) * 4), oCA = take((ks + 1) * 4), oRB = 0, oCB = 0;
  if (!direct_b) {
    oRB = take((ks + 1) * 4);
    oCB = take((np + LN) * 4);
  }
  int oRC = pC ? -1 : take(ms * 4), oCC = pC ? -1 : take((np + LN) * 4), oRI = oRC, oCI = oCC, oCZ = -1;
  bool cin_own = o.cin != kNone && !pI && !same_layout(ty(o.cin), ct);
  if (cin_own) {
    oRI = take(ms * 4);
    oCI = take((np + LN) * 4);
  }
  if (o.bias != kNone && !pZ) oCZ = take((np + LN) * 4);
  int oSp = take(64);  // tile base addresses: a, b, c, cin, bias; packed k steps
  int oRow = take(8 * std::max(MR, 8));  // line addresses (transposed packing)
  if (size_t(size) > kMaxTileArenaBytes) return false;
  stack_scratch(uint32_t(size));  // a multiple of 64: the frame's alignment stays
  ValueId bases[5] = {o.a, o.b, o.c, o.cin, o.bias};
  for (int i = 0; i < 5; ++i)
    if (bases[i] != kNone) {
      tile_ptr(rax, bases[i]);
      mov(qword[rsp + oSp + 8 * i], rax);
    }
  auto base = [&](int i) { return qword[rsp + oSp + 8 * i]; };
  // (A's tables are built where A is packed.)
  if (!direct_b) {
    mm_table(in, bt, true, r10, oRB);
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
  auto load8 = [&](int g, int count) {
    for (int l = 0; l < count; ++l) {
      mov(rax, qword[rsp + oRow + 8 * (g + l)]);
      vld_e(o.ae, Ymm(l), rax + rcx, false);
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
    mm_table(in, at, true, r8, oRA);
    mm_table(in, at, false, r10, oCA);
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
        load8(g, rows);
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
        mm_widen(o.ae, d);
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
    if (trb) {
      // Columns j0 .. j0 + 7 (at most n - 1) as 8 k values each,
      // transposed to 8 k steps of 8 columns.
      lea(rdx, ptr[r9 - 1]);
      line_addrs(oCB, 8);
      k_head(pk, pk_done);
      mov(ecx, dword[rsp + oRB + r11 * 4]);
      load8(0, 8);
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
          vld_e(o.ae, d, rdx + rax, true);
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
  // bias, an offset vector). avx512 keeps the accumulators in zmm8-31:
  // gather / scatter indices stay below 16 (Bochs faults on higher ones).
  const int AB = z() ? 8 : 0, BB = z() ? 0 : NACC;
  Xmm tv = V(BB), ix = V(BB + 1), av = V(BB + NV), pv = V(BB + NV + 1);
  auto accv = [&](int r, int v) { return V(AB + r * NV + v); };
  // k step u of a 4-step group over mr rows: A at rax (packed: u MR 4 +
  // r 4; direct: u sk + r si), B at rdx (packed: + u NR 4; direct: + u sb).
  // A panel of fewer rows than MR spreads its k steps over `sets`
  // accumulator sets (set s: rows s mr ..): 2 x 2 chains alone would wait
  // on the FMA latency.
  auto step = [&](int u, bool packed, int mr, int sets) {
    int ar = u % sets * mr;
    for (int v = 0; v < NV; ++v)
      vmovups(V(BB + v), ptr[rdx + (direct_b ? u * sb : u * NR * 4) + v * LN * 4]);
    for (int r = 0; r < mr; ++r) {
      int64_t da = packed ? (u * MR + r) * 4 : u * sk + r * si;
      if (o.i32) vpbroadcastd(av, dword[rax + da]);
      else vbroadcastss(av, dword[rax + da]);
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
  for (int i = 0; i < NACC; ++i) vxorps(V(AB + i), V(AB + i), V(AB + i));
  auto kloop = [&](bool packed, int mr) {
    Label l4, rem, l1, kd;
    const int sets = std::min(MR / mr, 4);
    int64_t ak = packed ? MR * 4 : sk, bk = direct_b ? sb : NR * 4;
    if (direct_b) lea(rdx, ptr[rsi + r12 * 4]);
    else mov(rdx, rsi);
    mov(rcx, kp());
    cmp(rcx, 4);
    jl(rem, T_NEAR);
    L(l4);
    sched_range([&] {
      for (int u = 0; u < 4; ++u) step(u, packed, mr, sets);
    });
    add(rax, uint32_t(4 * ak));
    add(rdx, uint32_t(4 * bk));
    sub(rcx, 4);
    cmp(rcx, 4);
    jge(l4, T_NEAR);
    L(rem);
    test(rcx, rcx);
    jz(kd, T_NEAR);
    L(l1);
    step(0, packed, mr, 1);
    add(rax, uint32_t(ak));
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
      imul(rax, r13, int(si));
      add(rax, base(0));
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
