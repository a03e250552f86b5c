# Sourced by the tests of an installed tree (consumer_test.sh,
# tests/python/python_test.sh): `install_moved BUILD_DIR` installs the build
# into a new temporary directory, moves the prefix (the tree must be
# relocatable) and sets `work` (removed on exit) and `p` (the moved prefix).
install_moved() {
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  if ! cmake --install "$1" --prefix "$work/p" > "$work/install.log" 2>&1; then
    cat "$work/install.log"
    echo "FAIL: cmake --install"
    exit 1
  fi
  mv "$work/p" "$work/moved"
  p=$work/moved
}
