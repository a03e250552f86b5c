#!/usr/bin/env bash
# Runs ptoas over a corpus directory described by DIR/MANIFEST.tsv
# (columns: path, expect, flags[, generation]; see the corpus's README) and
# checks each file's expected outcome with the file's own flags:
#   accept  exit 0, IR printed, and printing is a fixed point (the printed IR
#           read back with the same flags prints the same bytes). A file
#           whose flags ask for --help must print it and exit 0.
#   reject  exit 1 with a `FILE:LINE:COL: error:` line on stderr and no
#           output file: from `--emit=ir` (the front end), or, when that
#           accepts it, from the full pipeline for the default target (cce):
#           the official tool rejects some files only in a later pass (a
#           refusal of an op or type the target does not cover is no such
#           rejection: a mismatch). A
#           file rejected for an invalid option value (exit 2, "error:
#           invalid --X") counts as rejected as bad usage.
#   unknown, mixed, legacy
#           exit 0 or 1; anything else is a crash
# `--emit=ir` goes after the file's flags, so it overrides their emit
# option (the last one wins). Any exit status other than 0/1 is a crash; more
# than $PTOAS_CORPUS_TIMEOUT seconds (default 10) per run is a hang and counts
# as a crash. Prints one summary line per generation (4th column) and a total.
# --known FILE lists files (one path per line, `#` comments) that are known
# not to meet their expectation yet: their mismatches are counted as known
# and do not fail the run, but a crash or hang always does, and so does a
# listed file that now passes (take it off the list: --update-known rewrites
# FILE with the files that fail today).
# --overrides FILE replaces the manifest row of the files it lists (columns:
# path, expect, flags, reason): rows that do not say what the official tool
# does with the file as it stands (flags taken from a RUN line that feeds
# the tool an edited copy, a test harness that adds flags the manifest did
# not record), and the few files where ptoas keeps the 0.27 meaning against
# a 0.60 rule. Each one is counted and named in the summary; a listed path
# that is not in the manifest, or a row identical to the manifest's, fails.
# --no-fixpoint leaves out the fixed-point run (the printed IR read back):
# for a sanitized ptoas, whose runs look for memory errors in what the
# files make ptoas do; the plain run checks the fixed point.
# The rows run on PTOAS_CORPUS_JOBS processes (default: one per core); the
# report is the same as one process's.
# Usage: tests/corpus/run.sh DIR [--ptoas PATH] [--known FILE [--update-known]]
#                            [--overrides FILE] [--no-fixpoint] [-v]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PTOAS="$ROOT/build/ptoas"
DIR=""
VERBOSE=0
KNOWN=""
OVERRIDES=""
UPDATE_KNOWN=0
FIXPOINT=1
while [ $# -gt 0 ]; do
  case "$1" in
    --ptoas) PTOAS="${2:?--ptoas needs a path}"; shift 2 ;;
    --ptoas=*) PTOAS="${1#--ptoas=}"; shift ;;
    -v|--verbose) VERBOSE=1; shift ;;
    --known) KNOWN="${2:?--known needs a file}"; shift 2 ;;
    --known=*) KNOWN="${1#--known=}"; shift ;;
    --update-known) UPDATE_KNOWN=1; shift ;;
    --no-fixpoint) FIXPOINT=0; shift ;;
    --overrides) OVERRIDES="${2:?--overrides needs a file}"; shift 2 ;;
    --overrides=*) OVERRIDES="${1#--overrides=}"; shift ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "corpus: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$DIR" ] || { echo "corpus: more than one DIR" >&2; exit 2; }; DIR="$1"; shift ;;
  esac
done
[ -n "$DIR" ] || { echo "usage: tests/corpus/run.sh DIR [--ptoas PATH] [--known FILE [--update-known]] [--overrides FILE] [--no-fixpoint] [-v]" >&2; exit 2; }

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

