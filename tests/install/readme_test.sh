#!/usr/bin/env bash
# README's "Install and use from CMake / C / Python" commands, run as
# written: the first indented block of that section, line by line, from the
# source tree, in an empty environment (PATH=/usr/bin:/bin) with HOME a new
# directory. `make install PREFIX=P` is the one line not run literally: it
# would rebuild BUILD_DIR from inside ctest, so it runs what it ends in,
# `cmake --install BUILD_DIR --prefix P`. The Python line must print vadd's
# result for x = y = 0..3.
# Usage: readme_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(cd "${1:?usage: readme_test.sh SOURCE_DIR BUILD_DIR}" && pwd) build=$(cd "${2:?}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk '/^## Install and use from CMake \/ C \/ Python/ { on = 1; next }
     on && /^## / { exit }
     on && /^    / { print substr($0, 5); seen = 1; next }
     on && seen && /^$/ { exit }' "$src/README.md" > "$work/commands"
[ -s "$work/commands" ] || { echo "FAIL: no commands in README's install section"; exit 1; }
grep -q "^make install PREFIX=" "$work/commands" || { echo "FAIL: README's block does not install"; exit 1; }
mkdir "$work/home"
cd "$src" || exit 1
env -i PATH=/usr/bin:/bin HOME="$work/home" BUILD_DIR="$build" bash -c '
  set -e
  make() {
    [ "$1" = install ] && [[ "$2" == PREFIX=* ]] || { echo "readme_test: unexpected make $*"; return 1; }
    cmake --install "$BUILD_DIR" --prefix "${2#PREFIX=}" > /dev/null
  }
  while IFS= read -r line; do
    echo "\$ $line"
    eval "$line"
  done
' < "$work/commands" > "$work/out" 2>&1
rc=$?
cat "$work/out"
[ $rc -eq 0 ] || { echo "FAIL: a README command failed (above)"; exit 1; }
grep -qxF "[[0. 2. 4. 6.]]" "$work/out" || { echo "FAIL: the Python line did not print [[0. 2. 4. 6.]]"; exit 1; }
[ -s "$work/home/vadd.s" ] || { echo "FAIL: no vadd.s"; exit 1; }
echo "readme_install: ok ($(wc -l < "$work/commands") commands)"
