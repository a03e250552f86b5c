#!/usr/bin/env bash
# make dist: the source tarball, ptoas-<version>.tar.gz in DIR (default .):
# exactly the files git tracks at HEAD (nothing generated, nothing
# untracked), under ptoas-<version>/. The version is project()'s in
# CMakeLists.txt, the one source that --version, the CMake package and the
# Python module also read.
# Usage: scripts/make_dist.sh [DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-.}
version=$(sed -n 's/^project(ptoas VERSION \([0-9][0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ -n "$version" ] || { echo "make dist: no project(ptoas VERSION ...) in CMakeLists.txt" >&2; exit 1; }
git -C "$root" rev-parse --git-dir > /dev/null 2>&1 ||
  { echo "make dist: $root is not a git checkout (the tarball is what git tracks)" >&2; exit 1; }
if ! git -C "$root" diff --quiet HEAD -- 2> /dev/null; then
  echo "make dist: warning: tracked files differ from HEAD; the tarball has HEAD's versions" >&2
fi
mkdir -p "$out"
tarball="$(cd "$out" && pwd)/ptoas-$version.tar.gz"
# A fixed mtime (HEAD's commit time, git archive's default) and gzip -n:
# the same commit gives the same bytes.
git -C "$root" archive --format=tar --prefix="ptoas-$version/" HEAD | gzip -n -9 > "$tarball.tmp"
mv "$tarball.tmp" "$tarball"
echo "$tarball"
