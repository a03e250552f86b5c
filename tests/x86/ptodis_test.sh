#!/usr/bin/env bash
# ptodis test: the --emit=asm listing and ptodis's disassembly of the object
# agree instruction for instruction (every function); the .pto source lines
# (from the object's DWARF line table) are shown (and hidden by
# --no-source); --function selects; bad and truncated objects, and
# corrupted or shortened debug sections, give a clear error and exit 1,
# never a crash (ptodis_robust.sh).
# Usage: ptodis_test.sh PTOAS PTODIS SOURCE_DIR POKE   (POKE: ptodis_poke, ptodis_robust.sh)
set -u
ptoas=$1 ptodis=$2 src=$3 poke=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1
n=0
for k in "$src/tests/x86/kernels/axpy_relu.pto" "$src/samples/vadd/vadd.pto" "$src/samples/vadd/vadd_asm.pto"; do
  [ -f "$k" ] || continue
  b=$(basename "$k" .pto)
  "$ptoas" -target=avx2 "$k" -o "$b.o" || fail "$b: ptoas obj"
  "$ptoas" -target=avx2 --emit=asm "$k" -o "$b.s" || fail "$b: ptoas asm"
  "$ptodis" "$b.o" > "$b.dis" || fail "$b: ptodis"
  # Instruction text: listing lines that are instructions (tab-indented, not
  # comments or directives); ptodis lines "  ADDR:  BYTES<TAB>TEXT".
  grep -P '^\t[^#.]' "$b.s" | sed 's/^\t//' > "$b.s.txt"
  grep -P '^  [0-9a-f]{6}:  ' "$b.dis" | sed 's/^.*\t//' > "$b.dis.txt"
  [ -s "$b.s.txt" ] || fail "$b: empty listing"
  diff -u "$b.s.txt" "$b.dis.txt" > "$b.diff" || { head -20 "$b.diff"; fail "$b: listing and disassembly differ"; }
  # Source lines: the same ones, in the same places.
  grep -c "^$b.pto:[0-9]*: " "$b.dis" > /dev/null || fail "$b: ptodis shows no source lines"
  a=$(grep -c "^	# $b.pto:[0-9]*: " "$b.s")
  d=$(grep -c "^$b.pto:[0-9]*: " "$b.dis")
  [ "$a" = "$d" ] || fail "$b: $a source lines in the listing, $d in ptodis"
  "$ptodis" --no-source "$b.o" | grep -q "^$b.pto:" && fail "$b: --no-source still shows source"
  n=$((n + 1))
done
[ $n -gt 0 ] || fail "no kernels"
grep -q "^axpy_relu.pto:.*pto.tadd ins" axpy_relu.dis || fail "the tadd source line is missing"
"$ptodis" --function axpy_relu axpy_relu.o | grep -q "^axpy_relu (global" || fail "--function"
"$ptodis" --function nosuch axpy_relu.o 2>err.txt; rc=$?
[ $rc -eq 1 ] && grep -q "no function named 'nosuch'" err.txt || fail "--function nosuch (exit $rc)"
# Bad input (ptodis_robust.sh): truncations, corrupted line and symbol
# tables, random code, garbage.
errors=$(bash "$src/tests/x86/ptodis_robust.sh" "$ptodis" "$poke" axpy_relu.o) || { echo "$errors"; exit 1; }
echo "x86_ptodis: OK ($n kernels; $errors of the corrupted line tables refused)"