# Per generation: files, ok, and failures by kind (associative arrays).
declare -A seen_gen
declare -A knownf n_acc ok_acc n_rej ok_rej ok_rej_late ok_rej_usage n_other ok_other crash fixp mism
gens=()
# In a worker (WORKER=1: the rows run in parallel, see below) bump and fail
# are written to the row's log, to be done in order by the main process.
WORKER=0
bump() {  # bump ARRAY GEN
  if [ "$WORKER" = 1 ]; then printf '\036bump %q %q\n' "$1" "$2"; return 0; fi
  local -n arr="$1"
  arr[$2]=$(( ${arr[$2]:-0} + 1 ))
}
now_pass=0
declare -A known
if [ -n "$KNOWN" ] && [ -f "$KNOWN" ]; then
  while IFS= read -r k; do
    k="${k%%#*}"; k="${k%"${k##*[![:space:]]}"}"
    [ -n "$k" ] && known[$k]=1
  done <"$KNOWN"
fi
failed_now=()
declare -A ov_expect ov_flags ov_used
bad_override=0
if [ -n "$OVERRIDES" ]; then
  [ -f "$OVERRIDES" ] || { echo "corpus: $OVERRIDES missing" >&2; exit 2; }
  while IFS= read -r oline || [ -n "${oline:-}" ]; do
    case "$oline" in ''|'#'*) continue ;; esac
    IFS=$'\037' read -r opath oexp oflags oreason _ <<<"${oline//$'\t'/$'\037'}"
    if [ -z "${oreason:-}" ]; then echo "corpus: override without a reason: $opath" >&2; bad_override=1; fi
    ov_expect[$opath]="$oexp"; ov_flags[$opath]="${oflags:-}"
  done <"$OVERRIDES"
fi

# run_ptoas OUT ERR ARGS...: runs ptoas ARGS -o OUT under a timeout, sets $rc
# and $bad (status_word). Fork-free apart from ptoas and its timeout: a row
# costs mostly its processes (3,500 rows in the 0.60 corpus).
run_ptoas() {
  local out="$1" err="$2"; shift 2
  [ ! -e "$out" ] || rm -f "$out"
  set +e
  timeout -k 2 "$TIMEOUT" "$PTOAS" "$@" -o "$out" </dev/null >/dev/null 2>"$err"
  rc=$?
  set -e
  status_word "$rc"
}

# status_word RC: sets $bad to a crash/hang/usage description, or empty for 0/1.
status_word() {
  case "$1" in
    0|1) bad="" ;;
    2) bad="usage error (exit 2: a flag ptoas does not know?)" ;;
    124|137) bad="hang (no result within ${TIMEOUT}s)" ;;
    *) if [ "$1" -gt 128 ]; then bad="crash (signal $(( $1 - 128 )), exit $1)"
       else bad="crash (exit $1)"; fi ;;
  esac
}

first_err_line() { grep -m1 -E 'error' "$1" 2>/dev/null | cut -c1-200 || true; }

fail() {  # fail KIND PATH REASON [STDERR-FILE]; a usage error is a mismatch, not a crash
  if [ "$WORKER" = 1 ]; then printf '\036fail'; printf ' %q' "$@"; printf '\n'; return 0; fi
  local kind="$1" path="$2" reason="$3"
  case "$reason" in *"usage error (exit 2"*) kind=mismatch ;; esac
  if [ "$kind" != crash ]; then failed_now+=("$path"); fi
  if [ "$kind" != crash ] && [ -n "${known[$path]:-}" ]; then
    bump knownf "$gen"; file_failed=1
    if [ "$VERBOSE" = 1 ]; then echo "corpus: known: $path: $reason"; fi
    return 0
  fi
  file_failed=1
  case "$kind" in
    crash) bump crash "$gen" ;;
    fixpoint) bump fixp "$gen" ;;
    *) bump mism "$gen" ;;
  esac
  echo "corpus: $kind: $path: $reason"
  if [ $# -ge 4 ] && [ -s "$4" ]; then sed -n '1,6p' "$4" | sed 's/^/    | /'; fi
}

located() {  # located FILE-PATH STDERR: a `base:LINE:COL: error:` line?
  local base base_re
  base="$(basename "$1")"
  base_re="$(printf '%s' "$base" | sed 's/[][\.*^$+?(){}|/]/\\&/g')"
  grep -qE "^([^:]*/)?${base_re}:[0-9]+:[0-9]+: error: " "$2"
}

