#!/usr/bin/env bash
# The choice of where ptorun --target=amdgpu runs (PTOAS_AMDGPU_RUNNER) and
# the HIP loader's failures where there is no AMD GPU (runtime/hip_driver.h):
# hip fails cleanly (exit 1, the reason, no output written), auto and
# interp run vadd on the interpreter and the result is exact. LOADER is the
# build's PTOAS_HIP_LOADER (on|off): off says the build has no HIP loader,
# on says libamdhip64.so was not found (checked only where it is absent).
# Needs /usr/bin/python3 with numpy (else exit 77).
#   hip_loader_test.sh PTORUN on|off
set -u
case "$1" in /*) ptorun=$1 ;; *) ptorun=$PWD/$1 ;; esac
loader=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=/usr/bin/python3
"$py" -c 'import numpy' 2>/dev/null || { echo "no numpy: SKIP"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/hip-loader.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$py" -c "
import numpy as np
r = np.random.default_rng(7)
np.save('x.npy', r.standard_normal(10000).astype(np.float32))
np.save('y.npy', r.standard_normal(10000).astype(np.float32))"
run() {  # RUNNER: ptorun on vadd with it in the environment; stderr in err.txt
  rm -f z.npy
  PTOAS_AMDGPU_RUNNER=$1 "$ptorun" "$root/samples/vadd/vadd.pto" --target=amdgpu --pto-arch=a5 --blocks 4 \
    --arg x=x.npy --arg y=y.npy --arg n=10000 --out z=z.npy 2>err.txt
}
exact() {
  "$py" -c "
import numpy as np, sys
x, y, z = (np.load(f) for f in ('x.npy', 'y.npy', 'z.npy'))
sys.exit(0 if np.array_equal(z.ravel(), x + y) else 1)" 2>/dev/null
}
hip_present=0
{ ldconfig -p 2>/dev/null | grep -q libamdhip64; } || ls /opt/rocm/lib/libamdhip64.so* >/dev/null 2>&1 && hip_present=1

# 1. hip: a clean failure with the reason, nothing written.
if [ "$loader" = off ] || [ $hip_present = 0 ]; then
  run hip
  rc=$?
  [ $rc = 1 ] || fail "hip: exit $rc (expected 1): $(cat err.txt)"
  if [ "$loader" = off ]; then
    want="PTOAS_AMDGPU_RUNNER=hip, but this build has no HIP loader (configure with -DPTOAS_HIP_LOADER=ON)"
  else
    want="PTOAS_AMDGPU_RUNNER=hip, but the HIP runtime is not installed: libamdhip64.so was not found"
  fi
  grep -qF "$want" err.txt || fail "hip: message: $(cat err.txt)"
  [ ! -e z.npy ] || fail "hip: an output was written after a failed run"
fi

# 2. auto (and unset): the interpreter, saying why, and the exact sum.
if [ $hip_present = 0 ]; then
  for r in auto ""; do
    run "$r"
    rc=$?
    [ $rc = 0 ] || fail "auto '$r': exit $rc: $(cat err.txt)"
    if [ "$loader" = off ]; then
      want="running the code object on the project's AMDGPU interpreter (gfx942, no AMD GPU here)"
    else
      want="running the code object on the project's AMDGPU interpreter (gfx942, no AMD GPU here: the HIP runtime is not installed: libamdhip64.so was not found"
    fi
    grep -qF "$want" err.txt || fail "auto '$r': note: $(cat err.txt)"
    exact || fail "auto '$r': wrong result"
  done
fi

# 3. interp, whatever the build, and a value that is none of the three.
run interp
rc=$?
[ $rc = 0 ] || fail "interp: exit $rc: $(cat err.txt)"
grep -qF "AMDGPU interpreter (gfx942, PTOAS_AMDGPU_RUNNER=interp)" err.txt || fail "interp: note: $(cat err.txt)"
exact || fail "interp: wrong result"
run bogus
rc=$?
[ $rc = 1 ] && grep -qF "PTOAS_AMDGPU_RUNNER=bogus: expected interp, hip or auto" err.txt ||
  fail "bogus: exit $rc: $(cat err.txt)"

[ $fails = 0 ] && echo "PTOAS_AMDGPU_RUNNER ($loader build): all checks passed"
exit $((fails != 0))
