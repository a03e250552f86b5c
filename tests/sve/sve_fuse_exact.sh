#!/usr/bin/env bash
# SVE pto.fuse regions (encoders/sve/fuse.cpp) against the op-by-op
# SVE code and the interpreter, bit for bit: the samples whose chains the
# fuse pass wraps (softmax, RMSNorm, LayerNorm, the fused chain, SiLU /
# SwiGLU) on their inputs with NaNs (with payloads, signalling ones too),
# infinities, zeros of both signs and subnormals sprinkled in, at 128 and
# 512 bits. -O2 (fused) must equal -O0 (op by op) on sve byte for byte,
# and the interpreter's -O0 result except a NaN the CPU creates (its
# default NaN's sign). Also checks that -O2 really fuses (fadda / the
# region's loop in the listing).
#   sve_fuse_exact.sh PTOAS PTORUN SAMPLES_DIR
set -uo pipefail
ptoas=$1 ptorun=$2 samples=$3
"$ptorun" --target=sve --help >/dev/null 2>&1 || { echo "SKIP: no ptorun"; exit 77; }
command -v qemu-aarch64 >/dev/null || { echo "SKIP: no qemu-aarch64"; exit 77; }
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "SKIP: no numpy"; exit 77; }
tmp=${KEEP_TMP:-$(mktemp -d)}; [ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT; mkdir -p "$tmp"
fail=0
run() {  # name target O vl outdir args...
  local k=$1 t=$2 O=$3 vl=$4 out=$5; shift 5
  mkdir -p "$out"
  (cd "$tmp/$k" && "$ptorun" --target="$t" -O"$O" --sve-vl="$vl" --blocks=2 "$samples/$k/$k.pto" "$@" \
     $(for o in $OUTS; do echo --out "$o=$out/$o.npy"; done)) >"$out/log" 2>&1 || { echo "FAIL: $k $t -O$O vl=$vl"; cat "$out/log"; fail=1; }
}
gen() {  # k: inputs name:shape...
  local k=$1; shift
  mkdir -p "$tmp/$k"
  /usr/bin/python3 - "$tmp/$k" "$@" <<'PY'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
for spec in sys.argv[2:]:
    name, shape, *dt = spec.split(':')
    shape = tuple(int(s) for s in shape.split('x'))
    a = rng.standard_normal(shape).astype(np.float32) * 3
    b = a.view(np.uint32).reshape(-1)
    n = b.size
    special = [0x7fc00001, 0x7f800123, 0xffc00042, 0x7f800000, 0xff800000, 0x00000000, 0x80000000, 0x00000007, 0x80400000]
    # specials in every third row only (a NaN spreads over its row)
    rows = np.arange(n) // a.shape[-1]
    pool = np.flatnonzero(rows % 3 == 0) if a.ndim == 2 and a.shape[0] > 2 else np.arange(n)
    for i, idx in enumerate(rng.choice(pool, size=max(1, pool.size // 30), replace=False)):
        b[idx] = special[i % len(special)]
    # rows of only zeros of both signs, only -Inf, a row with a NaN first
    if a.ndim == 2 and a.shape[0] > 6:
        a[1, :] = 0.0; a[1, ::3] = -0.0
        a[2, :] = -np.inf
        a[3, 0] = np.float32('nan')
        a[4, :] = -0.0
        a[5, :] = a[5, 0]
    if dt and dt[0] == 'bf16':  # <u2 bit patterns
        a = (a.view(np.uint32) >> 16).astype(np.uint16)
    np.save(f"{d}/{name}.npy", a)
PY
}
check() {  # k outs...
  local k=$1 before=$fail; shift
  fail=0
  OUTS="$*"
  "$ptoas" -target=sve -O2 --emit=asm "$samples/$k/$k.pto" -o "$tmp/$k.s" 2>/dev/null
  for vl in 128 512; do
    run "$k" sve 2 $vl "$tmp/$k/o2.$vl" "${args[@]}"
    run "$k" sve 0 $vl "$tmp/$k/o0.$vl" "${args[@]}"
    for o in $OUTS; do
      cmp -s "$tmp/$k/o2.$vl/$o.npy" "$tmp/$k/o0.$vl/$o.npy" || { echo "FAIL: $k $o: sve -O2 (fused) differs from -O0 at vl=$vl"; fail=1; }
    done
  done
  run "$k" interp 0 256 "$tmp/$k/ref" "${args[@]}"
  for o in $OUTS; do
    /usr/bin/python3 - "$tmp/$k/ref/$o.npy" "$tmp/$k/o2.512/$o.npy" "$k $o" <<'PY' || fail=1
import sys, numpy as np
r = np.load(sys.argv[1]); g = np.load(sys.argv[2])
w = np.uint32 if r.dtype.itemsize == 4 else np.uint16
r = r.view(w).reshape(-1); g = g.view(w).reshape(-1)
# A NaN the CPU creates: AArch64's default NaN is positive, x86's (the interpreter's) negative.
dn_x86, dn_a64 = (0xffc00000, 0x7fc00000) if w == np.uint32 else (0xffc0, 0x7fc0)
bad = (r != g) & ~((r == dn_x86) & (g == dn_a64))
if bad.any():
    i = int(np.flatnonzero(bad)[0])
    print(f"FAIL: {sys.argv[3]}: {int(bad.sum())} elements differ from the interpreter, first at {i}: {r[i]:#x} vs {g[i]:#x}")
    sys.exit(1)
PY
  done
  [ $fail -eq 0 ] && echo "ok: $k"
  fail=$((fail | before))
}
gen softmax x:77x50; args=(--arg x=x.npy --arg m=77 --arg n=50); check softmax y
grep -q fadda "$tmp/softmax.s" && grep -q fmaxv "$tmp/softmax.s" || { echo "FAIL: softmax -O2 on sve is not fused"; fail=1; }
gen rmsnorm x:45x256:bf16 gamma:1x256; args=(--arg x=x.npy --arg gamma=gamma.npy --arg m=45 --arg eps=1e-5); check rmsnorm y
grep -q fadda "$tmp/rmsnorm.s" || { echo "FAIL: rmsnorm -O2 on sve is not fused"; fail=1; }
gen layernorm x:50x128 gamma:1x128 beta:1x128; args=(--arg x=x.npy --arg gamma=gamma.npy --arg beta=beta.npy --arg m=50 --arg eps=1e-5); check layernorm y
gen fused_chain x:70x200 c:70x200; args=(--arg x=x.npy --arg c=c.npy --arg a=1.75 --arg b=-0.25 --arg m=70 --arg n=200); check fused_chain y
gen silu_swiglu g:33x200 u:33x200; args=(--arg g=g.npy --arg u=u.npy --arg m=33 --arg n=200); check silu_swiglu silu out
exit $fail
