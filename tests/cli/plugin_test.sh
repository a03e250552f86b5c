#!/usr/bin/env bash
# ptoas's LLVM backends as a plugin (docs/architecture.md, "Backends ptoas
# loads as a plugin"): a process for another target, --help, --print-targets
# and --emit=ir never open lib/ptoas/libptoas_llvm.so; an sve or amdgpu
# compile opens it, and its objects and listings come out (that they are
# the in-process backend's is the samples' and exec_diff's to check);
# without the plugin, or with one that is not a shared library, that
# compile is a clear error, exit 1, no output file, while every other
# target still works.
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

# Which files a run opens (strace where it is installed; else /proc is not
# enough for a short process, and the check is skipped).
opens_plugin() {
  strace -f -qq -e trace=openat -o "$T/trace" "$@" > /dev/null 2>&1
  grep -q 'libptoas_llvm.so' "$T/trace"
}
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

[ $fails -eq 0 ] && echo "plugin: ok"
[ $fails -eq 0 ]
