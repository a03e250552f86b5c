#!/usr/bin/env bash
# ptorun --target=ptx end to end with hand-written PTX (--ptx FILE): the
# arguments reach the entry by the PTX_CONTRACT ABI, the result is exact,
# stderr says where the PTX ran, faults come back located, and the runner
# choice (PTOAS_PTX_RUNNER) is checked. Needs /usr/bin/python3 with numpy
# (else exit 77).
#   ptorun_ptx_test.sh PTORUN
set -u
ptorun=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
py=/usr/bin/python3
"$py" -c 'import numpy' 2>/dev/null || { echo "no numpy: SKIP"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ptorun-ptx.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$py" -c "
import numpy as np
r = np.random.default_rng(5)
np.save('x.npy', r.standard_normal(10000).astype(np.float32))
np.save('y.npy', r.standard_normal(10000).astype(np.float32))"
kernel=$root/samples/vadd/vadd.pto
common=(--target=ptx --blocks 4 --arg x=x.npy --arg y=y.npy --arg n=10000 --out z=z.npy)

# 1. The result, and the note on stderr (no GPU here: the interpreter).
PTOAS_PTX_RUNNER=interp "$ptorun" "$kernel" "${common[@]}" --ptx "$here/vadd.ptx" 2>err.txt
rc=$?
[ $rc = 0 ] || fail "vadd: exit $rc: $(cat err.txt)"
grep -q "running the PTX on the project's interpreter" err.txt || fail "vadd: no note on stderr: $(cat err.txt)"
"$py" -c "
import numpy as np, sys
x, y, z = (np.load(f) for f in ('x.npy', 'y.npy', 'z.npy'))
sys.exit(0 if np.array_equal(z.ravel(), x + y) else 1)" || fail "vadd: wrong result"

# 2. A fault: located at the PTX line and the .pto line, exit 1, no output.
rm -f z.npy
PTOAS_PTX_RUNNER=interp "$ptorun" "$kernel" "${common[@]}" --ptx "$here/vadd_oob.ptx" 2>err.txt
rc=$?
[ $rc = 1 ] || fail "oob: exit $rc"
grep -q "vadd_oob.ptx:22:3: fault: global access out of bounds" err.txt || fail "oob: message: $(cat err.txt)"
grep -q "vadd.pto:33)" err.txt || fail "oob: no .pto line: $(cat err.txt)"
[ ! -e z.npy ] || fail "oob: an output was written after a failed run"

# 3. The entry must be the function's; PTX that does not parse is located.
sed 's/\.entry vadd(/.entry other(/' "$here/vadd.ptx" >renamed.ptx
"$ptorun" "$kernel" "${common[@]}" --ptx renamed.ptx 2>err.txt
[ $? = 1 ] && grep -q "has no entry 'vadd' (it has: other)" err.txt || fail "entry: $(cat err.txt)"
sed 's/add.rn.f32/plus.rn.f32/' "$here/vadd.ptx" >bad.ptx
"$ptorun" "$kernel" "${common[@]}" --ptx bad.ptx 2>err.txt
[ $? = 1 ] && grep -q "bad.ptx:41:3: error: unknown instruction 'plus.rn.f32'" err.txt ||
  fail "bad ptx: $(cat err.txt)"

# 4. The runner choice.
PTOAS_PTX_RUNNER=bogus "$ptorun" "$kernel" "${common[@]}" --ptx "$here/vadd.ptx" 2>err.txt
[ $? = 2 ] && grep -q "PTOAS_PTX_RUNNER=bogus: expected interp, gpu or auto" err.txt || fail "bogus runner: $(cat err.txt)"
if ! ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 >/dev/null 2>&1; then
  PTOAS_PTX_RUNNER=gpu "$ptorun" "$kernel" "${common[@]}" --ptx "$here/vadd.ptx" 2>err.txt
  [ $? = 1 ] && grep -q "PTOAS_PTX_RUNNER=gpu, but the CUDA driver is not installed" err.txt ||
    fail "gpu without a driver: $(cat err.txt)"
  "$ptorun" "$kernel" "${common[@]}" --ptx "$here/vadd.ptx" 2>err.txt
  grep -q "no NVIDIA GPU here (the CUDA driver is not installed" err.txt || fail "auto: $(cat err.txt)"
fi
[ $fails = 0 ] && echo "ptorun --target=ptx: all checks passed"
exit $((fails != 0))
