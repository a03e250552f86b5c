#!/usr/bin/env bash
# Bounded input for every tool (docs/security.md): ptoas, ptodis and
# ptorun read at most the input limit (1 GiB, PTOAS_MAX_INPUT_BYTES) + 1
# bytes of any file: the kernel or object, a .npy argument, the source file
# an object's line table names. /dev/zero, a pipe that never ends and a
# sparse file over the limit are a clear error (exit 1), never an abort
# after gigabytes. Also: an empty `=value` is a usage error in every tool.
# Fast: the over-limit regular files are refused from their size, and
# /dev/zero is read under a small limit.
# Usage: tests/cli/bounded_io_test.sh PTOAS PTODIS PTORUN
set -uo pipefail
abs() { case "$1" in /*) echo "$1" ;; */*) echo "$PWD/$1" ;; *) command -v "$1" || echo "$1" ;; esac; }
ptoas=$(abs "${1:?usage: bounded_io_test.sh PTOAS PTODIS PTORUN}") ptodis=$(abs "${2:?}") ptorun=$(abs "${3:?}")
work=$(mktemp -d "${TMPDIR:-/tmp}/ptoas-bounded.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0 checks=0
fail() { echo "bounded_io: FAIL: $*"; failures=$((failures + 1)); }
# run [ENV=V...] TOOL ARGS...: rc, err.txt; 20 s at most (a hang is a failure).
run() {
  checks=$((checks + 1))
  timeout 20 env "$@" >out.txt 2>err.txt </dev/null
  rc=$?
}
expect() {  # expect RC SUBSTRING WHAT
  [ "$rc" = "$1" ] || fail "$3: exit $rc, expected $1; stderr: $(head -c 300 err.txt)"
  grep -qF -- "$2" err.txt || fail "$3: '$2' not in stderr: $(head -c 300 err.txt)"
}
limit_msg="larger than the input limit of"

cat >k.pto <<'PTO'
func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %xv = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %yv = pto.make_tensor_view %y, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<?x?xf32>
  %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<?x?xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
  pto.tload ins(%xp : !pto.partition_tensor_view<?x?xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
  pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xf32>) outs(%yp : !pto.partition_tensor_view<?x?xf32>)
  return
}
PTO
# .npy headers as numpy writes them (v1, padded so the data starts on a
# multiple of 64).
npy_header() {  # SHAPE -> the header of a <f4 array of that shape
  local h="{'descr': '<f4', 'fortran_order': False, 'shape': ($1), }"
  local total=$(( (10 + ${#h} + 1 + 63) / 64 * 64 ))
  local hlen=$((total - 10))
  printf '\x93NUMPY\x01\x00'
  printf "\\x$(printf %02x $((hlen & 255)))\\x$(printf %02x $((hlen >> 8)))"
  printf "%-$((hlen - 1))s\n" "$h"
}
{ npy_header "1, 16,"; head -c 64 /dev/zero; } >x16.npy
# The kernel with 32 KB of comments after it: a source larger than its object.
{ cat k.pto; for i in $(seq 400); do echo "// padding line $i: the source is larger than its object file"; done; } >big_k.pto

# ---- ptoas ----------------------------------------------------------------------
run PTOAS_MAX_INPUT_BYTES=65536 "$ptoas" --emit=ir /dev/zero
expect 1 "cannot read '/dev/zero': $limit_msg 65536 bytes" "ptoas /dev/zero"
truncate -s $(((1 << 30) + 1)) sparse.pto
run "$ptoas" --emit=ir sparse.pto
expect 1 "$limit_msg 1073741824 bytes" "ptoas on a sparse file over 1 GiB"
run PTOAS_MAX_INPUT_BYTES=16K "$ptoas" --emit=ir big_k.pto
expect 1 "$limit_msg 16384 bytes" "ptoas over a K limit"
run PTOAS_MAX_INPUT_BYTES=1M "$ptoas" --emit=ir k.pto
[ "$rc" = 0 ] || fail "ptoas within the limit: exit $rc: $(head -c 300 err.txt)"
checks=$((checks + 1))
PTOAS_MAX_INPUT_BYTES=1000 timeout 20 "$ptoas" --emit=ir - < <(head -c 5000 /dev/zero) >/dev/null 2>err.txt
rc=$?
expect 1 "$limit_msg 1000 bytes" "ptoas from a pipe over the limit"
run PTOAS_MAX_INPUT_BYTES=lots "$ptoas" --emit=ir k.pto
expect 1 "PTOAS_MAX_INPUT_BYTES='lots': expected a byte count" "a bad PTOAS_MAX_INPUT_BYTES"
# A failed read removes the output too (it is a failed run).
echo stale >out.ir
run PTOAS_MAX_INPUT_BYTES=100 "$ptoas" --emit=ir k.pto -o out.ir
expect 1 "$limit_msg" "ptoas over the limit with -o"
[ -e out.ir ] && fail "ptoas over the limit left the output file"

# ---- ptodis -----------------------------------------------------------------------
run PTOAS_MAX_INPUT_BYTES=65536 "$ptodis" /dev/zero
expect 1 "cannot read '/dev/zero': $limit_msg 65536 bytes" "ptodis /dev/zero"
truncate -s $(((1 << 30) + 1)) sparse.o
run "$ptodis" sparse.o
expect 1 "$limit_msg 1073741824 bytes" "ptodis on a sparse file over 1 GiB"
run "$ptodis" --function= k.o
expect 2 "empty value for --function" "ptodis --function="
# The source file the line table names is bounded too: over the limit (or
# not a regular file) it is left out, and ptodis still lists the code.
if "$ptoas" -target=avx2 big_k.pto -o k.o 2>err.txt; then
  run "$ptodis" k.o
  [ "$rc" = 0 ] && grep -q "^big_k.pto:[0-9]*: pto.tload" out.txt || fail "ptodis shows the source line: $(head -c 300 err.txt)"
  obj_size=$(stat -c %s k.o)
  [ "$obj_size" -lt "$(stat -c %s big_k.pto)" ] || fail "test setup: the object ($obj_size bytes) is not smaller than its source"
  run PTOAS_MAX_INPUT_BYTES=$obj_size "$ptodis" k.o
  [ "$rc" = 0 ] || fail "ptodis with the source over the limit: exit $rc: $(head -c 300 err.txt)"
  grep -q "^big_k.pto:[0-9]*$" out.txt || fail "ptodis with the source over the limit: no line numbers"
  grep -q "^big_k.pto:[0-9]*: pto" out.txt && fail "ptodis showed the text of a source over the limit"
  mv big_k.pto big_k.pto.keep
  truncate -s $(((1 << 30) + 1)) big_k.pto
  run "$ptodis" k.o
  [ "$rc" = 0 ] || fail "ptodis with a sparse source over 1 GiB: exit $rc"
  rm big_k.pto
  mkfifo big_k.pto  # no writer: opening it must not wait
  run "$ptodis" k.o
  [ "$rc" = 0 ] || fail "ptodis with a pipe as the source: exit $rc (124: it waited)"
  rm big_k.pto
  mv big_k.pto.keep big_k.pto
else
  fail "ptoas -target=avx2: $(head -c 300 err.txt)"
fi

# ---- ptorun -----------------------------------------------------------------------
# The kernel: read through the same reader (ptorun_main.cpp maps every read
# failure to its usage status 2 for now; the message is the point here).
run PTOAS_MAX_INPUT_BYTES=65536 "$ptorun" /dev/zero
grep -qF "cannot read '/dev/zero': $limit_msg 65536 bytes" err.txt || fail "ptorun /dev/zero: rc $rc: $(head -c 300 err.txt)"
[ "$rc" = 1 ] || [ "$rc" = 2 ] || fail "ptorun /dev/zero: exit $rc"
run "$ptorun" --pto-arch= k.pto
expect 2 "empty value for --pto-arch" "ptorun --pto-arch="
# .npy arguments: /dev/zero fails at the magic (at once, whatever the limit).
run "$ptorun" k.pto --target=interp --arg x=/dev/zero --out y=y.npy
expect 1 "/dev/zero: not a .npy file (bad magic)" "ptorun --arg x=/dev/zero"
# A header promising more than the limit: refused before the data is read,
# from a regular file (sparse) or from a pipe that never ends.
{ npy_header "1, 16,"; } >big.npy
truncate -s $(((1 << 30) + 1)) big.npy
run "$ptorun" k.pto --target=interp --arg x=big.npy --out y=y.npy
expect 1 "$limit_msg 1073741824 bytes" "ptorun with a sparse .npy over 1 GiB"
npy_header "1024, 1024, 1024," >huge_header.npy
checks=$((checks + 1))
timeout 20 "$ptorun" k.pto --target=interp --arg x=/dev/stdin --out y=y.npy \
  < <(cat huge_header.npy /dev/zero) >/dev/null 2>err.txt
rc=$?
expect 1 "$limit_msg 1073741824 bytes" "ptorun with an endless .npy whose header asks for 4 GiB"
npy_header "1, 4096," >x4096_header.npy
checks=$((checks + 1))
PTOAS_MAX_INPUT_BYTES=8K timeout 20 "$ptorun" k.pto --target=interp --arg x=/dev/stdin --out y=y.npy \
  < <(cat x4096_header.npy /dev/zero) >/dev/null 2>err.txt
rc=$?
expect 1 "$limit_msg 8192 bytes" "ptorun with a .npy over a small limit"
checks=$((checks + 1))
timeout 20 "$ptorun" k.pto --target=interp --arg x=/dev/stdin --out y=y.npy \
  < <(cat x16.npy /dev/zero) >/dev/null 2>err.txt
rc=$?
expect 1 "bytes after the array data" "ptorun with a .npy followed by endless bytes"
run "$ptorun" k.pto --target=interp --arg x=x16.npy --out y=y.npy
[ "$rc" = 0 ] && cmp -s <(tail -c 64 x16.npy) <(tail -c 64 y.npy) ||
  fail "ptorun within the limit: exit $rc: $(head -c 300 err.txt)"

echo "bounded_io: $checks runs, $failures failures"
[ "$failures" = 0 ]
