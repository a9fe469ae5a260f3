#!/usr/bin/env bash
# Usage: bench/snap.sh [--sparse] [--seccomp] [--cgroup-room MIB] [N]
#
# goheap snap's pause, measured: runs bench/gen with about N (default
# 15,000,000, a heap of about 1 GiB) objects in its live mode, snaps it
# three times from a fork (the default) and three times with --no-fork
# (copied while stopped) with build/goheap, and prints for each the pause (the time
# every thread was stopped), the core's size next to the process's writable
# memory and its resident size, then the time of one dd read of the core
# (the floor for copying that much) and of `goheap summary` on the core.
# With --sparse the heap is N (default 32,768: 2 GiB) buffers of 64 KiB each
# touched only at its first byte, and 100,000 parked goroutines (bench/gen's
# sparse shape): a snap copies the touched pages, not the heap.
# With --seccomp the generator runs under a seccomp filter that refuses one
# system call it never makes with EPERM (build/goheap_seccomp_launcher
# errno-acct), as a container runtime's default profile does.
# With --cgroup-room MIB the generator runs in a memory cgroup of its own
# (cgroup v1, as root) whose limit, once its heap is made, leaves MIB of room
# (a pod near its limit): snap forks under CgroupGuard's watch.
# Installs nothing; needs Go 1.24 (GOHEAP_GO124) and goheap built in build/
# (or GOHEAP, the goheap to measure).
set -euo pipefail

SHAPES=default
LAUNCH=()
ROOM_MIB=
while [ $# -gt 0 ]; do
  case "$1" in
    --sparse) SHAPES=sparse ;;
    --seccomp) LAUNCH=(build/goheap_seccomp_launcher errno-acct --) ;;
    --cgroup-room)
      ROOM_MIB=$2
      shift
      ;;
    *) break ;;
  esac
  shift
done
if [ "$SHAPES" = sparse ]; then N=${1:-32768}; else N=${1:-15000000}; fi
case "$N" in '' | *[!0-9]*) echo "snap.sh: N must be a number, not '$N'" >&2; exit 2 ;; esac
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
GO=${GOHEAP_GO124:-/opt/goheap/go1.24/usr/lib/go-1.24/bin/go}
OUT=$BUILD/bench
mkdir -p "$OUT"
if [ -z "${GOHEAP:-}" ]; then
  ninja -C "$BUILD" -j2 goheap >/dev/null
  GOHEAP=$BUILD/goheap
fi
(cd "$ROOT/bench/gen" && GOCACHE="$OUT/.gocache" GOFLAGS= "$GO" build -o "$OUT/gen" main.go)

FIFO=$(mktemp -u)
mkfifo "$FIFO"
if [ ${#LAUNCH[@]} -gt 0 ]; then
  ninja -C "$BUILD" -j2 goheap_seccomp_launcher >/dev/null
  LAUNCH[0]=$BUILD/goheap_seccomp_launcher
fi
CGROUP=
trap 'rm -f "$FIFO" "$OUT"/snap-bench.core; kill "$GEN" 2>/dev/null || true; [ -z "$CGROUP" ] || { sleep 1; rmdir "$CGROUP" 2>/dev/null || true; }' EXIT
if [ -n "$ROOM_MIB" ]; then
  CGROUP=/sys/fs/cgroup/memory/goheap-snap-bench-$$
  mkdir "$CGROUP"
  LAUNCH=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGROUP" "${LAUNCH[@]}")
fi
GOHEAP_BENCH_SHAPES=$SHAPES GOHEAP_BENCH_LIVE=1 "${LAUNCH[@]}" "$OUT/gen" /dev/null "$N" <"$FIFO" >"$OUT/gen-live.txt" &
GEN=$!
exec 3>"$FIFO"  # the generator runs until this closes
for _ in $(seq 1 600); do
  grep -q '^ready' "$OUT/gen-live.txt" 2>/dev/null && break
  sleep 1
done
cat "$OUT/gen-live.txt"
grep VmRSS "/proc/$GEN/status"
if [ -n "$CGROUP" ]; then
  usage=$(cat "$CGROUP/memory.usage_in_bytes")
  echo $((usage + ROOM_MIB * 1024 * 1024)) >"$CGROUP/memory.limit_in_bytes"
  echo "memory cgroup: $((usage >> 20)) MiB used, limit $(($(cat "$CGROUP/memory.limit_in_bytes") >> 20)) MiB"
fi
for how in fork --no-fork; do
  for run in 1 2 3; do
    echo "snap $run ($how):"
    FLAGS=()
    if [ "$how" = --no-fork ]; then FLAGS=(--no-fork); fi
    "$GOHEAP" snap "$GEN" -o "$OUT/snap-bench.core" --no-progress "${FLAGS[@]}" | sed 's/^/  /'
  done
done
echo "dd of the core:"
sync
dd if="$OUT/snap-bench.core" of=/dev/null bs=1M 2>&1 | tail -1 | sed 's/^/  /'
echo "goheap summary of the core:"
ls -l "$OUT/snap-bench.core" | awk '{print "  core file " $5 " bytes"}'
/usr/bin/time -f "  %e s, %M KiB peak" "$GOHEAP" summary "$OUT/snap-bench.core" --no-progress >/dev/null
exec 3>&-
wait "$GEN"
