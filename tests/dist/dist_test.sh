#!/usr/bin/env bash
# make dist (scripts/make_dist.sh): the tarball is named for the version
# ptoas --version prints, holds exactly the files git tracks at HEAD, is
# the same bytes when made twice, holds every source and header the build
# in BUILD_DIR compiled, and, unpacked in an empty directory, configures
# with no reference to the checkout and generates and compiles the grammar
# (re2c, Bison). The whole build and ctest from the tarball, and the build
# in a fresh Debian 12 root, are dist_full (make check-full).
# Usage: dist_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(cd "${1:?usage: dist_test.sh SOURCE_DIR BUILD_DIR}" && pwd) build=$(cd "${2:?}" && pwd)
if ! git -C "$src" rev-parse --git-dir > /dev/null 2>&1; then
  echo "SKIP: $src is not a git checkout (an unpacked tarball makes no tarball)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

version=$("$build/ptoas" --version | awk '{print $2}')
make -s -C "$src" dist DIST_DIR="$work/a" > /dev/null 2> "$work/dist.err" || { cat "$work/dist.err"; echo "FAIL: make dist"; exit 1; }
tarball=$work/a/ptoas-$version.tar.gz
[ -f "$tarball" ] || { ls "$work/a"; echo "FAIL: no ptoas-$version.tar.gz (ptoas --version says $version)"; exit 1; }
make -s -C "$src" dist DIST_DIR="$work/b" > /dev/null 2>&1
cmp -s "$tarball" "$work/b/ptoas-$version.tar.gz" || fail "make dist twice gives different bytes"

# Exactly the tracked files.
tar tzf "$tarball" | grep -v '/$' | sed "s|^ptoas-$version/||" | LC_ALL=C sort > "$work/in_tar"
git -C "$src" ls-tree -r --name-only HEAD | LC_ALL=C sort > "$work/tracked"
if ! cmp -s "$work/in_tar" "$work/tracked"; then
  diff "$work/tracked" "$work/in_tar" | head -20
  fail "the tarball's files are not git's tracked files"
fi
if tar tzf "$tarball" | grep -v "^ptoas-$version/" | grep -q .; then fail "entries outside ptoas-$version/"; fi

# Every file of the source tree the build compiled (the compilers'
# dependency files) is in the tarball: nothing builds from an untracked file.
find "$build" -name '*.o.d' -print0 | xargs -0 cat | tr ' \\' '\n\n' | grep "^/" | sed 's/:$//' |
  LC_ALL=C sort -u | xargs realpath -m -- | grep "^$src/" | grep -v "^$build/" | sed "s|^$src/||" |
  LC_ALL=C sort -u > "$work/used"
missing=$(LC_ALL=C comm -23 "$work/used" "$work/in_tar")
[ -s "$work/used" ] || fail "no dependency files under $build (is it built?)"
[ -z "$missing" ] || fail "the build compiles files the tarball lacks: $(echo $missing | head -c 600)"

# Unpacked alone: configure, and generate + compile the grammar.
mkdir "$work/u" && tar xzf "$tarball" -C "$work/u" || fail "cannot unpack"
u=$work/u/ptoas-$version
if (cd "$work/u" && cmake -S "$u" -B "$u/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$work/cfg.log" 2>&1); then
  ! grep -rqF "$src" "$u/build/CMakeCache.txt" || fail "the tarball's configure names the checkout ($src)"
  cmake --build "$u/build" --target ptoas_bison -j2 > "$work/bld.log" 2>&1 ||
    { tail -20 "$work/bld.log"; fail "the grammar does not build from the tarball"; }
  [ -f "$u/build/grammar/lexer.cpp" ] && [ -f "$u/build/grammar/pto_parser.cpp" ] ||
    fail "re2c and Bison outputs were not generated in the tarball's build"
else
  tail -20 "$work/cfg.log"
  fail "the tarball does not configure"
fi
[ $fails -eq 0 ] && echo "dist: ok ($(wc -l < "$work/in_tar") files, $(wc -l < "$work/used") compiled from them)"
[ $fails -eq 0 ]
