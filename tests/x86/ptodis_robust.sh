#!/usr/bin/env bash
# ptodis on bad input (shared by tests/x86/ptodis_test.sh and
# tests/sve/ptodis_sve_test.sh, one good object of each machine): every
# truncation, garbage, an empty and a missing file, .debug_line cut short
# through its section header, through the program; ptodis either still
# succeeds or says `ptodis: error: ...` and exits 1, never crashes;
# --no-source ignores the line table. The byte-by-byte corruptions (every
# byte of the line table and of the sections it refers to set to 0x00,
# 0xff and 0x80 in turn, every byte of the symbol table to 0xff, the .text
# header, random code) run in one process: POKE (ptodis_poke.cpp).
# Usage: ptodis_robust.sh PTODIS POKE OBJECT   (run in a scratch directory)
# Prints the number of corrupted line tables refused; exit 1 on failure.
set -u
ptodis=$1 poke=$2 obj=$3
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
# One cut line table through the program: exit 1 and the message's form.
shoff=$(readelf -hW "$obj" | awk '/Start of section headers/ {print $5}')
lidx=$(readelf -SW "$obj" | sed -n 's/^ *\[ *\([0-9]*\)\] \.debug_line .*/\1/p')
[ -n "$lidx" ] || fail "no .debug_line section"
cp "$obj" bad.o
poke bad.o $((shoff + lidx * 64 + 32)) 1 0 0 0 0 0 0 0
check_bad ".debug_line cut to 1 byte"
[ $rc -eq 1 ] || fail ".debug_line cut to 1 byte: no error"
"$ptodis" --no-source bad.o > /dev/null || fail ".debug_line cut to 1 byte: --no-source fails"
# The byte-by-byte corruptions, in one process (ptodis_poke.cpp).
errors=$("$poke" "$obj") || { echo "$errors"; fail "ptodis_poke"; }
head -c 4096 /dev/urandom > junk.o
"$ptodis" junk.o > /dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "garbage: exit $rc"
: > empty.o
"$ptodis" empty.o > /dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "empty file: exit $rc"
"$ptodis" missing.o > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "missing file: exit $rc"
echo "$errors"
