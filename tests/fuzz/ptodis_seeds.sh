#!/usr/bin/env bash
# Seeds for fuzz_ptodis: ptoas's own objects, -target=avx2 and -target=sve
# (and avx512) at -O0 and -O2, for every sample kernel.
# Usage: tests/fuzz/ptodis_seeds.sh PTOAS OUTDIR
set -u
ptoas=${1:?usage: ptodis_seeds.sh PTOAS OUTDIR} out=${2:?usage: ptodis_seeds.sh PTOAS OUTDIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$out"
n=0
for k in "$root"/samples/*/*.pto "$root"/tests/x86/kernels/*.pto; do
  [ -f "$k" ] || continue
  b=$(basename "$k" .pto)
  for t in avx2 avx512 sve; do
    for o in 0 2; do
      [ -e "$out/seed_${b}_${t}_O$o.o" ] && { n=$((n + 1)); continue; }
      "$ptoas" -target=$t -O$o "$k" -o "$out/seed_${b}_${t}_O$o.o" 2>/dev/null && n=$((n + 1))
    done
  done
done
echo "ptodis_seeds: $n objects in $out"
[ "$n" -gt 0 ]