# A listed file that met its expectation: the list is out of date.
cur_path=""; file_failed=0
check_known_pass() {
  if [ -n "$cur_path" ] && [ "$file_failed" = 0 ] && [ -n "${known[$cur_path]:-}" ]; then
    now_pass=$((now_pass + 1))
    echo "corpus: now passes, take it off $(basename "$KNOWN"): $cur_path"
  fi
  cur_path=""
}

# judge_row PATH EXPECT FLAGS GEN: the ptoas runs of one row (in $W) and
# their verdict, through bump and fail.
judge_row() {
  local path="$1" expect="$2" flags="$3" gen="$4" fl src out err bad late late_fl f
  read -r -a fl <<<"${flags:-}"
  src="$DIR/$path"
  if [ ! -f "$src" ]; then
    fail mismatch "$path" "listed in MANIFEST.tsv but missing"; return 0
  fi
  out="$W/out.pto"; err="$W/err.txt"
  case " ${flags:-} " in
    *" --help "*|*" --help-hidden "*)
      # A RUN line that reads ptoas's help (the official test checks an option is listed).
      bump n_acc "$gen"
      set +e; timeout -k 2 "$TIMEOUT" "$PTOAS" ${fl[@]+"${fl[@]}"} >"$out" 2>"$err"; rc=$?; set -e
      status_word "$rc"
      if [ -n "$bad" ]; then fail crash "$path" "$bad" "$err"; return 0; fi
      if [ "$rc" -ne 0 ] || [ ! -s "$out" ]; then fail mismatch "$path" "--help did not print help and exit 0"; return 0; fi
      bump ok_acc "$gen"; return 0 ;;
  esac
  run_ptoas "$out" "$err" ${fl[@]+"${fl[@]}"} --emit=ir "$src"
  case "$expect" in
    accept)
      bump n_acc "$gen"
      if [ -n "$bad" ]; then fail crash "$path" "$bad" "$err"; return 0; fi
      if [ "$rc" -ne 0 ]; then fail mismatch "$path" "expected accept, got exit 1: $(first_err_line "$err")"; return 0; fi
      if [ ! -s "$out" ]; then fail mismatch "$path" "exit 0 but no IR printed"; return 0; fi
      if [ "$FIXPOINT" = 0 ]; then
        bump ok_acc "$gen"
        if [ "$VERBOSE" = 1 ]; then echo "corpus: ok: $path (accepted)"; fi
        return 0
      fi
      run_ptoas "$W/again.pto" "$err" ${fl[@]+"${fl[@]}"} --emit=ir "$out"
      if [ -n "$bad" ]; then fail crash "$path" "re-reading the printed IR: $bad" "$err"; return 0; fi
      if [ "$rc" -ne 0 ]; then
        fail fixpoint "$path" "printed IR is rejected when read back: $(first_err_line "$err")"; return 0
      fi
      if ! cmp -s "$out" "$W/again.pto"; then
        fail fixpoint "$path" "printing is not a fixed point (first difference below)"
        diff "$out" "$W/again.pto" | sed -n '1,8p' | sed 's/^/    | /' || true
        return 0
      fi
      bump ok_acc "$gen"
      if [ "$VERBOSE" = 1 ]; then echo "corpus: ok: $path (accepted, fixed point)"; fi
      ;;
    reject)
      bump n_rej "$gen"
      if [ "$rc" = 2 ] && grep -qE '^ptoas: error: invalid --' "$err"; then
        bump ok_rej_usage "$gen"
        if [ "$VERBOSE" = 1 ]; then echo "corpus: ok: $path (bad usage: $(first_err_line "$err"))"; fi
        return 0
      fi
      if [ -n "$bad" ]; then fail crash "$path" "$bad" "$err"; return 0; fi
      late=0
      if [ "$rc" -eq 0 ]; then
        # The front end accepts it: the rest of the pipeline (default target) must reject it.
        late=1
        late_fl=()
        for f in ${fl[@]+"${fl[@]}"}; do
          case "$f" in --emit*|--pto-backend*|--mlir-print-ir*) ;; *) late_fl+=("$f") ;; esac
        done
        run_ptoas "$W/out.cpp" "$err" ${late_fl[@]+"${late_fl[@]}"} "$src"
        out="$W/out.cpp"
        if [ -n "$bad" ]; then fail crash "$path" "full pipeline: $bad" "$err"; return 0; fi
        if [ "$rc" -ne 1 ]; then fail mismatch "$path" "expected reject, got exit 0 (front end and full pipeline)"; return 0; fi
        # A refusal of what the target does not cover says nothing about the
        # error the official tool finds.
        if grep -qE 'is not supported on|\[unsupported-|not supported yet' "$err"; then
          fail mismatch "$path" "rejected only as unsupported by the target: $(first_err_line "$err")"; return 0
        fi
      fi
      if ! located "$src" "$err"; then
        fail mismatch "$path" "rejected, but no '$(basename "$src"):LINE:COL: error:' line on stderr" "$err"; return 0
      fi
      if [ -e "$out" ]; then fail mismatch "$path" "rejected, but left an output file behind"; return 0; fi
      bump ok_rej "$gen"
      [ "$late" = 0 ] || bump ok_rej_late "$gen"
      if [ "$VERBOSE" = 1 ]; then echo "corpus: ok: $path (rejected: $(first_err_line "$err"))"; fi
      ;;
    unknown|mixed|legacy)
      bump n_other "$gen"
      if [ -n "$bad" ]; then fail crash "$path" "$bad" "$err"; return 0; fi
      bump ok_other "$gen"
      if [ "$VERBOSE" = 1 ]; then echo "corpus: ok: $path ($expect, exit $rc)"; fi
      ;;
    *)
      fail mismatch "$path" "unknown expectation '$expect' in MANIFEST.tsv"
      ;;
  esac
}

