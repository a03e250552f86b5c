#!/usr/bin/env bash
# Installs exactly the Debian 12 packages that ptoas builds and tests with.
# Idempotent: quiet and fast when everything is already installed.
set -euo pipefail
PKGS=(build-essential cmake git pkg-config
  re2c bison libcli11-dev catch2
  libxbyak-dev libzydis-dev zydis-tools
  llvm-19-dev lld-19 liblld-19-dev libzstd-dev libedit-dev zlib1g-dev
  clang-19 libclang-rt-19-dev
  python3-numpy help2man debootstrap
  libopenblas-dev
  bochs bochsbios vgabios bochs-term
  qemu-user g++-aarch64-linux-gnu
  strace)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
