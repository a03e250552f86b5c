#!/usr/bin/env bash
# ptodis on bad input (shared by tests/x86/ptodis_test.sh and
# tests/sve/ptodis_sve_test.sh, one good object of each machine): every
# truncation, garbage, an empty and a missing file; every byte of the line
# table (and of the sections it refers to) set to 0x00, 0xff and 0x80 in
# turn, every byte of the symbol table to 0xff; .debug_line cut short
# through its section header; random code. ptodis either still succeeds
# or says `ptodis: error: ...` and exits 1, never crashes; --no-source
# ignores the line table.
# Usage: ptodis_robust.sh PTODIS OBJECT   (run in a scratch directory)
# Prints the number of corrupted line tables refused; exit 1 on failure.
set -u
ptodis=$1 obj=$2
fail() { echo "FAIL: $*"; exit 1; }
check_bad() {  # WHAT: ptodis on bad.o exits 0, or 1 with a message
  "$ptodis" bad.o > /dev/null 2>err.txt; rc=$?
  [ $rc -le 1 ] || fail "$1: exit $rc (crash?)"
  if [ $rc -eq 1 ]; then grep -q "^ptodis: error: " err.txt || fail "$1: no error message"; fi
}
poke() {  # FILE OFFSET BYTE...
  local f=$1 off=$2; shift 2
  local b
  for b in "$@"; do
    printf "$(printf '\\x%02x' "$b")" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
    off=$((off + 1))
  done
}
size=$(stat -c %s "$obj")
for cut in 0 1 16 63 64 100 200 $((size / 2)) $((size - 200)) $((size - 1)); do
  [ $cut -ge 0 ] && [ $cut -lt $size ] || continue
  head -c $cut "$obj" > bad.o
  check_bad "truncated at $cut"
done
sections=$(readelf -SW "$obj" | sed 's/^ *\[ *\([0-9]*\)\]/\1/' |
           awk '$2 ~ /^\.(rela\.)?debug_line(_str)?$|^\.symtab$/ {print $1, $2, $5, $6}')
grep -q " .debug_line " <<< "$sections" || fail "no .debug_line section"
shoff=$(readelf -hW "$obj" | awk '/Start of section headers/ {print $5}')
errors=0
while read -r idx sname off size; do
  off=$((16#$off)) size=$((16#$size))
  values="0 255 128"
  [ "$sname" = .symtab ] && values=255  # fewer runs: the line tables are the intricate part
  for ((i = 0; i < size; i++)); do
    for v in $values; do
      cp "$obj" bad.o
      poke bad.o $((off + i)) $v
      check_bad "$sname byte $i = $v"
      [ $rc -eq 1 ] && [ "$sname" != .symtab ] && errors=$((errors + 1))
    done
  done
  if [ "$sname" = .debug_line ]; then
    for cut in 0 1 4 10 30 $((size / 2)) $((size - 1)); do
      cp "$obj" bad.o
      poke bad.o $((shoff + idx * 64 + 32)) $((cut & 255)) $((cut >> 8 & 255)) 0 0 0 0 0 0
      check_bad ".debug_line cut to $cut bytes"
      [ $rc -eq 1 ] || fail ".debug_line cut to $cut bytes: no error"
      "$ptodis" --no-source bad.o > /dev/null || fail ".debug_line cut to $cut bytes: --no-source fails"
    done
  fi
done <<< "$sections"
[ $errors -gt 0 ] || fail "no corruption of the line table was noticed"
# The .text section header: type NULL or NOBITS, an offset or a size past
# the end of the file.
tidx=$(readelf -SW "$obj" | sed -n 's/^ *\[ *\([0-9]*\)\] \.text .*/\1/p')
[ -n "$tidx" ] || fail "no .text section"
th=$((shoff + tidx * 64))
for field in "4 0 0 0 0" "4 8 0 0 0" "24 255 255 255 127" "32 255 255 255 127"; do
  cp "$obj" bad.o
  poke bad.o $((th + ${field%% *})) ${field#* }
  check_bad ".text header +${field%% *} = ${field#* }"
done
# Random code: any bytes are instructions or data, never an error.
read -r toff tsize < <(readelf -SW "$obj" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".text" {print $4, $5}')
toff=$((16#$toff)) tsize=$((16#$tsize))
for seed in 1 2 3 4; do
  cp "$obj" bad.o
  head -c "$tsize" /dev/urandom | dd of=bad.o bs=1 seek="$toff" conv=notrunc 2>/dev/null
  "$ptodis" bad.o > /dev/null 2>err.txt || { cat err.txt; fail "random .text ($seed): ptodis fails"; }
done
head -c 4096 /dev/urandom > junk.o
"$ptodis" junk.o > /dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "garbage: exit $rc"
: > empty.o
"$ptodis" empty.o > /dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "empty file: exit $rc"
"$ptodis" missing.o > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "missing file: exit $rc"
echo "$errors"