# Columns: path, expect, flags, then the generation (0.60's manifest). A tab
# is whitespace to `read`, which would merge an empty flags field into the
# next column, so the tabs become a separator that is not whitespace.
# row_fields LINE: sets path, expect, flags, gen (the override's expect and
# flags where there is one); false for a comment or an empty line.
row_fields() {
  local line="${1%$'\r'}"
  IFS=$'\037' read -r path expect flags gen _ <<<"${line//$'\t'/$'\037'}"
  case "$path" in ''|'#'*) return 1 ;; esac
  gen="${gen:-all}"
  orig_expect="$expect" orig_flags="${flags:-}"
  if [ -n "${ov_expect[$path]:-}" ]; then expect="${ov_expect[$path]}"; flags="${ov_flags[$path]}"; fi
  return 0
}
mapfile -t rows <"$MANIFEST"

# The rows run on CORPUS_JOBS workers (default: one per core;
# PTOAS_CORPUS_JOBS), each in its own directory, writing what it prints and
# its bump and fail calls to its log; the main process then goes through the
# logs in manifest order, so the counts and messages are those of one
# process. A row whose log is not complete (a worker that died) runs again
# here.
CORPUS_JOBS="${PTOAS_CORPUS_JOBS:-$(nproc 2>/dev/null || echo 1)}"
if [ "$CORPUS_JOBS" -gt 1 ]; then
  running=0
  for ROW in "${!rows[@]}"; do
    row_fields "${rows[$ROW]}" || continue
    ( W="$TMP/w$ROW" WORKER=1; mkdir -p "$W"; judge_row "$path" "$expect" "$flags" "$gen"; printf '\036done\n' ) \
      >"$TMP/r$ROW.log" 2>/dev/null &
    running=$((running + 1))
    if [ "$running" -ge "$CORPUS_JOBS" ]; then wait -n || true; running=$((running - 1)); fi
  done
  wait || true
