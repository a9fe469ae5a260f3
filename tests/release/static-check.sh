#!/usr/bin/env bash
# static-check.sh STATIC DYNAMIC [ARM64]: the static goheap (GOHEAP_STATIC,
# scripts/build-release.sh) in an empty root gives what the dynamic build
# gives. Run by scripts/test.sh after its static build; needs root (chroot,
# unshare), file and python3.
#   - `file` says STATIC is statically linked;
#   - `summary --json` of the sample dump, run by `unshare --mount --fork
#     chroot ROOT /goheap` in a root holding only goheap and its inputs (no
#     libc, no /etc, no /tmp, no /proc, no HOME), is byte-identical to the
#     dynamic build's, given the same (relative) paths; the index cache is
#     then off, and goheap says so once;
#   - `serve --http localhost:PORT` in that root listens (no /etc/hosts, no
#     NSS: goheap resolves localhost itself) and answers /api/status;
#   - ARM64, the arm64 static binary, gives the same JSON under
#     qemu-aarch64-static, copied into the root beside it.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: tests/release/static-check.sh STATIC DYNAMIC [ARM64]" >&2
  exit 2
fi
static=$(realpath "$1")
dynamic=$(realpath "$2")
arm64=${3:+$(realpath "$3")}
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
fail() {
  echo "static-check: FAILED: $*" >&2
  exit 1
}

file -b "$static" | grep -q "statically linked" || fail "$static is not static: $(file -b "$static")"

# env -i clears PATH too: the tools by their full paths.
unshare=$(command -v unshare)
chroot=$(command -v chroot)
root=$(mktemp -d)
trap 'rm -rf "$root" "$root".*' EXIT
cp "$static" "$root/goheap"
mkdir "$root/in"
cp "$source_dir/examples/leaky.dump" "$source_dir/examples/leaky-linux-amd64" "$root/in/"
args=(summary --json in/leaky.dump in/leaky-linux-amd64)

# In the empty root: chroot's working folder is /, so in/ is /in.
env -i "$unshare" --mount --fork "$chroot" "$root" /goheap "${args[@]}" >"$root.static.json" \
  2>"$root.static.err" || fail "the static goheap failed in an empty root: $(cat "$root.static.err")"
(cd "$root" && env -i "$dynamic" "${args[@]}" --no-cache) >"$root.dynamic.json" \
  2>"$root.dynamic.err" || fail "the dynamic goheap failed: $(cat "$root.dynamic.err")"
cmp -s "$root.static.json" "$root.dynamic.json" ||
  fail "summary --json differs between the static build in an empty root and the dynamic one: $(diff "$root.static.json" "$root.dynamic.json" | head -20)"
[ "$(grep -c "index cache is off" "$root.static.err")" = 1 ] ||
  fail "without HOME the static goheap should say once that the index cache is off; it said: $(cat "$root.static.err")"
echo "static-check: summary --json in an empty root: identical to the dynamic build's ($(stat -c %s "$root.static.json") bytes)"

# serve on localhost in the empty root, asked from outside it.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
env -i "$unshare" --mount --fork --kill-child "$chroot" "$root" /goheap serve --http "localhost:$port" \
  in/leaky.dump in/leaky-linux-amd64 >"$root.serve.out" 2>&1 &
serve_pid=$!
answered=0
for _ in $(seq 100); do
  if python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode())' \
    "http://127.0.0.1:$port/api/status" >"$root.status.json" 2>/dev/null; then
    answered=1
    break
  fi
  kill -0 "$serve_pid" 2>/dev/null || break
  sleep 0.2
done
# unshare --fork ignores SIGTERM while it waits: stop goheap, its child.
pkill -TERM -P "$serve_pid" 2>/dev/null || true
wait "$serve_pid" 2>/dev/null || true
[ "$answered" = 1 ] || fail "serve --http localhost:$port in an empty root did not answer: $(cat "$root.serve.out")"
echo "static-check: serve --http localhost:$port in an empty root answered /api/status"

if [ -n "$arm64" ]; then
  file -b "$arm64" | grep -q "statically linked" || fail "$arm64 is not static: $(file -b "$arm64")"
  cp "$arm64" "$root/goheap-arm64"
  cp "$(command -v qemu-aarch64-static)" "$root/qemu-aarch64-static"
  env -i "$unshare" --mount --fork "$chroot" "$root" /qemu-aarch64-static /goheap-arm64 "${args[@]}" \
    >"$root.arm64.json" 2>"$root.arm64.err" ||
    fail "the arm64 static goheap failed under qemu in an empty root: $(cat "$root.arm64.err")"
  cmp -s "$root.arm64.json" "$root.dynamic.json" ||
    fail "summary --json differs between the arm64 static build and the dynamic one: $(diff "$root.arm64.json" "$root.dynamic.json" | head -20)"
  echo "static-check: the arm64 binary under qemu in an empty root: identical"
fi
rm -f "$root".*
echo "static-check: passed"
