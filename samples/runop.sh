#!/usr/bin/env bash
# Runs the samples: assemble (ptoas --emit=ir), generate inputs and goldens
# (golden.py), run (ptorun), compare (common/compare.py).
#
#   samples/runop.sh [-target=T] (-t NAME | all)
#
# One line per kernel file (a sample's main kernel, and each variant such as
# an assembly-form copy): NAME<TAB>OK|FAIL|SKIP<TAB>detail, then the line
# "N passed, N failed, N skipped". Exit 1 on any failure, else 0.
#
# Environment: PTOAS_BIN (build/ptoas), PTORUN_BIN (build/ptorun),
# PYTHON_BIN (/usr/bin/python3), PTOAS_OUT_DIR (default: a new temp dir,
# removed again unless something failed),
# PTOAS_FLAGS (extra ptoas flags), PTORUN_FLAGS (extra ptorun flags, e.g.
# --time), SVE_VL (bits; passed on to ptorun), GPU_ARCH (sm_80 ... sm_120:
# -target=ptx generates for that SM; gfx942, gfx90a or gfx1100 for
# -target=amdgpu; ptorun --gpu-arch), PTOAS_PTX_RUNNER (interp, gpu or
# auto; passed on to ptorun).
# -target=avx512 on a CPU without AVX-512 runs under Bochs (ptorun says so;
# PTOAS_FORCE_BOCHS=1 forces it, PTOAS_BOCHS_TIMEOUT sets its limit in
# seconds); without bochs installed each kernel is a SKIP.
# -target=sve on a CPU without SVE runs under qemu-aarch64 at SVE_VL bits
# (default 256; ptorun says so); without qemu-user, or a build that did
# not find aarch64-linux-gnu-gcc, each kernel is a SKIP.
# -target=ptx runs ptoas's PTX on an NVIDIA GPU through the CUDA driver when
# there is one, else on the project's PTX interpreter (ptorun says which).
# -target=amdgpu runs ptoas's code object on the project's AMDGPU
# interpreter (no AMD GPU here; ptorun says so).
#
# Each sample is samples/<name>/ with a run.env (sourced; see
# samples/README.md), a golden.py and its kernel(s).
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

usage() {
  echo "usage: $0 [-target=T] (-t NAME | all)" >&2
  exit 2
}

target=host
which=
while [ $# -gt 0 ]; do
  case "$1" in
    -target=*|--target=*) target=${1#*=} ;;
    -target|--target) shift; [ $# -gt 0 ] || usage; target=$1 ;;
    -t) shift; [ $# -gt 0 ] || usage; which=$1 ;;
    -t=*) which=${1#*=} ;;
    all) which=all ;;
    -h|--help) usage ;;
    *) echo "runop.sh: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
[ -n "$which" ] || usage
[ -n "$target" ] || usage

abspath() {
  case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac
}
PTOAS_BIN=$(abspath "${PTOAS_BIN:-$root/build/ptoas}")
PTORUN_BIN=$(abspath "${PTORUN_BIN:-$root/build/ptorun}")
PYTHON_BIN=${PYTHON_BIN:-/usr/bin/python3}
PTOAS_FLAGS=${PTOAS_FLAGS:-}
keep_out=1
if [ -n "${PTOAS_OUT_DIR:-}" ]; then
  out_root=$(abspath "$PTOAS_OUT_DIR")
  mkdir -p "$out_root" || exit 2
else
  # A private temp dir: removed after a clean run, kept (and named on
  # stderr) when something failed.
  out_root=$(mktemp -d "${TMPDIR:-/tmp}/ptoas-samples.XXXXXX") || exit 2
  keep_out=0
fi
[ -n "${SVE_VL:-}" ] && export SVE_VL
[ -n "${PTOAS_PTX_RUNNER:-}" ] && export PTOAS_PTX_RUNNER
gpu_flag=()
case "$target" in ptx|amdgpu) [ -n "${GPU_ARCH:-}" ] && gpu_flag=(--gpu-arch="$GPU_ARCH") ;; esac

