#!/usr/bin/env bash
# One prepared run on a machine with an NVIDIA GPU (issue 22): the PTX that
# ptoas writes runs on the GPU through the CUDA driver and is compared with
# the reference interpreter and with the project's PTX interpreter.
#
#   bash tests/gpu/run.sh        (from the repository root; $OUT: where results go)
#
# Binaries: $PTOAS_GPU_BIN, else .gpu-bin/ (made here by tests/gpu/prepare.sh
# and carried), else build/, else a fresh CMake build in build-gpu/ (needs
# the project's dependencies, which the device image lacks). Steps, each
# with its own time limit so that the whole stays under 10 minutes:
#   1. the GPU: the CUDA driver as ptorun sees it, on hand-written PTX (no
#      GPU: say so, exit 77); the PTX backend (none yet: say so, exit 77)
#   2. ptx_interp_tests: the interpreter's own tests on that machine
#   3. samples/runop.sh -target=ptx all on the GPU (default SM, then GPU_ARCH=sm_90)
#      and on the interpreter
#   4. exec_diff: the GPU against the reference interpreter (interp-O0), and
#      the GPU against the PTX interpreter (--ref=ptx-O2:interp)
#   5. bench/gpu/run.sh, when it exists
# $OUT gets summary.txt and one log per step (at most 8 files). Exit 0 when
# every step passed, 1 otherwise, 77 without a GPU.
# PTOAS_GPU_REHEARSAL=1: every step with the PTX interpreter in the GPU's
# place (checks this script on a machine without a GPU).
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
OUT=${OUT:-$root/gpu-out}
mkdir -p "$OUT"
summary=$OUT/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
status=0
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }

# Binaries.
bin=${PTOAS_GPU_BIN:-}
if [ -z "$bin" ]; then
  if [ -x .gpu-bin/ptorun ]; then
    bin=$root/.gpu-bin
  elif [ -x build/ptorun ] && [ -x build/tests/exec/exec_diff ]; then
    bin=$root/build
  fi
fi
if [ -n "$bin" ]; then
  ptoas=$bin/ptoas ptorun=$bin/ptorun
  exec_diff=$bin/exec_diff tests=$bin/ptx_interp_tests
  [ -x "$exec_diff" ] || exec_diff=$bin/tests/exec/exec_diff
  [ -x "$tests" ] || tests=$bin/tests/ptx_interp/ptx_interp_tests
  [ -d "$bin/lib" ] && export LD_LIBRARY_PATH=$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
else
  say "no prepared binaries (.gpu-bin/ from tests/gpu/prepare.sh, or build/): building in build-gpu"
  if ! { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >"$OUT/build.txt" 2>&1 &&
         timeout 400 cmake --build build-gpu -j"$(nproc)" --target ptoas ptorun exec_diff ptx_interp_tests \
           >>"$OUT/build.txt" 2>&1; }; then
    say "FAIL: the build did not succeed (the last lines of build.txt):"
    tail -n 5 "$OUT/build.txt" | tee -a "$summary"
    exit 1
  fi
  ptoas=$root/build-gpu/ptoas ptorun=$root/build-gpu/ptorun
  exec_diff=$root/build-gpu/tests/exec/exec_diff tests=$root/build-gpu/tests/ptx_interp/ptx_interp_tests
fi
for b in "$ptoas" "$ptorun" "$exec_diff"; do
  [ -x "$b" ] || { say "FAIL: $b is missing"; exit 1; }
done
# samples/runop.sh needs a python3 with numpy (the device image's is not /usr/bin's).
py=/usr/bin/python3
"$py" -c 'import numpy' 2>/dev/null || py=$(command -v python3)
export PYTHON_BIN=$py PTOAS_BIN=$ptoas PTORUN_BIN=$ptorun

gpu=gpu
if [ "${PTOAS_GPU_REHEARSAL:-0}" = 1 ]; then
  gpu=interp
  say "REHEARSAL: the PTX interpreter stands in for the GPU (PTOAS_GPU_REHEARSAL=1)"
fi

# 1. The GPU, as the CUDA driver (dlopen libcuda.so.1) reports it to ptorun,
#    with hand-written PTX (tests/ptx_interp/glue/vadd.ptx) whose result is
#    checked; then whether this build has the PTX backend.
probe=$OUT/probe.txt
{ nvidia-smi -L 2>&1 || echo "(no nvidia-smi)"; } >"$probe"
"$py" -c "
import numpy as np
r = np.random.default_rng(1)
np.save('$OUT/px.npy', r.standard_normal(3000).astype(np.float32))
np.save('$OUT/py.npy', r.standard_normal(3000).astype(np.float32))" 2>>"$probe"
PTOAS_PTX_RUNNER=$gpu "$ptorun" samples/vadd/vadd.pto --target=ptx --ptx tests/ptx_interp/glue/vadd.ptx --blocks 3 \
  --arg x="$OUT/px.npy" --arg y="$OUT/py.npy" --arg n=3000 --out z="$OUT/pz.npy" --time >>"$probe" 2>&1
