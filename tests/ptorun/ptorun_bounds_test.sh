#!/usr/bin/env bash
# ptorun's pre-run checks against hostile numbers (issue 18): views that start
# before their buffer (a negative addptr), offsets, strides and constants
# near INT64_MAX whose arithmetic overflows, a huge view in a loop. On every
# target this machine runs (interp; avx2 and avx512 natively or under Bochs;
# sve under qemu-aarch64) each must be a located error (exit 1) before any
# kernel code runs, and the --inout array must come back unchanged.
# Usage: tests/ptorun/ptorun_bounds_test.sh PTORUN
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
ptorun_test_init ptorun_bounds "${1:-}"

# The targets that run here: interp always; the others when ptorun can.
"$PY" -c 'import numpy as np; np.save("x16.npy", np.arange(16, dtype=np.float32)); np.save("y16.npy", np.full(16, -3, dtype=np.float32))'
targets=(interp)
cat >copy.pto <<'PTO'
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
for t in avx2 avx512 sve; do
  cp y16.npy probe.npy
  run copy.pto --target=$t --arg x=x16.npy --inout y=probe.npy
  if [ "$rc" = 0 ]; then targets+=("$t"); else echo "ptorun_bounds: note: --target=$t not checked: $(head -n1 err.txt)"; fi
done
# avx512 under Bochs too, when it is installed (slow: only the first case).
bochs=0
PTOAS_FORCE_BOCHS=1 run copy.pto --target=avx512 --arg x=x16.npy --inout y=probe.npy
[ "$rc" = 0 ] && bochs=1

# check_refused WHAT FILE.pto LINE MESSAGE ARGS...: on every target, exit 1,
# the message at FILE:LINE, and y16.npy (passed as --inout y) unchanged.
check_refused() {
  local what="$1" file="$2" line="$3" msg="$4"
  shift 4
  local t
  for t in "${targets[@]}"; do
    cp y16.npy io.npy
    run "$file" --target=$t --inout y=io.npy "$@"
    expect_rc 1 "$what on $t"
    expect_err "$file:$line:" "$what on $t: located"
    expect_err "runtime error: $msg" "$what on $t"
    expect_err "before any block ran" "$what on $t: before the run"
    cmp -s y16.npy io.npy || fail "$what on $t: the --inout array changed"
  done
}

# ---- 1. negative offsets: the issue's reproducer ------------------------------------
cat >neg.pto <<'PTO'
func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %off: index) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %yq = pto.addptr %y, %off : !pto.ptr<f32> -> !pto.ptr<f32>
  %xv = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %yv = pto.make_tensor_view %yq, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<?x?xf32>
  %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<?x?xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
  pto.tload ins(%xp : !pto.partition_tensor_view<?x?xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
  pto.tstore ins(%t : !pto.tile_buf<vec, 1x16xf32>) outs(%yp : !pto.partition_tensor_view<?x?xf32>)
  return
}
PTO
check_refused "addptr -16" neg.pto 7 "the view starts 16 elements before the array passed for parameter %y" --arg x=x16.npy --arg off=-16
check_refused "addptr -1" neg.pto 7 "the view starts 1 element before the array passed for parameter %y" --arg x=x16.npy --arg off=-1
check_refused "addptr -100000" neg.pto 7 "the view starts 100000 elements before" --arg x=x16.npy --arg off=-100000
check_refused "addptr INT64_MIN" neg.pto 5 "addptr by -9223372036854775808 elements overflows 64 bits" --arg x=x16.npy --arg off=-9223372036854775808
if [ $bochs = 1 ]; then
  cp y16.npy io.npy
  PTOAS_FORCE_BOCHS=1 run neg.pto --target=avx512 --inout y=io.npy --arg x=x16.npy --arg off=-1
  expect_rc 1 "addptr -1 under Bochs"
  expect_err "neg.pto:7:" "addptr -1 under Bochs: located"
  cmp -s y16.npy io.npy || fail "addptr -1 under Bochs: the --inout array changed"
fi
# addptr 0 and a positive offset that stays inside still run.
"$PY" -c 'import numpy as np; np.save("y32.npy", np.full(32, -3, dtype=np.float32))'
for t in "${targets[@]}"; do
  cp y32.npy io32.npy
  run neg.pto --target=$t --arg x=x16.npy --inout y=io32.npy --arg off=16
  expect_rc 0 "addptr 16 into a 32-element array on $t"
  "$PY" -c 'import numpy as np; y = np.load("io32.npy"); assert (y[:16] == -3).all() and (y[16:] == np.arange(16)).all()' ||
    fail "addptr 16 on $t: wrong contents"
done

# ---- 2. overflow in the checks' own arithmetic ---------------------------------------
# A partition offset of 2^63-1: o + s overflows.
sed -e 's/%off: index/%off: index/' -e 's/%yq = pto.addptr %y, %off/%yq = pto.addptr %y, %c0/' \
    -e 's/%yp = pto.partition_view %yv, offsets = \[%c0, %c0\]/%yp = pto.partition_view %yv, offsets = [%c0, %off]/' neg.pto >poff.pto
