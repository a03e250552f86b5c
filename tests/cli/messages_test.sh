#!/usr/bin/env bash
# Messages that must name the real problem (issue 18 items 11 and 12): what
# the verifier says about ill-typed arith ops, what the CPU backends say when
# they refuse a construct, where the front end points for stray tokens and
# over-large shapes, a multi-line token quoted on one line, and the CLI's
# empty `--pto-arch=`, `-o /proc/version` and `--emit=ptx -target=avx2`.
# Each case: the exit status, a `FILE:LINE:COL: error: TEXT` line, and no
# misleading text.
# Usage: messages_test.sh PTOAS
set -uo pipefail
PTOAS="${1:?usage: messages_test.sh PTOAS}"
T="$(mktemp -d "${TMPDIR:-/tmp}/ptoas-msg.XXXXXX")"
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect NAME RC 'LINE:COL: error: TEXT' ARGS...: runs ptoas ARGS on
# $T/NAME.pto and looks for the diagnostic (a fixed string after the file name).
expect() {
  local name="$1" want_rc="$2" want="$3"
  shift 3
  "$PTOAS" "$@" "$T/$name.pto" -o "$T/$name.out" >/dev/null 2>"$T/$name.err"
  local rc=$?
  [ "$rc" -eq "$want_rc" ] || fail "$name: exit $rc, expected $want_rc: $(head -c 300 "$T/$name.err")"
  grep -qF -- "$T/$name.pto:$want" "$T/$name.err" ||
    fail "$name: no '$want' in: $(head -c 600 "$T/$name.err")"
}
# reject_text NAME TEXT: TEXT must not appear in NAME's stderr.
reject_text() {
  if grep -qF -- "$2" "$T/$1.err"; then fail "$1: misleading '$2' in: $(head -c 300 "$T/$1.err")"; fi
}

# ---- arith operand types are verified (item 11) ------------------------------------
cat >"$T/addi_index.pto" <<'PTO'
func.func @k(%n: index) {
  %r = arith.addi %n, %n : i32
  return
}
PTO
expect addi_index 1 "2:8: error: 'arith.addi' operand #0 has type index, but the op's type is i32" \
  -target=avx2
cat >"$T/addi_view.pto" <<'PTO'
func.func @k(%f: f32, %p: !pto.ptr<f32>, %n: index) {
  %v = pto.make_tensor_view %p, shape = [%n, %n], strides = [%n, %n] : !pto.tensor_view<?x?xf32>
  %r = arith.addi %f, %v : f32
  return
}
PTO
expect addi_view 1 "3:8: error: 'arith.addi' works on integers or index, not f32" -target=avx2
reject_text addi_view "with dtype f32 is not supported"
cat >"$T/cmpi_tile.pto" <<'PTO'
func.func @k() {
  %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
  %r = arith.cmpi slt, %t, %t : !pto.tile_buf<vec, 16x16xf32>
  return
}
PTO
expect cmpi_tile 1 "3:8: error: 'arith.cmpi' works on integers or index, not !pto.tile_buf" --emit=ir

# ---- CPU backends name the construct they refuse (item 11) -------------------------
cat >"$T/call.pto" <<'PTO'
module {
  func.func @helper(%x: f32) -> f32 {
    %y = arith.addf %x, %x : f32
    return %y : f32
  }
  func.func @k(%p: !pto.ptr<f32>, %x: f32) attributes {pto.entry} {
    %r = func.call @helper(%x) : (f32) -> f32
    return
  }
}
PTO
for t in avx2 sve; do
  expect call 1 "7:10: error: func.call (a call between functions; ptorun --target=interp runs it) is not supported on $t" -target=$t
  expect call 1 "4:5: error: a function that returns values (a kernel returns void) is not supported on $t" -target=$t
  reject_text call "with dtype"
  reject_text call "from a kernel"
done
cat >"$T/recursive.pto" <<'PTO'
func.func @k(%x: i32) {
  func.call @k(%x) : (i32) -> ()
  return
}
PTO
expect recursive 1 "2:3: error: recursive function calls are not supported ('@k' calls '@k'" -target=avx2
reject_text recursive "EmitC"

# ---- the front end points at the real mistake (item 12) ---------------------------
printf 'func.func @k() {\n  {}\n  return\n}\n' >"$T/stray_brace.pto"
expect stray_brace 1 "2:3: error: expected an operation, found '{' (a region holds only operations)" --emit=ir
reject_text stray_brace "found operation name"
printf 'func.func @k() {\n  %%t = pto.alloc_tile : !pto.tile_buf<vec, 4611686018427387904x1xf32>\n  return\n}\n' \
  >"$T/huge_tile.pto"
expect huge_tile 1 "2:44: error: tile shape must be static and at most 2^24" --emit=ir
reject_text huge_tile "expected a tile shape"
printf 'func.func @k(%%p: !pto.ptr<f32>, %%n: index) {\n  %%v = pto.make_tensor_view %%p, shape = [%%n], strides = [%%n] : !pto.tensor_view<99999999999999999999xf32>\n  return\n}\n' \
  >"$T/huge_view.pto"
expect huge_view 1 "2:81: error: a view dimension is larger than 2^62" --emit=ir
# A token spanning lines is quoted escaped, on the header's one line.
printf 'func.func @k() {\n  %%t = arith.constant 1 : i32\n  %%u = arith.addi %%t, %%t : i32 !pto.x<a,\nb>\n  return\n}\n' \
  >"$T/multiline_token.pto"
expect multiline_token 1 "3:32: error: unexpected token '!pto.x<a,\\nb>'" --emit=ir
[ "$(sed -n 2p "$T/multiline_token.err")" = "    %u = arith.addi %t, %t : i32 !pto.x<a," ] ||
  fail "multiline_token: the header spreads over more than one line: $(head -c 300 "$T/multiline_token.err")"

# ---- CLI parts of item 12 (done on main; kept here as regressions) ----------------
printf 'func.func @k() {\n  return\n}\n' >"$T/x.pto"
"$PTOAS" --pto-arch= "$T/x.pto" --emit=ir >/dev/null 2>"$T/arch.err"
rc=$?
[ "$rc" -eq 2 ] || fail "--pto-arch= x.pto: exit $rc, expected 2"
grep -qF "empty value for --pto-arch" "$T/arch.err" || fail "--pto-arch=: $(head -c 300 "$T/arch.err")"
"$PTOAS" --emit=ptx -target=avx2 "$T/x.pto" >/dev/null 2>"$T/ptx.err"
rc=$?
[ "$rc" -eq 2 ] || fail "--emit=ptx -target=avx2: exit $rc, expected 2"
if [ -w /proc/version ] || [ -e /proc/version ]; then
  "$PTOAS" --emit=ir "$T/x.pto" -o /proc/version >/dev/null 2>"$T/proc.err"
  rc=$?
  [ "$rc" -ne 0 ] || fail "-o /proc/version: exit 0"
  grep -qF "cannot create a temporary file in '/proc'" "$T/proc.err" ||
    fail "-o /proc/version: $(head -c 300 "$T/proc.err")"
fi

if [ "$fails" -gt 0 ]; then
  echo "messages: $fails failure(s)"
  exit 1
fi
echo "messages: all checks passed"
