#!/usr/bin/env bash
# Sample kernels: the launch time (`ptorun --time`: argument checks and every
# block; not the parse, JIT assembly or .npy I/O) on the interpreter and on
# each native target this CPU runs, min and median of R repeats, and the
# speedup over the interpreter (interp median / target median).
# usage: bench/samples.sh [--repeats R] [--build DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build"
R=5
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) R="${2:?--repeats needs a number}"; shift 2 ;;
    --build) BUILD="${2:?--build needs a directory}"; shift 2 ;;
    -h|--help) sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/samples.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for b in ptoas ptorun; do
  [ -x "$BUILD/$b" ] || { echo "bench/samples.sh: $BUILD/$b not built (run make build)" >&2; exit 2; }
done
# The native targets this CPU runs (ptoas -target=host names the widest;
# avx512 is timed only natively, never under Bochs).
targets=(interp)
host=$("$BUILD/ptoas" -target=host --emit=asm "$ROOT/samples/vadd/vadd.pto" -o - 2>/dev/null | head -1 || true)
case "$host" in
  *avx512*) targets+=(avx2 avx512) ;;
  *avx2*) targets+=(avx2) ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in "${targets[@]}"; do
  for ((i = 0; i < R; i++)); do
    PTORUN_FLAGS=--time PTOAS_OUT_DIR="$tmp/$t.$i" PTOAS_BIN="$BUILD/ptoas" PTORUN_BIN="$BUILD/ptorun" \
      bash "$ROOT/samples/runop.sh" -target="$t" all >"$tmp/$t.$i.out" 2>&1 ||
      { echo "bench/samples.sh: runop.sh -target=$t failed:" >&2; tail -3 "$tmp/$t.$i.out" >&2; exit 1; }
    for log in "$tmp/$t.$i"/*/run_*/ptorun.log; do
      k=$(basename "$(dirname "$log")"); k=${k#run_}
      ms=$(sed -n 's/^ptorun: time \([0-9.]*\) ms.*/\1/p' "$log")
      [ -n "$ms" ] && echo "$k $t $ms"
    done
  done
done >"$tmp/times"
/usr/bin/python3 - "$tmp/times" "${targets[@]}" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
targets = sys.argv[2:]
t = {}
for k, tg, ms in rows:
    t.setdefault(k, {}).setdefault(tg, []).append(float(ms))
hdr = f"{'kernel':18}" + "".join(f"{tg + ' min/med ms':>24}" for tg in targets) + "".join(
    f"{tg + ' x interp':>16}" for tg in targets[1:])
print(hdr)
lines = []
for k in sorted(t):
    v = t[k]
    cells = "".join(f"{min(v[tg]):>11.3f} /{statistics.median(v[tg]):>10.3f}" if tg in v else f"{'-':>24}"
                    for tg in targets)
    sp = ""
    for tg in targets[1:]:
        if tg in v and "interp" in v:
            x = statistics.median(v["interp"]) / statistics.median(v[tg])
            sp += f"{x:>16.1f}"
            lines.append(f"ratio sample_{k} {tg}_vs_interp={x:.1f}")
        else:
            sp += f"{'-':>16}"
    print(f"{k:18}" + cells + sp)
print()
print("\n".join(lines))
PY
