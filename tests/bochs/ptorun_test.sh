#!/usr/bin/env bash
# ptorun --target=avx512 under Bochs (forced with PTOAS_FORCE_BOCHS=1, so a
# CPU with AVX-512 tests the same path): the vadd sample through runop.sh,
# and a clear error for a kernel whose data is over the runner's cap.
# Usage: ptorun_test.sh SOURCE_DIR PTOAS PTORUN. Exit 77 without bochs.
set -u
src=$1 ptoas=$2 ptorun=$3
if ! command -v bochs-bin >/dev/null 2>&1 && [ -z "${PTOAS_BOCHS:-}" ]; then
  echo "SKIP: bochs is not installed"
  exit 77
fi
export PTOAS_FORCE_BOCHS=1
out=$(PTOAS_BIN=$ptoas PTORUN_BIN=$ptorun "$src/samples/runop.sh" -target=avx512 -t vadd 2>&1)
echo "$out"
case "$out" in
  *"2 passed, 0 failed, 0 skipped"*) ;;
  *) echo "FAIL: runop.sh -target=avx512 -t vadd"; exit 1 ;;
esac
echo "ok"