fi
# replay_row LOG: what a worker did for a row, done here; false if its log is
# not complete.
replay_row() {
  [ -f "$1" ] || return 1
  local l last=""
  while IFS= read -r l; do last="$l"; done <"$1"
  [ "$last" = $'\036done' ] || return 1
  while IFS= read -r l; do
    case "$l" in
      $'\036done') ;;
      $'\036'*) eval "${l#$'\036'}" ;;
      *) printf '%s\n' "$l" ;;
    esac
  done <"$1"
}
W="$TMP"
for ROW in "${!rows[@]}"; do
  row_fields "${rows[$ROW]}" || continue
  check_known_pass
  cur_path="$path"; file_failed=0
  if [ -n "${ov_expect[$path]:-}" ]; then
    if [ "$orig_expect" = "$expect" ] && [ "$orig_flags" = "${flags:-}" ]; then
      echo "corpus: override of $path repeats its manifest row"; bad_override=1
    fi
    ov_used[$path]=1
    if [ "$VERBOSE" = 1 ]; then echo "corpus: override: $path: $expect ${flags}"; fi
  fi
  [ -n "${seen_gen[$gen]:-}" ] || { gens+=("$gen"); seen_gen[$gen]=1; }
  if [ "$CORPUS_JOBS" -le 1 ] || ! replay_row "$TMP/r$ROW.log"; then
    judge_row "$path" "$expect" "$flags" "$gen"
  fi
done
check_known_pass

name="$(basename "$(cd "$DIR" && pwd)")"
tot() { local -n arr="$1"; local t=0 k; for k in "${!arr[@]}"; do t=$((t + arr[$k])); done; echo "$t"; }
line_for() {  # line_for LABEL A B C D E F G H I J K (counts)
  printf 'corpus %s: %s: %s/%s accepted, %s/%s rejected with location (%s after the front end, %s as bad usage), %s/%s other ok, %s crashes, %s fixed-point failures, %s other mismatches, %s known\n' \
    "$name" "$@"
}
for g in "${gens[@]}"; do
  line_for "$g" "${ok_acc[$g]:-0}" "${n_acc[$g]:-0}" "$(( ${ok_rej[$g]:-0} + ${ok_rej_usage[$g]:-0} ))" "${n_rej[$g]:-0}" \
    "${ok_rej_late[$g]:-0}" "${ok_rej_usage[$g]:-0}" "${ok_other[$g]:-0}" "${n_other[$g]:-0}" "${crash[$g]:-0}" \
    "${fixp[$g]:-0}" "${mism[$g]:-0}" "${knownf[$g]:-0}"
done
if [ "${#gens[@]}" -gt 1 ]; then
  line_for total "$(tot ok_acc)" "$(tot n_acc)" "$(( $(tot ok_rej) + $(tot ok_rej_usage) ))" "$(tot n_rej)" \
    "$(tot ok_rej_late)" "$(tot ok_rej_usage)" "$(tot ok_other)" "$(tot n_other)" "$(tot crash)" "$(tot fixp)" "$(tot mism)" "$(tot knownf)"
fi
[ "$FIXPOINT" = 1 ] || echo "corpus $name: fixed point not checked (--no-fixpoint)"
if [ -n "$OVERRIDES" ]; then
  for p in "${!ov_expect[@]}"; do
    [ -n "${ov_used[$p]:-}" ] || { echo "corpus: override of a file not in MANIFEST.tsv: $p"; bad_override=1; }
  done
  echo "corpus $name: ${#ov_used[@]} files checked against $(basename "$OVERRIDES") instead of their manifest row (reasons there)"
fi
if [ "$UPDATE_KNOWN" = 1 ] && [ -n "$KNOWN" ]; then
  { echo "# Files of $name that do not meet their MANIFEST expectation yet (tests/corpus/run.sh --known)."
    echo "# Regenerate: tests/corpus/run.sh DIR --known THIS --update-known"
    printf '%s\n' ${failed_now[@]+"${failed_now[@]}"} | sort -u; } >"$KNOWN"
  echo "corpus: wrote $KNOWN (${#failed_now[@]} files)"
  exit $(( $(tot crash) > 0 ))
fi
[ "$(tot crash)" -eq 0 ] && [ $(( $(tot fixp) + $(tot mism) )) -eq 0 ] && [ "$now_pass" -eq 0 ] && [ "$bad_override" = 0 ]
