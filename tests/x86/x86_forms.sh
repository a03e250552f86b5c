#!/usr/bin/env bash
# x86 instruction forms: every instruction the x86 encoder emits for the
# samples, tests/x86/kernels and generated kernels covering the lowering
# paths (tests/x86/forms/kernels.py), on avx2 and avx512, is assembled
# again from its text by LLVM (llvm-mc-19) and must give the same bytes, or
# bytes that ZydisDisasm decodes to the same text (an equivalent encoding).
# One representative (bytes, text) per form (mnemonic, operand kinds, VEX /
# EVEX / legacy) is checked against tests/x86/forms/expected.txt: changed
# bytes, a new form or a form no longer emitted fail until reviewed and
# blessed (PTOAS_BLESS=1). The work is done by tests/x86/forms/forms.py.
# Usage: x86_forms.sh PTOAS PTODIS SOURCE_DIR [-v]
# Exit 77 (skip) without llvm-mc-19, ZydisDisasm or python3.
set -u
ptoas=${1:?usage: x86_forms.sh PTOAS PTODIS SOURCE_DIR [-v]} ptodis=${2:?} src=${3:?}
shift 3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mc=$(command -v llvm-mc-19 || { [ -x /usr/lib/llvm-19/bin/llvm-mc ] && echo /usr/lib/llvm-19/bin/llvm-mc; })
zy=$(command -v ZydisDisasm)
py=$(command -v /usr/bin/python3 || command -v python3)
[ -n "$mc" ] || { echo "x86_forms: SKIP (no llvm-mc-19; Debian package llvm-19)"; exit 77; }
[ -n "$zy" ] || { echo "x86_forms: SKIP (no ZydisDisasm; Debian package zydis-tools)"; exit 77; }
[ -n "$py" ] || { echo "x86_forms: SKIP (no python3)"; exit 77; }
bless=()
[ "${PTOAS_BLESS:-0}" = 1 ] && bless=(--bless)
exec "$py" "$here/forms/forms.py" --ptoas "$ptoas" --ptodis "$ptodis" --src "$src" --llvm-mc "$mc" \
  --zydis "$zy" --expected "$here/forms/expected.txt" "${bless[@]}" "$@"
