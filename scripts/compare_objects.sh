#!/usr/bin/env bash
# Compares the objects two ptoas binaries emit for every sample and bench
# kernel (and the execution differential's own cases), on every CPU target
# at -O0 and -O2: the check that a refactoring
# or a change meant for other programs leaves emitted code byte-identical.
#   scripts/compare_objects.sh OLD_PTOAS NEW_PTOAS [TARGETS...]
# Prints one line per differing (or newly failing) object and a summary;
# exit 1 when any differ.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OLD_PTOAS NEW_PTOAS [TARGETS...]" >&2; exit 2; }
old=$1 new=$2; shift 2
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(avx2 avx512 sve)
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 same=0 diff=0 failed=0
for f in "$root"/samples/*/*.pto "$root"/bench/kernels/*.pto "$root"/tests/exec/cases/*.pto; do
  [ -f "$f" ] || continue
  for t in "${targets[@]}"; do
    for O in -O0 -O2; do
      n=$((n + 1))
      "$old" -target="$t" "$O" "$f" -o "$tmp/a.o" 2>"$tmp/a.err"; ra=$?
      "$new" -target="$t" "$O" "$f" -o "$tmp/b.o" 2>"$tmp/b.err"; rb=$?
      if [ $ra -ne 0 ] && [ $rb -ne 0 ]; then same=$((same + 1)); failed=$((failed + 1)); continue; fi
      if [ $ra -eq 0 ] && [ $rb -eq 0 ] && cmp -s "$tmp/a.o" "$tmp/b.o"; then same=$((same + 1)); continue; fi
      diff=$((diff + 1))
      echo "differs: ${f#$root/} -target=$t $O (rc $ra -> $rb)"
    done
  done
done
echo "compare_objects: $n objects, $same identical ($failed refused by both), $diff differ"
[ $diff -eq 0 ]
