#!/usr/bin/env bash
# Usage: bench/make-bench-dump.sh [--typed | --records | --goroutines] [--core] OUT [N]
#
# Builds bench/gen with Go 1.24 and runs it to write a heap dump of about N
# (default 10,000,000) live objects to OUT; the executable is kept next to it
# as OUT.exe (with DWARF) so goheap can be benchmarked with and without it.
# N=10M needs a few GB of memory and writes a dump of about 1 GB.
# With --typed the heap is the typing-heavy one (GOHEAP_BENCH_SHAPES=typed:
# some 70 struct types, maps, interfaces, closures, channels; see the
# comment at the top of bench/gen/main.go) instead of the default few shapes.
# With --records the heap is issue 29's record-shaped one
# (GOHEAP_BENCH_SHAPES=records: N/3 records in lists of 1,000, each with a
# name string and a []int32, some with a map or a []byte), built with Go 1.19
# as that measurement was.
# With --goroutines the heap is tests/programs/goleak's, its plain leaks and
# decoys started N/14 times each (GOLEAK_SCALE): about N goroutines, most
# of them leaked, for the time of the goroutine leak analysis; the
# program's report (which leak is which) is kept as OUT.json.
# With --core the program then dies of SIGABRT (GOTRACEBACK=crash, core
# limit raised) and the kernel's core of the same heap is kept as OUT.core:
# this needs /proc/sys/kernel/core_pattern to write into the working
# directory ("core" or "core.%p", as on Debian by default).
#
# Toolchain: GOHEAP_GO124 (default /opt/goheap/go1.24/usr/lib/go-1.24/bin/go,
# from scripts/install-deps.sh); for --records GOHEAP_GO119 (default
# /usr/lib/go-1.19/bin/go, Debian's golang-1.19-go).
set -euo pipefail

CORE=0
SHAPES=default
while [ $# -gt 0 ]; do
  case "$1" in
    --core) CORE=1 ;;
    --typed) SHAPES=typed ;;
    --records) SHAPES=records ;;
    --goroutines) SHAPES=goroutines ;;
    --) shift; break ;;
    -*) echo "make-bench-dump: unknown option $1" >&2; echo "usage: $0 [--typed | --records | --goroutines] [--core] OUT [N]" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 [--typed | --records] [--core] OUT [N]" >&2
  exit 2
fi
OUT=$1
N=${2:-10000000}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ $SHAPES = records ]; then
  GO_RELEASE=1.19 GO_VAR=GOHEAP_GO119
  GO=${GOHEAP_GO119:-/usr/lib/go-1.19/bin/go}
else
  GO_RELEASE=1.24 GO_VAR=GOHEAP_GO124
  GO=${GOHEAP_GO124:-${GOHEAP_GO124_DIR:-/opt/goheap/go1.24}/usr/lib/go-1.24/bin/go}
fi
if [ ! -x "$GO" ]; then
  echo "make-bench-dump: Go $GO_RELEASE not found at $GO (run scripts/install-deps.sh or set $GO_VAR)" >&2
  exit 1
fi
case "$("$GO" env GOVERSION)" in "go$GO_RELEASE"*) ;; *) echo "make-bench-dump: $GO is not Go $GO_RELEASE" >&2; exit 1 ;; esac

mkdir -p "$(dirname "$OUT")"
# Absolute, as the build below runs in bench/gen.
OUT=$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")
unset GOROOT GOOS GOARCH GOARM GOFLAGS GO111MODULE GOEXPERIMENT GOWORK GODEBUG GOGC GOMEMLIMIT
unset GOHEAP_BENCH_LIVE GOHEAP_BENCH_CRASH
export GOHEAP_BENCH_SHAPES=$SHAPES
export GOENV=off GOTOOLCHAIN=local CGO_ENABLED=0 GOPROXY=off
export GOCACHE=${GOHEAP_BENCH_GOCACHE:-$(cd "$(dirname "$OUT")" && pwd)/.gocache}
export GOPATH=${GOCACHE%/}-gopath

if [ $SHAPES = goroutines ]; then
  # tests/programs/goleak with its plain leaks and decoys started N/14
  # times each: about N goroutines, 17 of every 20 leaked.
  [ $CORE = 0 ] || { echo "make-bench-dump: --goroutines makes no core" >&2; exit 2; }
  (cd "$HERE/../tests/programs/goleak" && GOROOT=$("$GO" env GOROOT) GO111MODULE=off "$GO" build -trimpath -buildvcs=false -o "$OUT.exe" main.go)
  GOLEAK_SCALE=$((N / 14)) "$OUT.exe" "$OUT" "$OUT.json"
  exit 0
fi
(cd "$HERE/gen" && GOROOT=$("$GO" env GOROOT) "$GO" build -trimpath -buildvcs=false -o "$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT").exe" main.go)
if [ $CORE = 0 ]; then
  "$OUT.exe" "$OUT" "$N"
  exit 0
fi
case "$(cat /proc/sys/kernel/core_pattern)" in
  core*) ;;
  *) echo "make-bench-dump: core_pattern is '$(cat /proc/sys/kernel/core_pattern)', not a file in the working directory" >&2; exit 1 ;;
esac
OUT_ABS=$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")
WORK=$(mktemp -d "$OUT_ABS.coredir.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
status=0
(cd "$WORK" && ulimit -c unlimited && GOTRACEBACK=crash GOHEAP_BENCH_CRASH=1 "$OUT_ABS.exe" "$OUT_ABS" "$N" 2>"$WORK/traceback.txt") || status=$?
core=$(ls "$WORK" | grep '^core' | head -1 || true)
if [ -z "$core" ]; then
  echo "make-bench-dump: the program exited with status $status and left no core in $WORK" >&2
  exit 1
fi
mv "$WORK/$core" "$OUT.core"
