#!/usr/bin/env bash
# DWARF test: the objects of ptoas -target=avx2 carry DWARF 5 line info and
# a compile unit (docs/debug_info.md) that the standard tools read:
#   llvm-dwarfdump-19 --verify is clean; the unit names the .pto file, the
#   compilation directory, the producer; one subprogram per function;
#   relocations: .text only PC32 to .rodata, debug sections only absolute
#   ones against .text / function symbols and section offsets;
#   addr2line maps EVERY instruction to the .pto line of its group as the
#   --emit=asm listing shows it (addresses from ptodis --no-source, which
#   prints the listing's instructions in the same order, see ptodis_test.sh);
#   gdb: info line / list / break on the kernel, and a source breakpoint in
#   a linked program that runs (skipped where ptrace is not allowed);
#   the object is byte-identical across two runs.
# Usage: dwarf_test.sh PTOAS PTODIS SOURCE_DIR
set -u
ptoas=$1 ptodis=$2 src=$3
for t in readelf addr2line; do command -v $t >/dev/null || { echo "SKIP: no $t"; exit 77; }; done
dwarfdump=$(command -v llvm-dwarfdump-19 || command -v llvm-dwarfdump || true)
gdb=$(command -v gdb || true)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1
dir=$(pwd -P)
cd "$dir" || exit 1

# Kernels, named relatively (the line table then holds the name and the
# compilation directory). two.pto: a public and a private function.
cp "$src/tests/x86/kernels/axpy_relu.pto" . || exit 1
cp "$src/samples/softmax/softmax.pto" . 2>/dev/null
{ cat axpy_relu.pto
  sed -e 's/@axpy_relu/@axpy_relu_priv/' -e 's/func\.func /func.func private /' \
      -e 's/ attributes {pto.entry}//' axpy_relu.pto | grep -v '^//'; } > two.pto
n=0
for k in axpy_relu.pto two.pto softmax.pto; do
  [ -f "$k" ] || continue
  b=${k%.pto}
  "$ptoas" -target=avx2 "$k" -o "$b.o" || fail "$b: ptoas"
  "$ptoas" -target=avx2 "$k" -o "$b.again.o" || fail "$b: second ptoas"
  cmp -s "$b.o" "$b.again.o" || fail "$b: the object is not deterministic"
  "$ptoas" -target=avx2 --emit=asm "$k" -o "$b.s" || fail "$b: ptoas --emit=asm"
  readelf -SW "$b.o" > "$b.sec"
  for s in .debug_info .debug_abbrev .debug_line .debug_line_str; do
    grep -q " $s " "$b.sec" || fail "$b: no $s section"
  done
  grep -q "\.pto\.lines" "$b.sec" && fail "$b: the old .pto.lines section is still written"

  # Relocations, per section.
  readelf -rW "$b.o" | awk '/^Relocation section/ {sec=$3; gsub(/\047/, "", sec); next}
                             /R_X86_64_/ {print sec, $3, $5}' > "$b.rel"
  awk '$1==".rela.text" && !($2=="R_X86_64_PC32" && $3==".rodata") {exit 1}' "$b.rel" \
    || { cat "$b.rel"; fail "$b: unexpected relocation in .text"; }
  awk '$1 ~ /^\.rela\.debug_/ && !(($2=="R_X86_64_64" && $3 !~ /^\.debug/) ||
                                   ($2=="R_X86_64_32" && $3 ~ /^\.debug_(abbrev|line|line_str|str)$/)) {exit 1}' \
    "$b.rel" || { cat "$b.rel"; fail "$b: unexpected relocation in a debug section"; }
  grep -q "^.rela.debug_line R_X86_64_64 .text" "$b.rel" || fail "$b: the line table's address is not relocated"

  # The DWARF as LLVM reads it.
  readelf -sW "$b.o" | awk '$4=="FUNC" {print $8}' | sort > "$b.funcs"
  [ -s "$b.funcs" ] || fail "$b: no functions"
  if [ -n "$dwarfdump" ]; then
    "$dwarfdump" --verify "$b.o" > "$b.verify" 2>&1 || { cat "$b.verify"; fail "$b: llvm-dwarfdump --verify"; }
    "$dwarfdump" --debug-info "$b.o" > "$b.info" || fail "$b: llvm-dwarfdump --debug-info"
    grep -q "version = 0x0005" "$b.info" || fail "$b: not DWARF 5"
    grep -Eq "DW_AT_producer.*\(\"ptoas [0-9]" "$b.info" || fail "$b: producer"
    grep -q "DW_AT_name.*(\"$k\")" "$b.info" || fail "$b: CU name"
    grep -q "DW_AT_comp_dir.*(\"$dir\")" "$b.info" || fail "$b: comp_dir"
    grep -q "DW_AT_language.*DW_LANG_Mips_Assembler" "$b.info" || fail "$b: language"
    grep -A1 DW_TAG_subprogram "$b.info" | sed -n 's/.*DW_AT_name.*("\(.*\)")/\1/p' | sort > "$b.subprograms"
    cmp -s "$b.funcs" "$b.subprograms" || { diff "$b.funcs" "$b.subprograms"; fail "$b: subprograms differ from the FUNC symbols"; }
    "$dwarfdump" --debug-line "$b.o" > "$b.line" || fail "$b: llvm-dwarfdump --debug-line"
    groups=$(grep -c "^	# $k:[0-9]*: " "$b.s")
    rows=$(grep "^0x[0-9a-f]* .* is_stmt" "$b.line" | grep -vc end_sequence)
    [ "$groups" = "$rows" ] || fail "$b: $groups groups in the listing, $rows line rows"
  fi

  # addr2line: every instruction maps to its group's line in the listing.
  grep -P '^\t(# |[^#.])' "$b.s" | sed -E "s/^\t# .*:([0-9]+): .*/L \1/; t; s/^\t.*/I/" > "$b.seq"
  "$ptodis" --no-source "$b.o" | grep -P '^  [0-9a-f]{6}:  ' | awk '{sub(":", "", $1); print $1}' > "$b.addrs"
  awk 'NR==FNR {a[++na]=$1; next} $1=="L" {line=$2; next} {print "0x" a[++i], line} END {if (i != na) exit 1}' \
    "$b.addrs" "$b.seq" > "$b.expect" || fail "$b: listing and ptodis disagree on the instruction count"
  awk '{print $1}' "$b.expect" | addr2line -e "$b.o" > "$b.a2l" || fail "$b: addr2line"
  awk -v f="$dir/$k" '{print f ":" $2}' "$b.expect" > "$b.want"
  diff "$b.want" "$b.a2l" > "$b.diff" || { paste "$b.expect" "$b.a2l" | head; fail "$b: addr2line gives other lines"; }
  n=$((n + 1))
