#!/usr/bin/env bash
# Bounded diagnostics (issue 18 item 8): an error echoes a window of its line
# around the caret and quotes at most a short prefix of a token, whatever the
# line holds; the column and the caret count characters (UTF-8), not bytes;
# NULs, control bytes and invalid UTF-8 are shown escaped (\xNN), never raw.
# Usage: bounded_diag_test.sh PTOAS
set -uo pipefail
PTOAS="${1:?usage: bounded_diag_test.sh PTOAS}"
export LC_ALL=C.UTF-8
T="$(mktemp -d "${TMPDIR:-/tmp}/ptoas-diag.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
MAX_ERR=4096  # bytes of stderr allowed for one of these inputs

# run NAME: ptoas --emit=ir on $T/NAME.pto; sets $rc, stderr in $T/NAME.err.
run() {
  "$PTOAS" --emit=ir "$T/$1.pto" -o "$T/$1.out" 2>"$T/$1.err" >/dev/null
  rc=$?
  local n
  n=$(wc -c <"$T/$1.err")
  [ "$rc" -eq 1 ] || fail "$1: exit $rc, expected 1"
  [ "$n" -le "$MAX_ERR" ] || fail "$1: $n bytes of stderr (limit $MAX_ERR)"
  [ ! -e "$T/$1.out" ] || fail "$1: an output file was left behind"
  [ "$(tr -d '\000' <"$T/$1.err" | wc -c)" -eq "$n" ] || fail "$1: raw NUL bytes on stderr"
  iconv -f UTF-8 -t UTF-8 "$T/$1.err" >/dev/null 2>&1 || fail "$1: stderr is not valid UTF-8"
}

# caret_under NAME LINE NEEDLE: in the first diagnostic, the caret (line 3 of
# stderr) stands under the first NEEDLE of the echoed line (line 2), counted
# in characters.
caret_under() {
  local shown caret pre_shown pre_caret
  shown="$(sed -n 2p "$T/$1.err")"
  caret="$(sed -n 3p "$T/$1.err")"
  pre_shown="${shown%%"$2"*}"
  pre_caret="${caret%%^*}"
  [ "$pre_shown" != "$shown" ] || { fail "$1: '$2' not in the echoed line: $shown"; return; }
  [ "${#pre_shown}" -eq "${#pre_caret}" ] ||
    fail "$1: caret at column ${#pre_caret} of the echo, '$2' at ${#pre_shown}"
}

header_is() {  # header_is NAME PREFIX: the first line of stderr starts with PREFIX
  local h
  h="$(head -n1 "$T/$1.err")"
  [ "${h#"$2"}" != "$h" ] || fail "$1: header '$h', expected '$2...'"
}

# 1. A line of 100 MB of NULs: one error, the line shown as a few \x00.
{ printf 'func.func @k() {\n  '; head -c 100000000 /dev/zero; printf '\n  return\n}\n'; } >"$T/nuls.pto"
run nuls
header_is nuls "$T/nuls.pto:2:3: error: unexpected byte 0x00"
grep -q '\\x00\\x00' "$T/nuls.err" || fail "nuls: the NULs are not shown escaped"

# 2. A 400 MB token (an undefined value name): the quote is a short prefix,
# the echo a window, the caret under the token.
{ printf 'func.func @k() {\n  %%x = arith.constant 1 : i32\n  %%y = arith.addi %%'
  head -c 400000000 /dev/zero | tr '\000' q; printf ', %%x : i32\n  return\n}\n'; } >"$T/token.pto"
run token
header_is token "$T/token.pto:3:19: error: use of undefined value '%qqqq"
grep -q "qqq\.\.\.'" "$T/token.err" || fail "token: the quoted token is not clipped with '...'"
caret_under token "%q"

# 3. An error 10 MB into a line: the echo starts with '...', the caret is
# under the bad token, the column is exact.
{ printf 'func.func @k() {\n  %%x = arith.constant 1 : i32 '; head -c 10000000 /dev/zero | tr '\000' ' '
  printf '$bad\n  return\n}\n'; } >"$T/far.pto"
run far
header_is far "$T/far.pto:2:10000031: error:"
[ "$(sed -n 2p "$T/far.err" | cut -c1-5)" = "  ..." ] || fail "far: the echo does not start with '...'"
caret_under far '$bad'

# 4. Columns and carets count UTF-8 characters: 'é' is one column.
printf 'func.func @k() {\n  // \xc3\xa9\n  %%x = arith.constant 1 : i32 // \xc3\xa9\xc3\xa9\n  %%y = "\xc3\xa9\xc3\xa9" $bad\n  return\n}\n' >"$T/utf8.pto"
run utf8
header_is utf8 "$T/utf8.pto:4:13: error: unexpected character '\$'"
caret_under utf8 '$bad'
col="$(head -n1 "$T/utf8.err" | cut -d: -f3)"
[ "$col" = 13 ] || fail "utf8: column $col, expected 13 (characters, not bytes)"

# 5. Invalid UTF-8 and control bytes are escaped in the echo and the caret
# stays under the next token.
printf 'func.func @k() {\n  %%x = arith.constant 1 : i32 \xff\xfe\x01\x1b[31m $bad\n  return\n}\n' >"$T/bytes.pto"
run bytes
grep -qF '\xFF\xFE\x01\x1B' "$T/bytes.err" || fail "bytes: invalid and control bytes not shown as \\xNN"
if grep -q $'\x1b' "$T/bytes.err"; then fail "bytes: a raw ESC byte reached stderr"; fi
header_is bytes "$T/bytes.pto:2:31: error: unexpected byte 0xff (and 3 more bytes"
# The second error: its header (line 4) says column 40 and its caret (line 6)
# stands under '$'.
sed -n '4,6p' "$T/bytes.err" >"$T/second.err"
header_is second "$T/bytes.pto:2:40: error: unexpected character '\$'"
caret_under second '$bad'

if [ "$fails" -gt 0 ]; then
  echo "bounded_diag: $fails failure(s)"
  exit 1
fi
echo "bounded_diag: all checks passed"
