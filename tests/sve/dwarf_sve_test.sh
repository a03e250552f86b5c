#!/usr/bin/env bash
# DWARF in the AArch64 objects of ptoas -target=sve (the target-neutral
# writer of docs/debug_info.md): llvm-dwarfdump-19 --verify is clean; the
# compile unit names the .pto file, the compilation directory and the
# producer, one subprogram per function; --debug-line lists the .pto file
# and one row per instruction group of the --emit=asm listing; the debug
# sections' relocations are AArch64 absolute ones; addr2line (the AArch64
# binutils one, where installed) maps EVERY instruction to the .pto line of
# its group; the object is deterministic; linked with tests/x86/link_main.c
# it runs under qemu-aarch64 (where the cross gcc and qemu are installed).
# Usage: dwarf_sve_test.sh PTOAS SOURCE_DIR
set -u
ptoas=$1 src=$2
command -v readelf > /dev/null || { echo "SKIP: no readelf"; exit 77; }
dwarfdump=$(command -v llvm-dwarfdump-19 || command -v llvm-dwarfdump || true)
[ -n "$dwarfdump" ] || { echo "SKIP: no llvm-dwarfdump"; exit 77; }
a2l=$(command -v aarch64-linux-gnu-addr2line || true)
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=$(cd "$tmp" && pwd -P) && cd "$dir" || exit 1
n=0
for k in "$src/samples/vadd/vadd.pto" "$src/tests/x86/kernels/axpy_relu.pto"; do
  [ -f "$k" ] || continue
  b=$(basename "$k" .pto)
  cp "$k" "$b.pto"
  "$ptoas" -target=sve "$b.pto" -o "$b.o" || fail "$b: ptoas"
  "$ptoas" -target=sve "$b.pto" -o "$b.again.o" || fail "$b: second ptoas"
  cmp -s "$b.o" "$b.again.o" || fail "$b: the object is not deterministic"
  "$ptoas" -target=sve --emit=asm "$b.pto" -o "$b.s" || fail "$b: ptoas --emit=asm"
  readelf -hW "$b.o" | grep -q "Machine:.*AArch64" || fail "$b: not an AArch64 object"
  readelf -SW "$b.o" > "$b.sec"
  for s in .debug_info .debug_abbrev .debug_line .debug_line_str; do
    grep -q " $s " "$b.sec" || fail "$b: no $s section"
  done
  readelf -rW "$b.o" | awk '/^Relocation section/ {sec=$3; gsub(/\047/, "", sec); next}
                             /R_AARCH64_/ {print sec, $3, $5}' > "$b.rel"
  awk '$1 ~ /^\.rela\.debug_/ && !(($2=="R_AARCH64_ABS64" && $3 !~ /^\.debug/) ||
                                   ($2=="R_AARCH64_ABS32" && $3 ~ /^\.debug_(abbrev|line|line_str|str)$/)) {exit 1}' \
    "$b.rel" || { cat "$b.rel"; fail "$b: unexpected relocation in a debug section"; }
  grep -q "^.rela.debug_line R_AARCH64_ABS64 .text" "$b.rel" || fail "$b: the line table's address is not relocated"

  "$dwarfdump" --verify "$b.o" > "$b.verify" 2>&1 || { cat "$b.verify"; fail "$b: llvm-dwarfdump --verify"; }
  "$dwarfdump" --debug-info "$b.o" > "$b.info" || fail "$b: llvm-dwarfdump --debug-info"
  # DWARF 5, the producer, the unit's name and directory.
  for want in "version = 0x0005" "DW_AT_producer.*(\"ptoas [0-9]" "DW_AT_name.*(\"$b.pto\")" \
              "DW_AT_comp_dir.*(\"$dir\")"; do
    grep -q "$want" "$b.info" || fail "$b: the compile unit has no $want"
  done
  readelf -sW "$b.o" | awk '$4=="FUNC" {print $8}' | sort > "$b.funcs"
  grep -A1 DW_TAG_subprogram "$b.info" | sed -n 's/.*DW_AT_name.*("\(.*\)")/\1/p' | sort > "$b.subprograms"
  [ -s "$b.funcs" ] && cmp -s "$b.funcs" "$b.subprograms" || fail "$b: subprograms differ from the FUNC symbols"
  "$dwarfdump" --debug-line "$b.o" > "$b.line" || fail "$b: llvm-dwarfdump --debug-line"
  grep -A1 "^file_names\[ *0\]:" "$b.line" | grep -q "name: \"$b.pto\"" || { cat "$b.line" | head -40; fail "$b: the line table does not list $b.pto"; }
  groups=$(grep -c "^	// $b.pto:[0-9]*: " "$b.s")
  rows=$(grep "^0x[0-9a-f]* .* is_stmt" "$b.line" | grep -vc end_sequence)
  [ "$groups" -gt 0 ] && [ "$groups" = "$rows" ] || fail "$b: $groups groups in the listing, $rows line rows"

  if [ -n "$a2l" ]; then
    # Every instruction maps to its group's line in the listing: one
    # function, 4-byte instructions from .text offset 0.
    [ "$(wc -l < "$b.funcs")" = 1 ] || fail "$b: expected one function"
    awk -v f="$dir/$b.pto" '/^\t\/\/ .*\.pto:[0-9]+: / {split($0, p, ":"); line = p[2]; next}
                            /^\t[^\/.]/ {printf "0x%x %s:%s\n", 4 * i++, f, line}' "$b.s" > "$b.expect"
    cut -d' ' -f1 "$b.expect" | "$a2l" -e "$b.o" > "$b.a2l" || fail "$b: addr2line"
    cut -d' ' -f2 "$b.expect" | diff - "$b.a2l" > "$b.diff" || { head "$b.diff"; fail "$b: addr2line gives other lines"; }
  fi
  n=$((n + 1))
done
[ $n -ge 1 ] || fail "no kernels"

# The object links (its debug relocations resolved by the AArch64 linker)
# and runs: tests/x86/link_main.c drives axpy_relu under qemu-aarch64.
ran=""
if command -v aarch64-linux-gnu-gcc > /dev/null && command -v qemu-aarch64 > /dev/null; then
  "$ptoas" -target=sve --emit=header axpy_relu.pto -o axpy_relu.h || fail "--emit=header"
  aarch64-linux-gnu-gcc -std=c11 -static -O1 -I. "$src/tests/x86/link_main.c" axpy_relu.o -o prog \
    || fail "aarch64-linux-gnu-gcc link"
  qemu-aarch64 -cpu max ./prog > run.txt 2>&1 || { cat run.txt; fail "the linked program fails under qemu-aarch64"; }
  ran=", linked and run under qemu-aarch64"
fi
echo "sve_dwarf: OK ($n kernels${a2l:+, every instruction through addr2line}$ran)"
