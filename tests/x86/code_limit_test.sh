#!/usr/bin/env bash
# The per-function code limit (kMaxFunctionCodeBytes, encoders/codegen.h):
# a function whose code passes it is a located error naming the limit, exit
# 1 and no output file, on avx2, avx512 and sve, through ptoas and ptorun.
# --code-limit lowers the limit so a small kernel reaches it.
# With --full, the real limit on a generated kernel of 200,000 tile ops
# (bench/gen_tile_ops.py; ctest -C full).
# Usage: code_limit_test.sh PTOAS PTORUN TESTDIR [--full]
set -u
ptoas=$(realpath "$1") ptorun=$(realpath "$2") dir=$(realpath "$3") full=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
k="$dir/kernels/views_nd.pto"
want="the code of @views_nd passes the limit of 300 bytes per function on"
for t in avx2 avx512 sve; do
  "$ptoas" --code-limit=300 -target=$t "$k" -o out.o 2>err.txt
  rc=$?
  [ "$rc" = 1 ] || fail "$t: exit $rc, expected 1"
  grep -Eq "^$k:[0-9]+:[0-9]+: error: $want $t here" err.txt || fail "$t: message: $(head -c 400 err.txt)"
  [ -e out.o ] && fail "$t: out.o written"
  "$ptoas" -target=$t "$k" -o out.o 2>err.txt || fail "$t: without the test limit: $(head -c 400 err.txt)"
  rm -f out.o
done
if /usr/bin/python3 -c 'import numpy as np
for n, k in (("x", 6144), ("y", 720)): np.save(n + ".npy", np.zeros(k, np.float32))' 2>/dev/null; then
  "$ptorun" --code-limit=300 "$k" --target=avx2 --arg x=x.npy --arg y=y.npy --out z=z.npy \
    --arg o0=0 --arg o1=0 --arg o2=0 --arg o3=0 --arg o4=0 2>err.txt
  rc=$?
  [ "$rc" = 1 ] || fail "ptorun: exit $rc, expected 1"
  grep -q "$want avx2" err.txt || fail "ptorun: $(head -c 400 err.txt)"
  [ -e z.npy ] && fail "ptorun: z.npy written"
fi
if [ "$full" = --full ]; then
  /usr/bin/python3 "$dir/../../bench/gen_tile_ops.py" 200000 -o big.pto || exit 1
  "$ptoas" -target=avx2 -O0 big.pto -o big.o 2>err.txt
  rc=$?
  [ "$rc" = 1 ] || fail "200,000 ops: exit $rc, expected 1"
  grep -q "passes the limit of 67108864 bytes per function on avx2" err.txt || fail "200,000 ops: $(head -c 400 err.txt)"
fi
echo "code_limit: $fails failed"
[ "$fails" = 0 ]
