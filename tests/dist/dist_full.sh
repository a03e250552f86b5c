#!/usr/bin/env bash
# make check-full's test of the source tarball (ctest -C full -L dist_full):
#  1. unpacked alone in an empty directory: README's test command, `make
#     test`, there (the shared corpora, which are not part of the sources,
#     passed by absolute path);
#  2. in a fresh Debian 12 root made with debootstrap (minbase: not even
#     make), as root inside it, only README's two commands, in order:
#     `scripts/install-deps.sh && make samples`, then `make test`.
# Needs root and debootstrap (apt-get install debootstrap) for part 2, else
# it is skipped with a message; part 1 runs anyway.
# Usage: dist_full.sh SOURCE_DIR BUILD_DIR
# Environment: JOBS (2), CMAKE_FLAGS for part 1 (-DPTOAS_WERROR=ON),
# DEBIAN_MIRROR (http://deb.debian.org/debian).
set -u
src=$(cd "${1:?usage: dist_full.sh SOURCE_DIR BUILD_DIR}" && pwd) build=$(cd "${2:?}" && pwd)
if ! git -C "$src" rev-parse --git-dir > /dev/null 2>&1; then
  echo "SKIP: $src is not a git checkout"
  exit 77
fi
work=$(mktemp -d /var/tmp/ptoas-dist.XXXXXX)
root=$work/root
cleanup() {
  for m in proc sys dev/pts dev; do mountpoint -q "$root/$m" 2> /dev/null && umount -l "$root/$m"; done
  rm -rf "$work"
}
trap cleanup EXIT
version=$("$build/ptoas" --version | awk '{print $2}')
make -s -C "$src" dist DIST_DIR="$work" > /dev/null || { echo "FAIL: make dist"; exit 1; }
tarball=$work/ptoas-$version.tar.gz
corpus=$(cd "$src/../shared/corpus" 2> /dev/null && pwd)

echo "== 1. the tarball alone: make test"
mkdir "$work/alone" && tar xzf "$tarball" -C "$work/alone"
(cd "$work/alone/ptoas-$version" &&
  make test JOBS="${JOBS:-2}" CMAKE_FLAGS="${CMAKE_FLAGS:--DPTOAS_WERROR=ON}" \
    ${corpus:+CORPUS_DIR=$corpus/ptoas CORPUS60_DIR=$corpus/ptoas-0.60}) ||
  { echo "FAIL: make test from the unpacked tarball"; exit 1; }
rm -rf "$work/alone"

echo "== 2. a fresh Debian 12 root (debootstrap), README's commands only"
if [ "$(id -u)" -ne 0 ] || ! command -v debootstrap > /dev/null; then
  echo "SKIP part 2: needs root and debootstrap"
  exit 0
fi
debootstrap --variant=minbase bookworm "$root" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" > "$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log"; echo "FAIL: debootstrap"; exit 1; }
for m in proc sys dev dev/pts; do mount --bind "/$m" "$root/$m"; done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null
mkdir -p "$root/src" && tar xzf "$tarball" -C "$root/src"
if [ -n "$corpus" ]; then mkdir -p "$root/src/shared" && cp -r "$corpus" "$root/src/shared/corpus"; fi
# README's commands, from the unpacked tree, with the corpora where README's
# defaults look (../shared/corpus).
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root bash -c "
  set -e
  cd /src/ptoas-$version
  scripts/install-deps.sh && make samples
  make test
" || { echo "FAIL: README's commands in a fresh Debian 12 root"; exit 1; }
echo "dist_full: ok"
