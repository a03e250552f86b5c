#!/usr/bin/env bash
# ptorun's limits (issue 18): --timeout / PTORUN_TIMEOUT for a kernel that
# never ends in the view probe and for one that runs too long in native
# code, on every target this machine runs; the --blocks cap; a kernel file
# over the input limit. After any failure no output is written and --inout
# arrays keep their contents.
# Usage: tests/ptorun/ptorun_limits_test.sh PTORUN
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
ptorun_test_init ptorun_limits "${1:-}"
PTORUN_TEST_KILL=60  # a hard outer limit on every run
expect_fast() {  # expect_fast MAX_SECONDS WHAT
  [ "$ms" -lt $(($1 * 1000)) ] || fail "$2: took $ms ms (limit $1 s)"
}

"$PY" -c 'import numpy as np; np.save("y.npy", np.full((64, 256), -3, dtype=np.float32))'

# The targets that run here.
cat >copy.pto <<'PTO'
func.func @k(%y: !pto.ptr<f32>) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %v = pto.make_tensor_view %y, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
  pto.tload ins(%p : !pto.partition_tensor_view<1x16xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
  pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xf32>) outs(%p : !pto.partition_tensor_view<1x16xf32>)
  return
}
PTO
targets=(interp)
for t in avx2 avx512 sve; do
  cp y.npy probe.npy
  run copy.pto --target=$t --inout y=probe.npy
  if [ "$rc" = 0 ]; then targets+=("$t"); else echo "ptorun_limits: note: --target=$t not checked: $(head -n1 err.txt)"; fi
done

# ---- a kernel that never ends: the view probe stops it, located ---------------------
cat >forever.pto <<'PTO'
func.func @k(%y: !pto.ptr<f32>) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %max = arith.constant 9223372036854775807 : index
  scf.for %i = %c0 to %max step %c1 {
    %v = pto.make_tensor_view %y, shape = [%c1, %c1], strides = [%c1, %c1] : !pto.tensor_view<?x?xf32>
  }
  return
}
PTO
for t in "${targets[@]}"; do
  cp y.npy io.npy
  run forever.pto --target=$t --inout y=io.npy --timeout 2 -O0
  expect_rc 1 "endless kernel on $t"
  expect_err "forever.pto:" "endless kernel on $t: located"
  expect_err "runtime error: the time limit of 2 s was exceeded" "endless kernel on $t"
  expect_err "in the view probe, before any block ran" "endless kernel on $t: in the probe"
  expect_fast 15 "endless kernel on $t"
  cmp -s y.npy io.npy || fail "endless kernel on $t: the --inout array changed"
done
# PTORUN_TIMEOUT sets the default; --timeout wins over it.
PTORUN_TIMEOUT=1 run forever.pto --target=interp --inout y=io.npy -O0
expect_rc 1 "PTORUN_TIMEOUT=1"
expect_err "the time limit of 1 s was exceeded" "PTORUN_TIMEOUT=1"
PTORUN_TIMEOUT=1000 run forever.pto --target=interp --inout y=io.npy -O0 --timeout=1.5
expect_err "the time limit of 1.5 s was exceeded" "--timeout over PTORUN_TIMEOUT"
PTORUN_TIMEOUT=soon run copy.pto --target=interp --inout y=io.npy
expect_rc 2 "PTORUN_TIMEOUT=soon"
expect_err "PTORUN_TIMEOUT=soon: expected seconds" "PTORUN_TIMEOUT=soon"
run copy.pto --target=interp --inout y=io.npy --timeout=-1
expect_rc 2 "--timeout=-1"
run copy.pto --target=interp --inout y=io.npy --timeout 0
expect_rc 0 "--timeout 0 (no limit)"

# ---- a kernel whose probe is quick but whose run is long: stopped in the run ----------
# 2,000,000 iterations of a 64x256 texp that writes y each time: the probe
# skips tile ops (about a second), the run takes minutes anywhere.
cat >long.pto <<'PTO'
func.func @k(%y: !pto.ptr<f32>, %n: index) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %v = pto.make_tensor_view %y, shape = [%c64, %c256], strides = [%c256, %c1] : !pto.tensor_view<?x?xf32>
  %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c64, %c256] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<64x256xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 64x256xf32>
  %u = pto.alloc_tile : !pto.tile_buf<vec, 64x256xf32>
  pto.tload ins(%p : !pto.partition_tensor_view<64x256xf32>) outs(%t : !pto.tile_buf<vec, 64x256xf32>)
  scf.for %i = %c0 to %n step %c1 {
    pto.texp ins(%t : !pto.tile_buf<vec, 64x256xf32>) outs(%u : !pto.tile_buf<vec, 64x256xf32>)
    pto.tstore ins(%u : !pto.tile_buf<vec, 64x256xf32>) outs(%p : !pto.partition_tensor_view<64x256xf32>)
  }
  return
}
PTO
for t in "${targets[@]}"; do
  cp y.npy io.npy
  run long.pto --target=$t --inout y=io.npy --arg n=2000000 --timeout 1.5 --pto-arch=a5
  expect_rc 1 "long run on $t"
  expect_err "the time limit of 1.5 s" "long run on $t"
  expect_fast 20 "long run on $t"
  # The kernel wrote y many times before it was stopped: the file stays.
  cmp -s y.npy io.npy || fail "long run on $t: the --inout array was written after a failed run"
  run long.pto --target=$t --out y=out.npy --arg n=2000000 --timeout 1.5 --pto-arch=a5
  expect_rc 1 "long run with --out on $t"
  if [ -e out.npy ] || compgen -G ".tmp-*" >/dev/null; then fail "long run on $t: an --out file was written"; fi
done
cp y.npy io.npy
run long.pto --target=avx2 --inout y=io.npy --arg n=3 --timeout 30 --pto-arch=a5
if [ "$rc" = 0 ]; then
  "$PY" -c 'import numpy as np; y = np.load("io.npy"); assert np.allclose(y, np.exp(np.float32(-3)))' ||
    fail "long.pto with n=3: wrong result"
fi

# ---- the --blocks cap ------------------------------------------------------------------
run copy.pto --target=interp --inout y=io.npy --blocks 2147483648
expect_rc 2 "--blocks 2^31"
expect_err "--blocks" "--blocks 2^31 names the option"
run copy.pto --target=interp --inout y=io.npy --blocks 1048577
expect_rc 2 "--blocks 2^20 + 1"
# (natively: the interpreter clears a megabyte of tile memory per block)
if [ "${#targets[@]}" -gt 1 ]; then
  run copy.pto --target=${targets[1]} --inout y=io.npy --blocks 1048576 --timeout 120
  expect_rc 0 "--blocks 2^20"
fi

# ---- a kernel over the input limit: bad input (exit 1), not usage ---------------------
PTOAS_MAX_INPUT_BYTES=100 run copy.pto --target=interp --inout y=io.npy
expect_rc 1 "kernel over PTOAS_MAX_INPUT_BYTES"
expect_err "larger than the input limit of 100 bytes" "kernel over the input limit"
run nosuch.pto --target=interp
expect_rc 2 "missing kernel"

echo "ptorun_limits: $checks checks, $failures failures (targets: ${targets[*]})"
[ "$failures" -eq 0 ]