check_refused "partition offset 2^63-1" poff.pto 9 "partition [9223372036854775807, overflow) exceeds dimension 1 of size 16" --arg x=x16.npy --arg off=9223372036854775807
# A row stride of 2^63-1 on a 2-row view: (shape-1)*stride + the last column overflows.
sed -e 's/%off: index/%rs: index/' -e 's/%yq = pto.addptr %y, %off/%yq = pto.addptr %y, %c0/' \
    -e 's/%yv = pto.make_tensor_view %yq, shape = \[%c1, %c16\], strides = \[%c16, %c1\]/%c2 = arith.constant 2 : index\n  %yv = pto.make_tensor_view %yq, shape = [%c2, %c16], strides = [%rs, %c1]/' neg.pto >rstride.pto
check_refused "row stride 2^63-1" rstride.pto 8 "the view's addresses overflow 64 bits" --arg x=x16.npy --arg rs=9223372036854775807
# A row stride of 2^61 on f32: the element offset fits, the byte offset does not.
check_refused "row stride 2^61 (bytes overflow)" rstride.pto 8 "the view's addresses overflow 64 bits" --arg x=x16.npy --arg rs=2305843009213693952
# A column-stride constant of INT64_MAX, as in the sample the issue found.
sed -e 's/%off: index/%n: index/' -e 's/%yq = pto.addptr %y, %off/%yq = pto.addptr %y, %c0/' \
    -e 's/%yv = pto.make_tensor_view %yq, shape = \[%c1, %c16\], strides = \[%c16, %c1\]/%cmax = arith.constant 9223372036854775807 : index\n  %yv = pto.make_tensor_view %yq, shape = [%c1, %c16], strides = [%c16, %cmax]/' neg.pto >cstride.pto
check_refused "column stride constant INT64_MAX" cstride.pto 8 "the view's addresses overflow 64 bits" --arg x=x16.npy --arg n=0
# A huge partition offset times a stride that fits: o*stride overflows
# (the parent view is empty in its other dimension, so its own span fits).
cat >omul.pto <<'PTO'
func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %o: index) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %big = arith.constant 4611686018427387904 : index
  %xv = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %yv = pto.make_tensor_view %y, shape = [%big, %c0], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %yp = pto.partition_view %yv, offsets = [%o, %c0], sizes = [%c1, %c0] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<?x?xf32>
  return
}
PTO
# -O0: nothing reads the view, and -O2 deletes it.
check_refused "partition offset * stride" omul.pto 8 "partition offset 4611686018427387903 times stride 16 in dimension 0 overflows 64 bits" --arg x=x16.npy --arg o=4611686018427387903 -O0

# ---- 3. tile offsets from scalars: native code takes them as they come ------------------
# A subset row of 100000 crashed avx2 (SIGSEGV), -100000 wrote into its
# stack with rc 0; textract/tinsert offsets likewise. The probe checks them.
cat >sub.pto <<'PTO'
func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %r: index) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %xv = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %yv = pto.make_tensor_view %y, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
  %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 4x16xf32>
  %s = pto.subset %t[%r, %c0] sizes [1, 16] : !pto.tile_buf<vec, 4x16xf32>
  pto.tload ins(%xp : !pto.partition_tensor_view<1x16xf32>) outs(%s : !pto.tile_buf<vec, 1x16xf32>)
  pto.tstore ins(%s : !pto.tile_buf<vec, 1x16xf32>) outs(%yp : !pto.partition_tensor_view<1x16xf32>)
  return
}
PTO
for r in 100000 -100000 4 9223372036854775807; do
  check_refused "subset row $r" sub.pto 10 "subset window is outside the tile" --arg x=x16.npy --arg r=$r
done
for t in "${targets[@]}"; do
  cp y16.npy io.npy
  run sub.pto --target=$t --arg x=x16.npy --inout y=io.npy --arg r=3
  expect_rc 0 "subset row 3 on $t"
  cmp -s x16.npy io.npy || fail "subset row 3 on $t: y is not x"
