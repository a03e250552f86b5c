#!/usr/bin/env bash
# ptxas over everything the ptx backend compiles (docs/ptx_backend.md,
# "Tests"): every sample, bench/kernels and tests/exec/cases kernel is
# compiled with `ptoas -target=ptx --gpu-arch=SM` and assembled with
# `ptxas -arch=SM -v --warn-on-spills -Werror` for sm_80, sm_90, sm_90a and
# sm_120. A kernel the backend refuses (a located [unsupported-*] or [limit]
# error) is listed as refused, not failed; anything else that goes wrong
# (a crash, ptxas rejecting the text, a spill) fails the test. The report
# gives registers and shared memory per kernel and SM (a trailing d: the
# dynamic shared memory the entry announces).
#
#   tests/ptx/ptxas_check.sh [--ptoas PATH] [--ptxas PATH] [--arch "sm_80 sm_90"] [--report FILE] [FILES...]
#
# Without ptxas (it is part of the CUDA toolkit, not a Debian package) the
# test prints SKIP and exits 77 (ctest's skip code here, never a failure).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
ptoas="$root/build/ptoas"
ptxas="${PTXAS:-/usr/local/cuda/bin/ptxas}"
archs="sm_80 sm_90 sm_90a sm_120"
report=""
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --ptoas) ptoas="$2"; shift 2 ;;
    --ptxas) ptxas="$2"; shift 2 ;;
    --arch) archs="$2"; shift 2 ;;
    --report) report="$2"; shift 2 ;;
    *) files+=("$1"); shift ;;
  esac
done
if [ ! -x "$ptxas" ]; then
  echo "SKIP: no ptxas at $ptxas (the CUDA toolkit is not installed here; PTXAS=... names another)"
  exit 77
fi
if [ ${#files[@]} -eq 0 ]; then
  while IFS= read -r f; do files+=("$f"); done < <(cd "$root" && ls samples/*/*.pto bench/kernels/*.pto tests/exec/cases/*.pto | sort)
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
ok=0; refused=0; bad=0
out="$tmp/report.txt"
printf "%-44s %-7s %-6s %5s %7s %s\n" "kernel" "arch" "status" "regs" "smem" "note" > "$out"
for f in "${files[@]}"; do
  path="$f"; [ -e "$path" ] || path="$root/$f"
  name="${f#$root/}"
  for a in $archs; do
    if ! "$ptoas" -target=ptx --gpu-arch="$a" "$path" -o "$tmp/k.ptx" 2> "$tmp/err"; then
      if grep -qE '\[(unsupported-[a-z]+|limit)\]' "$tmp/err"; then
        why="$(grep -oE 'error: .*' "$tmp/err" | head -1 | cut -c8-110)"
        printf "%-44s %-7s %-6s %5s %7s %s\n" "$name" "$a" "refused" "-" "-" "$why" >> "$out"
        refused=$((refused + 1))
      else
        printf "%-44s %-7s %-6s %5s %7s %s\n" "$name" "$a" "FAIL" "-" "-" "ptoas: $(head -c 200 "$tmp/err" | tr '\n' ' ')" >> "$out"
        bad=$((bad + 1))
      fi
      continue
    fi
    if ! "$ptxas" -arch="$a" -v --warn-on-spills -Werror "$tmp/k.ptx" -o "$tmp/k.cubin" > "$tmp/log" 2>&1; then
      printf "%-44s %-7s %-6s %5s %7s %s\n" "$name" "$a" "FAIL" "-" "-" "ptxas: $(grep -m1 -E 'error|warning' "$tmp/log" | cut -c1-200)" >> "$out"
      bad=$((bad + 1))
      continue
    fi
    # One line per entry: registers and shared memory (dynamic: as the
    # entry announces it; ptxas counts only static shared memory).
    dyn="$(grep -oE '^// pto.dynamic_shared_bytes [0-9]+' "$tmp/k.ptx" | head -1 | awk '{print $3}')"
    awk -v n="$name" -v a="$a" -v dyn="$dyn" '
      /Compiling entry function/ { match($0, /'"'"'[^'"'"']*'"'"'/); fn = substr($0, RSTART + 1, RLENGTH - 2) }
      /Used [0-9]+ registers/ {
        regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs)
        smem = 0; if ($0 ~ /bytes smem/) { smem = $0; sub(/ bytes smem.*/, "", smem); sub(/.*, /, "", smem) }
        if (dyn != "") smem = dyn "d"
        printf "%-44s %-7s %-6s %5s %7s %s\n", n, a, "ok", regs, smem, "@" fn
      }' "$tmp/log" >> "$out"
    ok=$((ok + 1))
  done
done
cat "$out"
[ -n "$report" ] && cp "$out" "$report"
echo "ptxas: $ok ok, $refused refused, $bad failed (kernel x arch)"
[ $bad -eq 0 ]