if [ "$which" = all ]; then
  names=()
  for d in "$here"/*/; do
    n=$(basename "$d")
    [ -f "$d/run.env" ] && names+=("$n")
  done
else
  if [ ! -f "$here/$which/run.env" ]; then
    echo "runop.sh: no sample '$which' (no $here/$which/run.env)" >&2
    exit 2
  fi
  names=("$which")
fi

passed=0 failed=0 skipped=0
result() {  # NAME STATUS DETAIL
  local detail=${3//$'\n'/ }
  detail=${detail//$'\t'/ }
  printf '%s\t%s\t%s\n' "$1" "$2" "$detail"
  case "$2" in
    OK) passed=$((passed + 1)) ;;
    FAIL) failed=$((failed + 1)) ;;
    SKIP) skipped=$((skipped + 1)) ;;
  esac
}

# The line of a log that says what went wrong: the first one mentioning an
# error, else the last non-blank line (notes such as "running on the
# interpreter" come first and are not the reason).
first_line() {
  local l
  l=$(grep -m1 -i 'error' "$1" 2>/dev/null)
  [ -n "$l" ] || l=$(grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n1)
  printf '%s\n' "$l" | cut -c1-300
}

run_sample() {
  local name=$1 sdir=$here/$1 d=$out_root/$1
  # The manifest: KERNEL, VARIANTS, BLOCKS, PTO_ARCH, ARGS, OUTS, INOUTS, CHECK.
  local KERNEL= VARIANTS= BLOCKS=1 PTO_ARCH= ARGS= OUTS= INOUTS= CHECK=
  # shellcheck disable=SC1090
  . "$sdir/run.env"
  local kernels=("$KERNEL")
  local v
  for v in $VARIANTS; do kernels+=("$v"); done

  rm -rf "$d"
  mkdir -p "$d"

  # Goldens and inputs, once per sample.
  local gen_ok=1 gen_msg=
  if ! "$PYTHON_BIN" "$sdir/golden.py" "$d" >"$d/golden.log" 2>&1; then
    gen_ok=0
    gen_msg="golden.py failed: $(tail -n1 "$d/golden.log")"
  fi

  local k kname rdir arch_flag=()
  [ -n "$PTO_ARCH" ] && arch_flag=(--pto-arch="$PTO_ARCH")
  for k in "${kernels[@]}"; do
    kname=${k%.pto}
    rdir=$d/run_$kname
    mkdir -p "$rdir"
    # 1. assemble and verify
    # shellcheck disable=SC2086
    if ! "$PTOAS_BIN" --emit=ir "${arch_flag[@]}" $PTOAS_FLAGS "$sdir/$k" >"$rdir/kernel.ir" 2>"$rdir/ptoas.log"; then
      result "$kname" FAIL "ptoas: $(first_line "$rdir/ptoas.log")"
      continue
    fi
    if [ $gen_ok = 0 ]; then
      result "$kname" FAIL "$gen_msg"
      continue
    fi
    # 2. run
    # shellcheck disable=SC2206
    local cmd=("$PTORUN_BIN" "$sdir/$k" --target="$target" --blocks "$BLOCKS" "${arch_flag[@]}" "${gpu_flag[@]}"
               ${PTORUN_FLAGS:-})
    local a key val
    for a in $ARGS; do
      key=${a%%=*} val=${a#*=}
      case "$val" in *.npy) val=$d/$val ;; esac
      cmd+=(--arg "$key=$val")
    done
    for a in $OUTS; do
      cmd+=(--out "$a")
    done
    for a in $INOUTS; do
      key=${a%%=*} val=${a#*=}
      cp "$d/$val" "$rdir/$val" || { result "$kname" FAIL "missing inout input $val"; continue 2; }
      cmd+=(--inout "$key=$val")
    done
    if [ ! -x "$PTORUN_BIN" ]; then
      result "$kname" FAIL "no ptorun at $PTORUN_BIN"
      continue
    fi
    (cd "$rdir" && exec "${cmd[@]}") >"$rdir/ptorun.log" 2>&1
    local rc=$?
    if [ $rc -gt 128 ]; then
      echo "ptorun: killed by signal $((rc - 128))" >>"$rdir/ptorun.log"
    fi
    if [ $rc -ne 0 ]; then
      if grep -qi "not implemented yet" "$rdir/ptorun.log"; then
        result "$kname" SKIP "$(grep -m1 -i "not implemented yet" "$rdir/ptorun.log" | cut -c1-300)"
      elif grep -q "has no JIT; use --target=interp" "$rdir/ptorun.log"; then
        # A backend whose code nothing here runs (ptorun names it).
        result "$kname" SKIP "$(grep -m1 "has no JIT" "$rdir/ptorun.log" | cut -c1-300)"
      elif grep -q "bochs is not installed" "$rdir/ptorun.log"; then
        result "$kname" SKIP "$(grep -m1 "bochs is not installed" "$rdir/ptorun.log" | cut -c1-300)"
      elif grep -q "this CPU has no SVE and" "$rdir/ptorun.log"; then
        result "$kname" SKIP "$(grep -m1 "this CPU has no SVE and" "$rdir/ptorun.log" | cut -c1-300)"
      elif [ "$target" != interp ] && [ $rc -eq 1 ] &&
           grep -qE " \[(unsupported-[a-z]*|limit)\]$" "$rdir/ptorun.log"; then
        # A backend that exists but does not cover an op of this kernel yet,
        # or a kernel past a limit of the target (amdgpu: tiles past 64 KiB
        # of LDS): visible as a skip with the backend's own message, never
        # a pass.
        result "$kname" SKIP "$(grep -m1 -E " \[(unsupported-[a-z]*|limit)\]$" "$rdir/ptorun.log" | cut -c1-300)"
      else
        result "$kname" FAIL "ptorun (exit $rc): $(first_line "$rdir/ptorun.log")"
      fi
      continue
    fi
    # 3. compare
    local specs=() c out gold cls
    for c in $CHECK; do
      out=${c%%:*} gold=${c#*:}
      specs+=("$out:$d/$gold")
    done
    local line
    line=$(cd "$rdir" && "$PYTHON_BIN" "$here/common/compare.py" "$kname" "${specs[@]}" 2>&1)
    case "$line" in
      "$kname"$'\t'OK$'\t'*) result "$kname" OK "${line#*OK$'\t'}" ;;
      "$kname"$'\t'FAIL$'\t'*) result "$kname" FAIL "${line#*FAIL$'\t'}" ;;
      *) result "$kname" FAIL "compare.py: $(printf '%s' "$line" | tail -n1)" ;;
    esac
  done
}

for n in "${names[@]}"; do
  run_sample "$n"
done

echo "$passed passed, $failed failed, $skipped skipped"
if [ $failed -ne 0 ]; then
  echo "runop.sh: inputs, outputs and logs are in $out_root" >&2
  exit 1
fi
[ $keep_out = 1 ] || rm -rf "$out_root"
exit 0
