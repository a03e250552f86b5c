#!/usr/bin/env bash
# Link test: ptoas -target=avx2 writes an object and a header; gcc compiles
# a C main against them (PIE and non-PIE); the programs run and check.
# Usage: link_test.sh PTOAS TESTDIR
set -u
ptoas=$1 dir=$2
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }
grep -q avx2 /proc/cpuinfo || { echo "SKIP: no AVX2"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1
cp "$dir/kernels/axpy_relu.pto" . || exit 1
"$ptoas" -target=avx2 axpy_relu.pto || fail "ptoas -target=avx2 (default -o axpy_relu.o)"
[ -f axpy_relu.o ] || fail "no axpy_relu.o written"
"$ptoas" -target=avx2 --emit=header axpy_relu.pto -o axpy_relu.h || fail "--emit=header"
grep -q "void axpy_relu(float\* x, float\* y, float\* z, float alpha, int64_t n, int32_t relu, int64_t block_idx, int64_t block_num);" axpy_relu.h \
  || { cat axpy_relu.h; fail "unexpected prototype"; }
# The object: a global FUNC symbol with a size, a non-executable stack, the
# constants in .rodata through a PC-relative relocation (no absolute ones).
if command -v readelf >/dev/null; then
  readelf -sW axpy_relu.o | grep -Eq "FUNC +GLOBAL +DEFAULT +[0-9]+ axpy_relu$" || fail "no global FUNC symbol"
  readelf -sW axpy_relu.o | awk '$8=="axpy_relu" && $3==0 {exit 1}' || fail "symbol without size"
  readelf -SW axpy_relu.o | grep -q "\.note\.GNU-stack" || fail "no .note.GNU-stack"
  readelf -rW axpy_relu.o | grep -q "R_X86_64_PC32.*\.rodata" || fail "no PC32 relocation to .rodata"
  # (The DWARF sections have absolute ones by nature: addresses of .text.)
  readelf -rW axpy_relu.o | awk '/^Relocation section/ {t = $3 == "\047.rela.text\047"} t' |
    grep -Eq "R_X86_64_(64|32|32S) " && fail "absolute relocation in .text"
fi
gcc -std=c11 -O1 -ffp-contract=off -I. "$dir/link_main.c" axpy_relu.o -o pie || fail "gcc (PIE) link"
./pie || fail "PIE run"
gcc -std=c11 -O1 -ffp-contract=off -no-pie -I. "$dir/link_main.c" axpy_relu.o -o nopie || fail "gcc (no-PIE) link"
./nopie || fail "no-PIE run"
# Deterministic output.
"$ptoas" -target=avx2 axpy_relu.pto -o again.o || fail "second assembly"
cmp -s axpy_relu.o again.o || fail "output is not deterministic"
# An unsupported op: a located error, exit 1, no output file.
sed 's/pto.trelu/pto.ttrans/' axpy_relu.pto > unsup.pto
"$ptoas" -target=avx2 unsup.pto -o unsup.o 2>err.txt
rc=$?
[ $rc -eq 1 ] || fail "unsupported op: exit $rc, expected 1"
grep -q "unsup.pto:[0-9]*:[0-9]*: error: pto.ttrans in place is not supported on avx2" err.txt \
  || { cat err.txt; fail "unsupported-op message"; }
[ -e unsup.o ] && fail "a failed assembly left unsup.o behind"
echo "x86_link: OK"
