#!/usr/bin/env bash
# Runs ptoas over a corpus directory described by DIR/MANIFEST.tsv
# (columns: path, expect, flags; see ../shared/corpus/README.md) and checks each
# file's expected outcome:
#   accept  exit 0, IR printed, and printing is a fixed point (the printed IR
#           read back with the same flags prints the same bytes)
#   reject  exit 1, a `FILE:LINE:COL: error:` line on stderr, no output file
#   mixed, legacy
#           exit 0 or 1; anything else is a crash
# Any exit status other than 0/1 is a crash; more than $PTOAS_CORPUS_TIMEOUT
# seconds (default 10) per run is a hang and counts as a crash.
# Usage: tests/corpus/run.sh DIR [--ptoas PATH] [-v]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PTOAS="$ROOT/build/ptoas"
DIR=""
VERBOSE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --ptoas) PTOAS="${2:?--ptoas needs a path}"; shift 2 ;;
    --ptoas=*) PTOAS="${1#--ptoas=}"; shift ;;
    -v|--verbose) VERBOSE=1; shift ;;
    -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "corpus: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$DIR" ] || { echo "corpus: more than one DIR" >&2; exit 2; }; DIR="$1"; shift ;;
  esac
done
[ -n "$DIR" ] || { echo "usage: tests/corpus/run.sh DIR [--ptoas PATH] [-v]" >&2; exit 2; }

if [ ! -d "$DIR" ]; then
  echo "corpus: $DIR not present, skipped"
  exit 0
