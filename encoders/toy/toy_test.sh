#!/usr/bin/env bash
# The toy target through ptoas: the shared driver's walk, printed (the
# order of instructions, the loop / if / while structure, the iter_arg,
# yield and condition copies, the family each tile op is dispatched to),
# compared with toy_kernel.expected; and the registry: toy answers
# -target=toy and --print-targets but is not listed in --help.
#   toy_test.sh PTOAS DIR
set -uo pipefail
ptoas=$1 dir=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "toy_target: FAIL: $*" >&2; exit 1; }
"$ptoas" -target=toy -O0 "$dir/toy_kernel.pto" -o "$tmp/out.txt" || fail "ptoas -target=toy exited $?"
diff -u "$dir/toy_kernel.expected" "$tmp/out.txt" || fail "output differs from toy_kernel.expected"
# One line per target, single-word columns (make samples picks $3 == "jit").
"$ptoas" --print-targets | awk '$1 == "toy" && $2 == "text" && $3 == "-" && $4 == "ir,asm" { ok = 1 } END { exit !ok }' ||
  fail "--print-targets does not list toy as: toy text - ir,asm ..."
"$ptoas" --help | grep -q 'toy:' && fail "--help lists the test target"
# A refusal through the driver is located and leaves no output.
printf 'module {\n  func.func @f() {\n    func.call @g() : () -> ()\n    return\n  }\n  func.func private @g() {\n    return\n  }\n}\n' > "$tmp/call.pto"
"$ptoas" -target=toy "$tmp/call.pto" -o "$tmp/call.txt" 2>"$tmp/err.txt" && fail "func.call accepted"
grep -q 'call.pto:3:5: error: func.call .* is not supported on toy \[unsupported-control\]$' "$tmp/err.txt" || { cat "$tmp/err.txt" >&2; fail "no located error for func.call"; }
[ -e "$tmp/call.txt" ] && fail "an output file after an error"
echo "toy_target: ok"
