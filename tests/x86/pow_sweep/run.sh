#!/usr/bin/env bash
# tpow accuracy sweep (not in CI; a few seconds): 10,010,624 (x, y) pairs
# (random bit patterns, normal values, integer / half / random exponents and
# every pair of 15 special values) run by the interpreter and by a native
# target through ptorun, then the ULP distance of every result.
# usage: tests/x86/pow_sweep/run.sh [PTORUN] [TARGET (avx2)]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ptorun=${1:-$here/../../../build/ptorun}
target=${2:-avx2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
/usr/bin/python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(11)
B = 611; N = B * 64 * 256
xb = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32).view(np.float32)
xm = (rng.standard_normal(N) * 3).astype(np.float32)
x = np.where(rng.random(N) < 0.5, xb, xm).astype(np.float32)
yi = rng.integers(-40, 41, N).astype(np.float32)
yr = (rng.standard_normal(N) * 4).astype(np.float32)
yb = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32).view(np.float32)
sel = rng.random(N)
y = np.where(sel < 0.3, yi, np.where(sel < 0.8, yr, yb)).astype(np.float32)
sp = np.array([0, -0.0, 1, -1, np.inf, -np.inf, np.nan, 2, -2, 0.5, 1e-45, -1e-45, 3.4e38, -3.4e38,
               1.17549435e-38], dtype=np.float32)
x[:len(sp) ** 2] = np.repeat(sp, len(sp)); y[:len(sp) ** 2] = np.tile(sp, len(sp))
np.save('a.npy', x.reshape(B * 64, 256)); np.save('b.npy', y.reshape(B * 64, 256))
PY
for t in interp "$target"; do
  "$ptorun" "$here/pow.pto" --target="$t" --blocks 611 --arg a=a.npy --arg b=b.npy --arg n=39104 --out o=o_$t.npy
done
/usr/bin/python3 - "$target" <<'PY'
import sys, numpy as np
t = sys.argv[1]
a = np.load('o_interp.npy').view(np.int32).ravel().astype(np.int64)
b = np.load('o_%s.npy' % t).view(np.int32).ravel().astype(np.int64)
nan = np.isnan(np.load('o_interp.npy').ravel()) | np.isnan(np.load('o_%s.npy' % t).ravel())
key = lambda v: np.where(v < 0, -2**31 - v, v)
d = np.abs(key(a) - key(b))
print('tpow [%s]: %d inputs, %d not bit-identical, max %d ULP (finite), %d NaN results differing'
      % (t, len(a), int((a != b).sum()), int(d[~nan].max()), int((nan & (a != b)).sum())))
sys.exit(0 if d[~nan].max() <= 1 and not (nan & (a != b)).any() else 1)
PY
