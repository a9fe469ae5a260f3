#!/usr/bin/env bash
# Usage: split-debug.sh OUTDIR LABEL
#
# The zoo program as a distribution ships a Go executable, for
# tests/query/debug_file_test.cpp: built with a GNU build ID
# (-ldflags=-B=gobuildid: the default since Go 1.24, asked for all the same)
# and run, then split as Debian's packages are:
#   OUTDIR/<label>/debugfile/zoo[.dump|.json]  the build with its DWARF, and
#                                the dump it wrote
#   OUTDIR/<label>/debugfile/zoo-stripped  the same with its DWARF moved out
#                                (objcopy --strip-debug) and a .gnu_debuglink
#                                naming zoo-stripped.debug
#   OUTDIR/<label>/debugfile/zoo-stripped.debug  the DWARF
#                                (objcopy --only-keep-debug)
# The loaded sections are the same bytes in all three, so the one dump is
# read with either executable. make-dumps.sh runs this for go1.24 and go1.26
# (a few seconds each); outputs newer than their sources are kept.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 OUTDIR LABEL" >&2
  exit 2
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SCRIPT="$HERE/$(basename "${BASH_SOURCE[0]}")"
# shellcheck source=tests/programs/toolchains.sh
. "$HERE/toolchains.sh"
label=$2
mkdir -p "$1/$label/debugfile"
OUT=$(cd "$1" && pwd)
dir="$OUT/$label/debugfile"
exe="$dir/zoo" stripped="$dir/zoo-stripped"

go=$(go_binary "$label")
root=$(toolchain_root "$label" "$go")
# Fresh when every output is there and newer than every source.
fresh=1
for out in "$exe" "$exe.dump" "$exe.json" "$stripped" "$stripped.debug"; do
  [ -s "$out" ] || fresh=0
  for src in "$SCRIPT" "$HERE/toolchains.sh" "$(readlink -f "$go")" "$HERE/zoo/"*; do
    if [ -f "$src" ] && [ "$src" -nt "$out" ]; then fresh=0; fi
  done
done
if [ $fresh = 1 ]; then
  echo "make-dumps: $label/debugfile up to date"
  exit 0
fi

echo "make-dumps: $label/debugfile: building zoo with a GNU build ID, and splitting its DWARF"
rm -f "$exe" "$exe.dump" "$exe.json" "$stripped" "$stripped.debug"
go_clean_environment
# make-dumps.sh's Go caches when it runs this; the same folders when run alone.
export GOCACHE="${GOCACHE:-$OUT/.gocache}" GOPATH="${GOPATH:-$OUT/.gopath}"
(cd "$HERE/zoo" && GOROOT=$root "$go" build -trimpath -buildvcs=false "-ldflags=-B gobuildid" \
  -o "$exe.tmp" main.go)
mv "$exe.tmp" "$exe"
if ! timeout 300 "$exe" "$exe.dump.tmp" "$exe.json.tmp"; then
  echo "make-dumps: $label/debugfile/zoo: running it failed" >&2
  rm -f "$exe.dump.tmp" "$exe.json.tmp"
  exit 1
fi
mv "$exe.json.tmp" "$exe.json"
mv "$exe.dump.tmp" "$exe.dump"
# The debug file first, under its final name: --add-gnu-debuglink records
# the base name of the file it is given, and its CRC.
objcopy --only-keep-debug "$exe" "$stripped.debug"
objcopy --strip-debug --add-gnu-debuglink="$stripped.debug" "$exe" "$stripped.tmp"
mv "$stripped.tmp" "$stripped"
