#!/usr/bin/env bash
# Usage: bench/run.sh [--typed | --records | --goroutines] [--core] [N]
#
# The benchmark, start to end: builds goheap_bench (RelWithDebInfo, Ninja,
# in build/), makes a dump of about N (default 10,000,000) objects with
# bench/make-bench-dump.sh into build/bench/bench-N.dump unless it is already
# there, times one warm read of it with dd, and runs goheap_bench on it.
# Installs nothing: cmake, ninja, a C++20 compiler, GoogleTest and Go 1.24
# (GOHEAP_GO124, default /opt/goheap/go1.24/usr/lib/go-1.24/bin/go) must be
# present. N=10M writes about 770 MB and needs a few GB of memory to make.
# With --core the same heap is also read from the kernel's core of the
# program (make-bench-dump.sh --core, build/bench/bench-N.dump.core), and
# both reports are printed, each against its own file's dd read.
# With --typed the heap is bench/gen's typing-heavy one (make-bench-dump.sh
# --typed: some 70 struct types, maps, interfaces, closures, channels), in
# build/bench/bench-typed-N.dump with its .exe next to it; it combines with
# --core (build/bench/bench-typed-N.dump.core).
# With --records it is the record-shaped heap of Go 1.19 (make-bench-dump.sh
# --records: N/3 records, about N objects), in build/bench/bench-records-N.dump;
# `bench/run.sh --records 3000000` is the 1M-record dump of issue 29.
# With --goroutines it is a heap of about N goroutines, most of them leaked
# (make-bench-dump.sh --goroutines), in build/bench/bench-goroutines-N.dump:
# `bench/run.sh --goroutines 10000` times the goroutine leak analysis.
set -euo pipefail

CORE=0
TYPED=0
RECORDS=0
GOROUTINES=0
while [ $# -gt 0 ]; do
  case "$1" in
    --core) CORE=1 ;;
    --typed) TYPED=1 ;;
    --records) RECORDS=1 ;;
    --goroutines) GOROUTINES=1 ;;
    -*) echo "run.sh: unknown option $1" >&2; echo "usage: $0 [--typed | --records | --goroutines] [--core] [N]" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
if [ $# -gt 1 ]; then
  echo "usage: $0 [--typed | --records | --goroutines] [--core] [N]" >&2
  exit 2
fi
if [ $((TYPED + RECORDS + GOROUTINES)) -gt 1 ]; then
  echo "run.sh: --typed, --records and --goroutines are different heaps: give one" >&2
  exit 2
fi
N=${1:-10000000}
case "$N" in '' | *[!0-9]*) echo "run.sh: N must be a number, not '$N'" >&2; exit 2 ;; esac

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
GEN_OPTS=()
if [ $TYPED = 1 ]; then
  DUMP=$BUILD/bench/bench-typed-$N.dump
  GEN_OPTS+=(--typed)
elif [ $RECORDS = 1 ]; then
  DUMP=$BUILD/bench/bench-records-$N.dump
  GEN_OPTS+=(--records)
elif [ $GOROUTINES = 1 ]; then
  DUMP=$BUILD/bench/bench-goroutines-$N.dump
  GEN_OPTS+=(--goroutines)
else
  DUMP=$BUILD/bench/bench-$N.dump
fi
if [ $CORE = 1 ]; then
  GEN_OPTS+=(--core)
fi

# Two cores are shared with other work, so the build never asks for more.
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$BUILD" -j2 goheap_bench

# The dump and its core must come from one process: both are made again
# when the core is wanted and missing.
if [ ! -s "$DUMP" ] || { [ $CORE = 1 ] && [ ! -s "$DUMP.core" ]; }; then
  echo "making $DUMP ..."
  # Written under a temporary name so that an interrupted run leaves no
  # half-written dump to be mistaken for a finished one next time.
  "$ROOT/bench/make-bench-dump.sh" ${GEN_OPTS[@]+"${GEN_OPTS[@]}"} "$DUMP.partial" "$N"
  mv "$DUMP.partial" "$DUMP"
  mv "$DUMP.partial.exe" "$DUMP.exe"
  if [ -f "$DUMP.partial.json" ]; then mv "$DUMP.partial.json" "$DUMP.json"; fi
  if [ $CORE = 1 ]; then
    mv "$DUMP.partial.core" "$DUMP.core"
  fi
fi

# The first read fills the page cache; the second is the time to read the
# file once when it is already in memory, which is what goheap then maps.
dd_seconds() {
  local out
  out=$(LC_ALL=C dd if="$1" of=/dev/null bs=1M 2>&1)
  # "... bytes (...) copied, 0.123 s, 6.2 GB/s"
  sed -n 's/.* copied, \([0-9.e+-]*\) s,.*/\1/p' <<<"$out"
}
report() {
  local FILE=$1 DD_S REPORT
  dd_seconds "$FILE" >/dev/null
  DD_S=$(dd_seconds "$FILE")

  REPORT=$("$BUILD/bench/goheap_bench" "$FILE" "$DUMP.exe")
  echo "$REPORT"
  echo
  echo "dd (warm)       $DD_S s"
  # Ratios of each phase and of the summary total to dd's read. Columns are
  # found by their headers so that the report may gain columns.
  awk -v dd="$DD_S" '
    /^phase / {
      in_table = 1
      for (i = 2; i <= NF; i++) col[$i] = i - NF - 1  # offset from the last field
      printf "\n%-26s %9s %9s %9s\n", "phase", "seconds", "cpu_s", "x_dd"
      next
    }
    in_table && NF == 0 { in_table = 0 }
    in_table {
      s = $(NF + 1 + col["seconds"])
      cpu = ("cpu_s" in col) ? $(NF + 1 + col["cpu_s"]) : ""
      name = $0
      sub(/( +[0-9.]+)+$/, "", name)
      printf "%-26s %9.3f %9s %9.2f\n", name, s, cpu, s / dd
    }
  ' <<<"$REPORT"
}

report "$DUMP"
if [ $CORE = 1 ]; then
  echo
  echo "==== the same heap from its core: $DUMP.core"
  report "$DUMP.core"
fi
