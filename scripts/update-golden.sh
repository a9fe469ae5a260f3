#!/usr/bin/env bash
# Regenerates the golden files of tests/golden/ from tests/golden/cases.txt
# with BUILD_DIR/goheap:
#   scripts/update-golden.sh BUILD_DIR
#
# The golden files are goheap's own output, kept so that a change of the
# code that should not change what goheap prints (a refactoring) is caught
# byte for byte by tests/cli/golden_json_test.cpp. Run this script ONLY when
# an output change is intended, look at the diff of tests/golden/ before
# committing it, and say in the commit message which output changed and why.
#
# cases.txt has one case a line: NAME, then the arguments of goheap (paths
# relative to the repository root, where goheap runs; no quoting, arguments
# are separated by spaces; @TMP@ stands for a scratch directory). '#' starts
# a comment line. For each case this writes
#   NAME.out   its standard output, byte for byte
#   NAME.err   only when it exits with a status other than 0 or writes to
#              stderr: "exit STATUS" on the first line, then its stderr
# and removes the .out and .err files of cases no longer listed.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR   (regenerates tests/golden/ with BUILD_DIR/goheap)" >&2
  exit 2
fi
goheap=$(cd "$1" && pwd)/goheap
[ -x "$goheap" ] || {
  echo "$0: no executable $goheap" >&2
  exit 1
}
cd "$(dirname "$0")/.."
golden=tests/golden
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

declare -A listed=()
count=0
while read -r name rest; do
  case "$name" in '' | '#'*) continue ;; esac
  if [ -n "${listed[$name]:-}" ]; then
    echo "$0: case $name is listed twice" >&2
    exit 1
  fi
  listed[$name]=1
  read -r -a args <<<"${rest//@TMP@/$scratch}"
  status=0
  "$goheap" "${args[@]}" </dev/null >"$golden/$name.out" 2>"$scratch/stderr" || status=$?
  if [ "$status" -ne 0 ] || [ -s "$scratch/stderr" ]; then
    { echo "exit $status"; cat "$scratch/stderr"; } >"$golden/$name.err"
  else
    rm -f "$golden/$name.err"
  fi
  count=$((count + 1))
done <"$golden/cases.txt"

for f in "$golden"/*.out "$golden"/*.err; do
  [ -e "$f" ] || continue
  base=$(basename "$f")
  name=${base%.*}
  if [ -z "${listed[$name]:-}" ]; then
    echo "removing $f: no such case in cases.txt"
    rm -f "$f"
  fi
done
echo "$count cases in $golden ($(du -sh "$golden" | cut -f1))"
