#!/usr/bin/env bash
# What ptoas opens on demand.
# 1. Its LLVM backends as a plugin (docs/architecture.md, "Backends ptoas
# loads as a plugin"): a process for another target, --help, --print-targets
# and --emit=ir never open lib/ptoas/libptoas_llvm.so; an sve or amdgpu
# compile opens it, and its objects and listings come out (that they are
# the in-process backend's is the samples' and exec_diff's to check);
# without the plugin, or with one that is not a shared library, that
# compile is a clear error, exit 1, no output file, while every other
# target still works.
# 2. Zydis (encoders/x86/zydis_lib.h): only an x86 compile at -O2 (the list
# scheduler) or to a listing (--emit=asm) opens it; cce, ptx, x86 at -O1
# to an object, --emit=ir, --help and --version never do. A copy of ptoas
# whose soname names no library: those still work, and the two that need
# Zydis are clear errors, exit 1, no output file.
# Usage: plugin_test.sh PTOAS SOURCE_DIR
set -uo pipefail
PTOAS="${1:?usage: plugin_test.sh PTOAS SOURCE_DIR}"
SRC="${2:?}"
T="$(mktemp -d "${TMPDIR:-/tmp}/ptoas-plugin.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
K="$SRC/samples/vadd/vadd.pto"
build=$(dirname "$PTOAS")
[ -e "$build/lib/ptoas/libptoas_llvm.so" ] || { echo "FAIL: no $build/lib/ptoas/libptoas_llvm.so"; exit 1; }

# Whether a run opens a file matching PATTERN (strace where it is
# installed; else /proc is not enough for a short process, and the checks
# are skipped).
opens() {
  local pattern=$1
  shift
  strace -f -qq -e trace=openat -o "$T/trace" "$@" > /dev/null 2>&1
  grep -q "$pattern" "$T/trace"
}
opens_plugin() { opens 'libptoas_llvm.so' "$@"; }
if command -v strace > /dev/null; then
  for args in "-target=avx2 $K -o $T/a.o" "$K -o $T/a.cpp" "-target=ptx $K -o $T/a.ptx" \
              "-target=sve --emit=ir $K -o $T/a.ir" "-target=amdgpu --emit=ir $K -o $T/b.ir" \
              "--print-targets" "--help"; do
    # shellcheck disable=SC2086
    if opens_plugin "$PTOAS" $args; then fail "ptoas $args opened the plugin"; fi
  done
  opens_plugin "$PTOAS" -target=sve "$K" -o "$T/a_sve.o" || fail "ptoas -target=sve did not open the plugin"
else
  echo "SKIP: no strace (the which-process-opens-it checks)"
fi

# The same object from the plugin as from a second run, and a listing.
"$PTOAS" -target=sve "$K" -o "$T/s1.o" || fail "-target=sve"
"$PTOAS" -target=sve "$K" -o "$T/s2.o" && cmp -s "$T/s1.o" "$T/s2.o" || fail "-target=sve is not deterministic"
"$PTOAS" -target=sve --emit=asm "$K" > "$T/s.s" && grep -q 'ld1w' "$T/s.s" || fail "-target=sve --emit=asm lists no ld1w"
"$PTOAS" -target=amdgpu --emit=asm "$K" > "$T/a.s" && grep -q 'global_load' "$T/a.s" ||
  fail "-target=amdgpu --emit=asm lists no global_load"
"$PTOAS" -target=amdgpu --stats "$K" -o "$T/a.hsaco" 2> "$T/stats" && grep -q 'VGPRs' "$T/stats" ||
  fail "-target=amdgpu --stats says nothing of its registers"

# A copy of ptoas with no plugin beside it, then with a broken one.
mkdir -p "$T/p/lib/ptoas"
cp "$PTOAS" "$T/p/ptoas"
check_refused() {  # WHY: the sve and amdgpu compiles fail cleanly, the others work
  local why=$1 t
  for t in sve amdgpu; do
    rm -f "$T/out"
    "$T/p/ptoas" -target=$t "$K" -o "$T/out" 2> "$T/err"
    rc=$?
    [ $rc -eq 1 ] || fail "$why: -target=$t exit $rc, expected 1"
    [ ! -e "$T/out" ] || fail "$why: -target=$t left an output file"
    grep -q "^ptoas: error: target $t: its code generator: " "$T/err" || fail "$why: -target=$t said: $(cat "$T/err")"
  done
  "$T/p/ptoas" -target=avx2 "$K" -o "$T/a2.o" || fail "$why: -target=avx2 failed"
  "$T/p/ptoas" -target=sve --emit=ir "$K" -o "$T/ir" || fail "$why: -target=sve --emit=ir failed"
  "$T/p/ptoas" --print-targets > "$T/targets" && grep -q '^sve ' "$T/targets" || fail "$why: --print-targets lacks sve"
}
check_refused "no plugin"
grep -q "libptoas_llvm.so is not installed (looked for $T/p/lib/ptoas/libptoas_llvm.so" "$T/err" ||
  fail "no plugin: the message does not say where it looked: $(cat "$T/err")"
