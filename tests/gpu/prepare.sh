#!/usr/bin/env bash
# Prepares tests/gpu/run.sh for a machine with an NVIDIA GPU (the device
# tool's H200), on this machine: the device image has CUDA, Python and CMake
# but not this project's build dependencies (LLVM 19, Zydis, Xbyak, CLI11,
# Catch2, re2c, bison), so the binaries are built here and travel.
#
#   tests/gpu/prepare.sh [BUILD_DIR]      (default: build)
#
# Builds ptoas, ptorun, exec_diff and ptx_interp_tests in BUILD_DIR, and
# copies them stripped, with the shared libraries the device image lacks
# (Zydis, the CCE model's library), into .gpu-bin/ at the repository root,
# which .git/info/exclude ignores. Then, with the device tool:
#   run(command="bash tests/gpu/run.sh", carry=[".gpu-bin"], timeout_s=600)
set -eu
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
case "$build" in /*) ;; *) build=$PWD/$build ;; esac
cmake --build "$build" -j"${JOBS:-2}" --target ptoas ptorun exec_diff ptx_interp_tests
bin=$root/.gpu-bin
rm -rf "$bin"
mkdir -p "$bin/lib"
strip -o "$bin/ptoas" "$build/ptoas"
strip -o "$bin/ptorun" "$build/ptorun"
strip -o "$bin/exec_diff" "$build/tests/exec/exec_diff"
strip -o "$bin/ptx_interp_tests" "$build/tests/ptx_interp/ptx_interp_tests"
# The libraries outside the C/C++ runtime and the usual system ones.
for b in "$bin"/ptoas "$bin"/ptorun "$bin"/exec_diff "$bin"/ptx_interp_tests; do
  ldd "$b" | awk '/=> \// {print $1, $3}'
done | sort -u | while read -r name path; do
  case "$name" in
    libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|libz.so*|libzstd.so*|libtinfo.so*|libdl.so*|libpthread.so*|librt.so*) ;;
    *) strip -o "$bin/lib/$name" "$path" 2>/dev/null || cp -L "$path" "$bin/lib/$name" ;;
  esac
done
exclude=$(cd "$root" && cd "$(git rev-parse --git-common-dir)" && pwd)/info/exclude
grep -qx '/.gpu-bin/' "$exclude" 2>/dev/null || echo '/.gpu-bin/' >>"$exclude"
size=$(du -sm "$bin" | cut -f1)
echo "tests/gpu/prepare.sh: $bin holds $size MiB ($(ls "$bin" "$bin/lib" | tr '\n' ' '))"
[ "$size" -lt 60 ] || { echo "tests/gpu/prepare.sh: over the device tool's 64 MiB of carried files" >&2; exit 1; }