done
cat >tex.pto <<'PTO'
module attributes {pto.target_arch = "a5"} {
func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %r: index) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %xv = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %yv = pto.make_tensor_view %y, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
  %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 4x16xf32>
  %d = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
  pto.tload ins(%xp : !pto.partition_tensor_view<1x16xf32>) outs(%d : !pto.tile_buf<vec, 1x16xf32>)
  pto.tinsert ins(%d, %r, %c0 : !pto.tile_buf<vec, 1x16xf32>, index, index) outs(%t : !pto.tile_buf<vec, 4x16xf32>)
  pto.textract ins(%t, %r, %c0 : !pto.tile_buf<vec, 4x16xf32>, index, index) outs(%d : !pto.tile_buf<vec, 1x16xf32>)
  pto.tstore ins(%d : !pto.tile_buf<vec, 1x16xf32>) outs(%yp : !pto.partition_tensor_view<1x16xf32>)
  return
}
}
PTO
check_refused "tinsert row 100000" tex.pto 13 "pto.tinsert: the destination tile (4x16) is smaller than the 100001x16 region" --arg x=x16.npy --arg r=100000
check_refused "tinsert row -1" tex.pto 13 "pto.tinsert: negative row/column offset" --arg x=x16.npy --arg r=-1
check_refused "tinsert row INT64_MAX" tex.pto 13 "pto.tinsert: the offset (9223372036854775807, 0) is outside the destination tile" --arg x=x16.npy --arg r=9223372036854775807
for t in "${targets[@]}"; do
  cp y16.npy io.npy
  run tex.pto --target=$t --arg x=x16.npy --inout y=io.npy --arg r=2
  expect_rc 0 "tinsert/textract row 2 on $t"
  cmp -s x16.npy io.npy || fail "tinsert/textract row 2 on $t: y is not x"
done

# ---- 4. memory: the probe keeps no views, a refused request allocates nothing ---------
# rss_kb CMD...: runs ptorun under /usr/bin/time; $rss is its peak RSS in KB.
rss_run() {
  set +e
  /usr/bin/time -f "%M" -o rss.txt "$PTORUN" "$@" >out.txt 2>err.txt
  rc=$?
  set -e
  checks=$((checks + 1))
  rss=$(tail -n1 rss.txt)
}
if [ -x /usr/bin/time ]; then
  # 3,000,000 iterations that each build a view, a pointer and a tile: the
  # probe used to keep ~170 bytes per view (half a gigabyte here).
  cat >loop.pto <<'PTO'
func.func @k(%x: !pto.ptr<f32>, %n: index) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %xv = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
    %q = pto.addptr %x, %c1 : !pto.ptr<f32> -> !pto.ptr<f32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<1x16xf32>) outs(%t : !pto.tile_buf<vec, 1x16xf32>)
  }
  return
}
PTO
  rss_run loop.pto --target=${targets[1]:-interp} --arg x=x16.npy --arg n=3000000 -O0
  expect_rc 0 "3M-iteration view loop"
  [ "$rss" -lt 100000 ] || fail "3M-iteration view loop: peak RSS $rss KB (expected < 100 MB)"
  # vadd with n = 2^30 and 1000-element arrays: "too small", at once, and
  # the 4 GiB --out array is never allocated.
  cat >vadd.pto <<'PTO'
func.func @vadd(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>, %n: index) attributes {pto.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xv = pto.make_tensor_view %x, shape = [%c1, %n], strides = [%n, %c1] : !pto.tensor_view<?x?xf32>
  %yv = pto.make_tensor_view %y, shape = [%c1, %n], strides = [%n, %c1] : !pto.tensor_view<?x?xf32>
  %zv = pto.make_tensor_view %z, shape = [%c1, %n], strides = [%n, %c1] : !pto.tensor_view<?x?xf32>
  return
}
PTO
  "$PY" -c 'import numpy as np; np.save("x1000.npy", np.ones(1000, dtype=np.float32))'
  rss_run vadd.pto --target=interp --arg x=x1000.npy --arg y=x1000.npy --out z=z.npy --arg n=1073741824
  expect_rc 1 "vadd n=2^30"
  expect_err "the array for parameter %x is too small: the kernel's views reach 1073741824 elements" "vadd n=2^30"
  expect_err "the array for parameter %y is too small" "vadd n=2^30"
  [ "$rss" -lt 100000 ] || fail "vadd n=2^30: peak RSS $rss KB: the output was allocated"
  [ ! -e z.npy ] || fail "vadd n=2^30: z.npy written"
  # An --out array over the input limit is refused, not allocated.
  rss_run vadd.pto --target=interp --out x=x.npy --out y=y.npy --out z=z.npy --arg n=1073741824
  expect_rc 1 "outputs of 4 GiB"
  expect_err "the output for parameter %x would need 1073741824 elements, more than this runner allocates (the input limit of 1073741824 bytes; PTOAS_MAX_INPUT_BYTES sets it)" "outputs of 4 GiB"
  [ "$rss" -lt 100000 ] || fail "outputs of 4 GiB: peak RSS $rss KB"
  PTOAS_MAX_INPUT_BYTES=4K rss_run vadd.pto --target=interp --out x=x.npy --out y=y.npy --out z=z.npy --arg n=1025
  expect_rc 1 "outputs over PTOAS_MAX_INPUT_BYTES=4K"
  expect_err "more than this runner allocates (the input limit of 4096 bytes" "PTOAS_MAX_INPUT_BYTES=4K"
else
  echo "ptorun_bounds: note: /usr/bin/time missing: memory checks skipped"
fi

echo "ptorun_bounds: $checks checks, $failures failures (targets: ${targets[*]}$([ $bochs = 1 ] && echo ', bochs'))"
[ "$failures" -eq 0 ]
