#!/usr/bin/env bash
# ptodis test: the --emit=asm listing and ptodis's disassembly of the object
# agree instruction for instruction (every function); the .pto source lines
# (from the object's DWARF line table) are shown (and hidden by
# --no-source); --function selects; bad and truncated objects, and
# corrupted or shortened debug sections, give a clear error and exit 1,
# never a crash.
# Usage: ptodis_test.sh PTOAS PTODIS SOURCE_DIR
set -u
ptoas=$1 ptodis=$2 src=$3
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
# Bad input: every truncation of the object, garbage, an empty file.
size=$(stat -c %s axpy_relu.o)
for cut in 0 1 16 63 64 100 200 $((size / 2)) $((size - 200)) $((size - 1)); do
  [ $cut -ge 0 ] && [ $cut -lt $size ] || continue
  head -c $cut axpy_relu.o > cut.o
  "$ptodis" cut.o > /dev/null 2>err.txt; rc=$?
  [ $rc -le 1 ] || fail "truncated at $cut: exit $rc (crash?)"
  if [ $rc -eq 1 ]; then grep -q "^ptodis: error: " err.txt || fail "truncated at $cut: no error message"; fi
done
# Corrupted line tables: every byte of .debug_line (and of the sections it
# refers to) set to 0x00, 0xff and 0x80 in turn; .debug_line cut short
# through its section header. ptodis either still succeeds or reports an
# error; --no-source ignores the line table.
poke() {  # FILE OFFSET BYTE...
  local f=$1 off=$2; shift 2
  local b
  for b in "$@"; do
    printf "$(printf '\\x%02x' "$b")" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
    off=$((off + 1))
  done
}
check_bad() {  # WHAT: ptodis on bad.o exits 0, or 1 with a message
  "$ptodis" bad.o > /dev/null 2>err.txt; rc=$?
  [ $rc -le 1 ] || fail "$1: exit $rc (crash?)"
  if [ $rc -eq 1 ]; then grep -q "^ptodis: error: " err.txt || fail "$1: no error message"; fi
}
sections=$(readelf -SW axpy_relu.o | sed 's/^ *\[ *\([0-9]*\)\]/\1/' |
           awk '$2 ~ /^\.(rela\.)?debug_line(_str)?$/ {print $1, $2, $5, $6}')
[ -n "$sections" ] || fail "no .debug_line sections"
shoff=$(readelf -hW axpy_relu.o | awk '/Start of section headers/ {print $5}')
errors=0
while read -r idx sname off size; do
  off=$((16#$off)) size=$((16#$size))
  for ((i = 0; i < size; i++)); do
    for v in 0 255 128; do
      cp axpy_relu.o bad.o
      poke bad.o $((off + i)) $v
      check_bad "$sname byte $i = $v"
      [ $rc -eq 1 ] && errors=$((errors + 1))
    done
  done
  if [ "$sname" = .debug_line ]; then
    for cut in 0 1 4 10 30 $((size / 2)) $((size - 1)); do
      cp axpy_relu.o bad.o
      poke bad.o $((shoff + idx * 64 + 32)) $((cut & 255)) $((cut >> 8 & 255)) 0 0 0 0 0 0
      check_bad ".debug_line cut to $cut bytes"
      [ $rc -eq 1 ] || fail ".debug_line cut to $cut bytes: no error"
      "$ptodis" --no-source bad.o > /dev/null || fail ".debug_line cut to $cut bytes: --no-source fails"
    done
  fi
done <<< "$sections"
[ $errors -gt 0 ] || fail "no corruption of the line table was noticed"
head -c 4096 /dev/urandom > junk.o
"$ptodis" junk.o > /dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "garbage: exit $rc"
: > empty.o
"$ptodis" empty.o > /dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "empty file: exit $rc"
"$ptodis" missing.o > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "missing file: exit $rc"
echo "x86_ptodis: OK ($n kernels; $errors of the corrupted line tables refused)"
