#!/usr/bin/env bash
# Views of rank 3 to 5 end to end (tests/x86/kernels/views_nd.pto; the
# target_diff cases cover each rank alone): ptorun on the interpreter at -O0 is
# the reference, then the interpreter at -O2, avx2, avx512 (where the CPU
# has it, else under Bochs; skipped when neither runs) and sve at 128 and
# 512 bits (under qemu; skipped without it), each at -O0 and -O2 (fused:
# the views go through the region's op-by-op fallback). The output starts
# from random data (--inout): what the kernel leaves alone must stay.
# Usage: views_run.sh PTORUN TESTDIR
set -u
ptorun=$(realpath "$1") dir=$(realpath "$2")
PY=/usr/bin/python3
"$PY" -c 'import numpy' 2>/dev/null || { echo "SKIP: $PY with numpy is not available"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
"$PY" - <<'PYEOF' || exit 1
import numpy as np
rng = np.random.default_rng(7)
np.save("x.npy", rng.standard_normal(2 * 3 * 4 * 8 * 32).astype(np.float32))
np.save("y.npy", rng.standard_normal(720).astype(np.float32))
np.save("z0.npy", rng.standard_normal(1178).astype(np.float32))
PYEOF
k="$dir/kernels/views_nd.pto"
args=(--arg x=x.npy --arg y=y.npy --arg o0=1 --arg o1=1 --arg o2=2 --arg o3=4 --arg o4=12)
run() {  # run NAME PTORUN-OPTIONS...: z.NAME.npy, or a message and exit 1
  local name=$1
  shift
  cp z0.npy "z.$name.npy"
  "$ptorun" "$k" "$@" "${args[@]}" --inout "z=z.$name.npy" >out.txt 2>&1 || {
    echo "FAIL: ptorun $* (exit $?): $(head -c 600 out.txt)"
    exit 1
  }
}
run ref --target=interp -O0
cmp -s z.ref.npy z0.npy && { echo "FAIL: the interpreter wrote nothing"; exit 1; }
fails=0 runs=0
targets=(interp avx2)
{ grep -q avx512f /proc/cpuinfo || command -v bochs >/dev/null; } && targets+=(avx512)
command -v qemu-aarch64 >/dev/null && targets+=("sve --sve-vl=128" "sve --sve-vl=512")
for t in "${targets[@]}"; do
  for o in -O0 -O2; do
    name="$(echo "$t$o" | tr -c 'a-z0-9\n' '_')"
    # shellcheck disable=SC2086
    run "$name" --target=$t $o
    runs=$((runs + 1))
    if ! cmp -s "z.$name.npy" z.ref.npy; then
      echo "FAIL: --target=$t $o differs from the interpreter"
      fails=$((fails + 1))
    fi
  done
done
echo "views_run: $runs runs, $fails differ (${targets[*]})"
[ "$fails" = 0 ]