done
[ $n -ge 2 ] || fail "no kernels"
addr2line -f -e two.o "$(sed -n '$p' two.expect | cut -d' ' -f1)" | head -1 | grep -qx axpy_relu_priv \
  || fail "addr2line -f does not name the private function"

# gdb on the object: the function's line, a line's address range, the source.
if [ -n "$gdb" ]; then
  mid=$(sed -n '200p' axpy_relu.expect)
  maddr=${mid% *} mline=${mid#* }
  "$gdb" -nx -batch -ex "info line axpy_relu" -ex "info line *$maddr" -ex "list axpy_relu" \
    -ex "info line axpy_relu_priv" two.o > gdb.txt 2>&1 || { cat gdb.txt; fail "gdb -batch"; }
  grep -q '^Line 4 of "two.pto" starts at address 0x0 <axpy_relu>' gdb.txt || { cat gdb.txt; fail "gdb: info line axpy_relu"; }
  grep -q "^Line $mline of \"two.pto\" starts at address" gdb.txt || { cat gdb.txt; fail "gdb: info line *$maddr"; }
  grep -q "^4	func.func @axpy_relu(%x" gdb.txt || { cat gdb.txt; fail "gdb: list axpy_relu"; }
  grep -q '^Line 41 of "two.pto" starts at address 0x[0-9a-f]* <axpy_relu_priv>' gdb.txt || { cat gdb.txt; fail "gdb: info line axpy_relu_priv"; }
fi

# A linked program: gdb stops at a .pto line inside the kernel and unwinds
# to main (needs ptrace; skipped without it).
if [ -n "$gdb" ] && command -v gcc >/dev/null && grep -q avx2 /proc/cpuinfo; then
  "$ptoas" -target=avx2 --emit=header axpy_relu.pto -o axpy_relu.h || fail "--emit=header"
  gcc -std=c11 -O1 -g -I. "$src/tests/x86/link_main.c" axpy_relu.o -o prog || fail "gcc link"
  ./prog > /dev/null || fail "the linked program fails"
  tline=$(grep -n "pto.tadd ins" axpy_relu.pto | head -1 | cut -d: -f1)
  timeout 120 "$gdb" -nx -batch -ex "break axpy_relu.pto:$tline" -ex run -ex bt ./prog > run.txt 2>&1
  if grep -Eq "ptrace|Operation not permitted|Could not trace|cannot access memory at address 0x0$" run.txt; then
    echo "note: gdb cannot run programs here (ptrace); the run check is skipped"
  else
    grep -q "^Breakpoint 1, axpy_relu () at axpy_relu.pto:$tline" run.txt || { cat run.txt; fail "gdb: breakpoint at axpy_relu.pto:$tline"; }
    grep -q " in main () at .*link_main.c" run.txt || { cat run.txt; fail "gdb: no backtrace to main"; }
  fi
fi
echo "x86_dwarf: OK ($n kernels)"
