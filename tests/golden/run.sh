#!/usr/bin/env bash
# Golden IR tests. For every tests/golden/ir/NAME.pto:
#   NAME.pto      `ptoas --emit=ir [FLAGS] ir/NAME.pto` must exit 0, print
#                 nothing on stderr, print exactly NAME.expected on stdout,
#                 and that output read back must print the same bytes.
#   NAME.err.pto  must print nothing on stdout; NAME.expected holds the exact
#                 stderr (paths relative to tests/golden) followed by a final
#                 line `exit: N` with the exit status.
# FLAGS come from a first line `// FLAGS: ...` in the case (optional); -O0
# unless they give a level (opt_*.pto: one optimizer pass each).
# GOLDEN_DIR=cce runs tests/golden/cce/ the same way with `-target=cce
# --emit=cpp` (the C++ is not read back).
# Usage: tests/golden/run.sh PTOAS [PATTERN]   (PATTERN: a glob on NAME)
# With PTOAS_BLESS=1 the .expected files are rewritten from the actual output.
set -euo pipefail

PTOAS="${1:?usage: tests/golden/run.sh PTOAS [PATTERN]}"
PATTERN="${2:-*}"
case "$PTOAS" in
  /*) ;;
  */*) PTOAS="$PWD/$PTOAS" ;;
  *) PTOAS="$(command -v "$PTOAS" || echo "$PTOAS")" ;;
esac
[ -x "$PTOAS" ] || { echo "golden: ptoas not found at $PTOAS" >&2; exit 2; }
BLESS="${PTOAS_BLESS:-0}"
DIR="${GOLDEN_DIR:-ir}"
EMIT="--emit=ir"
[ "$DIR" = cce ] && EMIT="-target=cce --emit=cpp"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/ptoas-golden.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

pass=0; fail=0; blessed=0
shopt -s nullglob
cases=()
for f in "$DIR"/$PATTERN.pto; do [ -f "$f" ] && cases+=("$f"); done
[ ${#cases[@]} -gt 0 ] || { echo "golden: no cases match '$PATTERN'" >&2; exit 2; }

for f in "${cases[@]}"; do
  name="${f#"$DIR"/}"; name="${name%.pto}"
  exp="$DIR/$name.expected"
  flags=""
  first="$(head -n1 "$f")"
  case "$first" in "// FLAGS:"*) flags="${first#// FLAGS:}" ;; esac
  # The front-end cases show the IR as written: no passes unless the case
  # names a level (the opt_* cases).
  case " $flags " in *" -O"[0-9]*) ;; *) flags="-O0 $flags" ;; esac
  problem=""
  set +e
  # shellcheck disable=SC2086  # FLAGS are words
  "$PTOAS" $EMIT $flags "$f" >"$TMP/out" 2>"$TMP/err" </dev/null
  rc=$?
  set -e
  case "$name" in
    *.err)
      { cat "$TMP/err"; echo "exit: $rc"; } >"$TMP/actual"
      if [ -s "$TMP/out" ]; then problem="error case printed on stdout"; fi
      if [ "$rc" = 0 ]; then problem="error case exited 0"; fi
      ;;
    *)
      cp "$TMP/out" "$TMP/actual"
      if [ "$rc" != 0 ] || [ -s "$TMP/err" ]; then
        problem="exit $rc, stderr: $(head -n3 "$TMP/err")"
      elif [ "$DIR" != ir ]; then
        :
      else
        # Fixed point: the printed IR reads back to the same bytes.
        set +e
        # shellcheck disable=SC2086
        "$PTOAS" --emit=ir $flags - <"$TMP/out" >"$TMP/out2" 2>"$TMP/err2"
        rc2=$?
        set -e
        if [ "$rc2" != 0 ]; then
          problem="printed IR does not read back (exit $rc2): $(head -n3 "$TMP/err2")"
        elif ! cmp -s "$TMP/out" "$TMP/out2"; then
          problem="printing is not a fixed point: $(diff "$TMP/out" "$TMP/out2" | head -n6 || true)"
        fi
      fi
      ;;
  esac

  if [ "$BLESS" = 1 ] && [ -z "$problem" ]; then
    if [ ! -f "$exp" ] || ! cmp -s "$TMP/actual" "$exp"; then
      cp "$TMP/actual" "$exp"
      echo "golden: blessed $name"
      blessed=$((blessed + 1))
    fi
    pass=$((pass + 1))
    continue
  fi
  if [ -z "$problem" ]; then
    if [ ! -f "$exp" ]; then
      problem="missing $exp (run with PTOAS_BLESS=1)"
    elif ! cmp -s "$TMP/actual" "$exp"; then
      problem="output differs from $exp:"$'\n'"$(diff -u "$exp" "$TMP/actual" | head -n 40 || true)"
    fi
  fi
  if [ -n "$problem" ]; then
    echo "golden: FAIL $name: $problem"
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done

# An expectation whose case is gone is stale.
if [ "$PATTERN" = "*" ]; then
  for e in "$DIR"/*.expected; do
    [ -f "${e%.expected}.pto" ] && continue
    echo "golden: FAIL stale $e (no ${e%.expected}.pto)"
    fail=$((fail + 1))
  done
fi

summary="golden: $pass passed, $fail failed"
[ "$BLESS" = 1 ] && summary="$summary, $blessed blessed"
echo "$summary"
[ "$fail" = 0 ]
