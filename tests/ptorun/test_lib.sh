# Shared by the ptorun shell tests (sourced): `ptorun_test_init NAME PTORUN`
# resolves PTORUN, skips (exit 77) without Debian's python3 and numpy (a
# pyenv shim on PATH may lack it), makes and enters a work directory removed
# at exit, and defines the checks:
#   fail MSG            counts a failure
#   run ARGS...         runs ptorun: $rc, stdout in out.txt, stderr in err.txt
#                       (a crash is a failure; PTORUN_TEST_KILL=S kills it
#                       after S seconds); $ms: how long it took
#   expect_rc WANT WHAT, expect_err SUBSTRING WHAT
#   finish              prints the count and exits 1 on any failure
ptorun_test_init() {
  TEST_NAME="$1"
  PTORUN="${2:?usage: $0 PTORUN}"
  case "$PTORUN" in
    /*) ;;
    */*) PTORUN="$PWD/$PTORUN" ;;
    *) PTORUN="$(command -v "$PTORUN" || echo "$PTORUN")" ;;
  esac
  [ -x "$PTORUN" ] || { echo "$TEST_NAME: ptorun not found at $PTORUN" >&2; exit 2; }
  PY=/usr/bin/python3
  if [ ! -x "$PY" ] || ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "$TEST_NAME: SKIP: $PY with numpy is not available"
    exit 77
  fi
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/$TEST_NAME.XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
  cd "$WORK"
  failures=0
  checks=0
}

fail() { echo "$TEST_NAME: FAIL: $*"; failures=$((failures + 1)); }

run() {
  local t0 t1
  t0=$(date +%s%N)
  set +e
  if [ -n "${PTORUN_TEST_KILL:-}" ]; then
    timeout -s KILL "$PTORUN_TEST_KILL" "$PTORUN" "$@" >out.txt 2>err.txt
  else
    "$PTORUN" "$@" >out.txt 2>err.txt
  fi
  rc=$?
  set -e
  t1=$(date +%s%N)
  ms=$(( (t1 - t0) / 1000000 ))
  checks=$((checks + 1))
  if [ -n "${PTORUN_TEST_KILL:-}" ] && [ "$rc" = 137 ]; then
    fail "ptorun $* hung (killed after $PTORUN_TEST_KILL s)"
  elif [ "$rc" -ge 128 ]; then
    fail "crashed (exit $rc): ptorun $*; stderr: $(head -c 400 err.txt)"
  fi
}

expect_rc() { [ "$rc" = "$1" ] || fail "$2: exit $rc, expected $1; stderr: $(head -c 600 err.txt)"; }
expect_err() { grep -qF -- "$1" err.txt || fail "$2: '$1' not in stderr: $(head -c 600 err.txt)"; }