echo "not an ELF file" > "$T/p/lib/ptoas/libptoas_llvm.so"
check_refused "a broken plugin"
grep -q "cannot load $T/p/lib/ptoas/libptoas_llvm.so" "$T/err" || fail "a broken plugin: $(cat "$T/err")"

# ---- 2. Zydis ----
mkdir -p "$T/z"
if command -v strace > /dev/null; then
  for args in "$K -o $T/a.cpp" "-target=ptx $K -o $T/a.ptx" "-target=avx2 -O1 $K -o $T/a.o" \
              "-target=avx512 -O0 $K -o $T/b.o" "-target=avx2 --emit=ir $K -o $T/a.ir" \
              "--print-targets" "--help" "--version"; do
    # shellcheck disable=SC2086
    if opens libZydi "$PTOAS" $args; then fail "ptoas $args opened Zydis"; fi
  done
  opens libZydi "$PTOAS" -target=avx2 "$K" -o "$T/c.o" || fail "ptoas -target=avx2 (-O2) did not open Zydis"
  opens libZydi "$PTOAS" -target=avx512 -O1 --emit=asm "$K" -o "$T/c.s" ||
    fail "ptoas -target=avx512 -O1 --emit=asm did not open Zydis"
else
  echo "SKIP: no strace (the which-process-opens-it checks)"
fi

# A copy whose soname (the same length) names no library.
so=$(grep -a -o -m1 'libZydis\.so\.[0-9.]*[0-9]' "$PTOAS" | head -1)
[ -n "$so" ] || { echo "FAIL: no Zydis soname in $PTOAS"; exit 1; }
perl -0777 -pe 's/libZydis\.so\./libZydiX.so./g' < "$PTOAS" > "$T/z/ptoas" && chmod +x "$T/z/ptoas"
bad=${so/libZydis/libZydiX}
"$T/z/ptoas" "$K" -o "$T/ok.cpp" || fail "no Zydis: the cce compile failed"
"$T/z/ptoas" -target=avx2 -O1 "$K" -o "$T/ok1.o" || fail "no Zydis: -target=avx2 -O1 failed"
"$T/z/ptoas" -target=avx2 --no-sched "$K" -o "$T/ok2.o" || fail "no Zydis: -target=avx2 --no-sched failed"
"$PTOAS" -target=avx2 -O1 "$K" -o "$T/ref1.o" && cmp -s "$T/ok1.o" "$T/ref1.o" ||
  fail "no Zydis: -target=avx2 -O1 wrote another object"
refused() {  # WHAT ARGS...: exit 1, no output file, the message
  local what=$1
  shift
  rm -f "$T/out"
  "$T/z/ptoas" "$@" -o "$T/out" 2> "$T/err"
  local rc=$?
  [ $rc -eq 1 ] || fail "no Zydis: $* exit $rc, expected 1"
  [ ! -e "$T/out" ] || fail "no Zydis: $* left an output file"
  grep -q "^ptoas: error: target avx2: $what Zydis: $bad (Debian package libzydis4) cannot be loaded: " "$T/err" ||
    fail "no Zydis: $* said: $(cat "$T/err")"
}
refused "the list scheduler of -O2 needs" -target=avx2 "$K"
refused "--emit=asm needs" -target=avx2 -O1 --emit=asm "$K"
# A module of two functions: the error once, not once per function (the
# plugin's too).
cat > "$T/two.pto" <<'PTO'
module {
  func.func @a(%x: !pto.ptr<f32>) attributes {pto.entry} {
    return
  }
  func.func @b(%x: !pto.ptr<f32>) attributes {pto.entry} {
    return
  }
}
PTO
"$T/z/ptoas" -target=avx2 "$T/two.pto" -o "$T/out" 2> "$T/err"
[ "$(grep -c 'needs Zydis' "$T/err")" = 1 ] || fail "no Zydis, two functions: $(cat "$T/err")"
"$T/p/ptoas" -target=sve "$T/two.pto" -o "$T/out" 2> "$T/err"
[ "$(grep -c 'its code generator' "$T/err")" = 1 ] || fail "a broken plugin, two functions: $(cat "$T/err")"

[ $fails -eq 0 ] && echo "plugin: ok"
[ $fails -eq 0 ]
