#!/usr/bin/env bash
# The installed tree (cmake --install): the programs, their data and man
# pages are there; it runs from its prefix with an empty environment (PATH
# aside, for g++ and qemu), from another directory, and again after the
# whole prefix is moved; and no installed file names the source or build
# directory. Usage: install_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(cd "${1:?usage: install_test.sh SOURCE_DIR BUILD_DIR}" && pwd) build=$(cd "${2:?}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cmake --install "$build" --prefix "$work/p" > "$work/install.log" 2>&1 || { cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
for f in bin/ptoas bin/ptorun bin/ptodis lib/ptoas/libptoas_llvm.so share/ptoas/cce_model/include; do
  [ -e "$work/p/$f" ] || fail "$f is not installed"
done
if command -v help2man > /dev/null; then
  for p in ptoas ptorun ptodis; do
    grep -q '^\.TH' "$work/p/share/man/man1/$p.1" 2> /dev/null || fail "no man page for $p"
  done
fi

# Runs the installed programs of prefix $1 from an unrelated directory:
# ptoas and ptodis with an empty environment, and a sample end to end
# through ptorun on interp, avx2, cce (the CPU model's headers from
# share/ptoas) and sve (the loader from share/ptoas; skipped by runop.sh
# where qemu-user is missing).
check_prefix() {
  local p=$1 out t
  mkdir -p "$work/elsewhere" && cd "$work/elsewhere" || return
  cp "$src/samples/vadd/vadd.pto" k.pto
  out=$(env -i "$p/bin/ptoas" --version) || fail "$p: ptoas --version"
  [[ "$out" == ptoas* ]] || fail "$p: ptoas --version says '$out'"
  env -i "$p/bin/ptoas" k.pto -o k.cpp || fail "$p: ptoas k.pto (cce C++)"
  env -i "$p/bin/ptoas" -target=avx2 k.pto -o k.o || fail "$p: ptoas -target=avx2"
  env -i "$p/bin/ptodis" k.o > /dev/null || fail "$p: ptodis k.o"
  # sve: ptoas opens its LLVM backends from lib/ptoas.
  env -i "$p/bin/ptoas" -target=sve k.pto -o k_sve.o || fail "$p: ptoas -target=sve (libptoas_llvm.so)"
  env -i "$p/bin/ptodis" k_sve.o | grep -q "ld1w" || fail "$p: ptodis k_sve.o"
  # amdgpu: ptoas opens its linker plugin from lib/ptoas.
  if [ -e "$build/lib/ptoas/libptoas_lld.so" ]; then
    env -i "$p/bin/ptoas" -target=amdgpu k.pto -o k.hsaco || fail "$p: ptoas -target=amdgpu (the linker plugin)"
    env -i "$p/bin/ptodis" k.hsaco | grep -q "elf64-amdgpu" || fail "$p: ptodis k.hsaco"
  fi
  env -i "$p/bin/ptorun" --help > /dev/null || fail "$p: ptorun --help"
  for t in interp avx2 cce sve; do
    out=$(PTOAS_BIN="$p/bin/ptoas" PTORUN_BIN="$p/bin/ptorun" "$src/samples/runop.sh" -target=$t -t vadd 2>&1) ||
      fail "$p: the vadd sample on $t: $out"
    # Only sve may be skipped (no qemu-user here): the others always run.
    [ $t = sve ] || grep -q " 0 skipped" <<< "$out" || fail "$p: the vadd sample was skipped on $t: $out"
  done
  cd "$work" || return
}
check_prefix "$work/p"
mv "$work/p" "$work/moved"
check_prefix "$work/moved"

# No installed file names the source or the build directory.
hits=$(grep -rlF -e "$src" -e "$build" "$work/moved" 2> /dev/null)
[ -z "$hits" ] || fail "installed files that name the build machine's directories: $hits"

[ $fails -eq 0 ] && echo "install: ok ($(find "$work/moved" -type f | wc -l) files)"
[ $fails -eq 0 ]
