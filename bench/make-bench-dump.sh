#!/usr/bin/env bash
# Usage: bench/make-bench-dump.sh OUT [N]
#
# Builds bench/gen with Go 1.24 and runs it to write a heap dump of about N
# (default 10,000,000) live objects to OUT; the executable is kept next to it
# as OUT.exe (with DWARF) so goheap can be benchmarked with and without it.
# N=10M needs a few GB of memory and writes a dump of about 1 GB.
#
# Toolchain: GOHEAP_GO124 (default /opt/goheap/go1.24/usr/lib/go-1.24/bin/go,
# from scripts/install-deps.sh).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 OUT [N]" >&2
  exit 2
fi
OUT=$1
N=${2:-10000000}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GO=${GOHEAP_GO124:-${GOHEAP_GO124_DIR:-/opt/goheap/go1.24}/usr/lib/go-1.24/bin/go}
if [ ! -x "$GO" ]; then
  echo "make-bench-dump: Go 1.24 not found at $GO (run scripts/install-deps.sh or set GOHEAP_GO124)" >&2
  exit 1
fi
case "$("$GO" env GOVERSION)" in go1.24*) ;; *) echo "make-bench-dump: $GO is not Go 1.24" >&2; exit 1 ;; esac

mkdir -p "$(dirname "$OUT")"
unset GOROOT GOOS GOARCH GOARM GOFLAGS GO111MODULE GOEXPERIMENT GOWORK GODEBUG GOGC GOMEMLIMIT
export GOENV=off GOTOOLCHAIN=local CGO_ENABLED=0 GOPROXY=off
export GOCACHE=${GOHEAP_BENCH_GOCACHE:-$(cd "$(dirname "$OUT")" && pwd)/.gocache}
export GOPATH=${GOCACHE%/}-gopath

(cd "$HERE/gen" && GOROOT=$("$GO" env GOROOT) "$GO" build -trimpath -buildvcs=false -o "$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT").exe" main.go)
"$OUT.exe" "$OUT" "$N"
