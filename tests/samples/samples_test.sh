#!/usr/bin/env bash
# Runs every sample (samples/runop.sh) at -O0 and -O2 on the interpreter,
# on avx2 when this CPU has AVX2, and on cce (the CPU model) when g++ is
# here: the optimizer must not change any result beyond the sample's
# comparison class. usage: samples_test.sh PTOAS PTORUN
set -uo pipefail
export PTOAS_BIN="${1:?usage: samples_test.sh PTOAS PTORUN}" PTORUN_BIN="${2:?}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUNOP="$HERE/../../samples/runop.sh"
targets=(interp)
grep -qw avx2 /proc/cpuinfo && targets+=(avx2)
# cce: the C++ ptoas writes, compiled with g++ against the CPU model.
command -v g++ >/dev/null && targets+=(cce)
bad=0
for t in "${targets[@]}"; do
  for o in -O0 -O2; do
    out="$(PTORUN_FLAGS="$o" "$RUNOP" -target="$t" all 2>&1)"
    rc=$?
    echo "samples $t $o: $(echo "$out" | tail -n1)"
    if [ $rc != 0 ]; then
      echo "$out" | grep -v "	OK" | head -n 20
      bad=1
    fi
  done
done
exit $bad
