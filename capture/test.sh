#!/usr/bin/env bash
# Usage: capture/test.sh GOCACHE_DIR
#
# Runs `go vet` and `go test` over the capture module with every Go release
# it supports (Go 1.19, 1.24, 1.26 and 1.27: tests/programs/toolchains.sh
# says where each is), offline: the module uses the standard library alone.
# The Go build cache is the one make-dumps.sh keeps outside the build folder
# (go-build/ in ~/.cache/goheap/test-dumps: tests/programs/toolchains.sh,
# test_cache_dir), so that a new clone compiles no standard library again;
# without that cache it is GOCACHE_DIR (ctest gives one under the build
# directory), which also holds the tests' temporary files. The tests run
# every time all the same (-count=1). GOHEAP_GO_LABELS="go1.19 go1.27" runs
# only those. ctest runs this as capture_go_test (tests/CMakeLists.txt).
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 GOCACHE_DIR" >&2
  exit 2
fi
mkdir -p "$1"
CACHE=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/programs/toolchains.sh
. "$HERE/../tests/programs/toolchains.sh"

go_clean_environment
GOCACHE="$CACHE"
shared=$(test_cache_dir)
if [ -n "$shared" ] && mkdir -p "$shared/go-build" 2>/dev/null && [ -w "$shared/go-build" ]; then
  GOCACHE=$(cd "$shared/go-build" && pwd)
fi
export GOCACHE GOPATH="$CACHE/.gopath" GOMODCACHE="$CACHE/.gopath/pkg/mod"
# The tests write heap dumps into temporary directories of their own; those
# go under the cache, not into the machine's /tmp.
export TMPDIR="$CACHE/tmp"
mkdir -p "$TMPDIR"

read -r -a labels <<<"${GOHEAP_GO_LABELS:-go1.19 go1.24 go1.26 go1.27}"
status=0
for label in "${labels[@]}"; do
  go=$(go_binary "$label")
  root=$(toolchain_root "$label" "$go") || {
    status=1
    continue
  }
  echo "capture: $label: go vet ./..."
  if ! (cd "$HERE" && GOROOT=$root "$go" vet ./...); then
    echo "capture: $label: go vet failed" >&2
    status=1
    continue
  fi
  echo "capture: $label: go test ./..."
  if ! (cd "$HERE" && GOROOT=$root "$go" test -count=1 ./...); then
    echo "capture: $label: go test failed" >&2
    status=1
  fi
done
exit $status
