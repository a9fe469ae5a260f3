#!/usr/bin/env bash
# Regenerates src/goruntime/runtime_tables.inc: builds tests/programs/coreprog with
# every toolchain of tests/programs/toolchains.sh for amd64 and arm64 (the
# runtime's layouts do not depend on the program), and prints each one's
# runtime layouts from its DWARF with goheap_runtime_layouts.
#   tools/runtime-layouts/regenerate.sh BUILD_DIR
# (BUILD_DIR: a configured goheap build; the tool is built there.)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${1:?usage: regenerate.sh BUILD_DIR}
# shellcheck source=../../tests/programs/toolchains.sh
source "$ROOT/tests/programs/toolchains.sh"
go_clean_environment

ninja -C "$BUILD" goheap_runtime_layouts
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
exes=()
for label in "${GOHEAP_ALL_GO_LABELS[@]}"; do
  go=$(go_binary "$label")
  root=$(toolchain_root "$label" "$go")
  for arch in amd64 arm64; do
    (cd "$ROOT/tests/programs/coreprog" &&
      GOROOT=$root GOOS=linux GOARCH=$arch "$go" build -trimpath -buildvcs=false \
        -o "$TMP/$label-$arch" .)
    exes+=("$TMP/$label-$arch")
  done
done
"$BUILD/goheap_runtime_layouts" "${exes[@]}" >"$TMP/runtime_tables.inc"
mv "$TMP/runtime_tables.inc" "$ROOT/src/goruntime/runtime_tables.inc"