fi
MANIFEST="$DIR/MANIFEST.tsv"
[ -f "$MANIFEST" ] || { echo "corpus: $MANIFEST missing" >&2; exit 2; }
case "$PTOAS" in */*) ;; *) PTOAS="$(command -v "$PTOAS" || echo "$PTOAS")" ;; esac
[ -x "$PTOAS" ] || { echo "corpus: ptoas not found at $PTOAS (run make build)" >&2; exit 2; }

TIMEOUT="${PTOAS_CORPUS_TIMEOUT:-10}"
# Sanitizer builds exit 1 on a report by default, which would pass for a clean
# rejection; make their reports a distinct status.
export ASAN_OPTIONS="${ASAN_OPTIONS:-exitcode=99}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-exitcode=99:halt_on_error=1:print_stacktrace=1}"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/ptoas-corpus.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

n_acc=0; ok_acc=0; n_rej=0; ok_rej=0; n_other=0; ok_other=0
crashes=0; mismatches=0

# run_ptoas OUT ERR FLAGS... INPUT: runs ptoas --emit=ir under a timeout, sets $rc.
run_ptoas() {
  local out="$1" err="$2"; shift 2
  rm -f "$out"
  set +e
  timeout -k 2 "$TIMEOUT" "$PTOAS" --emit=ir "$@" -o "$out" </dev/null >/dev/null 2>"$err"
  rc=$?
  set -e
}

# status_word RC: a crash/hang/usage description, or empty for 0/1.
status_word() {
  case "$1" in
    0|1) ;;
    2) echo "usage error (exit 2: a flag ptoas does not know?)" ;;
    124|137) echo "hang (no result within ${TIMEOUT}s)" ;;
    *) if [ "$1" -gt 128 ]; then echo "crash (signal $(( $1 - 128 )), exit $1)"
       else echo "crash (exit $1)"; fi ;;
  esac
}

first_err_line() { grep -m1 -E 'error' "$1" 2>/dev/null | cut -c1-200 || true; }

fail() {  # fail KIND PATH REASON [STDERR-FILE]; a usage error is a mismatch, not a crash
  local kind="$1" path="$2" reason="$3"
  case "$reason" in *"usage error (exit 2"*) kind=mismatch ;; esac
  if [ "$kind" = crash ]; then crashes=$((crashes + 1)); else mismatches=$((mismatches + 1)); fi
  echo "corpus: $kind: $path: $reason"
  if [ $# -ge 4 ] && [ -s "$4" ]; then sed -n '1,6p' "$4" | sed 's/^/    | /'; fi
}

# Columns: path, expect, flags, then anything (0.60's generation). A tab is
# whitespace to `read`, which would merge an empty flags field into the
# next column, so the tabs become a separator that is not whitespace.
while IFS= read -r line || [ -n "${line:-}" ]; do
  line="${line%$'\r'}"
  IFS=$'\037' read -r path expect flags _ <<<"${line//$'\t'/$'\037'}"
  case "$path" in ''|'#'*) continue ;; esac
  read -r -a fl <<<"${flags:-}"
  src="$DIR/$path"
  if [ ! -f "$src" ]; then
    fail mismatch "$path" "listed in MANIFEST.tsv but missing"; continue
  fi
  out="$TMP/out.pto"; err="$TMP/err.txt"
  run_ptoas "$out" "$err" ${fl[@]+"${fl[@]}"} "$src"
  bad="$(status_word "$rc")"
  case "$expect" in
    accept)
      n_acc=$((n_acc + 1))
      if [ -n "$bad" ]; then fail crash "$path" "$bad" "$err"; continue; fi
      if [ "$rc" -ne 0 ]; then fail mismatch "$path" "expected accept, got exit 1: $(first_err_line "$err")"; continue; fi
      if [ ! -s "$out" ]; then fail mismatch "$path" "exit 0 but no IR printed"; continue; fi
      mv "$out" "$TMP/first.pto"
      run_ptoas "$out" "$err" ${fl[@]+"${fl[@]}"} "$TMP/first.pto"
      bad="$(status_word "$rc")"
      if [ -n "$bad" ]; then fail crash "$path" "re-reading the printed IR: $bad" "$err"; continue; fi
      if [ "$rc" -ne 0 ]; then
        fail mismatch "$path" "printed IR is rejected when read back: $(first_err_line "$err")"; continue
      fi
      if ! cmp -s "$TMP/first.pto" "$out"; then
        fail mismatch "$path" "printing is not a fixed point (first difference below)"
        diff "$TMP/first.pto" "$out" | sed -n '1,8p' | sed 's/^/    | /' || true
        continue
      fi
      ok_acc=$((ok_acc + 1))
      if [ "$VERBOSE" = 1 ]; then echo "corpus: ok: $path (accepted, fixed point)"; fi
      ;;
    reject)
      n_rej=$((n_rej + 1))
      if [ -n "$bad" ]; then fail crash "$path" "$bad" "$err"; continue; fi
      if [ "$rc" -ne 1 ]; then fail mismatch "$path" "expected reject, got exit 0"; continue; fi
      base="$(basename "$src")"
      base_re="$(printf '%s' "$base" | sed 's/[][\.*^$+?(){}|/]/\\&/g')"
      if ! grep -qE "^([^:]*/)?${base_re}:[0-9]+:[0-9]+: error: " "$err"; then
        fail mismatch "$path" "rejected, but no '$base:LINE:COL: error:' line on stderr" "$err"; continue
      fi
      if [ -e "$out" ]; then fail mismatch "$path" "rejected, but left an output file behind"; continue; fi
      ok_rej=$((ok_rej + 1))
      if [ "$VERBOSE" = 1 ]; then echo "corpus: ok: $path (rejected: $(first_err_line "$err"))"; fi
      ;;
    mixed|legacy)
      n_other=$((n_other + 1))
      if [ -n "$bad" ]; then fail crash "$path" "$bad" "$err"; continue; fi
      ok_other=$((ok_other + 1))
      if [ "$VERBOSE" = 1 ]; then echo "corpus: ok: $path ($expect, exit $rc)"; fi
      ;;
    *)
      fail mismatch "$path" "unknown expectation '$expect' in MANIFEST.tsv"
      ;;
  esac
done <"$MANIFEST"

echo "corpus: $ok_acc/$n_acc accepted, $ok_rej/$n_rej rejected with location," \
     "$ok_other/$n_other other ok, $crashes crashes, $mismatches mismatches"
[ "$crashes" -eq 0 ] && [ "$mismatches" -eq 0 ]
