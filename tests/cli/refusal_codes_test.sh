#!/usr/bin/env bash
# A refusal carries its code ([unsupported-operands], ...) on the CPU
# targets: a kernel per code (operands, control, attribute: an atomic
# mode other than atomic_add, layout), each
# on avx2 and sve (the toy target checks its own: encoders/toy/toy_test.sh).
#   refusal_codes_test.sh PTOAS
set -uo pipefail
ptoas=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
tile='!pto.tile_buf<vec, 8x8xf32>'
kernel() {  # name body
  printf 'module {\n  func.func @k(%%a: !pto.ptr<f32>) {\n    %%t = pto.alloc_tile : %s\n    %%u = pto.alloc_tile : %s\n%s\n    return\n  }\n}\n' \
    "$tile" "$tile" "$2" > "$tmp/$1.pto"
}
expect() {  # name target code
  if "$ptoas" -target="$2" "$tmp/$1.pto" -o "$tmp/out" 2>"$tmp/err"; then
    echo "refusal_codes: FAIL: $1 on $2 accepted"; fails=$((fails + 1)); return
  fi
  if ! grep -q "error: .* is not supported on $2 \[$3\]$" "$tmp/err"; then
    echo "refusal_codes: FAIL: $1 on $2: no [$3] in: $(head -1 "$tmp/err")"; fails=$((fails + 1))
  fi
}
kernel inplace "    pto.ttrans ins(%t, %u : $tile, $tile) outs(%t : $tile)"
kernel atomic "    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %tv = pto.make_tensor_view %a, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x8xf32>
    pto.tstore ins(%t : $tile) outs(%pv : !pto.partition_tensor_view<8x8xf32>) {atomicType = #pto<atomic_type atomic_max>}"
boxed='!pto.tile_buf<vec, 16x16xf32, blayout=col_major, slayout=row_major>'
kernel boxed "    %b = pto.alloc_tile : $boxed
    pto.tadd ins(%b, %b : $boxed, $boxed) outs(%b : $boxed)"
# A call to another function (the driver refuses it on every target).
kernel call "    func.call @g() : () -> ()"
sed -i 's/^}$/  func.func private @g() {\n    return\n  }\n}/' "$tmp/call.pto"
for t in avx2 sve; do
  expect inplace $t unsupported-operands
  expect call $t unsupported-control
  expect atomic $t unsupported-attribute
  expect boxed $t unsupported-layout
done
# The code follows the words: a kernel the target takes has none.
printf 'module {\n  func.func @k() {\n    return\n  }\n}\n' > "$tmp/ok.pto"
"$ptoas" -target=avx2 "$tmp/ok.pto" -o "$tmp/ok.o" || { echo "refusal_codes: FAIL: empty kernel refused"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "refusal_codes: ok"
[ $fails -eq 0 ]
