#!/usr/bin/env bash
# The layers below tile ops (VPTO micro-instructions, VMI ops) are parsed and
# verified but lowered by no target yet: each compiling target refuses the
# first such op at its location, naming the layer and the op, with the
# refusal code [unsupported-layer] (encoders/driver.cpp). A pto.vecscope
# names the first micro-instruction inside it.
set -euo pipefail
PTOAS="${1:?usage: vpto_layer_test.sh PTOAS}"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/ptoas-vpto.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
fail=0

cat >"$TMP/vpto.pto" <<'PTO'
module {
  func.func @k(%src: !pto.ptr<f32, ub>, %dst: !pto.ptr<f32, ub>) {
    %c0 = arith.constant 0 : index
    pto.vecscope {
      %v = pto.vlds %src[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %m = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      pto.vsts %v, %dst[%c0], %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
    }
    return
  }
}
PTO
cat >"$TMP/vmi.pto" <<'PTO'
module {
  func.func @k(%a: !pto.vmi.vreg<128xf32>, %b: !pto.vmi.vreg<128xf32>) {
    %s = pto.vmi.vadd %a, %b : !pto.vmi.vreg<128xf32>, !pto.vmi.vreg<128xf32> -> !pto.vmi.vreg<128xf32>
    return
  }
}
PTO

check() {  # file target expected-substring
  local rc=0
  "$PTOAS" -target="$2" "$TMP/$1" -o "$TMP/out" 2>"$TMP/err" || rc=$?
  if [ "$rc" != 1 ]; then echo "FAIL $1 on $2: exit $rc (want 1)"; fail=1; return; fi
  if ! grep -qF "$3" "$TMP/err"; then
    echo "FAIL $1 on $2: want '$3' in:"; cat "$TMP/err"; fail=1; return
  fi
  if [ "$(grep -c 'error:' "$TMP/err")" != 1 ]; then echo "FAIL $1 on $2: more than one error:"; cat "$TMP/err"; fail=1; fi
}

# --emit=ir reads, verifies and prints both (exit 0).
for f in vpto.pto vmi.pto; do
  "$PTOAS" --emit=ir "$TMP/$f" >/dev/null 2>"$TMP/err" || { echo "FAIL --emit=ir $f"; cat "$TMP/err"; fail=1; }
done
for t in avx2 cce ptx; do
  check vpto.pto "$t" "vpto.pto:5:12: error: the VPTO micro-instruction pto.vlds is not supported on $t yet [unsupported-layer]"
  check vmi.pto "$t" "vmi.pto:3:10: error: the VMI operation pto.vmi.vadd is not supported on $t yet [unsupported-layer]"
done
[ "$fail" = 0 ] && echo "vpto_layer: ok"
exit "$fail"
