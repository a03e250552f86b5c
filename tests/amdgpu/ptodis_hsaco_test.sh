#!/usr/bin/env bash
# ptodis on the .hsaco files ptoas -target=amdgpu writes (docs/amdgpu_backend.md,
# "ptodis"), for every sample on each chip:
#  1. the instructions ptodis lists are, in order, those of `ptoas --emit=asm`
#     (mnemonics, the _e32/_e64 encoding suffix aside: the assembler picks it);
#  2. each instruction sits under the .pto line of the `.loc` in force before it
#     in the assembler text, and that line's text is shown (a pto.tload of vadd);
#  3. llvm-objdump-19 -d, when installed, finds as many instructions in the
#     kernel's symbol, with the same text; past it only the writer's
#     s_nop / s_code_end padding;
#  4. a truncated .hsaco is refused with a message and exit status 1.
# Usage: ptodis_hsaco_test.sh PTOAS PTODIS. Exit 77 (skip): ptoas has no amdgpu target.
set -u
ptoas=${1:?usage: ptodis_hsaco_test.sh PTOAS PTODIS} ptodis=${2:?usage: ptodis_hsaco_test.sh PTOAS PTODIS}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if ! "$ptoas" -target=amdgpu --gpu-arch=gfx942 "$root/samples/vadd/vadd.pto" -o "$tmp/probe.hsaco" 2>"$tmp/probe.err"; then
  echo "SKIP: ptoas cannot write an AMDGPU code object here: $(head -c 300 "$tmp/probe.err")"
  exit 77
fi

"$ptodis" --help | grep -q 'hsaco' || fail "ptodis --help does not mention .hsaco"

objdump=$(command -v llvm-objdump-19 || true)
[ -n "$objdump" ] || echo "note: llvm-objdump-19 not found; the objdump comparison (3) is skipped"

# "LINE MNEMONIC" per instruction of the assembler text: LINE is the .loc in force (0 before any).
asm_rows() {
  awk '/^\.size /{exit} /^  \.loc /{line=$3; next} /^  [a-z]/{m=$1; sub(/_(e32|e64)$/, "", m); print line+0, m}' "$1"
}
# The same from ptodis's listing: LINE from the `file.pto:LINE: ...` line shown above.
dis_rows() {
  awk '/^[^ ].*\.pto:[0-9]+/{split($1, a, ":"); line=a[2]; next}
       /^  [0-9a-f]+:  /{split($0, p, "\t"); split(p[2], w, " "); m=w[1]; sub(/_(e32|e64)$/, "", m); print line+0, m}' "$1"
}

