#!/usr/bin/env bash
# ptodis on AArch64 objects (ptoas -target=sve): the --emit=asm listing and
# ptodis's disassembly agree instruction for instruction, and so do the
# .pto source lines above the groups (from the object's DWARF line table);
# the vector add's `pto.tload` line shows `whilelo` and `ld1w`, its
# `pto.tadd` line `fadd`; aarch64-linux-gnu-objdump and llvm-objdump-19
# (where installed) count the same instructions; `$d` mapping symbols make
# data words `.word` (an object from llvm-mc-19, where installed); bad,
# truncated and corrupted objects give clean errors (ptodis_robust.sh).
# Usage: ptodis_sve_test.sh PTOAS PTODIS SOURCE_DIR POKE   (POKE: ptodis_poke, ptodis_robust.sh)
set -u
ptoas=$1 ptodis=$2 src=$3 poke=$4
command -v readelf > /dev/null || { echo "SKIP: no readelf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1
insts() {  # ptodis output -> the instruction text of each line
  grep -P '^  [0-9a-f]{6}:  ' "$1" | sed -E 's/^  [0-9a-f]{6}:  [0-9a-f ]+\t//'
}
n=0 objdumps=""
for k in "$src/samples/vadd/vadd.pto" "$src/tests/x86/kernels/axpy_relu.pto" "$src/samples/softmax/softmax.pto"; do
  [ -f "$k" ] || continue
  b=$(basename "$k" .pto)
  cp "$k" "$b.pto"
  "$ptoas" -target=sve "$b.pto" -o "$b.o" 2> "$b.err" || {
    grep -q "not supported on sve" "$b.err" && continue  # an op the backend does not cover yet
    cat "$b.err"; fail "$b: ptoas"; }
  "$ptoas" -target=sve --emit=asm "$b.pto" -o "$b.s" || fail "$b: ptoas --emit=asm"
  "$ptodis" "$b.o" > "$b.dis" || fail "$b: ptodis"
  grep -q "^$b.o:	file format elf64-littleaarch64$" "$b.dis" || fail "$b: not shown as an AArch64 object"
  # Listing instructions: tab-indented lines that are not comments or
  # directives.
  grep -P '^\t[^/.]' "$b.s" | sed 's/^\t//' > "$b.s.txt"
  insts "$b.dis" > "$b.dis.txt"
  [ -s "$b.s.txt" ] || fail "$b: empty listing"
  diff -u "$b.s.txt" "$b.dis.txt" > "$b.diff" || { head -20 "$b.diff"; fail "$b: listing and disassembly differ"; }
  grep -q '^\.inst\|^\.word\|^\.byte' "$b.dis.txt" && fail "$b: ptodis shows code as data"
  a=$(grep -c "^	// $b.pto:[0-9]*: " "$b.s")
  d=$(grep -c "^$b.pto:[0-9]*: " "$b.dis")
  [ "$d" -gt 0 ] || fail "$b: ptodis shows no source lines"
  [ "$a" = "$d" ] || fail "$b: $a source lines in the listing, $d in ptodis"
  # The same lines in the same order.
  diff <(grep "^	// $b.pto:[0-9]*: " "$b.s" | sed 's|^	// ||') <(grep "^$b.pto:[0-9]*: " "$b.dis") > /dev/null \
    || fail "$b: the listing and ptodis show other source lines"
  "$ptodis" --no-source "$b.o" | grep -q "^$b.pto:" && fail "$b: --no-source still shows source"
  count=$(wc -l < "$b.dis.txt")
  if command -v aarch64-linux-gnu-objdump > /dev/null; then
    o=$(aarch64-linux-gnu-objdump -d "$b.o" | grep -cP '^ +[0-9a-f]+:\t[0-9a-f]{8} ')
    [ "$o" = "$count" ] || fail "$b: aarch64-linux-gnu-objdump shows $o instructions, ptodis $count"
    [[ $objdumps == *binutils* ]] || objdumps+=" binutils"
  fi
  if command -v llvm-objdump-19 > /dev/null; then
    o=$(llvm-objdump-19 -d --mattr=+sve,+fullfp16,+bf16 "$b.o" | grep -cP '^ +[0-9a-f]+: [0-9a-f]{8} ')
    [ "$o" = "$count" ] || fail "$b: llvm-objdump-19 shows $o instructions, ptodis $count"
    [[ $objdumps == *llvm* ]] || objdumps+=" llvm"
  fi
  n=$((n + 1))
done
[ -f vadd.dis ] || fail "the vector add does not compile for sve"
# Instructions under the right .pto line: group -> mnemonics.
awk -F'\t' '/^vadd\.pto:/ {line=$0; next} /^  [0-9a-f]+:  / {print line " => " $2}' vadd.dis > vadd.groups
grep -q "pto.tload ins(%xp .* => whilelo$" vadd.groups || fail "no whilelo under the first pto.tload line"
grep -q "pto.tload ins(%xp .* => ld1w$" vadd.groups || fail "no ld1w under the first pto.tload line"
grep -q "pto.tadd ins(%xt, %yt .* => fadd$" vadd.groups || fail "no fadd under the pto.tadd line"
grep -q "pto.tstore ins(%zt .* => st1w$" vadd.groups || fail "no st1w under the pto.tstore line"
grep -q "pto.tload ins.* => fadd$" vadd.groups && fail "an fadd shown under a pto.tload line"
"$ptodis" --function vadd vadd.o | grep -q "^vadd (global" || fail "--function"
# $x / $d mapping symbols: a data word that is also a valid instruction
# (nop) must be shown as data.
if command -v llvm-mc-19 > /dev/null; then
  printf '\t.text\n\t.globl\tf\n\t.type\tf,@function\nf:\n\twhilelo\tp0.s, x0, x1\n\tb\t1f\n\t.word\t0xd503201f\n1:\tret\n\t.size\tf, .-f\n' > map.s
  llvm-mc-19 -triple=aarch64 -mattr=+sve -filetype=obj map.s -o map.o || fail "llvm-mc-19"
  readelf -sW map.o | grep -q ' \$d' || fail "llvm-mc-19 wrote no \$d mapping symbol"
  "$ptodis" map.o > map.dis || fail "ptodis on the mapping-symbol object"
  insts map.dis | tr '\t' ' ' > map.txt
  printf 'whilelo p0.s, x0, x1\nb 0xc\n.word 0xd503201f\nret\n' | diff - map.txt || fail "\$x/\$d mapping symbols"
fi
# Bad input.
errors=$(bash "$src/tests/x86/ptodis_robust.sh" "$ptodis" "$poke" vadd.o) || { echo "$errors"; exit 1; }
echo "sve_ptodis: OK ($n kernels; instruction counts checked with:${objdumps:- nothing}; $errors of the corrupted line tables refused)"
