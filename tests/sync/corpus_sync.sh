#!/usr/bin/env bash
# Sync over a corpus (DIR/MANIFEST.tsv, as tests/corpus/run.sh): for every
# file marked accept that the verifier accepts with its manifest's
# --pto-arch / --pto-level,
#   1. ptoas -target=cce --enable-insert-sync --emit=ir   (insertion, which
#      runs the checker on its own result as an internal assertion)
#   2. ptoas -target=cce --verify-sync on that output      (the checker on
#      the printed and re-read IR)
#   3. insertion again on that output prints the same bytes (idempotent)
# and, for files with hand-written flags, --verify-sync on the original (a
# file whose own flags it rejects must be refused by insertion too, with
# located errors).
# Prints the counts; exits 1 when an insertion or a re-check fails or any
# run crashes or takes more than $PTOAS_SYNC_TIMEOUT seconds (default 20).
# Usage: tests/sync/corpus_sync.sh PTOAS DIR [-v]
set -uo pipefail
PTOAS="${1:?usage: corpus_sync.sh PTOAS DIR [-v]}"
DIR="${2:?usage: corpus_sync.sh PTOAS DIR [-v]}"
VERBOSE="${3:-}"
[ -d "$DIR" ] || { echo "corpus_sync: $DIR not present, skipped"; exit 0; }
TIMEOUT="${PTOAS_SYNC_TIMEOUT:-20}"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/ptoas-sync.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
n=0 own_refused=0 refused=0 accepted=0 inserted=0 clean=0 fail=0 manual=0 manual_clean=0 manual_fail=0 crash=0
while IFS=$'\t' read -r path expect flags _; do
  case "$path" in '#'*|'') continue ;; esac
  [ "$expect" = accept ] || continue
  # Only the flags that shape the program (the others select outputs or
  # passes of the official tool; --help runs are not programs).
  case " $flags " in *" --help "*) continue ;; esac
  flags=$(printf '%s\n' $flags | grep -E '^--pto-(arch|level)' | tr '\n' ' ')
  f="$DIR/$path"
  [ -f "$f" ] || continue
  n=$((n + 1))
  # shellcheck disable=SC2086
  timeout "$TIMEOUT" "$PTOAS" -target=cce --emit=ir $flags "$f" -o "$TMP/plain.pto" >/dev/null 2>&1 || continue
  accepted=$((accepted + 1))
  own_bad=0
  # grep -c, not -q: -q stops reading early, the first grep dies of SIGPIPE,
  # and pipefail made the test fail at random.
  if [ "$(grep -vE '^[[:space:]]*//' "$f" | grep -cE 'pto\.(set_flag|wait_flag|record_event|wait_event)')" != 0 ]; then
    manual=$((manual + 1))
    # shellcheck disable=SC2086
    timeout "$TIMEOUT" "$PTOAS" -target=cce --verify-sync --emit=ir $flags "$f" -o /dev/null >/dev/null 2>"$TMP/err"
    rc=$?
    if [ $rc = 0 ]; then manual_clean=$((manual_clean + 1));
    elif [ $rc = 1 ]; then manual_fail=$((manual_fail + 1)); own_bad=1; [ -n "$VERBOSE" ] && { echo "hand-written sync rejected: $path"; head -3 "$TMP/err"; }
    else crash=$((crash + 1)); echo "CRASH ($rc) --verify-sync $path"; fi
  fi
  # shellcheck disable=SC2086
  timeout "$TIMEOUT" "$PTOAS" -target=cce --enable-insert-sync --emit=ir $flags "$f" -o "$TMP/sync.pto" >/dev/null 2>"$TMP/err"
  rc=$?
  if [ $rc != 0 ]; then
    if [ $rc = 1 ] && grep -q 'requires --enable-insert-sync to be disabled' "$TMP/err"; then
      refused=$((refused + 1))  # pto.tassign: the official driver refuses it too (PTOAS_COMPAT §1.1)
      continue
    fi
    # A function with hand-written flags keeps them: if --verify-sync
    # rejected them, insertion must refuse the file the same way (located,
    # never an internal error).
    if [ $rc = 1 ] && [ $own_bad = 1 ] && ! grep -q 'internal error' "$TMP/err"; then
      own_refused=$((own_refused + 1))
      continue
    fi
    if [ $rc = 1 ]; then fail=$((fail + 1)); else crash=$((crash + 1)); fi
    echo "INSERT FAILED ($rc): $path"; head -5 "$TMP/err"
    continue
  fi
  inserted=$((inserted + 1))
  lvl=$(printf '%s\n' $flags | grep -- '--pto-level' || true)
  # shellcheck disable=SC2086
  timeout "$TIMEOUT" "$PTOAS" -target=cce --verify-sync --emit=ir $lvl "$TMP/sync.pto" -o /dev/null >/dev/null 2>"$TMP/err"
  rc=$?
  if [ $rc = 0 ]; then clean=$((clean + 1));
  else
    if [ $rc = 1 ]; then fail=$((fail + 1)); else crash=$((crash + 1)); fi
    echo "RECHECK FAILED ($rc): $path"; head -5 "$TMP/err"
  fi
  # Insertion is idempotent: the corpus check reads the printed IR back with
  # the file's own flags, --enable-insert-sync among them.
  # shellcheck disable=SC2086
  timeout "$TIMEOUT" "$PTOAS" -target=cce --enable-insert-sync --emit=ir $flags "$TMP/sync.pto" -o "$TMP/sync2.pto" >/dev/null 2>"$TMP/err"
  rc=$?
  if [ $rc != 0 ] || ! cmp -s "$TMP/sync.pto" "$TMP/sync2.pto"; then
    if [ $rc -gt 1 ]; then crash=$((crash + 1)); else fail=$((fail + 1)); fi
    echo "NOT IDEMPOTENT ($rc): $path"; diff "$TMP/sync.pto" "$TMP/sync2.pto" | head -5
  fi
done < "$DIR/MANIFEST.tsv"
echo "corpus_sync: $n files, $accepted accepted, $refused refused with --enable-insert-sync (tassign);" \
     "insertion ok on $inserted, re-checked clean $clean," \
     "failures $fail, crashes/timeouts $crash; hand-written sync: $manual files, $manual_clean proved," \
     "$manual_fail rejected by --verify-sync ($own_refused of them refused the same way by insertion)"
[ $fail = 0 ] && [ $crash = 0 ]