rc=$?
cat "$probe" >>"$summary"
if grep -q "PTOAS_PTX_RUNNER=gpu, but" "$probe"; then
  say "tests/gpu/run.sh: no NVIDIA GPU on this machine ($(grep -m1 -o 'PTOAS_PTX_RUNNER=gpu, but .*' "$probe" | cut -c27-)); nothing was run"
  rm -f "$OUT"/px.npy "$OUT"/py.npy "$OUT"/pz.npy
  exit 77
fi
if [ $rc = 0 ] && "$py" -c "
import numpy as np, sys
x, y, z = (np.load('$OUT/' + f) for f in ('px.npy', 'py.npy', 'pz.npy'))
sys.exit(0 if np.array_equal(z.ravel(), x + y) else 1)"; then
  say "OK   the GPU runs hand-written PTX through the CUDA driver (vadd, exact)"
else
  say "FAIL the hand-written vadd PTX on the GPU (exit $rc, or a wrong result)"
  status=1
fi
rm -f "$OUT"/px.npy "$OUT"/py.npy "$OUT"/pz.npy
if "$ptoas" -target=ptx samples/vadd/vadd.pto -o /dev/null 2>&1 | grep -q "not implemented yet"; then
  say "tests/gpu/run.sh: this build has no PTX backend yet (ptoas -target=ptx: not implemented yet); nothing more to run"
  exit $([ $status = 0 ] && echo 77 || echo 1)
fi

step() {  # NAME LIMIT_S LOG COMMAND...
  local name=$1 limit=$2 log=$OUT/$3
  shift 3
  local t0 rc
  t0=$(date +%s)
  timeout "$limit" "$@" >>"$log" 2>&1
  rc=$?
  local line
  line=$(grep -E "passed|agree|failed|differ" "$log" | tail -n 1)
  if [ $rc = 0 ]; then
    say "OK   $name ($(($(date +%s) - t0)) s): $line"
  elif [ $rc = 124 ]; then
    say "FAIL $name: over its limit of $limit s"
    status=1
  else
    say "FAIL $name (exit $rc, $(($(date +%s) - t0)) s): $line"
    status=1
  fi
}

# 2. The interpreter's own tests.
[ -x "$tests" ] && step "ptx_interp_tests" 60 ptx_interp_tests.txt "$tests"

# 3. The samples: on the GPU at the default SM and at sm_90, then on the interpreter.
step "samples on the GPU" 100 samples_gpu.txt env PTOAS_PTX_RUNNER=$gpu samples/runop.sh -target=ptx all
step "samples on the GPU, GPU_ARCH=sm_90" 100 samples_gpu.txt env PTOAS_PTX_RUNNER=$gpu GPU_ARCH=sm_90 \
  samples/runop.sh -target=ptx all
step "samples on the PTX interpreter" 100 samples_interp.txt env PTOAS_PTX_RUNNER=interp samples/runop.sh -target=ptx all

# 4. The execution differential: the GPU against the reference interpreter,
#    then against the PTX interpreter running the same PTX.
paths=(samples bench/kernels tests/exec/cases)
step "exec_diff ptx-O2:gpu vs interp-O0" 150 exec_diff_gpu.txt \
  "$exec_diff" --scalars=tests/exec/scalars.tsv --timeout=60 --targets=ptx-O2:$gpu "${paths[@]}"
step "exec_diff ptx-O2:gpu vs ptx-O2:interp" 150 exec_diff_gpu.txt \
  "$exec_diff" --scalars=tests/exec/scalars.tsv --timeout=60 --ref=ptx-O2:interp --targets=ptx-O2:$gpu "${paths[@]}"

# 5. The GPU benchmark, when there is one.
if [ -f bench/gpu/run.sh ] && [ "$(elapsed)" -lt 450 ]; then
  step "bench/gpu" $((560 - $(elapsed))) bench_gpu.txt bash bench/gpu/run.sh
fi

say "tests/gpu/run.sh: $(elapsed) s, $([ $status = 0 ] && echo "every step passed" || echo "some steps FAILED")"
exit $status
