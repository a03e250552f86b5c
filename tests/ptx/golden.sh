#!/usr/bin/env bash
# Golden PTX: for every tests/ptx/golden/NAME.pto, `ptoas -target=ptx [FLAGS]
# golden/NAME.pto` must exit 0 with nothing on stderr and print exactly
# NAME.expected; NAME.err.pto must fail and NAME.expected holds its stderr
# and a last line `exit: N`. FLAGS from a first line `// FLAGS: ...`.
# Usage: tests/ptx/golden.sh PTOAS [PATTERN]; PTOAS_BLESS=1 rewrites the
# .expected files from the actual output.
set -euo pipefail
PTOAS="${1:?usage: tests/ptx/golden.sh PTOAS [PATTERN]}"
PATTERN="${2:-*}"
case "$PTOAS" in /*) ;; */*) PTOAS="$PWD/$PTOAS" ;; esac
BLESS="${PTOAS_BLESS:-0}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/ptoas-ptx-golden.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
pass=0; fail=0; blessed=0
for f in golden/$PATTERN.pto; do
  [ -f "$f" ] || continue
  name="${f#golden/}"; name="${name%.pto}"
  exp="golden/$name.expected"
  flags=""
  first="$(head -n1 "$f")"
  case "$first" in "// FLAGS:"*) flags="${first#// FLAGS:}" ;; esac
  set +e
  # shellcheck disable=SC2086
  "$PTOAS" -target=ptx $flags "$f" >"$TMP/out" 2>"$TMP/err" </dev/null
  rc=$?
  set -e
  problem=""
  case "$name" in
    *.err)
      { cat "$TMP/err"; echo "exit: $rc"; } >"$TMP/actual"
      [ -s "$TMP/out" ] && problem="error case printed on stdout"
      [ "$rc" = 0 ] && problem="error case exited 0"
      ;;
    *)
      cp "$TMP/out" "$TMP/actual"
      if [ "$rc" != 0 ] || [ -s "$TMP/err" ]; then problem="exit $rc, stderr: $(head -n3 "$TMP/err")"; fi
      ;;
  esac
  if [ "$BLESS" = 1 ] && [ -z "$problem" ]; then
    if [ ! -f "$exp" ] || ! cmp -s "$TMP/actual" "$exp"; then
      cp "$TMP/actual" "$exp"
      echo "ptx golden: blessed $name"
      blessed=$((blessed + 1))
    fi
    pass=$((pass + 1))
    continue
  fi
  if [ -z "$problem" ]; then
    if [ ! -f "$exp" ]; then problem="missing $exp (run with PTOAS_BLESS=1)"
    elif ! cmp -s "$TMP/actual" "$exp"; then problem="output differs from $exp:"$'\n'"$(diff -u "$exp" "$TMP/actual" | head -n 40 || true)"
    fi
  fi
  if [ -n "$problem" ]; then
    echo "ptx golden: FAIL $name: $problem"
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done
if [ "$PATTERN" = "*" ]; then
  for e in golden/*.expected; do
    [ -f "${e%.expected}.pto" ] && continue
    echo "ptx golden: FAIL stale $e"
    fail=$((fail + 1))
  done
fi
echo "ptx golden: $pass passed, $fail failed$([ "$BLESS" = 1 ] && echo ", $blessed blessed")"
[ "$fail" = 0 ]