samples=$(cd "$root/samples" && for d in */; do d=${d%/}; [ -f "$d/$d.pto" ] && echo "$d"; done)
for chip in gfx942 gfx90a gfx1100; do
  for sample in $samples; do
    pto="$root/samples/$sample/$sample.pto" t="$sample/$chip" h="$tmp/${sample}_$chip.hsaco"
    if ! "$ptoas" -target=amdgpu --gpu-arch=$chip "$pto" -o "$h" 2>"$tmp/err" ||
       ! "$ptoas" -target=amdgpu --gpu-arch=$chip --emit=asm "$pto" -o "$tmp/$sample.s" 2>>"$tmp/err"; then
      fail "$t: ptoas: $(head -c 300 "$tmp/err")"
      continue
    fi
    if ! "$ptodis" "$h" >"$tmp/dis" 2>"$tmp/err"; then
      fail "$t: ptodis: $(head -c 300 "$tmp/err")"
      continue
    fi
    # 1 and 2: the same instructions, each under the same .pto line.
    asm_rows "$tmp/$sample.s" >"$tmp/asm_rows"
    dis_rows "$tmp/dis" >"$tmp/dis_rows"
    n=$(wc -l <"$tmp/dis_rows")
    [ "$n" -gt 100 ] || fail "$t: only $n instructions listed"
    cut -d' ' -f2 "$tmp/asm_rows" >"$tmp/asm_m"
    cut -d' ' -f2 "$tmp/dis_rows" >"$tmp/dis_m"
    if ! diff -q "$tmp/asm_m" "$tmp/dis_m" >/dev/null; then
      fail "$t: instructions differ from --emit=asm: $(diff "$tmp/asm_m" "$tmp/dis_m" | head -5 | tr '\n' ' ')"
    elif ! diff -q "$tmp/asm_rows" "$tmp/dis_rows" >/dev/null; then
      fail "$t: .pto lines differ from the .loc lines: $(diff "$tmp/asm_rows" "$tmp/dis_rows" | head -5 | tr '\n' ' ')"
    fi
    # 2: the tload line's text, with the instructions it produced below it.
    if [ $sample = vadd ]; then
      ln=$(grep -n -m1 'pto.tload' "$pto" | cut -d: -f1)
      text=$(sed -n "${ln}p" "$pto" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
      grep -A1 -F "vadd.pto:$ln: $text" "$tmp/dis" | tail -1 | grep -Eq '^  [0-9a-f]+:  ' ||
        fail "$t: 'vadd.pto:$ln: $text' is not shown above an instruction"
    fi
    # 3: llvm-objdump's instructions in the kernel symbol [value, value + size).
    if [ -n "$objdump" ]; then
      read -r value size < <("$objdump" -t "$h" | awk -v k=$sample '$NF == k && / F /{print $1, $(NF-2)}')
      if [ -z "${value:-}" ]; then
        fail "$t: objdump finds no function symbol $sample"
      else
        lo=$((16#$value)) hi=$((16#$value + 16#$size))
        "$objdump" -d "$h" | awk -v lo=$lo -v hi=$hi -v out="$tmp/od_in" -v pad="$tmp/od_pad" '
          /\/\/ [0-9A-F]+:/ {
            match($0, /\/\/ [0-9A-F]+:/); a = 0; hx = substr($0, RSTART + 3, RLENGTH - 4)
            for (i = 1; i <= length(hx); i++) a = a * 16 + index("0123456789ABCDEF", substr(hx, i, 1)) - 1
            text = substr($0, 1, RSTART - 1); sub(/^[ \t]+/, "", text); sub(/[ \t]+$/, "", text)
            if (match($0, /<[^>]*>$/)) text = text " " substr($0, RSTART)
            print text > (a >= lo && a < hi ? out : pad)
          }'
        awk -F'\t' '/^  [0-9a-f]+:  /{print $2}' "$tmp/dis" >"$tmp/dis_text"
        on=$(wc -l <"$tmp/od_in")
        [ "$on" -eq "$n" ] || fail "$t: objdump finds $on instructions in $sample, ptodis lists $n"
        diff -q "$tmp/od_in" "$tmp/dis_text" >/dev/null ||
          fail "$t: text differs from objdump: $(diff "$tmp/od_in" "$tmp/dis_text" | head -5 | tr '\n' ' ')"
        grep -Evq '^(s_nop 0|s_code_end)$' "$tmp/od_pad" 2>/dev/null &&
          fail "$t: objdump finds more than padding past the kernel: $(grep -Ev '^(s_nop 0|s_code_end)$' "$tmp/od_pad" | head -3 | tr '\n' ' ')"
        rm -f "$tmp/od_in" "$tmp/od_pad"
      fi
    fi
    echo "ok: $t: $n instructions"
  done
done

# --function and --no-source.
h="$tmp/vadd_gfx942.hsaco"
"$ptodis" --function=vadd "$h" | grep -q '^vadd (kernel' || fail "--function=vadd lists no kernel"
"$ptodis" --function=nokernel "$h" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "no kernel named 'nokernel'" "$tmp/err" || fail "--function=nokernel: status $rc, $(cat "$tmp/err")"
"$ptodis" --no-source "$h" | grep -q '\.pto:' && fail "--no-source still shows .pto lines"

# 4: truncated objects (inside the code, inside the debug sections, in the section headers).
size=$(wc -c <"$h")
for cut in 16 64 1000 $((size / 2)) $((size - 200)) $((size - 1)); do
  head -c $cut "$h" >"$tmp/cut.hsaco"
  "$ptodis" "$tmp/cut.hsaco" >/dev/null 2>"$tmp/err"
  rc=$?
  if [ $rc -ne 1 ] || ! grep -q '^ptodis: error: .*cut.hsaco: ' "$tmp/err"; then
    fail "truncated to $cut bytes: status $rc, $(head -c 300 "$tmp/err")"
  else
    echo "ok: truncated to $cut bytes: $(head -c 160 "$tmp/err")"
  fi
done

# A symbol table whose size reaches far past the file: refused at once (LLVM would iterate it).
u64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
shoff=$(u64 "$h" 40) shnum=$(od -An -t u2 -j 60 -N 2 "$h" | tr -d ' ')
cp "$h" "$tmp/big_symtab.hsaco"
for ((i = 0; i < shnum; i++)); do
  [ "$(od -An -t u4 -j $((shoff + 64 * i + 4)) -N 4 "$h" | tr -d ' ')" = 2 ] || continue
  printf '\x5b' | dd of="$tmp/big_symtab.hsaco" bs=1 seek=$((shoff + 64 * i + 39)) conv=notrunc status=none
done
timeout 60 "$ptodis" "$tmp/big_symtab.hsaco" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'lies outside the file' "$tmp/err" || fail "huge .symtab size: status $rc, $(head -c 300 "$tmp/err")"

[ $fails -eq 0 ] && echo "ptodis_hsaco: all passed" || echo "ptodis_hsaco: $fails failed"
[ $fails -eq 0 ]
