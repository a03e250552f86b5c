#!/usr/bin/env bash
# The prefetch of a K loop's next A and B blocks (x86 gemm_io.cpp,
# mm_prefetch_setup): bench/kernels/gemm_f32.pto (tload A, tload B,
# tmatmul.acc in a loop whose views move 128 rows / columns an iteration)
# gets it on avx2 and avx512 at -O1 and -O2; the same kernel with views
# the loop does not move gets none. Then tests/x86/kernels/gemm_kloop.pto
# (64 x 64 tiles: the interpreter, which gives every alloc_tile its own
# memory, has room for those) runs 192 x 128 x 256 (three loop iterations
# a tile, the last one fetching nothing) on avx2, and on avx512 where the
# CPU has it, and must equal the interpreter exactly (small integers:
# every sum is exact in any order).
# Usage: mm_prefetch_test.sh PTOAS PTORUN SOURCE_DIR
set -u
ptoas=$(realpath "$1") ptorun=$(realpath "$2") src=$(realpath "$3")
k="$src/bench/kernels/gemm_f32.pto"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
count() {  # count KERNEL TARGET OPT: the listing's prefetches
  "$ptoas" "$1" --target="$2" "$3" --emit=asm -o - 2>err.txt | grep -c prefetcht0
}
# The loop's views made from offsets it does not change.
sed -e 's/offsets = \[%r0, %k0\]/offsets = [%r0, %c0]/' -e 's/offsets = \[%k0, %n0\]/offsets = [%c0, %n0]/' "$k" >fixed.pto
cmp -s "$k" fixed.pto && fail "the kernel's loop views were not found to rewrite"
for t in avx2 avx512; do
  for o in -O1 -O2; do
    n=$(count "$k" $t $o)
    [ "${n:-0}" -ge 16 ] || fail "$t $o: $n prefetches in the K loop's tmatmul (at least 8 lines of A's and B's rows): $(head -c 300 err.txt)"
    n=$(count fixed.pto $t $o)
    [ "${n:-0}" = 0 ] || fail "$t $o: $n prefetches with views the loop does not move"
  done
done
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "mm_prefetch: listings checked ($fails failed); SKIP the runs: /usr/bin/python3 with numpy is not available"
  [ "$fails" = 0 ] && exit 77
  exit 1
fi
/usr/bin/python3 - <<'PYEOF' || exit 1
import numpy as np
rng = np.random.default_rng(11)
m, n, k = 192, 128, 256
np.save("a.npy", (rng.integers(-3, 4, m * k) * 0.25).astype(np.float32))
np.save("b.npy", (rng.integers(-3, 4, k * n) * 0.5).astype(np.float32))
PYEOF
run() {  # run NAME PTORUN-OPTIONS...
  local name=$1
  shift
  "$ptorun" "$src/tests/x86/kernels/gemm_kloop.pto" "$@" --arg a=a.npy --arg b=b.npy --out "c=c.$name.npy" --arg m=192 --arg n=128 --arg k=256 \
    >out.txt 2>&1 || fail "ptorun $*: $(head -c 400 out.txt)"
}
[ "$(count "$src/tests/x86/kernels/gemm_kloop.pto" avx2 -O2)" -ge 16 ] || fail "gemm_kloop.pto: no prefetch on avx2"
run ref --target=interp
targets=(avx2)
grep -q avx512f /proc/cpuinfo && targets+=(avx512)
for t in "${targets[@]}"; do
  run "$t" --target=$t -O2
  cmp -s "c.$t.npy" c.ref.npy || fail "--target=$t -O2 differs from the interpreter"
done
echo "mm_prefetch: listings of avx2 and avx512 at -O1 and -O2; runs on ${targets[*]}; $fails failed"
[ "$fails" = 0 ]
