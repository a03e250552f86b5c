#!/usr/bin/env bash
# Zydis opened on demand (encoders/x86/zydis_lib.h): only an x86 compile at
# -O2 (the list scheduler) or to a listing (--emit=asm) opens it; cce, ptx,
# x86 at -O1 to an object, --emit=ir, --help and --version never do. A copy
# of ptoas whose soname names no library: those still work, and the two
# that need Zydis are clear errors, exit 1, no output file.
# Usage: zydis_test.sh PTOAS SOURCE_DIR
set -uo pipefail
PTOAS="${1:?usage: zydis_test.sh PTOAS SOURCE_DIR}"
SRC="${2:?}"
T="$(mktemp -d "${TMPDIR:-/tmp}/ptoas-zydis.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
K="$SRC/samples/vadd/vadd.pto"

opens_zydis() {
  strace -f -qq -e trace=openat -o "$T/trace" "$@" > /dev/null 2>&1
  grep -q 'libZydi' "$T/trace"
}
if command -v strace > /dev/null; then
  for args in "$K -o $T/a.cpp" "-target=ptx $K -o $T/a.ptx" "-target=avx2 -O1 $K -o $T/a.o" \
              "-target=avx512 -O0 $K -o $T/b.o" "-target=avx2 --emit=ir $K -o $T/a.ir" \
              "--print-targets" "--help" "--version"; do
    # shellcheck disable=SC2086
    if opens_zydis "$PTOAS" $args; then fail "ptoas $args opened Zydis"; fi
  done
  opens_zydis "$PTOAS" -target=avx2 "$K" -o "$T/c.o" || fail "ptoas -target=avx2 (-O2) did not open Zydis"
  opens_zydis "$PTOAS" -target=avx512 -O1 --emit=asm "$K" -o "$T/c.s" ||
    fail "ptoas -target=avx512 -O1 --emit=asm did not open Zydis"
else
  echo "SKIP: no strace (the which-process-opens-it checks)"
fi

# A copy whose soname (the same length) names no library.
so=$(grep -a -o -m1 'libZydis\.so\.[0-9.]*[0-9]' "$PTOAS" | head -1)
[ -n "$so" ] || { echo "FAIL: no Zydis soname in $PTOAS"; exit 1; }
perl -0777 -pe 's/libZydis\.so\./libZydiX.so./g' < "$PTOAS" > "$T/ptoas" && chmod +x "$T/ptoas"
bad=${so/libZydis/libZydiX}
"$T/ptoas" "$K" -o "$T/ok.cpp" || fail "no Zydis: the cce compile failed"
"$T/ptoas" -target=avx2 -O1 "$K" -o "$T/ok1.o" || fail "no Zydis: -target=avx2 -O1 failed"
"$T/ptoas" -target=avx2 --no-sched "$K" -o "$T/ok2.o" || fail "no Zydis: -target=avx2 --no-sched failed"
"$PTOAS" -target=avx2 -O1 "$K" -o "$T/ref1.o" && cmp -s "$T/ok1.o" "$T/ref1.o" ||
  fail "no Zydis: -target=avx2 -O1 wrote another object"
refused() {  # WHAT ARGS...: exit 1, no output file, the message
  local what=$1
  shift
  rm -f "$T/out"
  "$T/ptoas" "$@" -o "$T/out" 2> "$T/err"
  local rc=$?
  [ $rc -eq 1 ] || fail "no Zydis: $* exit $rc, expected 1"
  [ ! -e "$T/out" ] || fail "no Zydis: $* left an output file"
  grep -q "^ptoas: error: target avx2: $what Zydis: $bad (Debian package libzydis4) cannot be loaded: " "$T/err" ||
    fail "no Zydis: $* said: $(cat "$T/err")"
}
refused "the list scheduler of -O2 needs" -target=avx2 "$K"
refused "--emit=asm needs" -target=avx2 -O1 --emit=asm "$K"

[ $fails -eq 0 ] && echo "zydis: ok"
[ $fails -eq 0 ]
