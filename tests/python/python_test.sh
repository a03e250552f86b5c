#!/usr/bin/env bash
# The Python module as installed: cmake --install into a temporary prefix,
# moved elsewhere (relocatable), then test_ptoas.py under Debian's python3
# with an empty environment but PYTHONPATH (and PATH, for g++ and qemu).
# Usage: python_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$(cd "${1:?usage: python_test.sh SOURCE_DIR BUILD_DIR}" && pwd) build=$(cd "${2:?}" && pwd)
py=/usr/bin/python3
if ! "$py" -c "import numpy" 2> /dev/null; then
  echo "SKIP: $py has no numpy (Debian's python3-numpy; scripts/install-deps.sh installs it)"
  exit 77
fi
# shellcheck source=../install/moved_prefix.sh
. "$src/tests/install/moved_prefix.sh"
install_moved "$build"
mkdir "$work/elsewhere" && cd "$work/elsewhere" || exit 1
env -i PATH=/usr/bin:/bin PYTHONPATH="$p/lib/python3/dist-packages" PYTHONDONTWRITEBYTECODE=1 \
  "$py" "$src/tests/python/test_ptoas.py" "$src" "$p" "$("$build/ptoas" --version)"
