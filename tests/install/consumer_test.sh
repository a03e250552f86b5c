#!/usr/bin/env bash
# An installed ptoas used as a dependency, from a moved prefix: the CMake
# package (tests/install/consumer: find_package(ptoas), ptoas::ptoas at
# build time, ptoas::ptort linked) and the pkg-config file (the same
# program built with `cc $(pkg-config --cflags --libs ptort)`); both
# programs run vadd with an empty environment and check it.
# Usage: consumer_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(cd "${1:?usage: consumer_test.sh SOURCE_DIR BUILD_DIR}" && pwd) build=$(cd "${2:?}" && pwd)
# shellcheck source=moved_prefix.sh
. "$src/tests/install/moved_prefix.sh"
install_moved "$build"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
for f in include/ptort.h lib/libptort.so lib/cmake/ptoas/ptoasConfig.cmake lib/cmake/ptoas/ptoasConfigVersion.cmake \
  lib/pkgconfig/ptort.pc lib/python3/dist-packages/ptoas/__init__.py; do
  [ -e "$p/$f" ] || fail "$f is not installed"
done
vadd=$src/samples/vadd/vadd.pto

# CMake: the consumer project, configured against the moved prefix only.
if cmake -S "$src/tests/install/consumer" -B "$work/cbuild" -DCMAKE_PREFIX_PATH="$p" > "$work/cmake.log" 2>&1 &&
  cmake --build "$work/cbuild" > "$work/cbuild.log" 2>&1; then
  grep -q "func.func @vadd" "$work/cbuild/vadd.ir" || fail "ptoas::ptoas did not write the kernel's IR at build time"
  for t in interp avx2; do
    env -i "$work/cbuild/consumer" "$vadd" $t || fail "the CMake consumer on $t"
  done
else
  cat "$work/cmake.log" "$work/cbuild.log" 2> /dev/null | tail -30
  fail "the consumer project does not configure or build against the installed package"
fi
# One version: the package's is ptoas --version's.
cfg_version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$p/lib/cmake/ptoas/ptoasConfigVersion.cmake")
[ "$cfg_version" = "$(env -i "$p/bin/ptoas" --version | awk '{print $2}')" ] ||
  fail "the package version ($cfg_version) is not ptoas --version's"

# pkg-config.
if command -v pkg-config > /dev/null; then
  flags=$(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags --libs ptort) || fail "pkg-config ptort"
  [ "$(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --modversion ptort)" = "$cfg_version" ] || fail "ptort.pc's version"
  # shellcheck disable=SC2086
  if cc -std=c99 -o "$work/pc_consumer" "$src/tests/install/consumer/consumer.c" $flags; then
    env -i "$work/pc_consumer" "$vadd" avx2 || fail "the pkg-config consumer"
  else
    fail "the consumer does not build with pkg-config's flags: $flags"
  fi
else
  echo "SKIP pkg-config: not installed"
fi
[ $fails -eq 0 ] && echo "consumer: ok"
[ $fails -eq 0 ]
